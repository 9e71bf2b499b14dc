#!/usr/bin/env bash
# kray cone-beam CLI: phantom -> project (Joseph, Siddon, exact) -> backproject -> sirt / cgls,
# the adjoint identity through files (numpy), file formats and spacing, bad input.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"
"$PY" -c 'import numpy' 2>/dev/null || { echo "skipped: $PY has no numpy"; exit 77; }

# 24^3 voxels of 2 mm; the whole volume projects inside the 76 x 64 detector (no FOV warning).
SCAN=(--sod 200 --sdd 300 --det 76x64 --pitch 1.5 --angles 0:360:30)
expect_rc 0 phantom "$KRAY" phantom --3d --size 24 --fov 48 --supersample 2 vol.npy
expect_rc 0 phantom "$KRAY" phantom --3d --size 24 --fov 48 --supersample 2 vol.nrrd
expect_rc 0 project "$KRAY" project "${SCAN[@]}" --geom-out g.json vol.nrrd proj.npy
[ -s "$T/err" ] && fail "project printed on stderr: $(cat "$T/err")"
grep -q '"type": "cone"' g.json || fail "g.json: $(cat g.json)"
grep -q '"voxel_mm": \[2, 2, 2\]' g.json || fail "the voxel size should come from vol.nrrd: $(cat g.json)"
expect_rc 0 info "$KRAY" info proj.npy
grep -q "^dims *76x64x30" "$T/out" || fail "proj.npy dims: $(cat "$T/out")"
expect_rc 0 project "$KRAY" project --geom g.json --phantom modified exact.npy
expect_rc 0 project "$KRAY" project --geom g.json --phantom modified --rays 2 exact2.nrrd
expect_rc 0 metrics "$KRAY" metrics --json proj.npy exact.npy
nrmse=$(json_field "$T/out" nrmse)
# coarse voxels (2 mm) against the exact projections: the thin skull dominates the error
num_le "$nrmse" 0.2 || fail "Joseph projections of the 24^3 raster vs exact: NRMSE $nrmse"
expect_rc 0 project "$KRAY" project --geom g.json --method siddon vol.npy sid.npy
expect_rc 0 metrics "$KRAY" metrics --json sid.npy exact.npy
num_le "$(json_field "$T/out" nrmse)" 0.2 || fail "Siddon vs exact: $(cat "$T/out")"
expect_rc 0 metrics "$KRAY" metrics --json sid.npy proj.npy
num_le "$(json_field "$T/out" nrmse)" 0.08 || fail "Siddon vs Joseph: $(cat "$T/out")"
expect_rc 0 metrics "$KRAY" metrics --json exact2.nrrd exact.npy
num_le "$(json_field "$T/out" nrmse)" 0.1 || fail "exact with 2x2 sub-rays vs 1: $(cat "$T/out")"

# backprojection: the adjoint identity <A x, y> = <x, A^T y> through files
expect_rc 0 backproject "$KRAY" backproject --geom g.json exact.npy bp.npy
expect_rc 0 backproject "$KRAY" backproject --geom g.json --method siddon --rays 2 exact.npy bps.npy
expect_rc 0 project "$KRAY" project --geom g.json --method siddon --rays 2 vol.npy sid2.npy
"$PY" - <<'EOF' || fail "adjoint identity through the CLI"
import numpy as np
x, y = np.load("vol.npy").astype(np.float64), np.load("exact.npy").astype(np.float64)
for fwd, bp in (("proj.npy", "bp.npy"), ("sid2.npy", "bps.npy")):
    ax, aty = np.load(fwd).astype(np.float64), np.load(bp).astype(np.float64)
    a, b = np.sum(ax * y), np.sum(x * aty)
    rel = abs(a - b) / max(abs(a), abs(b))
    print(fwd, bp, "relative difference", rel)
    assert rel < 1e-5, (a, b)
EOF
expect_rc 0 backproject "$KRAY" backproject "${SCAN[@]}" --size 24 --voxel 2 exact.npy bp2.npy
"$PY" -c 'import numpy as np; a, b = np.load("bp.npy"), np.load("bp2.npy"); assert np.array_equal(a, b)' ||
    fail "backproject from --geom and from the scan options differ"

# iterative reconstruction, formats with spacing
expect_rc 0 sirt "$KRAY" sirt -v --geom g.json --iters 12 --nonneg exact.npy sirt.npy
grep -qE '^kray sirt: 12 iterations, relative residual [0-9.e-]+' "$T/err" || fail "sirt summary: $(cat "$T/err")"
[ "$(grep -c 'iteration [0-9]*: relative residual' "$T/err")" -eq 13 ] ||
    fail "sirt -v: one line per iteration (0..12): $(cat "$T/err")"
[ -s "$T/out" ] && fail "sirt printed on stdout: $(cat "$T/out")"
expect_rc 0 metrics "$KRAY" metrics --json sirt.npy vol.npy
num_le "$(json_field "$T/out" nrmse)" 0.4 || fail "SIRT vs phantom: $(cat "$T/out")"
"$PY" -c 'import numpy as np; assert np.load("sirt.npy").min() >= 0' || fail "--nonneg left negative values"
expect_rc 0 cgls "$KRAY" cgls --geom g.json --iters 6 --quiet exact.npy cgls.mha
[ -s "$T/out" ] || [ -s "$T/err" ] && fail "--quiet cgls printed: $(cat "$T/out" "$T/err")"
expect_rc 0 info "$KRAY" info cgls.mha
grep -q "^spacing *2 x 2 x 2 mm" "$T/out" || fail "cgls.mha spacing: $(cat "$T/out")"
expect_rc 0 metrics "$KRAY" metrics --json cgls.mha vol.npy
num_le "$(json_field "$T/out" nrmse)" 0.4 || fail "CGLS vs phantom: $(cat "$T/out")"
expect_rc 0 cgls "$KRAY" cgls --geom g.json --iters 2 --init cgls.mha --lambda 0.01 exact.npy c2.nii
# the voxel-driven backprojector: near the matched adjoint, and SIRT with it
expect_rc 0 backproject "$KRAY" backproject --backprojector voxel --geom g.json exact.npy bpv.npy
"$PY" - <<'EOF' || fail "--kind voxel against --kind matched"
import numpy as np
a, b = np.load("bp.npy").astype(np.float64), np.load("bpv.npy").astype(np.float64)
c = (slice(4, 20),) * 3  # inside the scanned cylinder
rel = np.linalg.norm(b[c] - a[c]) / np.linalg.norm(a[c])
print("voxel vs matched backprojection, inner voxels:", rel, b[c].sum() / a[c].sum())
assert rel < 0.1 and abs(b[c].sum() / a[c].sum() - 1) < 0.02, rel
EOF
expect_rc 0 sirt "$KRAY" sirt --geom g.json --iters 12 --nonneg --backprojector voxel exact.npy sirtv.npy
expect_rc 0 metrics "$KRAY" metrics --json sirtv.npy vol.npy
num_le "$(json_field "$T/out" nrmse)" 0.4 || fail "SIRT (voxel backprojector) vs phantom: $(cat "$T/out")"
expect_rc 2 sirt "$KRAY" sirt --geom g.json --backprojector voxel --precision f64 exact.npy x.npy
grep -q "runs in f32" "$T/err" || fail "voxel f64: $(cat "$T/err")"
expect_rc 2 sirt "$KRAY" sirt --geom g.json --backprojector voxel --gpu-mem 12Q exact.npy x.npy
expect_rc 0 backproject "$KRAY" backproject --backprojector voxel --gpu-mem 64M --geom g.json exact.npy bpv2.npy
"$PY" -c 'import numpy as np; assert np.array_equal(np.load("bpv.npy"), np.load("bpv2.npy"))' ||
    fail "--gpu-mem changed the voxel-driven backprojection"
expect_rc 0 sirt "$KRAY" sirt --geom g.json --iters 3 --precision f64 exact.npy s64.nrrd
expect_rc 0 info "$KRAY" info s64.nrrd
grep -q "^dtype *f64" "$T/out" || fail "--precision f64 output: $(cat "$T/out")"
expect_rc 0 project "$KRAY" project --geom g.json --view 3 vol.npy p.png
is_png p.png || fail "p.png is not a PNG"
expect_rc 0 backproject "$KRAY" backproject --geom g.json --slice 12 exact.npy bp.pgm
[ -s bp.pgm ] || fail "no bp.pgm"

# bad input: exit 1 with one sentence
"$PY" - <<'EOF'
import numpy as np
y = np.load("exact.npy")
z = y.copy(); z[3, 4, 5] = np.nan; z[0, 0, 7] = np.nan; np.save("nan.npy", z)
np.save("wide.npy", np.zeros((30, 64, 80), np.float32))  # kray dims [80, 64, 30]
EOF
expect_rc 1 backproject "$KRAY" backproject --geom g.json nan.npy x.npy
grep -q "nan.npy holds 2 NaN and 0 infinite values (the first at sample 7, index \[7, 0, 0\])" "$T/err" ||
    fail "NaN refusal: $(cat "$T/err")"
expect_rc 1 backproject "$KRAY" backproject --allow-nonfinite --geom g.json nan.npy x.npy
grep -q "projections contain 2 NaN and 0 infinite values (the first at u 7, v 0, view 0)" "$T/err" ||
    fail "NaN report: $(cat "$T/err")"
expect_rc 1 sirt "$KRAY" sirt --geom g.json nan.npy x.npy
expect_rc 1 backproject "$KRAY" backproject --geom g.json wide.npy x.npy
grep -q "the detector is smaller than the data" "$T/err" || fail "wide data: $(cat "$T/err")"
sed 's/"cor_offset_mm"/"cor_mm"/' g.json >bad.json
expect_rc 1 project "$KRAY" project --geom bad.json vol.npy x.npy
grep -q "unknown field 'cor_mm'" "$T/err" || fail "bad.json: $(cat "$T/err")"
expect_rc 2 project "$KRAY" project --sod 300 --sdd 300 --det 76x64 --angles 0:360:30 vol.npy x.npy
grep -q "sdd_mm" "$T/err" || fail "sdd = sod: $(cat "$T/err")"
expect_rc 2 project "$KRAY" project --sod 20 --sdd 300 --det 76x64 --angles 0:360:30 --voxel 2 vol.npy x.npy
grep -q "lies inside the volume" "$T/err" || fail "source inside: $(cat "$T/err")"
rc=0
"$KRAY" backproject --backprojector fdk --geom g.json exact.npy fdk.npy 2>"$T/err" || rc=$?
if [ "$rc" -ne 0 ]; then
    grep -q "not available in this build" "$T/err" || fail "--kind fdk: $(cat "$T/err")"
fi
# usage errors: exit 2
expect_rc 2 backproject "$KRAY" backproject exact.npy x.npy
expect_rc 2 backproject "$KRAY" backproject --geom g.json --sod 100 exact.npy x.npy
expect_rc 2 project "$KRAY" project --geom g.json --phantom modified a.npy b.npy
expect_rc 2 project "$KRAY" project --sod 200 --sdd 300 --det 76x64 vol.npy x.npy
grep -q "number of views" "$T/err" || fail "missing view count: $(cat "$T/err")"
expect_rc 2 cgls "$KRAY" cgls --geom g.json --init vol.npy --size 20 exact.npy x.npy
expect_rc 2 sirt "$KRAY" sirt --geom g.json --relax 2.5 exact.npy x.npy
finish
