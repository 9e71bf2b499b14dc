#!/usr/bin/env bash
# kray mrreg from the command line on kray's own analytic data (the comparison with BART is
# tests/mrreg_bart_tv.sh and mrreg_bart_wavelet.sh):
# - Cartesian 64^2, 8 coils, a third of the lines plus the centre, noise: TV (ADMM) and
#   l1-wavelet (FISTA) beat the zero-filled image and CG-SENSE's least squares (kray sense
#   --cg) against the phantom; an explicit --mask equal to the zeros gives the same bits; maps
#   estimated by ESPIRiT work; PDHG with two terms runs;
# - non-Cartesian 64^2 radial, 8 coils, 20 spokes: l1-wavelet beats kray cgsense; the Toeplitz
#   and NUFFT normal operators agree; maps estimated as cgsense does work;
# - two Cartesian frames in BART's layout with LLR; --json; cpu-serial == cpu (2 threads);
#   bad usage (2) and bad input (1).
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
if ! [ -x "$PY" ] || ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skipped: needs /usr/bin/python3 with numpy"
    exit 77
fi
n=64
"$KRAY" phantom --kind kspace -n $n --coils 8 kfull.npy
"$KRAY" phantom --kind coils -n $n --coils 8 maps.npy
"$KRAY" phantom --grid fft -n $n -S 2 truth.npy
# undersampling (and noise), and the two-frame set in BART's layout
"$PY" - <<'PYEOF'
import numpy as np
k = np.load('kfull.npy')                       # (coils, ny, nx)
rng = np.random.default_rng(3)
ny = k.shape[1]
frames = []
for f in range(2):
    keep = rng.random(ny) < 0.3
    keep[ny // 2 - 8:ny // 2 + 8] = True
    noise = (rng.standard_normal(k.shape) + 1j * rng.standard_normal(k.shape)) * 0.01 * abs(k).max()
    kf = np.where(keep[None, :, None], k + noise, 0).astype(np.complex64)
    frames.append(kf)
np.save('k.npy', frames[0])
np.save('mask.npy', np.repeat((frames[0][0] != 0)[None], 1, 0)[0].astype(np.float32))
np.save('k2.npy', np.stack(frames)[:, :, None])  # (frames, coils, 1, ny, nx) = [x, y, 1, C, T]
PYEOF
# NRMSE against the phantom after a complex least-squares scale; `nrmse FILE rss`: magnitudes
# against the phantom times the maps' root-sum-of-squares (what normalised estimated maps give)
nrmse() {
    "$PY" - "$1" "${2:-}" <<'PYEOF'
import numpy as np, sys
x = np.load(sys.argv[1]); t = np.load('truth.npy').astype(np.complex128)
x = x.reshape(-1, *t.shape)[0] if x.ndim > t.ndim else x
if sys.argv[2] == 'rss':
    t = abs(t) * np.sqrt((abs(np.load('maps.npy')) ** 2).sum(0))
    x = abs(x)
s = np.vdot(x, t) / np.vdot(x, x)
print("%.5f" % (np.linalg.norm(s * x - t) / np.linalg.norm(t)))
PYEOF
}
"$PY" -c "
import numpy as np
k = np.load('k.npy'); m = np.load('maps.npy')
img = np.fft.fftshift(np.fft.ifft2(np.fft.ifftshift(k, axes=(1, 2)), axes=(1, 2)), axes=(1, 2))
np.save('zf.npy', (np.conj(m) * img).sum(0).astype(np.complex64))"
e_zf=$(nrmse zf.npy)
expect_rc 0 sense "$KRAY" sense --cg --iters 8 --maps maps.npy k.npy cg.npy
e_cg=$(nrmse cg.npy)
expect_rc 0 mrreg "$KRAY" mrreg --maps maps.npy --reg tv:0.02 --rho 0.1 -i 60 --json k.npy tv.npy
for key in scale iterations objective solve_seconds; do
    grep -q "\"$key\": " "$T/out" || fail "--json lacks $key: $(cat "$T/out")"
done
grep -q '"method": "admm"' "$T/out" || fail "tv should run ADMM: $(cat "$T/out")"
e_tv=$(nrmse tv.npy)
expect_rc 0 mrreg "$KRAY" mrreg --maps maps.npy --reg l1-wavelet:0.01 -i 60 --json k.npy wl.npy
grep -q '"method": "fista"' "$T/out" || fail "l1-wavelet should run FISTA: $(cat "$T/out")"
e_wl=$(nrmse wl.npy)
echo "Cartesian NRMSE: zero-filled $e_zf, CG-SENSE $e_cg, TV $e_tv, l1-wavelet $e_wl"
for e in $e_tv $e_wl; do
    num_le "$e" "$(awk -v a="$e_cg" 'BEGIN { print a * 0.8 }')" || fail "NRMSE $e not 20 % below CG-SENSE's $e_cg"
    num_le "$e" "$(awk -v a="$e_zf" 'BEGIN { print a * 0.7 }')" || fail "NRMSE $e not 30 % below zero-filled $e_zf"
done
expect_rc 0 mrreg "$KRAY" mrreg --maps maps.npy --mask mask.npy --reg tv:0.02 --rho 0.1 -i 60 k.npy tvm.npy
cmp -s tv.npy tvm.npy || fail "--mask equal to the zeros changed the result"
expect_rc 0 mrreg "$KRAY" mrreg --reg tv:0.02 --maps-out me.npy -i 30 k.npy tve.npy
e=$(nrmse tve.npy rss)
e_zfr=$(nrmse zf.npy rss)
num_le "$e" "$(awk -v a="$e_zfr" 'BEGIN { print a * 0.8 }')" || fail "ESPIRiT maps: NRMSE $e vs zero-filled $e_zfr"
[ -s me.npy ] || fail "--maps-out wrote nothing"
expect_rc 0 mrreg "$KRAY" mrreg --maps maps.npy --reg l1-wavelet:0.005 --reg tv:0.01 -m pdhg -i 40 k.npy pd.npy
e=$(nrmse pd.npy)
num_le "$e" "$e_cg" || fail "pdhg with two terms: NRMSE $e vs CG-SENSE $e_cg"
# LLR over two frames (BART's [x, y, 1, coils, frames])
expect_rc 0 mrreg "$KRAY" mrreg --maps maps.npy --reg llr:0.005:8 -i 40 --json k2.npy llr.npy
grep -q '"frames": 2' "$T/out" || fail "two frames expected: $(cat "$T/out")"
e=$(nrmse llr.npy)
num_le "$e" "$(awk -v a="$e_zf" 'BEGIN { print a * 0.7 }')" || fail "LLR frame 0: NRMSE $e vs zero-filled $e_zf"
ok "Cartesian: TV $e_tv, l1-wavelet $e_wl, LLR $e (CG-SENSE $e_cg, zero-filled $e_zf)"
# threads do not change the result
expect_rc 0 mrreg "$KRAY" mrreg --maps maps.npy --reg l1-wavelet:0.01 -i 10 --backend cpu-serial k.npy a.npy
expect_rc 0 mrreg "$KRAY" mrreg --maps maps.npy --reg l1-wavelet:0.01 -i 10 --backend cpu --threads 2 k.npy b.npy
cmp -s a.npy b.npy || fail "cpu-serial and cpu results differ"

# non-Cartesian: radial 20 spokes, coil images by kray nufft
"$KRAY" traj --kind radial -x 64 -y 20 -o 2 t.npy
"$PY" -c "
import numpy as np
np.save('ci.npy', (np.load('maps.npy') * np.load('truth.npy')[None]).astype(np.complex64))"
expect_rc 0 nufft "$KRAY" nufft --forward -n ${n}x${n} t.npy ci.npy kr0.npy
"$PY" -c "
import numpy as np
k = np.load('kr0.npy'); rng = np.random.default_rng(5)
k = k + 0.02 * abs(k).max() * (rng.standard_normal(k.shape) + 1j * rng.standard_normal(k.shape))
np.save('kr.npy', k.astype(np.complex64))"
expect_rc 0 cgsense "$KRAY" cgsense --maps maps.npy -i 10 t.npy kr.npy cgr.npy
e_cgr=$(nrmse cgr.npy)
expect_rc 0 mrreg "$KRAY" mrreg --maps maps.npy --reg l1-wavelet:0.005 -i 60 --json t.npy kr.npy wr.npy
grep -q '"norm": 64' "$T/out" || fail "the NUFFT's normalisation should be sqrt(64^2): $(cat "$T/out")"
e_wr=$(nrmse wr.npy)
expect_rc 0 mrreg "$KRAY" mrreg --maps maps.npy --reg l1-wavelet:0.005 -i 60 --normal nufft t.npy kr.npy wn.npy
e_wn=$(nrmse wn.npy)
"$PY" -c "
import numpy as np, sys
a, b = np.load('wr.npy'), np.load('wn.npy')
e = np.linalg.norm(a - b) / np.linalg.norm(a)
print('toeplitz vs nufft normal: %.2e' % e); sys.exit(1 if e > 2e-3 else 0)" || fail "the Toeplitz and NUFFT normals disagree"
expect_rc 0 mrreg "$KRAY" mrreg -n ${n}x${n} --dcf radial --reg tv:0.005 --rho 0.1 -i 40 t.npy kr.npy tr.npy
expect_rc 0 cgsense "$KRAY" cgsense -n ${n}x${n} --dcf radial -i 10 t.npy kr.npy cge.npy
e_tr=$(nrmse tr.npy rss)
e_cge=$(nrmse cge.npy rss)
echo "radial NRMSE: CG-SENSE $e_cgr, l1-wavelet $e_wr (NUFFT normal $e_wn); estimated maps and weights: TV $e_tr, CG-SENSE $e_cge"
num_le "$e_wr" "$(awk -v a="$e_cgr" 'BEGIN { print a * 0.85 }')" || fail "radial l1-wavelet $e_wr vs CG-SENSE $e_cgr"
num_le "$e_tr" "$(awk -v a="$e_cge" 'BEGIN { print a * 0.85 }')" || fail "radial TV (estimated maps) $e_tr vs CG-SENSE $e_cge"
expect_rc 0 mrreg "$KRAY" mrreg --maps maps.npy --reg l1-wavelet:0.005 -i 60 --init wr.npy t.npy kr.npy wi.npy
e=$(nrmse wi.npy)
num_le "$e" "$(awk -v a="$e_wr" 'BEGIN { print a * 1.05 }')" || fail "--init from the result: NRMSE $e vs $e_wr"

# bad usage (2), bad input (1)
expect_rc 2 mrreg "$KRAY" mrreg --maps maps.npy k.npy x.npy
expect_rc 2 mrreg "$KRAY" mrreg --maps maps.npy --reg wavelet:1 k.npy x.npy
expect_rc 2 mrreg "$KRAY" mrreg --maps maps.npy --reg tv:1 -m fista k.npy x.npy
expect_rc 2 mrreg "$KRAY" mrreg --maps maps.npy --reg tv:1 --dcf radial k.npy x.npy
expect_rc 2 mrreg "$KRAY" mrreg --maps maps.npy --reg tv:1 --mask mask.npy t.npy kr.npy x.npy
expect_rc 2 mrreg "$KRAY" mrreg --reg tv:1 t.npy kr.npy x.npy
expect_rc 1 mrreg "$KRAY" mrreg --maps truth.npy --reg tv:1 k.npy x.npy
expect_rc 1 mrreg "$KRAY" mrreg --maps maps.npy --reg tv:1 --mask truth.npy k2.npy x.npy
expect_rc 1 mrreg "$KRAY" mrreg --maps maps.npy --reg tv:1 t.npy k.npy x.npy
expect_rc 1 mrreg "$KRAY" mrreg --maps maps.npy --reg tv:1 --init k.npy t.npy kr.npy x.npy
[ ! -e x.npy ] || fail "a failed run left x.npy"
finish
