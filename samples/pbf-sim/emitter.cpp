// emitter.cpp - disc lattice and emission schedule of an inlet.
#include "emitter.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pbf_sim {

namespace {

// Two unit vectors that span the plane perpendicular to the unit vector d.
void basis(const Vec3& d, double u[3], double v[3]) {
  // Cross with the axis least aligned with d, so the result never vanishes.
  const double a[3] = {std::fabs(d[0]) < 0.9 ? 1.0 : 0.0, std::fabs(d[0]) < 0.9 ? 0.0 : 1.0, 0.0};
  u[0] = d[1] * a[2] - d[2] * a[1];
  u[1] = d[2] * a[0] - d[0] * a[2];
  u[2] = d[0] * a[1] - d[1] * a[0];
  const double len = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  for (int k = 0; k < 3; ++k) u[k] /= len;
  v[0] = d[1] * u[2] - d[2] * u[1];
  v[1] = d[2] * u[0] - d[0] * u[2];
  v[2] = d[0] * u[1] - d[1] * u[0];
}

// Whether lattice point (i, j) of spacing s lies on the disc of radius r.
bool on_disc(long i, long j, double s, double r) {
  return static_cast<double>(i * i + j * j) * s * s <= r * r * (1.0 + 1e-6);
}

}  // namespace

uint64_t Emitter::disc_count(double radius, double spacing, uint64_t limit) {
  // A disc of R = radius / spacing lattice units holds at least pi (R - 1/sqrt(2))^2 points (the
  // unit squares about its points cover that disc), so past the R where that exceeds the limit
  // there is nothing to count; otherwise a column at a time, stopping past the limit.
  const double units = radius / spacing;
  if (!(units <= std::sqrt(static_cast<double>(limit) / 3.14159265358979) + 1.0)) return limit + 1;
  const long m = static_cast<long>(std::floor(units + 1e-6));
  uint64_t count = 0;
  for (long i = -m; i <= m && count <= limit; ++i) {
    long j = std::min(m, static_cast<long>(std::floor(std::sqrt(std::max(0.0, units * units - double(i * i))))));
    while (j > 0 && !on_disc(i, j, spacing, radius)) --j;
    while (j < m && on_disc(i, j + 1, spacing, radius)) ++j;  // the constructor's square stops at m
    if (on_disc(i, j, spacing, radius)) count += static_cast<uint64_t>(2 * j + 1);
  }
  return std::min(count, limit + 1);
}

Emitter::Emitter(const EmitterSpec& spec, float spacing) : spec_(spec), spacing_(spacing) {
  double u[3], v[3];
  basis(spec_.direction, u, v);
  const double s = spacing;
  const double r = spec_.radius;
  const long m = static_cast<long>(std::floor(r / s + 1e-6));
  // The square lattice of the disc's plane: stacked one spacing apart, the
  // discs form the cubic lattice at which the fluid has its rest density.
  for (long i = -m; i <= m; ++i)
    for (long j = -m; j <= m; ++j) {
      if (!on_disc(i, j, s, r)) continue;
      for (int k = 0; k < 3; ++k) disc_.push_back(static_cast<float>(s * (i * u[k] + j * v[k])));
    }
  interval_ = spec_.rate > 0.0f ? static_cast<double>(disc_size()) / spec_.rate : s / spec_.speed;
}

std::vector<float> Emitter::disc_on_plane() const {
  std::vector<float> points(disc_.size());
  for (size_t i = 0; i < disc_.size(); ++i) points[i] = static_cast<float>(spec_.position[i % 3] + disc_[i]);
  return points;
}

void Emitter::start_at(double time) {
  next_ = 0;
  if (time <= spec_.start) return;
  next_ = static_cast<uint64_t>(std::ceil((time - spec_.start) / interval_));
  // Settle rounding with the same comparison emit() makes.
  while (due(next_) < time) ++next_;
  while (next_ > 0 && due(next_ - 1) >= time) --next_;
}

double Emitter::room(const float* positions, size_t n) const {
  const double reach = spec_.radius + spacing_;
  double rearmost = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < n; ++i) {
    double rel[3], along = 0.0;
    for (int k = 0; k < 3; ++k) {
      rel[k] = static_cast<double>(positions[3 * i + k]) - spec_.position[k];
      along += rel[k] * spec_.direction[k];
    }
    if (along < -spacing_ || along >= rearmost) continue;
    double across = 0.0;
    for (int k = 0; k < 3; ++k) {
      const double a = rel[k] - along * spec_.direction[k];
      across += a * a;
    }
    if (across <= reach * reach) rearmost = along;
  }
  return rearmost;
}

size_t Emitter::emit(double t1, std::vector<float>& positions, std::vector<float>& velocities, double room,
                     size_t* blocked) {
  size_t added = 0;
  const size_t n = disc_size();
  // Discs are spacing / speed apart in time at the derived rate; a higher rate packs them closer.
  const double gap = std::min(spacing_, spec_.speed * interval_);
  for (double t = due(next_); t < t1 && t < spec_.stop; t = due(++next_)) {
    // A disc due at t1 itself sits on the inlet's plane; the water ahead lagging it by a hair
    // (round-off, the push of the jet's own end) leaves it a little upstream, which is room enough.
    const double travel = std::min(spec_.speed * (t1 - t), room - gap);
    if (!(travel >= -0.5 * gap)) {
      if (blocked != nullptr) *blocked += n;
      continue;
    }
    room = travel;
    for (size_t p = 0; p < n; ++p)
      for (int k = 0; k < 3; ++k) {
        positions.push_back(static_cast<float>(spec_.position[k] + disc_[3 * p + k] + travel * spec_.direction[k]));
        velocities.push_back(spec_.speed * spec_.direction[k]);
      }
    added += n;
  }
  return added;
}

}  // namespace pbf_sim
