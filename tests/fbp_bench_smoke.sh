#!/usr/bin/env bash
# `kray bench fbp2d` runs end to end on a tiny problem (not a timing test: benchmarks are
# programs): JSON lines for every backend x precision with times and accuracy, pairwise lines
# showing cpu-serial == cpu bit for bit, the SVG chart, the table, help and usage errors.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"

expect_rc 0 bench "$KRAY" bench --help
grep -q "fbp2d" "$T/out" || fail "kray bench --help does not list fbp2d"
expect_rc 0 bench "$KRAY" bench fbp2d --help
grep -q -- "--peers" "$T/out" || fail "kray bench fbp2d --help lacks --peers"
expect_rc 0 fbp "$KRAY" fbp --help
head -n 1 "$T/out" | grep -q "^Usage: kray fbp " || fail "fbp --help: no usage line"

expect_rc 0 bench "$KRAY" bench fbp2d --size 48 --views 30 --reps 2 --batteries 2 --peers none \
    --cases sl,msl --backends cpu-serial,cpu --json --chart c.svg
cp "$T/out" b.jsonl
n=$(grep -c '"backend": ' b.jsonl || true)
[ "$n" -eq 8 ] || fail "expected 8 case lines (2 slices x 2 backends x 2 precisions), got $n"
grep -q '"pair": \["cpu-serial/f32", "cpu/f32"\], "psnr_db": null, "identical": true' b.jsonl ||
    fail "cpu-serial/f32 and cpu/f32 are not reported identical"
grep -q '"pair": \["cpu-serial/f64", "cpu/f64"\], "psnr_db": null, "identical": true' b.jsonl ||
    fail "cpu-serial/f64 and cpu/f64 are not reported identical"
psnr=$(grep '"case": "msl", "backend": "cpu", "precision": "f64"' b.jsonl | head -n 1 > l.json &&
    json_field l.json psnr_db)
num_le 18 "$psnr" || fail "PSNR $psnr of a 48^2 reconstruction is implausibly low"
grep -q "<svg" c.svg || fail "no SVG chart written"
expect_rc 0 bench "$KRAY" bench fbp2d --size 32 --views 16 --reps 1 --batteries 1 --peers none \
    --cases sl --backends cpu --precisions f32 --chart none
grep -q "cpu/f32" "$T/out" || fail "table lacks the cpu/f32 row"

expect_rc 2 bench "$KRAY" bench
expect_rc 2 bench "$KRAY" bench nosuchbench
expect_rc 2 "bench fbp2d" "$KRAY" bench fbp2d --cases none --peers none
expect_rc 2 "bench fbp2d" "$KRAY" bench fbp2d --precisions f16 --peers none
expect_rc 2 "bench fbp2d" "$KRAY" bench fbp2d --cases sl,foo --peers none
expect_rc 2 "bench fbp2d" "$KRAY" bench fbp2d --backends gpu --peers none
expect_rc 2 "bench fbp2d" "$KRAY" bench fbp2d --size 4
finish
