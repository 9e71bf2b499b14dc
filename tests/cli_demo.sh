#!/usr/bin/env bash
# kray demo --quick: writes report.html and every PNG it references; finishes quickly.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"

start=$(date +%s)
expect_rc 0 demo "$KRAY" demo --quick --out "$T/demo"
elapsed=$(($(date +%s) - start))
cat "$T/out"
[ "$elapsed" -le 60 ] || fail "kray demo --quick took ${elapsed} s (limit 60 s)"
R="$T/demo/report.html"
[ -s "$R" ] || fail "no report.html"
grep -q "report: $R" "$T/out" || fail "the summary does not give the report path"
for sec in system phantoms mri spiral lsq reg; do
    grep -q "id=\"$sec\"" "$R" || fail "report lacks section '$sec'"
    grep -q "^\[$sec\] " "$T/out" || fail "summary lacks a line for '$sec'"
done
grep -q "<svg" "$R" || fail "report lacks the residual chart"
grep -q 'class="err"' "$R" && fail "report shows a failed section"
grep -qE '<(script|link)|src="https?:' "$R" && fail "report is not self-contained"
n=0
for src in $(grep -o 'img src="[^"]*"' "$R" | sed 's/img src="//;s/"$//'); do
    n=$((n + 1))
    [ -f "$T/demo/$src" ] || fail "report references missing $src"
    is_png "$T/demo/$src" || fail "$src is not a PNG"
done
[ "$n" -ge 10 ] || fail "report references only $n images"
ls "$T/demo"/*.tmp.* >/dev/null 2>&1 && fail "temporary files left in the demo directory"
# PSNR of the k-space -> image check is reported as a number.
grep -qE '^\[mri\] .*PSNR [0-9]+\.[0-9]+ dB' "$T/out" || fail "mri summary lacks a PSNR"
grep -qE '^\[reg\] sparse-view CT: TV [0-9.]+ dB vs FBP [0-9.]+ dB; radial MRI' "$T/out" ||
    fail "reg summary lacks the PSNRs"

# A second run into the same directory replaces the report.
expect_rc 0 demo "$KRAY" demo --quick --quiet --out "$T/demo" --only system
[ -s "$T/out" ] && fail "--quiet demo printed: $(cat "$T/out")"
grep -q 'id="phantoms"' "$R" && fail "report was not replaced by the second run"
finish
