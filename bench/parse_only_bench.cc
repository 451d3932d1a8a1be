// Baseline for the index benchmark: tree-sitter alone parsing every .py file
// of a corpus on one core, files already in memory. errdex's index of the
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
#include "source/walk.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace {

std::vector<std::string>& Corpus() {
  static std::vector<std::string> files = [] {
    std::vector<std::string> out;
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
      if (text) out.push_back(std::move(*text));
    }
    return out;
  }();
  return files;
}

void BM_TreeSitterParseOnly(benchmark::State& state) {
  const std::vector<std::string>& files = Corpus();
  if (files.empty()) {
    state.SkipWithError("set ERRDEX_BENCH_CORPUS to a directory with .py files");
    return;
  }
  int64_t bytes = 0;
  for (const std::string& f : files) bytes += static_cast<int64_t>(f.size());
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());
  for (auto _ : state) {
    for (const std::string& f : files) {
      TSTree* tree =
          ts_parser_parse_string(parser, nullptr, f.data(), static_cast<uint32_t>(f.size()));
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
