// Content hashes and errdex check: a sound catalog passes; damage to a
// row, a file cut short or a file that is no catalog fails clearly, and
// reads refuse to answer from what they cannot trust.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "catalog/catalog.h"
#include "core/error_id.h"
#include "test_util.h"

namespace errdex::catalog {
namespace {

using errdex::testing::TempDir;
namespace fs = std::filesystem;

Site MakeSite(const std::string& path, int line, const std::string& exception,
              const std::string& message) {
  Site s;
  s.exception = exception;
  s.exception_written = exception;
  s.kind = SiteKind::kRaise;
  s.message = Template::Literal(message);
  s.language = "python";
  s.path = path;
  s.line = line;
  s.column = 5;
  s.end_line = line;
  s.function = "f";
  s.statement = "raise " + exception + "('" + message + "')";
  s.excerpt_line = line;
  s.excerpt = "# excerpt of " + path + " " + std::to_string(line) + "\n" + s.statement + "\n";
  return s;
}

SnapshotInfo Info() {
  SnapshotInfo i;
  i.library = "o/lib";
  i.rev = "v1";
  i.kind = "dir";
  return i;
}

// A small catalog, closed (its WAL folded into the file), with an analysis
// and an enrichment.
std::string MakeCatalog(const TempDir& dir) {
  std::string path = (dir.path() / "c.db").string();
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
  EXPECT_TRUE(cat.has_value());
  Extraction x;
  x.sites.push_back(MakeSite("a.py", 10, "ValueError", "Zebra unicorn template"));
  x.sites.push_back(MakeSite("a.py", 20, "ValueError", "Zebra unicorn template"));
  x.sites.push_back(MakeSite("b.py", 5, "KeyError", "Another quite different message"));
  x.non_sites.push_back(NonSite{"a.py", 30, "reraise"});
  x.issues.push_back(FileIssue{"c.py", "not-utf8", "bad byte", true});
  x.classes.push_back(ExceptionClass{"MyError", {"ValueError"}, "a.py", 1});
  x.files_scanned = 3;
  EXPECT_TRUE(cat->WriteSnapshot(Info(), x).has_value());
  Analysis a;
  a.family.slug = "invalid-value";
  FamilyInfo f;
  f.slug = "invalid-value";
  f.name = "Invalid value";
  f.description = "d";
  std::vector<ErrorRecord> all = *cat->List({});
  std::vector<std::pair<int64_t, Analysis>> analyses;
  for (const ErrorRecord& e : all) analyses.emplace_back(e.pk, a);
  EXPECT_TRUE(cat->WriteAnalyses(analyses, {f}).has_value());
  Enrichment en;
  en.model = "m";
  en.created_at = "2026-12-01T00:00:00Z";
  en.meaning = "It means something.";
  EXPECT_TRUE(cat->WriteEnrichment(all.front().id, en).has_value());
  return path;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Flips one byte of the first occurrence of `text` in the file.
void FlipByteIn(const std::string& path, const std::string& text) {
  std::string bytes = ReadBytes(path);
  size_t at = bytes.find(text);
  ASSERT_NE(at, std::string::npos) << text;
  bytes[at + text.size() / 2] ^= 0x01;
  WriteBytes(path, bytes);
}

void Exec(const std::string& path, const std::string& sql) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
  sqlite3_close(raw);
}

std::string ZebraId() { return ErrorId("o/lib", "ValueError", "Zebra unicorn template"); }

TEST(Integrity, ASoundCatalogPassesEveryCheck) {
  TempDir dir;
  std::string path = MakeCatalog(dir);
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(cat.has_value()) << cat.error().message;
  Result<CheckReport> report = cat->Check();
  ASSERT_TRUE(report.has_value()) << report.error().message;
  EXPECT_TRUE(report->problems.empty()) << report->problems.front();
  EXPECT_EQ(report->libraries, 1);
  EXPECT_EQ(report->errors, 2);
  EXPECT_EQ(report->sites, 3);
  EXPECT_EQ(report->analyses, 2);
  EXPECT_EQ(report->enrichments, 1);
  Result<ErrorRecord> e = cat->Get(ZebraId());
  ASSERT_TRUE(e.has_value()) << e.error().message;
  EXPECT_EQ(e->sites.size(), 2u);
  EXPECT_TRUE(e->analysis.has_value());
  ASSERT_TRUE(e->family.has_value());
  EXPECT_EQ(e->family->errors, 2);
  EXPECT_TRUE(cat->GetStats().has_value());
  EXPECT_EQ(cat->Search("zebra", 10)->size(), 1u);
  Result<std::vector<FamilyInfo>> families = cat->Families(3);
  ASSERT_EQ(families->size(), 1u);
  EXPECT_EQ(families->front().errors, 2);
  EXPECT_EQ(families->front().examples.size(), 2u);
  EXPECT_EQ(cat->ListFamily("invalid-value", 1)->size(), 1u);
  EXPECT_EQ(cat->ExceptionBases()->at("MyError").front(), "ValueError");
}

TEST(Integrity, AFlippedByteInARowIsReportedAndNotShown) {
  TempDir dir;
  std::string path = MakeCatalog(dir);
  FlipByteIn(path, "Zebra unicorn template");
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(cat.has_value()) << cat.error().message;
  Result<CheckReport> report = cat->Check();
  ASSERT_TRUE(report.has_value());
  EXPECT_FALSE(report->problems.empty());
  Result<std::vector<ErrorRecord>> list = cat->List({});
  ASSERT_FALSE(list.has_value());
  EXPECT_EQ(list.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(list.error().message.find("the catalog is damaged: "), std::string::npos);
  EXPECT_NE(list.error().message.find("(run errdex check)"), std::string::npos);
  EXPECT_EQ(cat->GetStats().error().code, ErrorCode::kCorrupt);

  // A write would re-hash the damaged rows: it refuses to start.
  Result<Catalog> writer = Catalog::Open(path, OpenMode::kReadWrite);
  ASSERT_TRUE(writer.has_value());
  Result<WriteSummary> w = writer->WriteSnapshot(Info(), Extraction{});
  ASSERT_FALSE(w.has_value());
  EXPECT_EQ(w.error().code, ErrorCode::kCorrupt);
  EXPECT_FALSE(Catalog::Open(path, OpenMode::kReadOnly)->Check()->problems.empty());
}

TEST(Integrity, AFlippedByteInAnExcerptFailsTheReadsThatShowIt) {
  TempDir dir;
  std::string path = MakeCatalog(dir);
  FlipByteIn(path, "# excerpt of a.py 20");
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(cat.has_value());
  EXPECT_FALSE(cat->Check()->problems.empty());
  Result<ErrorRecord> e = cat->Get(ZebraId());
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(e.error().code, ErrorCode::kCorrupt);
  // A listing does not show excerpts: what it shows is still right.
  EXPECT_TRUE(cat->List({}).has_value());
}

TEST(Integrity, RowsChangedOrLostBehindErrdexsBackAreNoticed) {
  struct Case {
    const char* sql;
    const char* what;
  };
  for (const Case& c : {
           Case{"UPDATE site_row SET line = 999 WHERE line = 20", "a site's line"},
           Case{"DELETE FROM site_link WHERE row_pk IN (SELECT pk FROM site_row WHERE line = 20)",
                "a lost site"},
           Case{"UPDATE site_text SET excerpt = 'x' WHERE pk = (SELECT min(pk) FROM site_text)",
                "a site's excerpt"},
           Case{"INSERT INTO site_link (snapshot_pk, row_pk) SELECT snapshot_pk, row_pk FROM "
                "site_link LIMIT 1",
                "a site held twice"},
           Case{"DELETE FROM analysis WHERE error_pk = (SELECT min(pk) FROM error)",
                "a lost analysis"},
           Case{"DELETE FROM enrichment", "a lost enrichment"},
           Case{"UPDATE family SET errors = 7", "a family's count"},
           Case{"UPDATE snapshot SET rev = 'v2'", "a snapshot's revision"},
           Case{"INSERT INTO error_fts (rowid, template, exception) VALUES (1, 'extra', 'x')",
                "an extra search index entry"},
       }) {
    TempDir dir;
    std::string path = MakeCatalog(dir);
    Exec(path, c.sql);
    Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadOnly);
    ASSERT_TRUE(cat.has_value());
    Result<CheckReport> report = cat->Check();
    ASSERT_TRUE(report.has_value()) << c.what;
    EXPECT_FALSE(report->problems.empty()) << c.what;
    Result<Catalog> fresh = Catalog::Open(path, OpenMode::kReadOnly);
    Result<ErrorRecord> e = fresh->Get(ZebraId());
    Result<ErrorRecord> other =
        fresh->Get(ErrorId("o/lib", "KeyError", "Another quite different message"));
    Result<std::vector<ErrorRecord>> found = fresh->Search("zebra", 10);
    Result<std::vector<FamilyInfo>> families = fresh->Families(3);
    // Whatever read shows the damaged part fails; none answers wrongly.
    bool some_read_failed = !e || !other || !found || !families;
    EXPECT_TRUE(some_read_failed) << c.what;
    for (const Error* err : {e ? nullptr : &e.error(), other ? nullptr : &other.error(),
                             found ? nullptr : &found.error(),
                             families ? nullptr : &families.error()}) {
      if (err != nullptr) {
        EXPECT_EQ(err->code, ErrorCode::kCorrupt) << c.what << err->message;
      }
    }
  }
}

// An id is stored twice: in its row and in the index of ids. Damage to
// either is damage, not "no error with this id".
TEST(Integrity, ADamagedIdIsNotReportedAsMissing) {
  for (int occurrence : {0, 1}) {
    TempDir dir;
    std::string path = MakeCatalog(dir);
    // Without the stale copies rewritten rows leave in free space: the
    // first two are the row's and the index's (the error table and its
    // index come first in the schema).
    Exec(path, "VACUUM");
    std::string bytes = ReadBytes(path);
    size_t at = bytes.find(ZebraId());
    if (occurrence == 1) at = bytes.find(ZebraId(), at + 1);
    ASSERT_NE(at, std::string::npos) << occurrence;
    bytes[at + 3] ^= 0x01;
    WriteBytes(path, bytes);
    Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadOnly);
    ASSERT_TRUE(cat.has_value());
    EXPECT_FALSE(cat->Check()->problems.empty()) << occurrence;
    Result<ErrorRecord> e = cat->Get(ZebraId());
    if (occurrence == 0 && e) {
      // SQLite reads the id from the index, which is intact: the answer
      // is right, and the damaged copy is never shown.
      EXPECT_EQ(e->id, ZebraId());
      EXPECT_EQ(e->sites.size(), 2u);
    } else {
      ASSERT_FALSE(e.has_value()) << occurrence;
      EXPECT_EQ(e.error().code, ErrorCode::kCorrupt) << occurrence << ": " << e.error().message;
    }
    EXPECT_EQ(cat->Get("0123456789abcdef").error().code, ErrorCode::kNotFound);
  }
}

TEST(Integrity, ATruncatedFileFailsClearly) {
  TempDir dir;
  std::string path = MakeCatalog(dir);
  std::string bytes = ReadBytes(path);
  for (size_t keep : {bytes.size() / 2, bytes.size() - 100, size_t{4096}, size_t{100}}) {
    WriteBytes(path, bytes.substr(0, keep));
    Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadOnly);
    if (!cat) {
      EXPECT_EQ(cat.error().code, ErrorCode::kCorrupt) << keep << cat.error().message;
      continue;
    }
    Result<CheckReport> report = cat->Check();
    ASSERT_TRUE(report.has_value()) << keep;
    EXPECT_FALSE(report->problems.empty()) << keep;
    Result<std::vector<ErrorRecord>> list = cat->List({});
    if (!list) {
      EXPECT_EQ(list.error().code, ErrorCode::kCorrupt) << list.error().message;
    }
  }
}

// A file cut short under an open reader: an error (or, for pages read
// before, the right answer), never a crash. (Through the memory map the
// catalog used to be read with, a reader touching a page past the new end
// got SIGBUS; this test does not reproduce that timing, it pins the outcome.)
TEST(Integrity, AFileCutShortUnderAnOpenReaderIsAnErrorNotASignal) {
  TempDir dir;
  std::string path = MakeCatalog(dir);
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(cat.has_value());
  ASSERT_TRUE(cat->Get(ZebraId()).has_value());
  fs::resize_file(path, fs::file_size(path) / 3);
  Result<CheckReport> report = cat->Check();
  if (report) {
    EXPECT_FALSE(report->problems.empty());
  }
  Result<std::vector<ErrorRecord>> list = cat->List({});
  if (!list) {
    EXPECT_EQ(list.error().code, ErrorCode::kCorrupt) << list.error().message;
  } else {
    EXPECT_EQ(list->size(), 2u);
  }
}

TEST(Integrity, AFileThatIsNoCatalogIsRefused) {
  TempDir dir;
  std::string path = (dir.path() / "noise.db").string();
  std::string noise(64 * 1024, '\0');
  for (size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>((i * 7919) % 251);
  WriteBytes(path, noise);
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadOnly);
  ASSERT_FALSE(cat.has_value());
  EXPECT_EQ(cat.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(cat.error().message.find("not an errdex catalog"), std::string::npos);
}

}  // namespace
}  // namespace errdex::catalog
