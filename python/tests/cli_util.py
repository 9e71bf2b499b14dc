"""Running the kray command-line tool from the tests (same build as the library)."""
import json
import subprocess


def run_cli(cli, *args, want_json=False):
    """Run `kray args...` on the CPU backend, quietly; returns its stdout (parsed when
    want_json). A non-zero exit fails the test with kray's message."""
    cmd = [cli] + [str(a) for a in args] + ["--backend", "cpu", "--quiet"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, "%s: %s" % (" ".join(cmd), r.stderr)
    return json.loads(r.stdout) if want_json else r.stdout
