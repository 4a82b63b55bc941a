// render.h - pictures of a frame: particles ray traced as spheres with Embree,
// coloured by speed, with the solids' surfaces, over the domain's floor with
// the domain box's edges;
// PNG files and a contact sheet of a run. No Embree or libpng type appears here.
#ifndef PBF_SIM_RENDER_H
#define PBF_SIM_RENDER_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scene.h"
#include "surface_mesh.h"

namespace pbf_sim {

/** An 8-bit RGB picture, rows top to bottom, 3 bytes per pixel. */
struct Image {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgb;  ///< width x height x 3 bytes
};

/** The camera that frames `domain` from a 3/4 view (front, right, above) for a width x height picture. */
CameraSpec default_camera(const Box& domain, int width, int height);

/**
 * Where a point lands in a width x height picture seen by `camera`: pixel
 * coordinates (x right, y down, pixel centres at k + 1/2) in `pixel`. Returns
 * false for a point behind the camera.
 */
bool project(const CameraSpec& camera, int width, int height, const Vec3& point, float pixel[2]);

/** What one picture shows and how. */
struct RenderSettings {
  int width = 960;         ///< pixels, 16 .. 8192
  int height = 540;        ///< pixels, 16 .. 8192
  CameraSpec camera;       ///< see default_camera()
  float radius = 0.0125f;  ///< sphere radius [m]: half the particle spacing
  float speed_max = 0.0f;  ///< speed shown white [m/s]; 0 = the frame's largest speed
  Box domain;              ///< its floor (y = min[1]) and its 12 edges are drawn for reference
  std::vector<SurfaceMesh> solids;  ///< obstacles' surfaces in world coordinates [m], drawn in grey
};

/**
 * Ray traces particles as spheres. Owns an Embree device, created once and
 * reused for every frame; one renderer is used by one thread at a time (it
 * parallelises over rows itself with oneTBB).
 */
class FrameRenderer {
 public:
  /** Creates the Embree device; throws std::runtime_error with Embree's message. */
  FrameRenderer();
  ~FrameRenderer();
  FrameRenderer(const FrameRenderer&) = delete;
  FrameRenderer& operator=(const FrameRenderer&) = delete;

  /**
   * Renders `count` particles (xyz triples in `positions`, velocities for
   * the colour; `velocities` may be null: all at rest) and settings.solids.
   * Lambert shading plus ambient from a fixed light above; the floor takes
   * the shadows of both.
   */
  Image render(const float* positions, const float* velocities, size_t count, const RenderSettings& settings);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/** The colour of `t` in [0, 1] (clamped) on the speed ramp: deep blue (at rest) through cyan to white. */
void speed_color(float t, float rgb[3]);

/**
 * Writes `image` as an 8-bit RGB PNG through an AtomicFile (a unique
 * temporary name, flushed and renamed onto a regular file only). Throws
 * std::runtime_error naming the path; leaves no partial file behind.
 */
void write_png(const std::string& path, const Image& image);

/** Reads an 8-bit RGB PNG (other PNG formats are converted); throws std::runtime_error naming the path. */
Image read_png(const std::string& path);

/**
 * Up to 16 evenly spaced pictures of `frames` (first and last included),
 * each shrunk by box filtering to a quarter of its size and tiled four to a
 * row, left to right, top to bottom, with 2-pixel gaps. Throws
 * std::runtime_error when a picture cannot be read.
 */
Image contact_sheet(const std::vector<std::string>& frames);

}  // namespace pbf_sim

#endif  // PBF_SIM_RENDER_H
