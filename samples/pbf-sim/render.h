// render.h - pictures of a frame ray traced with Embree: the liquid's surface
// shaded as water (or the particles as spheres coloured by speed), with the
// solids' surfaces, over the domain's floor with the domain box's edges and
// the frame's time written in a corner;
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

/** How the liquid is drawn (output.image_style). */
using ImageStyle = OutputSpec::ImageStyle;

/** What one picture shows and how. */
struct RenderSettings {
  int width = 960;         ///< pixels, 16 .. 8192
  int height = 540;        ///< pixels, 16 .. 8192
  CameraSpec camera;       ///< see default_camera()
  /**
   * Particles: the particles are spheres coloured by speed. Water: `liquid`
   * is shaded as water and the particles given to render() are spray, small
   * white spheres (see spray_particles()).
   */
  ImageStyle style = ImageStyle::Particles;
  const SurfaceMesh* liquid = nullptr;  ///< water style: the liquid's surface [m] with normals; null: none
  float radius = 0.0125f;  ///< sphere radius [m]: half the particle spacing
  float speed_max = 0.0f;  ///< particles style: speed shown white [m/s]; 0 = the frame's largest (see speed_scale())
  Box domain;              ///< its floor (y = min[1]) and its 12 edges are drawn for reference
  std::vector<SurfaceMesh> solids;  ///< obstacles' surfaces in world coordinates [m], drawn in grey
  std::string label;       ///< text written in the top-left corner (draw_text()); "" = none
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
   * the colour; `velocities` may be null: all at rest), settings.liquid and
   * settings.solids. Spheres and solids: Lambert shading plus ambient from a
   * fixed light above. Water: a Fresnel-weighted (Schlick, n = 1.33)
   * reflection of a sky gradient, a highlight from the light, and one ray
   * refracted into the water to what lies behind (floor, solid), dimmed
   * and tinted blue-green by the distance it travels in water. The floor
   * takes the shadows of everything, lighter under water.
   */
  Image render(const float* positions, const float* velocities, size_t count, const RenderSettings& settings);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/** The colour of `t` in [0, 1] (clamped) on the speed ramp: deep blue (at rest) through cyan to white. */
void speed_color(float t, float rgb[3]);

/**
 * The speed drawn white for a whole run, fixed at its first picture:
 * output.speed_max when > 0; otherwise the largest of the free-fall speed
 * over the domain's height along gravity, sqrt(2 |g| H), the fastest of the
 * `count` velocities given (the run's first pictured frame), and 0.1 m/s.
 */
float speed_scale(const Scene& scene, const float* velocities, size_t count);

/**
 * The particles that the liquid's surface leaves out, to be drawn as spray:
 * those with fewer than 4 others in the 3 x 3 x 3 block of cells of one
 * `spacing` around their own (inside the water there are about 27).
 * Returns their positions, xyz triples, in the given order.
 */
std::vector<float> spray_particles(const float* positions, size_t count, float spacing);

/**
 * Writes `text` into `image` with a built-in 5 x 7 pixel font magnified
 * `scale` times, white on a darkened box, its top-left corner at (x, y).
 * Knows digits, `t s f r a m e`, `=`, `.`, `-` and the space; any other
 * character is a blank. Clipped to the picture.
 */
void draw_text(Image& image, const std::string& text, int x, int y, int scale);

/** The magnification render() writes settings.label with: one per 270 pixels of height, at least 1 (2 at 540). */
int label_scale(int height);

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
