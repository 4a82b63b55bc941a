// SDF files: a saved field loads back bit for bit; a missing, foreign,
// truncated or corrupted file is refused with the path and the reason.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/error.h"
#include "geometry/sdf_file.h"

namespace {

std::string temp(const std::string& name) { return ::testing::TempDir() + "/" + name; }

std::vector<char> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_all(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

void expect_refused(const std::string& path, const std::string& reason) {
  try {
    pbf::load_sdf(path);
    ADD_FAILURE() << path << " loaded";
  } catch (const pbf::Error& e) {
    EXPECT_EQ(e.status(), pbf::Status::Io);
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(reason), std::string::npos) << message;
  }
}

TEST(SdfFile, ASavedFieldLoadsBackBitForBit) {
  const pbf::SignedDistanceField f = pbf::sphere_sdf(0.3f, 0.02f);
  const std::string path = temp("sphere.pbfsdf");
  pbf::save_sdf(path, f);
  const pbf::SignedDistanceField g = pbf::load_sdf(path);
  EXPECT_EQ(g.nx, f.nx);
  EXPECT_EQ(g.ny, f.ny);
  EXPECT_EQ(g.nz, f.nz);
  EXPECT_EQ(std::memcmp(&g.origin, &f.origin, sizeof f.origin), 0);
  EXPECT_EQ(g.cell, f.cell);
  ASSERT_EQ(g.values.size(), f.values.size());
  EXPECT_EQ(std::memcmp(g.values.data(), f.values.data(), 4 * f.values.size()), 0);
  EXPECT_EQ(read_all(path + ".partial").size(), 0u) << "the temporary file is renamed away";
  std::remove(path.c_str());
}

TEST(SdfFile, MissingForeignTruncatedAndCorruptedFilesAreRefused) {
  const std::string good = temp("box.pbfsdf");
  pbf::save_sdf(good, pbf::box_sdf(pbf::Vec3{0.1f, 0.2f, 0.3f}, 0.05f));
  const std::vector<char> bytes = read_all(good);
  ASSERT_GT(bytes.size(), 100u);

  expect_refused(temp("no_such.pbfsdf"), "cannot open");

  const std::string foreign = temp("foreign.pbfsdf");
  write_all(foreign, std::vector<char>{'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'});
  expect_refused(foreign, "not a pbf signed distance field");

  const std::string truncated = temp("truncated.pbfsdf");
  for (size_t keep : {size_t(10), size_t(30), bytes.size() / 2, bytes.size() - 1}) {
    write_all(truncated, std::vector<char>(bytes.begin(), bytes.begin() + keep));
    expect_refused(truncated, "truncated");
  }

  const std::string flipped = temp("flipped.pbfsdf");
  std::vector<char> corrupt = bytes;
  corrupt[bytes.size() / 2] ^= 0x10;  // one bit of one value
  write_all(flipped, corrupt);
  expect_refused(flipped, "checksum");

  std::vector<char> longer = bytes;
  longer.push_back('x');
  write_all(flipped, longer);
  expect_refused(flipped, "follow");

  std::vector<char> huge = bytes;
  huge[12] = huge[13] = huge[14] = huge[15] = char(0x7f);  // nx of two billion
  write_all(flipped, huge);
  expect_refused(flipped, "dimension 0");

  std::vector<char> version = bytes;
  version[8] = 9;
  write_all(flipped, version);
  expect_refused(flipped, "version 9");

  for (const std::string& p : {good, foreign, truncated, flipped}) std::remove(p.c_str());
}

TEST(SdfFile, AnUnwritablePathIsAnIoError) {
  try {
    pbf::save_sdf(temp("no_such_directory/field.pbfsdf"), pbf::sphere_sdf(0.1f, 0.05f));
    ADD_FAILURE() << "saved";
  } catch (const pbf::Error& e) {
    EXPECT_EQ(e.status(), pbf::Status::Io);
    EXPECT_NE(std::string(e.what()).find("no_such_directory"), std::string::npos) << e.what();
  }
}

}  // namespace
