# Shared helpers for tests/cli_*.sh (sourced; not a test itself: the name does not end in .sh).
# Environment (set by ctest): KRAY = the CLI, KRAY_TMP = scratch directory.
set -euo pipefail
: "${KRAY:?KRAY must name the kray executable}"
KRAY_TMP=${KRAY_TMP:-/tmp}
mkdir -p "$KRAY_TMP"
T=$(mktemp -d "$KRAY_TMP/$(basename "$0" .sh).XXXXXX")
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3
NFAIL=0

fail() {
    echo "FAIL: $*" >&2
    NFAIL=$((NFAIL + 1))
}

ok() { echo "ok: $*"; }

# expect_rc CODE TOOL CMD...: run CMD, require exit CODE; for CODE != 0 also require exactly one
# line on stderr starting with "kray TOOL: " (TOOL "-" = the top-level "kray: ").
expect_rc() {
    local want=$1 tool=$2
    shift 2
    local rc=0
    "$@" >"$T/out" 2>"$T/err" || rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "'$*' exited $rc, expected $want; stderr: $(head -c 400 "$T/err")"
        return 0
    fi
    if [ "$want" -ne 0 ]; then
        local prefix="kray $tool: "
        [ "$tool" = "-" ] && prefix="kray: "
        local n
        n=$(wc -l <"$T/err")
        if [ "$n" -ne 1 ] || [ "$(head -c ${#prefix} "$T/err")" != "$prefix" ]; then
            fail "'$*': stderr should be one line starting with '$prefix', got: $(cat "$T/err")"
            return 0
        fi
        if grep -qiE 'segmentation|core dumped|assert|sanitizer' "$T/err"; then
            fail "'$*': crash on stderr: $(cat "$T/err")"
            return 0
        fi
    fi
    ok "'$*' -> $rc"
}

# json_field FILE KEY: the number after "KEY": in a one-line JSON object.
json_field() {
    sed -n "s/.*\"$2\": \\([^,}]*\\).*/\\1/p" "$1" | head -n 1
}

# num_le A B: true when A <= B (floating point).
num_le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }

# Skip (77) unless bart is on PATH and $PY has NumPy (the BART comparisons).
need_bart_numpy() {
    if ! command -v bart >/dev/null 2>&1; then
        echo "skipped: bart not on PATH"
        exit 77
    fi
    if ! [ -x "$PY" ] || ! "$PY" -c 'import numpy' 2>/dev/null; then
        echo "skipped: needs /usr/bin/python3 with numpy"
        exit 77
    fi
}

is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; }

finish() {
    if [ "$NFAIL" -ne 0 ]; then
        echo "$NFAIL check(s) failed" >&2
        exit 1
    fi
    echo "all checks passed"
}
