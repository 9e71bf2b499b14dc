#!/usr/bin/env bash
# kray fve and kray goertzel on the command line: a tiny simulated FVE set (sidecar written),
# voxel spectra + PNG, --full by NUFFT vs DrFT (NRMSE), Goertzel vs kray's FFT path, and bad
# inputs (exit 1) / usage (exit 2).
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"

SIM=(--simulate --small --size 32 --slices 1 --encodes 8 --frames 2 --coils 2 --interleaves 4)
expect_rc 0 fve "$KRAY" fve "${SIM[@]}" "$T/t.cfl" "$T/d.cfl"
[ -f "$T/d.fve.json" ] && ok "sidecar written" || fail "no sidecar $T/d.fve.json"
expect_rc 0 fve "$KRAY" fve --at 4.8,-8 --at 0,-5 --plot-out "$T/s.png" --json "$T/t.cfl" "$T/d.cfl" "$T/sp.npy"
is_png "$T/s.png" && ok "spectrogram png" || fail "spectrogram is not a PNG"
v=$(json_field "$T/out" bin_cm_s)
[ "$v" = "25" ] && ok "bin width 25 cm/s" || fail "bin width $v, expected 200/8 = 25"
# the same voxels by gridding + Goertzel: spectra agree with the DrFT's
expect_rc 0 fve "$KRAY" fve --at 4.8,-8 --at 0,-5 --method goertzel --eps 1e-6 --json "$T/t.cfl" "$T/d.cfl" "$T/sg.npy"
grep -q '"method": "goertzel"' "$T/out" || fail "goertzel method not reported: $(cat "$T/out")"
expect_rc 0 metrics "$KRAY" metrics --json "$T/sg.npy" "$T/sp.npy"
v=$(json_field "$T/out" nrmse)
num_le "$v" 1e-5 && ok "voxel spectra goertzel vs drft nrmse $v" || fail "goertzel vs drft nrmse $v"
expect_rc 2 fve "$KRAY" fve --at 0,0 --method nufft "$T/t.cfl" "$T/d.cfl" "$T/x.npy"
expect_rc 2 fve "$KRAY" fve --full --method goertzel "$T/t.cfl" "$T/d.cfl" "$T/x.cfl"
expect_rc 0 fve "$KRAY" fve --full --method nufft --eps 1e-5 "$T/t.cfl" "$T/d.cfl" "$T/a.cfl"
expect_rc 0 fve "$KRAY" fve --full --method drft "$T/t.cfl" "$T/d.cfl" "$T/b.cfl"
expect_rc 0 metrics "$KRAY" metrics --json "$T/a.cfl" "$T/b.cfl"
v=$(json_field "$T/out" nrmse)
num_le "$v" 1e-4 && ok "full NUFFT vs DrFT nrmse $v" || fail "full NUFFT vs DrFT nrmse $v"
# Goertzel full image of Cartesian k-space vs the points path
expect_rc 0 goertzel "$KRAY" goertzel -N "$T/a.cfl" "$T/g.cfl"
expect_rc 0 goertzel "$KRAY" goertzel --at 0,0,1.5,-2 "$T/a.cfl" "$T/gp.npy"

# benchmark smoke tests (reduced sizes, CPU)
expect_rc 0 bench "$KRAY" bench goertzel --small --reps 1 --json --backend cpu
v=$(grep goertzel-full "$T/out" | head -1 | sed 's/.*"rel_err": \([^,}]*\).*/\1/')
num_le "$v" 1e-6 && ok "bench goertzel error $v" || fail "bench goertzel error $v"
expect_rc 0 bench "$KRAY" bench fve --small --reps 1 --voxel-reps 1 --json --backend cpu
[ "$(grep -c '"case": "fve-' "$T/out")" = 4 ] && ok "bench fve: 4 cases" || fail "bench fve output: $(cat "$T/out")"

# bad inputs: exit 1 with one sentence
expect_rc 1 fve "$KRAY" fve --at 16,0 "$T/t.cfl" "$T/d.cfl" "$T/x.npy"     # x in [-16, 15]
grep -q "outside" "$T/err" || fail "outside message: $(cat "$T/err")"
expect_rc 1 fve "$KRAY" fve --at 0,0,3 "$T/t.cfl" "$T/d.cfl" "$T/x.npy"    # one slice
expect_rc 0 fve "$KRAY" fve "${SIM[@]}" --interleaves 2 "$T/t2.cfl" "$T/d2.cfl"
expect_rc 1 fve "$KRAY" fve --at 0,0 "$T/t2.cfl" "$T/d.cfl" "$T/x.npy"     # sample counts
grep -q "samples" "$T/err" || fail "mismatch message: $(cat "$T/err")"
expect_rc 1 fve "$KRAY" fve --full "$T/t2.cfl" "$T/d.cfl" "$T/x.cfl"
cp "$T/d.cfl" "$T/n.cfl" && cp "$T/d.hdr" "$T/n.hdr"
if [ -x "$PY" ] && "$PY" -c "import numpy" 2>/dev/null; then
    "$PY" -c "
import numpy as np
a = np.memmap('$T/n.cfl', dtype=np.complex64, mode='r+'); a[100] = np.nan; a.flush()"
    expect_rc 1 fve "$KRAY" fve --at 0,0 --size 32 --vfov 200 "$T/t.cfl" "$T/n.cfl" "$T/x.npy"
    grep -q "n.cfl holds 1 NaN and 0 infinite values (the first at sample 100, real part" "$T/err" ||
        fail "NaN message: $(cat "$T/err")"
    expect_rc 1 fve "$KRAY" fve --allow-nonfinite --at 0,0 --size 32 --vfov 200 "$T/t.cfl" "$T/n.cfl" "$T/x.npy"
    grep -q "not finite" "$T/err" || fail "NaN message of the tool: $(cat "$T/err")"
    expect_rc 1 fve "$KRAY" fve --full --size 32 "$T/t.cfl" "$T/n.cfl" "$T/x.cfl"
fi
cp "$T/d.cfl" "$T/p.cfl" && cp "$T/d.hdr" "$T/p.hdr"                            # no sidecar
expect_rc 1 fve "$KRAY" fve --at 0,0 --size 32 "$T/t.cfl" "$T/p.cfl" "$T/x.npy"
grep -q "velocity axis needs the encoding parameters" "$T/err" || fail "no-params message: $(cat "$T/err")"
expect_rc 0 fve "$KRAY" fve --at 0,0 --size 32 --vfov 200 "$T/t.cfl" "$T/p.cfl" "$T/x.npy"
echo '{"n": 32}' > "$T/bad.json"
expect_rc 1 fve "$KRAY" fve --at 0,0 --params "$T/bad.json" "$T/t.cfl" "$T/d.cfl" "$T/x.npy"
expect_rc 1 goertzel "$KRAY" goertzel --at 40,0 "$T/a.cfl" "$T/x.npy"
# usage: exit 2
expect_rc 2 fve "$KRAY" fve "$T/t.cfl" "$T/d.cfl" "$T/x.npy"                   # no mode
expect_rc 2 fve "$KRAY" fve --at 1,2,3,4 "$T/t.cfl" "$T/d.cfl" "$T/x.npy"
expect_rc 2 fve "$KRAY" fve --at 0,0 --full "$T/t.cfl" "$T/d.cfl" "$T/x.npy"
expect_rc 2 fve "$KRAY" fve --simulate "$T/t.cfl" "$T/d.cfl" "$T/x.npy"
expect_rc 2 goertzel "$KRAY" goertzel --at 1,2,3 "$T/a.cfl" "$T/x.npy"
finish
