// stats_writer.cpp - the per-frame statistics, obstacle forces and body poses CSVs, through the C API only.
#include "stats_writer.h"

#include <cerrno>
#include <cstdarg>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace pbf_sim {

namespace {

void check(pbf_status status, const std::string& path) {
  if (status != PBF_OK)
    throw std::runtime_error(path + ": " + pbf_last_error() + " (" + pbf_status_string(status) + ")");
}

// Creates (truncates) `path` and writes its header row of `columns`; `what` names the file in errors.
std::FILE* open_csv(const std::string& path, const std::vector<std::string>& columns, const char* what) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (!file) throw std::runtime_error(path + ": cannot create the " + what + " file: " + std::strerror(errno));
  std::string header;
  for (const std::string& c : columns) header += (header.empty() ? "" : ",") + c;
  if (std::fprintf(file, "%s\n", header.c_str()) < 0 || std::fflush(file) != 0) {
    std::fclose(file);
    throw std::runtime_error(path + ": cannot write the " + what + " file");
  }
  return file;
}

}  // namespace

const std::vector<std::string>& StatsWriter::columns() {
  static const std::vector<std::string> names = {
      "frame", "time_s", "particles", "substeps", "iterations", "avg_density_error", "max_density_error",
      "avg_neighbors", "max_neighbors", "neighbor_overflows", "max_speed_m_s", "rms_speed_m_s", "kinetic_energy_J",
      "mass_kg", "com_x_m", "com_y_m", "com_z_m", "time_total_ms", "time_predict_ms", "time_grid_ms",
      "time_neighbors_ms", "time_constraints_ms", "time_velocity_ms", "time_vorticity_viscosity_ms",
      "local_global_iterations", "cg_iterations", "cg_residual", "min_substep_dt_s", "max_substep_dt_s",
      "density_iterations"};
  return names;
}

StatsWriter::StatsWriter(const std::string& path) : path_(path), file_(open_csv(path, columns(), "statistics")) {}

StatsWriter::~StatsWriter() {
  if (file_) std::fclose(file_);
}

void StatsWriter::write(int frame, double time, const pbf_solver* solver, const pbf_stats& s) {
  size_t n = 0;
  check(pbf_solver_particle_count(solver, &n), path_);
  float mass = 0.0f;
  check(pbf_solver_get_particle_mass(solver, &mass), path_);
  positions_.resize(3 * n);
  velocities_.resize(3 * n);
  if (n > 0) {
    check(pbf_solver_get_positions(solver, positions_.data(), positions_.size()), path_);
    check(pbf_solver_get_velocities(solver, velocities_.data(), velocities_.size()), path_);
  }
  // Sums in double: a million float squares lose the small ones.
  double v2_sum = 0.0, v2_max = 0.0, com[3] = {0.0, 0.0, 0.0};
  for (size_t i = 0; i < n; ++i) {
    const double vx = velocities_[3 * i], vy = velocities_[3 * i + 1], vz = velocities_[3 * i + 2];
    const double v2 = vx * vx + vy * vy + vz * vz;
    v2_sum += v2;
    if (v2 > v2_max) v2_max = v2;
    for (int a = 0; a < 3; ++a) com[a] += positions_[3 * i + a];
  }
  const double count = static_cast<double>(n);
  const double inv = n > 0 ? 1.0 / count : 0.0;
  const int written = std::fprintf(
      file_,
      "%d,%.9g,%zu,%u,%u,%.9g,%.9g,%.9g,%u,%u,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,"
      "%u,%u,%.9g,%.9g,%.9g,%u\n",
      frame, time, n, s.substeps, s.iterations, s.avg_density_error, s.max_density_error, s.avg_neighbors,
      s.max_neighbors, s.neighbor_overflows, std::sqrt(v2_max), std::sqrt(v2_sum * inv), 0.5 * mass * v2_sum,
      mass * count, com[0] * inv, com[1] * inv, com[2] * inv, s.time_total_ms, s.time_predict_ms, s.time_grid_ms,
      s.time_neighbors_ms, s.time_constraints_ms, s.time_velocity_ms, s.time_vorticity_viscosity_ms,
      s.local_global_iterations, s.cg_iterations, s.cg_residual, s.min_substep_dt, s.max_substep_dt,
      s.density_iterations);
  if (written < 0 || std::fflush(file_) != 0)
    throw std::runtime_error(path_ + ": cannot write the statistics file: " + std::strerror(errno));
  ++rows_;
}

const std::vector<std::string>& ObstacleTableWriter::columns(Table table) {
  static const std::vector<std::string> forces = {"frame",     "time_s",      "obstacle",    "force_x_N", "force_y_N",
                                                  "force_z_N", "torque_x_Nm", "torque_y_Nm", "torque_z_Nm"};
  static const std::vector<std::string> bodies = {
      "frame",      "time_s",     "obstacle",   "x_m",        "y_m",        "z_m",           "qx",
      "qy",         "qz",         "qw",         "vx_m_s",     "vy_m_s",     "vz_m_s",        "wx_rad_s",
      "wy_rad_s",   "wz_rad_s"};
  return table == Table::Forces ? forces : bodies;
}

ObstacleTableWriter::ObstacleTableWriter(Table table, const std::string& path)
    : table_(table), path_(path), file_(open_csv(path, columns(table), table == Table::Forces ? "forces" : "bodies")) {}

ObstacleTableWriter::~ObstacleTableWriter() {
  if (file_) std::fclose(file_);
}

void ObstacleTableWriter::row(const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  const int written = std::vfprintf(file_, format, args);
  va_end(args);
  if (written < 0) throw std::runtime_error(path_ + ": cannot write the file: " + std::strerror(errno));
  ++rows_;
}

void ObstacleTableWriter::write(int frame, double time, const pbf_solver* solver, bool stepped,
                                const std::vector<uint32_t>& dynamic) {
  if (table_ == Table::Forces) {
    uint32_t count = 0;
    check(pbf_solver_get_obstacle_count(solver, &count), path_);
    for (uint32_t k = 0; k < count; ++k) {
      float f[3] = {0.0f, 0.0f, 0.0f}, t[3] = {0.0f, 0.0f, 0.0f};
      if (stepped) check(pbf_solver_get_obstacle_force(solver, k, f, t), path_);
      row("%d,%.9g,%u,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", frame, time, k, f[0], f[1], f[2], t[0], t[1], t[2]);
    }
  } else {
    for (uint32_t k : dynamic) {
      float q[4], x[3], v[3], w[3];
      check(pbf_solver_get_obstacle_pose(solver, k, q, x), path_);
      check(pbf_solver_get_obstacle_velocity(solver, k, v, w), path_);
      row("%d,%.9g,%u,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", frame, time, k, x[0], x[1],
          x[2], q[0], q[1], q[2], q[3], v[0], v[1], v[2], w[0], w[1], w[2]);
    }
  }
  if (std::fflush(file_) != 0) throw std::runtime_error(path_ + ": cannot write the file: " + std::strerror(errno));
}

}  // namespace pbf_sim
