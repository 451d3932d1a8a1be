// The shared data flow through the C/C++ adapter, against what g++'s
// program does. Random functions assign and append to one std::string
// (`m = "D1";`, `m += "|A2";`) under if/else, while, do and for loops with
// break and continue (and conditions and updates that assign), switches
// whose cases fall through, gotos to a label before the end, try/catch,
// arms of `?:`, blocks that declare an `m` of their own and early returns,
// every condition drawn from a stream of random bits; `throw Target(m)`
// sits somewhere among them.
// The compiled program runs each function on 160 streams and prints which
// definition `m` held at the throw. A definition the program saw that the
// flow does not list is never allowed; one it lists that no run saw is
// counted.
#include <gtest/gtest.h>

#include <tree_sitter/api.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "extract/cpp/cpp_flow.h"
#include "extract/cpp/cpp_syntax.h"
#include "extract/flow/dataflow.h"
#include "extract/ts_util.h"
#include "flow_property.h"
#include "test_util.h"

namespace errdex::extract {
namespace {

constexpr int kPrograms = 400;
constexpr int kRuns = 160;

class Generator : public FlowProgram {
 public:
  explicit Generator(uint32_t seed) : FlowProgram(seed, 2) {}

  std::string Function(const std::string& name) {
    target_placed_ = false;
    uses_goto_ = Pick(3) == 0;
    std::string body = "  std::string m = \"" + Label('D') + "\";\n" + Block(1, 0, false, false);
    if (uses_goto_) {
      body += "  return;\nfail:\n  throw Target(m);\n";
    } else if (!target_placed_) {
      body += "  throw Target(m);\n";
    }
    return "static void " + name + "(Bits& c) {\n" + body + "}\n";
  }

 private:
  // `{ ... }` at `indent`, its statements one deeper.
  std::string Braced(int indent, int depth, bool in_loop, bool in_switch) {
    return "{\n" + Block(indent + 1, depth + 1, in_loop, in_switch) + Pad(indent) + "}";
  }

  std::string Statement(int indent, int depth, bool in_loop, bool in_switch) override {
    std::string pad = Pad(indent);
    if (!uses_goto_ && PlaceTarget()) return pad + "throw Target(m);\n";
    switch (Pick(depth >= 3 ? 4 : 19)) {
      case 0:
      case 1:
        return pad + "m = \"" + Label('D') + "\";\n";
      case 2:
        return pad + "m += \"|" + Label('A') + "\";\n";
      case 3: {
        std::string exit = "return;";
        if ((in_loop || in_switch) && Pick(2) == 0) exit = "break;";
        if (in_loop && Pick(3) == 0) exit = "continue;";
        if (uses_goto_ && Pick(2) == 0) exit = "goto fail;";
        if (Pick(4) == 0) return pad + exit + "\n";
        return pad + "if (c()) " + exit + "\n";
      }
      case 4:
      case 5: {
        std::string out = pad + "if (c()) " + Braced(indent, depth, in_loop, in_switch);
        if (Pick(2) == 0) {
          out += Pick(2) == 0 ? " else " : " else /* a comment first */ ";
          out += Braced(indent, depth, in_loop, in_switch);
        }
        return out + "\n";
      }
      case 6:
        return pad + "if (c()) m = \"" + Label('D') + "\";\n" +
               (Pick(2) == 0
                    ? pad + "else /* the usual case */\n" + pad + "  m = \"" + Label('D') + "\";\n"
                    : "");
      case 7:
        return pad + "while (c()) " + Braced(indent, depth, true, false) + "\n";
      case 8:
        return pad + "for (int i = 0; i < 2; ++i) " + Braced(indent, depth, true, false) + "\n";
      case 9:
        return pad + "do " + Braced(indent, depth, true, false) + " while (c());\n";
      case 10: {
        std::string out = pad + "switch (c() + c()) {\n";
        for (int k = 0; k < 2; ++k) {
          out += pad + "  case " + std::to_string(k) + ":\n" +
                 Block(indent + 2, depth + 1, in_loop, true);
          if (Pick(2) == 0) out += pad + "    break;\n";
        }
        if (Pick(2) == 0) out += pad + "  default:\n" + Block(indent + 2, depth + 1, in_loop, true);
        return out + pad + "}\n";
      }
      case 11:
        return pad + "try " + Braced(indent, depth, in_loop, in_switch) + " catch (const Boom&) " +
               Braced(indent, depth, in_loop, in_switch) + "\n";
      case 12:
        return pad + "if (c()) throw Boom();\n";
      case 13:  // a bare block
        return pad + Braced(indent, depth, in_loop, in_switch) + "\n";
      case 14:  // assignments in the arms of ?:, or on the right of && and ||
        if (Pick(3) == 0) {
          return pad + (Pick(2) == 0 ? "c() && " : "c() || ") + "!(m += \"|" + Label('A') +
                 "\").empty();\n";
        }
        return pad + "c() ? (m = \"" + Label('D') + "\") : " +
               (Pick(2) == 0 ? "(m += \"|" + Label('A') + "\")" : "m") + ";\n";
      case 15:  // a block whose own m hides the function's until it ends
        return pad + "{\n" + Pad(indent + 1) + "std::string m = \"" + Label('D') + "\";\n" +
               Block(indent + 1, depth + 1, in_loop, in_switch) + pad + "}\n";
      case 16:  // a condition that assigns, run before every pass
        return pad + "while (!(m = \"" + Label('D') + "\").empty() && c()) " +
               Braced(indent, depth, true, false) + "\n";
      case 17:  // an update that appends, run after every pass and continue
        return pad + "for (int i = 0; i < 2; ++i, m += \"|" + Label('A') + "\") " +
               Braced(indent, depth, true, false) + "\n";
      case 18:
        return pad + "do " + Braced(indent, depth, true, false) + " while (!(m = \"" +
               Label('D') + "\").empty() && c());\n";
      default:
        return pad + "(void)0;\n";
    }
  }

  bool uses_goto_ = false;
};

const char* const kHarness = R"(
#include <cstdio>
#include <random>
#include <set>
#include <string>

struct Bits {
  std::mt19937 rng;
  int operator()() { return static_cast<int>(rng() & 1); }
};
struct Target {
  std::string value;
  explicit Target(std::string v) : value(std::move(v)) {}
};
struct Boom {};
)";

std::string LabelOf(const flow::Def& d, std::string_view src) {
  std::string_view text = NodeText(d.value, src);
  size_t open = text.find('"');
  if (open == std::string_view::npos) return "?";
  size_t close = text.find('"', open + 1);
  std::string_view word = text.substr(open + 1, close - open - 1);
  if (!word.empty() && word[0] == '|') word.remove_prefix(1);
  return std::string(word);
}

// The `m` of the function's `throw Target(m)`.
TSNode FindUse(TSNode n, std::string_view src) {
  TSNode found{};
  std::vector<TSNode> stack{n};
  while (!stack.empty()) {
    TSNode x = stack.back();
    stack.pop_back();
    if (std::string_view(ts_node_type(x)) == "identifier" && NodeText(x, src) == "m") {
      TSNode p = ts_node_parent(ts_node_parent(x));  // argument_list, call/throw
      if (!ts_node_is_null(p) && NodeText(p, src).find("Target(m)") != std::string_view::npos) {
        found = x;
      }
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(x); ++i) {
      stack.push_back(ts_node_named_child(x, i));
    }
  }
  return found;
}

TEST(DataflowCppProperty, EveryDefinitionTheProgramSeesAtTheThrowIsListed) {
  if (testing::RunCommand("command -v g++").exit_code != 0) GTEST_SKIP() << "no g++";
  Generator gen(20261204);
  std::string functions;
  std::string calls;
  for (int i = 0; i < kPrograms; ++i) {
    std::string name = "f" + std::to_string(i);
    functions += gen.Function(name);
    calls += "  run(" + name + ");\n";
  }
  std::string main = R"(
static void run(void (*f)(Bits&)) {
  std::set<std::string> seen;
  for (unsigned seed = 0; seed < )" +
                     std::to_string(kRuns) +
                     R"(; ++seed) {
    Bits c{std::mt19937(seed)};
    try {
      f(c);
    } catch (const Target& t) {
      size_t bar = t.value.rfind('|');
      seen.insert(bar == std::string::npos ? t.value : t.value.substr(bar + 1));
    } catch (const Boom&) {
    }
  }
  std::printf("[");
  const char* sep = "";
  for (const std::string& s : seen) {
    std::printf("%s\"%s\"", sep, s.c_str());
    sep = ",";
  }
  std::printf("],");
}
int main() {
  std::printf("[");
)" + calls + R"(  std::printf("[]]\n");
}
)";
  std::string code = std::string(kHarness) + functions + main;
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("errdex_dataflow_cpp_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::path source = dir / "flow.cc";
  std::filesystem::path binary = dir / "flow";
  {
    FILE* f = std::fopen(source.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fwrite(code.data(), 1, code.size(), f);
    std::fclose(f);
  }
  testing::CommandResult built =
      testing::RunCommand("g++ -std=c++17 -O0 -w -o " + binary.string() + " " + source.string());
  ASSERT_EQ(built.exit_code, 0) << built.out << built.err;
  testing::CommandResult ran = testing::RunCommand(binary.string());
  ASSERT_EQ(ran.exit_code, 0);
  nlohmann::json seen = nlohmann::json::parse(ran.out, nullptr, false);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(seen.is_array());
  ASSERT_EQ(seen.size(), static_cast<size_t>(kPrograms + 1));

  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, cpp::CppLanguage());
  TSTree* tree =
      ts_parser_parse_string(parser, nullptr, code.data(), static_cast<uint32_t>(code.size()));
  TSNode root = ts_tree_root_node(tree);
  ASSERT_FALSE(ts_node_has_error(root));
  const SymbolTable& symbols = cpp::Symbols(false);

  int function = 0;
  FlowScore score;
  for (uint32_t i = 0; i < ts_node_named_child_count(root) && function < kPrograms; ++i) {
    TSNode def = ts_node_named_child(root, i);
    if (std::string_view(ts_node_type(def)) != "function_definition") continue;
    if (NodeText(def, code).find("(Bits& c)") == std::string_view::npos) continue;
    const nlohmann::json& observed = seen[static_cast<size_t>(function)];
    ++function;
    TSNode body = ts_node_child_by_field_name(def, "body", 4);
    TSNode use = FindUse(body, code);
    ASSERT_FALSE(ts_node_is_null(use)) << NodeText(def, code);
    flow::FlowBody lowered = cpp::LowerFlow(code, symbols, body);
    bool truncated = false;
    flow::DefList defs = flow::ReachingDefinitions(lowered, "m", use, nullptr, nullptr, &truncated);
    std::set<std::string> listed;
    for (const flow::DefPtr& d : defs) listed.insert(LabelOf(*d, code));
    score.Add(truncated, listed, observed, NodeText(def, code));
  }
  EXPECT_EQ(function, kPrograms);
  score.Check(kPrograms, 70);
  ts_tree_delete(tree);
  ts_parser_delete(parser);
}

}  // namespace
}  // namespace errdex::extract
