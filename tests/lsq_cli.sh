#!/usr/bin/env bash
# kray lsrecon: radial k-space of the Shepp-Logan raster (NUFFT forward, f64) reconstructed by CG
# with the three normal operators (they agree; CG beats the density-compensated adjoint in
# NRMSE), residual history file, warm start, non-convergence (warning, exit 0), bad input
# (exit 1) and usage (exit 2); kray bench lsq --small as a smoke test.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"

expect_rc 0 phantom "$KRAY" phantom --size 24 --dtype c128 "$T/img.npy"
expect_rc 0 traj "$KRAY" traj -x 24 -y 36 -q "$T/t.cfl"
expect_rc 0 nufft "$KRAY" nufft --forward --precision f64 --eps 1e-10 "$T/t.cfl" "$T/img.npy" "$T/k.npy"
expect_rc 0 dcf "$KRAY" dcf "$T/t.cfl" "$T/w.cfl"

for m in toeplitz nufft drft; do
    expect_rc 0 lsrecon "$KRAY" lsrecon --precision f64 --traj "$T/t.cfl" --data "$T/k.npy" \
        --dims 24x24 --normal $m --lambda 170 --iter 60 --tol 1e-7 --json "$T/x_$m.cfl"
    [ "$(json_field "$T/out" converged)" = "true" ] || fail "$m: not converged: $(cat "$T/out")"
done
expect_rc 0 metrics "$KRAY" metrics --json "$T/x_toeplitz.cfl" "$T/x_drft.cfl"
v=$(json_field "$T/out" nrmse)
num_le "$v" 1e-5 || fail "toeplitz vs drft reconstruction NRMSE $v > 1e-5"
expect_rc 0 metrics "$KRAY" metrics --json "$T/x_nufft.cfl" "$T/x_drft.cfl"
v=$(json_field "$T/out" nrmse)
num_le "$v" 1e-5 || fail "nufft vs drft reconstruction NRMSE $v > 1e-5"

# residual history as .npy, human output lists it
expect_rc 0 lsrecon "$KRAY" lsrecon --traj "$T/t.cfl" --data "$T/k.npy" --dims 24x24 \
    --iter 8 --tol 0 --history "$T/h.npy" "$T/x8.cfl"
grep -q "8 iterations" "$T/out" || fail "iteration count missing: $(cat "$T/out")"
[ "$(grep -c '^ ' "$T/out")" -eq 9 ] || fail "history should have 9 lines: $(cat "$T/out")"
grep -q "warning: CG did not reach" "$T/err" || fail "no non-convergence warning: $(cat "$T/err")"
[ -s "$T/h.npy" ] || fail "no history file"
# warm start from a converged solution: converges at once
expect_rc 0 lsrecon "$KRAY" lsrecon --precision f64 --traj "$T/t.cfl" --data "$T/k.npy" \
    --dims 24x24 --lambda 170 --iter 50 --tol 1e-6 --warm "$T/x_drft.cfl" --json "$T/xw.cfl"
it=$(json_field "$T/out" iterations)
[ "$it" -le 1 ] || fail "warm start from the solution needed $it iterations"
# with density compensation (a preconditioned-like weighting): still runs
expect_rc 0 lsrecon "$KRAY" lsrecon --traj "$T/t.cfl" --data "$T/k.npy" --dims 24x24 --dcf "$T/w.cfl" \
    --iter 5 --quiet "$T/xd.cfl"

# bad input: exit 1 with one sentence
expect_rc 1 lsrecon "$KRAY" lsrecon --traj "$T/t.cfl" --data "$T/k.npy" --dims 24x24 --lambda -1 "$T/x.cfl"
grep -q "must be >= 0" "$T/err" || fail "lambda message: $(cat "$T/err")"
expect_rc 1 lsrecon "$KRAY" lsrecon --traj "$T/t.cfl" --data "$T/img.npy" --dims 24x24 "$T/x.cfl"
expect_rc 1 lsrecon "$KRAY" lsrecon --traj "$T/t.cfl" --data "$T/k.npy" --dims 12x12 "$T/x.cfl"
expect_rc 1 lsrecon "$KRAY" lsrecon --traj "$T/t.cfl" --data "$T/k.npy" --dims 24x24 --warm "$T/k.npy" "$T/x.cfl"
expect_rc 1 lsrecon "$KRAY" lsrecon --traj "$T/t.cfl" --data "$T/k.npy" --dims 24x24 --fieldmap "$T/img.npy" "$T/x.cfl"
expect_rc 1 lsrecon "$KRAY" lsrecon --traj "$T/nope.cfl" --data "$T/k.npy" --dims 24x24 "$T/x.cfl"
if [ -x "$PY" ] && "$PY" -c "import numpy" 2>/dev/null; then
    "$PY" -c "
import numpy as np
t = np.zeros((10, 3)); t[:, 0] = np.linspace(-4, 4, 10); t[3, 1] = np.nan
np.save('$T/tnan.npy', t)
np.save('$T/k10.npy', np.ones(10, dtype=np.complex64))"
    expect_rc 1 lsrecon "$KRAY" lsrecon --traj "$T/tnan.npy" --data "$T/k10.npy" --dims 12x12 "$T/x.cfl"
    grep -q "non-finite" "$T/err" || fail "NaN trajectory message: $(cat "$T/err")"
else
    echo "skip: numpy (for the NaN trajectory case) not available"
fi
# usage: exit 2
expect_rc 2 lsrecon "$KRAY" lsrecon --data "$T/k.npy" --dims 24x24 "$T/x.cfl"
expect_rc 2 lsrecon "$KRAY" lsrecon --traj "$T/t.cfl" --data "$T/k.npy" "$T/x.cfl"
expect_rc 2 lsrecon "$KRAY" lsrecon --traj "$T/t.cfl" --data "$T/k.npy" --dims 24x24 --normal bogus "$T/x.cfl"

# benchmark smoke
expect_rc 0 bench "$KRAY" bench lsq --small --reps 1 --backend cpu --json
[ "$(grep -c '"bench": "lsq"' "$T/out")" -eq 6 ] || fail "bench lsq --small: $(cat "$T/out")"

finish
