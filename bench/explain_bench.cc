// Explain latency against catalogs of 10k, 100k and 1M templates synthesised
// from real ones (the local Python standard library's): p50/p99 per message
// and messages/s on one core. The catalogs are built once into
// $ERRDEX_BENCH_DIR (default /tmp/errdex-bench) and reused; the cold start of
// the `errdex explain` process on them is measured by bench/explain_bench.sh.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "extract/extractor.h"
#include "match/matcher.h"
#include "match/parse.h"
#include "source/walk.h"

namespace {

namespace fs = std::filesystem;

std::string Stdlib() {
  FILE* pipe =
      popen("python3 -c 'import sysconfig; print(sysconfig.get_paths()[\"stdlib\"])'", "r");
  char buf[4096] = {0};
  std::string out = pipe && fgets(buf, sizeof buf, pipe) ? buf : "";
  if (pipe) pclose(pipe);
  while (!out.empty() && (out.back() == '\n')) out.pop_back();
  return out;
}

// The real templates everything is synthesised from: sites of the stdlib
// with a literal fragment.
const std::vector<errdex::Site>& RealSites() {
  static std::vector<errdex::Site> sites = [] {
    errdex::source::WalkOptions walk;
    walk.want = errdex::extract::IsSourcePath;
    walk.exclude = {"site-packages", "dist-packages", "test", "tests"};
    auto files = errdex::source::Walk(Stdlib(), walk);
    std::vector<errdex::Site> out;
    if (!files) return out;
    for (errdex::Site& s : errdex::extract::ExtractFiles(files->files, {}).sites) {
      if (s.message.LiteralSize() >= 8) out.push_back(std::move(s));
    }
    return out;
  }();
  return sites;
}

// Template i: real template i % n with a word of its own in front, so that
// every synthetic template is distinct but shaped like a real one.
errdex::Site Synthetic(size_t i) {
  const std::vector<errdex::Site>& real = RealSites();
  errdex::Site s = real[i % real.size()];
  static const char* kWords[] = {"alpha", "bravo", "delta", "gamma",  "kappa",
                                 "omega", "sigma", "theta", "lambda", "zeta"};
  std::string word = std::string(kWords[i % 10]) + std::to_string(i / 10) + " ";
  errdex::Template t = errdex::Template::Literal(word);
  t.Append(s.message);
  t.AssignNames();
  s.message = std::move(t);
  s.path = "pkg" + std::to_string(i / 1000) + "/" + s.path;
  s.excerpt.clear();
  s.statement.clear();
  return s;
}

std::string CatalogFor(size_t n) {
  const char* dir = std::getenv("ERRDEX_BENCH_DIR");
  fs::path base = dir ? dir : "/tmp/errdex-bench";
  fs::create_directories(base);
  // The catalog is named after the templates it is made of: a change in the
  // extractor (or the Python found) makes a new one, never a stale match.
  uint64_t h = 1469598103934665603ull;
  for (const errdex::Site& s : RealSites()) {
    for (char c : s.message.Display() + s.path)
      h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  char tag[17];
  std::snprintf(tag, sizeof tag, "%016llx", static_cast<unsigned long long>(h));
  fs::path db = base / ("synthetic-" + std::to_string(n) + "-" + tag + ".db");
  if (fs::exists(db)) return db.string();
  errdex::Extraction x;
  x.sites.reserve(n);
  for (size_t i = 0; i < n; ++i) x.sites.push_back(Synthetic(i));
  auto cat = errdex::catalog::Catalog::Open(db.string(), errdex::catalog::OpenMode::kReadWrite);
  if (!cat) std::abort();
  errdex::catalog::SnapshotInfo info;
  info.library = "bench/synthetic";
  info.kind = "dir";
  errdex::match::PrefilterBuilder prefilter;
  auto t0 = std::chrono::steady_clock::now();
  if (!cat->WriteSnapshot(info, x, &prefilter)) std::abort();
  std::fprintf(stderr, "built %s in %.1f s\n", db.c_str(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return db.string();
}

// Messages: 90% instantiated from the catalog's templates, 10% that match
// nothing (all of them with ERRDEX_BENCH_NO_MATCH=1, to study that path).
std::vector<std::string> Messages(size_t n) {
  std::mt19937 rng(7);
  std::vector<std::string> out;
  bool only_misses = std::getenv("ERRDEX_BENCH_NO_MATCH") != nullptr;
  for (int k = 0; k < 2000; ++k) {
    if (k % 10 == 9 || only_misses) {
      out.push_back("RuntimeError: nothing in any catalog looks like this " + std::to_string(k));
      continue;
    }
    errdex::Site s = Synthetic(rng() % n);
    std::string text = s.exception + ": ";
    for (const errdex::Piece& p : s.message.pieces()) {
      text += p.is_value ? (p.kind == errdex::ValueKind::kInt ? "42" : "'value'") : p.text;
    }
    out.push_back(text);
  }
  return out;
}

void BM_Explain(benchmark::State& state) {
  size_t n = static_cast<size_t>(state.range(0));
  if (RealSites().empty()) {
    state.SkipWithError("no python3 standard library found");
    return;
  }
  std::string db = CatalogFor(n);
  auto cat = errdex::catalog::Catalog::Open(db, errdex::catalog::OpenMode::kReadOnly);
  auto matcher = errdex::match::Matcher::Open(&*cat, nullptr);
  if (!matcher) {
    state.SkipWithError("cannot open the matcher");
    return;
  }
  std::vector<std::string> messages = Messages(n);
  std::vector<double> micros, unmatched_micros;
  size_t i = 0;
  size_t matched = 0;
  for (auto _ : state) {
    const std::string& text = messages[i++ % messages.size()];
    auto t0 = std::chrono::steady_clock::now();
    std::vector<errdex::match::ParsedError> parsed = errdex::match::ParseRuntimeText(text);
    auto result = matcher->Explain(parsed.back(), {});
    double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    micros.push_back(us);
    if (result && !result->empty()) {
      ++matched;
    } else {
      unmatched_micros.push_back(us);
    }
  }
  std::sort(micros.begin(), micros.end());
  state.counters["p50_us"] = micros[micros.size() / 2];
  state.counters["p99_us"] = micros[micros.size() * 99 / 100];
  state.counters["matched"] = static_cast<double>(matched) / static_cast<double>(micros.size());
  if (!unmatched_micros.empty()) {
    std::sort(unmatched_micros.begin(), unmatched_micros.end());
    state.counters["no_match_p50_us"] = unmatched_micros[unmatched_micros.size() / 2];
  }
  state.SetItemsProcessed(static_cast<int64_t>(micros.size()));
}
BENCHMARK(BM_Explain)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Iterations(4000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
