#include "catalog/catalog.h"

#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t on the stack
#include <xxhash.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <set>
#include <unordered_map>
#include <utility>

#include "catalog/json.h"
#include "catalog/schema.h"
#include "core/error_id.h"
#include "core/text.h"

namespace errdex::catalog {
namespace {

// Hashes everything a snapshot stores, so an identical re-index is a no-op.
class Digest {
 public:
  Digest() { XXH3_128bits_reset(&state_); }
  void Add(std::string_view s) {
    uint64_t n = s.size();
    XXH3_128bits_update(&state_, &n, sizeof n);
    XXH3_128bits_update(&state_, s.data(), s.size());
  }
  void Add(int64_t v) { XXH3_128bits_update(&state_, &v, sizeof v); }
  std::string Hex() {
    XXH128_hash_t h = XXH3_128bits_digest(&state_);
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                  static_cast<unsigned long long>(h.low64));
    return buf;
  }

 private:
  XXH3_state_t state_;
};

std::string ComputeDigest(const SnapshotInfo& info, const Extraction& x,
                          const std::vector<std::string>& pieces_json,
                          const std::vector<std::string>& guards_json) {
  Digest d;
  d.Add(std::string_view("errdex-snapshot-v1"));
  for (const std::string* s :
       {&info.url, &info.commit, &info.date, &info.kind, &info.root, &info.subdir}) {
    d.Add(*s);
  }
  d.Add(x.files_scanned);
  d.Add(x.bytes_scanned);
  for (size_t i = 0; i < x.sites.size(); ++i) {
    const Site& s = x.sites[i];
    for (const std::string* f :
         {&s.exception, &s.exception_written, &s.language, &s.path, &s.function, &s.statement,
          &s.excerpt, &s.cause, &s.via, &pieces_json[i], &guards_json[i], &s.trigger}) {
      d.Add(*f);
    }
    d.Add(std::string_view(SiteKindName(s.kind)));
    for (int v : {s.line, s.column, s.end_line, s.excerpt_line, static_cast<int>(s.internal)}) {
      d.Add(static_cast<int64_t>(v));
    }
  }
  for (const NonSite& n : x.non_sites) {
    d.Add(n.path);
    d.Add(static_cast<int64_t>(n.line));
    d.Add(n.reason);
  }
  for (const FileIssue& i : x.issues) {
    d.Add(i.path);
    d.Add(i.reason);
    d.Add(i.detail);
    d.Add(static_cast<int64_t>(i.skipped));
  }
  for (const ExceptionClass& c : x.classes) {
    d.Add(c.name);
    d.Add(c.path);
    d.Add(static_cast<int64_t>(c.line));
    for (const std::string& b : c.bases) d.Add(b);
  }
  return d.Hex();
}

std::string JoinComma(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) {
    if (!out.empty()) out.push_back(',');
    out.append(s);
  }
  return out;
}

// Free text to an FTS5 query: each word quoted (so no FTS5 syntax in user
// text can fail), all required, the last one as a prefix.
std::string FtsQuery(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || u >= 0x80) {
      word.push_back(c);
    } else {
      flush();
    }
  }
  flush();
  if (words.size() > 32) words.resize(32);
  std::string q;
  for (size_t i = 0; i < words.size(); ++i) {
    if (!q.empty()) q.push_back(' ');
    q += "\"" + words[i] + "\"";
    if (i + 1 == words.size()) q.push_back('*');
  }
  return q;
}

constexpr std::string_view kErrorColumns =
    "e.pk, e.id, l.name, e.exception, e.template, e.kind, e.pieces, e.dynamic, e.internal";

}  // namespace

namespace {

std::string SiteSelect(SiteDetail detail) {
  std::string details = detail == SiteDetail::kFull
                            ? "s.statement, s.excerpt_line, s.excerpt, s.guards, s.trigger"
                        : detail == SiteDetail::kGuards ? "'', 0, '', s.guards, s.trigger"
                                                        : "'', 0, '', '[]', ''";
  return "SELECT s.error_pk, l.name, n.rev, n.commit_sha, n.date, s.language, s.path, s.line, "
         "s.col, s.end_line, s.function, s.kind, s.exception_written, " +
         details +
         ", s.cause, s.via, s.internal, l.url, n.subdir "
         "FROM site s JOIN snapshot n ON n.pk = s.snapshot_pk "
         "JOIN library l ON l.pk = n.library_pk ";
}

// A row of kErrorColumns.
Result<ErrorRecord> ReadError(Statement& row) {
  ErrorRecord e;
  e.pk = row.Int(0);
  e.id = row.Text(1);
  e.library = row.Text(2);
  e.exception = row.Text(3);
  e.template_text = row.Text(4);
  e.kind = row.Text(5);
  Result<Template> t = PiecesFromJson(nlohmann::json::parse(row.Text(6), nullptr, false));
  if (!t) return tl::unexpected(t.error());
  e.message = std::move(*t);
  e.dynamic = row.Int(7) != 0;
  e.internal = row.Int(8) != 0;
  return e;
}

// A row of SiteSelect().
SiteRecord ReadSite(Statement& row) {
  SiteRecord s;
  s.library = row.Text(1);
  s.rev = row.Text(2);
  s.commit = row.Text(3);
  s.date = row.Text(4);
  s.language = row.Text(5);
  s.path = row.Text(6);
  s.line = static_cast<int>(row.Int(7));
  s.column = static_cast<int>(row.Int(8));
  s.end_line = static_cast<int>(row.Int(9));
  s.function = row.Text(10);
  s.kind = row.Text(11);
  s.exception_written = row.Text(12);
  s.statement = row.Text(13);
  s.excerpt_line = static_cast<int>(row.Int(14));
  s.excerpt = row.Text(15);
  s.guards_json = row.Text(16);
  s.trigger = row.Text(17);
  s.cause = row.Text(18);
  s.via = row.Text(19);
  s.internal = row.Int(20) != 0;
  s.url = row.Text(21);
  s.subdir = row.Text(22);
  return s;
}

}  // namespace

std::string DefaultPath() {
  if (const char* env = std::getenv("ERRDEX_DB"); env != nullptr && *env != '\0') return env;
  std::filesystem::path base;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg != nullptr && *xdg != '\0') {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    base = std::filesystem::path(home) / ".local" / "share";
  } else {
    base = ".";
  }
  return (base / "errdex" / "catalog.db").string();
}

Result<Catalog> Catalog::Open(const std::string& path, OpenMode mode) {
  if (mode == OpenMode::kReadOnly && !std::filesystem::exists(path)) {
    return Fail(ErrorCode::kNotFound,
                "no catalog at " + path + " (run `errdex index` first, or pass --db)");
  }
  if (mode == OpenMode::kReadWrite) {
    std::error_code ec;
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  }
  int flags = mode == OpenMode::kReadOnly ? SQLITE_OPEN_READONLY
                                          : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  Result<Database> db = Database::Open(path, flags);
  if (!db) return tl::unexpected(db.error());
  Catalog catalog(std::move(*db));
  ERRDEX_TRY(catalog.Migrate(mode, path));
  return catalog;
}

Result<void> Catalog::Migrate(OpenMode mode, const std::string& path) {
  auto pragma = [&](std::string_view sql) -> Result<int64_t> {
    Result<Statement> st = db_.Prepare(sql);
    if (!st) {
      if (st.error().code == ErrorCode::kCorrupt) {
        return Fail(ErrorCode::kCorrupt, path + " is not an errdex catalog (not SQLite)");
      }
      return tl::unexpected(st.error());
    }
    Result<bool> row = st->Step();
    if (!row) {
      return Fail(ErrorCode::kCorrupt, path + " is not an errdex catalog: " + row.error().message);
    }
    return *row ? st->Int(0) : 0;
  };
  Result<int64_t> app = pragma("PRAGMA application_id");
  if (!app) return tl::unexpected(app.error());
  Result<int64_t> version = pragma("PRAGMA user_version");
  if (!version) return tl::unexpected(version.error());
  Result<int64_t> tables = pragma("SELECT count(*) FROM sqlite_master");
  if (!tables) return tl::unexpected(tables.error());

  if (*app == 0 && *tables == 0) {
    if (mode == OpenMode::kReadOnly) {
      return Fail(ErrorCode::kCorrupt, path + " is an empty database, not an errdex catalog");
    }
    // Larger pages: prefilter blobs span fewer overflow pages, trees are shallower.
    ERRDEX_TRY(db_.Exec("PRAGMA page_size = 16384"));
    ERRDEX_TRY(db_.Exec("PRAGMA journal_mode = WAL"));
    ERRDEX_TRY(db_.Exec("BEGIN IMMEDIATE"));
    Result<void> created = db_.Exec(kSchemaSql);
    if (created) created = db_.Exec(kAnalysisTablesSql);
    if (created) {
      created = db_.Exec("PRAGMA application_id = " + std::to_string(kApplicationId) +
                         "; PRAGMA user_version = " + std::to_string(kSchemaVersion));
    }
    if (!created) {
      (void)db_.Exec("ROLLBACK");
      return created;
    }
    ERRDEX_TRY(db_.Exec("COMMIT"));
  } else if (*app == kApplicationId && *version >= 1 && *version < kSchemaVersion &&
             mode == OpenMode::kReadWrite) {
    // Step by step, in one transaction: a failed upgrade leaves the old catalog.
    std::string sql;
    if (*version <= 1) sql += kMigrateFrom1Sql;
    if (*version <= 2) sql += kMigrateFrom2Sql;
    if (*version <= 3) sql += kAnalysisTablesSql;
    ERRDEX_TRY(db_.Exec("BEGIN IMMEDIATE"));
    Result<void> migrated =
        db_.Exec(sql + "PRAGMA user_version = " + std::to_string(kSchemaVersion) + ";");
    if (!migrated) {
      (void)db_.Exec("ROLLBACK");
      return migrated;
    }
    ERRDEX_TRY(db_.Exec("COMMIT"));
  } else if (*app != kApplicationId) {
    return Fail(ErrorCode::kCorrupt, path + " is a SQLite database but not an errdex catalog");
  } else if (*version < kSchemaVersion) {
    return Fail(ErrorCode::kCorrupt,
                path + " was written by an older errdex (catalog schema version " +
                    std::to_string(*version) + "); `errdex index` into it upgrades it to version " +
                    std::to_string(kSchemaVersion));
  } else if (*version != kSchemaVersion) {
    return Fail(ErrorCode::kCorrupt, path + " has catalog schema version " +
                                         std::to_string(*version) + "; this errdex reads version " +
                                         std::to_string(kSchemaVersion) +
                                         " (a newer errdex wrote it)");
  }
  ERRDEX_TRY(db_.Exec("PRAGMA foreign_keys = ON"));
  // Reads through a memory map: the prefilter blobs are tens of megabytes,
  // read page by page they cost a system call per page at every start.
  ERRDEX_TRY(db_.Exec("PRAGMA mmap_size = 4294967296"));
  if (mode == OpenMode::kReadWrite) ERRDEX_TRY(db_.Exec("PRAGMA synchronous = NORMAL"));
  return {};
}

Result<WriteSummary> Catalog::WriteSnapshot(const SnapshotInfo& info, const Extraction& x,
                                            IndexBuilder* index) {
  if (info.library.empty()) return Fail(ErrorCode::kInvalidArgument, "library name is empty");
  std::vector<std::string> pieces_json;
  std::vector<std::string> guards_json;
  std::vector<std::string> displays;
  pieces_json.reserve(x.sites.size());
  guards_json.reserve(x.sites.size());
  displays.reserve(x.sites.size());
  for (const Site& s : x.sites) {
    pieces_json.push_back(
        PiecesToJson(s.message).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    guards_json.push_back(
        GuardsToJson(s.guards).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    displays.push_back(ToValidUtf8(s.message.Display()));
  }
  std::string digest = ComputeDigest(info, x, pieces_json, guards_json);
  std::set<std::string> ids;
  for (size_t i = 0; i < x.sites.size(); ++i) {
    ids.insert(ErrorId(info.library, ToValidUtf8(x.sites[i].exception), displays[i]));
  }

  ERRDEX_TRY(db_.Exec("BEGIN IMMEDIATE"));
  auto body = [&]() -> Result<WriteSummary> {
    WriteSummary summary;
    summary.errors = static_cast<int64_t>(ids.size());
    summary.sites = static_cast<int64_t>(x.sites.size());
    std::set<std::string> languages;
    for (const Site& s : x.sites) languages.insert(s.language);

    // The library, keeping a URL given earlier when none is given now.
    Result<Statement> lib = db_.Prepare(
        "INSERT INTO library (name, url, languages) VALUES (?1, ?2, ?3) "
        "ON CONFLICT (name) DO UPDATE SET url = CASE WHEN ?2 = '' THEN url ELSE ?2 END, "
        "languages = CASE WHEN ?3 = '' THEN languages ELSE ?3 END");
    if (!lib) return tl::unexpected(lib.error());
    lib->Bind(1, info.library)
        .Bind(2, info.url)
        .Bind(3, JoinComma({languages.begin(), languages.end()}));
    ERRDEX_TRY(lib->Run());
    Result<Statement> lib_pk = db_.Prepare("SELECT pk FROM library WHERE name = ?1");
    if (!lib_pk) return tl::unexpected(lib_pk.error());
    lib_pk->Bind(1, info.library);
    Result<bool> lib_row = lib_pk->Step();
    if (!lib_row || !*lib_row) return Fail(ErrorCode::kInternal, "library row vanished");
    int64_t library_pk = lib_pk->Int(0);

    Result<Statement> snap =
        db_.Prepare("SELECT pk, digest FROM snapshot WHERE library_pk = ?1 AND rev = ?2");
    if (!snap) return tl::unexpected(snap.error());
    snap->Bind(1, library_pk).Bind(2, info.rev);
    Result<bool> snap_row = snap->Step();
    if (!snap_row) return tl::unexpected(snap_row.error());
    int64_t snapshot_pk = -1;
    if (*snap_row) {
      snapshot_pk = snap->Int(0);
      if (snap->Text(1) == digest) {
        summary.unchanged = true;
        if (index != nullptr) {
          Result<bool> current = PrefilterIsCurrent(library_pk, index->format());
          if (!current) return tl::unexpected(current.error());
          if (!*current) ERRDEX_TRY(StorePrefilter(library_pk, *index));
          summary.prefilter_rebuilt = !*current;
        }
        return summary;
      }
      for (std::string_view table : {"site", "non_site", "file_issue", "exception_class"}) {
        Result<Statement> del =
            db_.Prepare("DELETE FROM " + std::string(table) + " WHERE snapshot_pk = ?1");
        if (!del) return tl::unexpected(del.error());
        del->Bind(1, snapshot_pk);
        ERRDEX_TRY(del->Run());
      }
      Result<Statement> upd = db_.Prepare(
          "UPDATE snapshot SET commit_sha = ?2, date = ?3, kind = ?4, root = ?5, subdir = ?6, "
          "digest = ?7, indexed_at = ?8, files = ?9, bytes = ?10 WHERE pk = ?1");
      if (!upd) return tl::unexpected(upd.error());
      upd->Bind(1, snapshot_pk).Bind(2, info.commit).Bind(3, info.date).Bind(4, info.kind);
      upd->Bind(5, info.root).Bind(6, info.subdir).Bind(7, digest).Bind(8, NowUtc());
      upd->Bind(9, x.files_scanned).Bind(10, x.bytes_scanned);
      ERRDEX_TRY(upd->Run());
    } else {
      Result<Statement> ins = db_.Prepare(
          "INSERT INTO snapshot (library_pk, rev, commit_sha, date, kind, root, subdir, digest, "
          "indexed_at, files, bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
      if (!ins) return tl::unexpected(ins.error());
      ins->Bind(1, library_pk).Bind(2, info.rev).Bind(3, info.commit).Bind(4, info.date);
      ins->Bind(5, info.kind).Bind(6, info.root).Bind(7, info.subdir).Bind(8, digest);
      ins->Bind(9, NowUtc()).Bind(10, x.files_scanned).Bind(11, x.bytes_scanned);
      ERRDEX_TRY(ins->Run());
      snapshot_pk = db_.LastInsertId();
    }

    Result<Statement> max_pk = db_.Prepare("SELECT coalesce(max(pk), 0) FROM error");
    if (!max_pk) return tl::unexpected(max_pk.error());
    Result<bool> max_row = max_pk->Step();
    if (!max_row) return tl::unexpected(max_row.error());
    int64_t first_new_pk = max_pk->Int(0) + 1;

    Result<Statement> find_error =
        db_.Prepare("SELECT pk, library_pk, exception, template FROM error WHERE id = ?1");
    Result<Statement> insert_error = db_.Prepare(
        "INSERT INTO error (id, library_pk, exception, template, kind, pieces, literal_size, "
        "dynamic, internal) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    Result<Statement> insert_site = db_.Prepare(
        "INSERT INTO site (snapshot_pk, error_pk, language, path, line, col, end_line, function, "
        "kind, exception_written, statement, excerpt_line, excerpt, cause, via, internal, "
        "guards, trigger) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)");
    if (!find_error) return tl::unexpected(find_error.error());
    if (!insert_error) return tl::unexpected(insert_error.error());
    if (!insert_site) return tl::unexpected(insert_site.error());
    std::unordered_map<std::string, int64_t> error_pks;
    for (size_t i = 0; i < x.sites.size(); ++i) {
      const Site& s = x.sites[i];
      std::string exception = ToValidUtf8(s.exception);
      std::string id = ErrorId(info.library, exception, displays[i]);
      auto known = error_pks.find(id);
      int64_t error_pk;
      if (known != error_pks.end()) {
        error_pk = known->second;
      } else {
        find_error->Bind(1, id);
        Result<bool> found = find_error->Step();
        if (!found) return tl::unexpected(found.error());
        if (*found) {
          error_pk = find_error->Int(0);
          if (find_error->Int(1) != library_pk || find_error->Text(2) != exception ||
              find_error->Text(3) != displays[i]) {
            return Fail(ErrorCode::kInternal, "error id collision on " + id);
          }
          find_error->Reset();
        } else {
          find_error->Reset();
          insert_error->Bind(1, id).Bind(2, library_pk).Bind(3, exception).Bind(4, displays[i]);
          insert_error->Bind(5, SiteKindName(s.kind)).Bind(6, pieces_json[i]);
          insert_error->Bind(7, static_cast<int64_t>(s.message.LiteralSize()));
          insert_error->Bind(8, s.message.IsDynamic()).Bind(9, s.internal);
          ERRDEX_TRY(insert_error->Run());
          error_pk = db_.LastInsertId();
          ++summary.new_errors;
        }
        error_pks.emplace(id, error_pk);
      }
      Statement& st = *insert_site;
      st.Bind(1, snapshot_pk).Bind(2, error_pk).Bind(3, s.language).Bind(4, ToValidUtf8(s.path));
      st.Bind(5, s.line).Bind(6, s.column).Bind(7, s.end_line).Bind(8, ToValidUtf8(s.function));
      st.Bind(9, SiteKindName(s.kind)).Bind(10, ToValidUtf8(s.exception_written));
      st.Bind(11, s.statement).Bind(12, s.excerpt_line).Bind(13, s.excerpt);
      st.Bind(14, ToValidUtf8(s.cause)).Bind(15, ToValidUtf8(s.via)).Bind(16, s.internal);
      st.Bind(17, guards_json[i]).Bind(18, ToValidUtf8(s.trigger));
      ERRDEX_TRY(st.Run());
    }

    Result<Statement> non_site = db_.Prepare(
        "INSERT INTO non_site (snapshot_pk, path, line, reason) VALUES (?1, ?2, ?3, ?4)");
    if (!non_site) return tl::unexpected(non_site.error());
    for (const NonSite& n : x.non_sites) {
      non_site->Bind(1, snapshot_pk).Bind(2, ToValidUtf8(n.path)).Bind(3, n.line).Bind(4, n.reason);
      ERRDEX_TRY(non_site->Run());
    }
    Result<Statement> issue = db_.Prepare(
        "INSERT INTO file_issue (snapshot_pk, path, reason, detail, skipped) "
        "VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!issue) return tl::unexpected(issue.error());
    for (const FileIssue& i : x.issues) {
      issue->Bind(1, snapshot_pk).Bind(2, ToValidUtf8(i.path)).Bind(3, i.reason);
      issue->Bind(4, ToValidUtf8(i.detail)).Bind(5, i.skipped);
      ERRDEX_TRY(issue->Run());
    }
    Result<Statement> cls = db_.Prepare(
        "INSERT INTO exception_class (snapshot_pk, name, bases, path, line) "
        "VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!cls) return tl::unexpected(cls.error());
    for (const ExceptionClass& c : x.classes) {
      cls->Bind(1, snapshot_pk)
          .Bind(2, ToValidUtf8(c.name))
          .Bind(3, ToValidUtf8(JoinComma(c.bases)));
      cls->Bind(4, ToValidUtf8(c.path)).Bind(5, c.line);
      ERRDEX_TRY(cls->Run());
    }

    // New errors into the search index; errors no snapshot raises any more
    // out of it and out of the catalog. The others take kind and internal
    // from their sites (an error is internal only if every site is).
    Result<Statement> fts_add = db_.Prepare(
        "INSERT INTO error_fts (rowid, template, exception) "
        "SELECT pk, template, exception FROM error WHERE pk >= ?1");
    if (!fts_add) return tl::unexpected(fts_add.error());
    fts_add->Bind(1, first_new_pk);
    ERRDEX_TRY(fts_add->Run());
    Result<Statement> fts_gc = db_.Prepare(
        "INSERT INTO error_fts (error_fts, rowid, template, exception) "
        "SELECT 'delete', pk, template, exception FROM error WHERE library_pk = ?1 AND "
        "NOT EXISTS (SELECT 1 FROM site WHERE site.error_pk = error.pk)");
    if (!fts_gc) return tl::unexpected(fts_gc.error());
    fts_gc->Bind(1, library_pk);
    ERRDEX_TRY(fts_gc->Run());
    Result<Statement> gc = db_.Prepare(
        "DELETE FROM error WHERE library_pk = ?1 AND NOT EXISTS "
        "(SELECT 1 FROM site WHERE site.error_pk = error.pk)");
    if (!gc) return tl::unexpected(gc.error());
    gc->Bind(1, library_pk);
    ERRDEX_TRY(gc->Run());
    summary.removed_errors = db_.Changes();
    Result<Statement> refresh = db_.Prepare(
        "UPDATE error SET "
        "kind = (SELECT s.kind FROM site s WHERE s.error_pk = error.pk "
        "        ORDER BY s.snapshot_pk, s.path, s.line LIMIT 1), "
        "internal = NOT EXISTS (SELECT 1 FROM site s WHERE s.error_pk = error.pk AND "
        "                       s.internal = 0) "
        "WHERE library_pk = ?1");
    if (!refresh) return tl::unexpected(refresh.error());
    refresh->Bind(1, library_pk);
    ERRDEX_TRY(refresh->Run());
    if (index != nullptr) {
      ERRDEX_TRY(StorePrefilter(library_pk, *index));
      summary.prefilter_rebuilt = true;
    }
    return summary;
  };
  Result<WriteSummary> result = body();
  if (!result || (result->unchanged && !result->prefilter_rebuilt)) {
    (void)db_.Exec("ROLLBACK");
    return result;
  }
  ERRDEX_TRY(db_.Exec("COMMIT"));
  return result;
}

Result<bool> Catalog::PrefilterIsCurrent(int64_t library_pk, int format) {
  Result<Statement> st = db_.Prepare("SELECT format FROM prefilter WHERE library_pk = ?1");
  if (!st) return tl::unexpected(st.error());
  st->Bind(1, library_pk);
  Result<bool> row = st->Step();
  if (!row) return tl::unexpected(row.error());
  return *row && st->Int(0) == format;
}

Result<void> Catalog::StorePrefilter(int64_t library_pk, IndexBuilder& index) {
  Result<std::vector<ErrorTemplate>> templates = LibraryTemplates(library_pk);
  if (!templates) return tl::unexpected(templates.error());
  Result<std::string> blob = index.Build(*templates);
  if (!blob) return tl::unexpected(blob.error());
  Result<Statement> st = db_.Prepare(
      "INSERT INTO prefilter (library_pk, format, blob) VALUES (?1, ?2, ?3) "
      "ON CONFLICT (library_pk) DO UPDATE SET format = ?2, blob = ?3");
  if (!st) return tl::unexpected(st.error());
  st->Bind(1, library_pk).Bind(2, index.format()).BindBlob(3, *blob);
  return st->Run();
}

Result<std::vector<ErrorTemplate>> Catalog::LibraryTemplates(int64_t library_pk) {
  Result<Statement> st =
      db_.Prepare("SELECT pk, pieces FROM error WHERE library_pk = ?1 ORDER BY pk");
  if (!st) return tl::unexpected(st.error());
  st->Bind(1, library_pk);
  std::vector<ErrorTemplate> out;
  while (true) {
    Result<bool> row = st->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    Result<Template> t = PiecesFromJson(nlohmann::json::parse(st->Text(1), nullptr, false));
    if (!t) return tl::unexpected(t.error());
    out.push_back(ErrorTemplate{st->Int(0), std::move(*t)});
  }
  return out;
}

Result<void> Catalog::VisitPrefilters(
    const std::function<Result<void>(const PrefilterBlob& library, std::string_view blob)>& visit) {
  Result<Statement> st = db_.Prepare(
      "SELECT l.pk, l.name, coalesce(p.format, 0), p.blob FROM library l "
      "LEFT JOIN prefilter p ON p.library_pk = l.pk ORDER BY l.name");
  if (!st) return tl::unexpected(st.error());
  while (true) {
    Result<bool> row = st->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) return {};
    PrefilterBlob library{st->Int(0), st->Text(1), static_cast<int>(st->Int(2))};
    ERRDEX_TRY(visit(library, st->BlobView(3)));
  }
}

Result<std::vector<ErrorRecord>> Catalog::GetByPks(const std::vector<int64_t>& pks,
                                                   SiteDetail detail) {
  // One cached statement per row: the matcher asks for a few dozen errors at
  // a time, many times a second; preparing an IN-list query each time costs
  // more than the lookups.
  Result<Statement*> error = Cached("SELECT " + std::string(kErrorColumns) +
                                    " FROM error e JOIN library l ON l.pk = e.library_pk "
                                    "WHERE e.pk = ?1");
  if (!error) return tl::unexpected(error.error());
  Result<Statement*> sites =
      Cached(SiteSelect(detail) + "WHERE s.error_pk = ?1 ORDER BY n.pk, s.path, s.line, s.col");
  if (!sites) return tl::unexpected(sites.error());
  std::vector<ErrorRecord> out;
  for (int64_t pk : pks) {
    (*error)->Reset();
    (*error)->Bind(1, pk);
    Result<bool> row = (*error)->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) continue;
    Result<ErrorRecord> e = ReadError(**error);
    if (!e) return tl::unexpected(e.error());
    if (detail != SiteDetail::kNone) {
      (*sites)->Reset();
      (*sites)->Bind(1, pk);
      while (true) {
        Result<bool> site = (*sites)->Step();
        if (!site) return tl::unexpected(site.error());
        if (!*site) break;
        e->sites.push_back(ReadSite(**sites));
      }
    }
    out.push_back(std::move(*e));
  }
  return out;
}

Result<std::vector<SiteLocation>> Catalog::SitesAt(const std::vector<std::string>& paths, int line,
                                                   int slack) {
  std::vector<SiteLocation> out;
  Result<Statement*> st = Cached(
      "SELECT error_pk, path, line, end_line FROM site "
      "WHERE path = ?1 AND line <= ?2 + ?3 AND end_line >= ?2 - ?3 AND line >= ?2 - 200");
  if (!st) return tl::unexpected(st.error());
  Statement& q = **st;
  for (const std::string& path : paths) {
    q.Bind(1, path).Bind(2, line).Bind(3, slack);
    while (true) {
      Result<bool> row = q.Step();
      if (!row) return tl::unexpected(row.error());
      if (!*row) break;
      out.push_back(SiteLocation{q.Int(0), q.Text(1), static_cast<int>(q.Int(2)),
                                 static_cast<int>(q.Int(3))});
    }
    q.Reset();
  }
  return out;
}

Result<std::vector<int64_t>> Catalog::ErrorsWithoutMessage(std::string_view exception) {
  Result<Statement*> st =
      Cached("SELECT pk FROM error WHERE exception = ?1 AND template = '' ORDER BY pk");
  if (!st) return tl::unexpected(st.error());
  Statement& q = **st;
  q.Bind(1, exception);
  std::vector<int64_t> out;
  while (true) {
    Result<bool> row = q.Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    out.push_back(q.Int(0));
  }
  return out;
}

Result<std::map<std::string, std::vector<std::string>>> Catalog::ExceptionBases() {
  Result<Statement> st = db_.Prepare("SELECT DISTINCT name, bases FROM exception_class");
  if (!st) return tl::unexpected(st.error());
  std::map<std::string, std::vector<std::string>> out;
  while (true) {
    Result<bool> row = st->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    std::vector<std::string>& bases = out[st->Text(0)];
    std::string all = st->Text(1);
    for (size_t b = 0, e; b < all.size(); b = e + 1) {
      e = all.find(',', b);
      if (e == std::string::npos) e = all.size();
      std::string base = all.substr(b, e - b);
      if (!base.empty() && std::find(bases.begin(), bases.end(), base) == bases.end()) {
        bases.push_back(base);
      }
    }
  }
  return out;
}

Result<Statement*> Catalog::Cached(const std::string& sql) {
  auto it = statements_.find(sql);
  if (it == statements_.end()) {
    Result<Statement> st = db_.Prepare(sql);
    if (!st) return tl::unexpected(st.error());
    it = statements_.emplace(sql, std::make_unique<Statement>(std::move(*st))).first;
  }
  it->second->Reset();
  return it->second.get();
}

Result<std::vector<ErrorRecord>> Catalog::Load(Statement& errors, SiteDetail detail) {
  std::vector<ErrorRecord> out;
  std::unordered_map<int64_t, size_t> by_pk;
  std::string pks;
  while (true) {
    Result<bool> row = errors.Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    Result<ErrorRecord> read = ReadError(errors);
    if (!read) return tl::unexpected(read.error());
    ErrorRecord e = std::move(*read);
    int64_t pk = e.pk;
    by_pk[pk] = out.size();
    if (!pks.empty()) pks.push_back(',');
    pks += std::to_string(pk);
    out.push_back(std::move(e));
  }
  if (out.empty() || detail == SiteDetail::kNone) return out;
  // The error pks came from the database as integers: safe to splice. A
  // temporary table would be needed past SQLite's expression depth, so large
  // listings load every site of the libraries involved and filter here.
  std::string sql = SiteSelect(detail);
  if (out.size() <= 500) {
    sql += "WHERE s.error_pk IN (" + pks + ") ";
  }
  sql += "ORDER BY s.error_pk, n.pk, s.path, s.line, s.col";
  Result<Statement> sites = db_.Prepare(sql);
  if (!sites) return tl::unexpected(sites.error());
  while (true) {
    Result<bool> row = sites->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    auto it = by_pk.find(sites->Int(0));
    if (it == by_pk.end()) continue;
    SiteRecord s = ReadSite(*sites);
    out[it->second].sites.push_back(std::move(s));
  }
  return out;
}

Result<std::vector<ErrorRecord>> Catalog::List(const ListQuery& query) {
  std::string sql = "SELECT " + std::string(kErrorColumns) +
                    " FROM error e JOIN library l ON l.pk = e.library_pk";
  if (!query.library.empty()) sql += " WHERE l.name = ?1";
  sql += " ORDER BY e.id";
  if (query.limit >= 0) sql += " LIMIT " + std::to_string(query.limit);
  Result<Statement> st = db_.Prepare(sql);
  if (!st) return tl::unexpected(st.error());
  if (!query.library.empty()) st->Bind(1, query.library);
  return Load(*st, query.with_details  ? SiteDetail::kFull
                   : query.with_guards ? SiteDetail::kGuards
                                       : SiteDetail::kLocations);
}

Result<ErrorRecord> Catalog::Get(std::string_view id) {
  if (!IsErrorId(id)) {
    return Fail(ErrorCode::kInvalidArgument,
                "'" + std::string(id) + "' is not an error id (16 hex digits)");
  }
  Result<Statement> st = db_.Prepare("SELECT " + std::string(kErrorColumns) +
                                     " FROM error e JOIN library l ON l.pk = e.library_pk "
                                     "WHERE e.id = ?1");
  if (!st) return tl::unexpected(st.error());
  st->Bind(1, id);
  Result<std::vector<ErrorRecord>> found = Load(*st, SiteDetail::kFull);
  if (!found) return tl::unexpected(found.error());
  if (found->empty()) return Fail(ErrorCode::kNotFound, "no error with id " + std::string(id));
  ERRDEX_TRY(LoadAnalysis(found->front()));
  return std::move(found->front());
}

Result<std::vector<ErrorRecord>> Catalog::Search(std::string_view query, int64_t limit) {
  std::string fts = FtsQuery(query);
  if (fts.empty()) return std::vector<ErrorRecord>{};
  Result<Statement> st = db_.Prepare(
      "SELECT " + std::string(kErrorColumns) +
      " FROM error_fts f JOIN error e ON e.pk = f.rowid JOIN library l ON l.pk = e.library_pk "
      "WHERE error_fts MATCH ?1 ORDER BY bm25(error_fts), e.dynamic, e.literal_size DESC, e.id "
      "LIMIT ?2");
  if (!st) return tl::unexpected(st.error());
  st->Bind(1, fts).Bind(2, limit);
  return Load(*st, SiteDetail::kLocations);
}

Result<Stats> Catalog::GetStats() {
  Stats s;
  auto scalar = [&](std::string_view sql) -> Result<int64_t> {
    Result<Statement> st = db_.Prepare(sql);
    if (!st) return tl::unexpected(st.error());
    Result<bool> row = st->Step();
    if (!row) return tl::unexpected(row.error());
    return *row ? st->Int(0) : 0;
  };
  auto counts = [&](std::string_view sql, std::map<std::string, int64_t>& into) -> Result<void> {
    Result<Statement> st = db_.Prepare(sql);
    if (!st) return tl::unexpected(st.error());
    while (true) {
      Result<bool> row = st->Step();
      if (!row) return tl::unexpected(row.error());
      if (!*row) return {};
      into[st->Text(0)] = st->Int(1);
    }
  };
  struct Scalar {
    int64_t* into;
    std::string_view sql;
  };
  for (const Scalar& q : {
           Scalar{&s.libraries, "SELECT count(*) FROM library"},
           Scalar{&s.snapshots, "SELECT count(*) FROM snapshot"},
           Scalar{&s.errors, "SELECT count(*) FROM error"},
           Scalar{&s.dynamic_errors, "SELECT count(*) FROM error WHERE dynamic"},
           Scalar{&s.sites, "SELECT count(*) FROM site"},
           Scalar{&s.files, "SELECT coalesce(sum(files), 0) FROM snapshot"},
       }) {
    Result<int64_t> v = scalar(q.sql);
    if (!v) return tl::unexpected(v.error());
    *q.into = *v;
  }
  ERRDEX_TRY(counts("SELECT kind, count(*) FROM error GROUP BY kind", s.errors_by_kind));
  ERRDEX_TRY(counts("SELECT reason, count(*) FROM file_issue WHERE skipped GROUP BY reason",
                    s.skipped_by_reason));
  ERRDEX_TRY(counts("SELECT reason, count(*) FROM file_issue WHERE NOT skipped GROUP BY reason",
                    s.recovered_by_reason));
  ERRDEX_TRY(
      counts("SELECT reason, count(*) FROM non_site GROUP BY reason", s.non_sites_by_reason));

  Result<Statement> libs = db_.Prepare(
      "SELECT l.name, l.url, "
      "(SELECT count(*) FROM snapshot n WHERE n.library_pk = l.pk), "
      "(SELECT count(*) FROM error e WHERE e.library_pk = l.pk), "
      "(SELECT count(*) FROM site s JOIN snapshot n ON n.pk = s.snapshot_pk "
      " WHERE n.library_pk = l.pk) "
      "FROM library l ORDER BY l.name");
  if (!libs) return tl::unexpected(libs.error());
  while (true) {
    Result<bool> row = libs->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    s.per_library.push_back(
        LibraryStats{libs->Text(0), libs->Text(1), libs->Int(2), libs->Int(3), libs->Int(4)});
  }
  Result<Statement> snaps = db_.Prepare(
      "SELECT l.name, n.rev, n.commit_sha, n.date, n.kind, n.indexed_at, n.files, n.bytes, "
      "(SELECT count(*) FROM site s WHERE s.snapshot_pk = n.pk) "
      "FROM snapshot n JOIN library l ON l.pk = n.library_pk ORDER BY l.name, n.pk");
  if (!snaps) return tl::unexpected(snaps.error());
  while (true) {
    Result<bool> row = snaps->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    s.per_snapshot.push_back(SnapshotStats{snaps->Text(0), snaps->Text(1), snaps->Text(2),
                                           snaps->Text(3), snaps->Text(4), snaps->Text(5),
                                           snaps->Int(6), snaps->Int(7), snaps->Int(8)});
  }
  return s;
}

bool IsLibraryName(std::string_view name) {
  size_t slash = name.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == name.size() ||
      name.find('/', slash + 1) != std::string_view::npos || name.size() > 200 || name[0] == '.' ||
      name.find("..") != std::string_view::npos) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
           c == '/';
  });
}

std::string ShortRevision(const SiteRecord& s) {
  if (!s.rev.empty() && s.rev != s.commit) return s.rev;
  return s.commit.substr(0, std::min<size_t>(10, s.commit.size()));
}

}  // namespace errdex::catalog
