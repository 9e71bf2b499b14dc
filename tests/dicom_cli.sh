#!/usr/bin/env bash
# kray fbp writing DICOM (.dcm): the file opens in DCMTK's dcmdump (CT Image Storage, HU
# rescale, pixel spacing), passes dicom3tools' dciodvfy with no errors, and opens in pydicom,
# whose rescaled pixels equal 1000 (mu - mu_water) / mu_water of the same reconstruction written as .npy, to the rounding
# of the 16-bit stored values (mu_water 1: the modified Shepp-Logan densities 0..1 become
# -1000..0 HU, slope 1). Skips (77) without DCMTK in the build or without both peers.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"

"$KRAY" phantom --kind sinogram --size 128 --views 180 s.npy
rc=0
"$KRAY" fbp --voxel 0.5 --pitch 0.5 --mu-water 1.0 s.npy r.dcm 2>err.txt || rc=$?
if [ "$rc" -ne 0 ] && grep -q "built without DCMTK" err.txt; then
    echo "skipped: $(cat err.txt)"
    exit 77
fi
[ "$rc" -eq 0 ] || fail "kray fbp -> r.dcm exited $rc: $(cat err.txt)"
"$KRAY" fbp --voxel 0.5 --pitch 0.5 s.npy r.npy
have_dcmdump=0
command -v dcmdump >/dev/null 2>&1 && have_dcmdump=1
have_pydicom=0
[ -x "$PY" ] && "$PY" -c 'import pydicom, numpy' 2>/dev/null && have_pydicom=1
if [ $have_dcmdump -eq 0 ] && [ $have_pydicom -eq 0 ]; then
    echo "skipped: neither dcmdump (Debian dcmtk) nor pydicom (python3-pydicom) is installed"
    exit 77
fi
if [ $have_dcmdump -eq 1 ]; then
    dcmdump r.dcm >dump.txt || fail "dcmdump cannot read r.dcm"
    grep -q "=CTImageStorage" dump.txt || fail "SOP class is not CT Image Storage"
    grep -q "(0028,0030) DS \[0.5\\\\0.5\]" dump.txt || fail "PixelSpacing: $(grep 0028,0030 dump.txt)"
    grep -q "(0028,1054) LO \[HU\]" dump.txt || fail "RescaleType is not HU"
    grep -q "(0028,0010) US 128" dump.txt || fail "Rows is not 128"
    ok "dcmdump reads r.dcm"
else
    echo "dcmdump part skipped (Debian package dcmtk not installed)"
fi
if [ $have_pydicom -eq 1 ]; then
    "$PY" - <<'PYEOF' || fail "pydicom comparison failed"
import numpy as np, pydicom
d = pydicom.dcmread("r.dcm")
hu = d.pixel_array.astype(np.float64) * float(d.RescaleSlope) + float(d.RescaleIntercept)
mu = np.load("r.npy").astype(np.float64)  # [x, y] x fastest -> numpy (y, x) = DICOM (row, col)
ref = 1000.0 * (mu - 1.0) / 1.0
err = np.abs(hu - ref).max()
print("pydicom: max |HU(file) - HU(npy)| =", err, "slope", float(d.RescaleSlope))
assert d.Modality == "CT" and d.SOPClassUID == "1.2.840.10008.5.1.4.1.1.2"
assert [float(v) for v in d.PixelSpacing] == [0.5, 0.5]
assert err <= 0.5 * float(d.RescaleSlope) + 1e-3, err
PYEOF
    ok "pydicom values match"
fi
# dicom3tools' validator: no errors against the CT Image IOD (warnings allowed: empty Type 2C
# Laterality, which is unknown for a phantom)
if command -v dciodvfy >/dev/null 2>&1; then
    dciodvfy r.dcm >dv.txt 2>&1 || true
    n=$(grep -c '^Error' dv.txt || true)
    [ "$n" -eq 0 ] && ok "dciodvfy: 0 errors ($(grep -c '^Warning' dv.txt || true) warnings)" ||
        fail "dciodvfy: $n errors: $(grep '^Error' dv.txt | head -3)"
    grep -q '^CTImage' dv.txt || fail "dciodvfy did not recognise a CT image: $(head -2 dv.txt)"
else
    echo "dciodvfy part skipped (Debian package dicom3tools not installed)"
fi
finish
