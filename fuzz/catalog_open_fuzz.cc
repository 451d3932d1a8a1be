// Damages a small valid catalog with the fuzz input and reads it: open,
// errdex check and every read call must fail cleanly or answer; never
// crash, hang or leak. The catalog (the Python idioms fixture, indexed and
// analysed) is built once, in memory as bytes; each input is a list of
// 4-byte edits (3 bytes of offset, 1 byte XORed in there), and a first byte
// with its top bit set also cuts the file short.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "analyze/analyze.h"
#include "catalog/catalog.h"
#include "extract/extractor.h"
#include "match/matcher.h"
#include "match/parse.h"

namespace {

namespace fs = std::filesystem;
using errdex::catalog::Catalog;
using errdex::catalog::OpenMode;

std::string* good = nullptr;
std::string path;

std::string ReadBytes(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void Remove() {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix);
}

void Setup() {
  path = (fs::temp_directory_path() / ("errdex-catalog-fuzz-" + std::to_string(getpid()) + ".db"))
             .string();
  Remove();
  errdex::source::WalkOptions walk;
  walk.want = errdex::extract::IsSourcePath;
  auto files = errdex::source::Walk(ERRDEX_FIXTURES, walk);
  if (!files) std::abort();
  errdex::Extraction x = errdex::extract::ExtractFiles(files->files, {});
  {
    auto cat = Catalog::Open(path, OpenMode::kReadWrite);
    if (!cat) std::abort();
    errdex::catalog::SnapshotInfo info;
    info.library = "fuzz/idioms";
    info.kind = "dir";
    errdex::match::PrefilterBuilder prefilter;
    if (!cat->WriteSnapshot(info, x, &prefilter)) std::abort();
    if (!errdex::analyze::AnalyzeCatalog(*cat, "")) std::abort();
  }  // closing folds the WAL into the file
  good = new std::string(ReadBytes(path));
  Remove();
}

void ReadEverything(Catalog& cat) {
  (void)cat.Check();
  (void)cat.GetStats();
  (void)cat.Families(3);
  (void)cat.ListFamily("invalid-value", 5);
  (void)cat.Search("invalid", 5);
  (void)cat.ExceptionBases();
  auto all = cat.List({});
  if (all) {
    int shown = 0;
    for (const auto& e : *all) {
      if (shown++ == 3) break;
      (void)cat.Get(e.id);
    }
  }
  auto matcher = errdex::match::Matcher::Open(&cat, nullptr);
  if (!matcher) return;
  for (const auto& e : errdex::match::ParseRuntimeText("ValueError: Invalid TMEMLayout: x")) {
    (void)matcher->Explain(e, {});
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (good == nullptr) Setup();
  std::string bytes = *good;
  for (size_t i = 0; i + 4 <= size; i += 4) {
    size_t offset = (static_cast<size_t>(data[i]) << 16 | static_cast<size_t>(data[i + 1]) << 8 |
                     data[i + 2]) %
                    bytes.size();
    bytes[offset] = static_cast<char>(bytes[offset] ^ data[i + 3]);
  }
  if (size > 0 && (data[0] & 0x80) != 0 && size >= 8) {
    bytes.resize((static_cast<size_t>(data[4]) << 8 | data[5]) * 64 % bytes.size());
  }
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  {
    auto cat = Catalog::Open(path, OpenMode::kReadOnly);
    if (cat) ReadEverything(*cat);
  }
  Remove();
  return 0;
}
