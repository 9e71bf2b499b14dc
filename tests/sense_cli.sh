#!/usr/bin/env bash
# kray recon / kray sense: chains on the analytic multi-coil phantom (SENSE against the fully
# sampled optimal combination, g-factor >= 1, lattice / general / CG-SENSE agree, ESPIRiT maps,
# deterministic noise, matrix sizes not divisible by R) and bad input (exit 1, one sentence).
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"

nrmse() { # nrmse X REF: kray metrics' NRMSE (complex compared by magnitude)
    "$KRAY" metrics --json "$1" "$2" >m.json
    json_field m.json nrmse
}
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }

"$KRAY" phantom --kind kspace --size 96 --coils 8 k.cfl
"$KRAY" phantom --kind coils --size 96 --coils 8 maps.cfl

expect_rc 0 recon "$KRAY" recon k.cfl rss.npy
expect_rc 0 recon "$KRAY" recon --combine optimal --maps maps.cfl k.cfl opt.cfl
expect_rc 0 recon "$KRAY" recon --accel 2 --acs 16 --kspace-out ku.cfl --combine coils k.cfl alias.cfl

# Direct SENSE (lattice of R = 2) against full sampling with the same maps.
expect_rc 0 sense "$KRAY" sense --maps maps.cfl --gfactor-out g.npy --json ku.cfl s.cfl
grep -q '"method": "lattice"' "$T/out" || fail "R = 2 lattice expected: $(cat "$T/out")"
# The analytic k-space is not exactly the DFT of maps x image on the grid (continuous object),
# and these smooth maps give g ~ 2 at R = 2: a few % of model error remain.
e=$(nrmse s.cfl opt.cfl)
le "$e" 0.05 && ok "SENSE R=2 vs full sampling: NRMSE $e" || fail "SENSE R=2 NRMSE $e > 0.05"
if [ -x "$PY" ] && "$PY" -c 'import numpy' 2>/dev/null; then
    "$PY" - <<'PYEOF' || fail "g-factor map out of range"
import numpy as np
g = np.load("g.npy")
inside = g[g > 0]
print("g-factor: min %.4f mean %.4f max %.4f" % (inside.min(), inside.mean(), inside.max()))
assert inside.min() >= 0.9999 and inside.max() < 5
PYEOF
fi
# Every acquired line (exact general solve) and CG-SENSE on the same lines agree.
expect_rc 0 sense "$KRAY" sense --maps maps.cfl --all-lines --json ku.cfl s2.cfl
grep -q '"method": "general"' "$T/out" || fail "--all-lines should take the general path"
e=$(nrmse s2.cfl opt.cfl)
le "$e" 0.05 && ok "SENSE R=2 + ACS vs full: NRMSE $e" || fail "SENSE + ACS NRMSE $e"
expect_rc 0 sense "$KRAY" sense --maps maps.cfl --cg --iters 300 --tol 1e-7 ku.cfl s3.cfl
e=$(nrmse s3.cfl s2.cfl)
le "$e" 1e-3 && ok "CG-SENSE vs direct: NRMSE $e" || fail "CG-SENSE vs direct NRMSE $e"
# ESPIRiT maps from the 16 ACS lines.
expect_rc 0 sense "$KRAY" sense --maps-out me.cfl ku.cfl s4.cfl
expect_rc 0 recon "$KRAY" recon --combine optimal --maps me.cfl k.cfl ref4.cfl
e=$(nrmse s4.cfl ref4.cfl)
le "$e" 0.06 && ok "SENSE with ESPIRiT maps: NRMSE $e" || fail "ESPIRiT SENSE NRMSE $e"
# Noise is deterministic (seeded, thread-independent).
"$KRAY" recon --accel 4 --acs 16 --noise 5 --seed 3 --kspace-out n1.cfl --threads 1 k.cfl x1.npy
"$KRAY" recon --accel 4 --acs 16 --noise 5 --seed 3 --kspace-out n2.cfl --threads 2 k.cfl x2.npy
cmp -s n1.cfl n2.cfl || fail "noisy k-space differs between runs"
"$KRAY" recon --accel 4 --acs 16 --noise 5 --seed 4 --kspace-out n3.cfl k.cfl x3.npy
cmp -s n1.cfl n3.cfl && fail "another seed gave the same noise"
expect_rc 0 sense "$KRAY" sense --maps maps.cfl --lambda 1e-3 n1.cfl s5.cfl
# 91 lines at R = 2 (91 % 2 != 0): exact general path. (The phantom's maps have three Fourier
# terms per axis, so they cannot unfold R >= 3.)
"$KRAY" phantom --kind kspace --size 91 --coils 8 k91.cfl
"$KRAY" phantom --kind coils --size 91 --coils 8 maps91.cfl
"$KRAY" recon --combine optimal --maps maps91.cfl k91.cfl opt91.cfl
"$KRAY" recon --accel 2 --kspace-out ku91.cfl k91.cfl a91.npy
expect_rc 0 sense "$KRAY" sense --maps maps91.cfl --json ku91.cfl s91.cfl
grep -q '"method": "general"' "$T/out" || fail "R = 2 on 91 lines: general path expected"
e=$(nrmse s91.cfl opt91.cfl)
le "$e" 0.05 && ok "SENSE R=2 on 91 lines: NRMSE $e" || fail "R=2 / 91 lines NRMSE $e"
# Fully sampled data: SENSE at R = 1 is the optimal combination.
expect_rc 0 sense "$KRAY" sense --maps maps.cfl k.cfl r1.cfl
e=$(nrmse r1.cfl opt.cfl)
le "$e" 1e-5 && ok "SENSE R=1 = optimal combination: NRMSE $e" || fail "R=1 NRMSE $e"

# Bad input: exit 1 with one sentence.
"$KRAY" phantom --kind coils --size 64 --coils 8 small.cfl
"$KRAY" phantom --kind coils --size 96 --coils 4 four.cfl
expect_rc 1 sense "$KRAY" sense --maps small.cfl ku.cfl o.cfl
grep -q "64x64x8" "$T/err" && grep -q "96x96x8" "$T/err" || fail "size message: $(cat "$T/err")"
expect_rc 1 sense "$KRAY" sense --maps four.cfl ku.cfl o.cfl
expect_rc 1 sense "$KRAY" sense --maps maps.cfl --accel 16 ku.cfl o.cfl
grep -q "exceeds the number of coils" "$T/err" || fail "R > coils message: $(cat "$T/err")"
expect_rc 2 sense "$KRAY" sense --maps maps.cfl --accel -2 ku.cfl o.cfl
expect_rc 1 sense "$KRAY" sense --maps maps.cfl --lambda -1 ku.cfl o.cfl
expect_rc 1 sense "$KRAY" sense --maps maps.cfl rss.npy o.cfl
grep -q "complex" "$T/err" || fail "dtype message: $(cat "$T/err")"
expect_rc 1 sense "$KRAY" sense --maps maps.cfl missing.cfl o.cfl
expect_rc 1 sense "$KRAY" sense a91.npy o.cfl
expect_rc 2 recon "$KRAY" recon --accel 0 k.cfl o.npy
expect_rc 2 recon "$KRAY" recon --accel 2 --first-line 5 k.cfl o.npy
expect_rc 1 recon "$KRAY" recon --noise 1 --psi maps.cfl k.cfl o.npy
expect_rc 1 recon "$KRAY" recon --combine optimal --maps small.cfl k.cfl o.npy
expect_rc 2 sense "$KRAY" sense --cg --gfactor-out g.npy ku.cfl o.cfl
expect_rc 2 recon "$KRAY" recon --extract-image cpp k.cfl o.npy
[ -e o.cfl ] && fail "a failed run left o.cfl behind"
[ "$NFAIL" -eq 0 ]
