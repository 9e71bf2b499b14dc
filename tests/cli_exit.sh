#!/usr/bin/env bash
# Exit codes of every tool: a bad option value is bad usage (2), bad input data is 1; one line
# on stderr starting "kray <tool>: " without a doubled tool prefix; control bytes from a file
# are escaped in the message; nothing written after a failure.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"
"$KRAY" phantom -n 16 img.npy
"$KRAY" phantom --kind sinogram -n 16 --views 12 sino.npy
"$KRAY" phantom --kind kspace -n 16 --coils 2 ksp.npy
"$KRAY" traj -x 16 -y 8 t.npy
"$KRAY" nufft --forward -n 16x16 t.npy img.npy k.npy
"$KRAY" phantom --kind mr --grid fft -n 8 mr.npy
head -c 70 img.npy >trunc.npy
cone=(--sod 100 --sdd 200 --det 8x8 --angles 0:360:4 -n 8)
"$KRAY" project "${cone[@]}" --phantom modified proj.npy
"$KRAY" fbp --geom-out g.json sino.npy rec.npy

# expect TOOL CODE ARGS...: exit CODE, no doubled prefix "kray TOOL: TOOL:".
expect() {
    local tool=$1 code=$2
    shift 2
    expect_rc "$code" "$tool" "$KRAY" "$tool" "$@"
    grep -q "^kray $tool: $tool: " "$T/err" && fail "doubled prefix: $(cat "$T/err")"
    return 0
}
# --- every tool: a bad option value (2), bad data (1)
expect phantom 2 --kind mr --b0 -1 o.npy
expect phantom 1 -n 8 no/such/dir/o.npy
expect convert 2 --window 1:0 img.npy o.png
expect convert 2 --index x img.npy o.npy
expect convert 1 trunc.npy o.npy
expect info 2 --offset -1 img.npy
expect info 1 trunc.npy
expect metrics 2 --range -1 img.npy img.npy
expect metrics 1 img.npy trunc.npy
expect demo 2 --only nosuchsection --out d
expect fbp 2 --angles 0:180 sino.npy o.npy
expect fbp 2 --pitch -1 sino.npy o.npy
expect fbp 2 --type fan2d-flat --sod 10 --sdd 5 sino.npy o.npy
expect fbp 2 --filter-window hanning sino.npy o.npy
expect fbp 2 --skimage --type fan2d-flat --sod 10 --sdd 20 sino.npy o.npy
expect fbp 1 trunc.npy o.npy
expect fdk 2 --sod 100 --sdd 50 --det 8x8 --angles 0:360:4 proj.npy o.npy
expect fdk 1 --sod 100 --sdd 200 trunc.npy o.npy
expect project 2 "${cone[@]}" --rays 0 img.npy o.npy
expect project 1 "${cone[@]}" trunc.npy o.npy
expect backproject 2 "${cone[@]}" --gpu-mem 12Q proj.npy o.npy
expect backproject 1 "${cone[@]}" trunc.npy o.npy
expect sirt 2 "${cone[@]}" --relax 3 proj.npy o.npy
expect sirt 1 "${cone[@]}" trunc.npy o.npy
expect cgls 2 "${cone[@]}" --lambda -1 proj.npy o.npy
expect cgls 1 "${cone[@]}" trunc.npy o.npy
expect ctreg 2 --geom g.json --reg tv:-1 sino.npy o.npy
expect ctreg 2 --geom g.json --method sart sino.npy o.npy
expect ctreg 1 --geom g.json trunc.npy o.npy
expect traj 2 --kind spiral --res 100 o.npy
expect traj 1 no/such/dir/o.npy
expect dcf 2 --radius -1 t.npy o.npy
expect dcf 1 trunc.npy o.npy
expect nufft 2 -n 16x16x16x16 t.npy k.npy o.npy
expect nufft 1 -n 16x16 t.npy trunc.npy o.npy
expect drft 2 -n 16x16x2x2 t.npy k.npy o.npy
expect drft 1 -n 16x16 trunc.npy k.npy o.npy
expect goertzel 2 --at 1,2,3 ksp.npy o.npy
expect goertzel 1 trunc.npy o.npy
expect recon 2 --accel 0 ksp.npy o.npy
expect recon 1 trunc.npy o.npy
expect sense 2 --accel 3 --first-line 9 ksp.npy o.npy
expect sense 1 trunc.npy o.npy
expect cgsense 2 -n 16x16x16x16 t.npy k.npy o.npy
expect cgsense 2 --maps img.npy -l -1 t.npy k.npy o.npy
expect cgsense 1 -n 16x16 t.npy trunc.npy o.npy
expect mrreg 2 -n 16x16 --reg tv:-1 t.npy k.npy o.npy
expect mrreg 2 -n 16x16 t.npy k.npy o.npy
expect mrreg 2 -n 16x16 --reg tv:1 --method fista t.npy k.npy o.npy
expect mrreg 1 -n 16x16 --reg tv:1 t.npy trunc.npy o.npy
expect mrreg 1 --reg tv:1 trunc.npy o.npy
expect lsrecon 2 -n 16x16 --lambda -1 t.npy k.npy o.npy
expect lsrecon 1 -n 16x16 t.npy trunc.npy o.npy
expect coils 2 --per-ring 0 o.npy
expect coils 1 -n 8 no/such/dir/o.npy
expect coilcombine 2 --coil-axis 99 img.npy o.npy
expect coilcombine 1 trunc.npy o.npy
expect sim 2 --decimate 3 o.npy
expect sim 1 --object trunc.npy o.npy
expect fve 2 --at 0,0 --vfov -1 t.npy k.npy o.npy
expect fve 1 --at 0,0 --size 16 --vfov 100 trunc.npy k.npy o.npy
expect studio 2 --port 70000
expect studio 2 --jobs 0
expect studio 1 --listen not-an-address
expect bench 2 nosuchbenchmark
expect_rc 2 "bench fbp2d" "$KRAY" bench fbp2d --reps 0
# old spellings: usage errors naming the new one (or, for aliases, a working run with a note)
expect nufft 2 --dims 16x16 t.npy k.npy o.npy
grep -q -- "--size" "$T/err" || fail "renamed --dims should name --size: $(cat "$T/err")"
expect_rc 0 dcf "$KRAY" dcf --method pipe-menon --iterations 2 t.npy w.npy
grep -q -- "--iters" "$T/err" || fail "alias --iterations should name --iters: $(cat "$T/err")"
ls o.* >/dev/null 2>&1 && fail "a failed run left $(ls o.*)"

# --- control bytes from a file are escaped: an .npy header key "\n\x1b[2J"
if [ -x "$PY" ]; then
    "$PY" - <<'PYEOF'
import struct
h = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), '\n\x1b[2J': 1, }"
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
open('evil.npy', 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) +
                             h.encode('latin1') + b'\0' * 8)
PYEOF
    for tool in info convert; do
        args=(evil.npy)
        [ $tool = convert ] && args=(evil.npy o.npy)
        expect_rc 1 $tool "$KRAY" $tool "${args[@]}"
        grep -qF "'\\x0a\\x1b[2J'" "$T/err" || fail "$tool: key not escaped: $(od -c "$T/err" | head)"
        LC_ALL=C grep -q $'\x1b' "$T/err" && fail "$tool: escape byte on stderr"
    done
    # an argument with control bytes is escaped too
    expect_rc 2 phantom "$KRAY" phantom --kind $'a\nb\x1b[2J' o.npy
    grep -qF 'a\x0ab\x1b[2J' "$T/err" || fail "argument not escaped: $(cat "$T/err")"
fi
finish
