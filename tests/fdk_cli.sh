# kray fdk on the command line: exact cone-beam projections of a uniform ball made with numpy
# (line integral = 2 sqrt(R^2 - d^2), d the distance from the ball's centre to the ray), FDK,
# and the interior value read back; bad input gives one sentence and the documented exit code.
# Also smoke runs of the cone-beam benchmarks (kray bench fdk, kray bench cone) on the CPU.
source "$KRAY_SRC/tests/cli_common.bash"
"$PY" -c "import numpy" 2>/dev/null || { echo "skipped: numpy not available to $PY"; exit 77; }

# 48 views of a 64x64 detector (1 mm pixels), sod 150, sdd 300, ball radius 10 mm, 0.02 / mm
"$PY" - "$T" <<'PYEOF'
import sys, numpy as np
T = sys.argv[1]
nu = nv = 64; views = 48; sod, sdd, p, R, mu = 150.0, 300.0, 1.0, 10.0, 0.02
out = np.zeros((views, nv, nu), np.float32)          # C order [view, v, u] = kray [u, v, view]
a = (np.arange(nu) - (nu - 1) / 2) * p
b = (np.arange(nv) - (nv - 1) / 2) * p
for m in range(views):
    t = 2 * np.pi * m / views
    eu = np.array([np.cos(t), np.sin(t), 0]); ed = np.array([-np.sin(t), np.cos(t), 0])
    ez = np.array([0, 0, 1.0])
    S = -sod * ed
    P = (sdd - sod) * ed + a[None, :, None] * eu + b[:, None, None] * ez   # [v, u, 3]
    d = P - S
    d /= np.linalg.norm(d, axis=2, keepdims=True)
    # distance from the origin to the line S + s d
    c = np.cross(-S[None, None, :], d)
    dist = np.linalg.norm(c, axis=2)
    out[m] = np.where(dist < R, 2 * np.sqrt(np.maximum(R * R - dist * dist, 0)), 0) * mu
np.save(T + "/proj.npy", out)
bad = out.copy(); bad[3, 5, 7] = np.nan
np.save(T + "/bad.npy", bad)
PYEOF

expect_rc 0 fdk "$KRAY" fdk -q --backend cpu --sod 150 --sdd 300 --size 40 --voxel 0.75 \
    --geom-out "$T/g.json" "$T/proj.npy" "$T/vol.npy"
"$PY" - "$T/vol.npy" <<'PYEOF' && ok "ball interior" || fail "ball interior"
import sys, numpy as np
v = np.load(sys.argv[1])                            # kray [x, y, z] = C order [z, y, x]
assert v.shape == (40, 40, 40), v.shape
c = v[16:24, 16:24, 16:24].mean()                  # within 3 mm of the centre (radius 10 mm)
print("interior mean", c)
assert abs(c - 0.02) < 0.0004, c
assert abs(v[0:4, 0:4, 0:4]).max() < 0.002           # outside the ball
PYEOF

# the same geometry from its JSON file gives the same volume; JSON report
expect_rc 0 fdk "$KRAY" fdk -q --backend cpu --geom "$T/g.json" "$T/proj.npy" "$T/vol3.npy"
cmp -s "$T/vol.npy" "$T/vol3.npy" && ok "--geom == scan options" || fail "--geom differs"
expect_rc 0 fdk "$KRAY" fdk -q --json --backend cpu --sod 150 --sdd 300 --size 24 --voxel 1 \
    --filter direct --filter-window ramlak "$T/proj.npy" "$T/vol2.nii"
grep -q '"short_scan": 0' "$T/out" && ok "json" || fail "json: $(cat "$T/out")"
expect_rc 0 fdk "$KRAY" fdk -q --backend cpu --sod 150 --sdd 300 --size 24 --voxel 1 \
    --filter-window hann --cutoff 0.8 "$T/proj.npy" "$T/slice.png"
[ -s "$T/slice.png" ] && ok "png slice" || fail "no png"

# usage errors (exit 2) and bad input (exit 1)
expect_rc 2 fdk "$KRAY" fdk --sdd 300 "$T/proj.npy" "$T/x.npy"
expect_rc 2 fdk "$KRAY" fdk --sod 150 --sdd 300 --pitch 1,2,3 "$T/proj.npy" "$T/x.npy"
expect_rc 2 fdk "$KRAY" fdk --sod 150 --sdd 300 --gpu-mem 12Q "$T/proj.npy" "$T/x.npy"
expect_rc 2 fdk "$KRAY" fdk --sod 150 --sdd 300 --size 4x4 "$T/proj.npy" "$T/x.npy"
expect_rc 2 fdk "$KRAY" fdk --sod 150 --sdd 300 --precision f64 "$T/proj.npy" "$T/x.npy"
expect_rc 2 fdk "$KRAY" fdk --backend cpu --sod 300 --sdd 150 "$T/proj.npy" "$T/x.npy"
expect_rc 1 fdk "$KRAY" fdk -q --backend cpu --sod 150 --sdd 300 --det 60x64 "$T/proj.npy" \
    "$T/x.npy"
expect_rc 1 fdk "$KRAY" fdk -q --backend cpu --sod 150 --sdd 300 "$T/bad.npy" "$T/x.npy"
grep -q "bad.npy holds 1 NaN and 0 infinite values (the first at sample [0-9]*, index \[7, 5, 3\])" "$T/err" &&
    ok "NaN refused" || fail "NaN refusal: $(cat "$T/err")"
expect_rc 1 fdk "$KRAY" fdk -q --allow-nonfinite --backend cpu --sod 150 --sdd 300 "$T/bad.npy" "$T/x.npy"
grep -q "1 NaN and 0 infinite values (the first at u 7, v 5, view 3)" "$T/err" &&
    ok "NaN reported" || fail "NaN message: $(cat "$T/err")"
[ ! -e "$T/x.npy" ] && ok "no output on failure" || fail "an output was written on failure"
expect_rc 1 fdk "$KRAY" fdk -q --backend cpu --sod 150 --sdd 300 --angles 0:120 "$T/proj.npy" \
    "$T/x.npy"

# the FDK benchmark on the CPU: JSON lines
expect_rc 0 "bench fdk" "$KRAY" bench fdk --json --backend cpu --size 16 --views 8 --det 24x20 \
    --reps 1
[ "$(grep -c '"case": "fdk' "$T/out")" = 2 ] && ok "bench lines" || fail "bench: $(cat "$T/out")"
expect_rc 2 "bench fdk" "$KRAY" bench fdk --det 24 --backend cpu

# the cone-beam projector benchmark on the CPU: one forward and one adjoint line per method,
# and the voxel-driven backprojector's
expect_rc 0 "bench cone" "$KRAY" bench cone --json --backend cpu --size 12 --views 4 --reps 1 \
    --adjoint
[ "$(grep -c '"case": "cone_' "$T/out")" = 5 ] && grep -q '"method": "voxel"' "$T/out" &&
    ok "bench cone lines" ||
    fail "bench cone: $(cat "$T/out")"
expect_rc 2 "bench cone" "$KRAY" bench cone --method joe --backend cpu

[ "$NFAIL" -eq 0 ] || exit 1
