// Feeds arbitrary bytes as a client's request stream to the server's
// request path (web::ServeBytes: the parser with the server's limits, the
// header checks, routing, the site's pages and JSON API, /api/match's JSON
// bodies) over a catalog of the Python idioms fixture: no crash, no hang,
// bounded memory.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "analyze/analyze.h"
#include "catalog/catalog.h"
#include "extract/extractor.h"
#include "match/matcher.h"
#include "web/http.h"

namespace {

std::unique_ptr<errdex::web::Handler> handler;
errdex::web::ServeOptions options;

void Setup() {
  options.db = std::filesystem::temp_directory_path() /
               ("errdex-http-fuzz-" + std::to_string(getpid()) + ".db");
  // Small limits: the fuzzer reaches them with short inputs.
  options.max_body = 4096;
  options.max_header = 2048;
  errdex::source::WalkOptions walk;
  walk.want = errdex::extract::IsSourcePath;
  auto files = errdex::source::Walk(ERRDEX_FIXTURES, walk);
  if (!files) std::abort();
  errdex::Extraction x = errdex::extract::ExtractFiles(files->files, {});
  {
    auto cat = errdex::catalog::Catalog::Open(options.db, errdex::catalog::OpenMode::kReadWrite);
    if (!cat) std::abort();
    errdex::catalog::SnapshotInfo info;
    info.library = "fuzz/idioms";
    info.kind = "dir";
    errdex::match::PrefilterBuilder prefilter;
    if (!cat->WriteSnapshot(info, x, &prefilter)) std::abort();
    // The pages show the analysis, as after `errdex index`.
    if (!errdex::analyze::AnalyzeCatalog(*cat, info.library)) std::abort();
  }
  auto h = errdex::web::Handler::Create(options, 1);
  if (!h) std::abort();
  handler = std::move(*h);
  // The catalog file stays while the process runs (the handler watches it).
  std::atexit([] { std::filesystem::remove(options.db); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!handler) Setup();
  std::string_view input(reinterpret_cast<const char*>(data), size);
  (void)errdex::web::ServeBytes(*handler, options, input);
  return 0;
}
