#!/usr/bin/env python3
"""Plots pbf-sim --stats CSV files (docs/SCENES.md, section 5, lists the columns).

    python3 tools/plot_stats.py run.csv [more.csv ...] [--out DIR] [--label NAME ...]
                                [--x iterations|substeps|per-frame] [--at SECONDS]

writes into DIR (default: the first file's folder):
  density.png      average (solid) and largest (dashed) density error over time, one colour per
                   run: the density-over-time plot of Macklin & Mueller 2013, Fig. 4;
  energy.png       kinetic energy over time;
  convergence.png  with two or more files: each run's average and largest density error at time
                   --at (default: each run's last frame) against its iterations per substep (or
                   substeps per frame, or both multiplied): the convergence plot of their Fig. 6.

Needs python3-matplotlib (Debian). The validation harness (tests/validation/) draws its plots
with plot_lines() from here.
"""
import argparse
import csv
import os
import sys

SKIP = 77  # ctest's SKIP_RETURN_CODE: matplotlib is missing


def read_csv(path):
    """The CSV as {column: [float, ...]}, in file order."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise ValueError(f"{path}: empty file")
    header = rows[0]
    data = {name: [] for name in header}
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise ValueError(f"{path}: line {number}: {len(row)} cells, the header has {len(header)}")
        for name, cell in zip(header, row):
            data[name].append(float(cell))
    return data


def pyplot():
    """matplotlib.pyplot without a display, or None when python3-matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot_lines(path, lines, xlabel, ylabel, title, points=(), logy=False):
    """Writes a PNG: `lines` are (label, xs, ys, style) curves, `points` (label, xs, ys, marker) measurements."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for label, xs, ys, style in lines:
        ax.plot(xs, ys, style, label=label, linewidth=1.4, markersize=4)
    for label, xs, ys, marker in points:
        ax.plot(xs, ys, marker, label=label, markersize=5, markerfacecolor="none")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def row_at(data, t):
    """Index of the row whose time is nearest to t (None: the last row)."""
    times = data["time_s"]
    if t is None:
        return len(times) - 1
    return min(range(len(times)), key=lambda k: abs(times[k] - t))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv", nargs="+", help="pbf-sim --stats files")
    parser.add_argument("--out", help="folder for the PNG files (default: the first file's folder)")
    parser.add_argument("--label", action="append", help="a run's name in the legends, once per file, in order")
    parser.add_argument("--x", choices=["iterations", "substeps", "per-frame"], default="iterations",
                        help="convergence plot's axis: iterations per substep, substeps per frame, or their product")
    parser.add_argument("--at", type=float, help="time [s] of the convergence plot (default: each run's last frame)")
    args = parser.parse_args(argv)
    if args.label and len(args.label) != len(args.csv):
        parser.error(f"{len(args.label)} --label for {len(args.csv)} files")
    if pyplot() is None:
        print("plot_stats.py: python3-matplotlib is not installed (apt-get install python3-matplotlib); "
              "nothing plotted", file=sys.stderr)
        return SKIP
    runs = []
    for k, path in enumerate(args.csv):
        try:
            data = read_csv(path)
        except (OSError, ValueError) as e:
            print(f"plot_stats.py: {e}", file=sys.stderr)
            return 1
        missing = [c for c in ("time_s", "avg_density_error", "max_density_error", "kinetic_energy_J",
                               "substeps", "iterations") if c not in data]
        if missing:
            print(f"plot_stats.py: {path}: no column {', '.join(missing)} (not a pbf-sim --stats file?)",
                  file=sys.stderr)
            return 1
        label = args.label[k] if args.label else os.path.splitext(os.path.basename(path))[0]
        runs.append((label, data))
    out = args.out or os.path.dirname(os.path.abspath(args.csv[0]))
    os.makedirs(out, exist_ok=True)
    colours = ["C%d" % k for k in range(10)]
    written = []

    lines = []
    for k, (label, d) in enumerate(runs):
        c = colours[k % 10]
        # Frame 0 has no step and so no density error: the curves start at the first step.
        t = d["time_s"][1:]
        lines.append((f"{label}: average", t, [100 * e for e in d["avg_density_error"][1:]], c + "-"))
        lines.append((f"{label}: largest", t, [100 * e for e in d["max_density_error"][1:]], c + "--"))
    written.append(plot_lines(os.path.join(out, "density.png"), lines, "time [s]", "density error [%]",
                              "Compression over time (rest density = 0 %)"))

    lines = [(label, d["time_s"], d["kinetic_energy_J"], colours[k % 10] + "-") for k, (label, d) in enumerate(runs)]
    written.append(plot_lines(os.path.join(out, "energy.png"), lines, "time [s]", "kinetic energy [J]",
                              "Kinetic energy over time"))

    if len(runs) > 1:
        xs, avg, big = [], [], []
        for label, d in runs:
            k = row_at(d, args.at)
            substeps = d["substeps"][-1]
            # Iterations run per substep over the run (density_iterations: the density tolerance may choose
            # them), else the count set.
            ran, taken = sum(d.get("density_iterations", [0])), sum(d["substeps"])
            per_substep = ran / taken if ran > 0 and taken > 0 else d["iterations"][-1]
            xs.append({"iterations": per_substep, "substeps": substeps, "per-frame": per_substep * substeps}[args.x])
            avg.append(max(100 * d["avg_density_error"][k], 1e-6))
            big.append(max(100 * d["max_density_error"][k], 1e-6))
        order = sorted(range(len(xs)), key=lambda k: xs[k])
        xs, avg, big = [xs[k] for k in order], [avg[k] for k in order], [big[k] for k in order]
        axis = {"iterations": "iterations per substep", "substeps": "substeps per frame",
                "per-frame": "iterations per frame"}[args.x]
        when = "the last frame" if args.at is None else f"t = {args.at:g} s"
        written.append(plot_lines(os.path.join(out, "convergence.png"),
                                  [("average", xs, avg, "o-"), ("largest", xs, big, "s--")],
                                  axis, "density error [%]", f"Density error at {when} ({len(runs)} runs)",
                                  logy=True))
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
