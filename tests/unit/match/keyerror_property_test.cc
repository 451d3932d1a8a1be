// A KeyError prints the repr of its argument, and CPython picks the repr's
// quotes from the whole text: " when it holds a ' and no ", else ' (with
// inner quotes escaped). Random raises build their messages the ways
// libraries do (`%r`, `{!r}`, `.format`, `%s`, the bare value), from
// literals and from a parameter whose value errdex cannot know; CPython
// runs each with values holding no quote, one kind or both. End to end --
// index, then explain what CPython printed -- the raise must come first,
// matched by its template, not by similar wording.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "template_fits.h"
#include "test_util.h"

namespace errdex::extract {
namespace {

using nlohmann::json;
using testing::CommandResult;
using testing::kPythonCallsHarness;
using testing::RunErrdex;
using testing::RunPythonForJson;
using testing::TempDir;

class KeyErrorWriter : public RandomSource {
 public:
  using RandomSource::RandomSource;

  // A Python literal whose repr holds no quote, one kind, or both.
  std::string Value() {
    std::string w = Word();
    switch (Pick(6)) {
      case 0:
        return "'" + w + "'";
      case 1:
        return "\"" + w + "'s\"";
      case 2:
        return "'say \"" + w + "\"'";
      case 3:
        return "'" + w + " \\' and \"'";
      case 4:
        return "('" + w + "', 3)";
      default:
        return std::to_string(Pick(1000));
    }
  }

  // The argument of `raise KeyError(...)`, written over `v`.
  std::string Message(const std::string& v) {
    std::string a = Word();
    std::string b = Word();
    switch (Pick(5)) {
      case 0:
        return "\"" + a + " %r " + b + "\" % (" + v + ",)";
      case 1:
        return "f\"" + a + " {" + v + "!r} " + b + "\"";
      case 2:
        return "\"" + a + " {!r} " + b + "\".format(" + v + ")";
      case 3:
        return "\"" + a + " %s " + b + "\" % (" + v + ",)";
      default:
        return "'" + a + " ' + repr(" + v + ") + ' " + b + "'";
    }
  }
};

TEST(KeyErrorProperty, WhatCPythonPrintsLeadsToItsRaise) {
  for (uint32_t seed = 0; seed < 3; ++seed) {
    KeyErrorWriter w(seed);
    std::string code;
    std::string calls = "CALLS = [\n";
    std::vector<std::pair<std::string, int>> raises;  // function, line of its raise
    int line = 1;
    for (int k = 0; k < 30; ++k) {
      std::string f = "f" + std::to_string(k);
      // Half take the value as a parameter: its text is unknown to errdex.
      bool param = w.Pick(2) == 0;
      std::string value = w.Value();
      // A literal is bound to the name first: an f-string of 3.11 cannot
      // hold its own quote character.
      code += "def " + f + "(v):\n    " + (param ? "pass" : "v = " + value) +
              "\n    raise KeyError(" + w.Message("v") + ")\n\n";
      raises.emplace_back(f, line + 2);
      line += 4;
      calls += "    ('" + f + "', lambda: " + f + "(" + value + ")),\n";
    }
    calls += "]\n";
    TempDir dir;
    dir.Write("keys/keys/table.py", code);
    json printed = RunPythonForJson(code + calls + kPythonCallsHarness);
    ASSERT_TRUE(printed.is_object());
    std::string db = (dir.path() / "c.db").string();
    CommandResult indexed = RunErrdex(
        {"index", (dir.path() / "keys").string(), "--name", "test/keys", "--db", db, "--quiet"});
    ASSERT_EQ(indexed.exit_code, 0) << indexed.err;
    int requoted = 0;
    for (const auto& [f, raise_line] : raises) {
      ASSERT_TRUE(printed[f].is_array()) << f;
      std::string text = printed[f][1].get<std::string>();
      if (!text.empty() && text.front() == '"') ++requoted;
      std::string pasted = "KeyError: " + text;
      CommandResult explained = RunErrdex({"explain", "--json", "--db", db, "-"}, pasted);
      ASSERT_EQ(explained.exit_code, 0) << explained.err;
      json report = json::parse(explained.out, nullptr, false);
      ASSERT_FALSE(report.is_discarded()) << explained.out;
      const json& matches = report["matches"];
      ASSERT_FALSE(matches.empty()) << "seed " << seed << ", " << f << ": " << pasted;
      const json& top = matches[0];
      bool at_raise = false;
      for (const json& s : top["sites"]) {
        at_raise = at_raise || (s["path"] == "keys/table.py" && s["line"] == raise_line);
      }
      EXPECT_TRUE(at_raise) << "seed " << seed << ", " << f << ": " << pasted << "\n" << top.dump();
      EXPECT_FALSE(top.value("fuzzy", false)) << "seed " << seed << ", " << f << ": " << pasted;
    }
    // Python chose " for some of them: the case the test is about.
    EXPECT_GT(requoted, 2) << "seed " << seed;
  }
}

}  // namespace
}  // namespace errdex::extract
