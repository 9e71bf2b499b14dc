# `pip install ./python` from this checkout builds libkray with scikit-build-core into a fresh
# virtual environment (CUDA off, to keep it quick), and the installed package works from
# outside the source tree with no environment variables. Skipped when PyPI (for
# scikit-build-core) cannot be reached.
set -euo pipefail
: "${KRAY_SRC:?}" "${KRAY_BUILD:?}"
PY=/usr/bin/python3
if grep -q '^KRAY_SANITIZE:BOOL=ON' "$KRAY_BUILD/CMakeCache.txt" 2>/dev/null; then
    echo "skipped: not under the sanitizer build"; exit 77
fi
"$PY" -c 'import numpy, venv' 2>/dev/null || { echo "skipped: $PY lacks numpy or venv"; exit 77; }
W=$(mktemp -d "${KRAY_TMP:-/tmp}/python_install.XXXXXX")
trap 'rm -rf "$W"' EXIT
"$PY" -m venv --system-site-packages "$W/venv" >/dev/null 2>&1 ||
    { echo "skipped: python3 -m venv is not available (Debian: python3-venv)"; exit 77; }
if ! timeout 120 "$W/venv/bin/pip" download -q --no-deps -d "$W/probe" scikit-build-core \
        >/dev/null 2>&1; then
    echo "skipped: PyPI is not reachable (scikit-build-core)"; exit 77
fi
CMAKE_ARGS="-DKRAY_CUDA=OFF" CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) \
    "$W/venv/bin/pip" install -q "$KRAY_SRC/python" > "$W/pip.log" 2>&1 ||
    { tail -30 "$W/pip.log"; echo "FAIL: pip install ./python"; exit 1; }
cd "$W"
env -u KRAY_LIBRARY -u PYTHONPATH "$W/venv/bin/python" - <<'PYEOF'
import os, numpy as np, kray
site = os.path.dirname(kray.__file__)
assert "site-packages" in site, site
assert os.path.dirname(kray.library_path) == site, kray.library_path
x = np.arange(12, dtype=np.float32).reshape(3, 4)
kray.write("x.npy", x)
assert np.array_equal(kray.read("x.npy"), x) and np.array_equal(np.load("x.npy"), x)
print("ok: kray", kray.__version__, "installed at", site, "features:", kray.build_features)
PYEOF
