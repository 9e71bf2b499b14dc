#!/usr/bin/env bash
# kray ctreg from the command line: a 64^2 phantom from 30 views, TV by FISTA and PDHG (with
# x >= 0) beat FBP against the phantom, OS-SART and ASD-POCS run, --json, cpu-serial == cpu
# (2 threads) bit for bit, and bad usage (exit 2) or bad input (exit 1).
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"

"$KRAY" phantom --kind sinogram --size 64 --views 30 s.npy
"$KRAY" phantom --size 64 --supersample 4 truth.npy
expect_rc 0 fbp "$KRAY" fbp --geom-out g.json s.npy fbp.npy
"$KRAY" metrics --json fbp.npy truth.npy >mf.json
e_fbp=$(json_field mf.json nrmse)
for algo in fista pdhg; do
    expect_rc 0 ctreg "$KRAY" ctreg --geom g.json --reg tv:0.5 --nonneg --method $algo \
        --iters 40 --json s.npy r_$algo.npy
    grep -q '"objective": ' "$T/out" || fail "ctreg --json: no objective in $(cat "$T/out")"
    "$KRAY" metrics --json r_$algo.npy truth.npy >m.json
    e=$(json_field m.json nrmse)
    num_le "$e" "$(awk -v a="$e_fbp" 'BEGIN { print a * 0.8 }')" ||
        fail "ctreg $algo NRMSE $e is not 20 % below FBP's $e_fbp"
    "$KRAY" info --json r_$algo.npy >i.json
    num_le 0 "$(json_field i.json min)" || fail "--nonneg left negative values ($algo)"
    ok "ctreg $algo: NRMSE $e (FBP $e_fbp)"
done
for algo in ossart asd-pocs; do
    expect_rc 0 ctreg "$KRAY" ctreg --geom g.json --method $algo --subsets 5 --iters 5 --nonneg \
        --json s.npy r.npy
    grep -q '"rel_residual": ' "$T/out" || fail "ctreg $algo --json: $(cat "$T/out")"
done
expect_rc 0 ctreg "$KRAY" ctreg --geom g.json --reg tv:0.5 --iters 5 --backend cpu-serial \
    s.npy rs.npy
expect_rc 0 ctreg "$KRAY" ctreg --geom g.json --reg tv:0.5 --iters 5 --backend cpu \
    --threads 2 s.npy rt.npy
cmp -s rs.npy rt.npy || fail "cpu-serial and cpu results differ"

# bad usage: exit 2; bad input: exit 1
expect_rc 2 ctreg "$KRAY" ctreg s.npy x.npy
expect_rc 2 ctreg "$KRAY" ctreg --geom g.json --reg l1:1 s.npy x.npy
expect_rc 2 ctreg "$KRAY" ctreg --geom g.json --reg tv:-1 s.npy x.npy
expect_rc 2 ctreg "$KRAY" ctreg --geom g.json --method sart s.npy x.npy
sed 's/"det_count": 64/"det_count": 70/' g.json >g70.json
expect_rc 1 ctreg "$KRAY" ctreg --geom g70.json s.npy x.npy
expect_rc 1 ctreg "$KRAY" ctreg --geom g.json --method ossart --subsets 31 s.npy x.npy
expect_rc 1 ctreg "$KRAY" ctreg --geom missing.json s.npy x.npy
expect_rc 1 ctreg "$KRAY" ctreg --geom g.json "$KRAY_SRC/tests/data/fuzz/fbp_nan_sinogram.npy" x.npy
grep -q "fbp_nan_sinogram.npy holds 1 NaN and 0 infinite values" "$T/err" ||
    fail "ctreg NaN refusal: $(cat "$T/err")"
[ ! -e x.npy ] || fail "a failed run left x.npy"
ok "ctreg bad input"
