// Whether a template fits a text the reference printed (CPython, a program
// g++ built), as the matcher reads it: shared by the property tests.
#pragma once

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/record.h"
#include "core/template.h"
#include "match/pattern.h"

namespace errdex::extract {

// The random source of the property tests' program generators: a seeded
// engine, and words numbered so that no two texts of one program are alike.
class RandomSource {
 public:
  explicit RandomSource(uint32_t seed) : rng_(seed) {}

  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::string Word() {
    static const char* const kWords[] = {"bad",  "value", "for",    "axis", "got",
                                         "name", "shape", "cannot", "use",  "with"};
    return kWords[Pick(std::size(kWords))] + std::to_string(n_++);
  }

 protected:
  std::mt19937 rng_;
  int n_ = 0;
};

// A module, as its top-level statements, and the same module edited as a
// revision edits a file: one to three edits, each a statement inserted
// (`make`), dropped, rewritten (`make`), changed in place (`change`, given
// the statement and free to leave it), or blank lines and a comment added
// above. Returns the texts before and after.
template <typename Make, typename Change>
std::pair<std::string, std::string> EditedModule(RandomSource& w, int statements, Make make,
                                                 Change change) {
  std::vector<std::string> module;
  for (int i = 0; i < statements; ++i) module.push_back(make());
  auto join = [&] {
    std::string out;
    for (const std::string& s : module) out += s;
    return out;
  };
  std::string before = join();
  for (int edits = 1 + w.Pick(3); edits > 0; --edits) {
    size_t at = static_cast<size_t>(w.Pick(static_cast<int>(module.size())));
    switch (w.Pick(5)) {
      case 0:
        module.insert(module.begin() + static_cast<long>(at), make());
        break;
      case 1:
        if (module.size() > 1) module.erase(module.begin() + static_cast<long>(at));
        break;
      case 2:
        module[at] = make();
        break;
      case 3:
        change(module[at]);
        break;
      default:
        module.insert(module.begin(), "\n# moved\n");
        break;
    }
  }
  return {before, join()};
}

inline bool Fits(Template t, const std::string& printed) {
  t.AssignNames();
  RE2::Options o;
  o.set_dot_nl(true);
  RE2 re(match::TemplateRegex(t), o);
  EXPECT_TRUE(re.ok()) << match::TemplateRegex(t);
  return RE2::FullMatch(match::NormalizeText(printed), re);
}

// Python property tests: each statement becomes `def raiseN():` at the end
// of `code`, listed in `calls` (the CALLS of testing::kPythonCallsHarness)
// and in `at` by the line of its statement -- of a statement of several
// lines (indented below the first), the first line that says `raise `.
struct GeneratedRaises {
  std::string calls;
  std::map<int, std::string> at;  // line -> function
};

inline GeneratedRaises AppendRaises(std::string& code, const std::vector<std::string>& statements) {
  GeneratedRaises out;
  out.calls = "CALLS = [\n";
  int line = 1;
  for (char c : code) line += c == '\n';
  for (size_t i = 0; i < statements.size(); ++i) {
    std::string fn = "raise" + std::to_string(i);
    const std::string& st = statements[i];
    size_t raise_at = std::min(st.find("raise "), st.size());
    auto raise_line = std::count(st.begin(), st.begin() + static_cast<long>(raise_at), '\n');
    code += "def " + fn + "():\n    " + st + "\n";
    out.at[line + 1 + static_cast<int>(raise_line)] = fn;
    line += 2 + static_cast<int>(std::count(st.begin(), st.end(), '\n'));
    out.calls += "(" + nlohmann::json(fn).dump() + ", " + fn + "),\n";
  }
  out.calls += "]\n";
  return out;
}

// The templates of `sites` at the generated statements, by function.
inline std::map<std::string, std::vector<Template>> ListedAt(const std::vector<Site>& sites,
                                                             const GeneratedRaises& raises) {
  std::map<std::string, std::vector<Template>> out;
  for (const Site& s : sites) {
    auto it = raises.at.find(s.line);
    if (it != raises.at.end()) out[it->second].push_back(s.message);
  }
  return out;
}

}  // namespace errdex::extract
