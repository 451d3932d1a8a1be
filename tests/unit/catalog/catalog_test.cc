#include "catalog/catalog.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "catalog/json.h"
#include "catalog/schema.h"
#include "core/error_id.h"
#include "test_util.h"

namespace errdex::catalog {
namespace {

using errdex::testing::TempDir;

Site MakeSite(const std::string& path, int line, const std::string& exception,
              const Template& message, SiteKind kind = SiteKind::kRaise) {
  Site s;
  s.exception = exception;
  s.exception_written = exception;
  s.kind = kind;
  s.message = message;
  s.language = "python";
  s.path = path;
  s.line = line;
  s.column = 5;
  s.end_line = line;
  s.function = "f";
  s.statement = "raise " + exception + "(...)";
  s.excerpt_line = line;
  s.excerpt = s.statement + "\n";
  return s;
}

Extraction Sample() {
  Extraction x;
  Template tmem = Template::Literal("Invalid TMEMLayout: ");
  tmem.AppendValue("self", ValueKind::kStr);
  tmem.AssignNames();
  x.sites.push_back(MakeSite("core.py", 10, "ValueError", tmem));
  // The same template raised twice: one error, two sites.
  x.sites.push_back(
      MakeSite("xla.py", 187, "RuntimeError", Template::Literal("Invalid pipeline stage")));
  x.sites.push_back(
      MakeSite("xla.py", 210, "RuntimeError", Template::Literal("Invalid pipeline stage")));
  x.non_sites.push_back(NonSite{"core.py", 20, "reraise"});
  x.issues.push_back(FileIssue{"bad.py", "not-utf8", "invalid", true});
  x.issues.push_back(FileIssue{"odd.py", "syntax-error", "line 3", false});
  x.classes.push_back(ExceptionClass{"LoweringException", {"Exception"}, "core.py", 1});
  x.files_scanned = 4;
  x.bytes_scanned = 1000;
  return x;
}

SnapshotInfo Info(const std::string& rev = "abc") {
  SnapshotInfo i;
  i.library = "jax-ml/jax";
  i.url = "https://github.com/jax-ml/jax";
  i.rev = rev;
  i.commit = rev;
  i.kind = "git";
  i.root = "/src/jax";
  return i;
}

void Exec(const std::string& path, const std::string& sql) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "") << " in " << sql;
  sqlite3_free(error);
  sqlite3_close(raw);
}

// An old catalog: refused for reading (naming the upgrade), upgraded when
// opened for writing, then read again and checked clean.
void OpenUpgraded(const std::string& path, std::optional<Catalog>& upgraded,
                  std::optional<CheckReport>& report) {
  Result<Catalog> read_only = Catalog::Open(path, OpenMode::kReadOnly);
  ASSERT_FALSE(read_only.has_value());
  EXPECT_NE(read_only.error().message.find("upgrades it to version " +
                                           std::to_string(kSchemaVersion)),
            std::string::npos);
  ASSERT_TRUE(Catalog::Open(path, OpenMode::kReadWrite).has_value());
  Result<Catalog> opened = Catalog::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  Result<CheckReport> checked = opened->Check();
  ASSERT_TRUE(checked.has_value());
  EXPECT_TRUE(checked->problems.empty()) << checked->problems.front();
  report = std::move(*checked);
  upgraded.emplace(std::move(*opened));
}

// Undoes kAliasesSql: the catalog before a snapshot kept the other names
// of its commit (schema version 10). The hashes stay those of version 11;
// an upgrade recomputes every hash anyway.
std::string DowngradeToVersion10Sql() {
  return "ALTER TABLE snapshot DROP COLUMN aliases; PRAGMA user_version = 10;";
}

// Undoes kSharedSitesSql too: the catalog before sites were shared, a row
// per snapshot and site (schema version 9).
std::string DowngradeToVersion9Sql() {
  return DowngradeToVersion10Sql() + "DROP VIEW site; "
         "CREATE TABLE site (pk INTEGER PRIMARY KEY, "
         "snapshot_pk INTEGER NOT NULL REFERENCES snapshot(pk) ON DELETE CASCADE, "
         "error_pk INTEGER NOT NULL REFERENCES error(pk), language TEXT NOT NULL, "
         "path TEXT NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL, "
         "end_line INTEGER NOT NULL, function TEXT NOT NULL, kind TEXT NOT NULL, "
         "exception_written TEXT NOT NULL, statement TEXT NOT NULL, "
         "excerpt_line INTEGER NOT NULL, excerpt TEXT NOT NULL, cause TEXT NOT NULL, "
         "via TEXT NOT NULL, internal INTEGER NOT NULL, guards TEXT NOT NULL DEFAULT '[]', "
         "trigger TEXT NOT NULL DEFAULT '', body_hash INTEGER NOT NULL DEFAULT 0, "
         "guard_hash INTEGER NOT NULL DEFAULT 0, crc INTEGER NOT NULL DEFAULT 0, "
         "signature TEXT NOT NULL DEFAULT '', entries TEXT NOT NULL DEFAULT ''); "
         "INSERT INTO site (snapshot_pk, error_pk, language, path, line, col, end_line, function, "
         "kind, exception_written, statement, excerpt_line, excerpt, cause, via, internal, guards, "
         "trigger, signature, entries) "
         "SELECT l.snapshot_pk, r.error_pk, r.language, r.path, r.line, r.col, r.end_line, "
         "r.function, r.kind, r.exception_written, t.statement, r.excerpt_line, t.excerpt, "
         "r.cause, r.via, r.internal, g.guards, g.trigger, g.signature, g.entries "
         "FROM site_link l JOIN site_row r ON r.pk = l.row_pk JOIN site_text t ON "
         "t.pk = r.text_pk JOIN site_guard g ON g.pk = r.guard_pk ORDER BY l.rowid; "
         "DROP TABLE site_link; DROP TABLE site_row; DROP TABLE site_text; "
         "DROP TABLE site_guard; "
         "CREATE INDEX site_error ON site (error_pk); "
         "CREATE INDEX site_snapshot ON site (snapshot_pk); "
         "CREATE INDEX site_path ON site (path, line); PRAGMA user_version = 9;";
}

// Undoes kMetaSql too: the catalog before it kept facts of its own, such as
// when it was last analysed (schema version 8).
std::string DowngradeToVersion8Sql() {
  return DowngradeToVersion9Sql() + "DROP TABLE meta; ALTER TABLE seal DROP COLUMN n_meta; "
         "ALTER TABLE seal DROP COLUMN meta_sum; PRAGMA user_version = 8;";
}

// Undoes kSignatureSql too: the catalog before sites recorded their
// function's parameters (schema version 7).
std::string DowngradeToVersion7Sql() {
  return DowngradeToVersion8Sql() +
         "ALTER TABLE site DROP COLUMN signature; ALTER TABLE site DROP COLUMN entries; "
         "PRAGMA user_version = 7;";
}

// Undoes kSourceDigestSql too: before snapshots recorded their source's
// digest (schema version 6).
std::string DowngradeToVersion6Sql() {
  return DowngradeToVersion7Sql() +
         "ALTER TABLE snapshot DROP COLUMN source_digest; PRAGMA user_version = 6;";
}

// Undoes kIntegritySql too: the catalog as errdex wrote it before content
// hashes (schema version 4), contents unchanged.
std::string DowngradeToVersion4Sql() {
  std::string sql = DowngradeToVersion6Sql() + "DROP TABLE seal;";
  std::istringstream in{std::string(kIntegritySql)};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string alter, table_kw, table, add, column_kw, column;
    words >> alter >> table_kw >> table >> add >> column_kw >> column;
    if (alter == "ALTER" && add == "ADD") {
      sql += "ALTER TABLE " + table + " DROP COLUMN " + column + ";";
    }
  }
  return sql + "PRAGMA user_version = 4;";
}

TEST(Catalog, WritesAndReadsBack) {
  TempDir dir;
  std::string path = dir.Catalog();
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
  ASSERT_TRUE(cat.has_value()) << cat.error().message;
  Result<WriteSummary> w = cat->WriteSnapshot(Info(), Sample());
  ASSERT_TRUE(w.has_value()) << w.error().message;
  EXPECT_EQ(w->errors, 2);
  EXPECT_EQ(w->sites, 3);
  EXPECT_EQ(w->new_errors, 2);

  std::string id = ErrorId("jax-ml/jax", "RuntimeError", "Invalid pipeline stage");
  Result<ErrorRecord> e = cat->Get(id);
  ASSERT_TRUE(e.has_value()) << e.error().message;
  EXPECT_EQ(e->template_text, "Invalid pipeline stage");
  ASSERT_EQ(e->sites.size(), 2u);
  EXPECT_EQ(e->sites[0].line, 187);
  EXPECT_EQ(e->sites[1].line, 210);
  EXPECT_EQ(e->sites[0].excerpt, "raise RuntimeError(...)\n");
  EXPECT_EQ(e->sites[0].commit, "abc");

  Result<ErrorRecord> tmem =
      cat->Get(ErrorId("jax-ml/jax", "ValueError", "Invalid TMEMLayout: {str}"));
  ASSERT_TRUE(tmem.has_value());
  ASSERT_EQ(tmem->message.pieces().size(), 2u);
  EXPECT_EQ(tmem->message.pieces()[1].name, "self");

  Result<Stats> stats = cat->GetStats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->errors, 2);
  EXPECT_EQ(stats->sites, 3);
  EXPECT_EQ(stats->skipped_by_reason["not-utf8"], 1);
  EXPECT_EQ(stats->recovered_by_reason["syntax-error"], 1);
  EXPECT_EQ(stats->non_sites_by_reason["reraise"], 1);
}

TEST(Catalog, GetRejectsBadIdsAndReportsMissing) {
  TempDir dir;
  Result<Catalog> cat = Catalog::Open(dir.Catalog(), OpenMode::kReadWrite);
  ASSERT_TRUE(cat.has_value());
  EXPECT_EQ(cat->Get("nothex").error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(cat->Get("0000000000000000").error().code, ErrorCode::kNotFound);
}

TEST(Catalog, ReindexingTheSameContentChangesNothing) {
  TempDir dir;
  std::string path = dir.Catalog();
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
  ASSERT_TRUE(cat->WriteSnapshot(Info(), Sample()).has_value());
  Result<Stats> before = cat->GetStats();
  Result<WriteSummary> again = cat->WriteSnapshot(Info(), Sample());
  ASSERT_TRUE(again.has_value());
  EXPECT_TRUE(again->unchanged);
  EXPECT_EQ(again->errors, 2);
  Result<Stats> after = cat->GetStats();
  EXPECT_EQ(before->per_snapshot[0].indexed_at, after->per_snapshot[0].indexed_at);
  EXPECT_EQ(after->sites, 3);
}

TEST(Catalog, ReindexingReplacesTheSnapshotsSites) {
  TempDir dir;
  Result<Catalog> cat = Catalog::Open(dir.Catalog(), OpenMode::kReadWrite);
  ASSERT_TRUE(cat->WriteSnapshot(Info(), Sample()).has_value());
  Extraction changed = Sample();
  changed.sites.pop_back();  // one pipeline-stage site gone
  changed.sites[0].message = Template::Literal("Reworded TMEMLayout error");
  Result<WriteSummary> w = cat->WriteSnapshot(Info(), changed);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->new_errors, 1);
  EXPECT_EQ(w->removed_errors, 1);
  Result<Stats> stats = cat->GetStats();
  EXPECT_EQ(stats->snapshots, 1);
  EXPECT_EQ(stats->sites, 2);
  EXPECT_EQ(stats->errors, 2);
  EXPECT_FALSE(
      cat->Get(ErrorId("jax-ml/jax", "ValueError", "Invalid TMEMLayout: {str}")).has_value());
}

// A version written again drops the rows only it held: the error's kind
// and internal flag, read from its rows, follow, though no row was added.
TEST(Catalog, AnErrorsKindFollowsARowDroppedByAVersionWrittenAgain) {
  TempDir dir;
  Result<Catalog> cat = Catalog::Open(dir.Catalog(), OpenMode::kReadWrite);
  ASSERT_TRUE(cat.has_value()) << cat.error().message;
  Template text = Template::Literal("shapes differ");
  Site first = MakeSite("a.py", 3, "ValueError", text, SiteKind::kAssert);
  Site second = MakeSite("b.py", 9, "ValueError", text);
  second.internal = true;
  Extraction both;
  both.sites = {first, second};
  ASSERT_TRUE(cat->WriteSnapshot(Info("v1"), both).has_value());
  std::string id = ErrorId("jax-ml/jax", "ValueError", "shapes differ");
  Result<ErrorRecord> e = cat->Get(id);
  ASSERT_TRUE(e.has_value()) << e.error().message;
  EXPECT_EQ(e->kind, "assert");
  EXPECT_FALSE(e->internal);
  Extraction one;
  one.sites = {second};
  ASSERT_TRUE(cat->WriteSnapshot(Info("v1"), one).has_value());
  e = cat->Get(id);
  ASSERT_TRUE(e.has_value()) << e.error().message;
  EXPECT_EQ(e->kind, "raise");
  EXPECT_TRUE(e->internal);
}

// A write refreshes an error's kind and internal flag only when the rows
// it adds can change them: rows of another kind than the error's (even
// with one of its kind among them), or a public row of an internal error.
TEST(Catalog, RowsAddedUnderAnotherKindOrPublicChangeTheError) {
  TempDir dir;
  Result<Catalog> cat = Catalog::Open(dir.Catalog(), OpenMode::kReadWrite);
  ASSERT_TRUE(cat.has_value()) << cat.error().message;
  std::string id = ErrorId("jax-ml/jax", "ValueError", "shapes differ");
  auto site = [](const std::string& path, int line, SiteKind kind, bool internal) {
    Site s = MakeSite(path, line, "ValueError", Template::Literal("shapes differ"), kind);
    s.internal = internal;
    return s;
  };
  // Writes version `rev` with `sites`, then checks what the error became.
  auto write = [&](const std::string& rev, std::vector<Site> sites, const std::string& kind,
                   bool internal) {
    Extraction x;
    x.sites = std::move(sites);
    ASSERT_TRUE(cat->WriteSnapshot(Info(rev), x).has_value());
    Result<ErrorRecord> e = cat->Get(id);
    ASSERT_TRUE(e.has_value()) << e.error().message;
    EXPECT_EQ(e->kind, kind) << rev;
    EXPECT_EQ(e->internal, internal) << rev;
  };
  write("v1", {site("b.py", 10, SiteKind::kAssert, true)}, "assert", true);
  // Internal rows of its kind, first or not: nothing changes.
  write("v2", {site("b.py", 30, SiteKind::kAssert, true), site("b.py", 2, SiteKind::kAssert, true)},
        "assert", true);
  // Two rows, one of the error's kind and one first in order of another.
  write("v3", {site("b.py", 40, SiteKind::kAssert, true), site("a.py", 5, SiteKind::kRaise, true)},
        "raise", true);
  // A public row of the error's kind, not first.
  write("v4", {site("c.py", 50, SiteKind::kRaise, false)}, "raise", false);
  // One row, first in order, of another kind.
  write("v5", {site("a.py", 1, SiteKind::kAssert, false)}, "assert", false);
}

TEST(Catalog, SnapshotsOfOneLibraryShareErrors) {
  TempDir dir;
  Result<Catalog> cat = Catalog::Open(dir.Catalog(), OpenMode::kReadWrite);
  ASSERT_TRUE(cat->WriteSnapshot(Info("v1"), Sample()).has_value());
  ASSERT_TRUE(cat->WriteSnapshot(Info("v2"), Sample()).has_value());
  Result<Stats> stats = cat->GetStats();
  EXPECT_EQ(stats->snapshots, 2);
  EXPECT_EQ(stats->errors, 2);
  EXPECT_EQ(stats->sites, 6);
  std::string id = ErrorId("jax-ml/jax", "RuntimeError", "Invalid pipeline stage");
  Result<ErrorRecord> e = cat->Get(id);
  // One error across versions; its page shows the newest version's sites.
  ASSERT_EQ(e->sites.size(), 2u);
  EXPECT_EQ(e->version, "v2");
  ASSERT_EQ(e->versions.size(), 2u);
  EXPECT_EQ(e->versions[0].rev, "v1");
  EXPECT_EQ(e->versions[0].sites, 2);
  EXPECT_EQ(e->versions[1].sites, 2);
  cat->SetVersion("v1");
  e = cat->Get(id);
  EXPECT_EQ(e->version, "v1");
  EXPECT_EQ(e->sites.size(), 2u);
  EXPECT_EQ(e->sites[0].rev, "v1");
  cat->SetVersion("v3");
  e = cat->Get(id);
  EXPECT_EQ(e->version, "");
  EXPECT_TRUE(e->sites.empty());
}

// Sites are stored once for the snapshots that share them (schema 10): a
// property test against the extractions written. Random versions are made
// by the changes releases make (lines moved under an edit, an excerpt or a
// trigger changed, sites added, removed, or held twice by one version, a
// version written again with other content); every version must read back
// exactly the sites it was given, `check` must pass, and on SQLite the
// catalog holds one row per distinct site and one text per distinct text.
// Random releases of one library: each from the last by a few edits, so
// that texts and rows are shared, moved away from and back to.
class RandomReleases {
 public:
  explicit RandomReleases(unsigned seed) : rng_(seed) {
    for (int i = 0; i < 24; ++i) current_.push_back(Fresh());
  }
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<unsigned>(n)); }
  Site Fresh() {
    // Kinds and internal flags vary within one error, so that which row
    // decides the error's kind, and whether all are internal, is tested.
    Site s = MakeSite(kFiles[Pick(3)], 1 + Pick(400), Pick(2) ? "ValueError" : "TypeError",
                      Template::Literal(kWords[Pick(6)]),
                      Pick(3) == 0 ? SiteKind::kAssert : SiteKind::kRaise);
    s.internal = Pick(4) == 0;
    s.excerpt = "line " + std::to_string(Pick(5)) + "\n" + s.statement + "\n";
    Guard g;
    g.kind = "if";
    g.code = "x is None";
    g.line = s.line - 2;  // moves with the site: stored relative to it
    s.guards.push_back(g);
    // One entry in the site's file (stored relative to it), one elsewhere.
    s.entries = nlohmann::json::array({{{"line", s.line - 5}, {"name", "f"}, {"path", s.path}},
                                       {{"line", 7}, {"name", "g"}, {"path", "other.py"}}})
                    .dump();
    return s;
  }
  void Mutate(std::vector<Site>& sites, int version) {
    for (int step = 0, n = 1 + Pick(4); step < n; ++step) {
      int op = Pick(6);
      if (sites.empty()) op = 3;
      Site& s = sites[Pick(static_cast<int>(sites.size()))];
      if (op == 0) {  // an edit above moves every later line of the file, down or up
        std::string file = s.path;
        int from = s.line, by = Pick(2) ? 1 + Pick(9) : -std::min(s.line - 1, 1 + Pick(9));
        for (Site& t : sites) {
          if (t.path != file || t.line < from) continue;
          t.line += by, t.end_line += by, t.excerpt_line += by;
          for (Guard& g : t.guards) g.line += by;
          nlohmann::json entries = nlohmann::json::parse(t.entries);
          entries[0]["line"] = entries[0]["line"].get<int>() + by;
          t.entries = entries.dump();
        }
      } else if (op == 1) {
        s.excerpt += "# edited in v" + std::to_string(version) + "\n";
      } else if (op == 2) {
        sites.erase(sites.begin() + Pick(static_cast<int>(sites.size())));
      } else if (op == 3) {
        sites.push_back(Fresh());
      } else if (op == 4) {
        sites.push_back(s);  // held twice by one version
      } else if (op == 5 && Pick(2) == 0) {
        s.internal = !s.internal;
      } else {
        s.trigger = "when v" + std::to_string(version);
      }
    }
  }
  // The next release's sites.
  const std::vector<Site>& Next(int version) {
    Mutate(current_, version);
    return current_;
  }

 private:
  static constexpr const char* kFiles[] = {"a.py", "b.py", "c.py"};
  static constexpr const char* kWords[] = {"bad shape", "no such axis", "wrong dtype",
                                           "empty",     "too many",     "not callable"};
  std::mt19937 rng_;
  std::vector<Site> current_;
};

unsigned TestSeed() {
  const char* env = std::getenv("ERRDEX_TEST_SEED");
  return env != nullptr ? static_cast<unsigned>(std::strtoul(env, nullptr, 10))
                        : std::random_device{}();
}

TEST(Catalog, EveryVersionReadsBackItsOwnSitesWhateverItShares) {
  unsigned seed = TestSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (ERRDEX_TEST_SEED to repeat)");
  RandomReleases releases(seed);
  using Key = std::tuple<std::string, std::string, std::string, int, int, int, int, std::string,
                         std::string, std::string, std::string, std::string>;
  auto key = [](const std::string& exception, const std::string& message, const std::string& path,
                int line, int column, int end_line, int excerpt_line, const std::string& excerpt,
                const std::string& statement, const std::string& trigger,
                const std::string& guards, const std::string& entries) {
    return Key{exception,    message, path,      line,    column, end_line,
               excerpt_line, excerpt, statement, trigger, guards, entries};
  };
  TempDir dir;
  std::string path = dir.Catalog();
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
  ASSERT_TRUE(cat.has_value()) << cat.error().message;
  std::map<std::string, std::vector<Site>> written;
  // An error's kind is its first site's, in path, line, column and kind
  // order, over every version; it is internal when every site is. A write
  // updates both only for errors that gained or lost a row: after each
  // write, both are worked out here from the sites written so far.
  auto check_kinds = [&](const std::string& after) {
    std::map<std::string, std::pair<std::tuple<std::string, int, int, std::string>, bool>> expect;
    for (const auto& [rev, sites] : written) {
      for (const Site& s : sites) {
        std::string id = ErrorId("jax-ml/jax", s.exception, s.message.Display());
        auto order = std::make_tuple(s.path, s.line, s.column, std::string(SiteKindName(s.kind)));
        auto [it, fresh_error] = expect.emplace(id, std::make_pair(order, s.internal));
        if (fresh_error) continue;
        it->second.first = std::min(it->second.first, order);
        it->second.second = it->second.second && s.internal;
      }
    }
    Result<std::vector<ErrorRecord>> every = cat->List(ListQuery{});
    ASSERT_TRUE(every.has_value()) << every.error().message;
    ASSERT_EQ(every->size(), expect.size()) << after;
    for (const ErrorRecord& e : *every) {
      ASSERT_TRUE(expect.count(e.id)) << e.id;
      EXPECT_EQ(e.kind, std::get<3>(expect[e.id].first)) << e.template_text << " after " << after;
      EXPECT_EQ(e.internal, expect[e.id].second) << e.template_text << " after " << after;
    }
  };
  for (int v = 0; v < 16; ++v) {
    Extraction x;
    x.sites = releases.Next(v);
    std::string rev = "v" + std::to_string(v);
    ASSERT_TRUE(cat->WriteSnapshot(Info(rev), x).has_value());
    written[rev] = x.sites;
    check_kinds(rev);
  }
  for (const std::string rev : {"v3", "v7"}) {  // written again, with other content
    std::vector<Site> other = written[rev];
    releases.Mutate(other, 100);
    other.push_back(releases.Fresh());
    Extraction x;
    x.sites = other;
    ASSERT_TRUE(cat->WriteSnapshot(Info(rev), x).has_value());
    written[rev] = other;
    check_kinds(rev + " again");
  }
  Result<CheckReport> report = cat->Check();
  ASSERT_TRUE(report.has_value());
  EXPECT_TRUE(report->problems.empty()) << report->problems.front();
  std::set<std::tuple<Key, std::string, bool>> distinct;  // a row's kind and flag are its own
  std::set<std::pair<std::string, std::string>> bodies;
  // The guard text: guards and entries are relative to the site, so what
  // varies is the trigger and the file the entry names.
  std::set<std::pair<std::string, std::string>> guard_texts;
  for (const auto& [rev, sites] : written) {
    std::vector<Key> want, got;
    // A version lists a site once, however many times it was written in it.
    std::set<std::tuple<Key, std::string, bool>> in_version;
    for (const Site& s : sites) {
      Key k = key(s.exception, s.message.Display(), s.path, s.line, s.column, s.end_line,
                  s.excerpt_line, s.excerpt, s.statement, s.trigger,
                  GuardsToJson(s.guards).dump(), s.entries);
      if (in_version.emplace(k, SiteKindName(s.kind), s.internal).second) want.push_back(k);
      distinct.emplace(k, SiteKindName(s.kind), s.internal);
      bodies.emplace(s.statement, s.excerpt);
      guard_texts.emplace(s.trigger, s.path);
    }
    cat->SetVersion(rev);
    Result<std::vector<ErrorRecord>> all = cat->List(ListQuery{});
    ASSERT_TRUE(all.has_value()) << all.error().message;
    for (const ErrorRecord& listed : *all) {
      Result<ErrorRecord> e = cat->Get(listed.id);  // every site in full
      ASSERT_TRUE(e.has_value()) << e.error().message;
      for (const SiteRecord& s : e->sites) {
        EXPECT_EQ(s.rev, rev);
        got.push_back(key(e->exception, e->template_text, s.path, s.line, s.column, s.end_line,
                          s.excerpt_line, s.excerpt, s.statement, s.trigger,
                          nlohmann::json::parse(s.guards_json).dump(), s.entries));
      }
    }
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want) << rev;
  }
  cat->SetVersion("");
  if (path.rfind("postgresql:", 0) == 0) return;
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  auto count = [&](const char* sql) {
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(raw, sql, -1, &st, nullptr), SQLITE_OK);
    EXPECT_EQ(sqlite3_step(st), SQLITE_ROW);
    size_t n = static_cast<size_t>(sqlite3_column_int64(st, 0));
    sqlite3_finalize(st);
    return n;
  };
  EXPECT_EQ(count("SELECT count(*) FROM site_row"), distinct.size());
  EXPECT_EQ(count("SELECT count(*) FROM site_text"), bodies.size());
  EXPECT_EQ(count("SELECT count(*) FROM site_guard"), guard_texts.size());
  sqlite3_close(raw);
}

// Every row of the tables a write of sites fills, in pk order, as text.
std::string SiteTables(const std::string& path) {
  sqlite3* raw = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  std::string out;
  for (const char* table : {"error", "site_row", "site_link", "site_text", "site_guard"}) {
    sqlite3_stmt* st = nullptr;
    std::string sql = std::string("SELECT * FROM ") + table + " ORDER BY 1, 2";
    EXPECT_EQ(sqlite3_prepare_v2(raw, sql.c_str(), -1, &st, nullptr), SQLITE_OK);
    out += std::string(table) + "\n";
    while (sqlite3_step(st) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const unsigned char* v = sqlite3_column_text(st, c);
        out += (v != nullptr ? reinterpret_cast<const char*>(v) : "NULL");
        out += '|';
      }
      out += '\n';
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(raw);
  return out;
}

// How many sites `rev` reads back with, every error's in full.
size_t SitesOf(Catalog& cat, const std::string& rev) {
  cat.SetVersion(rev);
  Result<std::vector<ErrorRecord>> all = cat.List(ListQuery{});
  EXPECT_TRUE(all.has_value()) << all.error().message;
  size_t sites = 0;
  for (const ErrorRecord& listed : all ? *all : std::vector<ErrorRecord>{}) {
    Result<ErrorRecord> e = cat.Get(listed.id);
    EXPECT_TRUE(e.has_value()) << e.error().message;
    if (e) sites += e->sites.size();
  }
  cat.SetVersion("");
  return sites;
}

// The catalog checks clean, and `rev` reads back `n` sites.
void ExpectSound(Catalog& cat, const std::string& rev, size_t n) {
  Result<CheckReport> report = cat.Check();
  ASSERT_TRUE(report.has_value());
  EXPECT_TRUE(report->problems.empty()) << report->problems.front();
  EXPECT_EQ(SitesOf(cat, rev), n);
}

// A connection keeps what its last write of sites found or stored (the
// Catalog's memo) and decides the next write's unchanged sites from it.
// Differential: the same releases written on one connection, and each on
// a connection of its own (no memo), make the same tables, row for row.
TEST(Catalog, AConnectionsMemoWritesWhatFreshConnectionsWrite) {
  if (errdex::testing::TestingPostgres()) GTEST_SKIP() << "the memo is SQLite's (data_version)";
  unsigned seed = TestSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (ERRDEX_TEST_SEED to repeat)");
  RandomReleases releases(seed);
  TempDir dir;
  std::string kept = dir.Catalog("kept.db");
  std::string fresh = dir.Catalog("fresh.db");
  Result<Catalog> one = Catalog::Open(kept, OpenMode::kReadWrite);
  ASSERT_TRUE(one.has_value()) << one.error().message;
  for (int v = 0; v < 24; ++v) {
    Extraction x;
    x.sites = releases.Next(v);
    SnapshotInfo info = Info("v" + std::to_string(v));
    ASSERT_TRUE(one->WriteSnapshot(info, x).has_value());
    Result<Catalog> own = Catalog::Open(fresh, OpenMode::kReadWrite);
    ASSERT_TRUE(own.has_value()) << own.error().message;
    ASSERT_TRUE(own->WriteSnapshot(info, x).has_value());
  }
  EXPECT_EQ(SiteTables(kept), SiteTables(fresh));
  Result<CheckReport> report = one->Check();
  ASSERT_TRUE(report.has_value());
  EXPECT_TRUE(report->problems.empty()) << report->problems.front();
}

// A site the last write stored as it is now is linked to that row at
// once, by a digest of the fields its row and texts are made of. Property:
// whichever one of those fields the next release changes, one connection
// writes what fresh connections write; a field the digest left out would
// link the site to its old row.
TEST(Catalog, AMemoSeesAChangeToAnyFieldOfASite) {
  if (errdex::testing::TestingPostgres()) GTEST_SKIP() << "the memo is SQLite's (data_version)";
  Site base = MakeSite("core.py", 20, "ValueError", Template::Literal("bad value"));
  base.trigger = "when x is None";
  base.signature = R"([["x", ""]])";
  base.entries = nlohmann::json::array({{{"line", 12}, {"name", "f"}, {"path", "core.py"}}}).dump();
  base.cause = "KeyError";
  base.via = "check";
  Guard g;
  g.kind = "default-case";
  g.code = "x";
  g.when = "x not in (1, 2)";
  g.line = 18;
  g.subject = "x";
  g.values = {"1", "2"};
  g.meanings = {"one", "two"};
  base.guards.push_back(g);
  using Change = std::function<void(Site&)>;
  const std::vector<std::pair<std::string, Change>> changes = {
      {"statement", [](Site& s) { s.statement += " "; }},
      {"excerpt", [](Site& s) { s.excerpt += "# more\n"; }},
      {"guard kind", [](Site& s) { s.guards[0].kind = "case"; }},
      {"guard code", [](Site& s) { s.guards[0].code = "y"; }},
      {"guard negated", [](Site& s) { s.guards[0].negated = true; }},
      {"guard when", [](Site& s) { s.guards[0].when = "x not in (1, 3)"; }},
      {"guard line", [](Site& s) { s.guards[0].line = 17; }},
      {"guard subject", [](Site& s) { s.guards[0].subject = "y"; }},
      {"guard values", [](Site& s) { s.guards[0].values.push_back("3"); }},
      {"guard meanings", [](Site& s) { s.guards[0].meanings[1] = "deux"; }},
      {"a guard more", [](Site& s) { s.guards.push_back(s.guards[0]); }},
      {"trigger", [](Site& s) { s.trigger = "when x is 0"; }},
      {"signature", [](Site& s) { s.signature = R"([["y", ""]])"; }},
      {"entries", [](Site& s) { s.entries = "[]"; }},
      {"language", [](Site& s) { s.language = "cython"; }},
      {"path", [](Site& s) { s.path = "base.py"; }},
      {"line", [](Site& s) { s.line = 21; }},
      {"column", [](Site& s) { s.column = 9; }},
      {"end line", [](Site& s) { s.end_line = 22; }},
      {"function", [](Site& s) { s.function = "g"; }},
      {"kind", [](Site& s) { s.kind = SiteKind::kAssert; }},
      {"type as written", [](Site& s) { s.exception_written = "errors.ValueError"; }},
      {"cause", [](Site& s) { s.cause = "IndexError"; }},
      {"via", [](Site& s) { s.via = "validate"; }},
      {"internal", [](Site& s) { s.internal = true; }},
      {"excerpt line", [](Site& s) { s.excerpt_line = 19; }},
      {"type", [](Site& s) { s.exception = s.exception_written = "TypeError"; }},
  };
  for (const auto& [field, change] : changes) {
    SCOPED_TRACE(field);
    TempDir dir;
    std::string kept = dir.Catalog("kept.db");
    std::string fresh = dir.Catalog("fresh.db");
    Result<Catalog> one = Catalog::Open(kept, OpenMode::kReadWrite);
    ASSERT_TRUE(one.has_value()) << one.error().message;
    Site changed = base;
    change(changed);
    // The site twice and a neighbour that stays, then the site changed.
    Site other = MakeSite("core.py", 40, "KeyError", Template::Literal("no key"));
    std::vector<std::vector<Site>> releases = {{base, other}, {changed, other}};
    for (size_t v = 0; v < releases.size(); ++v) {
      Extraction x;
      x.sites = releases[v];
      SnapshotInfo info = Info("v" + std::to_string(v));
      ASSERT_TRUE(one->WriteSnapshot(info, x).has_value());
      Result<Catalog> own = Catalog::Open(fresh, OpenMode::kReadWrite);
      ASSERT_TRUE(own.has_value()) << own.error().message;
      ASSERT_TRUE(own->WriteSnapshot(info, x).has_value());
    }
    std::string tables = SiteTables(kept);
    EXPECT_EQ(tables, SiteTables(fresh));
    // And the change made a row of its own: the test changes what it says.
    EXPECT_EQ(SitesOf(*one, "v1"), 2u);
  }
}

// What another connection committed since makes the memo stale: here it
// writes the release again, which drops the rows and texts only the old
// content held. A write trusting the memo would link to rows gone.
TEST(Catalog, AMemoIsNotTrustedOnceAnotherConnectionWrote) {
  if (errdex::testing::TestingPostgres()) GTEST_SKIP() << "the memo is SQLite's (data_version)";
  TempDir dir;
  std::string path = dir.Catalog();
  Result<Catalog> a = Catalog::Open(path, OpenMode::kReadWrite);
  Result<Catalog> b = Catalog::Open(path, OpenMode::kReadWrite);
  ASSERT_TRUE(a.has_value() && b.has_value());
  Extraction x = Sample();
  ASSERT_TRUE(a->WriteSnapshot(Info("v1"), x).has_value());
  Extraction other;
  other.sites.push_back(MakeSite("new.py", 3, "KeyError", Template::Literal("gone")));
  ASSERT_TRUE(b->WriteSnapshot(Info("v1"), other).has_value());
  ASSERT_TRUE(a->WriteSnapshot(Info("v2"), x).has_value());
  ExpectSound(*a, "v2", x.sites.size());
}

// A write rolled back takes its memo with it, even when the connection's
// next commit writes no sites.
TEST(Catalog, AMemoGoesWithTheWriteRolledBack) {
  if (errdex::testing::TestingPostgres()) GTEST_SKIP() << "the memo is SQLite's (data_version)";
  TempDir dir;
  std::string path = dir.Catalog();
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
  ASSERT_TRUE(cat.has_value());
  Extraction first;
  first.sites.push_back(MakeSite("a.py", 1, "ValueError", Template::Literal("first")));
  ASSERT_TRUE(cat->WriteSnapshot(Info("v0"), first).has_value());
  Extraction x = Sample();
  {
    Result<WriteTransaction> tx = WriteTransaction::Begin(*cat);
    ASSERT_TRUE(tx.has_value());
    ASSERT_TRUE(cat->WriteSnapshot(Info("v1"), x).has_value());
  }  // rolled back
  {
    Result<WriteTransaction> tx = WriteTransaction::Begin(*cat);
    ASSERT_TRUE(tx.has_value());
    ASSERT_TRUE(tx->Commit().has_value());
  }
  ASSERT_TRUE(cat->WriteSnapshot(Info("v2"), x).has_value());
  ExpectSound(*cat, "v2", x.sites.size());
}

// Versions are ordered by commit date, else by name as a version; not by
// the order they were written in.
TEST(Catalog, VersionsInReleaseOrder) {
  TempDir dir;
  Result<Catalog> cat = Catalog::Open(dir.Catalog(), OpenMode::kReadWrite);
  SnapshotInfo newer = Info("v1.10");
  newer.date = "2024-03-01T00:00:00+00:00";
  SnapshotInfo older = Info("v1.9");
  older.date = "2024-03-01T01:00:00+02:00";  // an hour before, in another zone
  Extraction fewer = Sample();
  fewer.sites.pop_back();
  ASSERT_TRUE(cat->WriteSnapshot(newer, Sample()).has_value());
  ASSERT_TRUE(cat->WriteSnapshot(older, fewer).has_value());
  Result<std::vector<ErrorRecord>> all = cat->List(ListQuery{});
  ASSERT_TRUE(all);
  for (const ErrorRecord& e : *all) {
    ASSERT_EQ(e.versions.size(), 2u) << e.id;
    EXPECT_EQ(e.versions[0].rev, "v1.9");
    EXPECT_EQ(e.versions[1].rev, "v1.10");
    EXPECT_EQ(e.version, "v1.10");
    for (const SiteRecord& s : e.sites) EXPECT_EQ(s.version, 1);
    if (e.exception == "RuntimeError") {
      EXPECT_EQ(e.versions[0].sites, 1);
      EXPECT_EQ(e.versions[1].sites, 2);
    }
  }
}

// libpq quotes a URL it cannot parse in its message: the password is
// hidden there too, and a URL without one (its own redaction) is said once.
TEST(CatalogPostgresUrl, AUrlLibpqCannotParseIsRefusedWithItsPasswordHidden) {
  Result<Catalog> cat = Catalog::Open("postgresql://u:secret@[bad/db", OpenMode::kReadOnly);
  ASSERT_FALSE(cat.has_value());
  EXPECT_EQ(cat.error().message.find("secret"), std::string::npos) << cat.error().message;
  EXPECT_NE(cat.error().message.find("postgresql://u:***@[bad/db"), std::string::npos)
      << cat.error().message;
  cat = Catalog::Open("postgresql://[bad/db", OpenMode::kReadOnly);
  ASSERT_FALSE(cat.has_value());
  EXPECT_NE(cat.error().message.find("in URI: \"postgresql://[bad/db\""), std::string::npos)
      << cat.error().message;
}

TEST(CatalogSqlite, FailedWriteLeavesThePreviousCatalog) {
  TempDir dir;
  std::string path = (dir.path() / "c.db").string();
  {
    Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
    ASSERT_TRUE(cat->WriteSnapshot(Info(), Sample()).has_value());
  }
  // Make the second write fail half-way through its inserts.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw,
                         "CREATE TRIGGER boom BEFORE INSERT ON site_row WHEN new.path = 'boom.py' "
                         "BEGIN SELECT RAISE(ABORT, 'injected failure'); END;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
  Extraction bad = Sample();
  bad.sites.push_back(MakeSite("boom.py", 1, "ValueError", Template::Literal("never stored")));
  Result<WriteSummary> w = cat->WriteSnapshot(Info(), bad);
  ASSERT_FALSE(w.has_value());
  EXPECT_NE(w.error().message.find("injected failure"), std::string::npos);
  Result<Stats> stats = cat->GetStats();
  EXPECT_EQ(stats->sites, 3);
  EXPECT_EQ(stats->errors, 2);
  EXPECT_FALSE(cat->Get(ErrorId("jax-ml/jax", "ValueError", "never stored")).has_value());
}

TEST(CatalogSqlite, RefusesFilesThatAreNotCatalogsOrOfAnotherVersion) {
  TempDir dir;
  std::string text = (dir.path() / "notes.txt").string();
  std::ofstream(text) << "this is not a database at all, just some text that is long enough";
  Result<Catalog> a = Catalog::Open(text, OpenMode::kReadWrite);
  ASSERT_FALSE(a.has_value());
  EXPECT_EQ(a.error().code, ErrorCode::kCorrupt);

  std::string other = (dir.path() / "other.db").string();
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(other.c_str(), &raw), SQLITE_OK);
  sqlite3_exec(raw, "CREATE TABLE t (x)", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  Result<Catalog> b = Catalog::Open(other, OpenMode::kReadWrite);
  ASSERT_FALSE(b.has_value());
  EXPECT_NE(b.error().message.find("not an errdex catalog"), std::string::npos);

  std::string old = (dir.path() / "old.db").string();
  ASSERT_TRUE(Catalog::Open(old, OpenMode::kReadWrite).has_value());
  ASSERT_EQ(sqlite3_open(old.c_str(), &raw), SQLITE_OK);
  sqlite3_exec(raw, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  Result<Catalog> c = Catalog::Open(old, OpenMode::kReadOnly);
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().message.find("schema version 99"), std::string::npos);

  Result<Catalog> d = Catalog::Open((dir.path() / "absent.db").string(), OpenMode::kReadOnly);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().code, ErrorCode::kNotFound);
}

TEST(CatalogSqlite, VersionOneIsUpgradedWhenOpenedForWriting) {
  TempDir dir;
  std::string path = (dir.path() / "v1.db").string();
  {
    Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
    ASSERT_TRUE(cat->WriteSnapshot(Info(), Sample()).has_value());
  }
  // What version 1 lacked: prefilters (version 2), site guards (version 3),
  // analysis (version 4) and content hashes (version 5).
  Exec(path, DowngradeToVersion4Sql() +
                 "DROP TABLE prefilter; ALTER TABLE site DROP COLUMN guards; "
                 "ALTER TABLE site DROP COLUMN trigger; DROP TABLE analysis; "
                 "DROP TABLE family; DROP TABLE enrichment; PRAGMA user_version = 1");
  Result<Catalog> read_only = Catalog::Open(path, OpenMode::kReadOnly);
  ASSERT_FALSE(read_only.has_value());
  EXPECT_NE(read_only.error().message.find("upgrades it"), std::string::npos);
  Result<Catalog> upgraded = Catalog::Open(path, OpenMode::kReadWrite);
  ASSERT_TRUE(upgraded.has_value()) << upgraded.error().message;
  EXPECT_EQ(upgraded->GetStats()->sites, 3);
  int libraries = 0;
  EXPECT_TRUE(
      upgraded
          ->VisitPrefilters([&](const PrefilterBlob& b, std::string_view blob) -> Result<void> {
            ++libraries;
            EXPECT_EQ(b.library, "jax-ml/jax");
            EXPECT_TRUE(blob.empty());  // written before prefilters existed
            return {};
          })
          .has_value());
  EXPECT_EQ(libraries, 1);
  // The analysis tables are back, empty until analysis runs.
  EXPECT_EQ(*upgraded->CountUnanalyzed(""), 2);
  EXPECT_TRUE(upgraded->Families(0)->empty());
  EXPECT_TRUE(Catalog::Open(path, OpenMode::kReadOnly).has_value());
}

TEST(CatalogSqlite, VersionFourIsUpgradedWithHashesForItsRows) {
  TempDir dir;
  std::string path = (dir.path() / "v4.db").string();
  std::string id = ErrorId("jax-ml/jax", "RuntimeError", "Invalid pipeline stage");
  ErrorRecord before;
  {
    Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
    ASSERT_TRUE(cat->WriteSnapshot(Info(), Sample()).has_value());
    Analysis a;
    a.family.slug = "invalid-value";
    FamilyInfo f;
    f.slug = "invalid-value";
    f.name = "Invalid value";
    ASSERT_TRUE(cat->WriteAnalyses({{cat->Get(id)->pk, a}}, {f}).has_value());
    before = *cat->Get(id);
  }
  Exec(path, DowngradeToVersion4Sql());
  std::optional<Catalog> upgraded;
  std::optional<CheckReport> report;
  ASSERT_NO_FATAL_FAILURE(OpenUpgraded(path, upgraded, report));
  EXPECT_EQ(report->sites, 3);
  EXPECT_EQ(report->analyses, 1);
  Result<ErrorRecord> after = upgraded->Get(id);
  ASSERT_TRUE(after.has_value()) << after.error().message;
  EXPECT_EQ(after->sites.size(), before.sites.size());
  EXPECT_EQ(after->sites[1].excerpt, before.sites[1].excerpt);
  ASSERT_TRUE(after->family.has_value());
  EXPECT_EQ(after->family->errors, 1);
}

// Version 6 lacked the snapshot's source digest: the upgrade adds it,
// empty, to every snapshot, and re-hashes them.
TEST(CatalogSqlite, VersionSixIsUpgradedWithAnEmptySourceDigest) {
  TempDir dir;
  std::string path = (dir.path() / "v6.db").string();
  {
    Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
    ASSERT_TRUE(cat->WriteSnapshot(Info("abc"), Sample()).has_value());
    ASSERT_TRUE(cat->WriteSnapshot(Info("def"), Sample()).has_value());
  }
  Exec(path, DowngradeToVersion6Sql());
  std::optional<Catalog> upgraded;
  std::optional<CheckReport> report;
  ASSERT_NO_FATAL_FAILURE(OpenUpgraded(path, upgraded, report));
  EXPECT_EQ(report->snapshots, 2);
  EXPECT_EQ(report->sites, 6);
  Result<std::optional<SnapshotInfo>> snap = upgraded->FindSnapshot("jax-ml/jax", "def");
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  ASSERT_TRUE(snap->has_value());
  EXPECT_EQ((*snap)->source_digest, "");
  // Written again as it was: still the same snapshot, nothing rewritten.
  Result<Catalog> writer = Catalog::Open(path, OpenMode::kReadWrite);
  EXPECT_TRUE(writer->WriteSnapshot(Info("def"), Sample())->unchanged);
}

TEST(CatalogSqlite, VersionSevenIsUpgradedWithEmptySignaturesAndEntries) {
  TempDir dir;
  std::string path = (dir.path() / "v7.db").string();
  // Written as version 7 wrote it: no site knows its parameters.
  Extraction x = Sample();
  {
    Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
    ASSERT_TRUE(cat->WriteSnapshot(Info("abc"), x).has_value());
  }
  x.sites[0].signature = R"([["x","any"]])";
  x.sites[0].entries = R"([{"name":"pkg.f","kind":"function","via":[],"args":{"x":"x"}}])";
  Exec(path, DowngradeToVersion7Sql());
  std::optional<Catalog> upgraded;
  std::optional<CheckReport> report;
  ASSERT_NO_FATAL_FAILURE(OpenUpgraded(path, upgraded, report));
  EXPECT_EQ(report->sites, 3);
  // Written again with its signature: the site is read back with it.
  upgraded.reset();
  Result<Catalog> writer = Catalog::Open(path, OpenMode::kReadWrite);
  ASSERT_TRUE(writer.has_value());
  Result<WriteSummary> again = writer->WriteSnapshot(Info("abc"), x);
  ASSERT_TRUE(again.has_value()) << again.error().message;
  ListQuery all;
  all.with_guards = true;
  Result<std::vector<ErrorRecord>> errors = writer->List(all);
  ASSERT_TRUE(errors.has_value()) << errors.error().message;
  bool seen = false;
  for (const ErrorRecord& e : *errors) {
    for (const SiteRecord& s : e.sites) {
      seen |= s.signature == x.sites[0].signature && s.entries == x.sites[0].entries;
    }
  }
  EXPECT_TRUE(seen);
}

// Analyses one error of the sample (`WriteAnalyses`, as `errdex analyze` does).
void AnalyseOne(Catalog& cat) {
  Analysis a;
  a.family.slug = "invalid-value";
  FamilyInfo f;
  f.slug = "invalid-value";
  f.name = "Invalid value";
  std::string id = ErrorId("jax-ml/jax", "RuntimeError", "Invalid pipeline stage");
  ASSERT_TRUE(cat.WriteAnalyses({{cat.Get(id)->pk, a}}, {f}).has_value());
}

// Version 8 did not say when it was analysed: upgraded, that is unknown
// (never guessed from the indexing times) until the next analysis.
TEST(CatalogSqlite, VersionEightIsUpgradedWithoutAnAnalysisTime) {
  TempDir dir;
  std::string path = (dir.path() / "v8.db").string();
  {
    Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
    ASSERT_TRUE(cat->WriteSnapshot(Info(), Sample()).has_value());
    ASSERT_NO_FATAL_FAILURE(AnalyseOne(*cat));
  }
  Exec(path, DowngradeToVersion8Sql());
  std::optional<Catalog> upgraded;
  std::optional<CheckReport> report;
  ASSERT_NO_FATAL_FAILURE(OpenUpgraded(path, upgraded, report));
  EXPECT_EQ(report->analyses, 1);
  EXPECT_EQ(*upgraded->LastAnalysedAt(), "");
  EXPECT_NE(*upgraded->LastIndexedAt(), "");
  upgraded.reset();
  Result<Catalog> writer = Catalog::Open(path, OpenMode::kReadWrite);
  ASSERT_NO_FATAL_FAILURE(AnalyseOne(*writer));
  EXPECT_EQ(writer->LastAnalysedAt()->size(), 20u);
  EXPECT_TRUE(writer->Check()->problems.empty());
}

// When the catalog was last analysed is its own fact, not the indexing
// time: set by each analysis, left alone by indexing, and checked against
// the seal like every row.
// Version 9 held a row per snapshot and site: the upgrade moves each into
// the shared tables, equal copies into one row, and a later write of a
// version shares the rows it holds unchanged.
TEST(CatalogSqlite, VersionNineIsUpgradedToSharedSites) {
  TempDir dir;
  std::string path = (dir.path() / "v9.db").string();
  std::string id = ErrorId("jax-ml/jax", "RuntimeError", "Invalid pipeline stage");
  ErrorRecord before;
  {
    Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
    ASSERT_TRUE(cat->WriteSnapshot(Info("v1"), Sample()).has_value());
    ASSERT_TRUE(cat->WriteSnapshot(Info("v2"), Sample()).has_value());
    before = *cat->Get(id);
  }
  Exec(path, DowngradeToVersion9Sql());
  std::optional<Catalog> upgraded;
  std::optional<CheckReport> report;
  ASSERT_NO_FATAL_FAILURE(OpenUpgraded(path, upgraded, report));
  EXPECT_EQ(report->sites, 6);
  Result<ErrorRecord> after = upgraded->Get(id);
  ASSERT_TRUE(after.has_value()) << after.error().message;
  ASSERT_EQ(after->sites.size(), before.sites.size());
  for (size_t i = 0; i < before.sites.size(); ++i) {
    EXPECT_EQ(after->sites[i].line, before.sites[i].line);
    EXPECT_EQ(after->sites[i].excerpt, before.sites[i].excerpt);
    EXPECT_EQ(after->sites[i].rev, before.sites[i].rev);
  }
  EXPECT_EQ(after->versions.size(), 2u);
  upgraded.reset();
  auto count = [&](const char* sql) {
    sqlite3* raw = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(raw, sql, -1, &st, nullptr), SQLITE_OK) << sql;
    int n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    sqlite3_close(raw);
    return n;
  };
  // The two releases' copies are one row each, and no text or guard is
  // stored twice; every link still finds its row.
  EXPECT_EQ(count("SELECT count(*) FROM site_row"), 3);
  EXPECT_EQ(count("SELECT count(*) FROM site_link"), 6);
  EXPECT_EQ(count("SELECT count(*) FROM site_text"),
            count("SELECT count(*) FROM (SELECT DISTINCT statement, excerpt FROM site_text)"));
  EXPECT_EQ(count("SELECT count(*) FROM site_guard"),
            count("SELECT count(*) FROM (SELECT DISTINCT guards, trigger, signature, entries "
                  "FROM site_guard)"));
  EXPECT_EQ(count("SELECT count(*) FROM site_row WHERE text_pk NOT IN (SELECT pk FROM site_text) "
                  "OR guard_pk NOT IN (SELECT pk FROM site_guard)"),
            0);
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
  ASSERT_TRUE(cat->WriteSnapshot(Info("v3"), Sample()).has_value());
  Result<CheckReport> checked = cat->Check();
  ASSERT_TRUE(checked.has_value());
  EXPECT_TRUE(checked->problems.empty()) << checked->problems.front();
  EXPECT_EQ(checked->sites, 9);
  EXPECT_EQ(count("SELECT count(*) FROM site_row"), 3);  // v3 shares them too
}

// The same upgrade on PostgreSQL, in place, by the first writer: a
// catalog made at version 10 is taken back to 9's one site table.
TEST(CatalogPostgres, VersionNineIsUpgradedInPlace) {
  if (!testing::TestingPostgres()) GTEST_SKIP() << "the PostgreSQL run has it";
  TempDir dir;
  std::string url = dir.Catalog();
  std::string id = ErrorId("jax-ml/jax", "RuntimeError", "Invalid pipeline stage");
  ErrorRecord before;
  {
    Result<Catalog> cat = Catalog::Open(url, OpenMode::kReadWrite);
    ASSERT_TRUE(cat.has_value()) << cat.error().message;
    ASSERT_TRUE(cat->WriteSnapshot(Info("v1"), Sample()).has_value());
    ASSERT_TRUE(cat->WriteSnapshot(Info("v2"), Sample()).has_value());
    before = *cat->Get(id);
  }
  std::string sql = DowngradeToVersion9Sql();
  auto replace = [&](const std::string& from, const std::string& to) {
    for (size_t at = sql.find(from); at != std::string::npos; at = sql.find(from, at + to.size())) {
      sql.replace(at, from.size(), to);
    }
  };
  replace("pk INTEGER PRIMARY KEY", "pk BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY");
  replace("INTEGER", "BIGINT");
  replace("ORDER BY l.rowid", "ORDER BY l.snapshot_pk, l.row_pk");
  replace("PRAGMA user_version = 10;", "");
  replace("PRAGMA user_version = 9;", "UPDATE errdex_catalog SET schema_version = 9;");
  ASSERT_EQ(testing::PostgresExec(url, sql), "");
  Result<Catalog> read_only = Catalog::Open(url, OpenMode::kReadOnly);
  ASSERT_FALSE(read_only.has_value());
  EXPECT_NE(read_only.error().message.find("schema version 9"), std::string::npos);
  Result<Catalog> cat = Catalog::Open(url, OpenMode::kReadWrite);
  ASSERT_TRUE(cat.has_value()) << cat.error().message;
  Result<CheckReport> checked = cat->Check();
  ASSERT_TRUE(checked.has_value());
  EXPECT_TRUE(checked->problems.empty()) << checked->problems.front();
  EXPECT_EQ(checked->sites, 6);
  Result<ErrorRecord> after = cat->Get(id);
  ASSERT_TRUE(after.has_value()) << after.error().message;
  ASSERT_EQ(after->sites.size(), before.sites.size());
  for (size_t i = 0; i < before.sites.size(); ++i) {
    EXPECT_EQ(after->sites[i].line, before.sites[i].line);
    EXPECT_EQ(after->sites[i].excerpt, before.sites[i].excerpt);
  }
  // The two releases' copies are one row each (an error names the counts).
  auto expect = [&](const std::string& query, int n) {
    EXPECT_EQ(testing::PostgresExec(url, "DO $$ BEGIN IF (" + query + ") <> " + std::to_string(n) +
                                             " THEN RAISE EXCEPTION '% rows', (" + query +
                                             "); END IF; END $$;"),
              "")
        << query;
  };
  expect("SELECT count(*) FROM site_row", 3);
  expect("SELECT count(*) FROM site_link", 6);
  expect(
      "SELECT count(*) - (SELECT count(*) FROM (SELECT DISTINCT statement, excerpt FROM "
      "site_text) d) FROM site_text",
      0);
  ASSERT_TRUE(cat->WriteSnapshot(Info("v3"), Sample()).has_value());
  checked = cat->Check();
  ASSERT_TRUE(checked.has_value());
  EXPECT_TRUE(checked->problems.empty()) << checked->problems.front();
  expect("SELECT count(*) FROM site_row", 3);
}

TEST(CatalogSqlite, TheLastAnalysisTimeIsKeptApartAndChecked) {
  TempDir dir;
  std::string path = (dir.path() / "c.db").string();
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
  ASSERT_TRUE(cat->WriteSnapshot(Info("abc"), Sample()).has_value());
  EXPECT_EQ(*cat->LastAnalysedAt(), "");
  ASSERT_NO_FATAL_FAILURE(AnalyseOne(*cat));
  std::string analysed = *cat->LastAnalysedAt();
  ASSERT_EQ(analysed.size(), 20u) << analysed;
  EXPECT_EQ(analysed.back(), 'Z');
  EXPECT_EQ(cat->GetStats()->analysed_at, analysed);
  // Indexing another version a second later is no analysis.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_TRUE(cat->WriteSnapshot(Info("def"), Sample()).has_value());
  EXPECT_EQ(*cat->LastAnalysedAt(), analysed);
  EXPECT_GT(*cat->LastIndexedAt(), analysed);
  // An analysis of nothing at all is still an analysis, and seals.
  ASSERT_TRUE(cat->WriteAnalyses({}, {}).has_value());
  EXPECT_GT(*cat->LastAnalysedAt(), analysed);
  EXPECT_TRUE(cat->Check()->problems.empty());
  // Changed or removed behind errdex's back, it is damage.
  Exec(path, "UPDATE meta SET value = '2001-02-03T04:05:06Z'");
  Result<Catalog> reader = Catalog::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(reader.has_value());
  Result<std::string> tampered = reader->LastAnalysedAt();
  ASSERT_FALSE(tampered.has_value());
  EXPECT_EQ(tampered.error().code, ErrorCode::kCorrupt);
  Exec(path, "DELETE FROM meta");
  Result<Catalog> again = Catalog::Open(path, OpenMode::kReadOnly);
  Result<std::string> removed = again->LastAnalysedAt();
  ASSERT_FALSE(removed.has_value());
  EXPECT_NE(removed.error().message.find("the meta table does not match the seal"),
            std::string::npos)
      << removed.error().message;
}

TEST(Catalog, SignaturesOfPairsAndOfTriplesWithDocsReadBack) {
  TempDir dir;
  std::string path = dir.Catalog();
  Extraction x = Sample();
  // As errdex wrote it before docstring lines: [name, kind] pairs.
  x.sites[0].signature = R"([["self","any"],["mode","kw"]])";
  // With them: a third element where the docstring has an entry.
  x.sites[1].signature = R"([["stage","any","The stage, \"0\" or 1."],["n","pos"]])";
  // Damaged: not an entry of two or three strings. Nothing, not a guess.
  x.sites[2].signature = R"([["stage","any",3]])";
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
  ASSERT_TRUE(cat->WriteSnapshot(Info("abc"), x).has_value());
  ListQuery all;
  all.with_guards = true;
  Result<std::vector<ErrorRecord>> errors = cat->List(all);
  ASSERT_TRUE(errors.has_value()) << errors.error().message;
  std::map<int, std::vector<Parameter>> by_line;
  for (const ErrorRecord& e : *errors) {
    for (const SiteRecord& s : e.sites) by_line[s.line] = SiteParameters(s);
  }
  ASSERT_EQ(by_line[10].size(), 2u);
  EXPECT_EQ(by_line[10][1].name, "mode");
  EXPECT_EQ(by_line[10][1].kind, "kw");
  EXPECT_EQ(by_line[10][1].doc, "");
  ASSERT_EQ(by_line[187].size(), 2u);
  EXPECT_EQ(by_line[187][0].doc, "The stage, \"0\" or 1.");
  EXPECT_EQ(by_line[187][1].name, "n");
  EXPECT_EQ(by_line[187][1].doc, "");
  EXPECT_TRUE(by_line[210].empty());
}

TEST(CatalogSqlite, FindsASnapshotByLibraryAndRevision) {
  TempDir dir;
  std::string path = (dir.path() / "c.db").string();
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
  SnapshotInfo info = Info("1.0");
  info.kind = "python-package";
  info.commit = "";
  info.source_digest = "0123456789abcdef";
  ASSERT_TRUE(cat->WriteSnapshot(info, Sample()).has_value());
  ASSERT_TRUE(cat->WriteSnapshot(Info("2.0"), Sample()).has_value());
  Result<Catalog> reader = Catalog::Open(path, OpenMode::kReadOnly);
  Result<std::optional<SnapshotInfo>> found = reader->FindSnapshot("jax-ml/jax", "1.0");
  ASSERT_TRUE(found.has_value()) << found.error().message;
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->kind, "python-package");
  EXPECT_EQ((*found)->source_digest, "0123456789abcdef");
  EXPECT_EQ((*found)->url, "https://github.com/jax-ml/jax");
  EXPECT_EQ((*found)->root, "/src/jax");
  EXPECT_EQ((*reader->FindSnapshot("jax-ml/jax", "2.0"))->source_digest, "");
  EXPECT_FALSE(reader->FindSnapshot("jax-ml/jax", "3.0")->has_value());
  EXPECT_FALSE(reader->FindSnapshot("other/lib", "1.0")->has_value());

  // The same content from a changed source is a new write (the digest is
  // part of what is stored), and the row's hash covers it.
  info.source_digest = "fedcba9876543210";
  Result<WriteSummary> w = cat->WriteSnapshot(info, Sample());
  ASSERT_TRUE(w.has_value());
  EXPECT_FALSE(w->unchanged);
  EXPECT_EQ((*cat->FindSnapshot("jax-ml/jax", "1.0"))->source_digest, "fedcba9876543210");
  EXPECT_TRUE(cat->WriteSnapshot(info, Sample())->unchanged);
  EXPECT_TRUE(cat->Check()->problems.empty());
  Exec(path, "UPDATE snapshot SET source_digest = '0000000000000000' WHERE rev = '1.0'");
  Result<Catalog> damaged = Catalog::Open(path, OpenMode::kReadOnly);
  Result<std::optional<SnapshotInfo>> read = damaged->FindSnapshot("jax-ml/jax", "1.0");
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().code, ErrorCode::kCorrupt);
}

// Another release tag of a snapshot's commit is stored with it, covered by
// its hash, and names it; a rev of the library wins over an alias.
TEST(CatalogSqlite, AReleaseTagOfAStoredCommitNamesItsSnapshot) {
  TempDir dir;
  std::string path = (dir.path() / "c.db").string();
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
  SnapshotInfo info = Info("v0.1.74");
  info.aliases = {"v0.1.75", "v0.1.75rc1"};
  ASSERT_TRUE(cat->WriteSnapshot(info, Sample()).has_value());
  SnapshotInfo next = Info("v0.1.76");
  next.aliases = {"v0.1.74"};  // not a real case: a rev is never another's alias in one run
  ASSERT_TRUE(cat->WriteSnapshot(next, Sample()).has_value());
  EXPECT_EQ((*cat->FindSnapshot("jax-ml/jax", "v0.1.74"))->aliases, info.aliases);
  EXPECT_EQ(*cat->ResolveVersion("v0.1.75"), "v0.1.74");
  EXPECT_EQ(*cat->ResolveVersion("v0.1.75rc1", "jax-ml/jax"), "v0.1.74");
  EXPECT_EQ(*cat->ResolveVersion("v0.1.74"), "v0.1.74");
  EXPECT_EQ(*cat->ResolveVersion("v0.1.75", "other/lib"), std::nullopt);
  EXPECT_EQ(*cat->ResolveVersion("v9"), std::nullopt);
  EXPECT_EQ(*cat->VersionNames(), (std::set<std::string>{"v0.1.74", "v0.1.76"}));
  EXPECT_TRUE(cat->VersionNames("other/lib")->empty());
  Result<ErrorRecord> e = cat->Get(ErrorId("jax-ml/jax", "RuntimeError", "Invalid pipeline stage"));
  ASSERT_TRUE(e.has_value()) << e.error().message;
  ASSERT_EQ(e->versions.size(), 2u);
  EXPECT_EQ(e->versions[0].aliases, info.aliases);
  // A tag added later is a new write of the same content.
  info.aliases.push_back("v0.1.75-final");
  Result<WriteSummary> w = cat->WriteSnapshot(info, Sample());
  ASSERT_TRUE(w.has_value());
  EXPECT_FALSE(w->unchanged);
  EXPECT_TRUE(cat->WriteSnapshot(info, Sample())->unchanged);
  EXPECT_EQ(*cat->ResolveVersion("v0.1.75-final"), "v0.1.74");
  EXPECT_TRUE(cat->Check()->problems.empty());
  Exec(path, "UPDATE snapshot SET aliases = 'v9.9' WHERE rev = 'v0.1.74'");
  Result<Catalog> damaged = Catalog::Open(path, OpenMode::kReadOnly);
  Result<std::optional<std::string>> read = damaged->ResolveVersion("v9.9");
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().code, ErrorCode::kCorrupt);
}

// A version-10 catalog gains empty aliases; writing one afterwards works.
TEST(CatalogSqlite, VersionTenIsUpgradedWithNoAliases) {
  TempDir dir;
  std::string path = (dir.path() / "v10.db").string();
  {
    Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
    ASSERT_TRUE(cat->WriteSnapshot(Info("v1"), Sample()).has_value());
  }
  Exec(path, DowngradeToVersion10Sql());
  std::optional<Catalog> upgraded;
  std::optional<CheckReport> report;
  ASSERT_NO_FATAL_FAILURE(OpenUpgraded(path, upgraded, report));
  EXPECT_TRUE((*upgraded->FindSnapshot("jax-ml/jax", "v1"))->aliases.empty());
  upgraded.reset();
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
  SnapshotInfo info = Info("v1");
  info.aliases = {"v1-final"};
  ASSERT_TRUE(cat->WriteSnapshot(info, Sample()).has_value());
  EXPECT_EQ(*cat->ResolveVersion("v1-final"), "v1");
  EXPECT_TRUE(cat->Check()->problems.empty());
}

Template BadValue(const std::string& expression) {
  Template t = Template::Literal("Int cannot represent non-integer value: ");
  t.AppendValue(expression, ValueKind::kStr);
  t.AssignNames();
  return t;
}

// graphql raises one message at two sites naming its value differently: one
// error listing both sites, shown with its first site's template.
TEST(Catalog, TemplatesDifferingOnlyInPlaceholderNamesAreOneError) {
  TempDir dir;
  std::string path = dir.Catalog();
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
  Extraction x;
  x.sites.push_back(MakeSite("type/scalars.py", 91, "GraphQLError", BadValue("output_value")));
  x.sites.push_back(MakeSite("type/scalars.py", 77, "GraphQLError", BadValue("input_value")));
  Template repr = Template::Literal("Int cannot represent non-integer value: ");
  repr.AppendValue("input_value", ValueKind::kRepr, "!r");
  repr.AssignNames();
  x.sites.push_back(MakeSite("type/scalars.py", 120, "GraphQLError", repr));
  Result<WriteSummary> w = cat->WriteSnapshot(Info(), x);
  ASSERT_TRUE(w.has_value()) << w.error().message;
  EXPECT_EQ(w->errors, 2);  // a repr is another error
  std::string id = ErrorId("jax-ml/jax", "GraphQLError", BadValue("anything"));
  Result<ErrorRecord> e = cat->Get(id);
  ASSERT_TRUE(e.has_value()) << e.error().message;
  EXPECT_EQ(e->template_text, "Int cannot represent non-integer value: {input_value}");
  ASSERT_EQ(e->sites.size(), 2u);
  EXPECT_EQ(e->sites[0].line, 77);
  EXPECT_EQ(e->sites[1].line, 91);

  // Re-indexed without the first site: the error shows the template of
  // the site that is first now, and search finds it by that.
  x.sites.erase(x.sites.begin() + 1);
  ASSERT_TRUE(cat->WriteSnapshot(Info(), x).has_value());
  e = cat->Get(id);
  ASSERT_TRUE(e.has_value()) << e.error().message;
  EXPECT_EQ(e->template_text, "Int cannot represent non-integer value: {output_value}");
  ASSERT_EQ(e->sites.size(), 1u);
  Result<std::vector<ErrorRecord>> found = cat->Search("output_value", 5);
  ASSERT_TRUE(found.has_value());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(found->front().id, id);
  Result<CheckReport> report = cat->Check();
  ASSERT_TRUE(report.has_value());
  EXPECT_TRUE(report->problems.empty()) << report->problems.front();
}

// One raise read as two templates that differ only in placeholder names
// (a class's __str__ with two branches naming its fields apart) is one
// error, and one site of it: listed once, counted once.
TEST(Catalog, OneRaiseReadAsTwoNamingsOfATemplateIsOneSite) {
  TempDir dir;
  Result<Catalog> cat = Catalog::Open(dir.Catalog(), OpenMode::kReadWrite);
  ASSERT_TRUE(cat.has_value()) << cat.error().message;
  Extraction x;
  x.sites.push_back(MakeSite("language/lexer.py", 306, "GraphQLSyntaxError", BadValue("a")));
  x.sites.push_back(MakeSite("language/lexer.py", 306, "GraphQLSyntaxError", BadValue("b")));
  x.sites.push_back(MakeSite("language/lexer.py", 433, "GraphQLSyntaxError", BadValue("a")));
  Result<WriteSummary> w = cat->WriteSnapshot(Info(), x);
  ASSERT_TRUE(w.has_value()) << w.error().message;
  EXPECT_EQ(w->errors, 1);
  EXPECT_EQ(w->sites, 2);
  Result<ErrorRecord> e = cat->Get(ErrorId("jax-ml/jax", "GraphQLSyntaxError", BadValue("c")));
  ASSERT_TRUE(e.has_value()) << e.error().message;
  ASSERT_EQ(e->sites.size(), 2u);
  EXPECT_EQ(e->sites[0].line, 306);
  EXPECT_EQ(e->sites[1].line, 433);
  // Written again as it is, and with the duplicate gone: nothing moves.
  ASSERT_TRUE(cat->WriteSnapshot(Info(), x).has_value());
  x.sites.erase(x.sites.begin() + 1);
  w = cat->WriteSnapshot(Info(), x);
  ASSERT_TRUE(w.has_value()) << w.error().message;
  EXPECT_EQ(w->sites, 2);
  e = cat->Get(e->id);
  ASSERT_TRUE(e.has_value()) << e.error().message;
  EXPECT_EQ(e->sites.size(), 2u);
  Result<CheckReport> report = cat->Check();
  ASSERT_TRUE(report.has_value());
  EXPECT_TRUE(report->problems.empty()) << report->problems.front();
}

// A version 5 catalog gave each placeholder name its own error and id: the
// upgrade merges them under the new id, keeping the model-written prose.
TEST(CatalogSqlite, VersionFiveIsUpgradedToOneErrorPerIdentity) {
  TempDir dir;
  std::string path = (dir.path() / "v5.db").string();
  std::string lib = "jax-ml/jax";
  std::string id = ErrorId(lib, "GraphQLError", BadValue("x"));
  std::string old_first = ErrorId(lib, "GraphQLError", BadValue("input_value").Display());
  std::string old_second = ErrorId(lib, "GraphQLError", BadValue("output_value").Display());
  {
    Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
    Extraction x;
    x.sites.push_back(MakeSite("a.py", 1, "GraphQLError", BadValue("input_value")));
    x.sites.push_back(MakeSite("b.py", 1, "GraphQLError", BadValue("output_value")));
    ASSERT_TRUE(cat->WriteSnapshot(Info(), x).has_value());
    Enrichment prose;
    prose.model = "m";
    prose.meaning = "an integer was expected";
    ASSERT_TRUE(cat->WriteEnrichment(id, prose).has_value());
  }
  // What schema 5 stored: two errors, ids hashing the display form.
  std::string second = BadValue("output_value").Display();
  Exec(path,
       "UPDATE error SET id = '" + old_first +
           "';"
           "UPDATE enrichment SET error_id = '" +
           old_second +
           "';"
           "INSERT INTO error (id, library_pk, exception, template, kind, pieces, literal_size, "
           "dynamic, internal) SELECT '" +
           old_second + "', library_pk, exception, '" + second +
           "', kind, replace(pieces, 'input_value', 'output_value'), literal_size, dynamic, "
           "internal FROM error;"
           "INSERT INTO error_fts (rowid, template, exception) SELECT pk, template, exception "
           "FROM error WHERE id = '" +
           old_second +
           "';"
           "UPDATE site_row SET error_pk = (SELECT pk FROM error WHERE id = '" +
           old_second +
           "') WHERE path = 'b.py';"
           "INSERT INTO analysis (error_pk, family, data) SELECT pk, 'invalid-value', '{}' "
           "FROM error;" +
           DowngradeToVersion6Sql() + "PRAGMA user_version = 5;");
  std::optional<Catalog> upgraded;
  std::optional<CheckReport> report;
  ASSERT_NO_FATAL_FAILURE(OpenUpgraded(path, upgraded, report));
  EXPECT_EQ(report->errors, 1);
  EXPECT_EQ(report->analyses, 1);  // the merged error's went with it
  Result<ErrorRecord> e = upgraded->Get(id);
  ASSERT_TRUE(e.has_value()) << e.error().message;
  EXPECT_EQ(e->template_text, "Int cannot represent non-integer value: {input_value}");
  EXPECT_EQ(e->sites.size(), 2u);
  ASSERT_TRUE(e->enrichment.has_value());
  EXPECT_EQ(e->enrichment->meaning, "an integer was expected");
  EXPECT_FALSE(upgraded->Get(old_second).has_value());
}

// An index run holds one transaction across its writes: until it commits,
// nothing of it is in the catalog, and dropping it leaves the catalog as
// it was (what a kill between the site and the analysis writes does).
TEST(Catalog, AWriteTransactionIsAllOrNothing) {
  TempDir dir;
  std::string path = dir.Catalog();
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite);
  ASSERT_TRUE(cat->WriteSnapshot(Info(), Sample()).has_value());
  Extraction changed = Sample();
  changed.sites.push_back(
      MakeSite("new.py", 3, "TypeError", Template::Literal("only in the second run")));
  std::string new_id = ErrorId("jax-ml/jax", "TypeError", "only in the second run");
  {
    Result<WriteTransaction> tx = WriteTransaction::Begin(*cat);
    ASSERT_TRUE(tx.has_value());
    ASSERT_TRUE(cat->WriteSnapshot(Info(), changed).has_value());
    // The writer sees its own write; another reader does not.
    EXPECT_TRUE(cat->Get(new_id).has_value());
    Result<Catalog> reader = Catalog::Open(path, OpenMode::kReadOnly);
    EXPECT_EQ(reader->Get(new_id).error().code, ErrorCode::kNotFound);
  }  // dropped before the analysis: rolled back
  EXPECT_EQ(cat->Get(new_id).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(cat->GetStats()->sites, 3);
  EXPECT_TRUE(cat->Check()->problems.empty());

  Result<WriteTransaction> tx = WriteTransaction::Begin(*cat);
  ASSERT_TRUE(cat->WriteSnapshot(Info(), changed).has_value());
  Analysis a;
  a.family.slug = "wrong-type";
  FamilyInfo f;
  f.slug = "wrong-type";
  f.name = "Wrong type";
  ASSERT_TRUE(cat->WriteAnalyses({{cat->Get(new_id)->pk, a}}, {f}).has_value());
  ASSERT_TRUE(tx->Commit().has_value());
  Result<Catalog> reader = Catalog::Open(path, OpenMode::kReadOnly);
  Result<ErrorRecord> e = reader->Get(new_id);
  ASSERT_TRUE(e.has_value()) << e.error().message;
  ASSERT_TRUE(e->analysis.has_value());
  EXPECT_EQ(e->family->errors, 1);
  EXPECT_TRUE(reader->Check()->problems.empty());
}

// Another errdex holding the catalog's write lock is waited for, and said
// so once, not failed on (the lock is the backend's: SQLite's file lock,
// PostgreSQL's advisory lock).
TEST(Catalog, AWriterWaitsForAnotherOneAndSaysSo) {
  TempDir dir;
  std::string path = dir.Catalog();
  Result<Catalog> other = Catalog::Open(path, OpenMode::kReadWrite);
  ASSERT_TRUE(other.has_value()) << other.error().message;
  Result<WriteTransaction> held = WriteTransaction::Begin(*other);
  ASSERT_TRUE(held.has_value()) << held.error().message;
  // The lock is let go once the writer says it waits (or after a minute, and
  // then the count below fails): a fixed hold would race a loaded machine.
  std::atomic<int> notices = 0;
  std::atomic<bool> wrote = false;
  std::thread holder([&] {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (notices == 0 && !wrote && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_FALSE(wrote) << "written while another writer held the lock";
    EXPECT_TRUE(held->Commit().has_value());
  });
  Result<Catalog> cat = Catalog::Open(path, OpenMode::kReadWrite, [&] { ++notices; });
  Result<WriteSummary> w = cat ? cat->WriteSnapshot(Info(), Sample())
                               : Result<WriteSummary>(tl::unexpected(cat.error()));
  wrote = true;
  holder.join();
  ASSERT_TRUE(w.has_value()) << w.error().message;
  EXPECT_EQ(notices, 1);
  EXPECT_EQ(cat->GetStats()->sites, 3);
}

TEST(CatalogSqlite, SchemaIsStamped) {
  TempDir dir;
  std::string path = (dir.path() / "c.db").string();
  ASSERT_TRUE(Catalog::Open(path, OpenMode::kReadWrite).has_value());
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(raw, "PRAGMA application_id", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), kApplicationId);
  sqlite3_finalize(st);
  sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), kSchemaVersion);
  sqlite3_finalize(st);
  sqlite3_close(raw);
}

// The backends are one catalog: the fixture libraries indexed into the
// suite's catalog (PostgreSQL in the .pg. run) and into a SQLite file read
// back the same through every command. Only what is a
// clock (indexing and analysis times) or a ranking of the engine's own
// (search order) may differ.
TEST(Catalog, TheFixturesReadTheSameOnEveryBackend) {
  TempDir dir;
  std::string suite = dir.Catalog("suite.db");
  std::string file = (dir.path() / "file.db").string();
  // Copies, outside the repository: snapshots of plain directories.
  for (const char* lib : {"python", "cpp"}) {
    std::filesystem::copy(testing::FixtureDir(lib), dir.path() / lib,
                          std::filesystem::copy_options::recursive);
  }
  for (const std::string& db : {suite, file}) {
    for (const char* lib : {"python", "cpp"}) {
      testing::CommandResult r =
          testing::RunErrdex({"--db", db, "index", (dir.path() / lib).string(), "--name",
                              std::string("fixture/") + lib, "--rev", "1.0", "-q"});
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
  }
  auto run = [](const std::string& db, std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db});
    testing::CommandResult r = testing::RunErrdex(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  std::string listed = run(file, {"list", "--json"});
  EXPECT_EQ(run(suite, {"list", "--json"}), listed);
  std::vector<nlohmann::json> errors = testing::JsonLines(listed);
  ASSERT_GT(errors.size(), 100u);
  // Every record in full for one error in ten: a process each is slow.
  for (size_t i = 0; i < errors.size(); i += 10) {
    std::string id = errors[i]["id"];
    EXPECT_EQ(run(suite, {"show", id, "--json"}), run(file, {"show", id, "--json"})) << id;
  }
  EXPECT_EQ(run(suite, {"families", "--json"}), run(file, {"families", "--json"}));
  auto without_clocks = [](std::string text) {
    nlohmann::json j = nlohmann::json::parse(text);
    j.erase("analysed_at");
    for (nlohmann::json& s : j["per_snapshot"]) s.erase("indexed_at");
    return j;
  };
  EXPECT_EQ(without_clocks(run(suite, {"stats", "--json"})),
            without_clocks(run(file, {"stats", "--json"})));
  auto found = [](const std::string& text) {
    std::set<std::string> ids;
    for (const nlohmann::json& e : nlohmann::json::parse(text)) ids.insert(e["id"]);
    return ids;
  };
  for (const char* words : {"invalid", "not suppor", "shape", "Value"}) {
    EXPECT_EQ(found(run(suite, {"search", words, "--json", "--limit", "1000"})),
              found(run(file, {"search", words, "--json", "--limit", "1000"})))
        << words;
  }
  EXPECT_NE(run(suite, {"check"}).find(": ok: "), std::string::npos);
}

TEST(Catalog, SearchFindsTemplatesAndSurvivesOddQueries) {
  TempDir dir;
  Result<Catalog> cat = Catalog::Open(dir.Catalog(), OpenMode::kReadWrite);
  ASSERT_TRUE(cat->WriteSnapshot(Info(), Sample()).has_value());
  Result<std::vector<ErrorRecord>> found = cat->Search("pipeline stag", 10);
  ASSERT_TRUE(found.has_value());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(found->front().template_text, "Invalid pipeline stage");
  EXPECT_EQ(cat->Search("ValueError", 10)->size(), 1u);
  for (const char* q : {"\"", "AND OR NOT", "*", "(", "NEAR(", "{self}", "", "   ", "col:x"}) {
    EXPECT_TRUE(cat->Search(q, 10).has_value()) << q;
  }
}

TEST(Catalog, ListFiltersByLibrary) {
  TempDir dir;
  Result<Catalog> cat = Catalog::Open(dir.Catalog(), OpenMode::kReadWrite);
  ASSERT_TRUE(cat->WriteSnapshot(Info(), Sample()).has_value());
  SnapshotInfo other = Info();
  other.library = "numpy/numpy";
  ASSERT_TRUE(cat->WriteSnapshot(other, Sample()).has_value());
  ListQuery q;
  EXPECT_EQ(cat->List(q)->size(), 4u);
  q.library = "numpy/numpy";
  Result<std::vector<ErrorRecord>> numpy = cat->List(q);
  ASSERT_EQ(numpy->size(), 2u);
  for (const ErrorRecord& e : *numpy) EXPECT_EQ(e.library, "numpy/numpy");
}

TEST(Catalog, LibraryNamesAreSafeAsPathsAndUrls) {
  EXPECT_TRUE(IsLibraryName("jax-ml/jax"));
  EXPECT_TRUE(IsLibraryName("python/cpython"));
  for (const char* bad :
       {"jax", "/jax", "jax/", "a/b/c", "../b", "a/..", "a/b..c", ".a/b", "a b/c", "a/<b>"}) {
    EXPECT_FALSE(IsLibraryName(bad)) << bad;
  }
  EXPECT_FALSE(IsLibraryName("a/" + std::string(300, 'b')));
}

}  // namespace
}  // namespace errdex::catalog
