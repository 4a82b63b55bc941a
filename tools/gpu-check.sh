#!/usr/bin/env bash
# gpu-check.sh - one command that gives a verdict on the CUDA backend on a
# bare GPU machine (docs/GPU.md): unpacks the Debian packages carried in
# .gpu-deps/ (tools/gpu-deps.sh), builds into build/gpu for sm_90 against them
# alone, runs the CUDA tests and the physics tests on the CUDA backend, a short
# scene under compute-sanitizer (memcheck, racecheck), the benchmarks, and
# writes report.md, results.csv, gpu-check.log and the benchmarks' JSON into
# OUTDIR.
#
#   tools/gpu-check.sh [options] OUTDIR
#     --deps DIR      the carried .deb files (default .gpu-deps)
#     --build DIR     the build folder (default build/gpu)
#     --no-build      use the build folder as it is (configured with its deps)
#     --build-only    unpack, configure and build, then stop (exit 0 when built)
#     --source DIR    build the sources in DIR (default: this repository), e.g. another
#                     version for tools/gpu-ab.sh
#     --budget S      seconds for everything (default 530); each step also has its own limit
#     --build-limit S seconds for the build step (default 330)
#     --rehearse      hide this machine's own copies of the carried packages first
#                     (a private mount namespace; root), to prove the build uses only .gpu-deps
#
# Exit status: 0 everything passed on a GPU; 1 a step failed, timed out or was
# left out for lack of time; 2 no GPU here, and nothing that could run failed.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
deps=$root/.gpu-deps
build=$root/build/gpu
do_build=1
build_only=0
src=$root
budget=530
build_limit=330
rehearse=0
outdir=
while [ $# -gt 0 ]; do
  case $1 in
    --deps) deps=$(realpath -m "$2"); shift 2 ;;
    --build) build=$(realpath -m "$2"); shift 2 ;;
    --no-build) do_build=0; shift ;;
    --build-only) build_only=1; shift ;;
    --source) src=$(realpath -m "$2"); shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --build-limit) build_limit=$2; shift 2 ;;
    --rehearse) rehearse=1; shift ;;
    --hidden) rehearse=2; shift ;;  # internal: already inside the namespace
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-check.sh: unknown option $1" >&2; exit 64 ;;
    *) outdir=$(realpath -m "$1"); shift ;;
  esac
done
[ -n "$outdir" ] || { echo "usage: tools/gpu-check.sh [options] OUTDIR (--help)" >&2; exit 64; }

# --rehearse: run again in a private mount namespace where every file of the
# carried packages that this machine has installed reads as two lines that no
# compiler, linker or CMake accepts (runtime zlib and libpng stay: the
# system's own tools load them).
if [ "$rehearse" = 1 ]; then
  [ -f "$deps/MANIFEST" ] || { echo "gpu-check.sh: $deps/MANIFEST missing: run tools/gpu-deps.sh first" >&2; exit 64; }
  args=(--hidden --deps "$deps" --build "$build" --budget "$budget" --build-limit "$build_limit")
  [ "$do_build" = 1 ] || args+=(--no-build)
  [ "$build_only" = 1 ] && args+=(--build-only)
  args+=(--source "$src")
  exec unshare --mount --propagation private -- bash -c '
    set -u
    hidden=0
    # Not empty: an empty file is a valid linker script and CMake file. These
    # two lines fail a compiler, a linker, CMake and the dynamic loader alike.
    hide=$(mktemp)
    printf "#error hidden by gpu-check.sh --rehearse\nhidden_by_gpu_check_rehearse(\n" >"$hide"
    for pkg in $(grep -v "^#" "$1/MANIFEST" | cut -d" " -f1); do
      case $pkg in zlib1g|libpng16-16) continue ;; esac
      while read -r f; do
        if [ -f "$f" ] && [ ! -L "$f" ]; then mount --bind "$hide" "$f" && hidden=$((hidden + 1)); fi
      done < <(dpkg -L "$pkg" 2>/dev/null)
    done
    echo "gpu-check.sh: rehearsal: $hidden files of the carried packages hidden on this machine"
    shift
    exec "$@"' sh "$deps" "$0" "${args[@]}" "$outdir"
fi

start=$(date +%s)
deadline=$((start + budget))
work=$build/gpu-check  # raw outputs; OUTDIR gets the few files that come back
mkdir -p "$outdir" "$work" || exit 1
rm -f "$work"/*.out "$work"/*.xml "$work"/*.json "$work"/steps.csv "$outdir"/report.md "$outdir"/results.csv \
  "$outdir"/gpu-check.log "$outdir"/bench_*.json
log=$outdir/gpu-check.log
echo "step,status,seconds,limit_s,note" >"$work/steps.csv"
say() { echo "gpu-check: $*" | tee -a "$log"; }

# step NAME LIMIT_S GPU CMD...: runs CMD under a timeout (the smaller of LIMIT_S
# and what is left of the budget), its output in $work/NAME.out and the log.
# GPU=1: without a GPU a failure is recorded as "no-gpu", not "fail".
step() {
  local name=$1 limit=$2 gpu=$3
  shift 3
  local left=$((deadline - $(date +%s) - 15)) t0 rc status note=
  if [ "$left" -lt 10 ]; then
    echo "$name,left-out,0,$limit,the time budget was spent" >>"$work/steps.csv"
    say "$name: left out, the time budget was spent"
    return 1
  fi
  [ "$left" -lt "$limit" ] && limit=$left
  {
    echo
    echo "=== $name (limit ${limit} s): $*"
  } >>"$log"
  t0=$(date +%s.%N)
  if [ "$(type -t "$1")" = function ]; then  # timeout runs programs: a function runs in a child bash
    timeout -k 10 "$limit" bash -c '"$@"' bash "$@" >"$work/$name.out" 2>&1
  else
    timeout -k 10 "$limit" "$@" >"$work/$name.out" 2>&1
  fi
  rc=$?
  local secs
  secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  cat "$work/$name.out" >>"$log"
  if [ $rc -eq 0 ]; then status=pass
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then status=timeout; note="killed after ${limit} s"
  elif [ "$gpu" = 1 ] && [ "$have_gpu" = 0 ]; then status=no-gpu; note="exit status $rc without a GPU"
  else status=fail; note="exit status $rc"
  fi
  echo "$name,$status,$secs,$limit,$note" >>"$work/steps.csv"
  say "$name: $status in $secs s${note:+ ($note)}"
  [ "$status" = pass ]
}
skip() {  # skip NAME REASON
  echo "$1,skipped,0,0,$2" >>"$work/steps.csv"
  say "$1: skipped, $2"
}

# ---- the machine
have_gpu=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then have_gpu=1; fi
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do
  [ -d "$d" ] && case ":$PATH:" in *":$d:"*) ;; *) PATH=$PATH:$d ;; esac
done
export PATH
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" status --porcelain 2>/dev/null | grep -q . && echo ' (with changes)')"
  echo "host: $(uname -srm), $(nproc) cores"
  echo "gpu: $([ $have_gpu = 1 ] && nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap,clocks.max.sm,clocks.max.mem \
    --format=csv,noheader 2>/dev/null | head -1 || echo none)"
  echo "nvcc: $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo none)"
  echo "compute-sanitizer: $(command -v compute-sanitizer || echo none)"
  echo "cmake: $(cmake --version 2>/dev/null | head -1)"
  echo "c++: $(c++ --version 2>/dev/null | head -1)"
} >"$work/facts.txt"
cat "$work/facts.txt" >>"$log"
[ $have_gpu = 1 ] && nvidia-smi >>"$log" 2>&1
say "$([ $have_gpu = 1 ] && echo "GPU: $(grep '^gpu:' "$work/facts.txt" | cut -d' ' -f2-)" || echo "no GPU on this machine: the CUDA parts skip")"

# ---- the carried packages, unpacked into one prefix; only it is searched
prefix=$build/deps
multiarch=x86_64-linux-gnu
unpack() {
  export PBF_PREFIX=$prefix
  rm -rf "$prefix" && mkdir -p "$prefix" || return 1
  local f n=0
  for f in "$deps"/*.deb; do
    [ -f "$f" ] || { echo "no .deb files in $deps: run tools/gpu-deps.sh here and carry .gpu-deps"; return 1; }
    if command -v dpkg >/dev/null; then dpkg -x "$f" "$prefix" || return 1
    else (cd "$prefix" && ar p "$f" "$(ar t "$f" | grep '^data.tar')" | tar -x -a -f - 2>/dev/null ||
          ar p "$f" "$(ar t "$f" | grep '^data.tar')" | tar -xJ) || return 1
    fi
    n=$((n + 1))
  done
  # Debian puts some libraries in /lib and links to them by absolute paths: bring both into the prefix.
  if [ -d "$prefix/lib/$multiarch" ]; then
    mkdir -p "$prefix/usr/lib/$multiarch" && cp -a "$prefix/lib/$multiarch/." "$prefix/usr/lib/$multiarch/" && rm -rf "$prefix/lib"
  fi
  local link target
  while IFS= read -r link; do
    target=$(readlink "$link")
    ln -sfn "$(basename "$target")" "$link"
  done < <(find "$prefix" -type l -lname '/*')
  # Assimp's and Draco's CMake files name their libraries by absolute /usr paths: point those into the prefix.
  find "$prefix/usr/lib/$multiarch/cmake" "$prefix/usr/share/cmake" -name '*.cmake' -exec \
    perl -pi -e 's{(?<![\w/.+-])(/usr/[\w/.+-]+)}{-e "$ENV{PBF_PREFIX}$1" ? "$ENV{PBF_PREFIX}$1" : $1}ge' {} + || return 1
  echo "$n packages unpacked into $prefix ($(du -sh "$prefix" | cut -f1))"
}
export LD_LIBRARY_PATH=$prefix/usr/lib/$multiarch${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

cuda_flag=ON
command -v nvcc >/dev/null || cuda_flag=OFF
# The linker searches the prefix first (-L): Assimp's CMake files name
# minizip bare (-lminizip), which the linker would otherwise look for only in
# the system's folders.
configure() {
  local nvcc_arg=()
  [ $cuda_flag = ON ] && nvcc_arg=(-DCMAKE_CUDA_COMPILER="$(command -v nvcc)")
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPBF_WITH_CUDA=$cuda_flag "${nvcc_arg[@]}" -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DPBF_BUILD_CSHARP=OFF -DPBF_BUILD_JAVA=OFF \
    -DCMAKE_PREFIX_PATH="$prefix/usr" -DCMAKE_IGNORE_PREFIX_PATH=/usr \
    -DCMAKE_EXE_LINKER_FLAGS="-L$prefix/usr/lib/$multiarch" -DCMAKE_SHARED_LINKER_FLAGS="-L$prefix/usr/lib/$multiarch" \
    -DCMAKE_POLICY_VERSION_MINIMUM=3.5
}
export -f unpack configure
export root src deps build prefix multiarch cuda_flag
targets=(test_cuda_backend test_physics test_capi bench_step bench_methods pbf-sim)

built=1
if [ $do_build = 1 ]; then
  step unpack 60 0 unpack || built=0
  [ $built = 1 ] && { step configure 90 0 configure || built=0; }
  [ $built = 1 ] && { step build "$build_limit" 0 cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" || built=0; }
  [ $cuda_flag = OFF ] && say "nvcc not found: built without the CUDA backend"
else
  [ -d "$prefix" ] || prefix=/nonexistent
fi
if [ $build_only = 1 ]; then
  say "built $src in $build: $([ $built = 1 ] && echo yes || echo no) ($(($(date +%s) - start)) s)"
  [ $built = 1 ]
  exit
fi

# ---- tests, sanitizers, benchmarks
t=$build/tests s=$build/samples/pbf-sim
if [ $built = 0 ]; then
  for n in test_cuda_backend test_physics_cuda memcheck_pbf racecheck_pbf bench_step pbf_sim_bench_1ms \
           pbf_sim_bench_1ms_fixed_iterations pbf_sim_bench_4ms bench_methods memcheck_projective \
           racecheck_projective test_capi; do
    skip "$n" "the build failed"
  done
else
  gt() { echo "--gtest_output=xml:$work/$1.xml"; }
  step test_cuda_backend 120 1 "$t/test_cuda_backend" "$(gt test_cuda_backend)"
  step test_physics_cuda 150 1 "$t/test_physics" --gtest_filter='*/cuda' "$(gt test_physics_cuda)"

  # A short scene: the built-in dam break at 8,000 particles, walls sampled, 2 frames of 2 substeps.
  scene=(--backend cuda --frames 2 --substeps 2 --spacing 0.05 --no-output)
  sanitize() {  # sanitize TOOL METHOD
    if [ $have_gpu = 0 ]; then skip "$1_$2" "no GPU"
    elif ! command -v compute-sanitizer >/dev/null; then skip "$1_$2" "compute-sanitizer not found"
    else
      local extra=(--boundary-particles)
      [ "$2" = projective ] && extra=(--method projective)
      step "$1_$2" 75 1 compute-sanitizer --tool "$1" --error-exitcode 1 --print-limit 20 "$s" "${scene[@]}" "${extra[@]}"
    fi
  }
  sanitize memcheck pbf
  sanitize racecheck pbf

  bench() { echo "--benchmark_out=$work/$1.json" --benchmark_out_format=json --benchmark_min_time=0.2; }
  # backend:2 is PBF_BACKEND_CUDA.
  step bench_step 180 1 "$t/bench_step" --benchmark_filter='backend:2' $(bench bench_step)
  step pbf_sim_bench_1ms 60 1 "$s" --bench --backend cuda
  # The density tolerance's graph holds max_iterations iterations, most of them ended at once: their cost.
  step pbf_sim_bench_1ms_fixed_iterations 60 1 "$s" --bench --backend cuda --density-tolerance 0
  step pbf_sim_bench_4ms 60 1 "$s" --bench --backend cuda --bench-dt 0.004
  step bench_methods 120 1 "$t/bench_methods" --benchmark_filter='BM_MethodStep/.*backend:2' $(bench bench_methods)
  sanitize memcheck projective
  sanitize racecheck projective
  # The C API contract on a machine where PBF_BACKEND_AUTO resolves to CUDA.
  step test_capi 90 0 "$t/test_capi" "$(gt test_capi)"
fi

# ---- the report
cp "$work"/bench_*.json "$outdir"/ 2>/dev/null
if command -v python3 >/dev/null; then
  python3 "$root/tools/gpu_report.py" "$work" "$outdir" --elapsed $(($(date +%s) - start)) 2>&1 | tee -a "$log"
  verdict=${PIPESTATUS[0]}
else  # the steps alone
  cp "$work/steps.csv" "$outdir/results.csv"
  { echo "# pbf GPU check: python3 missing, steps only"; echo; sed 's/,/ | /g' "$work/steps.csv"; } >"$outdir/report.md"
  verdict=1
  grep -q ',fail,\|,timeout,\|,left-out,' "$work/steps.csv" || verdict=$((have_gpu ? 0 : 2))
fi
say "report: $outdir/report.md, $outdir/results.csv ($(($(date +%s) - start)) s in all)"
exit "$verdict"
