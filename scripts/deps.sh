#!/usr/bin/env bash
# Install (as root) or name (otherwise) the Debian/Ubuntu packages kray needs.
#   deps.sh build   compiler, CMake, FFTW, libpng, zlib
#   deps.sh test    the above plus the peers the tests compare against (bart, scikit-image,
#                   nibabel, dicom3tools, pytest, PyTorch (CPU) and mypy for the Python package),
#                   clang with libFuzzer (libclang-rt-14-dev, Debian 12) and llvm (llvm-cov)
#                   for the fuzzing harnesses, kray studio's server library and browser test
#                   (libmicrohttpd-dev, chromium, chromium-driver, python3-selenium), and Open MPI
#                   (the MPI plugin and its tests); tests that need a missing one report
#                   "skipped" instead of failing
set -euo pipefail
what=${1:-build}
build_pkgs=(gcc g++ make cmake pkg-config libfftw3-dev libpng-dev zlib1g-dev libdcmtk-dev libismrmrd-dev)
test_pkgs=(bart python3 python3-numpy python3-scipy python3-skimage python3-nibabel python3-pil python3-pydicom python3-pytest python3-torch python3-mypy python3-venv dcmtk dicom3tools teem-apps ismrmrd-tools
           clang libclang-rt-14-dev llvm libmicrohttpd-dev chromium chromium-driver python3-selenium
           openmpi-bin libopenmpi-dev)
pkgs=("${build_pkgs[@]}")
[ "$what" = test ] && pkgs+=("${test_pkgs[@]}")

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "kray: not a Debian-like system; make sure these are installed: ${pkgs[*]}" >&2
    exit 0
fi
missing=()
for p in "${pkgs[@]}"; do
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [ "$st" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    echo "kray: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    echo "kray: missing packages; run this once, then try again:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    [ "$what" = test ] && [ -z "$(printf '%s\n' "${missing[@]}" | grep -vE '^(bart|python3.*|clang|libclang-rt-14-dev|llvm|libmicrohttpd-dev|chromium|chromium-driver|openmpi-bin|libopenmpi-dev)$')" ] \
        && { echo "kray: continuing; tests needing them will be skipped" >&2; exit 0; }
    exit 1
fi
