// The evaluator's formatting operations against the code that really
// formats: CPython runs `pattern % args` and `pattern.format(...)`, libc's
// snprintf and CPython's PyUnicode_FromFormat (through ctypes) run the two
// printf dialects. Random patterns mix literal text (quotes, backslashes,
// control and non-ASCII characters, doubled escapes) with conversions,
// flags, widths, precisions, keys and indexes; random arguments are either
// known to errdex (a literal the front end resolved) or not (a name).
//
// Two claims are checked on every case the reference formats:
// - the template fits the text printed (each value stands for any text, at
//   most its precision's length): a template that does not is a message
//   errdex would never match;
// - when every argument is known and every conversion prints it as it is
//   (%s, %r, {}, {!r}, %d of a constant), the template is all text: a value
//   left there is text errdex had and threw away.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "extract/flow/format.h"
#include "test_util.h"

namespace errdex::extract::flow {
namespace {

struct Value {
  bool is_int = false;
  std::string text;  // a string's characters
  int number = 0;
  bool known = false;  // the front end resolved it
};

struct Case {
  Format format = Format::kPercent;
  std::string pattern;
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> named;
  bool tuple = true;  // Python `%`: the operand is a tuple (else the single value)
  bool dict = false;  // Python `%`: the operand is a dict of `named`
  bool plain = true;  // every conversion prints a known argument as it is
};

// Characters literal text and string values are made of: quotes,
// backslashes, braces and percent signs, control characters, non-ASCII.
const char* const kPieces[] = {"a",  "b", "Z", " ",        "'",      "\"",    "\\", "\n",
                               "\t", "é", "—", "\x01",     "x",      ":",     "(",  ")",
                               "0",  "7", ",", "\xc2\x85", "\u00a0", "\u200b"};

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::string Text(int max, bool ascii = false) {
    std::string out;
    for (int n = Pick(max + 1), i = 0; i < n; ++i) {
      const char* p = kPieces[Pick(ascii ? 10 : static_cast<int>(std::size(kPieces)))];
      if (ascii && static_cast<unsigned char>(p[0]) >= 0x80) p = "q";
      out += p;
    }
    return out;
  }

  // Literal text between conversions, with the dialect's own escapes.
  std::string Literal(Format f) {
    std::string out;
    for (int n = Pick(3), i = 0; i < n; ++i) {
      switch (Pick(6)) {
        case 0:
          out += f == Format::kStrFormat ? (Pick(2) ? "{{" : "}}") : "%%";
          break;
        default:
          out += Text(3, f == Format::kPrintf || f == Format::kPyPrintf);
      }
    }
    return out;
  }

  Value Argument(bool want_int, bool ascii) {
    Value v;
    v.is_int = want_int;
    v.known = Pick(3) != 0;
    if (want_int) {
      v.number = Pick(2000) - (ascii ? 0 : 1000);
    } else {
      v.text = Text(4, ascii);
    }
    return v;
  }

  Case Percent() {
    Case c;
    c.format = Format::kPercent;
    c.dict = Pick(5) == 0;
    int n = 1 + Pick(3);
    c.tuple = c.dict || n > 1 || Pick(2) == 0;
    c.pattern = Literal(c.format);
    for (int i = 0; i < n; ++i) {
      bool want_int = Pick(3) == 0;
      std::string key;
      if (c.dict) key = "(k" + std::to_string(i) + ")";
      std::string conv;
      if (want_int) {
        const char* ints[] = {"d", "i", "5d", "-4d", "x", "03d"};
        conv = ints[Pick(6)];
        c.plain &= conv == "d" || conv == "i";
      } else {
        const char* strs[] = {"s", "r", "s", "r", ".2s", "-6s", "a"};
        conv = strs[Pick(7)];
        c.plain &= conv == "s" || conv == "r";
      }
      c.pattern += "%" + key + conv + Literal(c.format);
      Value v = Argument(want_int, false);
      // repr of a string is exact only when errdex picks Python's quotes,
      // which it does from the text: known strings count.
      c.plain &= v.known;
      if (c.dict) {
        c.named.emplace_back("k" + std::to_string(i), v);
      } else {
        c.args.push_back(v);
      }
    }
    return c;
  }

  Case StrFormat() {
    Case c;
    c.format = Format::kStrFormat;
    c.pattern = Literal(c.format);
    bool manual = Pick(2) == 0;  // Python refuses to mix `{}` and `{0}`
    int n = 1 + Pick(3);
    for (int i = 0; i < n; ++i) {
      bool want_int = Pick(3) == 0;
      bool by_name = Pick(3) == 0;
      std::string field;
      if (by_name) {
        field = "k" + std::to_string(i);
      } else if (manual) {
        field = std::to_string(c.args.size());
      }
      std::string tail;
      if (want_int) {
        const char* ints[] = {"", ":d", ":>6", ":x", "!r"};
        tail = ints[Pick(5)];
        c.plain &= tail == "" || tail == ":d" || tail == "!r";
      } else {
        const char* strs[] = {"", "!r", "!s", ":>5", ":.2", "!a"};
        tail = strs[Pick(6)];
        c.plain &= tail == "" || tail == "!r" || tail == "!s";
      }
      c.pattern += "{" + field + tail + "}" + Literal(c.format);
      Value v = Argument(want_int, false);
      c.plain &= v.known;
      if (by_name) {
        c.named.emplace_back(field, v);
      } else {
        c.args.push_back(v);
      }
    }
    return c;
  }

  // C's printf (libc) and PyUnicode_FromFormat: strings are bytes there, so
  // arguments are ASCII (a precision counts bytes, errdex characters).
  Case Printf(bool python) {
    Case c;
    c.format = python ? Format::kPyPrintf : Format::kPrintf;
    c.pattern = Literal(c.format);
    int n = 1 + Pick(3);
    for (int i = 0; i < n; ++i) {
      bool want_int = Pick(3) == 0;
      std::string conv;
      if (want_int) {
        const char* ints[] = {"d", "i", "5d", "x", "u"};
        conv = ints[Pick(5)];
        c.plain &= conv == "d" || conv == "i" || conv == "u";
      } else if (python) {
        const char* strs[] = {"s", "s", ".3s", "R", "S"};
        conv = strs[Pick(5)];
        c.plain &= conv == "s";
      } else {
        const char* strs[] = {"s", "s", ".3s", "-6s", "8s"};
        conv = strs[Pick(5)];
        c.plain &= conv == "s";
      }
      c.pattern += "%" + conv + Literal(c.format);
      Value v = Argument(want_int, true);
      // %R and %S take an object, which C code never spells as text.
      if (conv == "R" || conv == "S") v.known = false;
      c.plain &= v.known;
      c.args.push_back(v);
    }
    return c;
  }

 private:
  std::mt19937 rng_;
};

std::string PythonRepr(const std::string& text) {
  nlohmann::json j = text;
  return j.dump();  // a JSON string is a Python string literal for these characters
}

// How a front end hands the argument over: Python names an int by its
// literal (IsPlainConstant) and a resolved string by its value; C resolves
// a number literal to its text too.
Arg ArgOf(const Value& v, size_t index, bool python) {
  if (!v.known) return Arg{"v" + std::to_string(index), std::nullopt};
  if (v.is_int) {
    std::string digits = std::to_string(v.number);
    return python ? Arg{digits, std::nullopt} : Arg{digits, Template::Literal(digits)};
  }
  return Arg{python ? PythonRepr(v.text) : nlohmann::json(v.text).dump(),
             Template::Literal(v.text)};
}

std::string RegexOf(const Template& t) {
  std::string out;
  for (const Piece& p : t.pieces()) {
    if (!p.is_value) {
      out += RE2::QuoteMeta(p.text);
    } else if (p.max_length >= 0) {
      out += "(?s:.{0," + std::to_string(std::min(p.max_length, 1000)) + "})";
    } else {
      out += "(?s:.*)";
    }
  }
  return out;
}

nlohmann::json ValueJson(const Value& v) {
  return v.is_int ? nlohmann::json{{"n", v.number}} : nlohmann::json{{"s", v.text}};
}

const char* const kReference = R"PY(
import ctypes, json

def val(v):
    return v["n"] if "n" in v else v["s"]

libc = ctypes.CDLL(None)
api = ctypes.pythonapi
api.PyUnicode_FromFormat.restype = ctypes.py_object

def c_args(c, python):
    out = []
    for a, conv in zip(c["args"], c["convs"]):
        if "n" in a:
            out.append(ctypes.c_int(a["n"]))
        elif python and conv in ("R", "S"):
            out.append(ctypes.py_object(a["s"]))
        else:
            out.append(ctypes.c_char_p(a["s"].encode()))
    return out

results = []
for c in CASES:
    try:
        op = c["op"]
        if op == "percent":
            if c["dict"]:
                r = c["pattern"] % {k: val(v) for k, v in c["named"]}
            elif c["tuple"]:
                r = c["pattern"] % tuple(val(v) for v in c["args"])
            else:
                r = c["pattern"] % (val(c["args"][0]),)
        elif op == "format":
            r = c["pattern"].format(*[val(v) for v in c["args"]],
                                    **{k: val(v) for k, v in c["named"]})
        elif op == "printf":
            buf = ctypes.create_string_buffer(4096)
            libc.snprintf(buf, 4096, c["pattern"].encode(), *c_args(c, False))
            r = buf.value.decode("utf-8", "replace")
        else:
            r = api.PyUnicode_FromFormat(c["pattern"].encode(), *c_args(c, True))
        results.append(r)
    except Exception as e:
        results.append(None)
print(json.dumps(results))
)PY";

// The conversion letters of a printf pattern, in order (for ctypes to pass
// each argument as the type its conversion reads).
std::vector<std::string> Conversions(const std::string& pattern) {
  std::vector<std::string> out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') continue;
    if (i + 1 < pattern.size() && pattern[i + 1] == '%') {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < pattern.size() &&
           std::string_view("-0123456789.").find(pattern[j]) != std::string_view::npos) {
      ++j;
    }
    if (j < pattern.size()) out.emplace_back(1, pattern[j]);
    i = j;
  }
  return out;
}

TEST(FormatProperty, TemplatesFitWhatCPythonAndLibcPrint) {
  Generator gen(testing::PropertySeed(20261205u));
  std::vector<Case> cases;
  for (int i = 0; i < 150; ++i) {
    cases.push_back(gen.Percent());
    cases.push_back(gen.StrFormat());
    cases.push_back(gen.Printf(false));
    cases.push_back(gen.Printf(true));
  }
  nlohmann::json all = nlohmann::json::array();
  for (const Case& c : cases) {
    nlohmann::json j;
    j["op"] = c.format == Format::kPercent     ? "percent"
              : c.format == Format::kStrFormat ? "format"
              : c.format == Format::kPrintf    ? "printf"
                                               : "pyprintf";
    j["pattern"] = c.pattern;
    j["tuple"] = c.tuple;
    j["dict"] = c.dict;
    j["args"] = nlohmann::json::array();
    for (const Value& v : c.args) j["args"].push_back(ValueJson(v));
    j["named"] = nlohmann::json::array();
    for (const auto& [k, v] : c.named) j["named"].push_back({k, ValueJson(v)});
    j["convs"] = Conversions(c.pattern);
    all.push_back(std::move(j));
  }
  std::string hex;
  for (unsigned char ch : all.dump()) {
    static const char kHex[] = "0123456789abcdef";
    hex += kHex[ch >> 4];
    hex += kHex[ch & 15];
  }
  nlohmann::json printed = testing::RunPythonForJson(
      "import json\nCASES = json.loads(bytes.fromhex('" + hex + "').decode())\n" + kReference);
  ASSERT_TRUE(printed.is_array());
  ASSERT_EQ(printed.size(), cases.size());

  int checked = 0;
  int unfit = 0;
  int lost = 0;
  int plain = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!printed[i].is_string()) continue;  // the reference refused the pattern
    const Case& c = cases[i];
    bool python = PrintingOf(c.format) == Printing::kPython;
    FormatArgs args;
    args.is_tuple = c.tuple;
    args.expression =
        c.tuple ? "" : (c.args.empty() ? "v" : ArgOf(c.args[0], 0, python).expression);
    for (size_t k = 0; k < c.args.size(); ++k) {
      args.positional.push_back(ArgOf(c.args[k], k, python));
    }
    for (size_t k = 0; k < c.named.size(); ++k) {
      args.named[c.named[k].first] = ArgOf(c.named[k].second, 100 + k, python);
    }
    Template t = ApplyFormat(c.format, Template::Literal(c.pattern), args);
    std::string text = printed[i].get<std::string>();
    ++checked;
    RE2 re(RegexOf(t));
    if (!re.ok() || !RE2::FullMatch(text, re)) {
      ++unfit;
      ADD_FAILURE() << FormatName(c.format) << " pattern " << nlohmann::json(c.pattern).dump()
                    << "\n  printed  " << nlohmann::json(text).dump() << "\n  template "
                    << nlohmann::json(t.Display()).dump();
      continue;
    }
    bool has_value = false;
    for (const Piece& p : t.pieces()) has_value |= p.is_value;
    plain += c.plain ? 1 : 0;
    if (c.plain && has_value) {
      ++lost;
      ADD_FAILURE() << FormatName(c.format) << " kept a value although every argument is known: "
                    << nlohmann::json(c.pattern).dump() << " -> "
                    << nlohmann::json(t.Display()).dump();
    }
  }
  // Most patterns are valid: a reference that refuses them all checks nothing.
  EXPECT_GT(checked, static_cast<int>(cases.size()) * 3 / 4);
  EXPECT_GT(plain, static_cast<int>(cases.size()) / 20);
  std::printf(
      "format property: %d cases formatted by the reference (%d with every argument known), %d "
      "unfit, %d lost\n",
      checked, plain, unfit, lost);
}

}  // namespace
}  // namespace errdex::extract::flow
