#!/usr/bin/env bash
# Build KenLM's estimation binaries (lmplz, build_binary) from the PyPI `kenlm` source
# distribution (2017 §5.6 trains its 3-gram language models with KenLM). No package ships them.
#
#   scripts/build_kenlm.sh            # installs into ${PARALIB_KENLM_DIR:-$HOME/.cache/paralib/kenlm}/bin
#
# Idempotent: does nothing when both binaries are already there. Needs cmake, g++, zlib and
# Debian's boost (program-options, system, thread, test), which it installs with apt-get when
# it runs as root and they are missing. paralib finds the binaries through $PARALIB_KENLM_BIN,
# then this folder, then PATH.
set -euo pipefail

KENLM_VERSION="${KENLM_VERSION:-0.3.0}"
DEST="${PARALIB_KENLM_DIR:-$HOME/.cache/paralib/kenlm}"
JOBS="${JOBS:-2}"

if [[ -x "$DEST/bin/lmplz" && -x "$DEST/bin/build_binary" ]]; then
    echo "kenlm: lmplz and build_binary already in $DEST/bin"
    exit 0
fi

if ! dpkg -s libboost-program-options-dev libboost-system-dev libboost-thread-dev \
        libboost-test-dev zlib1g-dev >/dev/null 2>&1; then
    if [[ "$(id -u)" == 0 ]]; then
        apt-get update -q >/dev/null
        apt-get install -y -q libboost-program-options-dev libboost-system-dev \
            libboost-thread-dev libboost-test-dev zlib1g-dev cmake g++ >/dev/null
    else
        echo "kenlm: install libboost-program-options-dev libboost-system-dev" \
             "libboost-thread-dev libboost-test-dev zlib1g-dev cmake g++ first" >&2
        exit 1
    fi
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
python3 -m pip download -q --no-deps --no-build-isolation --no-binary :all: \
    "kenlm==${KENLM_VERSION}" -d .
tar xzf kenlm-*.tar.gz
src="$(find . -maxdepth 1 -type d -name 'kenlm-*' | head -n1)"
mkdir -p "$src/build"
cd "$src/build"
cmake .. -DCMAKE_BUILD_TYPE=Release >/dev/null
make -j"$JOBS" lmplz build_binary >/dev/null
mkdir -p "$DEST/bin"
cp bin/lmplz bin/build_binary "$DEST/bin/"
echo "kenlm: built lmplz and build_binary into $DEST/bin"
