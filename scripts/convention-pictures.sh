#!/usr/bin/env bash
# Draw docs/img/conv_*.png: one kray image (the modified Shepp-Logan phantom with a bright
# marker in its top-left corner) as each tool shows it, with no flags: kray convert, NumPy +
# matplotlib imshow, scikit-image, `bart toimg`, and a NIfTI viewer (the file's orientation
# applied, radiological display: anterior up, the patient's right on the left).
#   scripts/convention-pictures.sh [path/to/kray] [output folder]
# Needs /usr/bin/python3 with numpy, matplotlib, scikit-image and nibabel, and bart.
set -euo pipefail
KRAY=${1:-build/kray}
OUT=${2:-docs/img}
PY=/usr/bin/python3
mkdir -p "$OUT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$KRAY" phantom --size 96 "$T/p.npy"
"$PY" - "$T" <<'EOF'
import numpy as np, sys
a = np.load(sys.argv[1] + "/p.npy")
a[4:12, 4:20] = 1.0  # the marker: a bar in the top-left corner (rows 4..11, columns 4..19)
np.save(sys.argv[1] + "/m.npy", a)
EOF
"$KRAY" convert "$T/m.npy" "$OUT/conv_kray_convert.png"
"$KRAY" convert "$T/m.npy" "$T/m.cfl"
"$KRAY" convert "$T/m.npy" "$T/m.nii"
bart toimg "$T/m" "$OUT/conv_bart_toimg.png" >/dev/null
"$PY" - "$T" "$OUT" <<'EOF'
import sys, numpy as np, matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt, nibabel as nib, skimage.io
t, out = sys.argv[1], sys.argv[2]
a = np.load(t + "/m.npy")
fig = plt.figure(figsize=(2.4, 2.4), dpi=80)
plt.imshow(a, cmap="gray")
plt.title("plt.imshow(np.load(...))", fontsize=7)
plt.xticks(fontsize=6); plt.yticks(fontsize=6)
fig.tight_layout()
fig.savefig(out + "/conv_numpy_imshow.png")
skimage.io.imsave(out + "/conv_skimage.png", (np.clip(a, 0, 1) * 255).astype(np.uint8),
                  check_contrast=False)
# a viewer: reorient to RAS, then rows anterior -> posterior, columns patient right -> left
f = nib.load(t + "/m.nii")
d = np.asanyarray(f.dataobj)
d = d.reshape(d.shape + (1,) * (3 - d.ndim))
img = nib.as_closest_canonical(nib.Nifti1Image(d, f.affine))
view = np.asanyarray(img.dataobj)[::-1, ::-1, 0].T
skimage.io.imsave(out + "/conv_nifti_viewer.png",
                  (np.clip(view, 0, 1) * 255).astype(np.uint8), check_contrast=False)
EOF
ls "$OUT"/conv_*.png
