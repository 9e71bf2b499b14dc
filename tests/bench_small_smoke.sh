#!/usr/bin/env bash
# kray bench ct2d / sense / bloch / cone / scale / startup / reg at small sizes on the CPU: the JSON lines are there,
# complete and plausible (SENSE reconstructs the object; every time is positive), and bad options
# are one sentence and exit 2.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"
# 2-D projectors: 3 geometries x 2 methods x (forward, adjoint)
expect_rc 0 ct2d "$KRAY" bench ct2d --backend cpu --size 48 --views 24 --det 72 --reps 1 --json
cp "$T/out" c.jsonl
n=$(grep -c '"case": "ct2d_' c.jsonl || true)
[ "$n" = 12 ] && ok "ct2d: 12 lines" || fail "ct2d: $n lines, expected 12"
for g in parallel2d fan2d-flat fan2d-equiangular; do
    grep "\"geometry\": \"$g\"" c.jsonl | grep '"method": "siddon"' | grep ct2d_adjoint >l.json ||
        fail "no $g siddon adjoint line"
    t=$(json_field l.json time_s)
    num_le 0 "$t" && num_le "$t" 10 && ok "$g siddon adjoint $t s" || fail "$g time $t"
done
grep -q '"dtype": "f32"' c.jsonl || fail "ct2d: no dtype"
# SENSE: the lattice and the general path reconstruct the object
expect_rc 0 sense "$KRAY" bench sense --backend cpu --size 32 --coils 8 --acs 4 --reps 1 --json
cp "$T/out" s.jsonl
for w in execute unfold execute+g general; do
    grep "\"case\": \"$w\"" s.jsonl >l.json || fail "sense: no $w line"
    e=$(json_field l.json nrmse)
    num_le "$e" 1e-5 && ok "sense $w: NRMSE $e" || fail "sense $w: NRMSE $e > 1e-5"
done
grep '"case": "g-factor"' s.jsonl | grep -q '"nrmse": null' || fail "sense: g-factor line"
expect_rc 2 "bench sense" "$KRAY" bench sense --size 30 --accel 4
expect_rc 2 "bench sense" "$KRAY" bench sense --size 32 --acs 32
# Bloch: both cases, the rate is isochromat-steps / time
expect_rc 0 bloch "$KRAY" bench bloch --backend cpu --size 16 --gre-size 8 --gre-sub 2 --reps 1 \
    --json
cp "$T/out" b.jsonl
for w in se_epi gre; do
    grep "\"case\": \"$w\"" b.jsonl >l.json || fail "bloch: no $w line"
    iso=$(json_field l.json isochromats)
    [ "$w" = gre ] && [ "$iso" != 256 ] && fail "gre: $iso isochromats, expected 8^2 x 2^2"
    t=$(json_field l.json time_median_s)
    num_le 0 "$t" && ok "bloch $w: $iso isochromats, $t s" || fail "bloch $w time $t"
done
expect_rc 2 "bench bloch" "$KRAY" bench bloch --reps 0
# cone: forward, adjoint, the voxel-driven backprojector, and SIRT (with either backprojector)
# and CGLS iterations on the Joseph pair; --peer is CUDA only
expect_rc 0 cone "$KRAY" bench cone --backend cpu --size 16 --views 6 --method joseph --adjoint \
    --iters 2 --reps 1 --json --peer /nonexistent.py
cp "$T/out" k.jsonl
for w in cone_forward cone_adjoint cone_sirt cone_sirt_voxel cone_cgls; do
    grep "\"case\": \"$w\"" k.jsonl | head -n 1 >l.json
    [ -s l.json ] || fail "cone: no $w line"
    t=$(json_field l.json time_s)
    num_le 0 "$t" && ok "cone $w: $t s" || fail "cone $w time $t"
done
[ "$(json_field l.json iters)" = 2 ] || fail "cone_cgls: iters"
grep -q '"case": "cone_adjoint", "geometry": "cone", "method": "voxel"' k.jsonl ||
    fail "cone: no line for the voxel-driven backprojector"
grep -q astra k.jsonl && fail "cone: a peer line on the CPU"
expect_rc 2 "bench cone" "$KRAY" bench cone --iters -1
# scale: one line per case and device list, the first list's speed-up 1
expect_rc 0 scale "$KRAY" bench scale --backend cpu --problem small --reps 1 --json \
    --cases fdk-host,sirt,cgsense --sets '0;0,1'
cp "$T/out" s.jsonl
[ "$(grep -c '"bench": "scale"' s.jsonl)" = 6 ] || fail "scale: expected 6 lines, got $(cat s.jsonl)"
for w in fdk-host sirt cgsense; do
    grep "\"case\": \"$w\"" s.jsonl | head -n 1 >l.json
    [ "$(json_field l.json speedup)" = 1 ] && ok "scale $w: first list x1" || fail "scale $w: $(cat l.json)"
done
expect_rc 2 "bench scale" "$KRAY" bench scale --problem huge
expect_rc 2 "bench scale" "$KRAY" bench scale --cases fdk,sirt
expect_rc 2 "bench scale" "$KRAY" bench scale --backend cpu --problem small --sets '0;0,,1' --cases sirt
# whole processes: kray's commands time, the fbp case's image equals iradon's when it ran
expect_rc 0 startup "$KRAY" bench startup --reps 3 --fbp-reps 1 --size 32 --views 24 --json
cp "$T/out" p.jsonl
for c in "kray --version" "kray info x.npy" "kray fbp --skimage s.npy k.npy"; do
    grep "\"command\": \"$c\"" p.jsonl >l.json || true
    t=$(json_field l.json median_s)
    [ -n "$t" ] && num_le 0 "$t" && num_le "$t" 60 && ok "startup '$c': $t s" ||
        fail "startup '$c': $(cat l.json)"
done
if grep -q iradon_cli p.jsonl; then
    d=$(grep max_rel_diff p.jsonl | sed -n 's/.*"max_rel_diff_kray_iradon": \([^,}]*\).*/\1/p')
    num_le "$d" 1e-5 && ok "startup fbp: kray = iradon ($d)" || fail "startup fbp: kray vs iradon $d"
fi
grep -q '"loadavg_before"' p.jsonl || fail "startup: no load average line"
expect_rc 2 "bench startup" "$KRAY" bench startup --cases nothing
# reg: the MRI, cone-beam TV and quality lines (bart's line when bart is there); --peer is CUDA
# only; TV beats FDK in the quality case
expect_rc 0 reg "$KRAY" bench reg --backend cpu --small --reps 1 --json --peer /nonexistent.py
cp "$T/out" r.jsonl
for w in "mri_l1wavelet.*\"impl\": \"kray\"" "cone_tv.*\"impl\": \"kray\"" \
    "cone_quality.*\"impl\": \"fdk\"" "cone_quality.*\"impl\": \"kray-tv\""; do
    grep -E "$w" r.jsonl | head -n 1 >l.json
    [ -s l.json ] || fail "reg: no line matching $w"
    t=$(json_field l.json time_s)
    num_le 0 "$t" && ok "reg $w: $t s" || fail "reg $w: time $t"
done
grep '"impl": "kray-tv"' r.jsonl >l.json
p_tv=$(json_field l.json psnr_db)
grep '"impl": "fdk"' r.jsonl >l.json
num_le "$(json_field l.json psnr_db)" "$p_tv" || fail "reg: TV $p_tv dB below FDK"
if command -v bart >/dev/null 2>&1; then
    grep '"impl": "bart"' r.jsonl >l.json || fail "reg: no bart line"
    num_le "$(json_field l.json nrmse_vs_peer)" 0.2 || fail "reg: kray and bart images differ"
fi
grep -q astra r.jsonl && fail "reg: a peer line on the CPU"
expect_rc 2 "bench reg" "$KRAY" bench reg --cases nothing
# a list with one unknown item is refused as a whole, naming it
expect_rc 2 "bench reg" "$KRAY" bench reg --cases mri,conee
grep -q "unknown item 'conee'" "$T/err" || fail "bench reg: the unknown item is not named"
expect_rc 2 "bench startup" "$KRAY" bench startup --cases version,bogus
expect_rc 2 "bench nufft" "$KRAY" bench nufft --cases radial2d,radial3d --peers none
expect_rc 2 "bench nufft" "$KRAY" bench nufft --directions fwd --peers none
finish
