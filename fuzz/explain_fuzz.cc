// Feeds arbitrary bytes to the runtime-text parser and the matcher (over a
// catalog of the Python idioms fixture): no crash, no hang, bounded memory.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "catalog/catalog.h"
#include "extract/extractor.h"
#include "match/matcher.h"
#include "match/parse.h"

namespace {

std::unique_ptr<errdex::catalog::Catalog> catalog;
std::unique_ptr<errdex::match::Matcher> matcher;

void Setup() {
  std::string db =
      std::filesystem::temp_directory_path() / ("errdex-fuzz-" + std::to_string(getpid()) + ".db");
  errdex::source::WalkOptions walk;
  walk.want = errdex::extract::IsSourcePath;
  auto files = errdex::source::Walk(ERRDEX_FIXTURES, walk);
  if (!files) std::abort();
  errdex::Extraction x = errdex::extract::ExtractFiles(files->files, {});
  auto cat = errdex::catalog::Catalog::Open(db, errdex::catalog::OpenMode::kReadWrite);
  if (!cat) std::abort();
  errdex::catalog::SnapshotInfo info;
  info.library = "fuzz/idioms";
  info.kind = "dir";
  errdex::match::PrefilterBuilder prefilter;
  if (!cat->WriteSnapshot(info, x, &prefilter)) std::abort();
  catalog = std::make_unique<errdex::catalog::Catalog>(std::move(*cat));
  auto m = errdex::match::Matcher::Open(catalog.get(), nullptr);
  if (!m) std::abort();
  matcher = std::make_unique<errdex::match::Matcher>(std::move(*m));
  std::filesystem::remove(db);  // the open handle keeps it readable
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!matcher) Setup();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const errdex::match::ParsedError& e : errdex::match::ParseRuntimeText(text)) {
    auto matches = matcher->Explain(e, {});
    if (!matches) std::abort();
    (void)matcher->FullMatches(e.message);
  }
  return 0;
}
