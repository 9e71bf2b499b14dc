"""The package's type stubs (the .pyi files beside the modules, with py.typed): mypy finds no
error in them, and stubtest finds them equal to the modules at run time (every public name,
signature, default and struct field). Skipped without mypy (Debian: python3-mypy)."""
import os
import subprocess
import sys

import pytest

pytest.importorskip("mypy", reason="mypy is not installed (scripts/deps.sh test: python3-mypy)")

PYDIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(args, tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([PYDIR] + [p for p in [env.get("PYTHONPATH")] if p])
    env["MYPY_CACHE_DIR"] = str(tmp_path / "mypy-cache")
    r = subprocess.run([sys.executable, "-m"] + args, cwd=PYDIR, env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    return r.stdout


def test_mypy_finds_no_error_in_the_package(tmp_path):
    assert "Success" in run(["mypy", "--config-file", "pyproject.toml", "-p", "kray"], tmp_path)


def test_stubs_agree_with_the_runtime(tmp_path):
    run(["mypy.stubtest", "kray", "--concise", "--mypy-config-file", "pyproject.toml",
         "--allowlist", os.path.join("tests", "stubtest-allowlist.txt")], tmp_path)
