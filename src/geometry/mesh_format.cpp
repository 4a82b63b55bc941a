#include "geometry/mesh_format.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"

namespace pbf {

namespace {

std::string num(uint64_t v) { return std::to_string(v); }

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool is_space(char c) { return is_blank(c) || c == '\n'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Assimp's text formats stop at a NUL byte, so a text file must hold none.
void check_text(const std::string& path, const char* data, size_t size, const char* format) {
  const void* nul = std::memchr(data, '\0', size);
  if (nul != nullptr)
    mesh_file_error(path, std::string("a NUL byte at offset ") +
                              num(uint64_t(static_cast<const char*>(nul) - data)) + ", which a text " + format +
                              " file cannot hold");
}

// A decimal number as the importers parse it: [+-]digits[.digits][(e|E)[+-]digits],
// or an integer [+-]digits when `integer`.
bool is_number(const char* p, const char* end, bool integer) {
  if (p < end && (*p == '+' || *p == '-')) ++p;
  const char* digits = p;
  while (p < end && is_digit(*p)) ++p;
  bool any = p > digits;
  if (integer) return any && p == end;
  if (p < end && *p == '.') {
    const char* fraction = ++p;
    while (p < end && is_digit(*p)) ++p;
    any = any || p > fraction;
  }
  if (!any) return false;
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < end && (*p == '+' || *p == '-')) ++p;
    const char* exponent = p;
    while (p < end && is_digit(*p)) ++p;
    if (p == exponent) return false;
  }
  return p == end;
}

// A non-negative decimal integer of at most 10 digits (no sign), or false.
bool parse_count(const char* p, const char* end, uint64_t& out) {
  if (p == end || end - p > 10) return false;
  out = 0;
  for (; p < end; ++p) {
    if (!is_digit(*p)) return false;
    out = out * 10 + uint64_t(*p - '0');
  }
  return true;
}

using Words = std::vector<std::pair<const char*, const char*>>;

// Whitespace-separated words of one line [p, end) into `out`.
void split_words(const char* p, const char* end, Words& out) {
  out.clear();
  while (true) {
    while (p < end && is_blank(*p)) ++p;
    if (p == end) return;
    const char* start = p;
    while (p < end && !is_blank(*p)) ++p;
    out.emplace_back(start, p);
  }
}

Words words(const char* p, const char* end) {
  Words out;
  split_words(p, end, out);
  return out;
}

bool word_is(const std::pair<const char*, const char*>& w, const char* text) {
  const size_t n = std::strlen(text);
  return size_t(w.second - w.first) == n && std::memcmp(w.first, text, n) == 0;
}

std::string word_text(const std::pair<const char*, const char*>& w) {
  const size_t n = std::min<size_t>(size_t(w.second - w.first), 40);
  std::string s(w.first, n);
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
  return s;
}

// ---------------------------------------------------------------- STL

void check_stl(const std::string& path, const char* data, size_t size) {
  if (size >= 84) {
    uint32_t n = 0;
    std::memcpy(&n, data + 80, 4);  // little endian, as every STL writer stores it
    if (uint64_t(size) == 84 + 50 * uint64_t(n)) return;  // binary: the count matches the size exactly
  }
  const char* p = data;
  const char* end = data + size;
  while (p < end && is_space(*p)) ++p;
  if (end - p < 5 || std::memcmp(p, "solid", 5) != 0)
    mesh_file_error(path, "not an STL file: neither binary (84 + 50 n bytes, n at byte 80; this one has " + num(size) +
                              ") nor ASCII (starting with \"solid\")");
  check_text(path, data, size, "STL");
  // ASCII: a grammar walk over the words; a solid's name runs to the end of its line.
  auto next_word = [&](std::pair<const char*, const char*>& w) {
    while (p < end && is_space(*p)) ++p;
    if (p == end) return false;
    w.first = p;
    while (p < end && !is_space(*p)) ++p;
    w.second = p;
    return true;
  };
  auto skip_line = [&] {
    while (p < end && *p != '\n') ++p;
  };
  uint64_t facets = 0;
  std::pair<const char*, const char*> w;
  auto found = [&](bool got) { return got ? "\"" + word_text(w) + "\"" : std::string("the end of the file"); };
  auto expect = [&](const char* keyword) {
    const bool got = next_word(w);
    if (!got || !word_is(w, keyword))
      mesh_file_error(path, "ASCII STL facet " + num(facets + 1) + ": expected \"" + keyword + "\", found " + found(got));
  };
  auto expect_numbers = [&](int count) {
    for (int k = 0; k < count; ++k) {
      const bool got = next_word(w);
      if (!got || !is_number(w.first, w.second, false))
        mesh_file_error(path, "ASCII STL facet " + num(facets + 1) + ": expected a number, found " + found(got));
    }
  };
  while (next_word(w)) {
    if (!word_is(w, "solid")) mesh_file_error(path, "ASCII STL: expected \"solid\", found \"" + word_text(w) + "\"");
    skip_line();
    while (true) {
      if (!next_word(w)) mesh_file_error(path, "ASCII STL: the file ends before \"endsolid\"");
      if (word_is(w, "endsolid")) {
        skip_line();
        break;
      }
      if (!word_is(w, "facet"))
        mesh_file_error(path, "ASCII STL facet " + num(facets + 1) + ": expected \"facet\" or \"endsolid\", found \"" +
                                  word_text(w) + "\"");
      expect("normal");
      expect_numbers(3);
      expect("outer");
      expect("loop");
      for (int corner = 0; corner < 3; ++corner) {
        expect("vertex");
        expect_numbers(3);
      }
      expect("endloop");
      expect("endfacet");
      ++facets;
    }
  }
}

// ---------------------------------------------------------------- PLY

struct PlyProperty {
  std::string name;
  int size = 0;        // bytes of a scalar, or of each list item
  int count_size = 0;  // bytes of a list's count; 0 for a scalar
  bool count_signed = false;
  bool integer = false;  // the scalar or list item is an integer type
};

struct PlyElement {
  std::string name;
  uint64_t count = 0;
  std::vector<PlyProperty> properties;
};

// Bytes of a PLY type name (both spellings), 0 if unknown.
int ply_type_size(const std::pair<const char*, const char*>& w, bool& integer, bool& is_signed) {
  struct Type {
    const char* name;
    int size;
    bool integer, is_signed;
  };
  static const Type types[] = {{"char", 1, true, true},    {"uchar", 1, true, false},  {"short", 2, true, true},
                               {"ushort", 2, true, false}, {"int", 4, true, true},     {"uint", 4, true, false},
                               {"float", 4, false, true},  {"double", 8, false, true}, {"int8", 1, true, true},
                               {"uint8", 1, true, false},  {"int16", 2, true, true},   {"uint16", 2, true, false},
                               {"int32", 4, true, true},   {"uint32", 4, true, false}, {"float32", 4, false, true},
                               {"float64", 8, false, true}};
  for (const Type& t : types)
    if (word_is(w, t.name)) {
      integer = t.integer;
      is_signed = t.is_signed;
      return t.size;
    }
  return 0;
}

std::string element_place(const PlyElement& e, uint64_t index) {
  return "element '" + e.name + "' number " + num(index + 1) + " of " + num(e.count);
}

void check_ply_binary(const std::string& path, const std::vector<PlyElement>& elements, const char* p,
                      const char* end, bool big_endian) {
  for (const PlyElement& e : elements)
    for (uint64_t i = 0; i < e.count; ++i)
      for (const PlyProperty& prop : e.properties) {
        if (prop.count_size == 0) {
          if (end - p < prop.size) mesh_file_error(path, "the file ends inside " + element_place(e, i));
          p += prop.size;
          continue;
        }
        if (end - p < prop.count_size) mesh_file_error(path, "the file ends inside " + element_place(e, i));
        unsigned char b[4] = {0, 0, 0, 0};
        for (int k = 0; k < prop.count_size; ++k) b[k] = static_cast<unsigned char>(p[big_endian ? prop.count_size - 1 - k : k]);
        uint64_t n = uint64_t(b[0]) | uint64_t(b[1]) << 8 | uint64_t(b[2]) << 16 | uint64_t(b[3]) << 24;
        if (prop.count_signed && (b[prop.count_size - 1] & 0x80) != 0)
          mesh_file_error(path, "a negative list length in " + element_place(e, i));
        p += prop.count_size;
        if (n > uint64_t(end - p) / uint64_t(prop.size))
          mesh_file_error(path, "the file ends inside " + element_place(e, i) + " (its list '" + prop.name + "' has " +
                                    num(n) + " items)");
        p += n * uint64_t(prop.size);
      }
  if (p != end)
    mesh_file_error(path, num(uint64_t(end - p)) + " bytes follow the last element the header announces");
}

void check_ply_ascii(const std::string& path, const std::vector<PlyElement>& elements, const char* p,
                     const char* end) {
  Words line;  // one buffer for every line
  for (const PlyElement& e : elements)
    for (uint64_t i = 0; i < e.count; ++i) {
      // One element per line; blank lines between them are skipped.
      line.clear();
      while (line.empty()) {
        if (p == end) mesh_file_error(path, "the file ends before " + element_place(e, i));
        const char* eol = static_cast<const char*>(std::memchr(p, '\n', size_t(end - p)));
        if (eol == nullptr) eol = end;
        split_words(p, eol, line);
        p = eol == end ? end : eol + 1;
      }
      size_t w = 0;
      for (const PlyProperty& prop : e.properties) {
        uint64_t n = 1;
        if (prop.count_size != 0) {
          if (w == line.size() || !parse_count(line[w].first, line[w].second, n))
            mesh_file_error(path, element_place(e, i) + ": the length of list '" + prop.name + "' is not a count");
          ++w;
        }
        if (n > line.size() - w)
          mesh_file_error(path, element_place(e, i) + " has fewer values than its properties ('" + prop.name + "')");
        for (uint64_t k = 0; k < n; ++k, ++w)
          if (!is_number(line[w].first, line[w].second, prop.integer))
            mesh_file_error(path, element_place(e, i) + ": '" + prop.name + "' is not a number (\"" +
                                      word_text(line[w]) + "\")");
      }
      if (w != line.size()) mesh_file_error(path, element_place(e, i) + " has more values than its properties");
    }
  while (p < end && is_space(*p)) ++p;
  if (p != end) mesh_file_error(path, "text follows the last element the header announces");
}

void check_ply(const std::string& path, const char* data, size_t size) {
  const char* p = data;
  const char* end = data + size;
  enum class Encoding { None, Ascii, Little, Big } encoding = Encoding::None;
  std::vector<PlyElement> elements;
  size_t line_number = 0;
  while (true) {
    if (size_t(p - data) >= kMaxMeshHeaderBytes)
      mesh_file_error(path, "its PLY header has no end_header line within its first " + num(kMaxMeshHeaderBytes) +
                                " bytes");
    const size_t window = std::min(size_t(end - p), kMaxMeshHeaderBytes - size_t(p - data));
    const char* eol = static_cast<const char*>(std::memchr(p, '\n', window));
    if (eol == nullptr) {
      if (window == size_t(end - p)) mesh_file_error(path, "its PLY header ends without an end_header line");
      mesh_file_error(path, "its PLY header has no end_header line within its first " + num(kMaxMeshHeaderBytes) +
                                " bytes");
    }
    const auto line = words(p, eol);
    ++line_number;
    p = eol + 1;
    if (line_number == 1) {
      if (line.size() != 1 || !word_is(line[0], "ply")) mesh_file_error(path, "not a PLY file: it does not start with \"ply\"");
      continue;
    }
    if (line.empty()) continue;
    if (word_is(line[0], "end_header")) break;
    if (word_is(line[0], "format")) {
      if (line.size() != 3 || !word_is(line[2], "1.0"))
        mesh_file_error(path, "PLY header line " + num(line_number) + ": expected \"format <encoding> 1.0\"");
      if (encoding != Encoding::None) mesh_file_error(path, "PLY header line " + num(line_number) + ": a second format");
      if (word_is(line[1], "ascii"))
        encoding = Encoding::Ascii;
      else if (word_is(line[1], "binary_little_endian"))
        encoding = Encoding::Little;
      else if (word_is(line[1], "binary_big_endian"))
        encoding = Encoding::Big;
      else
        mesh_file_error(path, "PLY header line " + num(line_number) + ": unknown format \"" + word_text(line[1]) + "\"");
    } else if (word_is(line[0], "element")) {
      PlyElement e;
      if (line.size() != 3 || !parse_count(line[2].first, line[2].second, e.count) || e.count > UINT32_MAX)
        mesh_file_error(path, "PLY header line " + num(line_number) + ": expected \"element <name> <count>\"");
      e.name = word_text(line[1]);
      elements.push_back(e);
    } else if (word_is(line[0], "property")) {
      if (elements.empty()) mesh_file_error(path, "PLY header line " + num(line_number) + ": a property before any element");
      PlyProperty prop;
      bool is_signed = false;
      if (line.size() == 5 && word_is(line[1], "list")) {
        bool count_integer = false;
        prop.count_size = ply_type_size(line[2], count_integer, prop.count_signed);
        prop.size = ply_type_size(line[3], prop.integer, is_signed);
        if (prop.count_size == 0 || !count_integer || prop.size == 0)
          mesh_file_error(path, "PLY header line " + num(line_number) + ": expected \"property list <integer type> <type> <name>\"");
        prop.name = word_text(line[4]);
      } else if (line.size() == 3) {
        prop.size = ply_type_size(line[1], prop.integer, is_signed);
        if (prop.size == 0)
          mesh_file_error(path, "PLY header line " + num(line_number) + ": unknown type \"" + word_text(line[1]) + "\"");
        prop.name = word_text(line[2]);
      } else {
        mesh_file_error(path, "PLY header line " + num(line_number) + ": expected \"property <type> <name>\"");
      }
      elements.back().properties.push_back(prop);
    }
    // comment, obj_info and any other line: ignored, as the importer does
  }
  if (encoding == Encoding::None) mesh_file_error(path, "its PLY header has no format line");
  bool has_vertices = false;
  for (const PlyElement& e : elements) {
    // An element without properties takes no bytes: its count would be unchecked.
    if (e.properties.empty()) mesh_file_error(path, "PLY element '" + e.name + "' has no properties");
    if (e.name == "vertex") {
      int xyz = 0;
      for (const PlyProperty& prop : e.properties)
        xyz += prop.count_size == 0 && (prop.name == "x" || prop.name == "y" || prop.name == "z");
      has_vertices = xyz == 3;
    }
  }
  if (!has_vertices) mesh_file_error(path, "its PLY header has no element 'vertex' with properties x, y and z");
  if (encoding == Encoding::Ascii) {
    check_text(path, data, size, "PLY");
    check_ply_ascii(path, elements, p, end);
  } else {
    check_ply_binary(path, elements, p, end, encoding == Encoding::Big);
  }
}

// ---------------------------------------------------------------- OFF

// Assimp reads each OFF body line into a 4096-byte buffer.
constexpr size_t kMaxOffLine = 4095;

void check_off(const std::string& path, const char* data, size_t size) {
  check_text(path, data, size, "OFF");
  const char* p = data;
  const char* end = data + size;
  const char* header_end = data + std::min(size, kMaxMeshHeaderBytes);
  // Skips white space and '#' comments to the end of their line.
  auto skip_blanks_and_comments = [&] {
    while (true) {
      while (p < end && is_space(*p)) ++p;
      if (p < end && *p == '#') {
        while (p < end && *p != '\n') ++p;
        continue;
      }
      break;
    }
  };
  auto next_word = [&](std::pair<const char*, const char*>& w) {
    skip_blanks_and_comments();
    if (p >= header_end) return false;
    w.first = p;
    while (p < end && !is_space(*p) && *p != '#') ++p;
    w.second = p;
    return true;
  };
  std::pair<const char*, const char*> w{p, p};
  if (!next_word(w)) mesh_file_error(path, "not an OFF file: it is empty");
  // [ST][C][N]OFF: texture coordinates, colours and normals after each vertex.
  int values = 3;
  const char* k = w.first;
  if (w.second - k >= 2 && k[0] == 'S' && k[1] == 'T') k += 2, values += 2;
  if (w.second - k >= 1 && k[0] == 'C') k += 1, values += 1;
  if (w.second - k >= 1 && k[0] == 'N') k += 1, values += 3;
  if (w.second - k != 3 || std::memcmp(k, "OFF", 3) != 0)
    mesh_file_error(path, "not an OFF file: it starts with \"" + word_text(w) + "\", not \"[ST][C][N]OFF\"");
  uint64_t counts[3] = {0, 0, 0};
  const char* names[3] = {"vertex", "face", "edge"};
  for (int c = 0; c < 3; ++c) {
    if (!next_word(w)) {
      if (p >= header_end && p < end)
        mesh_file_error(path, "its OFF header (with comments) is longer than " + num(kMaxMeshHeaderBytes) + " bytes");
      mesh_file_error(path, std::string("its OFF header ends before the ") + names[c] + " count");
    }
    if (!parse_count(w.first, w.second, counts[c]) || counts[c] > UINT32_MAX)
      mesh_file_error(path, std::string("its OFF header's ") + names[c] + " count is not a count (\"" + word_text(w) + "\")");
  }
  const uint64_t vertices = counts[0], faces = counts[1];
  if (vertices == 0 || faces == 0) mesh_file_error(path, "its OFF header announces no vertices or no faces");
  // The least a vertex line takes is "0 0 0\n", a face line "1 0\n".
  const uint64_t least = vertices * (2 * uint64_t(values)) + faces * 4;
  if (least > uint64_t(end - p))
    mesh_file_error(path, "its header announces " + num(vertices) + " vertices and " + num(faces) +
                              " faces, more than its remaining " + num(uint64_t(end - p)) + " bytes can hold");
  // The body as Assimp reads it: line ends (and comment lines) after the
  // counts are skipped, then one line per vertex and per face; runs of line
  // ends count as one.
  skip_blanks_and_comments();
  auto is_line_end = [](char c) { return c == '\n' || c == '\r' || c == '\f'; };
  uint64_t line_number = 0;
  auto next_line = [&](const char*& first, const char*& last) {
    if (p == end) return false;
    first = p;
    while (p < end && !is_line_end(*p)) ++p;
    last = p;
    while (p < end && is_line_end(*p)) ++p;
    ++line_number;
    if (size_t(last - first) > kMaxOffLine)
      mesh_file_error(path, "OFF body line " + num(line_number) + " is longer than " + num(kMaxOffLine) + " bytes");
    const char* hash = static_cast<const char*>(std::memchr(first, '#', size_t(last - first)));
    if (hash != nullptr) last = hash;  // a comment to the end of the line
    return true;
  };
  const char* first = nullptr;
  const char* last = nullptr;
  Words numbers;
  for (uint64_t v = 0; v < vertices; ++v) {
    if (!next_line(first, last)) mesh_file_error(path, "the file ends before vertex " + num(v + 1) + " of " + num(vertices));
    split_words(first, last, numbers);
    if (numbers.size() < size_t(values))
      mesh_file_error(path, "OFF vertex " + num(v + 1) + " has fewer than " + num(uint64_t(values)) + " numbers");
    for (const auto& n : numbers)
      if (!is_number(n.first, n.second, false))
        mesh_file_error(path, "OFF vertex " + num(v + 1) + ": \"" + word_text(n) + "\" is not a number");
  }
  for (uint64_t f = 0; f < faces; ++f) {
    if (!next_line(first, last)) mesh_file_error(path, "the file ends before face " + num(f + 1) + " of " + num(faces));
    split_words(first, last, numbers);
    uint64_t corners = 0;
    if (numbers.empty() || !parse_count(numbers[0].first, numbers[0].second, corners) || corners < 1 || corners > 9)
      mesh_file_error(path, "OFF face " + num(f + 1) + " does not start with a corner count from 1 to 9");
    if (numbers.size() < 1 + corners)
      mesh_file_error(path, "OFF face " + num(f + 1) + " has fewer than " + num(corners) + " corners");
    for (uint64_t c = 1; c <= corners; ++c) {
      uint64_t index = 0;
      if (!parse_count(numbers[c].first, numbers[c].second, index) || index >= vertices)
        mesh_file_error(path, "OFF face " + num(f + 1) + " names a vertex that does not exist (\"" +
                                  word_text(numbers[c]) + "\")");
    }
  }
}

bool has_extension(const std::string& path, const char* extension) {
  const size_t n = std::strlen(extension);
  if (path.size() <= n + 1 || path[path.size() - n - 1] != '.') return false;
  for (size_t k = 0; k < n; ++k) {
    char c = path[path.size() - n + k];
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    if (c != extension[k]) return false;
  }
  return true;
}

}  // namespace

const char* mesh_format_extension(MeshFormat format) {
  switch (format) {
    case MeshFormat::Obj: return "obj";
    case MeshFormat::Stl: return "stl";
    case MeshFormat::Ply: return "ply";
    case MeshFormat::Off: return "off";
  }
  return "";
}

void mesh_file_error(const std::string& path, const std::string& reason) {
  throw Error(Status::Io, "path: cannot load a mesh from '" + path + "': " + reason);
}

MeshFormat check_mesh_data(const std::string& path, const char* data, size_t size) {
  for (MeshFormat format : {MeshFormat::Obj, MeshFormat::Stl, MeshFormat::Ply, MeshFormat::Off}) {
    if (!has_extension(path, mesh_format_extension(format))) continue;
    if (size == 0) mesh_file_error(path, "the file is empty");
    switch (format) {
      case MeshFormat::Obj: check_text(path, data, size, "OBJ"); break;
      case MeshFormat::Stl: check_stl(path, data, size); break;
      case MeshFormat::Ply: check_ply(path, data, size); break;
      case MeshFormat::Off: check_off(path, data, size); break;
    }
    return format;
  }
  mesh_file_error(path, std::string("not a mesh format pbf reads (accepted: ") + kMeshFormatList + ")");
}

}  // namespace pbf
