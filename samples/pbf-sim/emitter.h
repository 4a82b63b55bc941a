// emitter.h - an inlet that emits discs of particles on the rest lattice.
#ifndef PBF_SIM_EMITTER_H
#define PBF_SIM_EMITTER_H

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "scene.h"

namespace pbf_sim {

/**
 * An inlet: a disc of lattice points at the particle spacing, perpendicular
 * to the flow direction. Disc k is due at start + k x interval (while before
 * stop); a disc emitted later than it was due is placed as far downstream as
 * the flow has carried it since, so that layers stay one spacing apart when
 * the rate is derived from the speed, but no nearer than that to the water
 * already in the inlet's way (room(), emit()): where the water ahead lags
 * the inlet, a disc placed where the flow would have carried it landed on
 * it, and the density constraint threw the particles apart.
 */
class Emitter {
 public:
  /** An emitter for `spec` in a fluid of particle spacing `spacing` [m] (> 0). */
  Emitter(const EmitterSpec& spec, float spacing);

  /**
   * The particles of a disc of `radius` [m] at `spacing` [m] (both > 0), as the constructor
   * places them, or limit + 1 where there are more than `limit`: the count takes time in
   * proportion to the disc's radius in spacings, at most that of a disc of `limit` particles.
   */
  static uint64_t disc_count(double radius, double spacing, uint64_t limit);
  /** Particles in one disc (at least 1: the centre is always a lattice point). */
  size_t disc_size() const { return disc_.size() / 3; }

  /** Seconds between two discs: spacing / speed, or disc_size() / rate when a rate is given. */
  double interval() const { return interval_; }

  /** The positions of one disc on the inlet's plane (3 floats per particle), as emit() places a disc due now. */
  std::vector<float> disc_on_plane() const;
  /** Particles per second while the emitter runs. */
  double rate() const { return static_cast<double>(disc_size()) / interval_; }

  /** The emission time of disc k [s]. */
  double due(uint64_t k) const { return spec_.start + static_cast<double>(k) * interval_; }

  /**
   * Counts every disc due before `time` [s] as emitted, so that a run resumed
   * at `time` goes on with the disc an uninterrupted run would emit next.
   */
  void start_at(double time);

  /**
   * How far downstream of the disc's plane [m] the rearmost of the given
   * particles (3 floats each, n of them) lies among those in the inlet's way:
   * within the disc's radius and one spacing of its axis, and at most one
   * spacing upstream of its plane. Infinity where none is.
   */
  double room(const float* positions, size_t n) const;

  /**
   * Appends every disc due before time t1 [s] and not emitted yet to
   * `positions` and `velocities` (3 floats per particle each), advanced to
   * t1 along the flow, but never closer to the water already in the inlet's
   * way than the discs are to each other: with `room` (room() of that
   * water), a disc goes no further downstream than its gap (one spacing, or
   * less where a rate packs the discs closer) short of the water or of the
   * disc placed before it. A disc that would then lie more than half its
   * gap upstream of the inlet's plane has no room: it is not emitted, and
   * is counted in *blocked (particles) when given. Returns the number of
   * particles appended. Positions are not clipped to any domain.
   */
  size_t emit(double t1, std::vector<float>& positions, std::vector<float>& velocities,
              double room = std::numeric_limits<double>::infinity(), size_t* blocked = nullptr);

  /** Whether the emitter runs at some time in [t0, t1) [s]. */
  bool running(double t0, double t1) const { return t1 > spec_.start && t0 < spec_.stop; }

  /** The number of discs emitted (or skipped by start_at) so far. */
  uint64_t discs_emitted() const { return next_; }

 private:
  EmitterSpec spec_;
  double spacing_;
  std::vector<float> disc_;  // offsets from the centre, 3 floats per lattice point
  double interval_ = 1.0;
  uint64_t next_ = 0;        // the next disc to emit
};

}  // namespace pbf_sim

#endif  // PBF_SIM_EMITTER_H
