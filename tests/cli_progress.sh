#!/usr/bin/env bash
# Live feedback when stderr is not a terminal: progress lines (every KRAY_PROGRESS_SECONDS, here
# 0 so that short work shows them), a last "done" line, none with -q or for short work at the
# default interval; -v prints each solver iteration as it ends, in order.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"
cone=(--sod 100 --sdd 200 --det 8x8 --angles 0:360:4 -n 8)
"$KRAY" project "${cone[@]}" --phantom modified proj.npy 2>/dev/null
KRAY_PROGRESS_SECONDS=0 "$KRAY" sirt "${cone[@]}" -i 4 proj.npy s.npy 2>err.txt
grep -q '^kray: sirt: [0-9]*% after [0-9.]* s$' err.txt || fail "no progress line: $(cat err.txt)"
grep -q '^kray: sirt: done in [0-9.]* s$' err.txt || fail "no final progress line: $(cat err.txt)"
KRAY_PROGRESS_SECONDS=0 "$KRAY" sirt -q "${cone[@]}" -i 4 proj.npy s.npy 2>err.txt
[ -s err.txt ] && fail "-q still printed: $(cat err.txt)"
"$KRAY" sirt "${cone[@]}" -i 4 proj.npy s.npy 2>err.txt
grep -q '% after' err.txt && fail "progress for work under 5 s: $(cat err.txt)"
"$KRAY" sirt -v "${cone[@]}" -i 4 proj.npy s.npy 2>err.txt
seq=$(sed -n 's/.*iteration \([0-9]*\): relative residual.*/\1/p' err.txt | tr '\n' ' ')
[ "$seq" = "0 1 2 3 4 " ] || fail "iteration lines 0..4 in order, got '$seq': $(cat err.txt)"
ok "progress lines and live iterations"
finish
