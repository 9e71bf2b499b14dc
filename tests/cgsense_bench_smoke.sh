#!/usr/bin/env bash
# kray bench cgsense --small: JSON lines for kray on the CPU (and bart pics when on PATH, whose
# 10th iterate matches kray's to ~0.5 % after the scale: BART's nufft error at k = -N/2).
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"
expect_rc 0 bench "$KRAY" bench cgsense --small --json --reps 1 --peer-reps 1 --backends cpu \
    --tmp "$T"
cp "$T/out" b.jsonl
cat b.jsonl
grep '"impl": "kray"' b.jsonl >k.json || fail "no kray line"
res=$(json_field k.json rel_residual)
num_le "$res" 0.05 && ok "10 iterations: relative residual $res" || fail "residual $res"
e2e=$(json_field k.json e2e_min_s)
num_le "$e2e" 30 && ok "e2e $e2e s" || fail "e2e $e2e s"
if command -v bart >/dev/null 2>&1; then
    grep -q '"impl": "bart"' b.jsonl || fail "bart on PATH but no bart line"
    v=$(json_field k.json nrmse_vs_bart)
    num_le "$v" 0.02 && ok "kray vs bart pics after the scale: $v" || fail "vs bart $v > 0.02"
fi
expect_rc 2 "bench cgsense" "$KRAY" bench cgsense --reps 0
finish
