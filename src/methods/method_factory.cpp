// method_factory.cpp - the one place that knows which methods exist.
#include "core/error.h"
#include "methods/method.h"
#include "methods/pbf/pbf_method.h"
#include "methods/projective/projective_method.h"

namespace pbf {

std::unique_ptr<FluidMethod> create_method(const SolverConfig& config, Backend& backend) {
  switch (config.method) {
    case Method::Pbf: return std::make_unique<PbfMethod>(config, backend);
    case Method::Projective: return std::make_unique<ProjectiveMethod>(config, backend);
  }
  throw Error(Status::Internal, "create_method: unknown method");
}

}  // namespace pbf
