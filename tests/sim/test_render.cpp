// Pictures: a block of water in front of the default camera covers about the
// area its corners project to and is water-coloured at the centre; PNG files
// read back with libpng at the requested size and appear whole or not at all;
// the contact sheet tiles the frames; camera and image keys are validated.
#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "render.h"
#include "scene.h"
#include "scene_runner.h"
#include "sim_test_util.h"

namespace {

using pbf_sim::Box;
using pbf_sim::Image;
using pbf_sim::Vec3;

// A PNG read with libpng directly (not through render.cpp): size and RGB bytes.
Image read_png_independently(const std::string& path) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  Image image;
  EXPECT_TRUE(png_image_begin_read_from_file(&png, path.c_str())) << path << ": " << png.message;
  if (png.warning_or_error & PNG_IMAGE_ERROR) return image;
  png.format = PNG_FORMAT_RGB;
  image.width = static_cast<int>(png.width);
  image.height = static_cast<int>(png.height);
  image.rgb.resize(PNG_IMAGE_SIZE(png));
  EXPECT_TRUE(png_image_finish_read(&png, nullptr, image.rgb.data(), 0, nullptr)) << path << ": " << png.message;
  return image;
}

// Water is blue: the ramp's darkest colour, shaded by the ambient light alone, is still 30 levels bluer than red.
bool water_colored(const Image& im, int x, int y) {
  const uint8_t* p = &im.rgb[3 * (static_cast<size_t>(y) * im.width + x)];
  return p[2] > p[0] + 25 && p[2] >= p[1];
}

// Area of the convex hull of 2D points (monotone chain), in square pixels.
double hull_area(std::vector<std::pair<double, double>> p) {
  std::sort(p.begin(), p.end());
  auto cross = [](const std::pair<double, double>& o, const std::pair<double, double>& a,
                  const std::pair<double, double>& b) {
    return (a.first - o.first) * (b.second - o.second) - (a.second - o.second) * (b.first - o.first);
  };
  std::vector<std::pair<double, double>> h(2 * p.size());
  size_t k = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    while (k >= 2 && cross(h[k - 2], h[k - 1], p[i]) <= 0) --k;
    h[k++] = p[i];
  }
  for (size_t i = p.size() - 1, t = k + 1; i-- > 0;) {
    while (k >= t && cross(h[k - 2], h[k - 1], p[i]) <= 0) --k;
    h[k++] = p[i];
  }
  h.resize(k - 1);
  double area = 0.0;
  for (size_t i = 0; i < h.size(); ++i) {
    const auto& a = h[i];
    const auto& b = h[(i + 1) % h.size()];
    area += a.first * b.second - b.first * a.second;
  }
  return 0.5 * std::fabs(area);
}

// A cube of particles on the rest lattice filling `block` (centres at (i + 1/2) spacing from its corner).
std::vector<float> lattice(const Box& block, float spacing) {
  std::vector<float> p;
  const int n[3] = {static_cast<int>(std::lround((block.max[0] - block.min[0]) / spacing)),
                    static_cast<int>(std::lround((block.max[1] - block.min[1]) / spacing)),
                    static_cast<int>(std::lround((block.max[2] - block.min[2]) / spacing))};
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        p.push_back(block.min[0] + (i + 0.5f) * spacing);
        p.push_back(block.min[1] + (j + 0.5f) * spacing);
        p.push_back(block.min[2] + (k + 0.5f) * spacing);
      }
  return p;
}

pbf_sim::RenderSettings settings_for(const Box& domain, float spacing, int w, int h) {
  pbf_sim::RenderSettings s;
  s.width = w;
  s.height = h;
  s.domain = domain;
  s.radius = 0.5f * spacing;
  s.camera = pbf_sim::default_camera(domain, w, h);
  return s;
}

TEST(Render, ABlockInFrontOfTheDefaultCameraCoversItsProjectedArea) {
  const Box domain{{0, 0, 0}, {2, 2, 2}};
  const Box block{{0.7f, 0.7f, 0.7f}, {1.3f, 1.3f, 1.3f}};  // centred: the default camera looks at it
  const float spacing = 0.05f;
  const std::vector<float> x = lattice(block, spacing);
  ASSERT_EQ(x.size(), 3u * 12 * 12 * 12);
  const pbf_sim::RenderSettings rs = settings_for(domain, spacing, 320, 180);
  pbf_sim::FrameRenderer renderer;
  const Image empty = renderer.render(nullptr, nullptr, 0, rs);
  const Image full = renderer.render(x.data(), nullptr, x.size() / 3, rs);
  ASSERT_EQ(full.rgb.size(), 320u * 180 * 3);

  // Expected: the convex hull of the block's 8 projected corners (the spheres fill the block to its faces).
  std::vector<std::pair<double, double>> corners;
  for (int c = 0; c < 8; ++c) {
    const Vec3 p{(c & 1) ? block.max[0] : block.min[0], (c & 2) ? block.max[1] : block.min[1],
                 (c & 4) ? block.max[2] : block.min[2]};
    float q[2];
    ASSERT_TRUE(pbf_sim::project(rs.camera, rs.width, rs.height, p, q));
    corners.emplace_back(q[0], q[1]);
  }
  const double expected = hull_area(corners) / (rs.width * rs.height);
  size_t changed = 0, water = 0;
  for (int y = 0; y < rs.height; ++y)
    for (int x0 = 0; x0 < rs.width; ++x0) {
      const size_t i = 3 * (static_cast<size_t>(y) * rs.width + x0);
      if (std::memcmp(&full.rgb[i], &empty.rgb[i], 3) == 0) continue;
      ++changed;
      if (water_colored(full, x0, y)) ++water;  // not the block's shadow on the floor
    }
  const double coverage = static_cast<double>(water) / (rs.width * rs.height);
  // The sphere silhouette is scalloped and pixels on the hull's border count whole: 15% either way.
  EXPECT_GT(expected, 0.02) << "the block is a visible part of the picture";
  EXPECT_NEAR(coverage, expected, 0.15 * expected) << "changed " << changed << " pixels, water " << water;
  EXPECT_GE(changed, water);
  EXPECT_TRUE(water_colored(full, rs.width / 2, rs.height / 2)) << "the centre pixel shows the block";
  EXPECT_FALSE(water_colored(empty, rs.width / 2, rs.height / 2));
}

TEST(Render, FasterParticlesAreLighter) {
  float previous = -1.0f;
  for (int k = 0; k <= 10; ++k) {
    float c[3];
    pbf_sim::speed_color(k / 10.0f, c);
    const float lightness = 0.2126f * c[0] + 0.7152f * c[1] + 0.0722f * c[2];
    EXPECT_GT(lightness, previous) << "at " << k / 10.0f;
    previous = lightness;
  }
  float rest[3], fast[3];
  pbf_sim::speed_color(0.0f, rest);
  pbf_sim::speed_color(2.0f, fast);  // clamped
  EXPECT_GT(rest[2], rest[0] + 0.3f) << "still water is blue";
  EXPECT_GT(std::min({fast[0], fast[1], fast[2]}), 0.9f) << "the top of the scale is white";
}

TEST(Png, ReadsBackWithTheRequestedSizeAndLeavesNoPartialFile) {
  const std::string dir = sim_test::fresh_dir();
  Image im;
  im.width = 37;
  im.height = 21;
  for (int y = 0; y < im.height; ++y)
    for (int x = 0; x < im.width; ++x) {
      im.rgb.push_back(static_cast<uint8_t>(7 * x));
      im.rgb.push_back(static_cast<uint8_t>(11 * y));
      im.rgb.push_back(static_cast<uint8_t>(x ^ y));
    }
  const std::string path = dir + "/picture.png";
  pbf_sim::write_png(path, im);
  const Image back = read_png_independently(path);
  EXPECT_EQ(back.width, 37);
  EXPECT_EQ(back.height, 21);
  EXPECT_EQ(back.rgb, im.rgb);
  EXPECT_TRUE(sim_test::partial_files(dir).empty());
}

TEST(Png, AnUnwritablePathThrowsWithThePathAndLeavesNothing) {
  const std::string dir = sim_test::fresh_dir();
  Image im;
  im.width = im.height = 16;
  im.rgb.assign(16 * 16 * 3, 100);
  const std::string path = dir + "/missing-folder/picture.png";
  try {
    pbf_sim::write_png(path, im);
    FAIL() << "wrote into a missing folder";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("cannot write PNG '" + path + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("No such file or directory"), std::string::npos) << message;
  }
  EXPECT_TRUE(sim_test::partial_files(dir).empty());
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Png, ARunWritesAPicturePerFrameAndAContactSheet) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::Scene s = pbf_sim::parse_scene(R"({
    "domain": {"min": [0, 0, 0], "max": [0.6, 0.6, 0.6]}, "backend": "cpu", "spacing": 0.05,
    "time": {"fps": 30, "frames": 5, "substeps": 2},
    "fluid": [{"box": {"min": [0, 0, 0], "max": [0.3, 0.4, 0.3]}}],
    "output": {"ply": false, "png": true, "contact_sheet": true, "image": [64, 48]}})",
                                          "small.json");
  s.output.dir = dir;
  pbf_sim::SceneRunner r(s);
  r.write_output();
  for (int k = 0; k < 5; ++k) {
    r.advance();
    if (r.output_due()) r.write_output();
  }
  EXPECT_EQ(r.totals().png_files, 6u);
  for (int f = 0; f <= 5; ++f) {
    const Image im = read_png_independently(dir + "/frame_000" + std::to_string(f) + ".png");
    EXPECT_EQ(im.width, 64);
    EXPECT_EQ(im.height, 48);
  }
  EXPECT_EQ(r.write_contact_sheet(), dir + "/contact_sheet.png");
  // Six frames: four to a row, tiles a quarter of a frame (16 x 12), 2-pixel gaps.
  const Image sheet = read_png_independently(dir + "/contact_sheet.png");
  EXPECT_EQ(sheet.width, 4 * 16 + 5 * 2);
  EXPECT_EQ(sheet.height, 2 * 12 + 3 * 2);
  EXPECT_TRUE(sim_test::partial_files(dir).empty());
}

TEST(Png, AnOutputFolderThatCannotBeCreatedIsAClearError) {
  const std::string dir = sim_test::fresh_dir();
  sim_test::write_text(dir + "/file", "not a folder");
  pbf_sim::Scene s = pbf_sim::parse_scene(R"({
    "domain": {"min": [0, 0, 0], "max": [0.6, 0.6, 0.6]}, "backend": "cpu", "spacing": 0.1,
    "fluid": [{"box": {"min": [0, 0, 0], "max": [0.3, 0.3, 0.3]}}],
    "output": {"ply": false, "png": true, "image": [32, 32]}})",
                                          "small.json");
  s.output.dir = dir + "/file/sub";
  pbf_sim::SceneRunner r(s);
  EXPECT_THROW(r.write_output(), pbf_sim::RunError);
}

// The message parse_scene throws for a scene with `output`, or "" when it parses.
std::string output_error(const std::string& output) {
  try {
    pbf_sim::parse_scene(R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "spacing": 0.1, "output": )" + output + "}",
                         "scene.json");
  } catch (const pbf_sim::SceneError& e) {
    return e.what();
  }
  return "";
}

TEST(RenderKeys, CameraAndImageErrorsNameTheKeyPath) {
  const std::string cam = R"({"camera": {"position": [3, 2, 3], "look_at": [0.5, 0.5, 0.5])";
  EXPECT_EQ(output_error(cam + R"(, "fov": 180}})"),
            "scene.json: output.camera.fov: expected a vertical field of view in degrees, > 0 and < 180, got 180");
  EXPECT_EQ(output_error(cam + R"(, "fov": 0}})"),
            "scene.json: output.camera.fov: expected a vertical field of view in degrees, > 0 and < 180, got 0");
  EXPECT_EQ(output_error(cam + R"(, "fov": "wide"}})"), "scene.json: output.camera.fov: expected a number, got \"wide\"");
  EXPECT_EQ(output_error(R"({"camera": {"look_at": [0, 0, 0]}})"),
            "scene.json: output.camera.position: required key is missing");
  EXPECT_EQ(output_error(R"({"camera": {"position": [1, 1, 1], "look_at": [1, 1, 1]}})"),
            "scene.json: output.camera.look_at: must differ from position");
  EXPECT_EQ(output_error(R"({"camera": {"position": [0.5, 3, 0.5], "look_at": [0.5, 0, 0.5]}})"),
            "scene.json: output.camera.up: must not point along the view (from position to look_at); give another up");
  EXPECT_EQ(output_error(cam + R"(, "up": [0, 0, 0]}})"), "scene.json: output.camera.up: expected a non-zero vector, got [0, 0, 0]");
  EXPECT_EQ(output_error(cam + R"(, "up": [0, 1]}})"),
            "scene.json: output.camera.up: expected an array of 3 numbers, got an array of 2 elements");
  EXPECT_EQ(output_error(cam + R"(, "position_": [0, 1, 0]}})").substr(0, 54),
            "scene.json: output.camera.position_: unknown key (know");
  EXPECT_EQ(output_error(R"({"camera": {"position": [1e39, 0, 0], "look_at": [0, 0, 0]}})").substr(0, 73),
            "scene.json: output.camera.position[0]: expected a number within single pr");
}

TEST(RenderKeys, ImageAndFlagErrorsNameTheKeyPath) {
  EXPECT_EQ(output_error(R"({"image": [8, 100]})"), "scene.json: output.image[0]: expected an integer in [16, 8192], got 8");
  EXPECT_EQ(output_error(R"({"image": [100, 9000]})"),
            "scene.json: output.image[1]: expected an integer in [16, 8192], got 9000");
  EXPECT_EQ(output_error(R"({"image": [100.5, 100]})"), "scene.json: output.image[0]: expected an integer, got 100.5");
  EXPECT_EQ(output_error(R"({"image": [100]})"), "scene.json: output.image: expected [width, height] in pixels, got an array of 1 elements");
  EXPECT_EQ(output_error(R"({"png": "yes"})"), "scene.json: output.png: expected true or false, got \"yes\"");
  EXPECT_EQ(output_error(R"({"contact_sheet": 1})"), "scene.json: output.contact_sheet: expected true or false, got 1");
  EXPECT_EQ(output_error(R"({"speed_max": -1})"), "scene.json: output.speed_max: expected a number >= 0, got -1");
}

TEST(RenderKeys, ValidKeysAreRead) {
  const pbf_sim::Scene s = pbf_sim::parse_scene(
      R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "spacing": 0.1,
          "output": {"png": true, "contact_sheet": true, "image": [640, 480], "speed_max": 2.5,
                     "camera": {"position": [3, 2, 3], "look_at": [0.5, 0.5, 0.5], "up": [0, 1, 0], "fov": 50}}})",
      "scene.json");
  EXPECT_TRUE(s.output.png);
  EXPECT_TRUE(s.output.contact_sheet);
  EXPECT_EQ(s.output.image_width, 640);
  EXPECT_EQ(s.output.image_height, 480);
  EXPECT_FLOAT_EQ(s.output.speed_max, 2.5f);
  EXPECT_TRUE(s.output.has_camera);
  EXPECT_FLOAT_EQ(s.output.camera.fov, 50.0f);
  EXPECT_FLOAT_EQ(s.output.camera.position[0], 3.0f);
  const pbf_sim::Scene d = pbf_sim::parse_scene(R"({"domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "spacing": 0.1})", "d");
  EXPECT_FALSE(d.output.png);
  EXPECT_TRUE(d.output.contact_sheet) << "pictures come with a contact sheet unless asked otherwise";
  EXPECT_EQ(d.output.image_width, 960);
  EXPECT_EQ(d.output.image_height, 540);
  EXPECT_FALSE(d.output.has_camera);
}

}  // namespace
