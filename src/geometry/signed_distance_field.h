// signed_distance_field.h - signed distance fields on a regular grid: built
// from a triangle mesh (Embree finds the closest triangles and casts the
// rays that decide inside from outside) or from an analytic shape, and the
// particles that fill a solid given by one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/lattice_fill.h"
#include "core/sdf_grid.h"
#include "geometry/triangle_mesh.h"

namespace pbf {

// The most samples a field may hold (512^3, 512 MiB of floats).
constexpr uint64_t kMaxSdfSamples = uint64_t(1) << 27;
// The most samples along one axis.
constexpr int32_t kMaxSdfDim = 4096;
// The range of a grid's cell [m]: a hundredth of the finest particle spacing
// (1e-4 m) to a thousand times the coarsest (1e3 m). Within it a grid of at
// most kMaxSdfDim cells along an axis and its distances stay far inside float
// range (a cell of FLT_MAX put the origin at -Inf; one of FLT_MIN made any
// point 1e15 m away infinitely many cells out).
constexpr float kMinSdfCell = 1e-6f;
constexpr float kMaxSdfCell = 1e6f;
// The farthest a grid's sample may lie from the world's origin, in cells
// (2^20): beyond it floats no longer resolve a cell (a mesh placed at 1e30 m
// gave a grid whose samples all had the same coordinates).
constexpr double kMaxSdfCellsFromOrigin = 1048576.0;

// Samples values[i + nx * (j + ny * k)] at origin + (i, j, k) * cell [m],
// negative inside the solid.
struct SignedDistanceField {
  std::vector<float> values;
  int32_t nx = 0, ny = 0, nz = 0;
  Vec3 origin{0.0f, 0.0f, 0.0f};
  float cell = 0.0f;

  SdfGridView view() const { return SdfGridView{values.data(), nx, ny, nz, origin, cell}; }
  size_t size() const { return size_t(nx) * size_t(ny) * size_t(nz); }
};

struct SdfOptions {
  float cell = 0.0f;  // sample spacing [m], kMinSdfCell .. kMaxSdfCell
  // Distances beyond `band` [m] are stored as +-band, which lets the build
  // skip the exact distance there; 0 = exact everywhere. Otherwise finite and
  // at least two cells (kMinBandCells); a band as long as the grid's
  // diagonal or longer clamps nothing and gives the exact field.
  float band = 0.0f;
  int32_t margin = 4;  // cells of padding around the mesh's bounds, 1 .. 64
};

constexpr float kMinBandCells = 2.0f;

// The signed distance field of `mesh` over its bounds grown by `margin`
// cells. Distances are exact (to float precision) within the band: the
// distance to the closest point of any triangle, found with Embree's point
// queries. The sign comes from rays: along each axis one ray runs through
// every line of samples and Embree reports all its crossings; each sample
// gets six votes (the parity of the crossings on either side of it on each of
// its three lines) and is inside when at least four say so. This tolerates
// open meshes, small holes, and inconsistent triangle orientation (the vote
// does not read orientation). Parallel over z-slices; the result does not
// depend on the thread count. Throws Error (InvalidArgument) for a bad cell,
// band or margin, a mesh without triangles or with non-finite vertices or
// indices out of range, a grid of more than kMaxSdfSamples samples, or one
// reaching more than kMaxSdfCellsFromOrigin cells from the origin.
SignedDistanceField build_sdf(const TriangleMesh& mesh, const SdfOptions& options);

// Exact signed distance fields of a box with the given half extents [m] and
// of a sphere of `radius` [m], centred at the origin, on grids of spacing
// `cell` reaching `margin` cells beyond the solid. Throws Error
// (InvalidArgument) for non-positive or non-finite sizes, a cell outside
// kMinSdfCell .. kMaxSdfCell or too large grids.
SignedDistanceField box_sdf(Vec3 half_extents, float cell, int32_t margin = 4);
SignedDistanceField sphere_sdf(float radius, float cell, int32_t margin = 4);

// The volume where the field is negative [m^3]: each sample stands for a
// cell^3 cube, counted by the fraction of it inside when the surface crosses it
// (the linear estimate 1/2 - d / cell, clamped to [0, 1]).
double sdf_volume(const SdfGridView& field);

// What a rigid body of uniform `density` [kg/m^3] filling the solid weighs
// and how it turns, counted as sdf_volume() counts: each sample a cube of
// cell^3 by the fraction inside, at its sample point. The inertia tensor is
// about the centre of mass, in the field's axes, row-major; each cube adds
// its own m cell^2 / 6 on the diagonal. A field with nothing inside has mass 0
// and the centre and inertia 0.
struct MassProperties {
  double mass;         // [kg]
  double centre[3];    // centre of mass in the field's frame [m]
  double inertia[9];   // [kg m^2]
};
MassProperties sdf_mass_properties(const SdfGridView& field, double density);

// Particle positions in the world on the lattice domain_min + (i + 1/2) *
// spacing (the lattice pbf_solver_fill_box() uses for a box anchored at the
// domain's corner) where the field, placed by `placement` (x_world =
// R x_field + t), is negative; each point stands for a spacing^3 cube, so
// the count times spacing^3 approximates the solid's volume. Points outside
// [domain_min, domain_max], or closer than half a spacing to one of its
// walls (as pbf_solver_fill_box() leaves them out), are skipped, and so
// are those `keep` does not keep (empty: it keeps every one; it is called
// from several threads at once). x, y, z triples in lattice order.
// Throws Error: CapacityExceeded (with the count of points kept) when more
// than `max_points` points would be made; InvalidArgument for a spacing that
// is not > 0 or that would test more than kMaxFillCandidates lattice points.
std::vector<float> fill_solid(const SdfGridView& field, const RigidTransform& placement, float spacing,
                              Vec3 domain_min, Vec3 domain_max, size_t max_points = SIZE_MAX,
                              const LatticeKeep& keep = {});

// The most lattice points fill_solid() tests (2^31).
constexpr uint64_t kMaxFillCandidates = uint64_t(1) << 31;

// Points spread evenly over the surface of the solid a field describes, or
// over the level `depth` [m] inside it (field = -depth), about `spacing`
// apart, in the world (x_world = R x_field + t): boundary particles for it
// (Akinci et al. 2012). Lattice points of the field's grid box at `spacing`
// within a spacing of that level are moved onto it along the field's
// gradient (a few Newton steps on the trilinear field), kept when they land
// within 5 % of a spacing of it, and then thinned in lattice order so that
// no two kept points are closer than 0.8 spacings. Only the lattice points in
// grid cells whose corners come within a spacing of the level are tested, and
// with a `region` (a box in the world) only those placed within two spacings
// of it, so that the work follows the part of the surface wanted, not the
// grid's box; the points kept far from the region's edges are the same as
// without it. The result is deterministic. Throws Error (InvalidArgument) for
// a spacing that is not > 0, that spans more than kMaxFillCandidates lattice
// points along an axis of the grid box or that would test more than
// kMaxFillCandidates points, or a negative depth.
std::vector<Vec3> sample_surface(const SdfGridView& field, const RigidTransform& placement, float spacing,
                                 float depth = 0.0f, const Bounds* region = nullptr);

// The field at p as pbf_sdf_distance() reports it: sdf_sample() inside the
// grid box; outside it the value at the box's closest point plus the distance
// to the box, computed in double so that it cannot overflow for any finite p,
// and saturated to +-FLT_MAX [m].
float sdf_distance(const SdfGridView& field, Vec3 p);

}  // namespace pbf
