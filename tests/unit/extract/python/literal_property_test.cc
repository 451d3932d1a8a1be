// A message built from literals only prints one text, and errdex must list
// exactly that text. Random raises build their message from string and
// bytes literals (prefixes r, u, b, rb; escapes, quotes, control and
// non-ASCII characters), implicit and `+` concatenation, `%` with a tuple,
// a dict or one operand, str.format and f-strings, whose arguments are
// literals of every kind (str, bytes, int, None, True). CPython runs every
// raise. Each template errdex lists must fit what CPython printed; one
// with no value left must equal it, and most must have none left.
#include <gtest/gtest.h>

#include <algorithm>
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

  // The body of a str literal between its quotes (`"` quoted), escapes
  // written as source.
  std::string Body(bool raw, bool bytes) {
    static const char* const kText[] = {"a", "Z", " ", "'", ":", "%", "0", "word"};
    static const char* const kEscapes[] = {"\\n",   "\\t",   "\\\\",  "\\\"", "\\x41",
                                           "\\x93", "\\x01", "\\101", "\\'"};
    static const char* const kWide[] = {"é", "\\u00e9", "\\u200b", "\\xa0", "\\U0001d11e", "—"};
    std::string out;
    for (int n = Pick(5), i = 0; i < n; ++i) {
      int kind = Pick(raw ? 2 : 4);
      if (kind <= 1) {
        std::string t = kText[Pick(std::size(kText))];
        if (t == "%" && !bytes) t = "%%";  // these bodies may become `%` formats
        out += t;
      } else if (kind == 2) {
        out += kEscapes[Pick(std::size(kEscapes))];
      } else if (!bytes) {
        out += kWide[Pick(std::size(kWide))];
      }
    }
    return out;
  }

  std::string StrLiteral() {
    const char* prefixes[] = {"", "", "r", "u", "R"};
    std::string p = prefixes[Pick(5)];
    bool raw = p == "r" || p == "R";
    return p + "\"" + Body(raw, false) + "\"";
  }

  std::string BytesLiteral() {
    const char* prefixes[] = {"b", "B", "rb", "br"};
    std::string p = prefixes[Pick(4)];
    bool raw = p.find('r') != std::string::npos;
    return p + "\"" + Body(raw, true) + "\"";
  }

  // A literal argument of any kind.
  std::string Argument() {
    switch (Pick(6)) {
      case 0:
        return BytesLiteral();
      case 1:
        return std::to_string(Pick(2000) - 1000);
      case 2:
        return Pick(2) ? "None" : "True";
      default:
        return StrLiteral();
    }
  }

  // A str expression made of literals only.
  std::string Message(int depth) {
    switch (depth > 2 ? 0 : Pick(7)) {
      case 0:
        return StrLiteral();
      case 1:
        return StrLiteral() + " " + StrLiteral();
      case 2:
        return "(" + Message(depth + 1) + " + " + Message(depth + 1) + ")";
      case 3: {
        // `%` with a tuple, or one operand for one conversion.
        int n = 1 + Pick(3);
        std::string format = "\"" + Body(false, false);
        std::string args;
        for (int i = 0; i < n; ++i) {
          const char* conv[] = {"%s", "%r", "%s"};
          format += std::string(conv[Pick(3)]) + Body(false, false);
          args += (i ? ", " : "") + Argument();
        }
        format += "\"";
        if (n == 1 && Pick(2)) return format + " % " + args.substr(0, args.size());
        return format + " % (" + args + (n == 1 ? ",)" : ")");
      }
      case 4: {
        std::string format = "\"" + Body(false, false);
        std::string args;
        for (int n = 1 + Pick(3), i = 0; i < n; ++i) {
          const char* field[] = {"{}", "{!r}", "{!s}"};
          format += std::string(field[Pick(3)]) + Body(false, false);
          args += (i ? ", " : "") + Argument();
        }
        return format + "\".format(" + args + ")";
      }
      case 5: {
        // %(key)s with a dict of literals.
        std::string format = "\"" + Body(false, false);
        std::string dict;
        for (int n = 1 + Pick(2), i = 0; i < n; ++i) {
          std::string key = "k" + std::to_string(i);
          format += "%(" + key + ")" + (Pick(2) ? "s" : "r") + Body(false, false);
          dict += (i ? ", " : "") + std::string("\"") + key + "\": " + Argument();
        }
        return format + "\" % {" + dict + "}";
      }
      default: {
        std::string out = "f\"" + Body(false, false);
        for (int n = 1 + Pick(2), i = 0; i < n; ++i) {
          const char* conv[] = {"", "!r", "!s"};
          // f-string fields hold single-quoted literals inside the double quotes.
          // CPython 3.11 takes no backslash and no quote of the outer
          // kind in a field.
          std::string arg;
          do {
            arg = Argument();
          } while (arg.find_first_of("\\'") != std::string::npos ||
                   std::count(arg.begin(), arg.end(), '"') > 2);
          for (char& c : arg) c = c == '"' ? '\'' : c;
          out += "{" + arg + conv[Pick(3)] + "}" + Body(false, false);
        }
        return out + "\"";
      }
    }
  }
};

// The template's text when it has no value left; otherwise nothing.
std::optional<std::string> Text(const Template& t) {
  std::string out;
  for (const Piece& p : t.pieces()) {
    if (p.is_value) return std::nullopt;
    out += p.text;
  }
  return out;
}

TEST(LiteralProperty, AMessageOfLiteralsIsListedAsCPythonPrintsIt) {
  constexpr int kRaises = 300;
  Generator gen(testing::PropertySeed(20261206u));
  std::string code;
  std::vector<std::string> statements;
  for (int k = 0; k < kRaises; ++k)
    statements.push_back("raise ValueError(" + gen.Message(0) + ")");
  GeneratedRaises generated = AppendRaises(code, statements);
  std::map<std::string, std::vector<Template>> listed =
      ListedAt(ExtractPythonSource("gen.py", code).sites, generated);
  nlohmann::json printed =
      testing::RunPythonForJson(code + generated.calls + testing::kPythonCallsHarness);
  ASSERT_TRUE(printed.is_object());

  int raises = 0, exact = 0, unfit = 0, missed = 0;
  for (const auto& [name, result] : printed.items()) {
    ASSERT_TRUE(result.is_array()) << name << " raised nothing";
    ++raises;
    std::string text = result[1].get<std::string>();
    const std::vector<Template>& have = listed[name];
    if (have.empty()) {
      ++missed;
      ADD_FAILURE() << name << " printed '" << text << "', errdex lists nothing";
      continue;
    }
    for (const Template& t : have) {
      if (!Fits(t, text)) {
        ++unfit;
        ADD_FAILURE() << name << " printed " << nlohmann::json(text).dump() << ", errdex lists "
                      << nlohmann::json(t.Display()).dump() << " regex "
                      << nlohmann::json(match::TemplateRegex(t)).dump();
      } else if (Text(t) == text) {
        ++exact;
      } else if (std::getenv("ERRDEX_PROPERTY_VERBOSE") != nullptr) {
        std::printf("inexact %s: %s <> %s\n", name.c_str(),
                    nlohmann::json(t.Display()).dump().c_str(),
                    nlohmann::json(text).dump().c_str());
      }
    }
  }
  EXPECT_EQ(raises, kRaises);
  EXPECT_EQ(unfit, 0);
  EXPECT_EQ(missed, 0);
  // Literals only: nearly every message is known to the character.
  EXPECT_GE(exact, kRaises * 9 / 10);
  std::printf("literal messages %d: exact %d, unfit %d, missed %d\n", raises, exact, unfit, missed);
}

}  // namespace
}  // namespace errdex::extract
