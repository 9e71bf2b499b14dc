#!/usr/bin/env bash
# kray recon / kray sense / kray mrreg on ISMRMRD files from ismrmrd_generate_cartesian_shepp_logan: RSS
# against ismrmrd_recon_cartesian_2d (unaccelerated; scale-normalised NRMSE), SENSE of R = 2
# data with embedded ACS lines and a noise scan against the unaccelerated optimal combination,
# simulated data written by kray and read by the reference tool, damaged files.
# Skips (77) without ismrmrd-tools, numpy or a kray built with libismrmrd.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"

for t in ismrmrd_generate_cartesian_shepp_logan ismrmrd_recon_cartesian_2d; do
    command -v "$t" >/dev/null 2>&1 || { echo "skipped: $t not installed (ismrmrd-tools)"; exit 77; }
done
"$PY" -c 'import numpy' 2>/dev/null || { echo "skipped: numpy for $PY missing"; exit 77; }

# compare X REF [MAX]: magnitude NRMSE of X against REF after the least-squares scale (X, REF .npy)
compare() {
    "$PY" - "$1" "$2" "${3:-1}" <<'PYEOF'
import sys, numpy as np
x, r = np.abs(np.load(sys.argv[1])).ravel(), np.abs(np.load(sys.argv[2])).ravel()
s = x.dot(r) / x.dot(x)
e = np.linalg.norm(s * x - r) / np.linalg.norm(r)
print("%s vs %s: NRMSE %.3g (scale %.6g)" % (sys.argv[1], sys.argv[2], e, s))
sys.exit(0 if e <= float(sys.argv[3]) else 1)
PYEOF
}

ismrmrd_generate_cartesian_shepp_logan -m 96 -c 8 -n 0.01 -o full.h5 >/dev/null
ismrmrd_recon_cartesian_2d full.h5 >/dev/null
rc=0
"$KRAY" recon full.h5 rss.npy 2>err.txt || rc=$?
if [ "$rc" -ne 0 ] && grep -q "built without ISMRMRD" err.txt; then
    echo "skipped: $(cat err.txt)"
    exit 77
fi
[ "$rc" -eq 0 ] || fail "kray recon full.h5: $(cat err.txt)"
# Debian's ismrmrd_recon_cartesian_2d stores its RSS image as "cpp" (upstream: "myimage").
"$KRAY" recon --extract-image cpp full.h5 ref.npy 2>/dev/null ||
    "$KRAY" recon --extract-image myimage full.h5 ref.npy
compare rss.npy ref.npy 1e-5 || fail "RSS differs from ismrmrd_recon_cartesian_2d"

# R = 2 with 16 embedded calibration lines and a noise scan: SENSE with ESPIRiT maps and Psi.
ismrmrd_generate_cartesian_shepp_logan -m 96 -c 8 -n 0.01 -a 2 -w 16 -C -o r2.h5 >/dev/null
expect_rc 0 sense "$KRAY" sense --json --maps-out m.cfl --magnitude --gfactor-out g.npy r2.h5 s.npy
grep -q '"method": "lattice", "accel": 2' "$T/out" || fail "R = 2 lattice expected: $(cat "$T/out")"
expect_rc 0 recon "$KRAY" recon --combine optimal --maps m.cfl --magnitude full.h5 opt.npy
compare s.npy opt.npy 0.06 || fail "SENSE of the R = 2 file vs the unaccelerated combination"
expect_rc 0 recon "$KRAY" recon r2.h5 alias.npy
expect_rc 0 sense "$KRAY" sense --cg --magnitude r2.h5 cg.npy
compare cg.npy opt.npy 0.06 || fail "CG-SENSE of the R = 2 file"
expect_rc 0 mrreg "$KRAY" mrreg --reg l1-wavelet:0.001 -i 40 r2.h5 mr.npy
compare mr.npy opt.npy 0.06 || fail "kray mrreg (l1-wavelet) of the R = 2 file"

# Simulated data written by kray (undersampled + noise scan), read back by kray and by the
# reference tool (fully sampled).
expect_rc 0 recon "$KRAY" recon --noise 0.01 --kspace-out sim_full.h5 full.h5 x.npy
ismrmrd_info sim_full.h5 >/dev/null || fail "ismrmrd_info cannot read kray's file"
ismrmrd_recon_cartesian_2d sim_full.h5 >/dev/null || fail "the reference recon cannot read kray's file"
"$KRAY" recon --extract-image cpp sim_full.h5 simref.npy 2>/dev/null ||
    "$KRAY" recon --extract-image myimage sim_full.h5 simref.npy
"$KRAY" recon sim_full.h5 simrss.npy
compare simrss.npy simref.npy 1e-5 || fail "kray-written file: RSS vs the reference recon"
expect_rc 0 recon "$KRAY" recon --accel 3 --acs 12 --noise 0.01 --kspace-out sim_r3.h5 full.h5 y.npy
expect_rc 0 sense "$KRAY" sense --json --magnitude sim_r3.h5 s3.npy
grep -q '"accel": 3' "$T/out" || fail "R = 3 from kray's header expected: $(cat "$T/out")"

# Damaged files.
head -c 20000 full.h5 >trunc.h5
expect_rc 1 recon "$KRAY" recon trunc.h5 o.npy
expect_rc 1 sense "$KRAY" sense trunc.h5 o.npy
printf 'not an HDF5 file at all\n' >text.h5
expect_rc 1 recon "$KRAY" recon text.h5 o.npy
expect_rc 1 recon "$KRAY" recon missing.h5 o.npy
expect_rc 1 recon "$KRAY" recon --repetition 7 r2.h5 o.npy
expect_rc 1 recon "$KRAY" recon --extract-image nosuchimage full.h5 o.npy
[ -e o.npy ] && fail "a failed run left o.npy behind"
[ "$NFAIL" -eq 0 ]
