// sim_test_util.h - helpers of the pbf-sim tests: temporary folders, and
// independent readers of the PLY, VTP and PVD files pbf-sim writes.
#ifndef PBF_TESTS_SIM_SIM_TEST_UTIL_H
#define PBF_TESTS_SIM_SIM_TEST_UTIL_H

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace sim_test {

/** A fresh, empty folder under the test temporary directory, named after the running test. */
inline std::string fresh_dir(const std::string& tag = "") {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = std::string("pbf_sim_") + info->test_suite_name() + "_" + info->name() + tag;
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

/** The whole file as bytes (empty when it cannot be read). */
inline std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::string read_text(const std::string& path) {
  const std::vector<unsigned char> b = read_bytes(path);
  return std::string(b.begin(), b.end());
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

inline uint64_t load_le(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int b = 0; b < bytes; ++b) v |= static_cast<uint64_t>(p[b]) << (8 * b);
  return v;
}

inline float load_f32(const unsigned char* p) {
  const uint32_t bits = static_cast<uint32_t>(load_le(p, 4));
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/** The particles of a PLY file: x y z vx vy vz density per vertex (its colour is not kept). */
struct PlyData {
  size_t count = 0;
  std::vector<float> positions, velocities, densities;
};

/** Reads a binary little-endian PLY with the seven float and three colour properties pbf writes; fails the test otherwise. */
inline PlyData read_ply(const std::string& path) {
  PlyData d;
  const std::vector<unsigned char> bytes = read_bytes(path);
  const std::string text(bytes.begin(), bytes.end());
  const size_t end = text.find("end_header\n");
  EXPECT_NE(end, std::string::npos) << path;
  if (end == std::string::npos) return d;
  const std::string header = text.substr(0, end);
  EXPECT_NE(header.find("format binary_little_endian 1.0"), std::string::npos);
  std::smatch m;
  EXPECT_TRUE(std::regex_search(header, m, std::regex("element vertex ([0-9]+)")));
  d.count = std::stoul(m[1]);
  const char* props[] = {"x", "y", "z", "vx", "vy", "vz", "density"};
  size_t at = 0;
  for (const char* p : props) {
    const size_t pos = header.find(std::string("property float ") + p + "\n", at);
    EXPECT_NE(pos, std::string::npos) << "property " << p;
    at = pos;
  }
  for (const char* p : {"red", "green", "blue"}) {
    const size_t pos = header.find(std::string("property uchar ") + p + "\n", at);
    EXPECT_NE(pos, std::string::npos) << "property " << p;
    at = pos;
  }
  constexpr size_t kRecord = 7 * 4 + 3;
  const unsigned char* data = bytes.data() + end + 11;
  EXPECT_EQ(bytes.size() - (end + 11), d.count * kRecord) << "payload of " << path;
  if (bytes.size() - (end + 11) != d.count * kRecord) return d;
  for (size_t i = 0; i < d.count; ++i) {
    const unsigned char* rec = data + kRecord * i;
    for (int a = 0; a < 3; ++a) d.positions.push_back(load_f32(rec + 4 * a));
    for (int a = 0; a < 3; ++a) d.velocities.push_back(load_f32(rec + 12 + 4 * a));
    d.densities.push_back(load_f32(rec + 24));
  }
  return d;
}

/** One DataArray of a VTP file: its attributes and its decoded values. */
struct VtpArray {
  std::string type;
  int components = 1;
  std::vector<float> floats;    // Float32 arrays
  std::vector<int32_t> ints;    // Int32 arrays
};

/** A VTP file read independently of the writer: the header's attributes and every array by name. */
struct VtpData {
  std::string header;  // the XML before the appended data
  size_t points = 0;
  size_t verts = 0;
  std::map<std::string, VtpArray> arrays;
};

/**
 * Parses a VTK XML PolyData file with raw appended data and UInt64 block
 * headers: each DataArray's offset points at a UInt64 byte count followed by
 * the values. Fails the test on anything else.
 */
inline VtpData read_vtp(const std::string& path) {
  VtpData d;
  const std::vector<unsigned char> bytes = read_bytes(path);
  const std::string text(bytes.begin(), bytes.end());
  const std::string marker = "<AppendedData encoding=\"raw\">";
  const size_t appended = text.find(marker);
  EXPECT_NE(appended, std::string::npos) << path;
  if (appended == std::string::npos) return d;
  const size_t underscore = text.find('_', appended + marker.size());
  EXPECT_NE(underscore, std::string::npos);
  const size_t base = underscore + 1;
  d.header = text.substr(0, appended);
  EXPECT_NE(d.header.find("type=\"PolyData\""), std::string::npos);
  EXPECT_NE(d.header.find("byte_order=\"LittleEndian\""), std::string::npos);
  EXPECT_NE(d.header.find("header_type=\"UInt64\""), std::string::npos);
  std::smatch m;
  EXPECT_TRUE(std::regex_search(d.header, m, std::regex("NumberOfPoints=\"([0-9]+)\"")));
  d.points = std::stoul(m[1]);
  EXPECT_TRUE(std::regex_search(d.header, m, std::regex("NumberOfVerts=\"([0-9]+)\"")));
  d.verts = std::stoul(m[1]);
  const std::regex array_re("<DataArray ([^>]*)/>");
  for (auto it = std::sregex_iterator(d.header.begin(), d.header.end(), array_re); it != std::sregex_iterator(); ++it) {
    const std::string attrs = (*it)[1];
    auto attr = [&](const char* name) {
      std::smatch a;
      const std::regex re(std::string(name) + "=\"([^\"]*)\"");
      return std::regex_search(attrs, a, re) ? std::string(a[1]) : std::string();
    };
    VtpArray arr;
    arr.type = attr("type");
    const std::string comps = attr("NumberOfComponents");
    arr.components = comps.empty() ? 1 : std::stoi(comps);
    EXPECT_EQ(attr("format"), "appended");
    const size_t offset = base + std::stoull(attr("offset"));
    EXPECT_LE(offset + 8, bytes.size());
    if (offset + 8 > bytes.size()) continue;
    const uint64_t length = load_le(bytes.data() + offset, 8);
    EXPECT_LE(offset + 8 + length, bytes.size());
    if (offset + 8 + length > bytes.size()) continue;
    for (uint64_t k = 0; k < length; k += 4) {
      const unsigned char* p = bytes.data() + offset + 8 + k;
      if (arr.type == "Float32")
        arr.floats.push_back(load_f32(p));
      else
        arr.ints.push_back(static_cast<int32_t>(load_le(p, 4)));
    }
    d.arrays[attr("Name")] = arr;
  }
  EXPECT_NE(text.find("</AppendedData>\n</VTKFile>", base), std::string::npos) << "file ends properly";
  return d;
}

/** The (timestep, file) pairs of a .pvd collection, in file order. */
inline std::vector<std::pair<double, std::string>> read_pvd(const std::string& path) {
  std::vector<std::pair<double, std::string>> out;
  const std::string text = read_text(path);
  EXPECT_NE(text.find("<VTKFile type=\"Collection\""), std::string::npos);
  const std::regex re("<DataSet timestep=\"([^\"]*)\"[^>]* file=\"([^\"]*)\"/>");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.emplace_back(std::stod((*it)[1]), (*it)[2]);
  return out;
}

/** Files under `dir` whose names contain ".partial" (left by an interrupted write). */
inline std::vector<std::string> partial_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().filename().string().find(".partial") != std::string::npos) out.push_back(e.path().string());
  return out;
}

}  // namespace sim_test

#endif  // PBF_TESTS_SIM_SIM_TEST_UTIL_H
