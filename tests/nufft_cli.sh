#!/usr/bin/env bash
# kray nufft on the command line: benchmark errors against float64 direct sums (2-D, 3-D), the
# NUFFT against the DrFT and against `bart nufft` (scaled by sqrt(nx ny), --bart-scale), weights,
# batches in BART's layout, and bad inputs (exit 1) / usage (exit 2).
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"

# ---- without peers ----------------------------------------------------------------------------
for e in 1e-3 1e-6; do
    expect_rc 0 nufft "$KRAY" nufft --bench --reps 1 --check 16 --eps $e --size 40x33 --json random:3000
    v=$(json_field "$T/out" rel_err)
    num_le "$v" $e || fail "2-D adjoint bench error $v exceeds eps $e"
    expect_rc 0 nufft "$KRAY" nufft --bench --forward --reps 1 --check 16 --eps $e --size 12x10x9 --json random:2000
    v=$(json_field "$T/out" rel_err)
    num_le "$v" $e || fail "3-D forward bench error $v exceeds eps $e"
done
expect_rc 0 nufft "$KRAY" nufft --bench --reps 1 --check 4 --size 16x16 --traj-out "$T/rt.cfl" random:100
expect_rc 0 traj "$KRAY" traj -x 64 -y 24 -o 2 -q "$T/r.cfl"

# bad inputs and usage
expect_rc 1 nufft "$KRAY" nufft --size 32x32 "$T/r.cfl" "$T/r.cfl" "$T/x.cfl"   # k = +-32 outside [-16, 16]
expect_rc 1 nufft "$KRAY" nufft --size 64x64 "$T/rt.cfl" "$T/r.cfl" "$T/x.cfl"  # 100 vs 3072 samples
expect_rc 1 nufft "$KRAY" nufft --eps 1e-7 --size 64x64 "$T/r.cfl" "$T/r.cfl" "$T/x.cfl" # f32
expect_rc 2 nufft "$KRAY" nufft --bench random:100                               # no --size
expect_rc 2 nufft "$KRAY" nufft --forward --adjoint --size 64x64 "$T/r.cfl" "$T/r.cfl" "$T/x.cfl"
expect_rc 2 nufft "$KRAY" nufft --forward --dcf "$T/r.cfl" "$T/r.cfl" "$T/r.cfl" "$T/x.cfl"
expect_rc 2 nufft "$KRAY" nufft --bench --size 8x8 "$T/r.cfl" "$T/r.cfl"
expect_rc 2 nufft "$KRAY" nufft --eps 0.5 --size 64x64 "$T/r.cfl" "$T/r.cfl" "$T/x.cfl"
if [ -x "$PY" ] && "$PY" -c "import numpy" 2>/dev/null; then
    "$PY" -c "
import numpy as np
t = np.zeros((10, 3), np.float32); t[7, 1] = np.nan  # C order: kray dims [3, 10]
np.save('$T/nan.npy', t)
y = np.ones((10,), np.complex64); y[3] = np.nan
np.save('$T/ynan.npy', y)
np.save('$T/ok.npy', np.zeros((10, 3), np.float32))"
    expect_rc 1 nufft "$KRAY" nufft --size 8x8 "$T/nan.npy" "$T/ynan.npy" "$T/x.cfl"
    grep -q "nan.npy holds 1 NaN and 0 infinite values (the first at sample 22, index \[1, 7\])" "$T/err" ||
        fail "NaN trajectory message: $(cat "$T/err")"
    expect_rc 1 nufft "$KRAY" nufft --allow-nonfinite --size 8x8 "$T/nan.npy" "$T/ynan.npy" "$T/x.cfl"
    grep -q "point 7 has ky = nan" "$T/err" || fail "NaN trajectory message of the library: $(cat "$T/err")"
    expect_rc 1 nufft "$KRAY" nufft --size 8x8 "$T/ok.npy" "$T/ynan.npy" "$T/x.cfl"
    grep -q "ynan.npy holds 1 NaN and 0 infinite values (the first at sample 3, real part" "$T/err" ||
        fail "NaN sample message: $(cat "$T/err")"
fi

# ---- against the DrFT and BART ----------------------------------------------------------------
if ! command -v bart >/dev/null 2>&1; then
    echo "bart not installed: comparisons skipped"
    finish
    exit 0
fi
bart traj -r -x 128 -y 48 "$T/t0" >/dev/null
bart scale 0.5 "$T/t0" "$T/t" >/dev/null                          # 2x oversampled readout, 64^2
bart ones 4 1 128 48 3 "$T/o" >/dev/null
bart noise -s 3 "$T/o" "$T/kd" >/dev/null                          # 3 coils, BART layout
expect_rc 0 drft "$KRAY" drft --precision f64 --size 64x64 "$T/t.cfl" "$T/kd.cfl" "$T/dimg.cfl"
expect_rc 0 nufft "$KRAY" nufft --eps 1e-6 --size 64x64 "$T/t.cfl" "$T/kd.cfl" "$T/nimg.cfl"
# without --size the size comes from the trajectory as `bart estdims` has it (64x64 here)
expect_rc 0 nufft "$KRAY" nufft --eps 1e-6 "$T/t.cfl" "$T/kd.cfl" "$T/nimg2.cfl"
cmp -s "$T/nimg.cfl" "$T/nimg2.cfl" && ok "--size inferred from the trajectory" ||
    fail "nufft without --size differs from --size 64x64"
v=$(bart nrmse "$T/dimg" "$T/nimg")
num_le "$v" 1e-6 && ok "nufft adjoint (3 coils) == drft ($v)" || fail "nufft vs drft adjoint: $v"
expect_rc 0 nufft "$KRAY" nufft --forward --bart --eps 1e-6 "$T/t.cfl" "$T/dimg.cfl" "$T/nk.cfl"
expect_rc 0 drft "$KRAY" drft --forward --bart --precision f64 "$T/t.cfl" "$T/dimg.cfl" "$T/dk.cfl"
v=$(bart nrmse "$T/dk" "$T/nk")
num_le "$v" 1e-6 && ok "nufft forward (3 coils) == drft ($v)" || fail "nufft vs drft forward: $v"
bart nufft -a -P -d 64:64:1 "$T/t" "$T/kd" "$T/bimg" >/dev/null
expect_rc 0 nufft "$KRAY" nufft --bart-scale --size 64x64 "$T/t.cfl" "$T/kd.cfl" "$T/simg.cfl"
v=$(bart nrmse "$T/bimg" "$T/simg")
num_le "$v" 1e-2 && ok "kray nufft --bart-scale == bart nufft -a -P ($v)" || fail "vs bart: $v"
# weights: W y through the NUFFT == bart fmac then the NUFFT
bart ones 3 1 128 48 "$T/w1" >/dev/null
bart scale 0.5 "$T/w1" "$T/w" >/dev/null
expect_rc 0 nufft "$KRAY" nufft --dcf "$T/w.cfl" --eps 1e-6 --size 64x64 "$T/t.cfl" "$T/kd.cfl" "$T/wimg.cfl"
bart scale 0.5 "$T/nimg" "$T/himg" >/dev/null
v=$(bart nrmse "$T/himg" "$T/wimg")
num_le "$v" 1e-6 && ok "weights == scaling ($v)" || fail "weights: $v"
# --normalize: the adjoint divided by nx ny; forward refuses it
expect_rc 0 nufft "$KRAY" nufft -N --dcf "$T/w.cfl" --eps 1e-6 --size 64x64 "$T/t.cfl" "$T/kd.cfl" "$T/nwimg.cfl"
bart scale 4096 "$T/nwimg" "$T/nwimg2" >/dev/null
v=$(bart nrmse "$T/wimg" "$T/nwimg2")
num_le "$v" 1e-6 && ok "--normalize == / (nx ny) ($v)" || fail "--normalize: $v"
expect_rc 2 nufft "$KRAY" nufft -N --forward "$T/t.cfl" "$T/nimg.cfl" "$T/x.cfl"
finish
