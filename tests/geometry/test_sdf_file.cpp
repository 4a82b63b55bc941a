// SDF files: a saved field loads back bit for bit; a missing, foreign,
// truncated or corrupted file, a number out of range under a valid checksum,
// and a path that is not a regular file are refused with the path and the
// reason, without blocking; a save never replaces anything but a regular
// file and never loses the old file when it fails.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/hash.h"
#include "geometry/sdf_file.h"
#include "hostile_files.h"

namespace {

using pbf_test::TempFolder;

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

// load_sdf(path) in a child process, which cannot hang the test or take the
// machine's memory when the load misbehaves: Io and "not a regular file".
void expect_not_a_regular_file(const std::string& path, const std::string& kind) {
  const pbf_test::ChildOutcome got = pbf_test::run_in_child([&](std::string& message) {
    try {
      pbf::load_sdf(path);
      return 0;
    } catch (const pbf::Error& e) {
      message = e.what();
      return int(e.status());
    } catch (const std::exception& e) {
      message = e.what();
      return 100;
    }
  });
  ASSERT_TRUE(got.finished) << path << ": " << got.how;
  EXPECT_EQ(got.code, int(pbf::Status::Io)) << got.message;
  EXPECT_NE(got.message.find(path), std::string::npos) << got.message;
  EXPECT_NE(got.message.find(kind + ", not a regular file"), std::string::npos) << got.message;
}

TEST(SdfFile, DevicesFifosAndFoldersAreRefusedWithoutBlocking) {
  expect_not_a_regular_file("/dev/zero", "a character device");
  TempFolder folder;
  const std::string fifo = folder / "fifo.pbfsdf";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  expect_not_a_regular_file(fifo, "a FIFO");
  expect_not_a_regular_file(folder / "", "a directory");
}

TEST(SdfFile, ANumberOutOfRangeUnderAValidChecksumIsRefused) {
  // Header: magic 8, version 4, nx ny nz 12, origin 12, cell 4; then the values.
  TempFolder folder;
  const std::string path = folder / "box.pbfsdf";
  pbf::save_sdf(path, pbf::box_sdf(pbf::Vec3{0.1f, 0.2f, 0.3f}, 0.05f));
  const std::vector<char> good = read_all(path);
  struct Forgery {
    size_t at;
    float value;
    const char* reason;
  };
  for (const Forgery& f : {Forgery{36, 1e-40f, "the cell"},                // subnormal: 1 / cell is infinite
                           Forgery{40 + 4 * 7, 1e38f, "farther than the grid"},  // finite, but no distance
                           Forgery{40, -3e30f, "farther than the grid"}}) {
    SCOPED_TRACE(f.reason);
    std::vector<char> bytes = good;
    std::memcpy(&bytes[f.at], &f.value, 4);
    const size_t payload = bytes.size() - 8;
    const uint64_t hash = pbf::fnv1a(reinterpret_cast<const unsigned char*>(bytes.data()), payload);
    for (int b = 0; b < 8; ++b) bytes[payload + b] = char(hash >> (8 * b));
    write_all(path, bytes);
    expect_refused(path, f.reason);
  }
}

// Saving onto `target` is refused with Io, naming it; it keeps its kind and
// `folder` holds nothing new.
void expect_save_refused(const TempFolder& folder, const std::string& target, const std::string& kind) {
  const mode_t before = pbf_test::kind_of(target);
  const size_t names = folder.names().size();
  try {
    pbf::save_sdf(target, pbf::sphere_sdf(0.1f, 0.05f));
    ADD_FAILURE() << "saved onto " << target;
  } catch (const pbf::Error& e) {
    EXPECT_EQ(e.status(), pbf::Status::Io);
    const std::string message = e.what();
    EXPECT_NE(message.find(target), std::string::npos) << message;
    EXPECT_NE(message.find(kind + ", not a regular file"), std::string::npos) << message;
  }
  EXPECT_EQ(pbf_test::kind_of(target), before) << target << " was replaced";
  EXPECT_EQ(folder.names().size(), names) << "a temporary file was left beside " << target;
}

TEST(SdfFile, ASaveReplacesNoDeviceFifoOrFolder) {
  TempFolder folder;
  const std::string fifo = folder / "fifo.pbfsdf", sub = folder / "sub";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  expect_save_refused(folder, fifo, "a FIFO");
  ASSERT_EQ(::mkdir(sub.c_str(), 0700), 0) << std::strerror(errno);
  expect_save_refused(folder, sub, "a directory");
  // Saving onto /dev/null as root once renamed the file over the device; a
  // device node of our own stands in for it where this process may make one.
  const std::string device = folder / "null";
  if (pbf_test::make_null_device(device)) expect_save_refused(folder, device, "a character device");
}

TEST(SdfFile, AFailedSaveKeepsTheOldFileWhole) {
  TempFolder folder;
  const std::string path = folder / "field.pbfsdf";
  pbf::save_sdf(path, pbf::sphere_sdf(0.1f, 0.05f));
  const std::vector<char> old = read_all(path);
  try {
    // Writes past the old file's size fail, as on a full disk; the new field is larger.
    const pbf_test::FileSizeLimit limit(old.size() + 1);
    pbf::save_sdf(path, pbf::sphere_sdf(0.3f, 0.05f));
    ADD_FAILURE() << "saved past the file size limit";
  } catch (const pbf::Error& e) {
    EXPECT_EQ(e.status(), pbf::Status::Io);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_TRUE(read_all(path) == old) << "the old file changed";
  EXPECT_EQ(folder.names().size(), 1u) << "a temporary file was left behind";
  EXPECT_EQ(pbf::load_sdf(path).values.size(), pbf::sphere_sdf(0.1f, 0.05f).values.size());
}

}  // namespace
