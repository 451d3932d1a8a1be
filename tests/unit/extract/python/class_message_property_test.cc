// What an exception class makes of its arguments is what CPython prints.
// Random classes compose their text in the ways libraries do: a formatted
// super().__init__ call, __str__ over attributes __init__ stored, a class
// attribute template filled with keyword arguments and overridden in a
// subclass, a message attribute a subclass overrides, the args tuple of a
// class that adds nothing, KeyError's quoting, a subclass that prefixes its
// base's text. Random raises call them with literal arguments. CPython runs
// every raise. Nothing in these classes branches, so every template errdex
// lists at a raise must fit the text printed, and one must list it.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
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

  // A literal argument: a str, an int, None or True.
  std::string Literal() {
    switch (Pick(5)) {
      case 0:
        return std::to_string(Pick(100));
      case 1:
        return Pick(2) ? "None" : "True";
      default:
        return "'" + Word() + "'";
    }
  }

  // One class (and maybe a subclass) and the calls that raise it.
  void Shape(int k, std::string& code, std::vector<std::string>& raises) {
    std::string e = "E" + std::to_string(k);
    std::string base = Pick(4) == 0 ? "ValueError" : "Exception";
    switch (Pick(14)) {
      case 0:
        code += "class " + e + "(" + base + "):\n    def __init__(self, a, b=" + Literal() +
                "):\n        super().__init__(f'" + Word() + " {a} " + Word() + " {b!r}')\n";
        raises.push_back(e + "(" + Literal() + ")");
        raises.push_back(e + "(" + Literal() + ", " + Literal() + ")");
        break;
      case 1:
        code += "class " + e + "(" + base + "):\n    def __init__(self, a):\n        self.a = a\n" +
                "    def __str__(self):\n        return '" + Word() + " %s " + Word() +
                "' % (self.a,)\n";
        raises.push_back(e + "(" + Literal() + ")");
        break;
      case 2:
        code += "class " + e + "(" + base + "):\n    fmt = '" + Word() + " {name} " + Word() +
                "'\n    def __init__(self, **kwargs):\n" +
                "        super().__init__(self.fmt.format(**kwargs))\n";
        code += "class " + e + "b(" + e + "):\n    fmt = '" + Word() + " {name!r} " + Word() +
                " {n}'\n";
        raises.push_back(e + "(name=" + Literal() + ")");
        raises.push_back(e + "b(name=" + Literal() + ", n=" + Literal() + ")");
        break;
      case 3:
        code += "class " + e + "(" + base + "):\n    pass\n";
        raises.push_back(e + "()");
        raises.push_back(e + "(" + Literal() + ")");
        raises.push_back(e + "(" + Literal() + ", " + Literal() + ")");
        break;
      case 4:
        code += "class " + e + "(KeyError):\n    pass\n";
        raises.push_back(e + "(" + Literal() + ")");
        break;
      case 5:
        code += "class " + e + "(" + base + "):\n    message = '" + Word() +
                "'\n    def __str__(self):\n        return self.message\n";
        code += "class " + e + "b(" + e + "):\n    message = '" + Word() + "'\n";
        raises.push_back(e + "()");
        raises.push_back(e + "b()");
        break;
      case 6:
        code += "class " + e + "(" + base + "):\n    def __init__(self, a, where='" + Word() +
                "'):\n        self.a = a\n        self.where = where\n" +
                "    def __str__(self):\n        return f'" + Word() +
                " {self.a!r} in {self.where}'\n";
        raises.push_back(e + "(" + Literal() + ")");
        raises.push_back(e + "(" + Literal() + ", where=" + Literal() + ")");
        break;
      case 8:
        // The lazy formatting of logging-style classes.
        code += "class " + e + "(" + base + "):\n    def __str__(self):\n" +
                "        return self.args[0] % self.args[1:]\n";
        raises.push_back(e + "('" + Word() + " %s " + Word() + " %r', " + Literal() + ", " +
                         Literal() + ")");
        break;
      case 9:
        code += "class " + e + "(OSError):\n    pass\n";
        raises.push_back(e + "(" + std::to_string(1 + Pick(30)) + ", '" + Word() + "')");
        raises.push_back(e + "(" + std::to_string(1 + Pick(30)) + ", '" + Word() + "', '" + Word() +
                         "')");
        break;
      case 10:
        code += "class " + e + "(" + base +
                "):\n    def __init__(self, msg, line=" + std::to_string(Pick(9)) +
                "):\n        super().__init__(msg)\n" +
                "        self.msg = msg\n        self.line = line\n" +
                "    def __str__(self):\n        return f'{self.msg} (line {self.line})'\n";
        raises.push_back(e + "('" + Word() + "')");
        raises.push_back(e + "('" + Word() + "', line=" + std::to_string(Pick(99)) + ")");
        break;
      case 11:
        code += "class " + e + "(" + base + "):\n    def __init__(self, what):\n" + "        " +
                base + ".__init__(self, '" + Word() + " ' + repr(what))\n";
        raises.push_back(e + "('" + Word() + "')");
        break;
      case 12:
        code += "class " + e + "(" + base + "):\n    @property\n    def message(self):\n" +
                "        return '" + Word() + "'\n    def __str__(self):\n" +
                "        return self.message\n";
        raises.push_back(e + "()");
        break;
      case 13:
        // werkzeug's HTTPException: class attributes a subclass overrides.
        code += "class " + e + "(" + base + "):\n    code = " + std::to_string(400 + Pick(20)) +
                "\n    description = '" + Word() + "'\n    def __str__(self):\n" +
                "        return f'{self.code} {self.description}'\n";
        code += "class " + e + "b(" + e + "):\n    code = " + std::to_string(500 + Pick(20)) +
                "\n    description = '" + Word() + "'\n";
        raises.push_back(e + "()");
        raises.push_back(e + "b()");
        break;
      default:
        code += "class " + e + "(" + base + "):\n    def __init__(self, msg):\n" +
                "        super().__init__(msg)\n";
        code += "class " + e + "b(" + e + "):\n    def __init__(self, what):\n" +
                "        super().__init__('" + Word() + ": ' + what)\n";
        raises.push_back(e + "(" + Literal() + ")");
        raises.push_back(e + "b('" + Word() + "')");
        break;
    }
  }

};

TEST(ClassMessageProperty, WhatAClassMakesOfItsArgumentsIsListed) {
  constexpr int kClasses = 80;
  Generator gen(testing::PropertySeed(20261207u));
  std::string code;
  std::vector<std::string> raises;
  for (int k = 0; k < kClasses; ++k) gen.Shape(k, code, raises);
  code += "\n";
  std::vector<std::string> statements;
  for (const std::string& r : raises) statements.push_back("raise " + r);
  GeneratedRaises generated = AppendRaises(code, statements);
  std::map<std::string, std::vector<Template>> listed =
      ListedAt(ExtractPythonSource("gen.py", code).sites, generated);
  nlohmann::json printed =
      testing::RunPythonForJson(code + generated.calls + testing::kPythonCallsHarness);
  ASSERT_TRUE(printed.is_object());

  int checked = 0, exact = 0, unfit = 0, missed = 0;
  for (const auto& [name, result] : printed.items()) {
    ASSERT_TRUE(result.is_array()) << name << " raised nothing";
    ++checked;
    std::string text = result[1].get<std::string>();
    std::string raise = raises[std::stoul(name.substr(5))];
    const std::vector<Template>& have = listed[name];
    if (have.empty()) {
      ++missed;
      ADD_FAILURE() << "raise " << raise << " printed " << nlohmann::json(text).dump()
                    << ", errdex lists nothing";
      continue;
    }
    bool any_exact = false;
    for (const Template& t : have) {
      if (!Fits(t, text)) {
        ++unfit;
        ADD_FAILURE() << "raise " << raise << " printed " << nlohmann::json(text).dump()
                      << ", errdex lists " << nlohmann::json(t.Display()).dump();
        continue;
      }
      bool literal = !t.IsDynamic();
      for (const Piece& p : t.pieces()) literal = literal && !p.is_value;
      any_exact = any_exact || (literal || t.empty());
    }
    exact += any_exact ? 1 : 0;
    if (!any_exact && std::getenv("ERRDEX_PROPERTY_VERBOSE") != nullptr) {
      std::printf("not as text: raise %s printed %s, errdex lists %s\n", raise.c_str(),
                  nlohmann::json(text).dump().c_str(),
                  nlohmann::json(have.front().Display()).dump().c_str());
    }
  }
  EXPECT_EQ(checked, static_cast<int>(raises.size()));
  EXPECT_EQ(unfit, 0);
  EXPECT_EQ(missed, 0);
  std::printf("class messages %d: listed as text %d, unfit %d, missed %d\n", checked, exact, unfit,
              missed);
}

}  // namespace
}  // namespace errdex::extract
