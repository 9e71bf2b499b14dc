#!/usr/bin/env bash
# kray CLI bad input: exit 1 with one sentence on stderr, no crash, no output file left behind.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"

"$KRAY" phantom --size 32 good.npy
"$KRAY" phantom --size 16 small.npy

# Missing and malformed inputs.
expect_rc 1 info "$KRAY" info missing.npy
grep -q "missing.npy" "$T/err" || fail "the message should name the file: $(cat "$T/err")"
head -c 70 good.npy >trunc.npy
expect_rc 1 info "$KRAY" info trunc.npy
printf 'this is not a NIfTI file at all, just some text that is long enough..........' >bad.nii
for i in 1 2 3 4 5; do cat bad.nii bad.nii >bad2.nii && mv bad2.nii bad.nii; done
expect_rc 1 info "$KRAY" info bad.nii
printf 'NRRD0004\ntype: float\ndimension: 2\nsizes: 100000 100000\nencoding: raw\n\n' >big.nrrd
expect_rc 1 info "$KRAY" info big.nrrd
printf '# 2 x 2 complex\n2 2\n' >h.hdr
head -c 8 /dev/zero >h.cfl
expect_rc 1 info "$KRAY" info h.cfl
head -c 100 /dev/zero >short.raw
expect_rc 1 info "$KRAY" info --dims 16x16 --dtype f32 short.raw
: >empty.npy
expect_rc 1 info "$KRAY" info empty.npy

# No output file after a failed conversion, and no temporary file either.
for out in o.npy o.nii o.png o.cfl o.nrrd o.mha o.pgm o.raw; do
    expect_rc 1 convert "$KRAY" convert trunc.npy "$out"
    [ -e "$out" ] && fail "convert left $out behind after a bad input"
done
expect_rc 1 convert "$KRAY" convert missing.npy o.npy
[ -e o.npy ] && fail "convert created o.npy from a missing input"
# An existing output is not clobbered by a failed conversion.
cp good.npy keep.npy
expect_rc 1 convert "$KRAY" convert trunc.npy keep.npy
cmp -s good.npy keep.npy || fail "a failed convert modified an existing output"
# Unwritable destination.
expect_rc 1 phantom "$KRAY" phantom --size 16 "$T/no/such/dir/p.npy"
expect_rc 1 convert "$KRAY" convert good.npy "$T/no/such/dir/p.nii"

# Metrics: mismatched sizes, bad files.
expect_rc 1 metrics "$KRAY" metrics good.npy small.npy
grep -q "32x32" "$T/err" && grep -q "16x16" "$T/err" ||
    fail "size mismatch message: $(cat "$T/err")"
expect_rc 1 metrics "$KRAY" metrics good.npy missing.npy
expect_rc 1 metrics "$KRAY" metrics trunc.npy good.npy

# info keeps going over several files but reports the failure.
expect_rc 1 info "$KRAY" info good.npy missing.npy
grep -q "^file *good.npy" "$T/out" || fail "info should still describe good.npy"

# A directory in place of a file, a file in place of the demo's directory.
mkdir adir.npy
expect_rc 1 info "$KRAY" info adir.npy
: >afile
expect_rc 1 demo "$KRAY" demo --quick --out afile --only system

# GPU requested where there is none: bad input (the machine), one sentence.
if ! "$KRAY" --version | grep -q cuda; then
    expect_rc 1 metrics "$KRAY" metrics --backend cuda good.npy good.npy
    grep -qi "cuda" "$T/err" || fail "the message should mention CUDA: $(cat "$T/err")"
fi
# Device lists: --device with --devices, and a malformed list, are bad usage (exit 2); on the
# CPU a list divides the work into parts and the result is the undivided one.
"$KRAY" phantom -k sinogram -n 32 --views 20 sino.npy
expect_rc 2 fbp "$KRAY" fbp --backend cpu --device 0 --devices 0,1 sino.npy dl.npy
grep -q "alternatives" "$T/err" || fail "--device with --devices: $(cat "$T/err")"
expect_rc 2 fbp "$KRAY" fbp --backend cpu --devices 0,,1 sino.npy dl.npy
[ -e dl.npy ] && fail "an output file after bad usage"
"$KRAY" fbp --backend cpu sino.npy one.npy
"$KRAY" fbp --backend cpu --devices 0,1 sino.npy two.npy
cmp -s one.npy two.npy && ok "fbp with --devices 0,1 on the CPU: the same bytes" ||
    fail "fbp with --devices 0,1 differs"
ls ./*.tmp.* >/dev/null 2>&1 && fail "temporary files left behind: $(ls ./*.tmp.*)"
finish
