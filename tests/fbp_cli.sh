#!/usr/bin/env bash
# kray fbp from the command line: phantom -> exact sinogram -> fbp -> metrics against the
# phantom (NRMSE bound), geometry JSON round trip, cpu-serial == cpu bit for bit, the fan-beam
# options, and bad input (exit 1 with one sentence naming the problem) or bad usage (exit 2).
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"

"$KRAY" phantom --kind sinogram --size 256 --views 360 s.npy
"$KRAY" phantom --size 256 --supersample 4 truth.npy
expect_rc 0 fbp "$KRAY" fbp --json s.npy r.npy
grep -q '"execute_s": ' "$T/out" || fail "fbp --json: no execute_s in $(cat "$T/out")"
grep -q '"pad_len": 512' "$T/out" || fail "fbp --json: pad_len is not 512"
"$KRAY" metrics --json r.npy truth.npy >m.json
nrmse=$(json_field m.json nrmse)
# measured 0.119 (256^2, 360 views, Ram-Lak, against the 4x4-supersampled phantom)
num_le "$nrmse" 0.13 || fail "fbp NRMSE $nrmse exceeds 0.13"
ok "phantom -> sinogram -> fbp: NRMSE $nrmse"

# the geometry written by --geom-out gives the same image through --geom
expect_rc 0 fbp "$KRAY" fbp --geom-out g.json s.npy r1.npy
expect_rc 0 fbp "$KRAY" fbp --geom g.json s.npy r2.npy
cmp -s r1.npy r2.npy || fail "--geom g.json differs from the shortcut options"
grep -q '"det_count": 256' g.json || fail "g.json lacks det_count"

# threads do not change a bit; f64 works and agrees closely
expect_rc 0 fbp "$KRAY" fbp --backend cpu-serial s.npy rs.npy
expect_rc 0 fbp "$KRAY" fbp --backend cpu --threads 2 s.npy rt.npy
cmp -s rs.npy rt.npy || fail "cpu-serial and cpu results differ"
expect_rc 0 fbp "$KRAY" fbp --backend cpu --precision f64 s.npy r64.npy
"$KRAY" metrics --json rt.npy r64.npy >m64.json
d=$(json_field m64.json maxerr)
num_le "$d" 1e-5 || fail "f32 vs f64 max error $d exceeds 1e-5"

# windows, filters, clamping
for w in shepp-logan cosine hamming hann; do
    expect_rc 0 fbp "$KRAY" fbp --filter-window "$w" --cutoff 0.8 s.npy rw.npy
done
expect_rc 0 fbp "$KRAY" fbp --filter direct s.npy rd.npy
"$KRAY" metrics --json rd.npy r.npy >md.json
num_le "$(json_field md.json maxerr)" 1e-5 || fail "direct and fft Ram-Lak differ"
expect_rc 0 fbp "$KRAY" fbp --filter seed --nonneg s.npy rc.npy
"$KRAY" info --json rc.npy >ic.json
num_le 0 "$(json_field ic.json min)" || fail "--nonneg left negative values"

# fan beam options (a parallel sinogram read as fan data: only the plumbing is tested here)
expect_rc 0 fbp "$KRAY" fbp --type fan2d-flat --sod 600 --sdd 1200 --pitch 2 s.npy rf.npy
expect_rc 0 fbp "$KRAY" fbp --type fan2d-equiangular --sod 600 --sdd 1200 --pitch 2 \
    --angles 10:250:360 --parker on s.npy rf.npy

# bad input: exit 1, one sentence naming the problem
sed 's/"det_count": 256/"det_count": 300/' g.json >g300.json
expect_rc 1 fbp "$KRAY" fbp --geom g300.json s.npy x.npy
grep -q "256x360" "$T/err" && grep -q "300x360" "$T/err" || fail "dims message: $(cat "$T/err")"
expect_rc 1 fbp "$KRAY" fbp --angles 0:180:100 s.npy x.npy
expect_rc 2 fbp "$KRAY" fbp --pitch 0 s.npy x.npy
grep -q "det_spacing_mm" "$T/err" || fail "zero spacing message: $(cat "$T/err")"
expect_rc 2 fbp "$KRAY" fbp --pitch -1 s.npy x.npy
expect_rc 2 fbp "$KRAY" fbp --voxel 0 s.npy x.npy
expect_rc 2 fbp "$KRAY" fbp --angles 0:nan:360 s.npy x.npy
expect_rc 2 fbp "$KRAY" fbp --angles 0:inf:360 s.npy x.npy
: >empty.npy
expect_rc 1 fbp "$KRAY" fbp empty.npy x.npy
grep -v '"angles_deg"' g.json >nogeo.json
expect_rc 1 fbp "$KRAY" fbp --geom nogeo.json s.npy x.npy
grep -q "angles_deg" "$T/err" || fail "missing field message: $(cat "$T/err")"
sed 's/"det_count": 256,/"det_count": 256, "frobnicate": 1,/' g.json >unk.json
expect_rc 1 fbp "$KRAY" fbp --geom unk.json s.npy x.npy
grep -q "frobnicate" "$T/err" || fail "unknown field message: $(cat "$T/err")"
expect_rc 1 fbp "$KRAY" fbp --geom no-such-file.json s.npy x.npy
expect_rc 1 fbp "$KRAY" fbp no-such-file.npy x.npy
"$KRAY" phantom --kind kspace --size 16 k.cfl
expect_rc 1 fbp "$KRAY" fbp k.cfl x.npy
expect_rc 2 fbp "$KRAY" fbp --type fan2d-flat --sod 100 --sdd 50 s.npy x.npy
[ -e x.npy ] && fail "a failed fbp left x.npy behind"

# bad usage: exit 2
expect_rc 2 fbp "$KRAY" fbp s.npy
expect_rc 2 fbp "$KRAY" fbp --type fan2d-flat s.npy x.npy
expect_rc 2 fbp "$KRAY" fbp --sod 100 --sdd 200 s.npy x.npy
expect_rc 2 fbp "$KRAY" fbp --geom g.json --angles 0:180:360 s.npy x.npy
expect_rc 2 fbp "$KRAY" fbp --filter-window kaiser s.npy x.npy
expect_rc 2 fbp "$KRAY" fbp --cutoff 0 s.npy x.npy
expect_rc 2 fbp "$KRAY" fbp --cutoff 1.5 s.npy x.npy
expect_rc 2 fbp "$KRAY" fbp s.npy x.unknownext
expect_rc 2 fbp "$KRAY" fbp --geom-out g.txt s.npy x.npy
finish
