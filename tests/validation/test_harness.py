#!/usr/bin/env python3
"""Checks run_validation.py's reading and measuring against pbf-sim as built: both dam breaks run
for two frames at a coarse resolution, and the harness must read the particles where the scene put
them (the front at the column's face, the column at its height, dry gauges); its crossing times,
fitted delays and the column's error are checked on made-up curves. A change to pbf-sim's PLY files or scene format that
the harness would misread fails here, not in the next validation.

    python3 tests/validation/test_harness.py PBF_SIM WORK_DIR

Exits 77 (skipped) where numpy is missing.
"""
import argparse
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    try:
        import numpy as np
    except ImportError:
        print("skipped: the harness needs numpy (Debian: python3-numpy)")
        sys.exit(77)
    import run_validation as rv

    work = os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    args = argparse.Namespace(pbf_sim=os.path.abspath(sys.argv[1]), work=work, threads=0, backend="cpu")

    # read_ply takes the record from the header: a file with a property it does not know of between
    # the positions and after them still reads the positions.
    path = os.path.join(work, "two.ply")
    with open(path, "wb") as f:
        f.write(b"ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\nproperty uchar tag\n"
                b"property float y\nproperty float z\nproperty double w\nend_header\n")
        for x, y, z in [(1.0, 2.0, 3.0), (-4.0, 5.5, 6.25)]:
            f.write(struct.pack("<fBffd", x, 7, y, z, 9.0))
    positions = rv.read_ply(path, np)
    check(positions.shape == (2, 3) and positions.tolist() == [[1.0, 2.0, 3.0], [-4.0, 5.5, 6.25]],
          "read_ply reads x y z around other properties")

    n = 6  # a / 6: 6 x 12 x 8 particles
    run = rv.run_case(args, "pbf", n, 0, np, frames=2)
    check(run["particles"] == str(6 * 12 * rv.LAYERS), "the column's particle count as pbf-sim reports it")
    t, T, z, h = run["rows"][0]
    # Frame 0 is the lattice: centres from half a spacing to a - half a spacing, plus the half spacing.
    check(abs(z - 1.0) < 0.5 / n, "frame 0: the front at the column's face (Z = %.3f)" % z)
    check(abs(h - 2.0) < 0.5 / n, "frame 0: the column at its height (H = %.3f)" % h)
    check(len(run["rows"]) == 3 and run["rows"][2][2] >= z, "two frames later the front has not gone back")
    check(os.path.exists(run["stats"]), "the stats file is written")

    gauges = rv.run_gauges(args, "pbf", 8, np, frames=2)
    levels = gauges["rows"][0][2:]
    check(len(levels) == len(rv.GAUGES) and all(v == 0.0 for v in levels), "frame 0: the gauges are dry")
    # The same reading at a point inside the column gives its height.
    s = rv.GAUGE_H / 8
    lattice = np.array([[(i + 0.5) * s, (j + 0.5) * s, (k + 0.5) * s]
                        for i in range(int(round(rv.GAUGE_L / s))) for j in range(8) for k in range(rv.LAYERS)])
    inside = rv.gauge_levels(lattice, s, np, [("inside", 0.3)])[0]
    check(abs(inside - 1.0) < 1e-6, "a gauge inside the column reads its height (h = %.3f)" % inside)

    ts, hs = [0.0, 1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.2, 0.1, 0.5]
    check(abs(rv.crossing(ts, hs, 0.1) - 1.5) < 1e-12, "crossing interpolates the first passage")
    check(abs(rv.crossing(ts, hs, 0.15, 2.5) - 3.125) < 1e-12, "crossing after a time skips an earlier passage")
    check(rv.crossing(ts, hs, 0.6) is None, "a level never reached has no crossing")

    # A simulated front 0.3 ahead of the experiment's (as if released 0.3 earlier): delayed by 0.3 it is the
    # experiment's, and best_delay finds that; one 0.3 behind has no delay to find (delays are not negative)
    # and keeps its error.
    data = ([0.5, 1.0, 1.5, 2.0, 2.5], [1.1, 1.4, 1.9, 2.5, 3.2])

    def front(T):
        return 1.0 if T <= 0.0 else rv.interpolate([0.0] + data[0], [1.0] + data[1], min(T, 2.5))

    ahead = {"rows": [(0.0, 0.05 * k, front(0.05 * k + 0.3), 0.0) for k in range(61)]}
    behind = {"rows": [(0.0, 0.05 * k, front(0.05 * k - 0.3), 0.0) for k in range(61)]}
    delay, error = rv.best_delay(ahead, data)
    check(abs(delay - 0.3) < 1e-9 and error < 1e-3, "a front 0.3 ahead is found 0.3 ahead (%.2f, %.4f)" % (delay, error))
    delay, error = rv.best_delay(behind, data)
    check(delay == 0.0 and error > 0.05, "a front behind has no delay to find (error %.3f)" % error)

    # The residual column's data in this page's variables (Martin & Moyce give tau = t sqrt(g / a) and
    # eta = h / (n^2 a)): T = tau sqrt(2), H = n^2 eta; the first point of Table 6 is (0.56, 0.94).
    name, _, _, n2 = rv.COLUMN_DATA[0]
    ts, hs = rv.read_column_data(name, n2)
    check(abs(ts[0] - 0.56 * 2 ** 0.5) < 1e-12 and abs(hs[0] - 1.88) < 1e-12 and len(ts) == len(hs) == 17,
          "the column's data converted to T and H (%.3f, %.3f)" % (ts[0], hs[0]))
    # A column 10 % above the data wherever the run reaches: RMS 0.1 over the points inside the run only.
    column = ([1.0, 2.0, 5.0], [1.5, 1.0, 0.5])
    high = {"rows": [(0.0, 0.1 * k, 0.0, 1.1 * rv.interpolate(column[0], column[1], max(0.1 * k, 1.0)))
                     for k in range(31)]}
    error, count = rv.rms_column_error(high, column)
    check(abs(error - 0.1) < 1e-9 and count == 2, "a column 10 %% high has an RMS error of 0.1 (%.4f, %d points)"
          % (error, count))

    if failures:
        print("%d failed" % len(failures))
        sys.exit(1)
    print("all passed")


if __name__ == "__main__":
    main()
