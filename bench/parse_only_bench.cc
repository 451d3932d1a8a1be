// Baseline for the index benchmark: tree-sitter alone parsing every source
// file of a corpus errdex reads (.py with the Python grammar, .c with C's,
// .rs with Rust's, other C/C++ files with C++'s) on one core, files already in memory. errdex's index of the
// same tree (reading, parsing, extracting, linking, writing SQLite, on all
// cores) is reported as a ratio to this in bench/README.md.
//
//   ERRDEX_BENCH_CORPUS=/path/to/tree [ERRDEX_BENCH_EXCLUDE=glob,glob]
//   parse_only_bench [--benchmark_* flags]
#include <benchmark/benchmark.h>
#include <tree_sitter/api.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "extract/extractor.h"
#include "extract/python/cy_prepass.h"
#include "source/walk.h"

extern "C" const TSLanguage* tree_sitter_python(void);
extern "C" const TSLanguage* tree_sitter_c(void);
extern "C" const TSLanguage* tree_sitter_cpp(void);
extern "C" const TSLanguage* tree_sitter_rust(void);

namespace {

struct File {
  const TSLanguage* language;
  std::string text;
};

const TSLanguage* LanguageOf(const std::string& path) {
  if (path.size() >= 3 && path.compare(path.size() - 3, 3, ".py") == 0) return tree_sitter_python();
  // Cython is parsed with the Python grammar (after errdex's pre-pass).
  if (errdex::extract::python::IsCythonPath(path)) return tree_sitter_python();
  if (path.size() >= 2 && path.compare(path.size() - 2, 2, ".c") == 0) return tree_sitter_c();
  if (path.size() >= 3 && path.compare(path.size() - 3, 3, ".rs") == 0) return tree_sitter_rust();
  return tree_sitter_cpp();
}

std::vector<File>& Corpus() {
  static std::vector<File> files = [] {
    std::vector<File> out;
    const char* root = std::getenv("ERRDEX_BENCH_CORPUS");
    if (root == nullptr) return out;
    errdex::source::WalkOptions options;
    options.want = errdex::extract::IsSourcePath;
    // The same files `errdex index --exclude ...` reads.
    if (const char* exclude = std::getenv("ERRDEX_BENCH_EXCLUDE")) {
      std::string list = exclude;
      for (size_t b = 0, e; b <= list.size(); b = e + 1) {
        e = list.find(',', b);
        if (e == std::string::npos) e = list.size();
        if (e > b) options.exclude.push_back(list.substr(b, e - b));
      }
    }
    auto walked = errdex::source::Walk(root, options);
    if (!walked) return out;
    for (const auto& f : walked->files) {
      auto text = errdex::source::ReadFile(f.absolute, options.max_file_size);
      if (text) out.push_back(File{LanguageOf(f.path), std::move(*text)});
    }
    return out;
  }();
  return files;
}

void BM_TreeSitterParseOnly(benchmark::State& state) {
  const std::vector<File>& files = Corpus();
  if (files.empty()) {
    state.SkipWithError("set ERRDEX_BENCH_CORPUS to a directory with source files");
    return;
  }
  int64_t bytes = 0;
  for (const File& f : files) bytes += static_cast<int64_t>(f.text.size());
  TSParser* parser = ts_parser_new();
  for (auto _ : state) {
    for (const File& f : files) {
      ts_parser_set_language(parser, f.language);
      TSTree* tree = ts_parser_parse_string(parser, nullptr, f.text.data(),
                                            static_cast<uint32_t>(f.text.size()));
      benchmark::DoNotOptimize(tree);
      ts_tree_delete(tree);
    }
  }
  ts_parser_delete(parser);
  state.SetBytesProcessed(state.iterations() * bytes);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(files.size()));
  state.counters["files"] = static_cast<double>(files.size());
}
BENCHMARK(BM_TreeSitterParseOnly)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
