// The golden set of trigger conditions: every site of tests/fixtures/guards
// (Python, C and C++ control flow of every shape the analysis reads) with
// its exact chain of conditions and its sentence, in tests/golden/guards.txt.
// The golden file was checked by hand; a change to it is a change in what
// errdex tells users triggers an error.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "extract/extractor.h"
#include "test_util.h"

namespace errdex::extract {
namespace {

namespace fs = std::filesystem;

std::string Describe(const Site& s) {
  std::string out = s.path + ":" + std::to_string(s.line) + " " + s.function + " " + s.exception +
                    " \"" + s.message.Display() + "\"";
  if (s.internal) out += " [internal]";
  out += "\n";
  for (const Guard& g : s.guards) {
    out += "  " + g.kind + (g.negated ? " not " : " ") + "`" + g.code + "`";
    if (!g.subject.empty()) out += " subject `" + g.subject + "`";
    if (!g.values.empty()) {
      out += " values";
      for (const std::string& v : g.values) out += " `" + v + "`";
    }
    out += " (line " + std::to_string(g.line) + ")\n";
  }
  out += "  => " + (s.trigger.empty() ? "(unconditional)" : s.trigger) + "\n";
  return out;
}

TEST(GuardsGolden, EverySiteOfTheFixtures) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(testing::FixtureDir("guards"))) {
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::string actual;
  size_t sites = 0;
  for (const fs::path& f : files) {
    std::string text = testing::ReadFileOrEmpty(f);
    std::string name = f.filename().string();
    Extraction x =
        f.extension() == ".py" ? ExtractPythonSource(name, text) : ExtractCppSource(name, text);
    std::stable_sort(x.sites.begin(), x.sites.end(), [](const Site& a, const Site& b) {
      return a.line != b.line ? a.line < b.line : a.column < b.column;
    });
    for (const Site& s : x.sites) actual += Describe(s);
    sites += x.sites.size();
  }
  // The bar: at least 80 sites with exact chains.
  EXPECT_GE(sites, 80u);
  testing::ExpectGolden("guards.txt", actual);
}

}  // namespace
}  // namespace errdex::extract
