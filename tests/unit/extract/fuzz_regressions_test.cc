// Every input the fuzzers ever found troublesome (fuzz/regressions), run
// through the extractors in the ordinary build: each must finish, quickly.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "extract/extractor.h"

namespace errdex::extract {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path Regressions(const char* kind) {
  return fs::path(ERRDEX_SOURCE_DIR) / "fuzz" / "regressions" / kind;
}

template <typename Extract>
void RunAll(const char* kind, Extract extract) {
  int count = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(Regressions(kind))) {
    auto start = std::chrono::steady_clock::now();
    Extraction x = extract(Read(e.path()));
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Far above the real cost (well under a second), far below a hang.
    EXPECT_LT(seconds, 30.0) << e.path();
    for (const Site& s : x.sites) EXPECT_FALSE(s.path.empty()) << e.path();
    ++count;
  }
  EXPECT_GT(count, 0) << "no regression inputs under " << Regressions(kind);
}

TEST(FuzzRegressions, Python) {
  RunAll("python", [](const std::string& text) { return ExtractPythonSource("fuzz.py", text); });
}

TEST(FuzzRegressions, Rust) {
  RunAll("rust", [](const std::string& text) { return ExtractRustSource("fuzz.rs", text); });
}

TEST(FuzzRegressions, Cpp) {
  // As the fuzz target reads them: the first byte picks the file name.
  RunAll("cpp", [](const std::string& text) {
    static constexpr const char* kPaths[] = {"fuzz.c", "fuzz.cc", "fuzz.h", "fuzz.cu"};
    if (text.empty()) return ExtractCppSource("fuzz.cc", text);
    return ExtractCppSource(kPaths[static_cast<unsigned char>(text[0]) % 4], text.substr(1));
  });
}

TEST(FuzzRegressions, Cython) {
  // As the fuzz target reads them: the first byte picks the file name.
  RunAll("cython", [](const std::string& text) {
    static constexpr const char* kPaths[] = {"fuzz.pyx", "fuzz.pxd", "fuzz.pxi", "fuzz.pyx.in"};
    if (text.empty()) return ExtractPythonSource("fuzz.pyx", text);
    return ExtractPythonSource(kPaths[static_cast<unsigned char>(text[0]) % 4], text.substr(1));
  });
}

}  // namespace
}  // namespace errdex::extract
