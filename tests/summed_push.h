// summed_push.h - a push sink for tests of the stages' equations
// (core/obstacle.h): it sums every displacement handed to it, whatever the
// obstacle, and keeps the weight of the last push that came with one.
#pragma once

#include <cstdint>

#include "core/hd.h"

struct SummedPush {
  static constexpr bool kActive = true;
  pbf::Vec3 d{0.0f, 0.0f, 0.0f};
  float weight = 0.0f;
  void add(uint32_t, pbf::Vec3 dk, pbf::Vec3) { d += dk; }
  void couple(uint32_t, pbf::Vec3 dk, pbf::Vec3, float w) {
    d += dk;
    weight = w;
  }
  bool couples() const { return true; }
};
