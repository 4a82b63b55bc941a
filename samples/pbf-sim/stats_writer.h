// stats_writer.h - one CSV row of statistics per frame (pbf-sim --stats), for
// plotting density error, energy and phase times over a run, and the forces
// on the obstacles, a row per obstacle per frame (pbf-sim --forces).
#ifndef PBF_SIM_STATS_WRITER_H
#define PBF_SIM_STATS_WRITER_H

#include <pbf/pbf.h>

#include <cstdio>
#include <string>
#include <vector>

namespace pbf_sim {

/**
 * Writes a header row, then one row per call of write(): frame, time [s],
 * particle count, the step's statistics (substeps, iterations, density error,
 * neighbours, phase times) and what it computes from the particles
 * themselves (speeds, kinetic energy, total mass, centre of mass). Rows are
 * flushed as they are written, so a stopped run keeps its rows.
 */
class StatsWriter {
 public:
  /** Creates (truncates) `path`; throws std::runtime_error naming the path when it cannot. */
  explicit StatsWriter(const std::string& path);
  /** Closes the file. */
  ~StatsWriter();
  StatsWriter(const StatsWriter&) = delete;
  StatsWriter& operator=(const StatsWriter&) = delete;

  /** The column names, in order, as the header row lists them. */
  static const std::vector<std::string>& columns();

  /**
   * Appends the row of `frame` at `time` [s]: `stats` are those of the step
   * that led to this state (pbf_stats_default() before the first step), the
   * rest is read from `solver`. Throws std::runtime_error on a failed pbf
   * call or write.
   */
  void write(int frame, double time, const pbf_solver* solver, const pbf_stats& stats);

  /** Rows written so far, the header not counted. */
  size_t rows() const { return rows_; }
  /** The file written. */
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  size_t rows_ = 0;
  std::vector<float> positions_, velocities_;  // scratch, reused every row
};

/**
 * Writes a header row, then one row per obstacle per call of write(): frame,
 * time [s], the obstacle's index (in the scene's order), and the force [N]
 * and torque [N m] about its origin that the water exerted on it during the
 * step that led to the frame (pbf_solver_get_obstacle_force; zero in the
 * run's first frame). Rows are flushed as they are written.
 */
class ForcesWriter {
 public:
  /** Creates (truncates) `path`; throws std::runtime_error naming the path when it cannot. */
  explicit ForcesWriter(const std::string& path);
  /** Closes the file. */
  ~ForcesWriter();
  ForcesWriter(const ForcesWriter&) = delete;
  ForcesWriter& operator=(const ForcesWriter&) = delete;

  /** The column names, in order, as the header row lists them. */
  static const std::vector<std::string>& columns();

  /**
   * Appends the rows of `frame` at `time` [s], one per obstacle of `solver`;
   * `stepped` false (the run's first frame) writes zeros. Throws
   * std::runtime_error on a failed pbf call or write.
   */
  void write(int frame, double time, const pbf_solver* solver, bool stepped);

  /** Rows written so far, the header not counted. */
  size_t rows() const { return rows_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  size_t rows_ = 0;
};

}  // namespace pbf_sim

#endif  // PBF_SIM_STATS_WRITER_H
