#!/usr/bin/env bash
# Optional parts (cuFFT, libismrmrd with HDF5, the DCMTK plug-in) are loaded when a call needs
# them, not at start-up: the dynamic loader's own log (LD_DEBUG=libs) of `kray --version` and
# `kray info` names none of their libraries, and names them once a call uses them;
# `kray --version` says which are present; a copy of the program whose plug-in cannot be found
# fails a DICOM call with one sentence naming the plug-in (exit 1, nothing written) and runs
# every other call as before.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
cd "$T"
FEATURES=$("$KRAY" --version | head -n 1)
OPTIONAL='libcufft|libismrmrd|libhdf5|libdcmdata|libkray_dcmtk|libcurl'
# what the program links (read once: `ldd | grep -q` under pipefail fails when grep stops early)
LINKED=$(ldd "$KRAY")
# the CUDA sources need the C++ runtime (and so does the sanitizers' runtime); kray does not
case "$FEATURES" in *cuda*) ;; *) grep -q libasan <<<"$LINKED" || OPTIONAL="$OPTIONAL|libstdc" ;; esac

# what the dynamic loader maps for a call: the file names it reports
loaded() { LD_DEBUG=libs "$@" 2>&1 >/dev/null | sed -n 's/.*calling init: //p'; }

"$KRAY" phantom --size 64 p.npy
for call in "--version" "info p.npy"; do
    # shellcheck disable=SC2086
    libs=$(loaded "$KRAY" $call)
    [ -n "$libs" ] || fail "LD_DEBUG=libs gave nothing for kray $call"
    if echo "$libs" | grep -qE "$OPTIONAL"; then
        fail "kray $call loads an optional library: $(echo "$libs" | grep -E "$OPTIONAL" | tr '\n' ' ')"
    else
        ok "kray $call loads no optional library ($(echo "$libs" | wc -l) objects)"
    fi
done
! grep -qE "$OPTIONAL" <<<"$LINKED" && ok "ldd: no optional library linked" ||
    fail "ldd lists an optional library: $(grep -E "$OPTIONAL" <<<"$LINKED" | tr '\n' ' ')"

"$KRAY" --version >v.txt
case "$FEATURES" in *cufft*) grep -qE '^  cufft +(present|missing) ' v.txt || fail "no cufft line" ;; esac
case "$FEATURES" in *ismrmrd*) grep -qE '^  ismrmrd +(present|missing) ' v.txt || fail "no ismrmrd line" ;; esac
case "$FEATURES" in *dcmtk*) grep -qE '^  dcmtk +present .*libkray_dcmtk\.so$' v.txt ||
    fail "the plug-in beside kray is not reported present: $(cat v.txt)" ;; esac
expect_rc 2 - "$KRAY" --version --frobnicate

# ISMRMRD: the library is loaded by the call that reads or writes a file
case "$FEATURES" in *ismrmrd*)
    if grep -qE '^  ismrmrd +present' v.txt; then
        printf 'not an HDF5 file\n' >text.h5
        libs=$(loaded "$KRAY" recon text.h5 o.npy || true)
        echo "$libs" | grep -q libismrmrd && ok "kray recon text.h5 loads libismrmrd" ||
            fail "kray recon text.h5: libismrmrd not loaded: $libs"
        expect_rc 1 recon "$KRAY" recon text.h5 o.npy
        "$KRAY" --version --load | grep -qE '^  ismrmrd +loaded ' || fail "--load: ismrmrd not loaded"
    fi ;;
esac

case "$FEATURES" in *dcmtk*)
    "$KRAY" phantom --kind sinogram --size 64 --views 90 s.npy
    libs=$(loaded "$KRAY" fbp s.npy r.dcm)
    echo "$libs" | grep -q libkray_dcmtk && ok "kray fbp r.dcm loads the plug-in" ||
        fail "kray fbp r.dcm: plug-in not loaded: $libs"
    [ -s r.dcm ] || fail "r.dcm not written"
    # a copy of the program without its plug-in (and none where else it looks)
    mkdir alone && cp "$KRAY" alone/kray
    export KRAY_PLUGIN_DIR="$T/alone"
    if alone/kray --version | grep -qE '^  dcmtk +missing '; then
        ok "--version of a copy without the plug-in: dcmtk missing"
        expect_rc 1 fbp alone/kray fbp s.npy x.dcm
        grep -q "libkray_dcmtk.so" "$T/err" || fail "the sentence should name the plug-in: $(cat "$T/err")"
        [ ! -e x.dcm ] && ok "nothing written" || fail "x.dcm written"
        expect_rc 0 fbp alone/kray fbp s.npy x.npy
    else
        echo "part skipped: a plug-in is installed where every copy finds it"
    fi
    unset KRAY_PLUGIN_DIR ;;
esac
finish
