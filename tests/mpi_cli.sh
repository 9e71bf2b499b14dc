# kray across MPI processes on the CPU (docs/scaling.md): test_dist (the library's divided
# plans, every process against its own undivided run) and the command line under
# `mpirun --oversubscribe -n 2` and `-n 3` against one process: project, sirt, cgls,
# backproject, ctreg, nufft and sim bit for bit, fdk (slabs from their detector rows) to float
# rounding; a non-finite value in one process's rows stops every process with that process's
# sentence and no output file; a kray whose plugin cannot be found says so. Skipped without
# mpirun or without the plugin (a build without MPI).
source "$KRAY_SRC/tests/cli_common.bash"
command -v mpirun >/dev/null || { echo "skipped: no mpirun (Debian: openmpi-bin)"; exit 77; }
[ -f "$KRAY_BUILD/libkray_mpi.so" ] || { echo "skipped: kray was built without MPI"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# loopback only, no warnings about missing fabrics
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
# Open MPI's libraries keep memory to the end: LeakSanitizer (the ASan build of make test)
# would report them; kray's own leaks are caught by the tests without MPI.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export KRAY_PLUGIN_DIR="$KRAY_BUILD" # the test programs sit one folder below the plug-in
MPI="mpirun --oversubscribe --bind-to none -x ASAN_OPTIONS -x UBSAN_OPTIONS -x KRAY_PLUGIN_DIR"

for n in 2 3; do
    if $MPI -n $n "$KRAY_BUILD/tests/test_dist" >"$T/dist$n" 2>&1; then
        ok "test_dist on $n processes"
    else
        fail "test_dist on $n processes: $(tail -n 20 "$T/dist$n")"
    fi
done

cd "$T"
"$PY" - <<'EOF'
import numpy as np
rng = np.random.default_rng(4)
np.save("proj.npy", rng.random((36, 30, 40), dtype=np.float32))   # [view, v, u]
ks = rng.standard_normal((5, 24, 48)) + 1j * rng.standard_normal((5, 24, 48))
np.save("ks.npy", ks.astype(np.complex64))                           # 5 coils
open("g.json", "w").write('{"type": "cone", "det_count": 40, "det_rows": 30, '
    '"image": {"size": [32, 32, 32], "voxel_mm": 0.8}, '
    '"angles_deg": {"start": 0, "stop": 360, "count": 36}, '
    '"sod_mm": 150, "sdd_mm": 300, "det_spacing_mm": 1}')
EOF
GEO=(--backend cpu --sod 150 --sdd 300 --size 32 --voxel 0.8)
"$KRAY" traj -x 48 -y 24 t.cfl
for run in 1 2 3; do
    if [ $run = 1 ]; then pre=(); else pre=($MPI -n $run); fi
    d=r$run
    mkdir -p $d
    "${pre[@]}" "$KRAY" fdk -q "${GEO[@]}" proj.npy $d/fdk.npy
    "${pre[@]}" "$KRAY" sirt -q "${GEO[@]}" -i 3 --devices 0,1 proj.npy $d/sirt.npy
    "${pre[@]}" "$KRAY" nufft -q --backend cpu -a t.cfl ks.npy $d/img.npy
    "${pre[@]}" "$KRAY" sim -q --backend cpu --size 32 $d/k.cfl
    [ $run = 3 ] && continue # the other tools divide as these do: two processes suffice
    "${pre[@]}" "$KRAY" project -q "${GEO[@]}" --det 40x30 --angles 0:360:36 r1/fdk.npy $d/p.npy
    "${pre[@]}" "$KRAY" cgls -q "${GEO[@]}" -i 3 proj.npy $d/cgls.npy
    "${pre[@]}" "$KRAY" backproject -q "${GEO[@]}" proj.npy $d/bp.npy
    "${pre[@]}" "$KRAY" ctreg -q --backend cpu -g g.json --reg tv:0.01 --nonneg -i 3 proj.npy \
        $d/tv.npy
done
for run in 2 3; do
    for f in sirt img p cgls bp tv; do
        [ $run = 3 ] && [ $f = p ] && break
        if cmp -s r1/$f.npy r$run/$f.npy; then ok "$f on $run processes = one process"
        else fail "$f on $run processes differs from one process"; fi
    done
    cmp -s r1/k.cfl r$run/k.cfl && ok "sim on $run processes" || fail "sim on $run processes differs"
    if "$PY" -c "
import numpy as np, sys
a, b = np.load('r1/fdk.npy'), np.load('r$run/fdk.npy')
e = abs(a - b).max() / abs(a).max()
print(e); sys.exit(0 if e < 2e-5 else 1)" >"$T/e" 2>&1; then ok "fdk on $run processes ($(cat "$T/e"))"
    else fail "fdk on $run processes: $(cat "$T/e")"; fi
done

# one process's rows hold a NaN: every process stops with its sentence, nothing is written
"$PY" -c "
import numpy as np
p = np.load('proj.npy'); p[20, 25, 7] = np.nan; np.save('bad.npy', p)"
rc=0
$MPI -n 3 "$KRAY" fdk "${GEO[@]}" bad.npy bad_out.npy >"$T/out" 2>"$T/err" || rc=$?
[ $rc -ne 0 ] && ok "a NaN in one process's rows fails the run (exit $rc)" || fail "NaN run exited 0"
grep -q "^kray fdk: .*NaN.*(rank [12])$" "$T/err" && ok "the failing rank's sentence is printed" ||
    fail "no sentence naming the rank: $(cat "$T/err")"
[ "$(grep -c '^kray fdk:' "$T/err")" -eq 1 ] && ok "one sentence" || fail "several: $(cat "$T/err")"
[ ! -e bad_out.npy ] && ! ls bad_out.npy.tmp.* >/dev/null 2>&1 && ok "no output file" ||
    fail "an output file was left"

# no plug-in where the launcher started several processes (a copy of kray in a folder of its
# own, no KRAY_PLUGIN_DIR): one sentence, exit 1
mkdir -p "$T/alone"
cp "$KRAY" "$T/alone/kray"
rc=0
env -u KRAY_PLUGIN_DIR mpirun --oversubscribe --bind-to none -n 2 "$T/alone/kray" fdk "${GEO[@]}" proj.npy x.npy >"$T/out" \
    2>"$T/err" || rc=$?
[ $rc -ne 0 ] && grep -q "no usable MPI plugin" "$T/err" && ok "a missing plug-in is named" ||
    fail "missing plug-in: rc $rc, $(cat "$T/err")"
finish
