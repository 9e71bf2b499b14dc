#!/usr/bin/env bash
# kray bench espirit and kray bench llr at their small sizes on the CPU: both cases each, the maps
# span the true sensitivities, every time is positive; bad options are one sentence and exit 2.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"
expect_rc 0 espirit "$KRAY" bench espirit --backend cpu --small --reps 1 --json
cp "$T/out" e.jsonl
for w in espirit-2d espirit-3d; do
    grep "\"case\": \"$w\"" e.jsonl >l.json || fail "espirit: no $w line"
    e=$(json_field l.json outside_span)
    num_le "$e" 0.05 && ok "$w: outside the span $e" || fail "$w: outside the span $e > 0.05"
    t=$(json_field l.json time_s)
    num_le 0 "$t" || fail "$w time $t"
done
expect_rc 2 "bench espirit" "$KRAY" bench espirit --size3 16x16
expect_rc 0 llr "$KRAY" bench llr --backend cpu --small --reps 1 --json
cp "$T/out" l.jsonl
for w in llr-2d llr-3d; do
    grep "\"case\": \"$w\"" l.jsonl >l.json || fail "llr: no $w line"
    t=$(json_field l.json time_s)
    num_le 0 "$t" && ok "$w: $t s" || fail "$w time $t"
done
expect_rc 2 "bench llr" "$KRAY" bench llr --block 1
finish
