#!/usr/bin/env python3
"""Opens pbf-sim's output files with the readers people use, not with our own parsers.

    python3 tests/sim/real_readers.py PBF_SIM WORK_DIR [--vdb]

Runs PBF_SIM (two frames of the built-in dam break, coarse) into WORK_DIR with particle PLY and
VTP frames and surfaces as PLY and OBJ (and with --vdb as OpenVDB files), then checks, frame by
frame:
  - VTK's PLY reader (ParaView's) sees every particle where the VTP frame has it, with a colour
    that is the speed on the ramp the PLY's header names;
  - meshio (as Python tools read meshes) sees vx vy vz and density equal to the VTP's arrays;
  - VTK's XML reader sees the VTP's velocity, speed and density;
  - VTK's PLY and OBJ readers see the same closed surface, with unit normals pointing out;
  - with --vdb, OpenVDB's Python module sees a level set "surface" (negative inside the water,
    positive outside) and a fog volume "density" that holds the surface mesh's volume.
Needs python3-vtk9 and python3-meshio (Debian), with --vdb python3-openvdb; exits 77 (ctest's skip)
naming what is missing.
"""
import os
import shutil
import subprocess
import sys

SKIP = 77

try:
    import numpy as np
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
    import meshio
except ImportError as e:  # pragma: no cover - reported as a skip
    print(f"skipped: {e.name} is not installed (Debian: python3-vtk9 python3-meshio)")
    sys.exit(SKIP)

FAILURES = []
WITH_VDB = "--vdb" in sys.argv[1:]
if WITH_VDB:
    sys.argv.remove("--vdb")
    try:
        import pyopenvdb
    except ImportError as e:  # pragma: no cover - reported as a skip
        print(f"skipped: {e.name} is not installed (Debian: python3-openvdb)")
        sys.exit(SKIP)


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        FAILURES.append(what)


def point_arrays(data):
    pd = data.GetPointData()
    return {pd.GetArrayName(i): vtk_to_numpy(pd.GetArray(i)) for i in range(pd.GetNumberOfArrays())}


def read_vtk(reader_class, path):
    reader = reader_class()
    reader.SetFileName(path)
    reader.Update()
    return reader.GetOutput()


def speed_ramp(t):
    """The ramp of the header's comment (src/io/ply_writer.cpp), for t in [0, 1]."""
    stops = np.array([[0.04, 0.16, 0.50], [0.07, 0.38, 0.80], [0.18, 0.66, 0.92], [0.60, 0.88, 0.97],
                      [0.98, 0.99, 1.0]])
    x = np.clip(t, 0.0, 1.0) * 4.0
    i = np.minimum(x.astype(int), 3)
    w = (x - i)[:, None]
    return 255.0 * ((1.0 - w) * stops[i] + w * stops[i + 1])


def ply_speed_scale(path):
    with open(path, "rb") as f:
        for line in f:
            text = line.decode("ascii", "replace")
            if text.startswith("comment red green blue: speed, 0 (deep blue) to "):
                return float(text.split(" to ")[1].split()[0])
            if text.startswith("end_header"):
                break
    return None


def check_particles(out, frame):
    name = f"frame_{frame:04d}"
    vtp = read_vtk(vtk.vtkXMLPolyDataReader, os.path.join(out, name + ".vtp"))
    ref_points = vtk_to_numpy(vtp.GetPoints().GetData())
    ref = point_arrays(vtp)
    n = len(ref_points)
    check(n > 100 and {"velocity", "speed", "density"} <= set(ref), f"{name}.vtp: {n} points, arrays {sorted(ref)}")

    ply = read_vtk(vtk.vtkPLYReader, os.path.join(out, name + ".ply"))
    points = vtk_to_numpy(ply.GetPoints().GetData()) if ply.GetPoints() else np.zeros((0, 3))
    check(points.shape == ref_points.shape and np.array_equal(points, ref_points),
          f"{name}.ply, VTK's PLY reader: the {n} particles where the VTP has them")
    colours = point_arrays(ply).get("RGB")
    check(colours is not None and colours.shape == (n, 3), f"{name}.ply, VTK's PLY reader: a colour per particle")
    scale = ply_speed_scale(os.path.join(out, name + ".ply"))
    check(scale is not None and scale > 0, f"{name}.ply: the header names the colour scale ({scale} m/s)")
    if colours is not None and colours.shape == (n, 3) and scale:
        expected = speed_ramp(ref["speed"] / scale)
        worst = float(np.max(np.abs(colours.astype(float) - expected)))
        check(worst <= 1.0, f"{name}.ply: colour = speed on the ramp, within one step (worst {worst:.2f})")

    mesh = meshio.read(os.path.join(out, name + ".ply"))
    keys = set(mesh.point_data)
    check({"vx", "vy", "vz", "density"} <= keys, f"{name}.ply, meshio: point data {sorted(keys)}")
    if {"vx", "vy", "vz", "density"} <= keys:
        velocity = np.stack([mesh.point_data[k] for k in ("vx", "vy", "vz")], axis=1)
        check(np.array_equal(mesh.points, ref_points) and np.array_equal(velocity, ref["velocity"]) and
              np.array_equal(mesh.point_data["density"], ref["density"]),
              f"{name}.ply, meshio: positions, velocities and densities equal the VTP's")
    return ref


def check_surface(out, frame):
    name = f"surface_{frame:04d}"
    ply = read_vtk(vtk.vtkPLYReader, os.path.join(out, name + ".ply"))
    obj = read_vtk(vtk.vtkOBJReader, os.path.join(out, name + ".obj"))
    triangles = ply.GetNumberOfPolys()
    check(triangles > 100 and ply.GetNumberOfPoints() > 50,
          f"{name}.ply, VTK's PLY reader: {ply.GetNumberOfPoints()} vertices, {triangles} triangles")
    check(obj.GetNumberOfPolys() == triangles, f"{name}.obj, VTK's OBJ reader: the same {obj.GetNumberOfPolys()} triangles")

    # Closed: VTK finds no boundary edge and no edge shared by more than two triangles.
    edges = vtk.vtkFeatureEdges()
    edges.SetInputData(ply)
    edges.BoundaryEdgesOn()
    edges.NonManifoldEdgesOn()
    edges.FeatureEdgesOff()
    edges.ManifoldEdgesOff()
    edges.Update()
    check(edges.GetOutput().GetNumberOfCells() == 0,
          f"{name}.ply: closed ({edges.GetOutput().GetNumberOfCells()} boundary or non-manifold edges)")

    normals = point_arrays(ply).get("Normals")
    check(normals is not None and normals.shape == (ply.GetNumberOfPoints(), 3), f"{name}.ply: a normal per vertex")
    if normals is None:
        return
    lengths = np.linalg.norm(normals, axis=1)
    check(float(np.max(np.abs(lengths - 1.0))) < 1e-3, f"{name}.ply: unit normals")
    # Outward: VTK's own normals of the closed surface, oriented outwards, agree with ours.
    ours = vtk.vtkPolyDataNormals()
    ours.SetInputData(ply)
    ours.ComputePointNormalsOn()
    ours.ConsistencyOn()
    ours.AutoOrientNormalsOn()
    ours.SplittingOff()
    ours.Update()
    theirs = point_arrays(ours.GetOutput())["Normals"]
    agree = float(np.mean(np.sum(theirs * normals, axis=1) > 0.5))
    check(agree > 0.95, f"{name}.ply: normals point out (agree with VTK's outward normals at {100 * agree:.1f} % of vertices)")
    volume = vtk.vtkMassProperties()
    volume.SetInputData(ply)
    volume.Update()
    check(volume.GetVolume() > 0, f"{name}.ply: encloses {volume.GetVolume():.4f} m^3")
    if WITH_VDB:
        check_vdb(os.path.join(out, name + ".vdb"), volume.GetVolume(), ply)


def check_vdb(path, mesh_volume, mesh):
    name = os.path.basename(path)
    grids, meta = pyopenvdb.readAll(path)
    by_name = {g.name: g for g in grids}
    check(set(by_name) == {"surface", "density"}, f"{name}, OpenVDB: grids {sorted(by_name)}")
    check(meta.get("description", "").startswith("pbf-sim liquid, frame "), f"{name}: description {meta.get('description')!r}")
    if set(by_name) != {"surface", "density"}:
        return
    surface, density = by_name["surface"], by_name["density"]
    check(surface.gridClass == "level set" and density.gridClass == "fog volume",
          f"{name}: 'surface' is a {surface.gridClass}, 'density' a {density.gridClass}")
    voxel = surface.transform.voxelSize()[0]
    # Inside the water (a point half a voxel below the mesh's highest vertex, above its middle) the
    # level set is negative; well above the mesh it is positive.
    points = vtk_to_numpy(mesh.GetPoints().GetData())
    lo, hi = points.min(axis=0), points.max(axis=0)
    centre = 0.5 * (lo + hi)
    accessor = surface.getConstAccessor()
    inside = accessor.getValue(tuple(int(round(c / voxel)) for c in centre))
    above = accessor.getValue(tuple(int(round(c / voxel)) for c in (centre[0], hi[1] + 10 * voxel, centre[2])))
    check(inside < 0 < above, f"{name}: the level set is {inside:.3g} m inside the water and {above:.3g} m above it")
    # The fog volume's integral is the liquid's volume.
    total = 0.0
    for item in density.iterOnValues():
        total += item["value"] * item["count"]
    total *= voxel ** 3
    check(abs(total / mesh_volume - 1.0) < 0.02,
          f"{name}: the fog volume holds {total:.4f} m^3, the mesh {mesh_volume:.4f} m^3 (within 2 %)")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    sim, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out = os.path.join(work, "out")
    run = subprocess.run([sim, "--frames", "2", "--spacing", "0.1", "--out", out, "--ply", "--vtp", "--surface",
                          "--surface-format", "both"] + (["--vdb"] if WITH_VDB else []), capture_output=True, text=True)
    check(run.returncode == 0, f"pbf-sim ran (exit status {run.returncode}) {run.stderr.strip()}")
    if run.returncode != 0:
        return 1
    for frame in (0, 2):
        ref = check_particles(out, frame)
        if frame == 2:
            check(float(np.max(ref["speed"])) > 0.1, "frame 2: the water moves, so the colours differ")
        check_surface(out, frame)
    print(f"{len(FAILURES)} failed" if FAILURES else "all passed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
