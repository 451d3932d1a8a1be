// The trigger sentence of a C raise is true exactly when the raise is
// reached. Random C functions (if / else if / else nested, early returns,
// gotos forward to labels, switches whose cases return or fall out, loops
// that cannot leave, compound conditions with !, && and ||) are extracted;
// each raise's sentence is read back into a C expression, and the compiled
// program, the reference, runs every function and every expression on
// every input of a grid — NaN among them, where `!(x < y)` and `x >= y`
// part ways. Any input where the two disagree is a wrong sentence.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/guards.h"
#include "extract/extractor.h"
#include "test_util.h"
#include "trigger_parts.h"

namespace errdex::extract {
namespace {

enum Prec { kOr = 1, kAnd, kNot, kCmp, kOperand };

struct Cond {
  std::string text;
  int prec;
};

// Conditions without side effects over the parameters (double x, double y,
// int z, int n, int *p); none reads through p.
const Cond kAtoms[] = {
    {"x < y", kCmp},       {"x <= 0", kCmp},
    {"y > 0", kCmp},       {"x == y", kCmp},
    {"y != 0", kCmp},      {"x + y > 1", kCmp},
    {"-x < y", kCmp},      {"(x < 0 ? y : x) > 0", kCmp},
    {"z >= 1", kCmp},      {"z == 0", kCmp},
    {"z != 2", kCmp},      {"n > 1", kCmp},
    {"n == 0", kCmp},      {"z < n", kCmp},
    {"z % 2 == 0", kCmp},  {"p == NULL", kCmp},
    {"p != NULL", kCmp},   {"isnan(x)", kOperand},
    {"(z & 1)", kOperand}, {"p", kOperand},
    {"z", kOperand},       {"n", kOperand},
    {"x", kOperand},       {"!p", kNot},
    {"!z", kNot},          {"!(x < y)", kNot},
};

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  // int NAME(double x, double y, int z, int n, int *p) { ... } with its
  // raises' messages NAME_0, ...
  std::string Function(const std::string& name, int* raises) {
    name_ = name;
    raises_ = 0;
    nested_ = 0;
    std::string out =
        "int " + name + "(double x, double y, int z, int n, int *p) {\n  int t = 0;\n";
    // Labels at the top level, each after some statement: a goto inside an
    // earlier statement may jump to it.
    int statements = 2 + Pick(3);
    std::vector<int> label_after(static_cast<size_t>(Pick(3)));
    for (int& at : label_after) at = Pick(statements);
    for (int i = 0; i < statements; ++i) {
      labels_.clear();
      for (size_t l = 0; l < label_after.size(); ++l) {
        if (label_after[l] >= i) labels_.push_back("L" + std::to_string(l));
      }
      if (Statement(0, 1, out) && label_after.empty() && nested_ == 0 && Chance(80)) break;
      for (size_t l = 0; l < label_after.size(); ++l) {
        if (label_after[l] == i) Line(0, "L" + std::to_string(l) + ": ;", out);
      }
    }
    if (raises_ == 0) Raise(1, out);
    out += "  return 0;\n}\n";
    *raises = raises_;
    return ResolveGotos(out);
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool Chance(int percent) { return Pick(100) < percent; }

  std::string Wrap(const Cond& c, int at_least) {
    return c.prec < at_least || (c.prec < kOperand && Chance(10)) ? "(" + c.text + ")" : c.text;
  }

  int Depth() { return Chance(20) ? 2 : 1; }

  Cond Condition(int depth) {
    if (depth == 0 || Chance(40)) return kAtoms[Pick(std::size(kAtoms))];
    int what = Pick(10);
    if (what < 2) return {"!" + Wrap(Condition(depth - 1), kOperand), kNot};
    int p = what < 6 ? kAnd : kOr;
    Cond left = Condition(depth - 1);
    Cond right = Condition(depth - 1);
    return {Wrap(left, p) + (p == kAnd ? " && " : " || ") + Wrap(right, p), p};
  }

  void Line(int indent, const std::string& text, std::string& out) {
    out += std::string(2 * indent, ' ') + text + "\n";
  }

  void Raise(int indent, std::string& out) {
    Line(indent,
         "PyErr_SetString(PyExc_ValueError, \"" + name_ + "_" + std::to_string(raises_++) + "\");",
         out);
    Line(indent, "return -1;", out);
  }

  // Statements after one that leaves are dead code: written now and then.
  // A label now and then, which a goto from anywhere before it may jump
  // into.
  void Block(int depth, int indent, std::string& out) {
    for (int n = 1 + Pick(3); n > 0; --n) {
      if (Chance(8)) Line(indent, "N" + std::to_string(nested_++) + ": ;", out);
      if (Statement(depth, indent, out) && Chance(80)) break;
    }
  }

  // Whether the statement always leaves (a raise, a return, a goto).
  bool Statement(int depth, int indent, std::string& out) {
    int what = Pick(100);
    if (depth < 3 && what < 36 - 8 * depth) {
      Line(indent, "if (" + Condition(Depth()).text + ") {", out);
      Block(depth + 1, indent + 1, out);
      for (int more = Pick(3); more > 0 && Chance(50); --more) {
        Line(indent, "} else if (" + Condition(Depth()).text + ") {", out);
        Block(depth + 1, indent + 1, out);
      }
      if (Chance(40)) {
        Line(indent, "} else {", out);
        Block(depth + 1, indent + 1, out);
      }
      Line(indent, "}", out);
    } else if (what < 58) {
      Raise(indent, out);
      return true;
    } else if (what < 68) {
      Line(indent, "return 1;", out);
      return true;
    } else if (what < 74) {
      // To a label written after it (ResolveGotos), in whatever block: only
      // forward, so that every run ends.
      Line(indent, "goto @@;", out);
      return true;
    } else if (what < 80 && depth < 3) {
      // A switch: cases that return, raise, fall out or fall through.
      Line(indent, "switch (z) {", out);
      for (int c = 0; c < 3; ++c) {
        if (Chance(30)) continue;
        Line(indent + 1, "case " + std::to_string(c - 1) + ":", out);
        int body = Pick(10);
        if (body < 4) {
          Line(indent + 2, "return " + std::to_string(c + 2) + ";", out);
        } else if (body < 6) {
          Raise(indent + 2, out);
        } else if (body < 8) {
          Line(indent + 2, "t = " + std::to_string(c) + ";", out);
          Line(indent + 2, "break;", out);
        }  // else: falls through into the next case
      }
      if (Chance(30)) {
        Line(indent + 1, "default:", out);
        Line(indent + 2, Chance(50) ? "break;" : "return 7;", out);
      }
      Line(indent, "}", out);
    } else if (what < 86) {
      // Loops that cannot leave the function say nothing.
      Line(indent,
           Chance(50) ? "for (int i = 0; i < n; i++) t += i;" : "do { t++; } while (t < n);", out);
    } else if (what < 88) {
      // A loop a return can leave: what follows it is not spelled out.
      Line(indent, "for (int i = 0; i < n; i++) {", out);
      Line(indent + 1, "if (i == z) return 4;", out);
      Line(indent, "}", out);
    } else {
      Line(indent, "t = 1;", out);
    }
    return false;
  }

  // Each `goto @@;` jumps to a label written after it, or is `t = 2;`.
  std::string ResolveGotos(std::string code) {
    std::vector<std::pair<size_t, std::string>> labels;  // where, name
    for (size_t at = 0; at < code.size(); at = code.find('\n', at) + 1) {
      size_t text = code.find_first_not_of(' ', at);
      size_t colon = code.find(": ;", text);
      size_t eol = code.find('\n', at);
      if (colon != std::string::npos && colon < eol && (code[text] == 'L' || code[text] == 'N')) {
        labels.emplace_back(text, code.substr(text, colon - text));
      }
      if (eol == std::string::npos) break;
    }
    for (size_t at = code.find("goto @@;"); at != std::string::npos;
         at = code.find("goto @@;", at)) {
      std::vector<std::string> later;
      for (const auto& [where, name] : labels) {
        if (where > at) later.push_back(name);
      }
      std::string jump =
          later.empty()
              ? "t = 2;"
              : "goto " + later[static_cast<size_t>(Pick(static_cast<int>(later.size())))] + ";";
      code.replace(at, 8, jump);
      for (auto& label : labels) {
        if (label.first > at) label.first = label.first + jump.size() - 8;
      }
    }
    return code;
  }

  std::mt19937 rng_;
  int nested_ = 0;  // labels written inside blocks
  std::string name_;
  std::vector<std::string> labels_;  // what a goto may jump to from here
  int raises_ = 0;
};

std::vector<std::string> Parts(std::string_view conditions) {
  return testing::TriggerParts(conditions);
}

// The code quoted at the start of `text` and what follows it.
std::optional<std::pair<std::string, std::string>> Quoted(const std::string& text) {
  if (text.size() < 2 || text[0] != '`') return std::nullopt;
  size_t close = text.find('`', 1);
  if (close == std::string::npos) return std::nullopt;
  return std::make_pair(text.substr(1, close - 1), text.substr(close + 1));
}

// One condition of a sentence as C; none if it is not one the sentences
// write for C's conditions.
std::optional<std::string> PartToC(std::string part) {
  bool negated = part.rfind("not `", 0) == 0;
  if (negated) part.erase(0, 4);
  std::optional<std::pair<std::string, std::string>> q = Quoted(part);
  if (!q) return std::nullopt;
  auto [code, rest] = *q;
  if (rest.empty()) return negated ? "(!(" + code + "))" : "(" + code + ")";
  if (negated) return std::nullopt;
  if (rest.rfind(" matches `", 0) == 0 && rest.back() == '`') {
    return "((" + code + ") == (" + rest.substr(10, rest.size() - 11) + "))";
  }
  const std::string none = " matches no case";
  if (rest.rfind(none, 0) != 0) return std::nullopt;
  rest.erase(0, none.size());
  std::string out = "(1";
  if (rest.rfind(" (valid: ", 0) == 0 && rest.back() == ')') {
    std::string list = rest.substr(9, rest.size() - 10);
    for (size_t at = 0; at < list.size();) {
      std::optional<std::pair<std::string, std::string>> v = Quoted(list.substr(at));
      if (!v) return std::nullopt;
      out += " && (" + code + ") != (" + v->first + ")";
      at += v->first.size() + 2;
      if (list.compare(at, 2, ", ") == 0) at += 2;
    }
  } else if (!rest.empty()) {
    return std::nullopt;
  }
  return out + ")";
}

std::optional<std::string> SentenceToC(const std::string& sentence) {
  if (sentence.empty()) return "1";
  if (sentence.rfind("never raised", 0) == 0) return "0";
  const std::string lead = "raised when ";
  if (sentence.rfind(lead, 0) != 0) return std::nullopt;
  std::string out;
  for (const std::string& part : Parts(std::string_view(sentence).substr(lead.size()))) {
    std::optional<std::string> p = PartToC(part);
    if (!p) return std::nullopt;
    out += (out.empty() ? "" : " && ") + *p;
  }
  return out;
}

std::string CString(const std::string& s) { return nlohmann::json(s).dump(); }

// Not extracted: what the generated functions call, compiled before them.
constexpr const char* kPrelude = R"C(#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
static const char *g_raised;
#define PyErr_SetString(type, msg) (g_raised = (msg))
#define PyExc_ValueError 0
)C";

// Every function on every input of the grid, and every trigger of its
// raises: the disagreements as JSON.
constexpr const char* kHarness = R"C(
int main(void) {
  const double xs[] = {-2, -1, 0, 1, 2, NAN};
  int target = 5;
  long checks = 0, count = 0;
  int fired[sizeof(kSites) / sizeof(kSites[0])] = {0};
  printf("{\"disagreements\": [");
  for (size_t k = 0; k < sizeof(kSites) / sizeof(kSites[0]); ++k) {
    for (int a = 0; a < 6; ++a) for (int b = 0; b < 6; ++b)
    for (int z = -2; z <= 2; ++z) for (int n = 0; n < 4; ++n) for (int q = 0; q < 2; ++q) {
      int *p = q ? &target : NULL;
      g_raised = NULL;
      kSites[k].fn(xs[a], xs[b], z, n, p);
      int got = g_raised != NULL && strcmp(g_raised, kSites[k].message) == 0;
      int want = kSites[k].trigger(xs[a], xs[b], z, n, p) != 0;
      ++checks;
      if (want) fired[k] = 1;
      if (got != want) {
        if (count < 20) {
          printf("%s{\"site\": \"%s\", \"x\": %g, \"y\": %g, \"z\": %d, \"n\": %d, \"p\": %d, "
                 "\"raised\": %d}", count ? ", " : "", kSites[k].message, xs[a], xs[b], z, n, q, got);
        }
        ++count;
      }
    }
  }
  int any = 0;
  for (size_t k = 0; k < sizeof(kSites) / sizeof(kSites[0]); ++k) any += fired[k];
  printf("], \"count\": %ld, \"checks\": %ld, \"fired\": %d}\n", count, checks, any);
  return 0;
}
)C";

TEST(CTriggerProperty, SentenceIsTrueExactlyWhenTheRaiseIsReached) {
  if (testing::RunCommand("command -v gcc").exit_code != 0) GTEST_SKIP() << "no gcc";
  constexpr int kFunctions = 1500;
  uint32_t seed = testing::PropertySeed(20261206u);
  Generator gen(seed);
  std::string code;
  std::map<std::string, std::string> function_of;  // message -> function
  for (int i = 0; i < kFunctions; ++i) {
    std::string name = "f" + std::to_string(i);
    int raises = 0;
    code += gen.Function(name, &raises) + "\n";
    for (int k = 0; k < raises; ++k) function_of[name + "_" + std::to_string(k)] = name;
  }
  std::string triggers;
  std::string table =
      "static const struct {\n  int (*fn)(double, double, int, int, int *);\n"
      "  const char *message;\n  int (*trigger)(double, double, int, int, int *);\n"
      "} kSites[] = {\n";
  int sites = 0, multi = 0, opaque = 0, untranslatable = 0;
  std::map<std::string, int> seen;
  for (const Site& s : ExtractCppSource("gen.c", code).sites) {
    std::string message = s.message.Display();
    auto fn = function_of.find(message);
    ASSERT_NE(fn, function_of.end()) << "a site no raise wrote: " << message;
    ++seen[message];
    if (seen[message] > 1) continue;
    ++sites;
    if (s.guards.size() >= 2) ++multi;
    std::string full = TriggerSentence(s.guards, SIZE_MAX);
    EXPECT_EQ(s.trigger, TriggerSentence(s.guards)) << message;
    // Named, not spelled out: a loop or switch that may leave, a label a
    // goto jumps to.
    if (full.find("runs to its end") != std::string::npos ||
        full.find("control reaches") != std::string::npos ||
        full.find("run into it") != std::string::npos ||
        full.find("selects a case") != std::string::npos) {
      ++opaque;
      continue;
    }
    std::optional<std::string> expr = SentenceToC(full);
    if (!expr) {
      ++untranslatable;
      ADD_FAILURE() << message << ": no C for " << full;
      continue;
    }
    std::string trigger = "t_" + message;
    triggers += "static int " + trigger +
                "(double x, double y, int z, int n, int *p) {\n  return " + *expr + ";\n}\n";
    table += "  {" + fn->second + ", " + CString(message) + ", " + trigger + "},\n";
  }
  table += "};\n";
  for (const auto& [message, name] : function_of) {
    EXPECT_EQ(seen[message], 1) << "raise " << message << " extracted " << seen[message] << "x";
  }
  testing::TempDir dir;
  std::filesystem::path source =
      dir.Write("check.c", kPrelude + code + triggers + table + kHarness);
  std::filesystem::path binary = dir.path() / "check";
  testing::CommandResult built = testing::RunCommand("gcc -std=gnu11 -w -o " + binary.string() +
                                                     " " + source.string() + " -lm 2>&1");
  ASSERT_EQ(built.exit_code, 0) << built.out.substr(0, 4000);
  testing::CommandResult ran = testing::RunCommand(binary.string());
  ASSERT_EQ(ran.exit_code, 0) << ran.out.substr(0, 2000);
  nlohmann::json report = nlohmann::json::parse(ran.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << ran.out.substr(0, 4000);
  EXPECT_EQ(report["count"], 0) << "seed " << seed << ": " << report["disagreements"].dump(1);
  EXPECT_EQ(untranslatable, 0);
  // Not vacuous: most sites have a chain of conditions, many get raised,
  // and few are named rather than spelled out.
  EXPECT_LE(opaque, sites / 4) << "sites " << sites;
  EXPECT_GE(multi, sites / 3) << "sites " << sites;
  EXPECT_GE(report["fired"].get<int>(), sites / 5) << "sites " << sites;
  std::printf(
      "functions %d, sites %d (%d with 2+ conditions, %d not spelled out), checks %ld, "
      "fired %d\n",
      kFunctions, sites, multi, opaque, report["checks"].get<long>(), report["fired"].get<int>());
}

}  // namespace
}  // namespace errdex::extract
