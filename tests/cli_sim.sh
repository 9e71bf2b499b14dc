#!/usr/bin/env bash
# kray sim and kray coils from the command line:
#  - coils: maps of Mayo Sarmiento (2018)'s 16-coil 5/6/5 array against an independent Python
#    evaluation of the loop field (scipy's complete elliptic integrals), and the layout JSON;
#  - sim: an ideally spoiled GRE of the MR phantom (maps written by kray phantom) against the
#    Ernst-weighted image computed in numpy from the same maps; coil weighting through --coils;
#  - bad inputs: exit 1 with one sentence (TE too short, missing file), usage errors exit 2.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"
$PY -c "import numpy, scipy.special" 2>/dev/null || { echo "skipped: numpy/scipy missing"; exit 77; }

# ---- coils -----------------------------------------------------------------------------------
expect_rc 0 coils "$KRAY" coils --json --coils 16 --per-ring 6 --rbody 300 --size 40x36x3 \
    --voxel 5 --thickness 40 maps.npy
grep -q '"rings": \[5, 6, 5\]' "$T/out" || fail "16 coils, 6 per ring: rings $(cat "$T/out")"
cp "$T/out" layout.json
$PY - <<'EOF' || fail "coil maps differ from the scipy closed form"
import json, numpy as np
from scipy.special import ellipk, ellipe
lay = json.load(open("layout.json"))
m = np.load("maps.npy")              # kray [nx, ny, nz, nc] -> numpy (nc, nz, ny, nx)
nc, nz, ny, nx = m.shape
a = lay["radius_mm"] * 1e-3
x = (np.arange(nx) - nx // 2) * 5e-3
y = (np.arange(ny) - ny // 2) * 5e-3
z = (np.arange(nz) - nz // 2) * 40e-3
Z, Y, X = np.meshgrid(z, y, x, indexing="ij")
worst = 0.0
for c, L in enumerate(lay["layout"]):
    cen = np.array(L["centre_mm"]) * 1e-3
    n = np.array(L["normal"])
    d = np.stack([X - cen[0], Y - cen[1], Z - cen[2]], -1)
    zz = d @ n
    r = d - zz[..., None] * n
    rho = np.linalg.norm(r, axis=-1)
    q = (a + rho) ** 2 + zz ** 2
    k2 = 4 * a * rho / q
    K, E = ellipk(k2), ellipe(k2)
    den = (a - rho) ** 2 + zz ** 2
    bz = 2e-7 / np.sqrt(q) * (K + (a * a - rho ** 2 - zz ** 2) / den * E)
    br = 2e-7 * zz / (rho * np.sqrt(q)) * (-K + (a * a + rho ** 2 + zz ** 2) / den * E)
    B = bz[..., None] * n + (br / rho)[..., None] * r
    want = (B[..., 0] - 1j * B[..., 1]) * 1e6        # microtesla per ampere
    err = np.abs(m[c] - want).max() / np.abs(want).max()
    worst = max(worst, err)
print("coil maps vs scipy: max rel error %.3g" % worst)
assert worst < 1e-6, worst
EOF

# ---- sim -------------------------------------------------------------------------------------
N=32
expect_rc 0 phantom "$KRAY" phantom --kind mr --grid fft --size $N obj.npy
expect_rc 0 sim "$KRAY" sim --json --object obj.npy --voxel 4 --te 3 --tr 15 --flip 30 \
    --rf-dur 10 --bw 4000 --spoil ideal --dummy 300 --image-out img.npy k.npy
grep -q "\"samples\": $((N * N))" "$T/out" || fail "sim: samples $(cat "$T/out")"
$PY - <<'EOF' || fail "GRE image differs from the Ernst-weighted image"
import numpy as np
o = np.load("obj.npy")                 # (3, ny, nx): T1, T2, PD
img = np.load("img.npy")[0, 0]         # (ny, nx)
t1, t2, pd = o[0], o[1], o[2]
a, tr, te = np.deg2rad(30), 15.0, 3.0
with np.errstate(divide="ignore", invalid="ignore"):
    e1 = np.exp(-tr / t1)
    want = np.where(pd > 0, pd * np.sin(a) * (1 - e1) / (1 - np.cos(a) * e1) * np.exp(-te / t2), 0)
err = np.abs(img - 1j * want).max() / want.max()
print("GRE image vs Ernst: max rel error %.3g" % err)
assert err < 3e-3, err
EOF
expect_rc 0 sim "$KRAY" sim --object obj.npy --voxel 4 --te 3 --tr 15 --flip 30 --spoil ideal \
    --bw 4000 --coils 4 --per-ring 4 --rbody 200 --coil-norm none --image-out img4.npy k4.npy
$PY - <<'EOF' || fail "coil images are not sensitivity x image"
import numpy as np
i4 = np.load("img4.npy")               # (4, 1, ny, nx)
assert i4.shape[0] == 4, i4.shape
# the four coils see the same object with different smooth weights: the ratio of two coil
# images is smooth and never zero where the object is
mag = np.abs(i4[:, 0])
assert (mag.max(axis=(1, 2)) > 0).all()
EOF

# ---- errors ----------------------------------------------------------------------------------
expect_rc 1 sim "$KRAY" sim --object obj.npy --te 0.5 k.npy
expect_rc 1 sim "$KRAY" sim --object missing.npy k.npy
expect_rc 2 sim "$KRAY" sim --decimate 3 k.npy
expect_rc 2 sim "$KRAY" sim k.unknown
expect_rc 2 coils "$KRAY" coils --coils 0 m.npy
expect_rc 2 coils "$KRAY" coils --size 4x4x4x4 m.npy
finish
