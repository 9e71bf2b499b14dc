#!/usr/bin/env bash
# The libFuzzer harnesses (fuzz/, built by scripts/fuzz with clang): each replays its corpus
# (seeds written by kray itself plus tests/data/fuzz) and fuzzes for FUZZ_SMOKE_SECONDS (default
# 3) seconds; any crash, leak, timeout or out-of-memory fails the test. Skipped (77) without
# clang or libFuzzer, and in the sanitizer build (the harnesses carry their own sanitizers; the
# main build runs them). The ISMRMRD harness is among them when kray has ISMRMRD.
set -euo pipefail
: "${KRAY_SRC:?}" "${KRAY_BUILD:?}"
if grep -q '^KRAY_SANITIZE:BOOL=ON' "$KRAY_BUILD/CMakeCache.txt" 2>/dev/null; then
    echo "skipped: the fuzzing harnesses run from the main build"
    exit 77
fi
s=${FUZZ_SMOKE_SECONDS:-3}
out=$KRAY_BUILD/fuzz-smoke
rc=0
harnesses=$("$KRAY_SRC/scripts/fuzz" --build "$out" --list) || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
read -r -a names <<<"$harnesses"
"$KRAY_SRC/scripts/fuzz" --build "$out" --seconds "$s" --parallel 2 "${names[@]}" | tee "$out.lines" ||
    rc=$?
# every harness must have run inputs (a burst that never started is a failure too)
if grep -q ' execs=0 ' "$out.lines"; then
    echo "FAIL: a harness ran no input: $(grep ' execs=0 ' "$out.lines" | tr '\n' ' ')" >&2
    rc=1
fi
exit "$rc"
