// forwarding_backend.h - a Backend that hands every call on to another
// (`inner_`, a CPU backend): the base of the step tests' logging backends
// (methods/pbf/test_pbf_step.cpp, methods/projective/test_projective_step.cpp),
// which override the stages and the recording protocol they watch.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "backend/backend.h"

namespace pbf_test {

class ForwardingBackend : public pbf::Backend {
 public:
  explicit ForwardingBackend(std::unique_ptr<pbf::Backend> inner) : inner_(std::move(inner)) {}

  pbf::BackendKind kind() const override { return inner_->kind(); }
  size_t size() const override { return inner_->size(); }
  void append(const float* p, const float* v, size_t n) override { inner_->append(p, v, n); }
  void remove(const std::vector<uint8_t>& r) override { inner_->remove(r); }
  void read(pbf::Field f, float* out) const override { inner_->read(f, out); }
  void write(pbf::Field f, const float* in) override { inner_->write(f, in); }
  const float* map(pbf::Field f, bool device, pbf::Vec3 offset) override { return inner_->map(f, device, offset); }
  void export_state(pbf::ParticleState& out) const override { inner_->export_state(out); }
  void import_state(const pbf::ParticleState& in) override { inner_->import_state(in); }
  void set_obstacle_fields(const pbf::SdfGridView* f, uint32_t n) override { inner_->set_obstacle_fields(f, n); }
  void set_obstacle_friction(const float* f, uint32_t n) override { inner_->set_obstacle_friction(f, n); }
  void set_boundary_particles(const pbf::Vec3* p, const uint32_t* b, const pbf::Vec3* l, size_t n,
                              pbf::DensityKernel k) override {
    inner_->set_boundary_particles(p, b, l, n, k);
  }

  void predict(const pbf::StepContext& ctx) override { inner_->predict(ctx); }
  void build_grid(const pbf::StepContext& ctx) override { inner_->build_grid(ctx); }
  void find_neighbors(const pbf::StepContext& ctx) override { inner_->find_neighbors(ctx); }
  void measure(pbf::StepStats& s) const override { inner_->measure(s); }
  pbf::IterationTally iteration_tally() override { return inner_->iteration_tally(); }
  void take_obstacle_pushes(pbf::ObstaclePush* out, uint32_t count) override {
    inner_->take_obstacle_pushes(out, count);
  }
  void follow_obstacles(const pbf::StepContext& ctx) override { inner_->follow_obstacles(ctx); }
  void relieve_collisions(const pbf::StepContext& ctx, const pbf::BodyYield* before,
                          const pbf::BodyYield* moved) override {
    inner_->relieve_collisions(ctx, before, moved);
  }

 protected:
  std::unique_ptr<pbf::Backend> inner_;
};

}  // namespace pbf_test
