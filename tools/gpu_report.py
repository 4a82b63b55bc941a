#!/usr/bin/env python3
"""gpu_report.py - the report of tools/gpu-check.sh: reads the raw outputs of
its steps (steps.csv, facts.txt, GoogleTest XML, Google Benchmark JSON, the
outputs of pbf-sim --bench and compute-sanitizer) from WORK and writes
report.md and results.csv into OUT (docs/GPU.md says what each part means).

    gpu_report.py WORK OUT [--elapsed SECONDS]

Exit status: 0 everything passed on a GPU; 1 something failed, timed out or
was left out; 2 no GPU, and nothing that could run failed. Performance
targets are reported as met or missed; they do not change the exit status.
"""
import csv
import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

# The floor model of docs/GPU.md, "What a step cannot beat": PBF, 4 density
# iterations, K neighbours per particle, on the card the check ran on (its
# name in facts.txt; an H100 SXM where the name is not known).
CARDS = {  # name in nvidia-smi: (memory bandwidth in bytes/s, FP32 FLOP/s without tensor cores)
    "H200": (4.8e12, 67e12),
    "H100": (3.35e12, 67e12),
}
CARD = "H100"
LAUNCH_S = 2e-6  # per dependent kernel of a recorded graph, an estimate
KERNELS_PER_STEP = 30  # predict, grid and sort, neighbours, 2 per iteration, velocity, vorticity, XSPH, statistics
NEIGHBOURS = 32


def floor_ms(particles, iterations=4, k=NEIGHBOURS):
    """The smallest time one PBF step of `particles` can take: the larger of its
    memory traffic at full bandwidth, its arithmetic at full FP32 rate, and its
    chain of kernel launches."""
    list_bytes = 4 * k + 4  # a neighbour list and its count
    bytes_per_particle = 630 + (2 * iterations + 4) * list_bytes
    flops_per_particle = 1700 + k * (60 * iterations + 55)
    bandwidth, fp32 = CARDS[CARD]
    memory = particles * bytes_per_particle / bandwidth
    arithmetic = particles * flops_per_particle / fp32
    launches = KERNELS_PER_STEP * LAUNCH_S
    return 1e3 * max(memory, arithmetic, launches), {
        "bytes": particles * bytes_per_particle, "flops": particles * flops_per_particle,
        "memory_ms": 1e3 * memory, "arithmetic_ms": 1e3 * arithmetic, "launch_ms": 1e3 * launches}


# The targets of DESIGN.md §7 (ms per step of dt = 1 ms, 4 iterations);
# 4M: linear in the particles from 1M.
TARGETS = {59319: 0.2, 1000000: 1.0, 4000000: 4.0}


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def read_steps(work):
    with open(os.path.join(work, "steps.csv"), newline="") as f:
        return list(csv.DictReader(f))


def read_tests(work):
    """{binary: [(test, status, seconds, message)]} from the GoogleTest XML files."""
    tests = {}
    for path in sorted(glob.glob(os.path.join(work, "test_*.xml"))):
        binary = os.path.basename(path)[:-4]
        rows = []
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as e:
            tests[binary] = [("(the XML file)", "fail", 0.0, f"unreadable: {e}")]
            continue
        for case in root.iter("testcase"):
            name = f"{case.get('classname')}.{case.get('name')}"
            failure = case.find("failure")
            skipped = case.find("skipped")
            if failure is not None:
                status, message = "fail", failure.get("message", "")
            elif skipped is not None or case.get("result") == "skipped" or case.get("status") == "notrun":
                status = "skip"
                message = skipped.get("message", "") if skipped is not None else ""
            else:
                status, message = "pass", ""
            # GoogleTest puts "file:line" before the message itself.
            lines = [l for l in message.strip().splitlines() if not re.fullmatch(r"\S+:\d+", l.strip())]
            rows.append((name, status, float(case.get("time", 0) or 0), "\n".join(lines).strip()))
        tests[binary] = rows
    return tests


def read_benchmarks(work):
    """[(program, name, args, ms per call or None, counters, error)] from the Google Benchmark JSON files."""
    rows = []
    for program in ("bench_step", "bench_methods"):
        text = read(os.path.join(work, program + ".json"))
        if not text:
            continue
        try:
            data = json.loads(text)
        except ValueError:
            continue
        for b in data.get("benchmarks", []):
            name = b.get("run_name", b["name"])
            args = dict(re.findall(r"/(\w+):(-?\d+)", name))
            args = {k: int(v) for k, v in args.items()}
            error = b.get("error_message") if b.get("error_occurred") else None
            ms = None
            if not error and "real_time" in b:
                scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
                ms = b["real_time"] * scale
            skip = {"name", "run_name", "run_type", "repetitions", "repetition_index", "threads", "iterations",
                    "real_time", "cpu_time", "time_unit", "family_index", "per_family_instance_index",
                    "error_occurred", "error_message", "aggregate_name", "aggregate_unit"}
            counters = {k: v for k, v in b.items() if k not in skip and isinstance(v, (int, float))}
            rows.append((program, name.split("/")[0], args, ms, counters, error))
    return rows


def read_sim_bench(work, step):
    """pbf-sim --bench output: particles, median ms per step, phases, density errors."""
    text = read(os.path.join(work, step + ".out"))
    if not text:
        return None
    out = {}
    m = re.search(r": (\d+) particles, backend (\w+).*dt ([0-9.]+) s, (\d+) iterations(?: \(up to (\d+)[^)]*\))?, "
                  r"(\d+) steps", text)
    if m:
        out.update(particles=int(m[1]), backend=m[2], dt=float(m[3]), iterations=int(m[4]),
                   max_iterations=int(m[5] or m[4]), steps=int(m[6]))
    m = re.search(r"density iterations per substep: ([0-9.]+)", text)
    if m:
        out["iterations_run"] = float(m[1])
    m = re.search(r"median ms per step: ([0-9.]+)", text)
    if m:
        out["median_ms"] = float(m[1])
    out["phases"] = {p: float(v) for p, v in re.findall(r"^  (\S+)\s+([0-9.]+) ms$", text, re.M)}
    m = re.search(r"density error: average over steps ([0-9.]+)%, maximum ([0-9.]+)%", text)
    if m:
        out["avg_error_pct"], out["max_error_pct"] = float(m[1]), float(m[2])
    return out


def read_sanitizer(work, step):
    text = read(os.path.join(work, step + ".out"))
    if text is None:
        return None
    m = re.search(r"ERROR SUMMARY: (\d+) error", text)
    r = re.search(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)", text)
    if r:
        return f"{r[2]} errors, {r[3]} warnings ({r[1]} hazards shown)"
    if m:
        return f"{m[1]} errors"
    return "no summary line"


def fmt(v, digits=3):
    if v is None:
        return "-"
    if isinstance(v, float) and v.is_integer() and abs(v) >= 1:
        return f"{int(v)}"
    if isinstance(v, float):
        return f"{v:.{digits}g}" if abs(v) < 1e-3 or abs(v) >= 1e4 else f"{v:.{digits}f}".rstrip("0").rstrip(".")
    return str(v)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 64
    work, out = argv[1], argv[2]
    elapsed = argv[argv.index("--elapsed") + 1] if "--elapsed" in argv else "?"
    os.makedirs(out, exist_ok=True)
    facts = read(os.path.join(work, "facts.txt")) or ""
    have_gpu = not re.search(r"^gpu: none", facts, re.M)
    global CARD
    gpu_line = re.search(r"^gpu: (.*)$", facts, re.M)
    CARD = next((c for c in CARDS if gpu_line and c in gpu_line[1]), "H100")
    steps = read_steps(work)
    tests = read_tests(work)
    benches = read_benchmarks(work)
    results = []  # section, name, status, value, unit, target, floor, detail

    for s in steps:
        results.append(("step", s["step"], s["status"], s["seconds"], "s", s["limit_s"], "", s["note"]))
    failed_tests = []
    for binary, rows in tests.items():
        for name, status, secs, message in rows:
            results.append(("test", f"{binary}:{name}", status, f"{secs:.3f}", "s", "", "", message.splitlines()[0] if message else ""))
            if status == "fail":
                failed_tests.append((binary, name, message))
    sanitizers = {s["step"]: read_sanitizer(work, s["step"]) for s in steps
                  if s["step"].startswith(("memcheck", "racecheck")) and s["status"] != "skipped"}
    for name, summary in sanitizers.items():
        results.append(("sanitizer", name, next(s["status"] for s in steps if s["step"] == name), "", "", "", "", summary or ""))

    # Benchmarks, with targets and floors for PBF steps of dt = 1 ms.
    target_rows = []
    for program, name, args, ms, counters, error in benches:
        n = int(counters.get("particles") or args.get("particles", 0))
        per_step = ms
        if ms is not None and name == "BM_CudaGraphStep":
            per_step = ms / 2  # 2 substeps per call
        is_pbf_step = name in ("BM_DamBreakStep", "BM_CudaGraphStep") or (name == "BM_MethodStep" and args.get("method") == 0)
        floor = floor_ms(n)[0] if is_pbf_step and n else None
        target = next((t for size, t in TARGETS.items() if abs(n - size) < 0.02 * size), None) if is_pbf_step else None
        label = "/".join(f"{k}:{v}" for k, v in args.items())
        detail = error or " ".join(f"{k}={fmt(float(v))}" for k, v in sorted(counters.items()))
        status = "skip" if error else "ok"
        results.append(("bench", f"{name}/{label}", status, fmt(per_step, 4) if per_step else "", "ms/step",
                        fmt(target) if target else "", fmt(floor, 3) if floor else "", detail))
    sim = {}
    for step, dt in (("pbf_sim_bench_1ms", 0.001), ("pbf_sim_bench_1ms_fixed_iterations", 0.001),
                     ("pbf_sim_bench_4ms", 0.004)):
        r = read_sim_bench(work, step)
        if r and "median_ms" in r:
            sim[step] = r
            n = r.get("particles", 59319)
            target = TARGETS.get(59319) if abs(n - 59319) < 1200 and r.get("iterations") == 4 else None
            fixed = " fixed iterations" if step.endswith("fixed_iterations") else ""
            results.append(("bench", f"pbf-sim --bench dt {dt}{fixed}", "ok", fmt(r["median_ms"], 4), "ms/step",
                            fmt(target) if target else "", fmt(floor_ms(n)[0], 3),
                            f"avg_density_error_pct={r.get('avg_error_pct')} max_density_error_pct={r.get('max_error_pct')} "
                            f"iterations_per_substep={r.get('iterations_run')} max_iterations={r.get('max_iterations')} "
                            + " ".join(f"{p}_ms={v}" for p, v in r["phases"].items())))

    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["section", "name", "status", "value", "unit", "target", "floor", "detail"])
        w.writerows(results)

    bad_steps = [s for s in steps if s["status"] in ("fail", "timeout", "left-out")]
    if bad_steps or failed_tests:
        verdict, code = "FAIL", 1
    elif not have_gpu:
        verdict, code = "NO GPU: the CUDA parts were skipped; everything else passed", 2
    else:
        verdict, code = "PASS", 0

    md = [f"# pbf GPU check: {verdict}", ""]
    md += ["## Machine", "", "```", facts.strip(), f"elapsed: {elapsed} s", "```", ""]
    md += ["## Steps", "", "| step | status | seconds | limit | note |", "| --- | --- | --- | --- | --- |"]
    md += [f"| {s['step']} | {s['status']} | {s['seconds']} | {s['limit_s']} | {s['note']} |" for s in steps]
    md += ["", "## Tests", "", "| program | passed | failed | skipped |", "| --- | --- | --- | --- |"]
    for binary, rows in tests.items():
        c = {k: sum(1 for r in rows if r[1] == k) for k in ("pass", "fail", "skip")}
        md.append(f"| {binary} | {c['pass']} | {c['fail']} | {c['skip']} |")
    if not tests:
        md.append("| (none ran) | | | |")
    for binary, name, message in failed_tests:
        md += ["", f"**{binary}: {name}**", "", "```", message[:2000], "```"]
    skipped = sorted({r[3].splitlines()[0] for rows in tests.values() for r in rows if r[1] == "skip" and r[3]})
    if skipped:
        md += ["", "Skip reasons: " + "; ".join(skipped[:3])]
    md += ["", "## compute-sanitizer", ""]
    if sanitizers:
        md += ["| run | status | summary |", "| --- | --- | --- |"]
        md += [f"| {k} | {next(s['status'] for s in steps if s['step'] == k)} | {v} |" for k, v in sanitizers.items()]
    else:
        md.append("Not run: " + "; ".join(sorted({s["note"] for s in steps if s["step"].startswith(("memcheck", "racecheck"))})))

    md += ["", "## Targets (PBF, 4 iterations, dt = 1 ms)", "",
           f"Floor ({CARD}{'' if CARD in (gpu_line[1] if gpu_line else '') else ', the card not recognised'}): "
           f"the larger of memory traffic at {CARDS[CARD][0] / 1e12:g} TB/s, arithmetic at {CARDS[CARD][1] / 1e12:g} TFLOP/s and "
           f"{KERNELS_PER_STEP} dependent launches of {LAUNCH_S * 1e6:.0f} µs (docs/GPU.md).", "",
           "| scene | measured ms/step | target | floor | measured / floor | target |", "| --- | --- | --- | --- | --- | --- |"]
    def dam_rows(name):
        return {int(c.get("particles", a.get("particles", 0))): (ms, c.get("iterations_per_substep"))
                for p, nme, a, ms, c, e in benches if nme == name and a.get("backend") == 2 and ms is not None}
    # The targets are for exactly 4 iterations (BM_DamBreakFixedIterationsStep); with the density
    # tolerance (BM_DamBreakStep) a substep runs as many as the compression needs, up to 20, and
    # is compared with the floor of that many.
    fixed, tolerant = dam_rows("BM_DamBreakFixedIterationsStep"), dam_rows("BM_DamBreakStep")
    rows = []
    if "pbf_sim_bench_1ms_fixed_iterations" in sim:
        r = sim["pbf_sim_bench_1ms_fixed_iterations"]
        rows.append(("59k reference, 4 iterations (pbf-sim --bench --density-tolerance 0)", r.get("particles", 59319),
                     r["median_ms"], 0.2, 4))
    if "pbf_sim_bench_1ms" in sim:
        r = sim["pbf_sim_bench_1ms"]
        it = r.get("iterations_run") or 4
        rows.append((f"59k reference, density tolerance: {it:g} iterations (pbf-sim --bench)", r.get("particles", 59319),
                     r["median_ms"], None, it))
    for n, (ms, it) in sorted(fixed.items()):
        rows.append((f"dam break {n:,}, 4 iterations (bench_step)", n, ms,
                     next((t for s, t in TARGETS.items() if abs(n - s) < 0.02 * s), None), 4))
    for n, (ms, it) in sorted(tolerant.items()):
        it = it or 4
        rows.append((f"dam break {n:,}, density tolerance: {it:.1f} iterations (bench_step)", n, ms,
                     None if fixed else next((t for s, t in TARGETS.items() if abs(n - s) < 0.02 * s), None), it))
    for label, n, ms, target, it in rows:
        fl = floor_ms(n, iterations=it)[0]
        met = "-" if target is None else ("met" if ms <= target else "missed")
        md.append(f"| {label} | {fmt(ms, 4)} | {fmt(target) if target else '-'} | {fmt(fl, 3)} | {ms / fl:.1f} | {met} |")
    dam = {n: v[0] for n, v in (fixed or tolerant).items()}
    big = [n for n in dam if n > 3_000_000]
    million = [n for n in dam if abs(n - 1_000_000) < 20_000]
    if big and million:
        n4, n1 = big[0], million[0]
        ratio = (dam[n4] / n4) / (dam[n1] / n1)
        md.append(f"| 4M linear: time per particle at {n4:,} / at {n1:,} | {ratio:.2f} | ≤ 1.1 | - | - | "
                  f"{'met' if ratio <= 1.1 else 'missed'} |")
    if not rows:
        md.append("| (no GPU timings) | | | | | |")

    md += ["", "## CUDA graphs against stages (2 substeps per call)", "",
           "| particles | stages ms/substep | graph ms/substep | speed-up |", "| --- | --- | --- | --- |"]
    graph = {}
    for p, nme, a, ms, c, e in benches:
        if nme == "BM_CudaGraphStep" and ms is not None:
            graph.setdefault(a.get("particles"), {})[a.get("graphs")] = ms / 2
    for n, g in sorted(graph.items()):
        if 0 in g and 1 in g:
            md.append(f"| {n:,} | {fmt(g[0], 4)} | {fmt(g[1], 4)} | {g[0] / g[1]:.2f} |")
    if not graph:
        md.append("| (no GPU timings) | | | |")

    md += ["", "## PBF against Projective Fluids (one step of 1 ms)", "",
           "| backend | particles | PBF ms | Projective ms | ratio | PF iterations | PBF / PF avg density error |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    methods = {}
    for p, nme, a, ms, c, e in benches:
        if nme == "BM_MethodStep" and ms is not None:
            methods.setdefault((a.get("backend"), a.get("particles")), {})[a.get("method")] = (ms, c)
    for (backend, n), m in sorted(methods.items()):
        if 0 in m and 1 in m:
            (pb, pc), (pf, fc) = m[0], m[1]
            md.append(f"| {'cuda' if backend == 2 else 'cpu'} | {n:,} | {fmt(pb, 4)} | {fmt(pf, 4)} | {pf / pb:.1f} | "
                      f"{fmt(fc.get('iterations_per_step'))} | {fmt(pc.get('avg_density_error'))} / {fmt(fc.get('avg_density_error'))} |")
    if not methods:
        md.append("| (no GPU timings) | | | | | | |")

    md += ["", "## pbf-sim --bench (the reference dam break, 1 s simulated)", ""]
    for step, r in sim.items():
        md.append(f"- {step}: {r.get('particles')} particles, dt {r.get('dt')} s, median {r['median_ms']} ms per step, "
                  f"{r.get('iterations_run')} density iterations per substep (graph of {r.get('max_iterations')}); "
                  + ", ".join(f"{p} {v}" for p, v in r["phases"].items())
                  + f"; density error average {r.get('avg_error_pct')} %, maximum {r.get('max_error_pct')} %")
    if not sim:
        md.append("Not run or no device (see Steps).")
    md += ["", "## All benchmarks", "", "| benchmark | ms/step | counters |", "| --- | --- | --- |"]
    md += [f"| {r[1]} | {r[3] or '-'} | {r[7]} |" for r in results if r[0] == "bench"]
    md += ["", "Raw output of every step: gpu-check.log; every row: results.csv.", ""]
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(md))
    print(f"verdict: {verdict}")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
