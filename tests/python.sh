# The Python package's pytest suite (python/tests) against this build's libkray.so, with the
# Debian python3 (numpy, scipy, scikit-image, torch from scripts/deps.sh test). CUDA tests
# report "skipped" without a GPU. Skipped under the sanitizer build (Python itself is not
# instrumented).
set -euo pipefail
: "${KRAY_BUILD:?}" "${KRAY_SRC:?}"
PY=/usr/bin/python3
if grep -q '^KRAY_SANITIZE:BOOL=ON' "$KRAY_BUILD/CMakeCache.txt" 2>/dev/null; then
    echo "skipped: the Python suite does not run under the sanitizer build"; exit 77
fi
if ! "$PY" -c 'import numpy, pytest' 2>/dev/null; then
    echo "skipped: $PY lacks numpy or pytest (scripts/deps.sh test installs them)"; exit 77
fi
export KRAY_LIBRARY="$KRAY_BUILD/libkray.so" PYTHONPATH="$KRAY_SRC/python" PYTHONDONTWRITEBYTECODE=1
export KRAY_TMP="${KRAY_TMP:-/tmp}"
mkdir -p "$KRAY_TMP"
cd "$KRAY_SRC/python"
exec "$PY" -m pytest -q -p no:cacheprovider -rs tests "$@"
