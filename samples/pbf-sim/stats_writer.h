// stats_writer.h - one CSV row of statistics per frame (pbf-sim --stats), for
// plotting density error, energy and phase times over a run; the forces on
// the obstacles and the poses of the dynamic ones, a row per obstacle per
// frame (pbf-sim --forces, --bodies).
#ifndef PBF_SIM_STATS_WRITER_H
#define PBF_SIM_STATS_WRITER_H

#include <pbf/pbf.h>

#include <cstdint>
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
 * A table of the obstacles, a row per obstacle per frame, flushed as it is
 * written. Forces: frame, time [s], the obstacle's index (in the scene's
 * order), and the force [N] and torque [N m] about its origin that the water
 * exerted on it during the step that led to the frame
 * (pbf_solver_get_obstacle_force; zero in the run's first frame). Bodies:
 * for each dynamic obstacle, frame, time, index, its position [m] and
 * rotation (quaternion x, y, z, w) (pbf_solver_get_obstacle_pose), and its
 * velocity [m/s] and angular velocity [rad/s] (pbf_solver_get_obstacle_velocity).
 */
class ObstacleTableWriter {
 public:
  enum class Table { Forces, Bodies };
  /** Creates (truncates) `path`; throws std::runtime_error naming the path when it cannot. */
  ObstacleTableWriter(Table table, const std::string& path);
  /** Closes the file. */
  ~ObstacleTableWriter();
  ObstacleTableWriter(const ObstacleTableWriter&) = delete;
  ObstacleTableWriter& operator=(const ObstacleTableWriter&) = delete;

  /** The column names of `table`, in order, as the header row lists them. */
  static const std::vector<std::string>& columns(Table table);

  /**
   * Appends the rows of `frame` at `time` [s]: one per obstacle of `solver`
   * (forces; `stepped` false, the run's first frame, writes zeros), or one
   * per obstacle of `dynamic` (bodies). Throws std::runtime_error on a failed
   * pbf call or write.
   */
  void write(int frame, double time, const pbf_solver* solver, bool stepped, const std::vector<uint32_t>& dynamic);

  /** Rows written so far, the header not counted. */
  size_t rows() const { return rows_; }

 private:
  void row(const char* format, ...);
  Table table_;
  std::string path_;
  std::FILE* file_ = nullptr;
  size_t rows_ = 0;
};

}  // namespace pbf_sim

#endif  // PBF_SIM_STATS_WRITER_H
