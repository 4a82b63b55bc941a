// fuzz_files.h - what the fuzz targets of the library's own files share:
// the file an input is written to, the seed they put in their corpus, and
// the abort that fails the run with a reason.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace pbf_fuzz {

[[noreturn]] inline void fail(const std::string& why) {
  std::fprintf(stderr, "fuzz: %s\n", why.c_str());
  std::abort();
}

inline std::vector<unsigned char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_file(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) fail("could not write " + path);
}

// A file of this process's own in the temporary folder, for the input of the moment; removed when the
// object goes, at the latest when the run ends.
class ScratchFile {
 public:
  explicit ScratchFile(const char* name)
      : path_((std::filesystem::temp_directory_path() / (std::string(name) + "." + std::to_string(getpid())))
                  .string()) {}
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Puts `seed` in the corpus folder libFuzzer was given (its first argument
// that is not a flag), so that a run starts from a valid file's bytes: a
// fuzzer starting from nothing would spend its minute learning the layout.
inline void seed_corpus(int argc, char** argv, const char* name, const std::vector<unsigned char>& seed) {
  for (int k = 1; k < argc; ++k) {
    if (argv[k][0] == '-') continue;
    write_file(std::string(argv[k]) + "/" + name, seed);
    return;
  }
}

}  // namespace pbf_fuzz
