// The shared data flow over any source file, through each adapter: the
// first byte picks Python, C, C++ or ('r') Rust; the rest is parsed, the module (or
// translation unit) and every function body are lowered, and every name
// used in them is looked up where it is used and at the end of its body.
// Nothing may crash or hang, and what the walk promises must hold: at most
// kMaxDefinitions definitions, each inside the body it was sought in, the
// same answer when asked twice.
#include <tree_sitter/api.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "extract/cpp/cpp_flow.h"
#include "extract/cpp/cpp_syntax.h"
#include "extract/flow/dataflow.h"
#include "extract/python/py_extractor.h"
#include "extract/python/py_flow.h"
#include "extract/rust/rust_flow.h"
#include "extract/rust/rust_syntax.h"
#include "extract/ts_util.h"
#include "fuzz_limits.h"

namespace {

namespace flow = errdex::extract::flow;

constexpr size_t kMaxBodies = 200;
constexpr size_t kMaxUses = 2000;

struct Body {
  TSNode node;
  flow::FlowBody lowered;
};

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckDefs(const flow::DefList& defs, TSNode body) {
  Check(defs.size() <= flow::kMaxDefinitions);
  for (const flow::DefPtr& d : defs) {
    Check(d != nullptr);
    if (ts_node_is_null(d->stmt)) continue;
    Check(errdex::extract::Contains(body, d->stmt));
  }
}

bool SameDefs(const flow::DefList& a, const flow::DefList& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i]->type != b[i]->type || !ts_node_eq(a[i]->stmt, b[i]->stmt)) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  int grammar = data[0] == 'r' ? 3 : data[0] % 3;
  std::string source(reinterpret_cast<const char*>(data) + 1, size - 1);
  const TSLanguage* language = grammar == 0   ? errdex::extract::python::PythonLanguage()
                               : grammar == 1 ? errdex::extract::cpp::CLanguage()
                               : grammar == 2 ? errdex::extract::cpp::CppLanguage()
                                              : errdex::extract::rust::RustLanguage();
  std::unique_ptr<TSParser, decltype(&ts_parser_delete)> parser(ts_parser_new(), ts_parser_delete);
  ts_parser_set_language(parser.get(), language);
  ts_parser_set_timeout_micros(parser.get(), errdex::fuzz::kParseMicros);
  std::unique_ptr<TSTree, decltype(&ts_tree_delete)> tree(
      ts_parser_parse_string(parser.get(), nullptr, source.data(),
                             static_cast<uint32_t>(source.size())),
      ts_tree_delete);
  if (!tree) return 0;
  TSNode root = ts_tree_root_node(tree.get());
  const errdex::extract::SymbolTable& symbols = errdex::extract::cpp::Symbols(grammar == 1);
  auto lower = [&](TSNode body) {
    if (grammar == 3) return errdex::extract::rust::LowerFlow(source, body);
    return grammar == 0 ? errdex::extract::python::LowerFlow(source, body)
                        : errdex::extract::cpp::LowerFlow(source, symbols, body);
  };

  std::vector<Body> bodies;
  bodies.push_back({root, lower(root)});
  std::vector<TSNode> uses;
  std::vector<TSNode> stack{root};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    std::string_view type = ts_node_type(n);
    // Functions, and Rust's closures (bodies of their own).
    if ((type == "function_definition" || type == "function_item" ||
         type == "closure_expression") &&
        bodies.size() < kMaxBodies) {
      TSNode body = ts_node_child_by_field_name(n, "body", 4);
      if (!ts_node_is_null(body)) bodies.push_back({body, lower(body)});
    }
    if (type == "identifier" && uses.size() < kMaxUses) uses.push_back(n);
    for (uint32_t i = ts_node_named_child_count(n); i-- > 0;) {
      stack.push_back(ts_node_named_child(n, i));
    }
  }
  int64_t budget = 200'000;
  for (TSNode use : uses) {
    // The innermost body holding the use: the last one found that does.
    const Body* in = &bodies.front();
    for (const Body& b : bodies) {
      if (errdex::extract::Contains(b.node, use)) in = &b;
    }
    std::string_view name = errdex::extract::NodeText(use, source);
    int64_t before = budget;
    flow::DefList at = flow::ReachingDefinitions(in->lowered, name, use, &budget);
    if (budget < 0) break;
    CheckDefs(at, in->node);
    int64_t again_budget = before;
    flow::DefList again = flow::ReachingDefinitions(in->lowered, name, use, &again_budget);
    Check(again_budget == budget && SameDefs(at, again));
    CheckDefs(flow::ReachingDefinitions(in->lowered, name, TSNode{}, &budget), in->node);
    if (budget < 0) break;
  }
  return 0;
}
