#!/usr/bin/env bash
# kray lsrecon: radial k-space of the Shepp-Logan raster (NUFFT forward, f64) reconstructed by CG
# with the three normal operators (they agree; CG beats the density-compensated adjoint in
# NRMSE), residual history file, warm start, non-convergence (warning, exit 0), bad input
# (exit 1) and usage (exit 2); kray bench lsq --small as a smoke test.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"

expect_rc 0 phantom "$KRAY" phantom --size 24 --out-dtype c128 "$T/img.npy"
expect_rc 0 traj "$KRAY" traj -x 24 -y 36 -q "$T/t.cfl"
expect_rc 0 nufft "$KRAY" nufft --forward --precision f64 --eps 1e-10 "$T/t.cfl" "$T/img.npy" "$T/k.npy"
expect_rc 0 dcf "$KRAY" dcf "$T/t.cfl" "$T/w.cfl"

for m in toeplitz nufft drft; do
    expect_rc 0 lsrecon "$KRAY" lsrecon --precision f64 --size 24x24 --normal $m --lambda 170 --iters 60 --tol 1e-7 --json "$T/t.cfl" "$T/k.npy" "$T/x_$m.cfl"
    [ "$(json_field "$T/out" converged)" = "true" ] || fail "$m: not converged: $(cat "$T/out")"
done
expect_rc 0 metrics "$KRAY" metrics --json "$T/x_toeplitz.cfl" "$T/x_drft.cfl"
v=$(json_field "$T/out" nrmse)
num_le "$v" 1e-5 || fail "toeplitz vs drft reconstruction NRMSE $v > 1e-5"
expect_rc 0 metrics "$KRAY" metrics --json "$T/x_nufft.cfl" "$T/x_drft.cfl"
v=$(json_field "$T/out" nrmse)
num_le "$v" 1e-5 || fail "nufft vs drft reconstruction NRMSE $v > 1e-5"

# residual history as .npy; -v: one line per iteration as it happens, then the summary, on
# stderr (stdout stays empty: success is silent)
expect_rc 0 lsrecon "$KRAY" lsrecon -v --size 24x24 --iters 8 --tol 0 --history-out "$T/h.npy" "$T/t.cfl" "$T/k.npy" "$T/x8.cfl"
grep -q "8 iterations" "$T/err" || fail "iteration count missing: $(cat "$T/err")"
[ "$(grep -c 'iteration [0-9]*: relative residual' "$T/err")" -eq 9 ] ||
    fail "-v should print 9 iteration lines: $(cat "$T/err")"
[ -s "$T/out" ] && fail "lsrecon wrote to stdout without --json: $(cat "$T/out")"
grep -q "warning: CG did not reach" "$T/err" || fail "no non-convergence warning: $(cat "$T/err")"
[ -s "$T/h.npy" ] || fail "no history file"
# warm start from a converged solution: converges at once
expect_rc 0 lsrecon "$KRAY" lsrecon --precision f64 --size 24x24 --lambda 170 --iters 50 --tol 1e-6 --init "$T/x_drft.cfl" --json "$T/t.cfl" "$T/k.npy" "$T/xw.cfl"
it=$(json_field "$T/out" iterations)
[ "$it" -le 1 ] || fail "warm start from the solution needed $it iterations"
# with density compensation (a preconditioned-like weighting): still runs
expect_rc 0 lsrecon "$KRAY" lsrecon --size 24x24 --dcf "$T/w.cfl" --iters 5 --quiet "$T/t.cfl" "$T/k.npy" "$T/xd.cfl"

# bad input: exit 1 with one sentence
expect_rc 2 lsrecon "$KRAY" lsrecon --size 24x24 --lambda -1 "$T/t.cfl" "$T/k.npy" "$T/x.cfl"
grep -q "must be >= 0" "$T/err" || fail "lambda message: $(cat "$T/err")"
expect_rc 1 lsrecon "$KRAY" lsrecon --size 24x24 "$T/t.cfl" "$T/img.npy" "$T/x.cfl"
expect_rc 1 lsrecon "$KRAY" lsrecon --size 12x12 "$T/t.cfl" "$T/k.npy" "$T/x.cfl"
expect_rc 1 lsrecon "$KRAY" lsrecon --size 24x24 --init "$T/k.npy" "$T/t.cfl" "$T/k.npy" "$T/x.cfl"
expect_rc 2 lsrecon "$KRAY" lsrecon --size 24x24 --fieldmap "$T/img.npy" "$T/t.cfl" "$T/k.npy" "$T/x.cfl"
expect_rc 1 lsrecon "$KRAY" lsrecon --size 24x24 "$T/nope.cfl" "$T/k.npy" "$T/x.cfl"
if [ -x "$PY" ] && "$PY" -c "import numpy" 2>/dev/null; then
    "$PY" -c "
import numpy as np
t = np.zeros((10, 3)); t[:, 0] = np.linspace(-4, 4, 10); t[3, 1] = np.nan
np.save('$T/tnan.npy', t)
np.save('$T/k10.npy', np.ones(10, dtype=np.complex64))"
    expect_rc 1 lsrecon "$KRAY" lsrecon --size 12x12 "$T/tnan.npy" "$T/k10.npy" "$T/x.cfl"
    grep -q "non-finite" "$T/err" || fail "NaN trajectory message: $(cat "$T/err")"
else
    echo "skip: numpy (for the NaN trajectory case) not available"
fi
# usage: exit 2
expect_rc 2 lsrecon "$KRAY" lsrecon --size 24x24 "$T/k.npy" "$T/x.cfl"
expect_rc 2 lsrecon "$KRAY" lsrecon "$T/t.cfl" "$T/k.npy" "$T/x.cfl"
expect_rc 2 lsrecon "$KRAY" lsrecon --size 24x24 --normal bogus "$T/t.cfl" "$T/k.npy" "$T/x.cfl"

# benchmark smoke
expect_rc 0 bench "$KRAY" bench lsq --small --reps 1 --backend cpu --json
[ "$(grep -c '"bench": "lsq"' "$T/out")" -eq 6 ] || fail "bench lsq --small: $(cat "$T/out")"

finish
