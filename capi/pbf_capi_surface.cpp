// pbf_capi_surface.cpp - the C API of surface meshes: the liquid's surface
// from a solver's particles, a solid's from its signed distance field, and
// the getters and the PLY writer.
#include <tbb/task_arena.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "capi/capi_guard.h"
#include "capi/capi_sdf.h"
#include "capi/capi_solver.h"
#include "capi/capi_struct_size.h"
#include "pbf/pbf.h"
#include "surface/marching_cubes.h"
#include "surface/particle_surface.h"
#include "surface/surface_ply.h"

struct pbf_surface {
  pbf::SurfaceMesh mesh;
};

namespace pbf::capi {
namespace {

static_assert(PBF_MAX_SURFACE_GRID_POINTS == kMaxSurfaceGridPoints, "the documented limit is the one enforced");

// The parameters' documented ranges [spacings].
constexpr float kMinCellSize = 0.05f, kMaxCellSize = 4.0f;
constexpr float kMinSmoothingRadius = 1.0f, kMaxSmoothingRadius = 5.0f;

ParticleSurfaceOptions surface_options(const pbf_surface_params* in) {
  const pbf_surface_params p = in ? read_struct(in, "params") : pbf_surface_params_default();
  require_in_range(p.cell_size, kMinCellSize, kMaxCellSize, "params->cell_size");
  require_in_range(p.smoothing_radius, kMinSmoothingRadius, kMaxSmoothingRadius, "params->smoothing_radius");
  require_finite(p.iso_level, "params->iso_level");
  if (!(p.iso_level > 0.0f && p.iso_level < 1.0f))
    reject(PBF_ERROR_INVALID_ARGUMENT,
           "params->iso_level must be strictly between 0 and 1, got " + describe(p.iso_level));
  require_in_range(p.anisotropy, 0.0f, 1.0f, "params->anisotropy");
  ParticleSurfaceOptions o;
  o.cell_size = p.cell_size;
  o.smoothing_radius = p.smoothing_radius;
  o.iso_level = p.iso_level;
  o.anisotropy = p.anisotropy;
  return o;
}

// Copies `n` items of the mesh into a caller's buffer of `capacity` items.
template <class T>
void copy_out(const std::vector<T>& from, T* out, size_t capacity, const char* unit, size_t elements,
              const char* element_name) {
  const size_t needed = from.size();
  if (needed == 0) return;
  require_not_null(out, "out");
  if (capacity < needed)
    reject(PBF_ERROR_BUFFER_TOO_SMALL, "capacity is " + describe(capacity) + " " + unit + "; the surface's " +
                                           describe(elements) + " " + element_name + " need " + describe(needed));
  std::memcpy(out, from.data(), needed * sizeof(T));
}

}  // namespace
}  // namespace pbf::capi

using namespace pbf;
using namespace pbf::capi;

extern "C" {

pbf_status pbf_surface_create(pbf_surface** out_surface) {
  if (out_surface) *out_surface = nullptr;
  return guarded(__func__, [&] {
    require_not_null(out_surface, "out_surface");
    *out_surface = new pbf_surface{};
  });
}

pbf_status pbf_surface_destroy(pbf_surface* surface) {
  delete surface;
  return PBF_OK;
}

pbf_status pbf_solver_build_surface(const pbf_solver* solver, const pbf_surface_params* params,
                                    pbf_surface* surface) {
  return guarded(__func__, [&] {
    require_not_null(solver, "solver");
    require_idle(solver);  // busy before any other argument, as every solver call
    require_not_null(surface, "surface");
    const ParticleSurfaceOptions options = surface_options(params);
    const size_t n = solver->impl.size();
    std::vector<float> positions(3 * n);
    if (n > 0) solver->impl.read(Field::Position, positions.data());
    SurfaceMesh mesh;
    // On the solver's share of the CPU; the mesh is the same for any thread count.
    tbb::task_arena arena(solver->impl.config().thread_count);
    try {
      arena.execute([&] { mesh = particle_surface(positions.data(), n, solver->impl.config().particle_spacing, options); });
    } catch (const Error& e) {
      if (e.status() != Status::CapacityExceeded) throw;
      reject(PBF_ERROR_CAPACITY_EXCEEDED, std::string("params->") + e.what());
    }
    surface->mesh = std::move(mesh);
  });
}

pbf_status pbf_sdf_build_surface(const pbf_sdf* sdf, pbf_surface* surface) {
  return guarded(__func__, [&] {
    require_not_null(sdf, "sdf");
    require_not_null(surface, "surface");
    const SignedDistanceField& f = sdf->field;
    const int dims[3] = {f.nx, f.ny, f.nz};
    const float origin[3] = {f.origin.x, f.origin.y, f.origin.z};
    surface->mesh = grid_iso_surface(f.values.data(), dims, origin, f.cell, 0.0f, false);
  });
}

pbf_status pbf_surface_get_counts(const pbf_surface* surface, size_t* out_vertex_count, size_t* out_triangle_count) {
  return guarded(__func__, [&] {
    require_not_null(surface, "surface");
    if (out_vertex_count) *out_vertex_count = surface->mesh.vertex_count();
    if (out_triangle_count) *out_triangle_count = surface->mesh.triangle_count();
  });
}

pbf_status pbf_surface_get_vertices(const pbf_surface* surface, float* out, size_t capacity) {
  return guarded(__func__, [&] {
    require_not_null(surface, "surface");
    copy_out(surface->mesh.vertices, out, capacity, "floats", surface->mesh.vertex_count(), "vertices");
  });
}

pbf_status pbf_surface_get_normals(const pbf_surface* surface, float* out, size_t capacity) {
  return guarded(__func__, [&] {
    require_not_null(surface, "surface");
    copy_out(surface->mesh.normals, out, capacity, "floats", surface->mesh.vertex_count(), "vertices");
  });
}

pbf_status pbf_surface_get_triangles(const pbf_surface* surface, uint32_t* out, size_t capacity) {
  return guarded(__func__, [&] {
    require_not_null(surface, "surface");
    copy_out(surface->mesh.triangles, out, capacity, "indices", surface->mesh.triangle_count(), "triangles");
  });
}

pbf_status pbf_surface_write_ply(const pbf_surface* surface, const char* path) {
  return guarded(__func__, [&] {
    require_not_null(surface, "surface");
    require_not_null(path, "path");
    if (path[0] == '\0') reject(PBF_ERROR_INVALID_ARGUMENT, "path is empty");
    write_surface_ply(path, surface->mesh);
  });
}

}  // extern "C"
