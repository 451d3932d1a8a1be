// A caught exception given new text in its handler (`e.strerror = ...`,
// `e.args = (...)`) and re-raised prints what errdex lists at the
// assignment. Random handlers catch what a real failure raises (a missing
// file, a bad int(), a missing key or index) by its class or a base, assign
// text in the forms libraries write, and re-raise it bare or by name.
// CPython, the reference, runs each one. A text errdex lists that CPython's
// printed text does not fit is a wrong sentence on a page (never allowed);
// a handler whose new text CPython prints and errdex lists nothing for is a
// miss (never allowed for these forms either). Where the assignment changes
// nothing CPython prints (args of an OSError that has an errno), errdex
// must list nothing.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "extract/extractor.h"
#include "template_fits.h"
#include "test_util.h"

namespace errdex::extract {
namespace {

struct Trigger {
  const char* statement;  // raises; {w} is the handler's word
  std::vector<const char*> caught;
  bool os_error;
};

const Trigger kTriggers[] = {
    {"open('/nonexistent-errdex-dir/{w}')",
     {"OSError", "FileNotFoundError", "(ValueError, OSError)", "EnvironmentError"},
     true},
    {"os.stat('/nonexistent-errdex-dir/{w}')", {"OSError", "FileNotFoundError"}, true},
    {"int('{w}')", {"ValueError", "(KeyError, ValueError)"}, false},
    {"{}['{w}']", {"KeyError", "LookupError"}, false},
    {"[][7]", {"IndexError", "LookupError"}, false},
};

const char* const kStrerror[] = {
    "e.strerror = '{w}'",
    "e.strerror = f'{w} ({e.strerror})'",
    "e.strerror = '{w}: ' + e.strerror",
};
const char* const kArgs[] = {
    "e.args = ('{w}',)",
    "e.args = ('{w}',) + e.args[1:]",
    "e.args = (f'{w} {e.args[0]}',)",
    "e.args = ('{w} %s' % (e,),)",
};

std::string Fill(std::string text, const std::string& word) {
  for (size_t at; (at = text.find("{w}")) != std::string::npos;) text.replace(at, 3, word);
  return text;
}

TEST(ReraiseProperty, TheNewTextIsListedAndNothingElse) {
  constexpr int kHandlers = 160;
  std::mt19937 rng(testing::PropertySeed(20261204u));
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  std::string code = "import os\n\n";
  std::string calls = "CALLS = [\n";
  std::map<int, std::string> assigned_at;  // the assignment's line -> its function
  std::set<std::string> unchanged;         // handlers whose assignment CPython ignores
  int line = 3;
  auto add = [&](const std::string& text) {
    for (char c : text) line += c == '\n';
    code += text;
  };
  for (int k = 0; k < kHandlers; ++k) {
    std::string fn = "call" + std::to_string(k);
    std::string word = "w" + std::to_string(k);
    const Trigger& t = kTriggers[pick(std::size(kTriggers))];
    bool strerror = t.os_error && pick(3) > 0;
    std::string assign = Fill(
        strerror ? kStrerror[pick(std::size(kStrerror))] : kArgs[pick(std::size(kArgs))], word);
    if (t.os_error && !strerror) unchanged.insert(fn);
    add("def " + fn + "():\n    try:\n        " + Fill(t.statement, word) + "\n    except " +
        t.caught[pick(t.caught.size())] + " as e:\n");
    // Sometimes a test that lets it through first, as flask's `if silent`.
    if (pick(2) == 0) add("        if e is None:\n            return None\n");
    assigned_at[line] = fn;
    add("        " + assign + "\n        " + (pick(2) == 0 ? "raise" : "raise e") + "\n\n");
    calls += "(" + nlohmann::json(fn).dump() + ", " + fn + "),\n";
  }
  calls += "]\n";

  // function -> (type, template) at its assignment
  std::map<std::string, std::vector<std::pair<std::string, Template>>> listed;
  for (const Site& s : ExtractPythonSource("gen.py", code).sites) {
    auto it = assigned_at.find(s.line);
    if (it != assigned_at.end()) listed[it->second].emplace_back(s.exception, s.message);
  }
  // The classes a site may name for what CPython raised: it or a base.
  const std::map<std::string, std::set<std::string>> kNamedBy = {
      {"FileNotFoundError", {"FileNotFoundError", "OSError", "EnvironmentError"}},
      {"ValueError", {"ValueError"}},
      {"KeyError", {"KeyError", "LookupError"}},
      {"IndexError", {"IndexError", "LookupError"}},
  };

  nlohmann::json printed = testing::RunPythonForJson(code + calls + testing::kPythonCallsHarness);
  ASSERT_TRUE(printed.is_object());

  int handlers = 0, listed_right = 0, wrong = 0, missed = 0, silent = 0;
  for (const auto& [name, result] : printed.items()) {
    ASSERT_TRUE(result.is_array()) << name << " raised nothing";
    ++handlers;
    std::string type = result[0].get<std::string>();
    std::string text = result[1].get<std::string>();
    ASSERT_TRUE(kNamedBy.count(type)) << name << " raised " << type;
    // A handler catching two classes lists a text for each; the other
    // class's is for when the try raises that one.
    std::vector<Template> have;
    for (const auto& [site_type, t] : listed[name]) {
      if (kNamedBy.at(type).count(site_type)) have.push_back(t);
    }
    if (unchanged.count(name)) {
      // CPython prints the OSError's own text: errdex claims no new one.
      EXPECT_TRUE(have.empty()) << name << " printed '" << text << "', errdex lists "
                                << have.front().Display();
      ++silent;
      continue;
    }
    if (have.empty()) {
      ++missed;
      ADD_FAILURE() << name << " printed " << type << ": '" << text << "', errdex lists nothing";
      continue;
    }
    bool any = false;
    for (const Template& t : have) any = any || Fits(t, text);
    if (!any) {
      ++wrong;
      std::string shown;
      for (const Template& t : have) shown += " | " + t.Display();
      ADD_FAILURE() << name << " printed '" << text << "', errdex lists" << shown;
      continue;
    }
    ++listed_right;
  }
  EXPECT_EQ(handlers, kHandlers);
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(missed, 0);
  EXPECT_GE(listed_right, kHandlers / 2);  // not vacuous
  std::printf("handlers %d: new text listed %d, assignment printing nothing new %d\n", handlers,
              listed_right, silent);
}

}  // namespace
}  // namespace errdex::extract
