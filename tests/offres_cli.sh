#!/usr/bin/env bash
# kray lsrecon --fieldmap/--times: spiral k-space of a 24^2 test image with a smooth +-80 Hz field
# map and a 10 ms readout, simulated by the exact direct sum in numpy; CG with the time-segmented
# operator beats CG without correction in NRMSE, and agrees with --exact; bad input (field map
# of the wrong size, NaN in it, times count != samples, --fieldmap without --times) exits 1.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"

if ! [ -x "$PY" ] || ! "$PY" -c "import numpy" 2>/dev/null; then
    echo "skip: numpy (Debian's /usr/bin/python3) not available"
    exit 77
fi
"$PY" - "$T" <<'PYEOF'
import sys
import numpy as np
d = sys.argv[1]
n = 24
y, x = np.mgrid[0:n, 0:n]
cx, cy = x - n // 2, y - n // 2
img = ((cx / 9.0) ** 2 + (cy / 10.0) ** 2 <= 1).astype(float)
img += 0.5 * ((abs(cx - 3) <= 2) & (abs(cy + 2) <= 4))
fmap = 80 * (0.6 * np.cos(2 * np.pi * cx / n) + 0.4 * np.sin(2 * np.pi * (cx + cy) / n))
M = 1600  # two interleaves of an Archimedean spiral to |k| = 11.9
s = np.arange(M // 2) / (M // 2 - 1)
r = 11.9 * np.sqrt(s)  # constant-angular-density approximation; fine for a test
th = 2 * np.pi * 6 * np.sqrt(s)
k = np.zeros((M, 3))
for i in range(2):
    k[i * M // 2:(i + 1) * M // 2, 0] = r * np.cos(th + np.pi * i)
    k[i * M // 2:(i + 1) * M // 2, 1] = r * np.sin(th + np.pi * i)
t = np.tile(0.002 + 0.010 * s, 2)
ph = (np.outer(k[:, 0], cx.ravel()) + np.outer(k[:, 1], cy.ravel())) / n + np.outer(t, fmap.ravel())
data = np.exp(-2j * np.pi * ph) @ img.ravel()
np.save(d + '/t.npy', k)
np.save(d + '/times.npy', t)
np.save(d + '/fmap.npy', fmap)
np.save(d + '/k.npy', data.astype(np.complex128))
np.save(d + '/truth.npy', img.astype(np.complex128))
np.save(d + '/fmap_bad.npy', fmap[:, :20])
bad = fmap.copy(); bad[3, 4] = np.nan
np.save(d + '/fmap_nan.npy', bad)
np.save(d + '/times_short.npy', t[:-1])
PYEOF

common=(--precision f64 --size 24x24 --lambda 0.1 --iters 25 --tol 1e-8)
inputs=("$T/t.npy" "$T/k.npy")
expect_rc 0 lsrecon "$KRAY" lsrecon "${common[@]}" --normal nufft "${inputs[@]}" "$T/x_none.npy"
expect_rc 0 lsrecon "$KRAY" lsrecon "${common[@]}" --fieldmap "$T/fmap.npy" --times "$T/times.npy" --json "${inputs[@]}" "$T/x_seg.npy"
seg=$(json_field "$T/out" segments)
[ "$seg" -ge 2 ] || fail "automatic segments $seg < 2: $(cat "$T/out")"
expect_rc 0 lsrecon "$KRAY" lsrecon "${common[@]}" --fieldmap "$T/fmap.npy" --times "$T/times.npy" --exact --quiet "${inputs[@]}" "$T/x_exact.npy"
expect_rc 0 lsrecon "$KRAY" lsrecon "${common[@]}" --fieldmap "$T/fmap.npy" --times "$T/times.npy" --segments 6 -v "${inputs[@]}" "$T/x_seg6.npy"
grep -q "6 segments" "$T/err" || fail "segments line: $(cat "$T/err")"

expect_rc 0 metrics "$KRAY" metrics --json "$T/x_none.npy" "$T/truth.npy"
e_none=$(json_field "$T/out" nrmse)
expect_rc 0 metrics "$KRAY" metrics --json "$T/x_seg.npy" "$T/truth.npy"
e_seg=$(json_field "$T/out" nrmse)
expect_rc 0 metrics "$KRAY" metrics --json "$T/x_seg.npy" "$T/x_exact.npy"
e_se=$(json_field "$T/out" nrmse)
echo "NRMSE vs truth: uncorrected $e_none, time-segmented $e_seg; segmented vs exact $e_se"
"$PY" -c "import sys; sys.exit(0 if $e_seg <= 0.5 * $e_none else 1)" ||
    fail "corrected NRMSE $e_seg not below half the uncorrected $e_none"
num_le "$e_se" 1e-4 || fail "segmented vs exact reconstruction NRMSE $e_se > 1e-4"

# bad input: exit 1 with one sentence
expect_rc 1 lsrecon "$KRAY" lsrecon "${common[@]}" --fieldmap "$T/fmap_bad.npy" --times "$T/times.npy" "${inputs[@]}" "$T/x.npy"
grep -q "field map has 480 values" "$T/err" || fail "bad-size message: $(cat "$T/err")"
expect_rc 1 lsrecon "$KRAY" lsrecon "${common[@]}" --fieldmap "$T/fmap_nan.npy" --times "$T/times.npy" "${inputs[@]}" "$T/x.npy"
grep -q "fmap_nan.npy holds 1 NaN and 0 infinite values (the first at sample 76, index \[4, 3\])" "$T/err" ||
    fail "NaN message: $(cat "$T/err")"
expect_rc 1 lsrecon "$KRAY" lsrecon --allow-nonfinite "${common[@]}" --fieldmap "$T/fmap_nan.npy" --times "$T/times.npy" "${inputs[@]}" "$T/x.npy"
grep -q "must be finite" "$T/err" || fail "NaN message of the library: $(cat "$T/err")"
expect_rc 1 lsrecon "$KRAY" lsrecon "${common[@]}" --fieldmap "$T/fmap.npy" --times "$T/times_short.npy" "${inputs[@]}" "$T/x.npy"
grep -q "1599 times for 1600 trajectory samples" "$T/err" || fail "times message: $(cat "$T/err")"
expect_rc 2 lsrecon "$KRAY" lsrecon "${common[@]}" --fieldmap "$T/fmap.npy" "${inputs[@]}" "$T/x.npy"
grep -q "must be given together" "$T/err" || fail "pairing message: $(cat "$T/err")"

finish
