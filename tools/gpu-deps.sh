#!/usr/bin/env bash
# gpu-deps.sh - downloads the Debian packages that a bare GPU machine lacks
# (oneTBB, GoogleTest, Google Benchmark, Assimp, Embree, CLI11, nlohmann-json,
# libpng, zlib) into .gpu-deps/ as .deb files, to be carried beside the
# repository and unpacked there by tools/gpu-check.sh (docs/GPU.md).
#
#   tools/gpu-deps.sh [DIR]     DIR defaults to .gpu-deps in the repository root
#
# The .deb files stay compressed (Embree alone unpacks to 43 MB); the script
# prints their size and fails when they exceed PBF_GPU_DEPS_MAX_MIB (60 MiB,
# the carry limit less the repository).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/.gpu-deps}
max_mib=${PBF_GPU_DEPS_MAX_MIB:-60}

# What the build, the tests, the benchmarks and pbf-sim link or include, with
# the shared libraries those need in turn; glibc and libstdc++ are on the machine.
packages=(
  libtbb-dev libtbb12 libtbbmalloc2 libtbbbind-2-5
  libgtest-dev libgmock-dev
  libbenchmark-dev libbenchmark1debian
  libassimp-dev libassimp5 libdraco-dev libdraco7 libminizip-dev libminizip1
  libembree-dev libembree3-3
  libcli11-dev nlohmann-json3-dev
  libpng-dev libpng16-16 zlib1g-dev zlib1g
)

command -v apt-get >/dev/null || { echo "gpu-deps.sh: apt-get not found (a Debian or Ubuntu machine is needed)" >&2; exit 1; }
mkdir -p "$dir"
rm -f "$dir"/*.deb "$dir"/MANIFEST
# A list older than a day may name versions the mirror no longer has.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
  apt-get update -qq
fi
(cd "$dir" && apt-get download -q -o APT::Sandbox::User=root "${packages[@]}" >/dev/null)

{
  echo "# Debian packages for tools/gpu-check.sh, downloaded $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "# from $(. /etc/os-release && echo "$PRETTY_NAME"); unpack each with dpkg -x into one prefix."
  for f in "$dir"/*.deb; do
    printf '%s %s %s\n' "$(dpkg-deb -f "$f" Package)" "$(dpkg-deb -f "$f" Version)" "$(stat -c %s "$f")"
  done
} >"$dir/MANIFEST"

count=$(ls "$dir"/*.deb | wc -l)
if [ "$count" -ne "${#packages[@]}" ]; then
  echo "gpu-deps.sh: expected ${#packages[@]} packages in $dir, found $count" >&2
  exit 1
fi
bytes=$(du -cb "$dir" | tail -1 | cut -f1)
mib=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
echo "gpu-deps.sh: $count packages, $mib MiB in $dir"
if [ "$bytes" -gt $((max_mib * 1048576)) ]; then
  echo "gpu-deps.sh: $mib MiB is over the $max_mib MiB that can be carried beside the repository" >&2
  exit 1
fi
