#!/usr/bin/env bash
# kray fbp with scikit-image's sinograms: `--skimage` reads radon()'s (detectors, angles) array
# with iradon's geometry (axis at N//2, its angle sign, its circle) and equals
# iradon(sinogram, theta) to float precision (measured 6e-15 in f64 on 100^2 and 101^2); the
# same array without the option is refused as transposed; --circle blanks as iradon does.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"
if ! [ -x "$PY" ] || ! "$PY" -c 'import skimage.transform, numpy' 2>/dev/null; then
    echo "skipped: needs /usr/bin/python3 with scikit-image"
    exit 77
fi
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
"$KRAY" phantom --size 64 p64.npy
"$KRAY" phantom --size 65 p65.npy
# sinograms by scikit-image: even and odd N, default and shifted angles
"$PY" - <<'EOF'
import numpy as np, warnings
warnings.simplefilter("ignore")
from skimage.transform import radon, iradon
for n in (64, 65):
    img = np.load("p%d.npy" % n).astype(np.float64)
    for name, th in (("a", np.linspace(0, 180, 90, endpoint=False)),
                     ("b", 10 + np.arange(60) * 3.0)):
        s = radon(img, theta=th)
        np.save("s%d%s.npy" % (n, name), s)
        np.save("r%d%s.npy" % (n, name), iradon(s, theta=th))
EOF
cmp_iradon() { # cmp_iradon KRAY IRADON BOUND: relative max difference <= BOUND
    "$PY" - "$@" <<'EOF'
import numpy as np, sys
k, r = np.load(sys.argv[1]).astype(np.float64), np.load(sys.argv[2])
e = np.abs(k - r).max() / np.abs(r).max() if k.shape == r.shape else np.inf
print("%s: max |kray - iradon| / max |iradon| = %.2e" % (sys.argv[1], e))
sys.exit(0 if e <= float(sys.argv[3]) else 1)
EOF
}
for n in 64 65; do
    expect_rc 0 fbp "$KRAY" fbp --skimage "s${n}a.npy" "k${n}a.npy"
    cmp_iradon "k${n}a.npy" "r${n}a.npy" 1e-5 && ok "N=$n f32: = iradon" || fail "N=$n f32 vs iradon"
    expect_rc 0 fbp "$KRAY" fbp --skimage --precision f64 "s${n}a.npy" "k${n}d.npy"
    cmp_iradon "k${n}d.npy" "r${n}a.npy" 1e-12 && ok "N=$n f64: = iradon" || fail "N=$n f64 vs iradon"
    expect_rc 0 fbp "$KRAY" fbp --skimage --precision f64 --angles 10:190:60 "s${n}b.npy" "k${n}b.npy"
    cmp_iradon "k${n}b.npy" "r${n}b.npy" 1e-12 && ok "N=$n theta 10..187: = iradon" ||
        fail "N=$n shifted theta vs iradon"
done
# the same array without --skimage: refused as transposed, naming the shape and the option
expect_rc 1 fbp "$KRAY" fbp s64a.npy x.npy
grep -q "90x64" "$T/err" && grep -q -- "--skimage" "$T/err" || fail "message: $(cat "$T/err")"
[ ! -e x.npy ] && ok "nothing written" || fail "x.npy written"
# kray's own layout is accepted; --circle zeroes outside radius N//2 about the axis, as iradon
"$KRAY" phantom --kind sinogram --size 64 --views 90 --units pixel ks.npy
expect_rc 0 fbp "$KRAY" fbp ks.npy kf.npy
expect_rc 0 fbp "$KRAY" fbp --circle ks.npy kc.npy
"$PY" - <<'EOF' && ok "--circle: zero outside, unchanged inside" || fail "--circle"
import numpy as np, sys
f, c = np.load("kf.npy"), np.load("kc.npy")
y, x = np.mgrid[:64, :64] - 31.5
out = x ** 2 + y ** 2 > 32 ** 2
sys.exit(0 if np.all(c[out] == 0) and np.array_equal(c[~out], f[~out]) and np.any(f[out] != 0) else 1)
EOF
finish
