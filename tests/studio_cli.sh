#!/usr/bin/env bash
# The command-line pieces the studio's pages run (docs/studio.md): kray project with a 2-D
# geometry file (against the exact sinogram of kray phantom), kray phantom --kind kspace --traj
# (a Cartesian trajectory gives the grid's k-space exactly), kray coilcombine with [nx, ny, coils]
# maps of [nx, ny, 1, coils] images, and kray ctreg -v's value per iteration.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"
# project -g: a parallel2d geometry of 64 pixels of 1 mm, 90 views over 180 degrees (Joseph of
# the pixel averages against the exact line integrals: about 6 % in the l2 norm, the edges)
"$KRAY" phantom --kind sinogram -n 64 --views 90 exact.npy
"$KRAY" fbp --angles 0:180:90 --geom-out g.json exact.npy fbp.npy
"$KRAY" phantom -n 64 -S 4 img.npy
"$KRAY" project -g g.json img.npy sino.npy
"$KRAY" metrics --json sino.npy exact.npy >m.json
nrmse=$("$PY" -c 'import json,sys; print(json.load(open("m.json"))["nrmse"])')
"$PY" -c "import sys; sys.exit(0 if $nrmse < 0.1 else 1)" ||
    fail "project -g (parallel2d) against the exact sinogram: NRMSE $nrmse"
"$KRAY" info sino.npy | grep -q "64x90" || fail "project -g: sinogram dims $("$KRAY" info sino.npy)"
ok "project -g parallel2d: NRMSE $nrmse against the exact sinogram"
"$PY" - <<'PYEOF'
import json
json.dump({"type": "fan2d-flat", "det_count": 96, "image": {"size": [64, 64], "voxel_mm": 1},
           "angles_deg": {"start": 0, "stop": 360, "count": 120}, "det_spacing_mm": 2,
           "sod_mm": 200, "sdd_mm": 400}, open("fan.json", "w"))
PYEOF
"$KRAY" project -g fan.json img.npy fsino.npy
"$KRAY" fbp -g fan.json fsino.npy frec.npy
"$KRAY" metrics --json frec.npy img.npy >m.json
nrmse=$("$PY" -c 'import json; print(json.load(open("m.json"))["nrmse"])')
"$PY" -c "import sys; sys.exit(0 if $nrmse < 0.3 else 1)" ||
    fail "project -g fan2d-flat then fbp: NRMSE $nrmse against the image"
ok "project -g fan2d-flat, fbp back: NRMSE $nrmse"
expect_rc 1 project "$KRAY" project -g fan.json --phantom modified p.npy

# phantom --traj: a Cartesian trajectory gives the grid's k-space, coils included
"$KRAY" traj -k cartesian -n 16x16 tc.npy
"$KRAY" phantom --kind kspace -n 16 -c 3 grid.npy
"$KRAY" phantom --kind kspace -n 16 -c 3 --traj tc.npy traj.npy
"$PY" - <<'PYEOF' || fail "phantom --traj on the Cartesian grid differs from the grid's k-space"
import numpy as np
g, t = np.load('grid.npy'), np.load('traj.npy')
assert t.shape == (3, 16, 16), t.shape
assert np.array_equal(g, t), abs(g - t).max()
PYEOF
"$KRAY" traj -k radial -x 16 -y 8 tr.npy
"$KRAY" phantom --kind kspace -n 16 --traj tr.npy kr.npy
"$KRAY" info kr.npy | grep -q "16x8" || fail "phantom --traj radial: dims $("$KRAY" info kr.npy)"
expect_rc 2 phantom "$KRAY" phantom --kind image --traj tr.npy o.npy
ok "phantom --traj"

# coilcombine: maps [n, n, c] for images [n, n, 1, c] (the NUFFT's batch layout)
"$KRAY" phantom --kind coils -n 16 -c 3 maps.npy
"$KRAY" nufft -n 16x16 tr.npy kr.npy one.npy
"$KRAY" phantom --kind kspace -n 16 -c 3 --traj tr.npy kc.npy
"$KRAY" nufft -n 16x16 tr.npy kc.npy adj.npy
"$KRAY" info adj.npy | grep -q "16x16x1x3" || fail "nufft batch layout: $("$KRAY" info adj.npy)"
expect_rc 0 coilcombine "$KRAY" coilcombine --maps maps.npy adj.npy comb.npy
"$KRAY" phantom --kind coils -n 8 -c 3 small.npy
expect_rc 1 coilcombine "$KRAY" coilcombine --maps small.npy adj.npy comb2.npy
ok "coilcombine: maps without the size-1 axis"

# ctreg -v: one value per iteration, as it runs
"$KRAY" ctreg -g g.json -m ossart --subsets 1 -i 5 -v exact.npy rec.npy 2>err.txt
seq=$(sed -n 's/^kray ctreg: iteration \([0-9]*\): relative residual .*/\1/p' err.txt | tr '\n' ' ')
[ "$seq" = "0 1 2 3 4 5 " ] || fail "ctreg -v ossart: iterations '$seq': $(cat err.txt)"
"$KRAY" ctreg -g g.json -m fista --reg tv:0.01 -i 3 -v exact.npy rec.npy 2>err.txt
n=$(grep -c '^kray ctreg: iteration [0-9]*: objective ' err.txt || true)
[ "$n" = 4 ] || fail "ctreg -v fista: $n objective lines: $(cat err.txt)"
"$KRAY" ctreg -g g.json -m fista -i 3 exact.npy rec.npy 2>err.txt
grep -q iteration err.txt && fail "ctreg without -v printed iterations"
ok "ctreg -v"
finish
