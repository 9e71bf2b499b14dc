# Shared set-up of tests/mrreg_bart_tv.sh and mrreg_bart_wavelet.sh (sourced; not a test): BART's
# radial 8-coil phantom data with noise, its maps and image, and the measures. Skips (77) without
# bart or numpy.
. "$(dirname "$0")/cli_common.bash"
cd "$T"
# One thread: results do not depend on it, and OpenMP spinning on a loaded 2-core machine made
# BART and kray ten times slower.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
need_bart_numpy
# 96^2 image from 24 radial spokes of 176 samples (2x readout oversampling, |k| <= N/2 - 4: BART
# 0.8's nufft does not wrap at k = -N/2, tests/cgsense_bart.sh), 8 coils, complex Gaussian noise
# of variance 4000 (SNR about 10 in k-space); the maps normalised (`bart normalize 8`), so the
# image both tools reconstruct is the phantom times the raw maps' root-sum-of-squares.
N=96
bart traj -r -x 176 -y 24 t0 >/dev/null
bart scale 0.5 t0 t >/dev/null
bart phantom -s 8 -k -t t k0 >/dev/null
bart noise -s 1 -n 4000 k0 k >/dev/null
bart phantom -S 8 -x $N maps0 >/dev/null
bart normalize 8 maps0 maps >/dev/null
bart phantom -x $N ph >/dev/null
bart rss 8 maps0 rss >/dev/null

# measure A B...: "psnr_A nrmse_A_vs_B scale_A_to_B" for image files (.cfl stems, BART's
# orientation: kray writes its .cfl images so) against the truth ph * rss, after a complex
# least-squares scale; PSNR with the truth's peak as the range.
measure() {
    "$PY" - "$@" <<'PYEOF'
import numpy as np, sys
def rd(n):
    d = [int(x) for x in open(n + '.hdr').read().split('\n')[1].split()]
    return np.fromfile(n + '.cfl', dtype=np.complex64).reshape(d[::-1]).squeeze().astype(np.complex128)
truth = rd('ph') * abs(rd('rss'))
a = rd(sys.argv[1])
s = np.vdot(a, truth) / np.vdot(a, a)
mse = np.mean((abs(s * a) - abs(truth)) ** 2)
out = ["%.3f" % (10 * np.log10(abs(truth).max() ** 2 / mse))]
for b in sys.argv[2:]:
    b = rd(b)
    f = np.vdot(a, b) / np.vdot(a, a)
    out += ["%.5f" % (np.linalg.norm(f * a - b) / np.linalg.norm(b)), "%.6g" % abs(f)]
print(" ".join(out))
PYEOF
}

# cg_best: the best PSNR of kray cgsense over iteration counts (noisy data: CG's error falls,
# then rises); prints "psnr iterations".
cg_best() {
    local best=-1 bi=0 i p
    for i in 6 10 14 17 20 24 30; do
        "$KRAY" cgsense -q --maps maps.cfl -i $i --tol 0 t.cfl k.cfl cg$i.cfl 2>/dev/null
        p=$(measure cg$i)
        if awk -v a="$p" -v b="$best" 'BEGIN { exit !(a > b) }'; then best=$p bi=$i; fi
    done
    echo "$best $bi"
}
