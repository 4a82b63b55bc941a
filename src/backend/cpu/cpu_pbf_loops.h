// cpu_pbf_loops.h - the neighbour loops of pbf_equations.h arranged for the
// CPU's vector units: neighbours are gathered in batches into small local
// arrays, the pair terms (square roots, divisions, kernels) are computed in a
// loop the compiler vectorises, and the sums are taken in neighbour order.
// Every pair term uses the same PBF_HD function as the reference loops in
// pbf_equations.h, in the same order, so the results are bit-identical to
// them (tests/backend/cpu checks this).
#pragma once

#include <cstdint>

#include "solver/pbf/pbf_equations.h"

namespace pbf::cpu {

constexpr uint32_t kBatch = 32;

// Offsets r = x_i - x_j of up to kBatch neighbours, in structure-of-arrays form.
struct PairBatch {
  alignas(64) float dx[kBatch];
  alignas(64) float dy[kBatch];
  alignas(64) float dz[kBatch];
  alignas(64) float a[kBatch];
  alignas(64) float b[kBatch];
  alignas(64) float r2[kBatch];
  alignas(64) float c[kBatch];
  alignas(64) float d[kBatch];
  alignas(64) float e[kBatch];
};

inline uint32_t gather_offsets(Vec3 xi, const Vec3* x, const uint32_t* list, uint32_t count, PairBatch& p) {
  for (uint32_t m = 0; m < count; ++m) {
    const Vec3 xj = x[list[m]];
    p.dx[m] = xi.x - xj.x;
    p.dy[m] = xi.y - xj.y;
    p.dz[m] = xi.z - xj.z;
  }
  return count;
}

// density_lambda() of pbf_equations.h.
inline void density_lambda(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x,
                           float& rho_out, float& lambda_out) {
  const Vec3 xi = x[i];
  float sum_w = poly6(c.kernel, 0.0f);
  Vec3 grad_i{0.0f, 0.0f, 0.0f};
  float sum_grad2 = 0.0f;
  const uint32_t* list = nb.index + static_cast<size_t>(i) * nb.stride;
  const uint32_t n = nb.count[i];
  PairBatch p;
  for (uint32_t base = 0; base < n; base += kBatch) {
    const uint32_t count = gather_offsets(xi, x, list + base, n - base < kBatch ? n - base : kBatch, p);
    for (uint32_t m = 0; m < count; ++m) {  // vectorised
      const float r2 = p.dx[m] * p.dx[m] + p.dy[m] * p.dy[m] + p.dz[m] * p.dz[m];
      p.a[m] = poly6(c.kernel, r2);
      p.b[m] = spiky_gradient_scale(c.kernel, r2) * c.mass_over_rho0;
    }
    for (uint32_t m = 0; m < count; ++m) {  // in neighbour order
      sum_w += p.a[m];
      const Vec3 g = Vec3{p.dx[m], p.dy[m], p.dz[m]} * p.b[m];
      grad_i += g;
      sum_grad2 += length_squared(g);
    }
  }
  const float rho = c.mass * sum_w;
  float constraint = rho * c.inv_rest_density - 1.0f;
  if (c.unilateral && constraint < 0.0f) constraint = 0.0f;
  rho_out = rho;
  lambda_out = -constraint / (sum_grad2 + length_squared(grad_i) + c.cfm);
}

// position_correction() of pbf_equations.h.
inline Vec3 position_correction(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x,
                                const float* lambda) {
  const Vec3 xi = x[i];
  const float li = lambda[i];
  Vec3 dp{0.0f, 0.0f, 0.0f};
  const uint32_t* list = nb.index + static_cast<size_t>(i) * nb.stride;
  const uint32_t n = nb.count[i];
  PairBatch p;
  for (uint32_t base = 0; base < n; base += kBatch) {
    const uint32_t count = gather_offsets(xi, x, list + base, n - base < kBatch ? n - base : kBatch, p);
    for (uint32_t m = 0; m < count; ++m) p.a[m] = lambda[list[base + m]];
    for (uint32_t m = 0; m < count; ++m) p.r2[m] = p.dx[m] * p.dx[m] + p.dy[m] * p.dy[m] + p.dz[m] * p.dz[m];
    if (c.scorr_scale > 0.0f && c.scorr_n == 4.0f) {
      for (uint32_t m = 0; m < count; ++m) {  // vectorised: artificial_pressure() for n = 4
        const float w = poly6(c.kernel, p.r2[m]) * c.scorr_inv_wdq;
        p.b[m] = -c.scorr_scale * ((w * w) * (w * w));
      }
    } else {
      for (uint32_t m = 0; m < count; ++m) p.b[m] = artificial_pressure(c, p.r2[m]);
    }
    for (uint32_t m = 0; m < count; ++m)  // vectorised
      p.b[m] = spiky_gradient_scale(c.kernel, p.r2[m]) * (li + p.a[m] + p.b[m]);
    for (uint32_t m = 0; m < count; ++m) dp += Vec3{p.dx[m], p.dy[m], p.dz[m]} * p.b[m];
  }
  return dp * c.mass_over_rho0;
}


// density() of pbf_equations.h.
inline float density(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x) {
  const Vec3 xi = x[i];
  float sum = poly6(c.kernel, 0.0f);
  const uint32_t* list = nb.index + static_cast<size_t>(i) * nb.stride;
  const uint32_t n = nb.count[i];
  PairBatch p;
  for (uint32_t base = 0; base < n; base += kBatch) {
    const uint32_t count = gather_offsets(xi, x, list + base, n - base < kBatch ? n - base : kBatch, p);
    for (uint32_t m = 0; m < count; ++m)  // vectorised
      p.a[m] = poly6(c.kernel, p.dx[m] * p.dx[m] + p.dy[m] * p.dy[m] + p.dz[m] * p.dz[m]);
    for (uint32_t m = 0; m < count; ++m) sum += p.a[m];
  }
  return c.mass * sum;
}

// vorticity() of pbf_equations.h.
inline Vec3 vorticity(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x, const Vec3* v,
                      const float* rho) {
  const Vec3 xi = x[i];
  const Vec3 vi = v[i];
  Vec3 w{0.0f, 0.0f, 0.0f};
  const uint32_t* list = nb.index + static_cast<size_t>(i) * nb.stride;
  const uint32_t n = nb.count[i];
  PairBatch p;
  for (uint32_t base = 0; base < n; base += kBatch) {
    const uint32_t count = gather_offsets(xi, x, list + base, n - base < kBatch ? n - base : kBatch, p);
    for (uint32_t m = 0; m < count; ++m) {
      const uint32_t j = list[base + m];
      const Vec3 dv = v[j] - vi;
      p.a[m] = dv.x;
      p.b[m] = dv.y;
      p.c[m] = dv.z;
      p.d[m] = rho[j];
    }
    for (uint32_t m = 0; m < count; ++m) {  // vectorised
      const float s = spiky_gradient_scale(c.kernel, p.dx[m] * p.dx[m] + p.dy[m] * p.dy[m] + p.dz[m] * p.dz[m]);
      const Vec3 g = Vec3{p.dx[m], p.dy[m], p.dz[m]} * s;
      const Vec3 curl = cross(g, Vec3{p.a[m], p.b[m], p.c[m]}) * (c.mass / p.d[m]);
      p.a[m] = curl.x;
      p.b[m] = curl.y;
      p.c[m] = curl.z;
    }
    for (uint32_t m = 0; m < count; ++m) w += Vec3{p.a[m], p.b[m], p.c[m]};
  }
  return w;
}

// vorticity_viscosity() of pbf_equations.h.
inline Vec3 vorticity_viscosity(const PbfConstants& c, uint32_t i, const NeighborLists& nb, const Vec3* x,
                                const Vec3* v, const float* rho, const Vec3* omega) {
  const Vec3 xi = x[i];
  const Vec3 vi = v[i];
  const float wi = length(omega[i]);
  Vec3 eta{0.0f, 0.0f, 0.0f};
  Vec3 blend{0.0f, 0.0f, 0.0f};
  const uint32_t* list = nb.index + static_cast<size_t>(i) * nb.stride;
  const uint32_t n = nb.count[i];
  const bool with_vorticity = c.vorticity > 0.0f;
  const bool with_xsph = c.xsph > 0.0f;
  PairBatch p;
  for (uint32_t base = 0; base < n; base += kBatch) {
    const uint32_t count = gather_offsets(xi, x, list + base, n - base < kBatch ? n - base : kBatch, p);
    for (uint32_t m = 0; m < count; ++m) {
      const uint32_t j = list[base + m];
      p.d[m] = c.mass / rho[j];
      p.e[m] = with_vorticity ? length(omega[j]) - wi : 0.0f;
      p.r2[m] = p.dx[m] * p.dx[m] + p.dy[m] * p.dy[m] + p.dz[m] * p.dz[m];
    }
    for (uint32_t m = 0; m < count; ++m) {  // vectorised
      p.a[m] = spiky_gradient_scale(c.kernel, p.r2[m]) * (p.d[m] * p.e[m]);
      p.b[m] = p.d[m] * poly6(c.kernel, p.r2[m]);
    }
    for (uint32_t m = 0; m < count; ++m) {
      const uint32_t j = list[base + m];
      if (with_vorticity) eta += Vec3{p.dx[m], p.dy[m], p.dz[m]} * p.a[m];
      if (with_xsph) blend += (v[j] - vi) * p.b[m];
    }
  }
  Vec3 result = vi + blend * c.xsph;
  const float eta_len = length(eta);
  if (with_vorticity && eta_len > 1e-12f) {
    const Vec3 normal = eta * (1.0f / eta_len);
    result += cross(normal, omega[i]) * (c.vorticity * c.dt);
  }
  return clamp_speed(result, c.max_speed);
}

}  // namespace pbf::cpu
