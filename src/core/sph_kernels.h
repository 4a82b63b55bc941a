// sph_kernels.h - the SPH smoothing kernels of Mueller et al. (2003) that PBF
// uses (Poly6 for density, Spiky for gradients) and the cubic spline that
// Projective Fluids uses for both. Written once, compiled for the host and
// for CUDA.
#pragma once

#include "core/hd.h"

namespace pbf {

constexpr float kPi = 3.14159265358979323846f;

// The kernel a method measures density with: what a device needs to know of
// the method to weigh its boundary samples (Backend::set_boundary_particles).
enum class DensityKernel { Poly6, CubicSpline };

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

// PBF's kernels are templates on their lane type T: a float, or on the CPU
// eight floats computed as one (backend/cpu/lanes.h), with the same
// operations lane by lane; select() and square_root() come with the type.

// Poly6 W(r) from the squared distance; zero outside the support.
template <class T>
PBF_HD T poly6(const KernelConstants& k, T r2) {
  const T d = k.h2 - r2;
  return select(r2 >= k.h2, T(0.0f), k.poly6 * d * d * d);
}

// The Spiky gradient is grad W(r) = spiky_gradient_scale(|r|^2) * r for
// r = p_i - p_j; the scale is zero at r = 0 (direction undefined) and outside
// the support.
template <class T>
PBF_HD T spiky_gradient_scale(const KernelConstants& k, T r2) {
  const T len = square_root(r2);
  const T d = k.h - len;
  return select(r2 >= k.h2, T(0.0f), select(r2 <= 0.0f, T(0.0f), k.spiky_grad * d * d / len));
}

// Spiky gradient grad W(r) with respect to the first point, r = p_i - p_j.
PBF_HD Vec3 spiky_gradient(const KernelConstants& k, Vec3 r) {
  return r * spiky_gradient_scale(k, length_squared(r));
}

// The cubic spline kernel (Monaghan 1992) with support radius h, q = |r| / h:
//   W(q) = sigma (6 q^3 - 6 q^2 + 1)   for q <= 1/2
//   W(q) = sigma 2 (1 - q)^3           for 1/2 < q <= 1,    sigma = 8 / (pi h^3),
// so that its integral over the ball of radius h is one.
struct CubicKernel {
  float h;        // support radius [m]
  float h2;       // h^2
  float inv_h;    // 1 / h
  float sigma;    // 8 / (pi h^3) [1/m^3]
  float grad;     // 48 / (pi h^4): sigma * 6 / h [1/m^4]

  static CubicKernel make(float radius) {
    CubicKernel k;
    k.h = radius;
    k.h2 = radius * radius;
    k.inv_h = 1.0f / radius;
    const double h = radius;
    k.sigma = static_cast<float>(8.0 / (3.14159265358979323846 * h * h * h));
    k.grad = static_cast<float>(48.0 / (3.14159265358979323846 * h * h * h * h));
    return k;
  }
};

// Cubic spline W(r) from the squared distance; zero outside the support.
// Like PBF's kernels, templates on their lane type.
template <class T>
PBF_HD T cubic(const CubicKernel& k, T r2) {
  const T q = square_root(r2) * k.inv_h;
  const T d = 1.0f - q;
  const T inner = k.sigma * (6.0f * q * q * (q - 1.0f) + 1.0f);
  const T outer = k.sigma * 2.0f * d * d * d;
  return select(r2 >= k.h2, T(0.0f), select(q <= 0.5f, inner, outer));
}

// The cubic spline gradient is grad W(r) = cubic_gradient_scale(|r|^2) * r
// for r = p_i - p_j; zero at r = 0 and outside the support.
template <class T>
PBF_HD T cubic_gradient_scale(const CubicKernel& k, T r2) {
  const T len = square_root(r2);
  const T q = len * k.inv_h;
  // dW/dq = sigma (18 q^2 - 12 q) below 1/2, -6 sigma (1 - q)^2 above; grad = dW/dq / (h |r|) r.
  const T dwdq = select(q <= 0.5f, q * (3.0f * q - 2.0f), -(1.0f - q) * (1.0f - q));
  return select(r2 >= k.h2, T(0.0f), select(r2 <= 0.0f, T(0.0f), k.grad * dwdq / len));
}

// Cubic spline gradient grad W(r) with respect to the first point, r = p_i - p_j.
PBF_HD Vec3 cubic_gradient(const CubicKernel& k, Vec3 r) { return r * cubic_gradient_scale(k, length_squared(r)); }

}  // namespace pbf
