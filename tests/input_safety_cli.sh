#!/usr/bin/env bash
# Input safety through the command line: the inputs in tests/data/fuzz/ (each the smallest form
# of a file that once made kray allocate gigabytes, cast out of range, hang or exit 0 with
# meaningless output) must give one sentence and exit 1 within a small memory budget; files
# that are not regular files are refused; non-finite input is refused unless
# --allow-nonfinite; and a write ended by SIGTERM, SIGINT or SIGXFSZ leaves no file behind.
source "$(dirname "$0")/cli_common.bash"
D="$KRAY_SRC/tests/data/fuzz"
cd "$T"

# limited: run with at most 1 GiB of address space (a reader that allocates what a header
# claims fails instead of succeeding slowly). The sanitizers reserve terabytes of address
# space, so the limit applies only to uninstrumented builds.
sanitized=0
case "$(ldd "$KRAY" 2>/dev/null)" in *libasan* | *libubsan*) sanitized=1 ;; esac
limited() {
    if [ "$sanitized" = 1 ]; then
        "$@"
    else
        (ulimit -v 1048576 && "$@")
    fi
}

# 1. .nii.gz: a 55-byte file whose header promises 4 GiB is refused before allocating.
expect_rc 1 info limited "$KRAY" info "$D/nii_gz_huge_dims.nii.gz"
grep -q "nii_gz_huge_dims.nii.gz: header promises 1073741824 samples at vox_offset 352, more than 55 bytes of gzip data can hold" "$T/err" ||
    fail ".nii.gz bound: $(cat "$T/err")"

# 2. Pulseq: an id of 1e19 is refused as such (it was cast to INT64_MIN).
expect_rc 1 sim limited "$KRAY" sim --seq-file "$D/seq_grad_id_1e19.seq" k.cfl
grep -q "block 1 refers to gradient event 1e+19, not a whole number in 1..1e8" "$T/err" ||
    fail "Pulseq id: $(cat "$T/err")"

# 3. Pulseq: an unused run-length shape of 2^31 samples in a 191-byte file.
expect_rc 1 sim limited "$KRAY" sim --seq-file "$D/seq_rle_shape_2g.seq" k.cfl
grep -q "shape 1 decompresses to 2147483648 samples, more than kray accepts from a file of this size" "$T/err" ||
    fail "Pulseq shape bound: $(cat "$T/err")"

# 4. Rendering a range wider than DBL_MAX: -1e308, 0, 1e308 become black, mid grey, white.
expect_rc 0 convert "$KRAY" convert "$D/render_wide_range.npy" w.pgm
[ "$(tail -c 3 w.pgm | od -An -tu1 | tr -s ' ')" = " 0 128 255" ] ||
    fail "wide range rendered as $(tail -c 3 w.pgm | od -An -tu1)"
expect_rc 0 convert "$KRAY" convert --bits 16 --window=-1e308:1e308 "$D/render_wide_range.npy" w16.pgm
[ "$(tail -c 6 w16.pgm | od -An -tu1 | tr -s ' ')" = " 0 0 128 0 255 255" ] ||
    fail "wide window rendered as $(tail -c 6 w16.pgm | od -An -tu1)"

# 5. Non-finite input: refused by default with the first sample named, read with the switch.
expect_rc 1 fbp "$KRAY" fbp "$D/fbp_nan_sinogram.npy" x.npy
grep -q "fbp_nan_sinogram.npy holds 1 NaN and 0 infinite values (the first at sample 53, index \[5, 3\]); non-finite input is refused (--allow-nonfinite reads it as it is)" "$T/err" ||
    fail "NaN sinogram: $(cat "$T/err")"
expect_rc 0 fbp "$KRAY" fbp --allow-nonfinite "$D/fbp_nan_sinogram.npy" x.npy
expect_rc 0 convert "$KRAY" convert "$D/render_wide_range.npy" w.npy
[ -f w.npy ] || fail "convert of finite data wrote nothing"

# 6. Geometry magnitudes and the memory a geometry implies.
expect_rc 1 fbp "$KRAY" fbp --allow-nonfinite --geom "$D/geom_sod_1e300.json" "$D/fbp_nan_sinogram.npy" x.npy
grep -q "sod_mm (source-origin distance) is 1e+300 (must be in 1e-6..1e6 mm)" "$T/err" ||
    fail "sod 1e300: $(cat "$T/err")"
expect_rc 1 fbp "$KRAY" fbp --allow-nonfinite --geom "$D/geom_offset_1e308.json" "$D/fbp_nan_sinogram.npy" x.npy
grep -q "image offset along x is 1e+308 mm (must be finite, at most 1e6 mm in magnitude)" "$T/err" ||
    fail "offset 1e308: $(cat "$T/err")"
expect_rc 1 fbp limited "$KRAY" fbp --allow-nonfinite --geom "$D/geom_huge_image.json" "$D/fbp_nan_sinogram.npy" x.npy
grep -q "the geometry needs 4398.0 GB for its 1048576x1048576x1 image and 0.0 GB for its 16x1x12 projections (float32), more than the [0-9.]* GB of memory of this machine" "$T/err" ||
    fail "geometry memory: $(cat "$T/err")"

# 7. Not a regular file: a FIFO (nothing ever written to it) and a link to /dev/zero.
mkfifo fifo.nii.gz fifo.seq fifo.npy
ln -s /dev/zero zero.nii.gz
ln -s /dev/zero zero.seq
for f in fifo.nii.gz zero.nii.gz fifo.npy; do
    timeout 20 "$KRAY" info "$f" >out 2>err && rc=0 || rc=$?
    [ "$rc" -eq 1 ] && grep -q "$f: not a regular file" err || fail "info $f: rc $rc, $(cat err)"
done
for f in fifo.seq zero.seq; do
    timeout 20 "$KRAY" sim --seq-file "$f" k.cfl >out 2>err && rc=0 || rc=$?
    [ "$rc" -eq 1 ] && grep -q "$f: not a regular file" err || fail "sim --seq-file $f: rc $rc, $(cat err)"
done

# 8. ISMRMRD (when kray has it). Each file is a small kray-written file with one field changed,
# found by fuzzing; through libismrmrd's readers each made libismrmrd or HDF5 hang, allocate
# gigabytes or read or write out of bounds. kray reads the file itself and bounds every length.
rc=0
"$KRAY" recon "$D/ismrmrd_heap_free_size0.h5" ism.npy 2>ism.err || rc=$?
if [ "$rc" -ne 0 ] && grep -q "built without ISMRMRD" ism.err; then
    echo "skipped: the ISMRMRD inputs ($(cat ism.err))"
else
    # a global heap collection whose free-space object has size 0 (HDF5 1.10 loops for ever)
    expect_rc 0 recon limited timeout 20 "$KRAY" recon "$D/ismrmrd_heap_free_size0.h5" ism.npy
    # refused FILE SENTENCE [recon options]: exit 1 with SENTENCE, in time and memory
    refused() {
        local f=$1 sentence=$2
        shift 2
        expect_rc 1 recon limited timeout 20 "$KRAY" recon "$@" "$D/$f" ism_bad.npy
        grep -qF "$sentence" "$T/err" || fail "$f: $(cat "$T/err")"
    }
    # acquisition 1's stored length says 587202592 floats (HDF5 allocated and zeroed 2.3 GB)
    refused ismrmrd_vlen_len_huge.h5 \
        "acquisition 1 holds 587202592 values; its header says 8 samples of 2 channels (32 values)"
    # acquisition 0's header says 2048 samples; its data hold 8 (libismrmrd copied 32 KiB from
    # a 128-byte buffer)
    refused ismrmrd_header_samples_long.h5 \
        "acquisition 0 holds 32 values; its header says 2048 samples of 2 channels (8192 values)"
    # the chunk record of acquisition 1 claims 16 MiB (libismrmrd went on after the failed
    # read and copied from a stale pointer: SEGV)
    refused ismrmrd_chunk_size_huge.h5 \
        "dataset 'dataset/data' says it stores 16779096 bytes, more than the file's 12464"
    # a 20000 x 20000 encoded matrix over 96 samples (kray asked for 25.6 GB for it)
    refused ismrmrd_matrix_huge.h5 \
        "the encoded matrix 20000 x 20000 of 2 channels is more than 64 times the 96 samples the file holds"
    # a member of the acquisitions' compound type 2 MiB into its 376 bytes (HDF5's conversion
    # moved bytes outside its buffer)
    refused ismrmrd_member_offset_2m.h5 \
        "the element type of dataset 'dataset/data' is inconsistent (members or bit fields outside its 376 bytes"
    # an image header of 1 x 3 pixels over data of 4 x 3 (HDF5 wrote past libismrmrd's buffer)
    refused ismrmrd_image_header_short.h5 \
        "image 'image' 0 is 1 x 3 x 1 of 2 channels in its header, its data dataset does not hold that" \
        --extract-image image
    [ -e ism_bad.npy ] && fail "a refused ISMRMRD input left ism_bad.npy"
    mkfifo fifo.h5
    timeout 20 "$KRAY" recon fifo.h5 ism_bad.npy >out 2>err && rc=0 || rc=$?
    [ "$rc" -eq 1 ] && grep -q "fifo.h5: not a regular file" err || fail "recon fifo.h5: rc $rc, $(cat err)"
fi

# 9. Writes ended by a signal leave no temporary file (and no output).
leftovers() { find . -maxdepth 1 -name "$1*" | sort | tr '\n' ' '; }
# SIGXFSZ: the file size limit (64 KiB) is hit in the middle of a 1 MiB write.
rc=0
(ulimit -f 64 && exec "$KRAY" phantom --size 512 big.npy) 2>/dev/null || rc=$?
[ "$rc" -eq $((128 + 25)) ] || fail "ulimit -f: exit status $rc, expected death by SIGXFSZ (153)"
[ -z "$(leftovers big.npy)" ] && ok "SIGXFSZ left nothing" || fail "SIGXFSZ left $(leftovers big.npy)"
# SIGTERM and SIGINT while a gzip-compressed volume is being written (job control keeps SIGINT
# at its default action for the background job).
set -m
for sig in TERM INT; do
    out="long_$sig.nii.gz"
    "$KRAY" phantom --3d --size 1024x1024x16 "$out" 2>/dev/null &
    pid=$!
    for _ in $(seq 1 3000); do
        [ -n "$(leftovers "$out.tmp.")" ] && break
        kill -0 $pid 2>/dev/null || break
        sleep 0.01
    done
    if [ -z "$(leftovers "$out.tmp.")" ]; then
        fail "SIG$sig: the temporary file of $out never appeared"
        wait $pid || true
        continue
    fi
    kill -"$sig" $pid
    rc=0
    wait $pid || rc=$?
    want=$((128 + $(kill -l "$sig")))
    [ "$rc" -eq "$want" ] || fail "SIG$sig: exit status $rc, expected $want"
    [ -z "$(leftovers "$out")" ] && ok "SIG$sig during a write left nothing" ||
        fail "SIG$sig left $(leftovers "$out")"
done
set +m

[ "$NFAIL" -eq 0 ] || exit 1
echo "all input-safety checks passed"
