#!/usr/bin/env bash
# kray CLI chains: phantom -> convert to every format -> info -> metrics vs the original.
# Lossless formats must give NRMSE 0 (exactly, f32 stays f32); 8-bit PGM within quantisation.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"

N=48
expect_rc 0 phantom "$KRAY" phantom --size $N --supersample 2 sl.npy
[ -s sl.npy ] || fail "phantom wrote no sl.npy"
expect_rc 0 info "$KRAY" info --json sl.npy
[ "$(json_field "$T/out" dtype)" = '"f32"' ] || fail "sl.npy dtype: $(cat "$T/out")"
grep -q "\"dims\": \[$N, $N\]" "$T/out" || fail "sl.npy dims: $(cat "$T/out")"
num_le "$(json_field "$T/out" min)" 0 || fail "modified Shepp-Logan min should be 0"
num_le 1 "$(json_field "$T/out" max)" || fail "modified Shepp-Logan max should be 1"
num_le "$(json_field "$T/out" max)" 1.0000001 || fail "modified Shepp-Logan max should be 1"

for ext in cfl npy nii nii.gz mha mhd nrrd; do
    expect_rc 0 convert "$KRAY" convert sl.npy "x.$ext"
    expect_rc 0 info "$KRAY" info "x.$ext"
    grep -q "^dims *${N}x${N}" "$T/out" || fail "x.$ext dims: $(cat "$T/out")"
    want=f32
    [ "$ext" = cfl ] && want=c64
    grep -q "^dtype *$want" "$T/out" || fail "x.$ext dtype should be $want: $(cat "$T/out")"
    expect_rc 0 metrics "$KRAY" metrics --json "x.$ext" sl.npy
    nrmse=$(json_field "$T/out" nrmse)
    if [ "$ext" = cfl ]; then
        # complex data are compared by magnitude: tiny negative values of the phantom differ
        num_le "$nrmse" 1e-6 || fail "x.$ext vs sl.npy: NRMSE $nrmse, expected ~0"
    else
        [ "$nrmse" = 0 ] || fail "x.$ext vs sl.npy: NRMSE $nrmse, expected 0"
        [ "$(json_field "$T/out" psnr_db)" = null ] || fail "x.$ext: PSNR should be null (inf)"
    fi
    # and back to npy as f32 (the real part for cfl): identical values again
    expect_rc 0 convert "$KRAY" convert --out-dtype f32 "x.$ext" "back_$ext.npy"
    expect_rc 0 metrics "$KRAY" metrics --json "back_$ext.npy" sl.npy
    [ "$(json_field "$T/out" nrmse)" = 0 ] || fail "x.$ext -> npy: NRMSE not 0"
done
expect_rc 0 convert "$KRAY" convert --gzip sl.npy z.nrrd
expect_rc 0 metrics "$KRAY" metrics --json z.nrrd sl.npy
[ "$(json_field "$T/out" nrmse)" = 0 ] || fail "gzip nrrd: NRMSE not 0"

# Raw: written without a header, read back with --dims/--dtype.
expect_rc 0 convert "$KRAY" convert --out-dtype f64 sl.npy x.raw
[ "$(stat -c %s x.raw)" -eq $((N * N * 8)) ] || fail "x.raw should hold $((N * N)) f64 values"
expect_rc 0 convert "$KRAY" convert --dims ${N}x${N} --dtype f64 x.raw raw.npy
expect_rc 0 metrics "$KRAY" metrics --json raw.npy sl.npy
[ "$(json_field "$T/out" nrmse)" = 0 ] || fail "raw round trip: NRMSE not 0"
expect_rc 0 metrics "$KRAY" metrics --json --dims ${N}x${N} --dtype f64 x.raw sl.npy
[ "$(json_field "$T/out" nrmse)" = 0 ] || fail "metrics on raw input: NRMSE not 0"
expect_rc 1 metrics "$KRAY" metrics --dims ${N}x$((N + 1)) --dtype f64 x.raw sl.npy

# Other stored types.
expect_rc 0 convert "$KRAY" convert --out-dtype f64 sl.npy d.nii
expect_rc 0 info "$KRAY" info d.nii
grep -q "^dtype *f64" "$T/out" || fail "--out-dtype f64 ignored: $(cat "$T/out")"

# PGM: 8-bit quantisation of [0, 1] -> error <= 1/255/2 per pixel.
expect_rc 0 convert "$KRAY" convert --window 0:1 sl.npy x.pgm
expect_rc 0 info "$KRAY" info --json x.pgm
expect_rc 0 convert "$KRAY" convert --window 0:1 --bits 16 sl.npy x16.pgm
expect_rc 0 info "$KRAY" info --json x16.pgm
num_le 65000 "$(json_field "$T/out" max)" || fail "16-bit PGM max should be ~65535"

# PNG: 8 and 16 bit, a volume slice, complex parts.
expect_rc 0 convert "$KRAY" convert sl.npy x.png
is_png x.png || fail "x.png is not a PNG file"
expect_rc 0 convert "$KRAY" convert --bits 16 --window 0:0.5 sl.npy x16.png
is_png x16.png || fail "x16.png is not a PNG file"
expect_rc 0 phantom "$KRAY" phantom --3d --size 24 v.nii
expect_rc 0 info "$KRAY" info --json v.nii
grep -q '"dims": \[24, 24, 24\]' "$T/out" || fail "3-D phantom dims: $(cat "$T/out")"
expect_rc 0 convert "$KRAY" convert --slice 3 v.nii v3.png
is_png v3.png || fail "v3.png is not a PNG file"
expect_rc 2 convert "$KRAY" convert --slice 24 v.nii v24.png
[ -e v24.png ] && fail "v24.png written despite the error"

# k-space (complex) and coils.
expect_rc 0 phantom "$KRAY" phantom --kind kspace --size 32 k.cfl
[ -s k.cfl ] && [ -s k.hdr ] || fail "k.cfl/k.hdr missing"
expect_rc 0 info "$KRAY" info --json k.cfl
[ "$(json_field "$T/out" dtype)" = '"c64"' ] || fail "k-space dtype: $(cat "$T/out")"
for part in mag real imag phase; do
    expect_rc 0 convert "$KRAY" convert --part $part k.cfl "k_$part.png"
    is_png "k_$part.png" || fail "k_$part.png is not a PNG file"
done
expect_rc 0 phantom "$KRAY" phantom --kind kspace --coils 4 --size 32 kc.npy
expect_rc 0 info "$KRAY" info --json kc.npy
grep -q '"dims": \[32, 32, 4\]' "$T/out" || fail "coil k-space dims: $(cat "$T/out")"
expect_rc 0 phantom "$KRAY" phantom --kind coils --coils 3 --size 32 maps.npy
grep -q '"dims": \[32, 32, 3\]' <("$KRAY" info --json maps.npy) || fail "coil maps dims"

# MR maps and sinogram.
expect_rc 0 phantom "$KRAY" phantom --kind mr --size 32 mr.nii
grep -q '"dims": \[32, 32, 3\]' <("$KRAY" info --json mr.nii) || fail "MR maps dims"
expect_rc 0 phantom "$KRAY" phantom --kind mr --map t2 --size 32 t2.npy
grep -q '"dims": \[32, 32\]' <("$KRAY" info --json t2.npy) || fail "T2 map dims"
expect_rc 0 phantom "$KRAY" phantom --kind sinogram --size 32 --views 20 sino.npy
grep -q '"dims": \[32, 20\]' <("$KRAY" info --json sino.npy) || fail "sinogram dims"
expect_rc 0 phantom "$KRAY" phantom --kind sinogram --size 32 --views 20 --det 40 --units norm \
    sino_norm.npy
grep -q '"dims": \[40, 20\]' <("$KRAY" info --json sino_norm.npy) || fail "sinogram --det"

# Physical spacing from --fov ends up in the header.
expect_rc 0 phantom "$KRAY" phantom --size 32 --fov 256 fov.nii
expect_rc 0 info "$KRAY" info fov.nii
grep -q "^spacing *8 x 8" "$T/out" ||
    fail "--fov 256 at 32 pixels should give 8 mm: $(cat "$T/out")"

# Determinism: same output whatever the thread count.
expect_rc 0 phantom "$KRAY" phantom --size $N --supersample 3 --threads 1 t1.npy
expect_rc 0 phantom "$KRAY" phantom --size $N --supersample 3 --threads 2 t2x.npy
cmp -s t1.npy t2x.npy || fail "phantom differs between --threads 1 and --threads 2"
strip='s/"backend.*//;s/x\.npy/x.nii/'
m1=$("$KRAY" metrics --json --backend cpu-serial t1.npy x.nii | sed "$strip")
m2=$("$KRAY" metrics --json --backend cpu --threads 2 t1.npy x.npy | sed "$strip")
[ "$m1" = "$m2" ] || fail "metrics differ between cpu-serial and cpu: $m1 / $m2"

# Metrics text output and identical images.
expect_rc 0 metrics "$KRAY" metrics sl.npy sl.npy
grep -q "^PSNR *inf" "$T/out" || fail "identical images: PSNR should be inf: $(cat "$T/out")"
grep -q "^SSIM *1.000000" "$T/out" || fail "identical images: SSIM should be 1"
expect_rc 0 metrics "$KRAY" metrics --json --range 2 t1.npy sl.npy
[ "$(json_field "$T/out" range)" = 2 ] || fail "--range 2 not used"

# info on several files, JSON lines.
expect_rc 0 info "$KRAY" info --json sl.npy x.nii k.cfl
[ "$(wc -l <"$T/out")" -eq 3 ] || fail "info --json on 3 files should print 3 lines"
if [ -x "$PY" ]; then
    "$PY" -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/out" ||
        fail "info --json is not valid JSON"
    "$KRAY" metrics --json sl.npy sl.npy >m.json
    "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["psnr_db"] is None and d["nrmse"] == 0 and d["ssim"] == 1' m.json ||
        fail "metrics --json is not valid JSON or has wrong values"
fi
ls ./*.tmp.* >/dev/null 2>&1 && fail "temporary files left behind: $(ls ./*.tmp.*)"
finish
