// Every input the fuzzers ever found troublesome (fuzz/regressions), run
// through the extractors in the ordinary build: each must finish, quickly.
#include <gtest/gtest.h>

#include <tree_sitter/api.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "extract/cpp/cpp_flow.h"
#include "extract/cpp/cpp_syntax.h"
#include "extract/extractor.h"
#include "extract/flow/dataflow.h"
#include "extract/python/py_extractor.h"
#include "extract/python/py_flow.h"
#include "extract/rust/rust_flow.h"
#include "extract/rust/rust_syntax.h"

namespace errdex::extract {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path Regressions(const char* kind) {
  return fs::path(ERRDEX_SOURCE_DIR) / "fuzz" / "regressions" / kind;
}

template <typename Extract>
void RunAll(const char* kind, Extract extract) {
  int count = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(Regressions(kind))) {
    auto start = std::chrono::steady_clock::now();
    Extraction x = extract(Read(e.path()));
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Far above the real cost (well under a second), far below a hang.
    EXPECT_LT(seconds, 30.0) << e.path();
    for (const Site& s : x.sites) EXPECT_FALSE(s.path.empty()) << e.path();
    ++count;
  }
  EXPECT_GT(count, 0) << "no regression inputs under " << Regressions(kind);
}

TEST(FuzzRegressions, Python) {
  RunAll("python", [](const std::string& text) { return ExtractPythonSource("fuzz.py", text); });
}

TEST(FuzzRegressions, Rust) {
  RunAll("rust", [](const std::string& text) { return ExtractRustSource("fuzz.rs", text); });
}

TEST(FuzzRegressions, Cpp) {
  // As the fuzz target reads them: the first byte picks the file name.
  RunAll("cpp", [](const std::string& text) {
    static constexpr const char* kPaths[] = {"fuzz.c", "fuzz.cc", "fuzz.h", "fuzz.cu"};
    if (text.empty()) return ExtractCppSource("fuzz.cc", text);
    return ExtractCppSource(kPaths[static_cast<unsigned char>(text[0]) % 4], text.substr(1));
  });
}

TEST(FuzzRegressions, Cython) {
  // As the fuzz target reads them: the first byte picks the file name.
  RunAll("cython", [](const std::string& text) {
    static constexpr const char* kPaths[] = {"fuzz.pyx", "fuzz.pxd", "fuzz.pxi", "fuzz.pyx.in"};
    if (text.empty()) return ExtractPythonSource("fuzz.pyx", text);
    return ExtractPythonSource(kPaths[static_cast<unsigned char>(text[0]) % 4], text.substr(1));
  });
}

TEST(FuzzRegressions, Dataflow) {
  // As the fuzz target reads them: the first byte picks the grammar ('r'
  // Rust, else Python, C or C++ by its value mod 3); every function body
  // is lowered and every name used in it looked up where it is used.
  int count = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(Regressions("dataflow"))) {
    std::string text = Read(e.path());
    if (text.empty()) continue;
    int grammar = text[0] == 'r' ? 3 : static_cast<unsigned char>(text[0]) % 3;
    std::string source = text.substr(1);
    const TSLanguage* language = grammar == 0   ? python::PythonLanguage()
                                 : grammar == 1 ? cpp::CLanguage()
                                 : grammar == 2 ? cpp::CppLanguage()
                                                : rust::RustLanguage();
    TSParser* parser = ts_parser_new();
    ts_parser_set_language(parser, language);
    TSTree* tree = ts_parser_parse_string(parser, nullptr, source.data(),
                                          static_cast<uint32_t>(source.size()));
    ASSERT_NE(tree, nullptr) << e.path();
    auto lower = [&](TSNode body) {
      if (grammar == 3) return rust::LowerFlow(source, body);
      if (grammar == 0) return python::LowerFlow(source, body);
      return cpp::LowerFlow(source, cpp::Symbols(grammar == 1), body);
    };
    std::vector<TSNode> stack{ts_tree_root_node(tree)};
    int64_t budget = 1'000'000;
    while (!stack.empty()) {
      TSNode n = stack.back();
      stack.pop_back();
      std::string_view type = ts_node_type(n);
      TSNode body = ts_node_child_by_field_name(n, "body", 4);
      if ((type == "function_definition" || type == "function_item") && !ts_node_is_null(body)) {
        flow::FlowBody lowered = lower(body);
        std::vector<TSNode> names{body};
        while (!names.empty()) {
          TSNode x = names.back();
          names.pop_back();
          if (std::string_view(ts_node_type(x)) == "identifier") {
            flow::DefList defs =
                flow::ReachingDefinitions(lowered, NodeText(x, source), x, &budget);
            EXPECT_LE(defs.size(), flow::kMaxDefinitions) << e.path();
          }
          for (uint32_t i = 0; i < ts_node_named_child_count(x); ++i) {
            names.push_back(ts_node_named_child(x, i));
          }
        }
      }
      for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
        stack.push_back(ts_node_named_child(n, i));
      }
    }
    ts_tree_delete(tree);
    ts_parser_delete(parser);
    ++count;
  }
  EXPECT_GT(count, 0) << "no regression inputs under " << Regressions("dataflow");
}

}  // namespace
}  // namespace errdex::extract
