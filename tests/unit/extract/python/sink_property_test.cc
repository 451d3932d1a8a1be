// What a call makes of a helper that raises with what it is passed is what
// CPython prints. Random helpers raise the ways libraries write them: the
// message as passed, a prefix or a suffix added, a keyword with a default,
// the class passed as an argument (with the message, or alone with the
// helper's own text), a helper calling a helper with its parameter, a
// dispatch on a mode constant, a message chosen by whether an optional
// argument was given, a printf-style format and its arguments. Random calls
// pass literals. CPython runs every call: the site errdex lists at the call
// must have the type CPython raised, every template listed there must fit
// the text printed, and one must be listed.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "extract/extractor.h"
#include "template_fits.h"
#include "test_util.h"

namespace errdex::extract {
namespace {

class Generator : public RandomSource {
 public:
  using RandomSource::RandomSource;

  std::string Text() { return "'" + Word() + " " + Word() + "'"; }

  std::string Type() {
    static const char* const kTypes[] = {"ValueError", "TypeError", "RuntimeError",
                                         "IndexError", "OSError",   "ArithmeticError"};
    return kTypes[Pick(std::size(kTypes))];
  }

  // One helper (or two) and the calls that raise through it.
  void Shape(int k, std::string& code, std::vector<std::string>& calls) {
    std::string f = "fail" + std::to_string(k);
    std::string type = Type();
    switch (Pick(11)) {
      case 0:
        code += "def " + f + "(msg):\n    raise " + type + "(msg)\n";
        calls.push_back(f + "(" + Text() + ")");
        break;
      case 1:
        code += "def " + f + "(msg, where='" + Word() + "'):\n    raise " + type + "(f'" + Word() +
                " {msg} in {where}')\n";
        calls.push_back(f + "(" + Text() + ")");
        calls.push_back(f + "(" + Text() + ", where=" + Text() + ")");
        break;
      case 2:
        code += "def " + f + "(exc, msg):\n    raise exc('" + Word() + ": ' + msg)\n";
        calls.push_back(f + "(" + Type() + ", " + Text() + ")");
        calls.push_back(f + "(" + Type() + ", msg=" + Text() + ")");
        break;
      case 3:
        code +=
            "def " + f + "(exc=" + type + "):\n    raise exc('" + Word() + " " + Word() + "')\n";
        calls.push_back(f + "(" + Type() + ")");
        calls.push_back(f + "(exc=" + Type() + ")");
        break;
      case 4:
        code += "def " + f + "_inner(m):\n    raise " + type + "('" + Word() + " ' + m)\n";
        code += "def " + f + "(m):\n    " + f + "_inner('" + Word() + " ' + m)\n";
        calls.push_back(f + "(" + Text() + ")");
        break;
      case 5:
        code += "def " + f + "(mode, v):\n    if mode == 'A':\n        raise " + type + "('" +
                Word() + " ' + v)\n    elif mode == 'B':\n        raise " + Type() + "('" + Word() +
                " ' + v)\n";
        calls.push_back(f + "('A', " + Text() + ")");
        calls.push_back(f + "('B', " + Text() + ")");
        break;
      case 6:
        code += "def " + f + "(msg, detail=None):\n    if detail is None:\n" +
                (Pick(2) ? "        text = msg\n" : "        text = 'no detail: ' + msg\n") +
                "    else:\n        text = f'{msg}: {detail}'\n    raise " + type + "(text)\n";
        calls.push_back(f + "(" + Text() + ")");
        calls.push_back(f + "(" + Text() + ", " + Text() + ")");
        break;
      case 7:
        code += "def " + f + "(fmt, *args):\n    raise " + type + "(fmt % args)\n";
        calls.push_back(f + "('" + Word() + " %s " + Word() + " %r', " + Text() + ", " +
                        std::to_string(Pick(100)) + ")");
        break;
      case 9: {
        // A dispatch whose raise comes after early returns and in the else
        // of an or-test: a call passing a handled mode raises nothing.
        std::string a = "'" + Word() + "'", b = "'" + Word() + "'";
        code += "def " + f + "(mode):\n    if mode == " + a + ":\n        return 1\n" +
                "    if mode is None or mode == " + b + ":\n        return 2\n    else:\n" +
                "        raise " + type + "(f'" + Word() + " mode {mode!r}')\n";
        calls.push_back(f + "(" + a + ")");
        calls.push_back(f + "(" + b + ")");
        calls.push_back(f + "(" + Text() + ")");
        break;
      }
      case 10: {
        // A raise under `not in` or `!=` a mode's constants.
        std::string a = "'" + Word() + "'", b = "'" + Word() + "'";
        std::string test = Pick(2) ? "mode not in (" + a + ", " + b + ")" : "mode != " + a;
        code += "def " + f + "(mode):\n    if " + test + ":\n        raise " + type + "(f'" +
                Word() + " {mode!r}')\n    return 1\n";
        calls.push_back(f + "(" + a + ")");
        calls.push_back(f + "(" + Text() + ")");
        break;
      }
      default:
        code += "def " + f + "(what, got):\n    raise " + type + "('" + Word() +
                " %s, got %r' % (what, got))\n";
        calls.push_back(f + "(" + Text() + ", " + Text() + ")");
        calls.push_back(f + "(what=" + Text() + ", got=" + std::to_string(Pick(9)) + ")");
        break;
    }
  }

};

TEST(SinkProperty, WhatACallPassesToAHelperIsListedAtTheCall) {
  constexpr int kHelpers = 80;
  Generator gen(testing::PropertySeed(20261204u));
  std::string code;
  std::vector<std::string> calls;
  for (int k = 0; k < kHelpers; ++k) gen.Shape(k, code, calls);
  code += "\n";
  GeneratedRaises generated = AppendRaises(code, calls);
  std::map<std::string, std::vector<const Site*>> listed;
  Extraction extraction = ExtractPythonSource("gen.py", code);
  for (const Site& s : extraction.sites) {
    auto it = generated.at.find(s.line);
    if (it != generated.at.end()) listed[it->second].push_back(&s);
  }
  nlohmann::json printed =
      testing::RunPythonForJson(code + generated.calls + testing::kPythonCallsHarness);
  ASSERT_TRUE(printed.is_object());

  int checked = 0, exact = 0, unfit = 0, missed = 0, mistyped = 0, quiet = 0, false_errors = 0;
  for (const auto& [name, result] : printed.items()) {
    ++checked;
    if (result.is_null()) {
      // The call returned: an error listed at it is one it never raises.
      ++quiet;
      if (!listed[name].empty()) {
        ++false_errors;
        ADD_FAILURE() << calls[std::stoul(name.substr(5))] << " raises nothing, errdex lists "
                      << nlohmann::json(listed[name].front()->message.Display()).dump();
      }
      continue;
    }
    ASSERT_TRUE(result.is_array()) << name;
    std::string type = result[0].get<std::string>();
    std::string text = result[1].get<std::string>();
    std::string call = calls[std::stoul(name.substr(5))];
    const std::vector<const Site*>& have = listed[name];
    if (have.empty()) {
      ++missed;
      ADD_FAILURE() << call << " raised " << type << ": " << nlohmann::json(text).dump()
                    << ", errdex lists nothing at the call";
      continue;
    }
    bool any_exact = false;
    for (const Site* s : have) {
      if (s->exception != type) {
        ++mistyped;
        ADD_FAILURE() << call << " raised " << type << ", errdex lists " << s->exception;
      }
      if (!Fits(s->message, text)) {
        ++unfit;
        ADD_FAILURE() << call << " printed " << nlohmann::json(text).dump() << ", errdex lists "
                      << nlohmann::json(s->message.Display()).dump();
        continue;
      }
      bool literal = !s->message.IsDynamic();
      for (const Piece& p : s->message.pieces()) literal = literal && !p.is_value;
      any_exact = any_exact || literal;
    }
    exact += any_exact ? 1 : 0;
  }
  EXPECT_EQ(checked, static_cast<int>(calls.size()));
  EXPECT_EQ(unfit, 0);
  EXPECT_EQ(missed, 0);
  EXPECT_EQ(mistyped, 0);
  EXPECT_EQ(false_errors, 0);
  std::printf(
      "calls of helpers %d (%d raise nothing): listed as text %d, unfit %d, mistyped %d, missed "
      "%d, "
      "listed where nothing is raised %d\n",
      checked, quiet, exact, unfit, mistyped, missed, false_errors);
}

}  // namespace
}  // namespace errdex::extract
