#!/usr/bin/env bash
# kray traj / dcf / drft on the command line: trajectories identical to `bart traj`, the DrFT
# identical to `bart nufft -s` (BART's exact DFT) in both directions, Cartesian Voronoi weights
# of 1, the spiral design report, the benchmark hook, and bad inputs (exit 1) / usage (exit 2).
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"

# ---- without peers ----------------------------------------------------------------------------
expect_rc 0 traj "$KRAY" traj --kind cartesian --size 8x6 "$T/c.cfl"
expect_rc 0 dcf "$KRAY" dcf --boundary square "$T/c.cfl" "$T/cw.cfl"
"$KRAY" info --json "$T/cw.cfl" >"$T/info.json"
[ "$(json_field "$T/info.json" min)" = 1 ] && [ "$(json_field "$T/info.json" max)" = 1 ] ||
    fail "Cartesian Voronoi weights are not all 1: $(cat "$T/info.json")"

expect_rc 0 traj "$KRAY" traj --kind spiral --json "$T/sp.cfl"
grep -q '"matrix": 115' "$T/out" || fail "Dantas (2015)'s spiral (16 cm, 1.4 mm) should need a 115 matrix"
g=$(json_field "$T/out" gmax_used_mT_m)
num_le "$g" 40 || fail "spiral gradient $g mT/m exceeds 40"
expect_rc 0 dcf "$KRAY" dcf --method spiral "$T/sp.cfl" "$T/spw.npy"
expect_rc 0 drft "$KRAY" drft --bench --reps 1 --check 4 --size 16x16x16 --json random:64
e=$(json_field "$T/out" rel_err)
num_le "$e" 1e-5 || fail "bench: float DrFT error $e vs the float64 reference"

# bad inputs and usage
expect_rc 0 traj "$KRAY" traj --kind radial -x 64 -y 32 "$T/r.cfl"
expect_rc 1 drft "$KRAY" drft --size 8x8 "$T/r.cfl" "$T/r.cfl" "$T/x.cfl"       # k outside [-4, 4)
expect_rc 1 drft "$KRAY" drft --size 64x64 "$T/c.cfl" "$T/r.cfl" "$T/x.cfl"     # 48 vs 2048 samples
expect_rc 2 drft "$KRAY" drft "$T/r.cfl"
expect_rc 2 drft "$KRAY" drft --forward --adjoint "$T/r.cfl" "$T/r.cfl" "$T/x.cfl"
expect_rc 2 drft "$KRAY" drft "$T/r.cfl" "$T/r.cfl" "$T/x.cfl"                  # no --dims
expect_rc 2 traj "$KRAY" traj --kind radial --units pixel "$T/x.cfl"             # no --matrix
expect_rc 2 traj "$KRAY" traj --kind spiral --res 100 "$T/x.cfl"                 # res > fov/2
expect_rc 1 dcf "$KRAY" dcf "$T/missing.cfl" "$T/x.cfl"

# ---- against BART -------------------------------------------------------------------------------
if ! command -v bart >/dev/null 2>&1; then
    echo "bart not installed: BART comparisons skipped"
    finish
    exit 0
fi
for args in "-x 64 -y 32" "-x 64 -y 32 -c" "-x 40 -y 16 -D" "-x 32 -y 13 -G" "-x 32 -y 20 -o 2"; do
    bart traj -r $args "$T/bt" >/dev/null
    opts=$(echo "$args" | sed -e 's/-c/--dc/; s/-D/--full-circle/; s/-G/--golden/')
    "$KRAY" traj --kind radial $opts -q "$T/kt.cfl"
    v=$(bart nrmse "$T/bt" "$T/kt")
    num_le "$v" 1e-5 && ok "kray traj $opts == bart traj -r $args" ||
        fail "kray traj $opts vs bart traj -r $args: nrmse $v"
done
bart traj -r -x 64 -y 32 "$T/t" >/dev/null
bart ones 3 1 64 32 "$T/o" >/dev/null
bart noise -s 2 "$T/o" "$T/kd" >/dev/null
bart nufft -s -a -d 64:64:1 "$T/t" "$T/kd" "$T/bimg" >/dev/null
expect_rc 0 drft "$KRAY" drft --size 64x64 "$T/t.cfl" "$T/kd.cfl" "$T/kimg.cfl"
v=$(bart nrmse "$T/bimg" "$T/kimg")
num_le "$v" 1e-5 && ok "kray drft (adjoint) == bart nufft -s -a ($v)" || fail "adjoint vs bart: $v"
expect_rc 0 drft "$KRAY" drft --precision f64 --size 64x64 "$T/t.cfl" "$T/kd.cfl" "$T/kimg2.cfl"
v=$(bart nrmse "$T/bimg" "$T/kimg2")
num_le "$v" 1e-5 || fail "f64 adjoint vs bart: $v"
bart nufft -s -d 64:64:1 "$T/t" "$T/bimg" "$T/bk" >/dev/null
expect_rc 0 drft "$KRAY" drft --forward --bart "$T/t.cfl" "$T/bimg.cfl" "$T/kk.cfl"
v=$(bart nrmse "$T/bk" "$T/kk")
num_le "$v" 1e-5 && ok "kray drft --forward == bart nufft -s ($v)" || fail "forward vs bart: $v"
# BART's NUFFT is the DrFT scaled by 1/sqrt(64 * 64) (to its ~1e-2 accuracy)
bart nufft -a -d 64:64:1 "$T/t" "$T/kd" "$T/bn" >/dev/null
bart scale 64 "$T/bn" "$T/bn64" >/dev/null
v=$(bart nrmse "$T/bimg" "$T/bn64")
num_le "$v" 2e-2 && ok "bart nufft -a x 64 ~ DrFT ($v)" || fail "bart nufft scaling: $v"
finish
