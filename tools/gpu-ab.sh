#!/usr/bin/env bash
# gpu-ab.sh - before and after on one GPU machine (docs/GPU.md §7): builds this
# working tree and another version of the sources with tools/gpu-check.sh
# --build-only, runs the same benchmarks of each in turn, A B A B ..., and
# writes ab.md (the medians and their ratio) and ab.csv (every run) into OUTDIR.
#
#   tools/gpu-ab.sh --prepare REV     here: the sources of git revision REV into .ab/base
#                                     (ignored by git; carry it with .gpu-deps)
#   tools/gpu-ab.sh [options] OUTDIR  on the GPU machine
#     --base DIR      the other version's sources (default .ab/base)
#     --filter REGEX  the bench_step benchmarks (default the dam breaks on CUDA at 59k and 1M,
#                     with the tolerance and with 4 iterations)
#     --reps N        rounds of A then B (default 3)
#     --min-time S    Google Benchmark's --benchmark_min_time for each (default 0.3)
#
# Exit status: 0 both built and every run finished; 1 otherwise.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
base=$root/.ab/base
filter='BM_DamBreak(FixedIterations)?Step/particles:(59319|1000000)/backend:2/'
reps=3
min_time=0.3
outdir=
case ${1:-} in
  --prepare)
    [ $# -eq 2 ] || { echo "usage: tools/gpu-ab.sh --prepare REV" >&2; exit 64; }
    rev=$(git -C "$root" rev-parse --verify "$2^{commit}") || exit 64
    grep -qx '/.ab/' "$root/.git/info/exclude" 2>/dev/null || echo '/.ab/' >>"$root/.git/info/exclude"
    rm -rf "$root/.ab" && mkdir -p "$root/.ab/base" &&
      git -C "$root" archive "$rev" | tar -x -C "$root/.ab/base" &&
      echo "$rev" >"$root/.ab/REVISION" || exit 1
    echo "gpu-ab.sh: .ab/base holds $(git -C "$root" rev-parse --short "$rev") ($(du -sh "$root/.ab" | cut -f1)); carry .gpu-deps and .ab"
    exit 0 ;;
esac
while [ $# -gt 0 ]; do
  case $1 in
    --base) base=$(realpath -m "$2"); shift 2 ;;
    --filter) filter=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --min-time) min_time=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-ab.sh: unknown option $1" >&2; exit 64 ;;
    *) outdir=$(realpath -m "$1"); shift ;;
  esac
done
[ -n "$outdir" ] || { echo "usage: tools/gpu-ab.sh [options] OUTDIR (--help)" >&2; exit 64; }
[ -f "$base/CMakeLists.txt" ] || { echo "gpu-ab.sh: no sources in $base: run tools/gpu-ab.sh --prepare REV here" >&2; exit 64; }
mkdir -p "$outdir" || exit 1
log=$outdir/ab.log
: >"$log"

ok=0
# Both built in turn (each uses all the cores); gpu-check.sh's own files go to a scratch folder.
"$root/tools/gpu-check.sh" --build-only --build "$root/build/gpu" "$outdir/.new" >>"$log" 2>&1 || ok=1
"$root/tools/gpu-check.sh" --build-only --source "$base" --build "$root/build/gpu-base" "$outdir/.base" >>"$log" 2>&1 || ok=1
cat "$outdir/.new/gpu-check.log" "$outdir/.base/gpu-check.log" >>"$log" 2>/dev/null
rm -rf "$outdir/.new" "$outdir/.base"
grep 'gpu-check: built' "$log" | sort -u
[ $ok = 0 ] || { echo "gpu-ab.sh: a build failed (see $log)"; exit 1; }

export LD_LIBRARY_PATH=$root/build/gpu/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "version,round,benchmark,ms,counters" >"$outdir/ab.csv"
for r in $(seq 1 "$reps"); do
  for v in base new; do
    dir=$root/build/gpu; [ $v = base ] && dir=$root/build/gpu-base
    # Each version's own libpbf (RUNPATH $ORIGIN) and the same carried libraries.
    timeout 120 "$dir/tests/bench_step" --benchmark_filter="$filter" --benchmark_min_time="$min_time" \
      --benchmark_format=json >"$outdir/run.json" 2>>"$log" || ok=1
    python3 - "$outdir/run.json" "$v" "$r" >>"$outdir/ab.csv" <<'PY' || ok=1
import json, sys
runs = json.load(open(sys.argv[1]))["benchmarks"]
for b in runs:
    if b.get("error_occurred"):
        print(f'{sys.argv[2]},{sys.argv[3]},{b["name"]},,{b.get("error_message", "error")}')
        continue
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
    skip = {"name", "run_name", "run_type", "repetitions", "repetition_index", "threads", "iterations",
            "real_time", "cpu_time", "time_unit", "family_index", "per_family_instance_index"}
    counters = " ".join(f"{k}={v:.4g}" for k, v in b.items() if k not in skip and isinstance(v, (int, float)))
    print(f'{sys.argv[2]},{sys.argv[3]},{b["name"]},{b["real_time"] * scale:.5g},{counters}')
PY
  done
done
rm -f "$outdir/run.json"
python3 - "$outdir/ab.csv" "$base" >"$outdir/ab.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
names = list(dict.fromkeys(r["benchmark"] for r in rows))
print(f"# Before (base: {sys.argv[2]}) and after (this tree), in turn\n")
print("| benchmark | base ms (each round) | new ms (each round) | median new / base |")
print("| --- | --- | --- | --- |")
for n in names:
    t = {v: [float(r["ms"]) for r in rows if r["benchmark"] == n and r["version"] == v and r["ms"]] for v in ("base", "new")}
    ratio = f"{statistics.median(t['new']) / statistics.median(t['base']):.3f}" if t["base"] and t["new"] else "-"
    print(f"| {n} | {', '.join(f'{x:.4g}' for x in t['base']) or 'none'} | {', '.join(f'{x:.4g}' for x in t['new']) or 'none'} | {ratio} |")
PY
cat "$outdir/ab.md"
exit $ok
