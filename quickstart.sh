#!/usr/bin/env bash
# quickstart.sh - sets up a fresh Debian machine for pbf, builds it, and
#   ./quickstart.sh dam-break   runs the dam break (PLY frames in pbf-out/)
#   ./quickstart.sh test        runs every test: the optimised build, the
#                               sanitizer build, the fuzzers of mesh,
#                               checkpoint, field and scene files for 60 s each, a
#                               program built against the installed package,
#                               and the installed pbf-sim
# Dependencies come from Debian's packages (apt-get, as root or with sudo).
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(cmake ninja-build g++ pkg-config libtbb-dev libgtest-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev libembree-dev libassimp-dev assimp-testmodels libpng-dev clang-14 libclang-rt-14-dev python3-matplotlib python3-vtk9 python3-meshio libopenvdb-dev libboost-dev python3-openvdb swig mono-mcs mono-runtime default-jdk-headless junit5)

install_dependencies() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "== installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# The CUDA code is compiled for the GPUs this machine has; without one, once, for the oldest card the
# backend supports (with its PTX, which newer cards compile when they load it): a compile check in
# under half the time of the preset's list of five. A package for other machines: cmake --preset release.
cuda_architectures() {
  if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then echo native; else echo 75; fi
}

build() {
  echo "== building ($1)"
  if [ "$1" = release ]; then
    cmake --preset "$1" -DCMAKE_CUDA_ARCHITECTURES="$(cuda_architectures)" >/dev/null
  else
    cmake --preset "$1" >/dev/null
  fi
  cmake --build --preset "$1"
}

run_dam_break() {
  install_dependencies
  build release
  echo "== dam break: 59,319 particles, 2 simulated seconds, walls sampled with boundary particles"
  ./build/release/samples/pbf-sim --frames 120 --boundary-particles --png --out pbf-out
  echo "== look at pbf-out/contact_sheet.png (16 moments of the run) and pbf-out/frame_NNNN.png;"
  echo "   open pbf-out/frame_NNNN.ply (or the whole sequence) in Houdini or Blender; for ParaView,"
  echo "   run with --vtp and open pbf-out/frames.pvd (its PLY reader shows the particles coloured by speed only)"
}

run_tests() {
  install_dependencies
  build release
  echo "== tests (optimised build)"
  ctest --preset release
  echo "== the fast and pbf-sim tests under AddressSanitizer and UndefinedBehaviorSanitizer"
  build sanitize
  ctest --preset sanitize
  echo "== mesh, checkpoint, field and scene files under libFuzzer, 60 s each (stops at the first crash; inputs in build/fuzz/tests/fuzz)"
  build fuzz
  ctest --preset fuzz
  echo "== a program built against the installed package"
  rm -rf build/install-check
  cmake --install build/release --prefix build/install-check >/dev/null
  cmake -S samples/installed -B build/install-check/consumer -G Ninja \
    -DCMAKE_PREFIX_PATH="$PWD/build/install-check" >/dev/null
  cmake --build build/install-check/consumer
  LD_LIBRARY_PATH="$PWD/build/install-check/lib" ./build/install-check/consumer/hello_c
  LD_LIBRARY_PATH="$PWD/build/install-check/lib" ./build/install-check/consumer/hello_cpp
  echo "== the same C program through pkg-config"
  PKG_CONFIG_PATH="$PWD/build/install-check/lib/pkgconfig" \
    cc -std=c99 samples/c/hello.c $(PKG_CONFIG_PATH="$PWD/build/install-check/lib/pkgconfig" pkg-config --cflags --libs pbf) \
    -o build/install-check/hello_pkgconfig
  LD_LIBRARY_PATH="$PWD/build/install-check/lib" ./build/install-check/hello_pkgconfig
  echo "== the installed pbf-sim finds the installed libpbf by itself (its RUNPATH, no LD_LIBRARY_PATH)"
  env -u LD_LIBRARY_PATH ./build/install-check/bin/pbf-sim --version
  echo "== all tests passed"
}

case "${1:-}" in
  dam-break) run_dam_break ;;
  test) run_tests ;;
  *)
    echo "usage: $0 dam-break | test" >&2
    exit 2
    ;;
esac
