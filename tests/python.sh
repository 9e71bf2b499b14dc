# The Python package's pytest suite (python/tests) against this build's libkray.so, with the
# first Python that has numpy and pytest: $KRAY_PYTHON, the Debian /usr/bin/python3 (numpy,
# scipy, scikit-image, torch from scripts/deps.sh test), or python3 on PATH (the GPU machine's,
# with CuPy and a CUDA PyTorch). CUDA tests report "skipped" without a GPU. Skipped under the
# sanitizer build (Python itself is not instrumented).
set -euo pipefail
: "${KRAY_BUILD:?}" "${KRAY_SRC:?}"
PY=
for c in ${KRAY_PYTHON:-} /usr/bin/python3 "$(command -v python3 || true)"; do
    if [ -n "$c" ] && "$c" -c 'import numpy, pytest' 2>/dev/null; then PY=$c; break; fi
done
if grep -q '^KRAY_SANITIZE:BOOL=ON' "$KRAY_BUILD/CMakeCache.txt" 2>/dev/null; then
    echo "skipped: the Python suite does not run under the sanitizer build"; exit 77
fi
if [ -z "$PY" ]; then
    echo "skipped: no python3 with numpy and pytest (scripts/deps.sh test installs them)"; exit 77
fi
echo "python: $PY ($("$PY" --version 2>&1))"
export KRAY_LIBRARY="$KRAY_BUILD/libkray.so" PYTHONPATH="$KRAY_SRC/python" PYTHONDONTWRITEBYTECODE=1
export KRAY_TMP="${KRAY_TMP:-/tmp}"
mkdir -p "$KRAY_TMP"
cd "$KRAY_SRC/python"
exec "$PY" -m pytest -q -p no:cacheprovider -rs tests "$@"
