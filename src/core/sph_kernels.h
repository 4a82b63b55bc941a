// sph_kernels.h - the SPH smoothing kernels of Mueller et al. (2003) that PBF
// uses: Poly6 for density, Spiky for gradients. Written once, compiled for
// the host and for CUDA.
#pragma once

#include "core/hd.h"

namespace pbf {

constexpr float kPi = 3.14159265358979323846f;

// Kernel radius and the normalisation constants that depend on it.
struct KernelConstants {
  float h;            // kernel radius [m]
  float h2;           // h^2
  float poly6;        // 315 / (64 pi h^9)
  float spiky_grad;   // -45 / (pi h^6)

  static KernelConstants make(float radius) {
    KernelConstants k;
    k.h = radius;
    k.h2 = radius * radius;
    const double h = radius;
    k.poly6 = static_cast<float>(315.0 / (64.0 * 3.14159265358979323846 * std::pow(h, 9)));
    k.spiky_grad = static_cast<float>(-45.0 / (3.14159265358979323846 * std::pow(h, 6)));
    return k;
  }
};

// Poly6 W(r) from the squared distance; zero outside the support.
PBF_HD float poly6(const KernelConstants& k, float r2) {
  if (r2 >= k.h2) return 0.0f;
  const float d = k.h2 - r2;
  return k.poly6 * d * d * d;
}

// The Spiky gradient is grad W(r) = spiky_gradient_scale(|r|^2) * r for
// r = p_i - p_j; the scale is zero at r = 0 (direction undefined) and outside
// the support.
PBF_HD float spiky_gradient_scale(const KernelConstants& k, float r2) {
  if (r2 >= k.h2 || r2 <= 0.0f) return 0.0f;
  const float len = sqrtf(r2);
  const float d = k.h - len;
  return k.spiky_grad * d * d / len;
}

// Spiky gradient grad W(r) with respect to the first point, r = p_i - p_j.
PBF_HD Vec3 spiky_gradient(const KernelConstants& k, Vec3 r) {
  return r * spiky_gradient_scale(k, length_squared(r));
}

}  // namespace pbf
