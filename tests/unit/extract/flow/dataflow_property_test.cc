// The definitions the shared data flow says reach a raise, against the
// ones that do when CPython runs the code. Random functions assign,
// append to and rebind one variable (`m = "D1"`, `m += "|A2"`, `for m in`,
// `with ... as m`, `except B3 as m`, `(m := "D4")` in conditions and
// expressions, on some paths or all) under if/elif/else, while and for
// loops with break and continue, try with handlers, else and finally,
// match, and early returns, every condition drawn from a stream of random
// bits; one `raise Target(m)` sits somewhere among them. CPython runs each
// function on 160 bit streams and reports which definition `m` held at the
// raise. A definition CPython saw that the flow does not list is a text the
// catalog would miss (never allowed); one it lists that no run saw is
// imprecision (counted).
#include <gtest/gtest.h>

#include <tree_sitter/api.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "extract/flow/dataflow.h"
#include "extract/python/py_extractor.h"
#include "extract/python/py_flow.h"
#include "extract/ts_util.h"
#include "flow_property.h"
#include "test_util.h"

namespace errdex::extract {
namespace {

constexpr int kPrograms = 1000;
constexpr int kRuns = 160;

class Generator : public FlowProgram {
 public:
  explicit Generator(uint32_t seed) : FlowProgram(seed, 4) {}

  // A function named `name`; its body at one indent.
  std::string Function(const std::string& name) {
    target_placed_ = false;
    std::string body = Block(1, 0, false, false);
    if (!target_placed_) body += Pad(1) + "raise Target(m)\n";
    return "def " + name + "(c, m='P'):\n" + body;
  }

 private:
  std::string Statement(int indent, int depth, bool in_loop, bool in_try) override {
    std::string pad = Pad(indent);
    if (PlaceTarget()) return pad + "raise Target(m)\n";
    int choice = Pick(depth >= 3 ? 4 : 18);
    switch (choice) {
      case 0:
      case 1:
        return pad + "m = '" + Label('D') + "'\n";
      case 2:
        return pad + "m += '|" + Label('A') + "'\n";
      case 3: {
        // An exit: a break or continue in a loop, a handler's exception
        // in a try, else a return; under a condition, or not.
        std::string exit = "return";
        if (in_loop && Pick(2) == 0) exit = Pick(2) == 0 ? "break" : "continue";
        if (in_try && Pick(2) == 0) exit = "raise B" + std::to_string(Pick(kHandlers)) + "()";
        if (Pick(4) == 0) return pad + exit + "\n";
        return pad + "if next(c):\n" + Pad(indent + 1) + exit + "\n";
      }
      case 4:
      case 5: {
        std::string out = pad + "if next(c):\n" + Block(indent + 1, depth + 1, in_loop, in_try);
        if (Pick(2) == 0) {
          out += pad + "elif next(c):\n" + Block(indent + 1, depth + 1, in_loop, in_try);
        }
        if (Pick(2) == 0) out += pad + "else:\n" + Block(indent + 1, depth + 1, in_loop, in_try);
        return out;
      }
      case 6: {
        std::string out = pad + "while next(c):\n" + Block(indent + 1, depth + 1, true, in_try);
        if (Pick(3) == 0) out += pad + "else:\n" + Block(indent + 1, depth + 1, in_loop, in_try);
        return out;
      }
      case 7: {
        // Zero, one or two passes, and sometimes an else.
        std::string passes = Pick(2) == 0 ? "2" : "next(c)";
        std::string head = Pick(2) == 0 ? "for _ in range(" + passes + "):\n"
                                        : "for m in ('" + Label('L') + "',) * " + passes + ":\n";
        std::string out = pad + head + Block(indent + 1, depth + 1, true, in_try);
        if (Pick(3) == 0) out += pad + "else:\n" + Block(indent + 1, depth + 1, in_loop, in_try);
        return out;
      }
      case 8:
      case 9: {
        std::string out = pad + "try:\n" + Block(indent + 1, depth + 1, in_loop, true);
        for (int h = 0, n = 1 + Pick(2); h < n; ++h) {
          std::string cls = "B" + std::to_string(Pick(kHandlers));
          // The handler's label is its class's: `except B3 as m` binds H3.
          out += pad + "except " + cls + (Pick(2) == 0 ? " as m" : "") + ":\n" +
                 Block(indent + 1, depth + 1, in_loop, in_try);
        }
        if (Pick(3) == 0) out += pad + "else:\n" + Block(indent + 1, depth + 1, in_loop, in_try);
        if (Pick(3) == 0) {
          out += pad + "finally:\n" + Block(indent + 1, depth + 1, in_loop, in_try);
        }
        return out;
      }
      case 10:
        return pad + "with W('" + Label('W') + "') as m:\n" +
               Block(indent + 1, depth + 1, in_loop, in_try);
      case 11:
        return pad + "with W('x'):\n" + Block(indent + 1, depth + 1, in_loop, in_try);
      case 12:
        return pad + "match next(c):\n" + Pad(indent + 1) + "case True:\n" +
               Block(indent + 2, depth + 1, in_loop, in_try) + Pad(indent + 1) + "case _:\n" +
               Block(indent + 2, depth + 1, in_loop, in_try);
      case 14:  // `:=` in an if's condition, always run or only on some paths
        return pad +
               (Pick(2) == 0 ? "if (m := '" + Label('D') + "') and next(c):\n"
                             : "if next(c) and (m := '" + Label('D') + "'):\n") +
               Block(indent + 1, depth + 1, in_loop, in_try) +
               (Pick(2) == 0 ? pad + "elif next(c) or (m := '" + Label('D') + "'):\n" +
                                   Block(indent + 1, depth + 1, in_loop, in_try)
                             : "");
      case 15:  // ... in a while's, run before every pass
        return pad + "while (m := '" + Label('D') + "') and next(c):\n" +
               Block(indent + 1, depth + 1, true, in_try);
      case 16:  // ... in an expression statement
        return pad + (Pick(2) == 0 ? "x = next(c) or (m := '" + Label('D') + "')\n"
                                   : "x = (m := '" + Label('D') + "') if next(c) else 0\n");
      case 17:
        return pad + "x = [m := '" + Label('D') + "' for _ in range(next(c))]\n";
      default:
        return pad + "x = 1\n";
    }
  }

 public:
  static constexpr int kHandlers = 4;
};

const char* const kHarness = R"(
import json, random

class Target(Exception):
    pass

class W:
    def __init__(self, v):
        self.v = v
    def __enter__(self):
        return self.v
    def __exit__(self, *exc):
        return False

class B0(Exception): pass
class B1(Exception): pass
class B2(Exception): pass
class B3(Exception): pass

def label(v):
    if isinstance(v, BaseException):
        return 'H' + type(v).__name__[1:]
    return v.rsplit('|', 1)[-1]

out = []
for f in FUNCTIONS:
    seen = set()
    for seed in range(RUNS):
        r = random.Random(seed)
        c = iter(lambda: r.random() < 0.5, None)
        try:
            f(c)
        except Target as t:
            seen.add(label(t.args[0]))
        except Exception:
            pass
    out.append(sorted(seen))
print(json.dumps(out))
)";

// The label a definition stands for, read from its statement: the quoted
// word of `m = 'D1'`, `m += '|A2'`, `for m in ('L3', ...)`, `with W('W4')`;
// H and the class's number for `except B3 as m`.
std::string LabelOf(const flow::Def& d, std::string_view src) {
  std::string_view text = NodeText(d.stmt, src);
  if (d.type == flow::Def::Type::kCaught) {
    size_t b = text.find('B');
    return b == std::string_view::npos ? "?" : "H" + std::string(text.substr(b + 1, 1));
  }
  size_t open = text.find('\'');
  if (open == std::string_view::npos) return "?";
  size_t close = text.find('\'', open + 1);
  std::string_view word = text.substr(open + 1, close - open - 1);
  if (!word.empty() && word[0] == '|') word.remove_prefix(1);
  return std::string(word);
}

TSNode FindTarget(TSNode n, std::string_view src) {
  if (ts_node_is_null(n)) return n;
  std::string_view text = NodeText(n, src);
  if (std::string_view(ts_node_type(n)) == "raise_statement" &&
      text.substr(0, 12) == "raise Target") {
    return n;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
    TSNode found = FindTarget(ts_node_named_child(n, i), src);
    if (!ts_node_is_null(found)) return found;
  }
  return TSNode{};
}

TEST(DataflowProperty, EveryDefinitionCPythonSeesAtTheRaiseIsListed) {
  Generator gen(20261204);
  std::string code = "RUNS = " + std::to_string(kRuns) + "\n";
  std::string functions = "FUNCTIONS = [";
  for (int i = 0; i < kPrograms; ++i) {
    std::string name = "f" + std::to_string(i);
    code += gen.Function(name) + "\n";
    functions += name + ", ";
  }
  code += functions + "]\n";
  nlohmann::json seen = testing::RunPythonForJson(code + kHarness);
  ASSERT_TRUE(seen.is_array());
  ASSERT_EQ(seen.size(), static_cast<size_t>(kPrograms));

  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, python::PythonLanguage());
  TSTree* tree =
      ts_parser_parse_string(parser, nullptr, code.data(), static_cast<uint32_t>(code.size()));
  TSNode root = ts_tree_root_node(tree);
  ASSERT_FALSE(ts_node_has_error(root));

  int function = 0;
  FlowScore score;
  for (uint32_t i = 0; i < ts_node_named_child_count(root) && function < kPrograms; ++i) {
    TSNode def = ts_node_named_child(root, i);
    if (std::string_view(ts_node_type(def)) != "function_definition") continue;
    const nlohmann::json& observed = seen[static_cast<size_t>(function)];
    ++function;
    TSNode body = ts_node_child_by_field_name(def, "body", 4);
    TSNode target = FindTarget(body, code);
    ASSERT_FALSE(ts_node_is_null(target));
    flow::FlowBody lowered = python::LowerFlow(code, body);
    bool from_entry = false;
    bool truncated = false;
    flow::DefList defs =
        flow::ReachingDefinitions(lowered, "m", target, nullptr, &from_entry, &truncated);
    std::set<std::string> listed;
    for (const flow::DefPtr& d : defs) listed.insert(LabelOf(*d, code));
    if (from_entry) listed.insert("P");
    score.Add(truncated, listed, observed, NodeText(def, code));
  }
  EXPECT_EQ(function, kPrograms);
  score.Check(kPrograms, 80);
  ts_tree_delete(tree);
  ts_parser_delete(parser);
}

}  // namespace
}  // namespace errdex::extract
