// Frame files read back equal what was written: VTP parsed independently
// (XML header + raw appended blocks), PLY through its header, and the .pvd
// lists every written frame with its time. Files appear whole or not at all.
#include <gtest/gtest.h>
#include <pbf/pbf.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "scene.h"
#include "scene_runner.h"
#include "sim_test_util.h"
#include "vdb_writer.h"
#include "vtp_writer.h"

namespace {

// A small scene: a block falling in a box, on the CPU.
pbf_sim::Scene small_scene(const std::string& dir) {
  pbf_sim::Scene s = pbf_sim::parse_scene(R"({
    "domain": {"min": [0, 0, 0], "max": [0.6, 0.6, 0.6]}, "backend": "cpu", "spacing": 0.05,
    "time": {"fps": 30, "frames": 5, "substeps": 2},
    "fluid": [{"box": {"min": [0, 0, 0], "max": [0.3, 0.4, 0.3]}, "velocity": [0.5, 0, 0]}],
    "output": {"ply": true, "vtp": true}})",
                                          "small.json");
  s.output.dir = dir;
  return s;
}

// Runs all frames of the runner's scene, writing the due ones, as pbf-sim does.
void run(pbf_sim::SceneRunner& r) {
  r.write_output();
  for (int k = 0; k < r.scene().time.frames; ++k) {
    r.advance();
    if (r.output_due()) r.write_output();
  }
}

TEST(VtpWriter, ArraysReadBackBitForBit) {
  const std::string path = sim_test::fresh_dir() + "/particles.vtp";
  const std::vector<float> x = {0.0f, 1.5f, -2.25f, 1e-7f, 3.0f, 4.0f, 0.1f, 0.2f, 0.3f};
  const std::vector<float> v = {3.0f, 4.0f, 0.0f, -1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  const std::vector<float> rho = {1000.0f, 998.5f, 0.0f};
  pbf_sim::write_vtp(path, 3, x.data(), v.data(), rho.data());
  const sim_test::VtpData d = sim_test::read_vtp(path);
  EXPECT_EQ(d.points, 3u);
  EXPECT_EQ(d.verts, 3u);
  ASSERT_EQ(d.arrays.count("Points"), 1u);
  EXPECT_EQ(d.arrays.at("Points").type, "Float32");
  EXPECT_EQ(d.arrays.at("Points").components, 3);
  EXPECT_EQ(d.arrays.at("Points").floats, x);
  EXPECT_EQ(d.arrays.at("velocity").components, 3);
  EXPECT_EQ(d.arrays.at("velocity").floats, v);
  EXPECT_EQ(d.arrays.at("density").floats, rho);
  EXPECT_EQ(d.arrays.at("speed").floats, (std::vector<float>{5.0f, 1.0f, 0.0f}));
  EXPECT_EQ(d.arrays.at("connectivity").ints, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(d.arrays.at("offsets").ints, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_NE(d.header.find("<PointData Scalars=\"density\" Vectors=\"velocity\">"), std::string::npos);
  EXPECT_TRUE(sim_test::partial_files(std::filesystem::path(path).parent_path().string()).empty());
}

TEST(VtpWriter, NoParticlesGiveAValidEmptyFile) {
  const std::string path = sim_test::fresh_dir() + "/empty.vtp";
  pbf_sim::write_vtp(path, 0, nullptr, nullptr, nullptr);
  const sim_test::VtpData d = sim_test::read_vtp(path);
  EXPECT_EQ(d.points, 0u);
  EXPECT_EQ(d.arrays.size(), 6u);
  for (const auto& a : d.arrays) EXPECT_TRUE(a.second.floats.empty() && a.second.ints.empty()) << a.first;
}

TEST(VtpWriter, AFileThatCannotBeWrittenThrowsWithItsPathAndLeavesNothing) {
  const std::string dir = sim_test::fresh_dir();
  const std::string path = dir + "/missing-folder/particles.vtp";
  const float p[3] = {0, 0, 0};
  try {
    pbf_sim::write_vtp(path, 1, p, p, p);
    FAIL() << "wrote into a missing folder";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ".partial"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(VtpWriter, ReplacingAFileNeverShowsAPart) {
  // The new content goes to a temporary name first: the old file stays whole until the rename.
  const std::string path = sim_test::fresh_dir() + "/frame.vtp";
  const std::vector<float> a(30, 1.0f), b(30, 2.0f);
  pbf_sim::write_vtp(path, 10, a.data(), a.data(), a.data());
  pbf_sim::write_vtp(path, 10, b.data(), b.data(), b.data());
  EXPECT_EQ(sim_test::read_vtp(path).arrays.at("Points").floats, b);
}

TEST(PvdWriter, ListsEveryEntryWithItsTimeAndEscapesNames) {
  const std::string path = sim_test::fresh_dir() + "/frames.pvd";
  pbf_sim::write_pvd(path, {{0.0, "frame_0000.vtp"}, {1.0 / 60.0, "frame_0001.vtp"}, {2.5, "a&b.vtp"}});
  const auto entries = sim_test::read_pvd(path);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].second, "frame_0000.vtp");
  EXPECT_NEAR(entries[1].first, 1.0 / 60.0, 1e-9);
  EXPECT_EQ(entries[2].second, "a&amp;b.vtp");
}

TEST(FrameOutput, LastFramesFilesEqualTheSolversArrays) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::SceneRunner r(small_scene(dir));
  run(r);
  const size_t n = r.particle_count();
  std::vector<float> x(3 * n), v(3 * n), rho(n);
  ASSERT_EQ(pbf_solver_get_positions(r.solver(), x.data(), x.size()), PBF_OK);
  ASSERT_EQ(pbf_solver_get_velocities(r.solver(), v.data(), v.size()), PBF_OK);
  ASSERT_EQ(pbf_solver_get_densities(r.solver(), rho.data(), rho.size()), PBF_OK);

  const sim_test::PlyData ply = sim_test::read_ply(dir + "/frame_0005.ply");
  EXPECT_EQ(ply.count, n);
  EXPECT_EQ(ply.positions, x);
  EXPECT_EQ(ply.velocities, v);
  EXPECT_EQ(ply.densities, rho);

  const sim_test::VtpData vtp = sim_test::read_vtp(dir + "/frame_0005.vtp");
  EXPECT_EQ(vtp.points, n);
  EXPECT_EQ(vtp.arrays.at("Points").floats, x);
  EXPECT_EQ(vtp.arrays.at("velocity").floats, v);
  EXPECT_EQ(vtp.arrays.at("density").floats, rho);
  const std::vector<float>& speed = vtp.arrays.at("speed").floats;
  ASSERT_EQ(speed.size(), n);
  for (size_t i = 0; i < n; ++i)
    EXPECT_FLOAT_EQ(speed[i], std::sqrt(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]));
  EXPECT_TRUE(sim_test::partial_files(dir).empty());
}

TEST(FrameOutput, PvdListsEveryFrameWithItsTime) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::SceneRunner r(small_scene(dir));
  run(r);
  const auto entries = sim_test::read_pvd(dir + "/frames.pvd");
  ASSERT_EQ(entries.size(), 6u);
  for (int f = 0; f <= 5; ++f) {
    EXPECT_EQ(entries[f].second, "frame_000" + std::to_string(f) + ".vtp");
    EXPECT_NEAR(entries[f].first, f / 30.0, 1e-7);
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + entries[f].second));
  }
}

TEST(FrameOutput, EveryNthFrameAndTheLastAreWritten) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::Scene s = small_scene(dir);
  s.output.every = 2;
  pbf_sim::SceneRunner r(s);
  run(r);
  std::vector<std::string> files;
  for (const auto& e : sim_test::read_pvd(dir + "/frames.pvd")) files.push_back(e.second);
  EXPECT_EQ(files, (std::vector<std::string>{"frame_0000.vtp", "frame_0002.vtp", "frame_0004.vtp", "frame_0005.vtp"}));
  EXPECT_TRUE(std::filesystem::exists(dir + "/frame_0004.ply"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/frame_0003.ply"));
  EXPECT_EQ(r.totals().ply_files, 4u);
  EXPECT_EQ(r.totals().vtp_files, 4u);
}

TEST(FrameOutput, FrameNumbersArePaddedToTheLastFrame) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::Scene s = small_scene(dir);
  s.time.frames = 12345;
  pbf_sim::SceneRunner r(s);
  EXPECT_EQ(std::filesystem::path(r.frame_path("vtp")).filename().string(), "frame_00000.vtp");
  s.time.frames = 3;
  pbf_sim::SceneRunner short_run(s);
  EXPECT_EQ(std::filesystem::path(short_run.frame_path("ply")).filename().string(), "frame_0000.ply");
}

TEST(FrameOutput, NoFormatWritesNoFolder) {
  const std::string dir = sim_test::fresh_dir() + "/never";
  pbf_sim::Scene s = small_scene(dir);
  s.output.ply = s.output.vtp = false;
  pbf_sim::SceneRunner r(s);
  run(r);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(FrameOutput, AResumedRunKeepsTheEarlierFramesInThePvd) {
  const std::string dir = sim_test::fresh_dir();
  const std::string checkpoint = dir + "/state.pbfc";
  {
    pbf_sim::Scene s = small_scene(dir);
    s.time.frames = 3;
    pbf_sim::SceneRunner first(s);
    run(first);
    first.save_checkpoint(checkpoint);
  }
  pbf_sim::Scene s = small_scene(dir);
  s.time.frames = 2;
  pbf_sim::SceneRunner second(s);
  second.resume(checkpoint, 3);
  for (int k = 0; k < 2; ++k) {
    second.advance();
    second.write_output();
  }
  std::vector<std::string> files;
  for (const auto& e : sim_test::read_pvd(dir + "/frames.pvd")) files.push_back(e.second);
  EXPECT_EQ(files, (std::vector<std::string>{"frame_0000.vtp", "frame_0001.vtp", "frame_0002.vtp", "frame_0003.vtp",
                                             "frame_0004.vtp", "frame_0005.vtp"}));
}

// --- an earlier run into the same folder ---

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(FrameOutput, AShorterRunIntoTheSameFolderLeavesOnlyItsOwnFramesAndTheUsersFiles) {
  const std::string dir = sim_test::fresh_dir();
  {
    pbf_sim::SceneRunner first(small_scene(dir));  // frames 0 .. 5
    run(first);
  }
  // Files pbf-sim did not write stay, even when named like its frames.
  sim_test::write_text(dir + "/notes.txt", "mine");
  sim_test::write_text(dir + "/frame_0009.ply", "mine too");
  pbf_sim::Scene s = small_scene(dir);
  s.time.frames = 2;
  pbf_sim::SceneRunner second(s);
  run(second);
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{"frame_0000.ply", "frame_0000.vtp", "frame_0001.ply",
                                                     "frame_0001.vtp", "frame_0002.ply", "frame_0002.vtp",
                                                     "frame_0009.ply", "frames.json", "frames.pvd", "notes.txt"}));
  EXPECT_EQ(sim_test::read_text(dir + "/frame_0009.ply"), "mine too");
  EXPECT_EQ(sim_test::read_pvd(dir + "/frames.pvd").size(), 3u);
  EXPECT_EQ(second.totals().stale_files, 6u) << "frames 3, 4 and 5, as PLY and VTP; the others were written again";
}

// The same with every kind of surface file: each kind a shorter run writes again is not counted
// as removed, each it does not is removed and counted.
TEST(FrameOutput, AShorterRunCountsOnlyTheSurfaceFilesItDoesNotWriteAgain) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::Scene s = small_scene(dir);
  s.output.ply = false;
  s.output.surface = true;
  s.output.surface_format = pbf_sim::OutputSpec::SurfaceFormat::Both;
  s.output.vdb = pbf_sim::vdb_available();
  {
    pbf_sim::SceneRunner first(s);  // frames 0 .. 5
    run(first);
  }
  s.time.frames = 2;
  pbf_sim::SceneRunner second(s);
  run(second);
  const size_t kinds = s.output.vdb ? 5 : 4;  // frame_.vtp, surface_.ply, .obj, .vtp (and .vdb)
  EXPECT_EQ(second.totals().stale_files, 3 * kinds) << "frames 3, 4 and 5 of every kind; 0, 1 and 2 were written again";
  for (const char* ext : {".ply", ".obj", ".vtp", ".vdb"}) {
    if (std::string(ext) == ".vdb" && !s.output.vdb) continue;
    EXPECT_TRUE(std::filesystem::exists(dir + "/surface_0002" + ext)) << ext;
    EXPECT_FALSE(std::filesystem::exists(dir + "/surface_0003" + ext)) << ext;
  }
}

TEST(FrameOutput, ARunWithoutVtpRemovesTheEarlierRunsVtpFramesAndTheirCollection) {
  const std::string dir = sim_test::fresh_dir();
  {
    pbf_sim::Scene s = small_scene(dir);
    s.time.frames = 2;
    pbf_sim::SceneRunner first(s);
    run(first);
  }
  pbf_sim::Scene s = small_scene(dir);
  s.time.frames = 2;
  s.output.vtp = false;
  pbf_sim::SceneRunner second(s);
  run(second);
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{"frame_0000.ply", "frame_0001.ply", "frame_0002.ply",
                                                     "frames.json"}));
}

TEST(FrameOutput, AResumedRunRemovesTheEarlierRunsFramesAfterItsStart) {
  const std::string dir = sim_test::fresh_dir();
  const std::string checkpoint = dir + "/state.pbfc";
  {
    pbf_sim::Scene s = small_scene(dir);
    s.time.frames = 2;
    pbf_sim::SceneRunner first(s);
    run(first);
    first.save_checkpoint(checkpoint);
    for (int k = 0; k < 3; ++k) {  // frames 3 .. 5, which the resumed run below does not reach
      first.advance();
      first.write_output();
    }
  }
  pbf_sim::Scene s = small_scene(dir);
  s.time.frames = 1;
  pbf_sim::SceneRunner second(s);
  second.resume(checkpoint, 2);
  second.advance();
  second.write_output();
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{"frame_0000.ply", "frame_0000.vtp", "frame_0001.ply",
                                                     "frame_0001.vtp", "frame_0002.ply", "frame_0002.vtp",
                                                     "frame_0003.ply", "frame_0003.vtp", "frames.json", "frames.pvd",
                                                     "state.pbfc"}));
}

// --- how files are replaced ---

TEST(FrameOutput, AUsersFileNamedLikeATemporaryFileIsNeitherReadNorMoved) {
  // The temporary names are unique and created exclusively: "frame_0000.ply.partial" is someone else's.
  const std::string dir = sim_test::fresh_dir();
  for (const char* ext : {"ply", "vtp", "png"}) sim_test::write_text(dir + "/frame_0000." + ext + ".partial", "keep");
  sim_test::write_text(dir + "/frames.json.partial", "keep");
  pbf_sim::Scene s = small_scene(dir);
  s.output.png = true;
  s.output.image_width = 32;
  s.output.image_height = 18;
  pbf_sim::SceneRunner r(s);
  r.write_output();
  for (const char* ext : {"ply", "vtp", "png"}) {
    EXPECT_EQ(sim_test::read_text(dir + "/frame_0000." + ext + ".partial"), "keep") << ext;
    EXPECT_GT(std::filesystem::file_size(dir + "/frame_0000." + ext), 4u) << ext;
  }
  EXPECT_EQ(sim_test::read_text(dir + "/frames.json.partial"), "keep");
  EXPECT_EQ(names_in(dir).size(), 9u) << "three frames, the collection, the manifest and the four files above";
}

TEST(FrameOutput, AFolderWhereAFrameGoesIsNeverReplaced) {
  const std::string dir = sim_test::fresh_dir();
  std::filesystem::create_directories(dir + "/frame_0000.vtp");
  sim_test::write_text(dir + "/frame_0000.vtp/inside.txt", "kept");
  const float p[3] = {0.1f, 0.1f, 0.1f};
  try {
    pbf_sim::write_vtp(dir + "/frame_0000.vtp", 1, p, p, p);
    FAIL() << "wrote over a folder";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
  std::filesystem::create_directories(dir + "/frame_0000.ply");
  pbf_sim::SceneRunner r(small_scene(dir));
  EXPECT_EQ(pbf_solver_write_ply(r.solver(), (dir + "/frame_0000.ply").c_str()), PBF_ERROR_IO);
  EXPECT_NE(std::string(pbf_last_error()).find("not a regular file"), std::string::npos) << pbf_last_error();
  EXPECT_TRUE(std::filesystem::is_directory(dir + "/frame_0000.ply"));
  EXPECT_EQ(sim_test::read_text(dir + "/frame_0000.vtp/inside.txt"), "kept");
  EXPECT_TRUE(sim_test::partial_files(dir).empty());
}

// ParaView (VTK's vtkPLYReader) reads only normals, colours and texture coordinates of a PLY vertex;
// the PLY frames are for readers that keep every property, so the header must say what each one is.
TEST(FrameOutput, PlyFramesNameEachPropertyAndItsUnitInTheHeader) {
  const std::string dir = sim_test::fresh_dir();
  pbf_sim::SceneRunner r(small_scene(dir));
  r.write_output();
  const std::string text = sim_test::read_text(dir + "/frame_0000.ply");
  const std::string header = text.substr(0, text.find("end_header\n"));
  std::vector<std::string> elements, properties, comments;
  std::istringstream lines(header);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("element ", 0) == 0) elements.push_back(line.substr(8));
    if (line.rfind("property ", 0) == 0) properties.push_back(line.substr(9));
    if (line.rfind("comment ", 0) == 0) comments.push_back(line.substr(8));
  }
  EXPECT_EQ(elements, (std::vector<std::string>{"vertex " + std::to_string(r.particle_count())}));
  EXPECT_EQ(properties, (std::vector<std::string>{"float x", "float y", "float z", "float vx", "float vy", "float vz",
                                                  "float density", "uchar red", "uchar green", "uchar blue"}));
  const std::string units = "x y z: position [m]; vx vy vz: velocity [m/s]; density: [kg/m^3]";
  EXPECT_NE(std::find(comments.begin(), comments.end(), units), comments.end()) << header;
  EXPECT_TRUE(std::any_of(comments.begin(), comments.end(),
                          [](const std::string& c) { return c.rfind("red green blue: speed, 0 (deep blue) to ", 0) == 0; }))
      << header;
  EXPECT_EQ(sim_test::read_ply(dir + "/frame_0000.ply").count, r.particle_count());
}

}  // namespace
