// A C++ exception whose text is built from literals prints one text, and
// errdex must list it. Random functions build a message from string
// literals (escapes, adjacent literals), std::string concatenation and
// appends (one under an if), a conditional between literals, snprintf into
// a buffer, a const char* constant and an ostringstream, and throw it as a
// std:: exception; the C++
// compiler and its runtime are the reference (g++ builds the program, which
// prints what() of each). Every template errdex lists at a throw must fit
// one text the throw can print; each throw must have one.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "extract/extractor.h"
#include "template_fits.h"
#include "test_util.h"

namespace errdex::extract {
namespace {

class Generator : public RandomSource {
 public:
  using RandomSource::RandomSource;

  // The body of a C string literal: words, escapes, quotes.
  std::string Body() {
    static const char* const kPieces[] = {"bad",   "axis",    " ",     ":",    "value", "\\n",
                                          "\\t",   "\\x41-",  "\\101", "\\\"", "\\\\",  "'",
                                          "shape", "\\u00e9", "0",     "%%"};
    std::string out = "w" + std::to_string(n_++);
    for (int n = Pick(4), i = 0; i < n; ++i) out += kPieces[Pick(std::size(kPieces))];
    return out;
  }

  // A literal with no `%` in it (the %% piece is for formats only).
  std::string Plain() {
    std::string b = Body();
    for (size_t at; (at = b.find("%%")) != std::string::npos;) b.replace(at, 2, "pct");
    return "\"" + b + "\"";
  }

  // The statements that build the message and the expression thrown.
  std::string Throw(int k) {
    const char* types[] = {"std::runtime_error", "std::invalid_argument", "std::out_of_range",
                           "std::logic_error"};
    std::string type = types[Pick(4)];
    switch (Pick(9)) {
      case 0:
        return "  throw " + type + "(" + Plain() + ");\n";
      case 1:
        return "  throw " + type + "(" + Plain() + " " + Plain() + ");\n";
      case 2:
        return "  throw " + type + "(std::string(" + Plain() + ") + " + Plain() + ");\n";
      case 3:
        return "  throw " + type + "(flag ? " + Plain() + " : " + Plain() + ");\n";
      case 4: {
        std::string format = "\"" + Body() + " %s " + Body() + " %d\"";
        return "  char buf[512];\n  std::snprintf(buf, sizeof buf, " + format + ", " + Plain() +
               ", " + std::to_string(Pick(1000)) + ");\n  throw " + type + "(buf);\n";
      }
      case 5:
        return "  static const char* const kMsg" + std::to_string(k) + " = " + Plain() +
               ";\n  throw " + type + "(kMsg" + std::to_string(k) + ");\n";
      case 6: {
        std::string out = "  std::ostringstream os;\n  os << " + Plain();
        for (int n = Pick(3), i = 0; i < n; ++i) {
          out += Pick(2) ? " << " + Plain() : " << " + std::to_string(Pick(1000));
        }
        return out + ";\n  throw " + type + "(os.str());\n";
      }
      case 7:
        return "  std::string msg = " + Plain() + ";\n  if (flag) msg += " + Plain() +
               ";\n  throw " + type + "(msg);\n";
      default:
        return "  std::string msg = " + Plain() + ";\n  msg += " + Plain() + ";\n  throw " + type +
               "(msg);\n";
    }
  }

};

TEST(ThrowProperty, WhatACppThrowPrintsIsListed) {
  if (testing::RunCommand("command -v g++").exit_code != 0) GTEST_SKIP() << "no g++";
  constexpr int kThrows = 120;
  Generator gen(testing::PropertySeed(20261208u));
  std::string code =
      "#include <cstdio>\n#include <sstream>\n#include <stdexcept>\n#include <string>\n\n";
  for (int k = 0; k < kThrows; ++k) {
    code += "void f" + std::to_string(k) + "(bool flag) {\n" + gen.Throw(k) + "}\n";
  }
  std::map<int, int> throw_at;  // line -> function index
  int line = 0;
  int current = -1;
  for (size_t at = 0, end; at < code.size(); at = end + 1) {
    end = code.find('\n', at);
    if (end == std::string::npos) end = code.size();
    std::string_view text(code.data() + at, end - at);
    ++line;
    if (text.rfind("void f", 0) == 0) current = std::stoi(std::string(text.substr(6)));
    if (text.find("throw ") != std::string_view::npos) throw_at[line] = current;
  }
  // main: each function twice (flag false, true); what() as hex, to print
  // any byte as JSON.
  std::string main = "int main() {\n  void (*fs[])(bool) = {";
  for (int k = 0; k < kThrows; ++k) main += (k ? ", f" : "f") + std::to_string(k);
  main +=
      "};\n  std::printf(\"[\");\n  for (int k = 0; k < " + std::to_string(kThrows) +
      "; ++k) for (int flag = 0; flag < 2; ++flag) {\n"
      "    try { fs[k](flag); } catch (const std::exception& e) {\n"
      "      std::printf(\"%s[%d, \\\"\", k || flag ? \",\" : \"\", k);\n"
      "      for (const char* p = e.what(); *p; ++p) std::printf(\"%02x\", (unsigned char)*p);\n"
      "      std::printf(\"\\\"]\");\n    }\n  }\n  std::printf(\"]\\n\");\n}\n";
  testing::TempDir dir;
  std::filesystem::path source = dir.Write("gen.cc", code + "\n" + main);
  std::filesystem::path binary = dir.path() / "gen";
  testing::CommandResult built = testing::RunCommand("g++ -std=c++17 -w -o " + binary.string() +
                                                     " " + source.string() + " 2>&1");
  ASSERT_EQ(built.exit_code, 0) << built.out.substr(0, 4000);
  testing::CommandResult ran = testing::RunCommand(binary.string());
  ASSERT_EQ(ran.exit_code, 0);
  nlohmann::json printed = nlohmann::json::parse(ran.out, nullptr, false);
  ASSERT_TRUE(printed.is_array()) << ran.out.substr(0, 2000);

  std::map<int, std::set<std::string>> texts;  // function -> what() it can print
  for (const nlohmann::json& p : printed) {
    std::string hex = p[1].get<std::string>();
    std::string text;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
      text.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    texts[p[0].get<int>()].insert(text);
  }
  std::map<int, std::vector<Template>> listed;
  for (const Site& s : ExtractCppSource("gen.cc", code).sites) {
    auto it = throw_at.find(s.line);
    if (it != throw_at.end()) listed[it->second].push_back(s.message);
  }
  int checked = 0, unfit = 0, missed = 0, exact = 0;
  for (const auto& [k, can_print] : texts) {
    ++checked;
    const std::vector<Template>& have = listed[k];
    if (have.empty()) {
      ++missed;
      ADD_FAILURE() << "f" << k << " prints " << nlohmann::json(*can_print.begin()).dump()
                    << ", errdex lists nothing";
      continue;
    }
    for (const Template& t : have) {
      bool fits = false;
      for (const std::string& text : can_print) fits = fits || Fits(t, text);
      if (!fits) {
        ++unfit;
        ADD_FAILURE() << "f" << k << " prints " << nlohmann::json(*can_print.begin()).dump()
                      << ", errdex lists " << nlohmann::json(t.Display()).dump();
      } else if (!t.IsDynamic()) {
        bool literal = true;
        for (const Piece& p : t.pieces()) literal = literal && !p.is_value;
        exact += literal ? 1 : 0;
      }
    }
  }
  EXPECT_EQ(checked, kThrows);
  EXPECT_EQ(unfit, 0);
  EXPECT_EQ(missed, 0);
  std::printf("C++ throws %d: templates all text %d, unfit %d, missed %d\n", checked, exact, unfit,
              missed);
}

}  // namespace
}  // namespace errdex::extract
