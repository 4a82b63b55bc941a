// pbf_capi_geometry.cpp - the C API of signed distance fields: from mesh
// files, from analytic shapes and from saved files; as obstacles and as
// shapes to fill with fluid and as surfaces sampled into boundary particles.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "capi/capi_guard.h"
#include "capi/capi_sdf.h"
#include "capi/capi_solver.h"
#include "core/sdf_grid.h"
#include "geometry/mesh_loader.h"
#include "geometry/sdf_file.h"
#include "geometry/signed_distance_field.h"
#include "pbf/pbf.h"
#include "boundary/boundary_sampling.h"

namespace pbf::capi {
namespace {

// Cells of padding around a solid.
constexpr int32_t kMargin = 4;

void require_path(const char* path) {
  require_not_null(path, "path");
  if (path[0] == '\0') reject(PBF_ERROR_INVALID_ARGUMENT, "path is empty");
}

void require_cell(float cell) {
  if (!(cell >= kMinSdfCell && cell <= kMaxSdfCell))
    reject(PBF_ERROR_INVALID_ARGUMENT, "cell must be " + describe(kMinSdfCell) + " .. " + describe(kMaxSdfCell) +
                                           " m, got " + describe(cell));
}

// A checked placement (NULL: no rotation, the origin), its quaternion
// normalised as the solver normalises an obstacle's, so that a fill or a
// surface sampling lines up with the obstacle of the same pose; its
// translation moved into `frame` (a solver's, where the library computes its
// fills and samples: far from the world's origin as exact as near it).
RigidTransform read_placement(const float rotation[4], const float translation[3],
                              const LocalFrame& frame = LocalFrame{}) {
  float q[4] = {0.0f, 0.0f, 0.0f, 1.0f};
  Vec3 t{0.0f, 0.0f, 0.0f};
  read_pose(rotation, translation, q, t);
  normalize_quaternion(q, q);
  return rigid_transform(q, frame.to_local(t));
}

// Hands a new field to the caller.
void give(SignedDistanceField&& field, pbf_sdf** out) { *out = new pbf_sdf{std::move(field)}; }

}  // namespace
}  // namespace pbf::capi

using namespace pbf;
using namespace pbf::capi;

extern "C" {

pbf_status pbf_sdf_from_mesh_file(const char* path, const float scale[3], const float rotation[4],
                                  const float translation[3], float cell, float band, pbf_sdf** out_sdf) {
  if (out_sdf) *out_sdf = nullptr;
  return guarded(__func__, [&] {
    require_not_null(out_sdf, "out_sdf");
    require_path(path);
    MeshTransform transform;
    if (scale) {
      require_vec3_finite(scale, "scale");
      for (int a = 0; a < 3; ++a)
        if (scale[a] == 0.0f)
          reject(PBF_ERROR_INVALID_ARGUMENT, "scale[" + std::to_string(a) + "] must be non-zero, got 0");
      std::memcpy(transform.scale, scale, sizeof transform.scale);
    }
    read_pose(rotation, translation, transform.rotation, transform.translation);
    require_cell(cell);
    require_finite(band, "band");
    if (band < 0.0f) reject(PBF_ERROR_INVALID_ARGUMENT, "band must be >= 0 m, got " + describe(band));
    if (band != 0.0f && band < kMinBandCells * cell)
      reject(PBF_ERROR_INVALID_ARGUMENT, "band must be 0 (exact everywhere) or at least 2 x cell (" +
                                             describe(kMinBandCells * cell) + " m), got " + describe(band));
    const TriangleMesh mesh = load_mesh(path, transform);
    SdfOptions options;
    options.cell = cell;
    options.band = band;
    options.margin = kMargin;
    give(build_sdf(mesh, options), out_sdf);
  });
}

pbf_status pbf_sdf_box(const float half_extents[3], float cell, pbf_sdf** out_sdf) {
  if (out_sdf) *out_sdf = nullptr;
  return guarded(__func__, [&] {
    require_not_null(out_sdf, "out_sdf");
    require_not_null(half_extents, "half_extents");
    for (int a = 0; a < 3; ++a) require_positive(half_extents[a], "half_extents[" + std::to_string(a) + "]");
    require_cell(cell);
    give(box_sdf(Vec3{half_extents[0], half_extents[1], half_extents[2]}, cell, kMargin), out_sdf);
  });
}

pbf_status pbf_sdf_sphere(float radius, float cell, pbf_sdf** out_sdf) {
  if (out_sdf) *out_sdf = nullptr;
  return guarded(__func__, [&] {
    require_not_null(out_sdf, "out_sdf");
    require_positive(radius, "radius");
    require_cell(cell);
    give(sphere_sdf(radius, cell, kMargin), out_sdf);
  });
}

pbf_status pbf_sdf_save(const pbf_sdf* sdf, const char* path) {
  return guarded(__func__, [&] {
    require_not_null(sdf, "sdf");
    require_path(path);
    save_sdf(path, sdf->field);
  });
}

pbf_status pbf_sdf_load(const char* path, pbf_sdf** out_sdf) {
  if (out_sdf) *out_sdf = nullptr;
  return guarded(__func__, [&] {
    require_not_null(out_sdf, "out_sdf");
    require_path(path);
    give(load_sdf(path), out_sdf);
  });
}

pbf_status pbf_sdf_get_grid(const pbf_sdf* sdf, uint32_t dims[3], float origin[3], float* cell) {
  return guarded(__func__, [&] {
    require_not_null(sdf, "sdf");
    const SignedDistanceField& f = sdf->field;
    if (dims) {
      dims[0] = uint32_t(f.nx);
      dims[1] = uint32_t(f.ny);
      dims[2] = uint32_t(f.nz);
    }
    if (origin) {
      origin[0] = f.origin.x;
      origin[1] = f.origin.y;
      origin[2] = f.origin.z;
    }
    if (cell) *cell = f.cell;
  });
}

pbf_status pbf_sdf_get_values(const pbf_sdf* sdf, float* out, size_t length) {
  return guarded(__func__, [&] {
    require_not_null(sdf, "sdf");
    require_not_null(out, "out");
    const size_t n = sdf->field.values.size();
    if (length < n)
      reject(PBF_ERROR_BUFFER_TOO_SMALL,
             "length is " + describe(length) + " floats; the field holds " + describe(n) + " samples");
    std::memcpy(out, sdf->field.values.data(), n * sizeof(float));
  });
}

pbf_status pbf_sdf_distance(const pbf_sdf* sdf, const float point[3], float* out_distance) {
  return guarded(__func__, [&] {
    require_not_null(sdf, "sdf");
    require_not_null(point, "point");
    require_vec3_finite(point, "point");
    require_not_null(out_distance, "out_distance");
    *out_distance = sdf_distance(sdf->field.view(), Vec3{point[0], point[1], point[2]});
  });
}

pbf_status pbf_sdf_volume(const pbf_sdf* sdf, float* out_volume) {
  return guarded(__func__, [&] {
    require_not_null(sdf, "sdf");
    require_not_null(out_volume, "out_volume");
    *out_volume = float(sdf_volume(sdf->field.view()));
  });
}

pbf_status pbf_sdf_mass_properties(const pbf_sdf* sdf, float density, float* out_mass, float out_centre[3],
                                   float out_inertia[9]) {
  return guarded(__func__, [&] {
    require_not_null(sdf, "sdf");
    if (!(std::isfinite(density) && density > 0.0f))
      reject(PBF_ERROR_INVALID_ARGUMENT, "density must be a finite density > 0 kg/m^3, got " + describe(density));
    const MassProperties m = sdf_mass_properties(sdf->field.view(), density);
    // Computed in double; a density near FLT_MAX gives a mass or inertia
    // beyond float range, refused before anything is written.
    bool finite = std::isfinite(float(m.mass));
    for (int a = 0; a < 9; ++a) finite = finite && std::isfinite(float(m.inertia[a]));
    if (!finite)
      reject(PBF_ERROR_INVALID_ARGUMENT, "density " + describe(density) +
                                             " kg/m^3 gives this solid a mass or inertia beyond float range");
    if (out_mass) *out_mass = float(m.mass);
    if (out_centre)
      for (int a = 0; a < 3; ++a) out_centre[a] = float(m.centre[a]);
    if (out_inertia)
      for (int a = 0; a < 9; ++a) out_inertia[a] = float(m.inertia[a]);
  });
}

pbf_status pbf_sdf_destroy(pbf_sdf* sdf) {
  return guarded(__func__, [&] { delete sdf; });
}

pbf_status pbf_solver_add_obstacle(pbf_solver* solver, const pbf_sdf* sdf, const float rotation[4],
                                   const float translation[3], uint32_t* out_index) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_not_null(sdf, "sdf");
    float q[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    Vec3 t{0.0f, 0.0f, 0.0f};
    read_pose(rotation, translation, q, t);
    const uint32_t index = solver->impl.add_obstacle(sdf->field.view(), q, t);
    if (out_index) *out_index = index;
  });
}

pbf_status pbf_solver_fill_sdf(pbf_solver* solver, const pbf_sdf* sdf, const float rotation[4],
                               const float translation[3], const float velocity[3], size_t* out_added) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_unmapped(solver);
    require_not_null(sdf, "sdf");
    const RigidTransform placement = read_placement(rotation, translation, solver->impl.frame());
    Vec3 v{0.0f, 0.0f, 0.0f};
    if (velocity) {
      require_vec3_finite(velocity, "velocity");
      v = Vec3{velocity[0], velocity[1], velocity[2]};
    }
    // The lattice is computed in the solver's frame, as the placement is.
    const SolverConfig& config = solver->impl.config_in_frame();
    const size_t present = solver->impl.size();
    const size_t room = config.max_particles > present ? config.max_particles - present : 0;
    // Without the points inside the obstacles (Solver::outside_obstacles()), counted as the solid's.
    std::vector<float> points;
    try {
      points = fill_solid(sdf->field.view(), placement, config.particle_spacing, config.domain_min,
                          config.domain_max, room, solver->impl.outside_obstacles());
    } catch (const Error& e) {
      if (e.status() != Status::CapacityExceeded) throw;
      reject(PBF_ERROR_CAPACITY_EXCEEDED, std::string("sdf: ") + e.what() + "; with the " + describe(present) +
                                              " present that would exceed max_particles (" +
                                              describe(config.max_particles) + ")");
    }
    const size_t n = points.size() / 3;
    if (n > 0) {
      std::vector<float> velocities;
      if (velocity) {
        velocities.resize(3 * n);
        for (size_t i = 0; i < n; ++i) {
          velocities[3 * i] = v.x;
          velocities[3 * i + 1] = v.y;
          velocities[3 * i + 2] = v.z;
        }
      }
      solver->impl.add_particles(points.data(), velocity ? velocities.data() : nullptr, n, Solver::Given::InFrame);
    }
    if (out_added) *out_added = n;
  });
}

}  // extern "C"

pbf_status pbf_solver_add_sdf_boundary_particles(pbf_solver* solver, const pbf_sdf* sdf, const float rotation[4],
                                                 const float translation[3], size_t* out_added) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_not_null(sdf, "sdf");
    // Computed in the solver's frame: the placement and the domain moved into it.
    const RigidTransform placement = read_placement(rotation, translation, solver->impl.frame());
    const SolverConfig& config = solver->impl.config_in_frame();
    // Set back inside the solid as the domain walls' samples are, so that fluid resting on a flat
    // face at the collision distance has the rest density.
    const float depth = wall_sample_setback(config.particle_spacing, config.kernel_radius, config.method);
    // Only samples that can reach the fluid: within a kernel radius of the domain (sampled only near
    // it, so that a solid much larger than the domain costs no more than the part near it).
    const float reach = config.kernel_radius;
    const Vec3 grow{reach, reach, reach};
    const Bounds near_domain{config.domain_min - grow, config.domain_max + grow};
    const std::vector<Vec3> samples =
        sample_surface(sdf->field.view(), placement, config.particle_spacing, depth, &near_domain);
    std::vector<float> kept;
    kept.reserve(3 * samples.size());
    for (const Vec3& p : samples)
      if (p.x >= config.domain_min.x - reach && p.x <= config.domain_max.x + reach &&
          p.y >= config.domain_min.y - reach && p.y <= config.domain_max.y + reach &&
          p.z >= config.domain_min.z - reach && p.z <= config.domain_max.z + reach) {
        kept.push_back(p.x);
        kept.push_back(p.y);
        kept.push_back(p.z);
      }
    const size_t n = kept.size() / 3;
    require_boundary_room(solver, n, "sdf: its " + describe(n) + " surface samples");
    if (n > 0) solver->impl.add_boundary_particles(kept.data(), n, Solver::Given::InFrame);
    if (out_added) *out_added = n;
  });
}

pbf_status pbf_solver_add_obstacle_boundary_particles(pbf_solver* solver, uint32_t index, size_t* out_added) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_obstacle_index(solver, index);
    const SolverConfig& config = solver->impl.config();
    // In the obstacle's own frame, set back as the domain walls' samples are; all of them, since the
    // obstacle may move anywhere in the domain.
    const float depth = wall_sample_setback(config.particle_spacing, config.kernel_radius, config.method);
    const std::vector<Vec3> samples =
        sample_surface(solver->impl.obstacle_field(index), read_placement(nullptr, nullptr), config.particle_spacing,
                       depth);
    const size_t n = samples.size();
    require_boundary_room(solver, n, "index: obstacle " + describe(index) + "'s " + describe(n) + " surface samples");
    if (n > 0) solver->impl.add_obstacle_boundary_particles(index, samples.data(), n);
    if (out_added) *out_added = n;
  });
}

pbf_status pbf_solver_remove_obstacle_boundary_particles(pbf_solver* solver, uint32_t index, size_t* out_removed) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);
    require_obstacle_index(solver, index);
    const size_t removed = solver->impl.remove_obstacle_boundary_particles(index);
    if (out_removed) *out_removed = removed;
  });
}
