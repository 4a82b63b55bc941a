#!/usr/bin/env python3
"""Dam-break validation: pbf-sim against the experiments in tests/validation/data/.

    python3 tests/validation/run_validation.py [--pbf-sim build/release/samples/pbf-sim]
        [--resolutions 20 40] [--fine] [--methods pbf projective] [--backend cpu|cuda]
        [--substeps 4 8 16] [--gauge-resolutions 20 40] [--no-gauges] [--work build/validation]
        [--doc docs/VALIDATION.md]

Runs the collapse of a water column a wide and 2a high (a = 0.15 m) along a tank 10a long, as a
slab 8 particles deep between side walls, with the domain walls sampled by boundary particles and
every other setting at pbf-sim's defaults, for each method at a/20 and a/40 (a/80 with --fine),
and PBF at a/20 with more substeps. From the PLY frames it measures the surge front and the
residual column at the back wall, writes their CSVs and each run's pbf-sim --stats file under
--work, compares the front and the column with the experiments (RMS of the relative error over each
data set's time span). Then it runs Lobovsky et al.'s (2014) dam break, a column 0.6 m long and 0.3 m high (H)
in a tank 1.61 m long, at H/20 and H/40, and compares the water level at two of their gauges with
their record (arrival of the surge, the level before the bore, the bore reflected from the far
wall). It writes docs/VALIDATION.md with tables and PNG plots in docs/validation/ drawn with
tools/plot_stats.py. Needs numpy and python3-matplotlib (Debian).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import plot_stats  # noqa: E402

A = 0.15            # column width [m]
G = 9.81            # gravity [m/s^2], pbf's default
TANK = 10.0         # tank length [a]
LAYERS = 8          # slab depth [particles]
FRAMES = 48         # PBF: 0.8 s at 60 frames per second, T = 9.2
FRAMES_PROJECTIVE = 24  # Projective Fluids: 0.4 s, T = 4.6 (its default adaptive steps take seconds per frame)
DATA = [  # file, legend, marker
    ("koshizuka_oka_1996_front.csv", "Koshizuka & Oka 1996", "ko"),
    ("martin_moyce_1952_front_a2.25in.csv", "Martin & Moyce 1952, a = 2.25 in", "k^"),
    ("martin_moyce_1952_front_a1.125in.csv", "Martin & Moyce 1952, a = 1.125 in", "ks"),
]
# The residual column: file, legend, marker, and the column's n^2 (height over width), by which the paper's
# tau = t sqrt(g / a) and eta = h / (n^2 a) become T = tau sqrt(2) and H = n^2 eta.
COLUMN_DATA = [("martin_moyce_1952_column_a2.25in.csv", "Martin & Moyce 1952, a = 2.25 in", "k^", 2.0)]
FRONT_TARGET = 0.05   # issue #15: front within 5 % RMS ...
COLUMN_TARGET = 0.10  # ... and residual column within 10 % RMS
# Lobovsky et al. (2014): a column GAUGE_L long and GAUGE_H high at the back of a tank GAUGE_TANK long (and high
# enough for the run-up at the far wall); water-level gauges at x from the back wall.
GAUGE_H = 0.3
GAUGE_L = 0.6
GAUGE_TANK = (1.61, 0.8)
GAUGES = [("H3", 1.114), ("H4", 1.3625)]
GAUGE_DATA = {"H3": "lobovsky_2014_h300_level_H3.csv", "H4": "lobovsky_2014_h300_level_H4.csv"}
GAUGE_FRAMES = 90             # 1.5 s, T = t sqrt(g / H) = 8.6
GAUGE_FRAMES_PROJECTIVE = 60  # 1.0 s, T = 5.7: the surge, before the bore reflected from the far wall
ARRIVAL_LEVEL = 0.1   # the surge reaches a gauge when its level passes 0.1 H
BORE_LEVEL = 0.4      # the bore reflected from the far wall passes a gauge when its level passes 0.4 H ...
BORE_AFTER = 4.0      # ... after T = 4
SURGE_UNTIL = 5.0     # the levels' RMS is taken over the surge, before the bore: T <= 5
METHOD_NAMES = {"pbf": "PBF", "projective": "Projective Fluids"}
T_SAMPLES = [1.0, 2.0, 3.0, 4.0]  # where the convergence tables read front and column
MAX_DELAY = 1.0  # the longest release delay (in T) that best_delay() tries


def read_data(name):
    """(T, value) of an experiment's CSV; '#' lines are its source, the first other line names the columns."""
    ts, zs = [], []
    with open(os.path.join(HERE, "data", name)) as f:
        lines = [line for line in f if line.strip() and not line.startswith("#")]
    for line in lines[1:]:
        t, z = line.split(",")
        ts.append(float(t))
        zs.append(float(z))
    return ts, zs


def read_column_data(name, n2):
    """(T, H) of Martin & Moyce's residual column (tau, eta), in this page's variables: T = t sqrt(2 g / a) =
    tau sqrt(2), H = h / a = n^2 eta."""
    taus, etas = read_data(name)
    return [tau * math.sqrt(2.0) for tau in taus], [n2 * eta for eta in etas]


def frames_of(method):
    return FRAMES_PROJECTIVE if method == "projective" else FRAMES


def gauge_frames_of(method):
    return GAUGE_FRAMES_PROJECTIVE if method == "projective" else GAUGE_FRAMES


def scene(method, backend, n, out_dir, stats, sampled=True):
    """The dam break at a/n as a pbf-sim scene; `sampled` False: plain walls (their own density)."""
    s = A / n
    depth = LAYERS * s
    return {
        "description": f"Martin & Moyce dam break, column a x 2a, a = {A} m, a/{n}, slab {LAYERS} particles deep",
        "domain": {"min": [0, 0, 0], "max": [TANK * A, 4 * A, depth]},
        "backend": backend, "method": method, "spacing": s, "boundary_particles": sampled,
        "time": {"fps": 60, "frames": frames_of(method)},
        "fluid": [{"box": {"min": [0, 0, 0], "max": [A, 2 * A, depth]}}],
        "output": {"dir": out_dir, "ply": True, "stats": stats},
    }


PLY_TYPES = {"float": "<f4", "float32": "<f4", "double": "<f8", "uchar": "u1", "uint8": "u1", "int": "<i4",
             "int32": "<i4", "uint": "<u4", "uint32": "<u4", "short": "<i2", "ushort": "<u2", "char": "i1"}


def read_ply(path, np):
    """Positions (N x 3) of a pbf PLY frame (binary little-endian), its record read from the header's
    properties so that a property added to the file does not shift the positions."""
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    count, fields = 0, []
    for line in data[:end].decode("ascii").splitlines():
        words = line.split()
        if words[:2] == ["element", "vertex"]:
            count = int(words[2])
        elif words[:1] == ["property"] and count:
            fields.append((words[2], PLY_TYPES[words[1]]))
    record = np.dtype(fields)
    vertices = np.frombuffer(data, dtype=record, count=count, offset=end)
    return np.stack([vertices["x"], vertices["y"], vertices["z"]], axis=1).astype(np.float64)


def contiguous_extent(values, width, minimum, np):
    """The far end of the run of bins (of `width`, from 0) each holding at least `minimum` values:
    the edge of the connected water, spray beyond a gap left out."""
    bins = np.floor(values / width).astype(int)
    counts = np.bincount(bins[bins >= 0])
    k = 0
    while k < len(counts) and counts[k] >= minimum:
        k += 1
    if k == 0:
        return 0.0
    return float(values[(bins == k - 1)].max())


def water_extent(values, s, np):
    """How far the connected water reaches along one axis from 0, for particles of spacing s whose
    coordinates on that axis are `values`: the outermost centre of the run of bins of two spacings that
    each hold a slab's depth of particles, plus half a spacing for the particles' own extent; 0 where
    there is no such water."""
    end = contiguous_extent(values, 2.0 * s, LAYERS, np) if len(values) else 0.0
    return end + 0.5 * s if end > 0.0 else 0.0


def measure(positions, s, np):
    """Front Z = x_front / a and column H = height at the back wall / a (within two spacings of it), both
    water_extent()."""
    wall = positions[positions[:, 0] < 2.0 * s]
    return water_extent(positions[:, 0], s, np) / A, water_extent(wall[:, 1], s, np) / A


def run_pbf_sim(args, tag, scene_of, frames, measure_frame, np, substeps=0):
    """Writes the scene `scene_of(frames_dir, stats)` under --work/tag, runs pbf-sim on it and hands each of
    its PLY frames 0..frames to `measure_frame(k, positions)` (the frames are deleted afterwards: they are
    large). Returns the stats file, the wall time and the particle count pbf-sim reported."""
    case = os.path.join(args.work, tag)
    shutil.rmtree(case, ignore_errors=True)
    os.makedirs(case)
    stats = os.path.join(args.work, f"stats_{tag}.csv")
    path = os.path.join(case, "scene.json")
    with open(path, "w") as f:
        json.dump(scene_of(os.path.join(case, "frames"), stats), f, indent=1)
    command = [args.pbf_sim, path, "--frames", str(frames)]
    if substeps:
        command += ["--substeps", str(substeps)]
    if args.threads:
        command += ["--threads", str(args.threads)]
    start = time.time()
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.time() - start
    if result.returncode != 0:
        sys.exit(f"run_validation.py: {' '.join(command)} failed:\n{result.stdout}")
    for k in range(frames + 1):
        measure_frame(k, read_ply(os.path.join(case, "frames", f"frame_{k:04d}.ply"), np))
    shutil.rmtree(os.path.join(case, "frames"))
    first = result.stdout.splitlines()[0] if result.stdout else ""
    particles = first.split(": ")[1].split(" particles")[0] if ": " in first else "?"
    return stats, wall, particles


def run_case(args, method, n, substeps, np, sampled=True, frames=None):
    """Runs the column a x 2a at a/n with pbf-sim; returns its front and column per frame, stats file and
    wall time."""
    tag = f"{method}_a{n}" + (f"_s{substeps}" if substeps else "") + ("" if sampled else "_plain")
    frames = frames_of(method) if frames is None else frames
    rows = []

    def measure_frame(k, positions):
        t = k / 60.0
        rows.append((t, t * math.sqrt(2 * G / A), *measure(positions, A / n, np)))

    stats, wall, particles = run_pbf_sim(
        args, tag, lambda out, stats: scene(method, args.backend, n, out, stats, sampled), frames, measure_frame, np,
        substeps)
    with open(os.path.join(args.work, f"front_{tag}.csv"), "w") as f:
        f.write("# pbf-sim dam break, " + tag + ": T = t sqrt(2 g / a), Z = front / a, H = column at the back wall / a\n")
        f.write("t_s,T,Z,H\n")
        for r in rows:
            f.write("%.6f,%.6f,%.6f,%.6f\n" % r)
    return {"tag": tag, "method": method, "n": n, "substeps": substeps, "rows": rows, "stats": stats,
            "wall": wall, "particles": particles, "sampled": sampled}


def gauge_scene(method, backend, n, out_dir, stats, frames=GAUGE_FRAMES):
    """Lobovsky et al.'s dam break at H/n as a pbf-sim scene: the column L x H at the back of the tank,
    a slab LAYERS particles deep, the walls sampled with boundary particles."""
    s = GAUGE_H / n
    depth = LAYERS * s
    return {
        "description": f"Lobovsky et al. 2014 dam break, column {GAUGE_L} m x {GAUGE_H} m in a tank {GAUGE_TANK[0]} m "
                       f"long, H/{n}, slab {LAYERS} particles deep",
        "domain": {"min": [0, 0, 0], "max": [GAUGE_TANK[0], GAUGE_TANK[1], depth]},
        "backend": backend, "method": method, "spacing": s, "boundary_particles": True,
        "time": {"fps": 60, "frames": frames},
        "fluid": [{"box": {"min": [0, 0, 0], "max": [GAUGE_L, GAUGE_H, depth]}}],
        "output": {"dir": out_dir, "ply": True, "stats": stats},
    }


def gauge_levels(positions, s, np, gauges=GAUGES):
    """The water level h / H at each of `gauges` ((name, x) pairs): the water_extent() over the floor of the
    particles in a band one spacing either side of the gauge."""
    return [water_extent(positions[np.abs(positions[:, 0] - x) < s][:, 1], s, np) / GAUGE_H for _, x in gauges]


def run_gauges(args, method, n, np, frames=None):
    """Runs Lobovsky et al.'s dam break at H/n; returns the gauges' levels per frame."""
    tag = f"gauges_{method}_h{n}"
    frames = gauge_frames_of(method) if frames is None else frames
    rows = []

    def measure_frame(k, positions):
        t = k / 60.0
        rows.append((t, t * math.sqrt(G / GAUGE_H), *gauge_levels(positions, GAUGE_H / n, np)))

    stats, wall, particles = run_pbf_sim(
        args, tag, lambda out, stats: gauge_scene(method, args.backend, n, out, stats, frames), frames, measure_frame, np)
    with open(os.path.join(args.work, f"levels_{tag}.csv"), "w") as f:
        f.write(f"# pbf-sim, Lobovsky et al. 2014 dam break, {tag}: T = t sqrt(g / H), levels h / H at the gauges\n")
        f.write("t_s,T," + ",".join(f"h_{name}" for name, _ in GAUGES) + "\n")
        for r in rows:
            f.write(",".join("%.6f" % v for v in r) + "\n")
    return {"tag": tag, "method": method, "n": n, "rows": rows, "stats": stats, "wall": wall, "particles": particles}


def crossing(ts, hs, level, after=0.0):
    """The first T after `after` at which the level hs reaches `level`, interpolated between samples; None if
    it never does."""
    for k in range(1, len(ts)):
        if ts[k] > after and hs[k] >= level > hs[k - 1]:
            return ts[k - 1] + (level - hs[k - 1]) / (hs[k] - hs[k - 1]) * (ts[k] - ts[k - 1])
    return None


def level_rms(run, gauge, data, until):
    """RMS of h_sim - h_exp (in H) over the experiment's samples up to T = until."""
    ts = [r[1] for r in run["rows"]]
    hs = [r[2 + gauge] for r in run["rows"]]
    errors = [interpolate(ts, hs, t) - h for t, h in zip(*data) if t <= min(until, ts[-1])]
    return math.sqrt(sum(e * e for e in errors) / len(errors)) if errors else None


def interpolate(xs, ys, x):
    if x <= xs[0]:
        return ys[0]
    for k in range(1, len(xs)):
        if x <= xs[k]:
            f = (x - xs[k - 1]) / (xs[k] - xs[k - 1])
            return ys[k - 1] + f * (ys[k] - ys[k - 1])
    return None


def rms_front_error(run, data, delay=0.0):
    """RMS of (Z_sim - Z_exp) / Z_exp over the data points inside the run and short of the far wall; with
    `delay`, the simulated front as if its column had been released that much later (Z_sim(T - delay))."""
    ts = [r[1] for r in run["rows"]]
    zs = [r[2] for r in run["rows"]]
    errors = []
    for t, z in zip(*data):
        if t - delay > ts[-1] or z > TANK - 1.0:
            continue
        errors.append((interpolate(ts, zs, t - delay) - z) / z)
    if not errors:
        return None, 0
    return math.sqrt(sum(e * e for e in errors) / len(errors)), len(errors)


def rms_column_error(run, data):
    """RMS of (H_sim - H_exp) / H_exp over the data points inside the run; with the count of points used."""
    ts = [r[1] for r in run["rows"]]
    hs = [r[3] for r in run["rows"]]
    errors = [(interpolate(ts, hs, t) - h) / h for t, h in zip(*data) if t <= ts[-1]]
    if not errors:
        return None, 0
    return math.sqrt(sum(e * e for e in errors) / len(errors)), len(errors)


def run_name(key, run):
    """'PBF, a/40, 8 substeps, plain walls' for the run of `key` (method, n, substeps)."""
    method, n, substeps = key
    return f"{METHOD_NAMES[method]}, a/{n}" + (f", {substeps} substeps" if substeps else "") + \
        ("" if run["sampled"] else ", plain walls")


def rms_cells(run, data, rms_of, target):
    """A table's cells for `run`: rms_of(run, d) of each data set d ('12.3 % (9)', the points used in brackets),
    then whether the worst is within `target`."""
    cells, worst = [], 0.0
    for d, _, _ in data:
        e, count = rms_of(run, d)
        cells.append("–" if e is None else "%.1f %% (%d)" % (100 * e, count))
        worst = max(worst, e or 0.0)
    return cells + ["yes" if worst <= target else "no"]


def best_delay(run, data):
    """The delay (0 to MAX_DELAY, in steps of 0.01 in T) that gives the smallest RMS front error, with that
    error: (delay, rms)."""
    best = (0.0, rms_front_error(run, data)[0])
    for k in range(1, int(round(MAX_DELAY / 0.01)) + 1):
        e = rms_front_error(run, data, 0.01 * k)[0]
        if e is not None and (best[1] is None or e < best[1]):
            best = (0.01 * k, e)
    return best


def energy_ratio(run):
    """Peak kinetic energy over the potential energy released by its frame (from the --stats file):
    above 1 the method made energy."""
    d = plot_stats.read_csv(run["stats"])
    k = max(range(len(d["time_s"])), key=lambda i: d["kinetic_energy_J"][i])
    released = d["mass_kg"][k] * G * (d["com_y_m"][0] - d["com_y_m"][k])
    return d["kinetic_energy_J"][k] / released if released > 0 else float("nan")


def sample(run, column, T):
    ts = [r[1] for r in run["rows"]]
    return interpolate(ts, [r[column] for r in run["rows"]], T)


def convergence_table(runs, label, column, what, samples=T_SAMPLES):
    """Markdown rows: the quantity at each of `samples` (times T) per run, then the successive differences."""
    lines = [f"| {label} | " + " | ".join(f"T = {T:g}" for T in samples) + " |",
             "|---|" + "---|" * len(samples)]
    previous = None
    for name, run in runs:
        values = [sample(run, column, T) for T in samples]
        lines.append(f"| {name}: {what} | " + " | ".join("%.3f" % v for v in values) + " |")
        if previous is not None:
            lines.append("| difference from the row before | " +
                         " | ".join("%+.3f" % (v - p) for v, p in zip(values, previous)) + " |")
        previous = values
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pbf-sim", default=os.path.join(ROOT, "build", "release", "samples", "pbf-sim"))
    parser.add_argument("--resolutions", type=int, nargs="+", default=[20, 40], help="particles across a")
    parser.add_argument("--fine", action="store_true", help="add a/80 (about 100,000 particles per run)")
    parser.add_argument("--methods", nargs="+", default=["pbf", "projective"], choices=["pbf", "projective"])
    parser.add_argument("--projective-resolutions", type=int, nargs="+", default=[20],
                        help="Projective Fluids' resolutions (default a/20 only: a/40 takes about half an hour)")
    parser.add_argument("--backend", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--substeps", type=int, nargs="*", default=[8, 16],
                        help="PBF at the coarsest resolution with these substeps too (besides the default)")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads, 0 = all")
    parser.add_argument("--no-plain-walls", dest="plain_walls", action="store_false",
                        help="skip the runs with plain walls (the planes' own density instead of boundary particles)")
    parser.add_argument("--plain-walls-resolutions", type=int, nargs="+", default=[20, 40],
                        help="the resolutions run again with plain walls")
    parser.add_argument("--gauge-resolutions", type=int, nargs="+", default=[20, 40],
                        help="PBF's resolutions (particles across H) of Lobovsky et al.'s dam break (Projective Fluids: "
                             "the coarsest)")
    parser.add_argument("--no-gauges", dest="gauges", action="store_false",
                        help="skip Lobovsky et al.'s dam break (the water-level gauges)")
    parser.add_argument("--work", default=os.path.join(ROOT, "build", "validation"), help="CSVs and frames")
    parser.add_argument("--doc", default=os.path.join(ROOT, "docs", "VALIDATION.md"))
    args = parser.parse_args()
    try:
        import numpy as np
    except ImportError:
        sys.exit("run_validation.py: needs numpy (Debian: python3-numpy)")
    if plot_stats.pyplot() is None:
        sys.exit("run_validation.py: needs python3-matplotlib (Debian)")
    if not os.access(args.pbf_sim, os.X_OK):
        sys.exit(f"run_validation.py: {args.pbf_sim}: no pbf-sim there (build it, or name it with --pbf-sim)")
    resolutions = sorted(set(args.resolutions + ([80] if args.fine else [])))
    os.makedirs(args.work, exist_ok=True)
    plots = os.path.join(os.path.dirname(os.path.abspath(args.doc)), "validation")
    os.makedirs(plots, exist_ok=True)
    data = [(read_data(f), legend, marker) for f, legend, marker in DATA]
    column_data = [(read_column_data(f, n2), legend, marker) for f, legend, marker, n2 in COLUMN_DATA]
    started = time.time()

    runs = {}
    levels = {"pbf": resolutions, "projective": sorted(set(args.projective_resolutions))}
    for method in args.methods:
        for n in levels[method]:
            print(f"{METHOD_NAMES[method]} at a/{n} ...", flush=True)
            runs[(method, n, 0)] = run_case(args, method, n, 0, np)
    coarse = resolutions[0]
    if "pbf" in args.methods:
        for substeps in args.substeps:
            print(f"PBF at a/{coarse} with {substeps} substeps ...", flush=True)
            runs[("pbf", coarse, substeps)] = run_case(args, "pbf", coarse, substeps, np)
    plain = {}  # the same runs with plain walls: the planes' own density instead of samples
    if args.plain_walls:
        for method in args.methods:
            for n in [n for n in levels[method] if n in args.plain_walls_resolutions]:
                print(f"{METHOD_NAMES[method]} at a/{n}, plain walls ...", flush=True)
                plain[(method, n, 0)] = run_case(args, method, n, 0, np, sampled=False)
    gauge_runs = {}  # Lobovsky et al.'s dam break: (method, n) -> levels per frame
    gauge_resolutions = {"pbf": sorted(set(args.gauge_resolutions)),
                         "projective": sorted(set(args.gauge_resolutions))[:1]}
    if args.gauges:
        for method in args.methods:
            for n in gauge_resolutions[method]:
                print(f"{METHOD_NAMES[method]}, Lobovsky et al.'s dam break at H/{n} ...", flush=True)
                gauge_runs[(method, n)] = run_gauges(args, method, n, np)
    total = time.time() - started

    doc = ["# Validation: dam breaks against experiment", "",
           "Generated by `tests/validation/run_validation.py` (see the end of this page to reproduce it).", "",
           "**The first case.** A water column *a* wide and 2*a* high (*a* = 0.15 m) collapses along a tank 10*a* long: "
           f"a slab {LAYERS} particles deep between side walls, the domain walls sampled with boundary particles "
           "(and again with plain walls, which add the density of the solid behind them, docs/PHYSICS.md §11), "
           f"frames of 1/60 s and every other setting at pbf-sim's defaults; PBF runs {FRAMES} frames "
           f"({FRAMES / 60:.1f} s), Projective Fluids {FRAMES_PROJECTIVE} ({FRAMES_PROJECTIVE / 60:.1f} s: its default "
           "adaptive steps take seconds per frame, so by default it runs at a/20 only). "
           "Each frame's surge front *Z* = *z*/*a* and residual column *H* = *h*/*a* at the back wall are measured on "
           "the connected water (bins of two particle spacings that hold at least a slab's depth of particles, "
           "counted from the back wall or the floor; spray beyond a gap is left out), plus half a spacing for the "
           "particles' own extent. Time is *T* = *t* √(2*g*/*a*).", "",
           "**The data** (`tests/validation/data/`, each file names its source): the surge front of Martin & Moyce "
           "(1952), Phil. Trans. R. Soc. A 244, Fig. 3, columns of *n*² = 2 with *a* = 2.25 in and 1.125 in, and of "
           "Koshizuka & Oka (1996), Nucl. Sci. Eng. 123; the residual column of Martin & Moyce's Table 6 (*a* = "
           "2.25 in, *n*² = 2: the times at which the water at the back wall fell past marks 1/18 of the column's "
           "height apart), given in the paper's *τ* = *t* √(*g*/*a*) and *η* = *h*/(*n*²*a*), here *T* = √2 *τ* and "
           "*H* = 2*η*.", "",
           f"**The target** (issue #15): front within {100 * FRONT_TARGET:g} % RMS of the experiment and residual "
           f"column within {100 * COLUMN_TARGET:g} %, at two resolutions.", "",
           "The second case, Lobovsky et al.'s wider column with water-level gauges along its tank, follows under "
           "\"Water levels against experiment\".", ""]

    doc += ["## Front against experiment", "",
            "RMS of the relative front error (*Z*_sim − *Z*_exp)/*Z*_exp over each data set's points within the "
            "simulated time and short of the far wall (points used in brackets). The energy column divides the run's "
            "peak kinetic energy by the potential energy its centre of mass had released by then (both from its "
            "`--stats` file): water that only falls and splashes stays below 1.", "",
            "| run | particles | " + " | ".join(legend for _, legend, _ in data) +
            f" | within {100 * FRONT_TARGET:g} %? | peak kinetic / released potential energy | wall time |",
            "|---|---|" + "---|" * len(data) + "---|---|---|"]
    for key, run in list(runs.items()) + list(plain.items()):
        cells = rms_cells(run, data, rms_front_error, FRONT_TARGET) + ["%.2f" % energy_ratio(run)]
        doc.append(f"| {run_name(key, run)} | {run['particles']} | " + " | ".join(cells) +
                   " | %.0f s |" % run["wall"])
    doc.append("")
    doc += ["**Speed or start?** The same comparison with the simulated front delayed by one constant *δT*, chosen "
            f"per run and data set (0 to {MAX_DELAY:g} in steps of 0.01) to make the RMS smallest: the column as if "
            "released that much later. This is a diagnosis, not a correction (no parameter of the method changes): "
            "where a small delay brings the error down, the simulated front moves at the experiment's speed and "
            "what differs is when the collapse starts, which the model takes as instantaneous.", "",
            "| run | " + " | ".join(legend for _, legend, _ in data) + " |", "|---|" + "---|" * len(data)]
    for (method, n, substeps), run in runs.items():
        if substeps:
            continue
        cells = []
        for d, _, _ in data:
            delay, e = best_delay(run, d)
            cells.append("–" if e is None else "*δT* = %.2f: %.1f %%" % (delay, 100 * e))
        doc.append(f"| {METHOD_NAMES[method]}, a/{n} | " + " | ".join(cells) + " |")
    doc.append("")

    for method in args.methods:
        lines = []
        for k, n in enumerate(levels[method]):
            rows = runs[(method, n, 0)]["rows"]
            lines.append((f"{METHOD_NAMES[method]}, a/{n}", [r[1] for r in rows], [r[2] for r in rows],
                          f"C{k}-"))
        points = [(legend, d[0], d[1], marker) for d, legend, marker in data]
        plot_stats.plot_lines(os.path.join(plots, f"front_{method}.png"), lines, "T = t sqrt(2g/a)", "Z = front / a",
                              f"Surge front, {METHOD_NAMES[method]}", points=points)
        lines = [(label, xs, [r[3] for r in runs[(method, n, 0)]["rows"]], style)
                 for (label, xs, _, style), n in zip(lines, levels[method])]
        plot_stats.plot_lines(os.path.join(plots, f"column_{method}.png"), lines, "T = t sqrt(2g/a)",
                              "H = column at the back wall / a", f"Residual column, {METHOD_NAMES[method]}",
                              points=[(legend, d[0], d[1], marker) for d, legend, marker in column_data])
        stats = [runs[(method, n, 0)]["stats"] for n in levels[method]]
        labels = sum([["--label", f"a/{n}"] for n in levels[method]], [])
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "plot_stats.py")] + stats + labels +
                       ["--out", os.path.join(args.work, f"plots_{method}")], check=True, stdout=subprocess.DEVNULL)
        shutil.copy(os.path.join(args.work, f"plots_{method}", "density.png"), os.path.join(plots, f"density_{method}.png"))
        doc += [f"### {METHOD_NAMES[method]}", "",
                f"![front](validation/front_{method}.png)", "",
                f"![column](validation/column_{method}.png)", "",
                f"![density error](validation/density_{method}.png)", ""]

    doc += ["## Residual column against experiment", "",
            "RMS of the relative error (*H*_sim − *H*_exp)/*H*_exp of the column's height at the back wall over the "
            "data's points within the simulated time (points used in brackets). The last points, where the column "
            "is a tenth of its height or less, weigh as much as the first.", "",
            "| run | " + " | ".join(legend for _, legend, _ in column_data) +
            f" | within {100 * COLUMN_TARGET:g} %? |", "|---|" + "---|" * len(column_data) + "---|"]
    for key, run in list(runs.items()) + list(plain.items()):
        doc.append(f"| {run_name(key, run)} | " + " | ".join(rms_cells(run, column_data, rms_column_error,
                                                                       COLUMN_TARGET)) + " |")
    doc.append("")

    if gauge_runs:
        gauge_data = {name: read_data(GAUGE_DATA[name]) for name, _ in GAUGES}
        experiment = {name: (crossing(*gauge_data[name], ARRIVAL_LEVEL),
                             crossing(*gauge_data[name], BORE_LEVEL, BORE_AFTER)) for name, _ in GAUGES}
        doc += ["## Water levels against experiment", "",
                f"**The case** (Lobovsky et al. 2014): a column {GAUGE_L:g} m long and {GAUGE_H:g} m high (*H*) at the "
                f"back of a tank {GAUGE_TANK[0]:g} m long, as a slab {LAYERS} particles deep with its walls sampled, frames "
                f"of 1/60 s and pbf-sim's defaults; PBF runs {GAUGE_FRAMES} frames ({GAUGE_FRAMES / 60:.1f} s), "
                f"Projective Fluids {GAUGE_FRAMES_PROJECTIVE} ({GAUGE_FRAMES_PROJECTIVE / 60:.1f} s) at the coarsest "
                "resolution. The gauges " + " and ".join(f"{name} (*x* = {x:g} m)" for name, x in GAUGES) +
                " read the top of the connected water over the floor in a band a spacing either side of them (bins of "
                "two spacings holding a slab's depth of particles), plus half a spacing; time is *T* = *t* √(*g*/*H*). "
                "**The data**: Lobovsky, Botia-Vera, Castellana, Mas-Soler and Souto-Iglesias (2014), J. Fluids Struct. "
                "48, 407–434, Fig. 16, *H* = 300 mm (`tests/validation/data/lobovsky_2014_h300_level_*.csv`, which "
                "name where the digitised numbers come from).", "",
                f"The surge *arrives* at a gauge when its level passes {ARRIVAL_LEVEL:g} *H*; the *bore* reflected from "
                f"the far wall passes it when the level passes {BORE_LEVEL:g} *H* after *T* = {BORE_AFTER:g}. The arrival "
                "error is relative to the experiment's arrival time (a front that runs ahead arrives early, a negative "
                f"error). The level error is the RMS of *h*_sim − *h*_exp, in *H*, over the surge (*T* ≤ {SURGE_UNTIL:g}, "
                "before the bore); after the bore a reading drops wherever the breaking wave leaves air under the crest, "
                "since it counts only the water connected to the floor.", "",
                "| run | particles | " + " | ".join(
                    f"arrival at {name} (exp. *T* = {experiment[name][0]:.2f})" for name, _ in GAUGES) + " | " +
                " | ".join(f"level error at {name}" for name, _ in GAUGES) + " | " +
                " | ".join(f"bore at {name} (exp. *T* = {experiment[name][1]:.2f})" for name, _ in GAUGES) +
                " | wall time |",
                "|---|---|" + "---|" * (3 * len(GAUGES)) + "---|"]
        for (method, n), run in gauge_runs.items():
            ts = [r[1] for r in run["rows"]]
            arrivals, level_cells, bores = [], [], []
            for k, (name, _) in enumerate(GAUGES):
                hs = [r[2 + k] for r in run["rows"]]
                arrival, bore = crossing(ts, hs, ARRIVAL_LEVEL), crossing(ts, hs, BORE_LEVEL, BORE_AFTER)
                arrivals.append("–" if arrival is None else "%.2f (%+.1f %%)" % (
                    arrival, 100 * (arrival - experiment[name][0]) / experiment[name][0]))
                bores.append("–" if bore is None else "%.2f (%+.1f %%)" % (
                    bore, 100 * (bore - experiment[name][1]) / experiment[name][1]))
                rms = level_rms(run, k, gauge_data[name], SURGE_UNTIL)
                level_cells.append("–" if rms is None else "%.3f *H*" % rms)
            doc.append(f"| {METHOD_NAMES[method]}, H/{n} | {run['particles']} | " + " | ".join(arrivals + level_cells + bores) +
                       " | %.0f s |" % run["wall"])
        doc.append("")
        for method in args.methods:
            runs_here = [(n, gauge_runs[(method, n)]) for n in gauge_resolutions[method] if (method, n) in gauge_runs]
            for k, (name, x) in enumerate(GAUGES):
                lines = [(f"{METHOD_NAMES[method]}, H/{n}", [r[1] for r in run["rows"]], [r[2 + k] for r in run["rows"]],
                          f"C{j}-") for j, (n, run) in enumerate(runs_here)]
                lines.append(("Lobovsky et al. 2014", gauge_data[name][0], gauge_data[name][1], "k-"))
                plot_stats.plot_lines(os.path.join(plots, f"level_{name}_{method}.png"), lines, "T = t sqrt(g/H)",
                                      "h / H", f"Water level at {name} (x = {x:g} m), {METHOD_NAMES[method]}")
            doc += [f"### {METHOD_NAMES[method]}", ""]
            for name, _ in GAUGES:
                doc += [f"![level at {name}](validation/level_{name}_{method}.png)", ""]
            if len(runs_here) > 1:
                series = [(f"H/{n}", run) for n, run in runs_here]
                for k, (name, _) in enumerate(GAUGES):
                    doc += [f"Level at {name} as the resolution doubles:", ""]
                    doc += convergence_table(series, "run", 2 + k, f"h at {name}", [2.0, 3.0, 4.0, 5.0]) + [""]

    doc += ["## Convergence", "",
            "Front *Z* and column *H* at fixed *T* as the resolution doubles, and (PBF, coarsest resolution) as the "
            "substeps rise; a converging method's successive differences shrink.", ""]
    for method in args.methods:
        series = [(f"a/{n}", runs[(method, n, 0)]) for n in levels[method]]
        doc += [f"### {METHOD_NAMES[method]}: resolution", ""]
        doc += convergence_table(series, "run", 2, "Z") + [""]
        doc += convergence_table(series, "run", 3, "H") + [""]
        plain_levels = [n for n in levels[method] if (method, n, 0) in plain]
        if len(plain_levels) > 1:
            series = [(f"a/{n}, plain walls", plain[(method, n, 0)]) for n in plain_levels]
            doc += [f"### {METHOD_NAMES[method]}: resolution, plain walls", ""]
            doc += convergence_table(series, "run", 2, "Z") + [""]
            doc += convergence_table(series, "run", 3, "H") + [""]
    if "pbf" in args.methods and args.substeps:
        series = [("default substeps", runs[("pbf", coarse, 0)])]
        series += [(f"{s} substeps", runs[("pbf", coarse, s)]) for s in args.substeps]
        doc += [f"### PBF at a/{coarse}: substeps", ""]
        doc += convergence_table(series, "run", 2, "Z") + [""]
        doc += convergence_table(series, "run", 3, "H") + [""]

    command = "python3 tests/validation/run_validation.py"
    if args.backend != "cpu":
        command += f" --backend {args.backend}"
    if args.fine:
        command += " --fine"
    if args.projective_resolutions != [20]:
        command += " --projective-resolutions " + " ".join(map(str, args.projective_resolutions))
    if args.gauge_resolutions != [20, 40]:
        command += " --gauge-resolutions " + " ".join(map(str, args.gauge_resolutions))
    if not args.gauges:
        command += " --no-gauges"
    doc += ["## Reproducing", "",
            "Build pbf-sim (`cmake --build build/release --target pbf-sim`), then, with python3-numpy and "
            "python3-matplotlib installed:", "", "```sh", command, "```", "",
            "`--fine` adds a/80, `--projective-resolutions 20 40` runs Projective Fluids at a/40 too, "
            "`--gauge-resolutions 20 40 80` adds H/80 to the gauges' runs, `--no-gauges` leaves them out, "
            "`--backend cuda` runs on the GPU, `--methods pbf` runs one method. The runs' "
            "CSVs (front and column per frame, and each run's `pbf-sim --stats` file) stay in `build/validation/`; "
            f"this page and `docs/validation/*.png` are rewritten. This run took {total:.0f} s "
            f"({os.cpu_count()} CPU threads, backend {args.backend}).", ""]
    with open(args.doc, "w") as f:
        f.write("\n".join(doc))
    print(f"{args.doc} written ({total:.0f} s of runs)")


if __name__ == "__main__":
    main()
