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
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "catalog/internal.h"
#include "catalog/json.h"
#include "catalog/schema.h"
#include "catalog/postgres.h"
#include "catalog/sqlite.h"
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
  // Only when set: the digests of snapshots written without one stay as
  // they were, and re-indexing those stays a no-op.
  if (!info.source_digest.empty()) d.Add("source " + info.source_digest);
  if (!info.aliases.empty()) d.Add("aliases " + JoinAliases(info.aliases));
  d.Add(x.files_scanned);
  d.Add(x.bytes_scanned);
  for (size_t i = 0; i < x.sites.size(); ++i) {
    const Site& s = x.sites[i];
    for (const std::string* f :
         {&s.exception, &s.exception_written, &s.language, &s.path, &s.function, &s.statement,
          &s.excerpt, &s.cause, &s.via, &pieces_json[i], &guards_json[i], &s.trigger}) {
      d.Add(*f);
    }
    // Only when set, as with source_digest above.
    if (!s.signature.empty()) d.Add("signature " + s.signature);
    if (!s.entries.empty()) d.Add("entries " + s.entries);
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

// The same words as FtsQuery, as a PostgreSQL tsquery: each quoted, all
// required, the last one as a prefix. Bytes that are not UTF-8 are
// replaced: the server would refuse them.
std::string TsQuery(std::string_view text) {
  std::string q;
  std::string fts = FtsQuery(text);
  std::vector<std::string> words;
  for (size_t b = 0; b < fts.size();) {
    size_t open = fts.find('"', b);
    if (open == std::string::npos) break;
    size_t close = fts.find('"', open + 1);
    words.push_back(ToValidUtf8(fts.substr(open + 1, close - open - 1)));
    b = close + 1;
  }
  for (size_t i = 0; i < words.size(); ++i) {
    if (!q.empty()) q += " & ";
    q += "'" + words[i] + "'";
    if (i + 1 == words.size()) q += ":*";
  }
  return q;
}

}  // namespace

std::string Prefixed(std::string_view prefix, std::string_view columns) {
  std::string out;
  size_t b = 0;
  while (b < columns.size()) {
    size_t e = columns.find(',', b);
    if (e == std::string_view::npos) e = columns.size();
    std::string_view name = columns.substr(b, e - b);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    if (!out.empty()) out += ", ";
    out += prefix;
    out += name;
    b = e + 1;
  }
  return out;
}

int ColumnCount(std::string_view columns) {
  return static_cast<int>(std::count(columns.begin(), columns.end(), ',')) + 1;
}

std::string ErrorSelect(std::string_view alias) {
  std::string p = std::string(alias) + ".";
  return Prefixed(p, kErrorHashColumns) + ", " + p + "crc";
}

tl::unexpected<Error> Damaged(const std::string& what) {
  return Fail(ErrorCode::kCorrupt, "the catalog is damaged: " + what + " (run errdex check)");
}

namespace {

// Columns of a site read: snapshot_pk (0), kSiteHashColumns (1-15), crc
// (16), guards, trigger, signature and entries (17-20), statement and
// excerpt (21-22); what a detail level skips is selected as a constant.
constexpr int kSiteHashCount = 15;
constexpr int kSiteCrc = 16;
constexpr int kSiteExcerptLine = 13;
constexpr int kSiteBodyHash = 14;
constexpr int kSiteGuardHash = 15;
constexpr int kSiteGuards = 17;
constexpr int kSiteBody = 21;
constexpr int kSiteVia = 11;
constexpr int kSiteLanguage = 2;

// Which sites SiteDetail::kGuards reads the statement and excerpt of
// (SiteIsIntact says the same of a row).
constexpr std::string_view kGuardsReadBody = "(s.via != '' OR s.language != 'python')";

std::string SiteColumns(SiteDetail detail) {
  // Locations carry the guards of a site another module's code replaces
  // (core/record.h: replaced, stands-in), which the matcher ranks last; the
  // LIKE leaves every other site's unread.
  std::string guards =
      detail == SiteDetail::kFull || detail == SiteDetail::kGuards
          ? "g.guards, g.trigger, g.signature, g.entries"
      : detail == SiteDetail::kLocations
          ? "CASE WHEN g.guards LIKE '%\"replaced\"%' OR g.guards LIKE '%\"stands-in\"%' "
            "THEN g.guards ELSE '[]' END, '', '', ''"
          : "'[]', '', '', ''";
  // A site whose message another function or class builds or raises
  // (`via`) keeps its statement with its guards: whether that statement is
  // the raise or a call into the helper that raises decides what its page
  // may say (analyze/prose.cc). So does a site of C, C++ or Rust: a C++
  // `throw` or a Rust `debug_assert!` is said in words of its own. The
  // excerpt comes along for the hash.
  std::string body = detail == SiteDetail::kFull ? "t.statement, t.excerpt"
                     : detail == SiteDetail::kGuards
                         ? "CASE WHEN " + std::string(kGuardsReadBody) +
                               " THEN t.statement ELSE '' END, "
                               "CASE WHEN " +
                               std::string(kGuardsReadBody) + " THEN t.excerpt ELSE '' END"
                         : "'', ''";
  return "SELECT l.snapshot_pk, " + Prefixed("s.", kSiteHashColumns) + ", s.crc, " + guards +
         ", " + body;
}

// Sites as SiteColumns reads them: `s` the row, `l` its link to a
// snapshot, `t` and `g` its texts. `by_error` (SQLite): walk the error's
// rows first, then their links; left to itself SQLite walked every link
// of the snapshot for each error (30 s to analyse 146 releases of jax).
std::string SiteSelect(SiteDetail detail, bool by_error = false) {
  std::string join = by_error ? "CROSS JOIN " : "JOIN ";  // CROSS: in this order
  return SiteColumns(detail) + " FROM site_row s " +
         (by_error ? "INDEXED BY site_row_error " : "") + join +
         "site_link l ON l.row_pk = s.pk " + join + "site_text t ON t.pk = s.text_pk " + join +
         "site_guard g ON g.pk = s.guard_pk ";
}

// Checks a row of SiteSelect(detail) against its hashes.
bool SiteIsIntact(const Statement& row, SiteDetail detail) {
  if (row.HashColumns(1, kSiteHashCount) != row.Int(kSiteCrc)) return false;
  if ((detail == SiteDetail::kFull || detail == SiteDetail::kGuards) &&
      row.HashColumns(kSiteGuards, 4) != row.Int(kSiteGuardHash)) {
    return false;
  }
  bool body = detail == SiteDetail::kFull ||
              (detail == SiteDetail::kGuards &&
               (!row.Text(kSiteVia).empty() || row.Text(kSiteLanguage) != "python"));
  if (body && row.HashColumns(kSiteBody, 2) != row.Int(kSiteBodyHash)) return false;
  return true;
}

// Lines in a site's guards, and in its entries of its own file, are
// stored relative to the site (`dline`) so that a site whose lines moved
// keeps its guard text; readers get absolute `line`s. Entries in other
// files keep theirs. `path`: "" for every object (guards), else only the
// objects of that path (entries).
std::string LinesForStorage(const std::string& text, int line, std::string_view path) {
  nlohmann::json g = nlohmann::json::parse(text, nullptr, false);
  if (!g.is_array()) return text;
  bool changed = false;
  for (nlohmann::json& c : g) {
    if (!c.is_object() || !c.contains("line") || !c["line"].is_number_integer()) continue;
    if (!path.empty() && !(c.contains("path") && c["path"].is_string() &&
                           c["path"].get<std::string>() == path)) {
      continue;
    }
    c["dline"] = c["line"].get<int64_t>() - line;
    c.erase("line");
    changed = true;
  }
  return changed ? g.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) : text;
}

std::string LinesFromStorage(const std::string& stored, int line) {
  if (stored.find("\"dline\"") == std::string::npos) return stored;
  nlohmann::json g = nlohmann::json::parse(stored, nullptr, false);
  if (!g.is_array()) return stored;
  for (nlohmann::json& c : g) {
    if (!c.is_object() || !c.contains("dline") || !c["dline"].is_number_integer()) continue;
    c["line"] = c["dline"].get<int64_t>() + line;
    c.erase("dline");
  }
  return g.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A row of SiteSelect(), with its snapshot and library from `base`.
Result<SiteRecord> ReadSite(const Statement& row, const Catalog::Base& base) {
  auto snap = base.snapshots.find(row.Int(0));
  if (snap == base.snapshots.end()) return Damaged("a site belongs to no snapshot");
  auto lib = base.libraries.find(snap->second.library_pk);
  if (lib == base.libraries.end()) return Damaged("a snapshot belongs to no library");
  SiteRecord s;
  s.library = lib->second.name;
  s.snapshot_pk = row.Int(0);
  s.version = snap->second.ordinal;
  s.url = lib->second.url;
  s.rev = snap->second.rev;
  s.commit = snap->second.commit;
  s.date = snap->second.date;
  s.subdir = snap->second.subdir;
  s.root = snap->second.root;
  s.language = row.Text(kSiteLanguage);
  s.path = row.Text(3);
  s.line = static_cast<int>(row.Int(4));
  s.column = static_cast<int>(row.Int(5));
  s.end_line = static_cast<int>(row.Int(6));
  s.function = row.Text(7);
  s.kind = row.Text(8);
  s.exception_written = row.Text(9);
  s.cause = row.Text(10);
  s.via = row.Text(kSiteVia);
  s.internal = row.Int(12) != 0;
  s.excerpt_line = static_cast<int>(row.Int(kSiteExcerptLine));
  s.guards_json = LinesFromStorage(row.Text(kSiteGuards), s.line);
  s.trigger = row.Text(kSiteGuards + 1);
  s.signature = row.Text(kSiteGuards + 2);
  s.entries = LinesFromStorage(row.Text(kSiteGuards + 3), s.line);
  s.statement = row.Text(kSiteBody);
  s.excerpt = row.Text(kSiteBody + 1);
  return s;
}

// Steps `q`, a SiteSelect of one error's sites, and adds them to `e`, each
// checked against its hashes when the catalog is verified; resets `q`.
Result<void> ReadSitesOf(Statement& q, ErrorRecord& e, SiteDetail detail,
                         const Catalog::Base& base) {
  while (true) {
    Result<bool> site = q.Step();
    if (!site) return tl::unexpected(site.error());
    if (!*site) break;
    if (base.verified && (!SiteIsIntact(q, detail) || q.Int(1) != e.pk)) {
      return Damaged("a site of error " + e.id + " does not match its hash");
    }
    Result<SiteRecord> s = ReadSite(q, base);
    if (!s) return tl::unexpected(s.error());
    e.sites.push_back(std::move(*s));
  }
  q.Reset();
  return {};
}

// Per parent row: how many children were read and the sum of their hashes.

// Keeps the sites of one version of `e`: `version` when given (none when
// the error is not raised there), else the newest that raises it; lists
// every version of the library with the error's site count in it.
// `counts`: the sites of each snapshot, when `e.sites` holds fewer.
int64_t FocusVersion(ErrorRecord& e, const Catalog::Base& base, const std::string& version,
                     const std::map<int64_t, int64_t>* counts = nullptr) {
  int64_t library_pk = -1;
  for (const auto& [pk, lib] : base.libraries) {
    if (lib.name == e.library) library_pk = pk;
  }
  std::vector<std::pair<int, int64_t>> snaps;  // (ordinal, pk)
  for (const auto& [pk, snap] : base.snapshots) {
    if (snap.library_pk == library_pk) snaps.emplace_back(snap.ordinal, pk);
  }
  std::sort(snaps.begin(), snaps.end());
  std::map<int64_t, int64_t> count;
  if (counts != nullptr) {
    count = *counts;
  } else {
    for (const SiteRecord& s : e.sites) ++count[s.snapshot_pk];
  }
  e.versions.clear();
  int64_t focus = -1;
  for (const auto& [ordinal, pk] : snaps) {
    const Catalog::Base::Snapshot& snap = base.snapshots.at(pk);
    int64_t n = count.count(pk) ? count[pk] : 0;
    e.versions.push_back(VersionPresence{snap.rev, snap.commit, snap.date, n, snap.aliases});
    if (n > 0 && (version.empty() || version == kAllVersions || snap.rev == version)) focus = pk;
  }
  e.version = focus >= 0 ? base.snapshots.at(focus).rev : "";
  e.sites_in_version = focus >= 0 ? count[focus] : 0;
  if (version == kAllVersions) {
    e.sites_in_version = static_cast<int64_t>(e.sites.size());
    return focus;
  }
  std::vector<SiteRecord> kept;
  for (SiteRecord& s : e.sites) {
    if (s.snapshot_pk == focus) kept.push_back(std::move(s));
  }
  e.sites = std::move(kept);
  return focus;
}

}  // namespace

std::vector<VersionRange> RaisedIn(const std::vector<VersionPresence>& versions) {
  std::vector<VersionRange> out;
  bool open = false;
  for (const VersionPresence& v : versions) {
    if (v.sites == 0) {
      open = false;
      continue;
    }
    if (!open) out.push_back(VersionRange{v.rev, v.rev});
    out.back().last = v.rev;
    open = true;
  }
  return out;
}

std::string DescribeRanges(const std::vector<VersionRange>& ranges) {
  std::string out;
  for (const VersionRange& r : ranges) {
    if (!out.empty()) out += ", ";
    out += r.first == r.last ? r.first : r.first + "–" + r.last;
  }
  return out;
}

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

Catalog::Catalog(Database db) : db_(std::move(db)) {}

// A site row's columns but its pk and texts, as WriteSites compares them.
struct SiteRowKey {
  int64_t error_pk = 0;
  int64_t text_pk = 0;
  int64_t guard_pk = 0;
  std::string language, path;
  int64_t line = 0, col = 0, end_line = 0;
  std::string function, kind, written, cause, via;
  int64_t internal = 0, excerpt_line = 0;
  bool operator==(const SiteRowKey&) const = default;
};

// Of each hash a write looked up, every stored entry of that hash with its
// pk: complete, so that a later write can decide from it what the table
// would have told it.
template <typename Content>
using ByHash = std::unordered_map<int64_t, std::vector<std::pair<int64_t, Content>>>;

// A digest of every field of a site that its row and texts are made of
// (WriteSites), with the error's pk: two sites of one digest make the same
// row. 128 bits, so that over a catalog's millions of sites a collision is
// not a risk to weigh; fields are length-prefixed, so that no two lists of
// fields run together the same.
struct SitePrint {
  uint64_t low = 0, high = 0;
  bool operator==(const SitePrint&) const = default;
};
struct SitePrintHash {
  size_t operator()(const SitePrint& p) const { return static_cast<size_t>(p.low); }
};

SitePrint PrintSite(const Site& s, int64_t error_pk) {
  XXH3_state_t state;
  XXH3_128bits_reset(&state);
  auto bytes = [&](const void* data, size_t size) { XXH3_128bits_update(&state, data, size); };
  auto text = [&](std::string_view v) {
    uint64_t size = v.size();
    bytes(&size, sizeof size);
    bytes(v.data(), v.size());
  };
  auto number = [&](int64_t v) { bytes(&v, sizeof v); };
  auto texts = [&](const std::vector<std::string>& vs) {
    number(static_cast<int64_t>(vs.size()));
    for (const std::string& v : vs) text(v);
  };
  number(error_pk);
  // The body's texts, then the guard's, then the row's own columns: every
  // input of WriteSites' body_text, guard_text and SiteRowKey.
  text(s.statement);
  text(s.excerpt);
  number(static_cast<int64_t>(s.guards.size()));
  for (const Guard& g : s.guards) {
    text(g.kind);
    text(g.code);
    number(g.negated ? 1 : 0);
    text(g.when);
    number(g.line);
    text(g.subject);
    texts(g.values);
    texts(g.meanings);
  }
  text(s.trigger);
  text(s.signature);
  text(s.entries);
  text(s.language);
  text(s.path);
  number(s.line);
  number(s.column);
  number(s.end_line);
  text(s.function);
  number(static_cast<int64_t>(s.kind));
  text(s.exception_written);
  text(s.cause);
  text(s.via);
  number(s.internal ? 1 : 0);
  number(s.excerpt_line);
  XXH128_hash_t h = XXH3_128bits_digest(&state);
  return {h.low64, h.high64};
}

// Catalog::memo_: one write's shared texts and site rows, for the next.
struct SiteMemo {
  int64_t library_pk = -1;
  int64_t version = -1;  // DataVersion when the write that made it committed
  ByHash<std::vector<std::string>> bodies, guards;
  ByHash<SiteRowKey> rows;
  // Each site's row, by the site's print: a site the last write stored as
  // it is now is linked to its row without its texts being made again
  // (between two jax releases, a third to a half of the sites; the rest
  // moved lines).
  struct Printed {
    int64_t row_pk = 0, crc = 0, body_hash = 0, guard_hash = 0;
  };
  std::unordered_map<SitePrint, Printed, SitePrintHash> printed;
};

Catalog::Catalog(Catalog&&) noexcept = default;
Catalog& Catalog::operator=(Catalog&&) noexcept = default;
Catalog::~Catalog() = default;

Result<Catalog> Catalog::Open(const std::string& path, OpenMode mode,
                              std::function<void()> on_wait) {
  if (IsPostgresUrl(path)) {
    BusyPolicy busy;
    if (mode == OpenMode::kReadWrite) {
      busy.limit = std::chrono::minutes(30);
      busy.notice = std::move(on_wait);
    }
    Result<Database> db = OpenPostgres(path, mode == OpenMode::kReadOnly, std::move(busy));
    if (!db) return tl::unexpected(db.error());
    Catalog catalog(std::move(*db));
    ERRDEX_TRY(catalog.MigratePostgres(mode, RedactUrl(path)));
    Result<int64_t> version = catalog.DataVersion();
    if (!version) return tl::unexpected(version.error());
    catalog.opened_version_ = *version;
    return catalog;
  }
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
  BusyPolicy busy;
  if (mode == OpenMode::kReadWrite) {
    // The extraction is done before the write lock is asked for: waiting
    // for another writer is cheaper than redoing it.
    busy.limit = std::chrono::minutes(30);
    busy.notice = std::move(on_wait);
  }
  Result<Database> db = OpenSqlite(path, flags, std::move(busy));
  if (!db) return tl::unexpected(db.error());
  Catalog catalog(std::move(*db));
  ERRDEX_TRY(catalog.Migrate(mode, path));
  Result<int64_t> version = catalog.DataVersion();
  if (!version) return tl::unexpected(version.error());
  catalog.opened_version_ = *version;
  return catalog;
}

Result<void> Catalog::Migrate(OpenMode mode, const std::string& path) {
  auto pragma = [&](std::string_view sql) -> Result<int64_t> {
    Result<Statement> st = db_.Prepare(sql);
    if (!st) {
      if (st.error().code == ErrorCode::kCorrupt) {
        return Fail(ErrorCode::kCorrupt,
                    path + " is not an errdex catalog (not SQLite, or damaged): " +
                        st.error().message);
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

  // Creation and upgrades: in one transaction, hashes included; a failed
  // upgrade leaves the old catalog.
  auto run = [&](const std::string& sql, bool rekey = false) -> Result<void> {
    ERRDEX_TRY(db_.BeginWrite());
    write_depth_ = 1;
    dirty_all_ = true;
    Result<void> done = db_.Exec(sql);
    if (done && rekey) done = RekeyErrors();
    if (done) done = Seal(/*rehash_rows=*/true);
    if (done) {
      done = db_.Exec("PRAGMA application_id = " + std::to_string(kApplicationId) +
                      "; PRAGMA user_version = " + std::to_string(kSchemaVersion));
    }
    write_depth_ = 0;
    dirty_all_ = false;
    if (!done) {
      (void)db_.Exec("ROLLBACK");
      return done;
    }
    return db_.Exec("COMMIT");
  };
  if (*app == 0 && *tables == 0) {
    if (mode == OpenMode::kReadOnly) {
      return Fail(ErrorCode::kCorrupt, path + " is an empty database, not an errdex catalog");
    }
    // Larger pages: prefilter blobs span fewer overflow pages, trees are shallower.
    ERRDEX_TRY(db_.Exec("PRAGMA page_size = 16384"));
    ERRDEX_TRY(db_.Exec("PRAGMA journal_mode = WAL"));
    ERRDEX_TRY(run(std::string(kSchemaSql) + std::string(kAnalysisTablesSql) +
                   std::string(kIntegritySql) + std::string(kSourceDigestSql) +
                   std::string(kSignatureSql) + std::string(kMetaSql) +
                   std::string(kSharedSitesSql) + std::string(kSiteViewSql) +
                   std::string(kAliasesSql)));
  } else if (*app == kApplicationId && *version >= 1 && *version < kSchemaVersion &&
             mode == OpenMode::kReadWrite) {
    std::string sql;
    if (*version <= 1) sql += kMigrateFrom1Sql;
    if (*version <= 2) sql += kMigrateFrom2Sql;
    if (*version <= 3) sql += kAnalysisTablesSql;
    if (*version <= 4) sql += kIntegritySql;
    if (*version <= 6) sql += kSourceDigestSql;
    if (*version <= 7) sql += kSignatureSql;
    if (*version <= 8) sql += kMetaSql;
    if (*version <= 9) sql += std::string(kSharedSitesSql) + std::string(kSiteViewSql);
    if (*version <= 10) sql += kAliasesSql;
    share_migrated_sites_ = *version <= 9;
    Result<void> upgraded = run(sql, /*rekey=*/*version <= 5);
    share_migrated_sites_ = false;
    ERRDEX_TRY(upgraded);
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
  // No memory map: a file truncated or shrunk under a reader must be an
  // SQLite error, not SIGBUS. Reads go through the page cache instead.
  ERRDEX_TRY(db_.Exec("PRAGMA mmap_size = 0"));
  // A writer rereads the library's site rows, errors and indexes at every
  // revision it writes: 64 MiB of page cache instead of SQLite's 2 keeps
  // them out of the kernel's copy path (jax's 186 releases in one run).
  if (mode == OpenMode::kReadWrite) {
    ERRDEX_TRY(db_.Exec("PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536"));
  }
  return {};
}

Result<void> Catalog::MigratePostgres(OpenMode mode, const std::string& url) {
  auto exists = [&]() -> Result<bool> {
    Result<Statement> st = db_.Prepare(
        "SELECT CASE WHEN to_regclass('errdex_catalog') IS NULL THEN 0 ELSE 1 END");
    if (!st) return tl::unexpected(st.error());
    Result<bool> row = st->Step();
    if (!row) return tl::unexpected(row.error());
    return *row && st->Int(0) != 0;
  };
  // Creation and upgrades, inside the write lock: `sql`, every hash
  // computed, then `stamp`, which says what the catalog now is.
  auto sealed = [&](const std::string& sql, const std::string& stamp) -> Result<void> {
    write_depth_ = 1;
    dirty_all_ = true;
    Result<void> done = db_.Exec(sql);
    if (done) done = Seal(/*rehash_rows=*/true);
    if (done) done = db_.Exec(stamp);
    write_depth_ = 0;
    dirty_all_ = false;
    return done;
  };
  auto end = [&](Result<void> done) -> Result<void> {
    if (!done) {
      (void)db_.Exec("ROLLBACK");
      return done;
    }
    return db_.Exec("COMMIT");
  };
  Result<bool> there = exists();
  if (!there) return tl::unexpected(there.error());
  if (!*there) {
    if (mode == OpenMode::kReadOnly) {
      return Fail(ErrorCode::kNotFound,
                  "no errdex catalog in " + url + " (run `errdex index --db URL` first)");
    }
    // Under the write lock, so that two first writers create it once.
    ERRDEX_TRY(db_.BeginWrite());
    there = exists();
    Result<void> done = there ? Result<void>() : tl::unexpected(there.error());
    if (done && !*there) {
      done = sealed(std::string(kPostgresSchemaSql) + std::string(kPostgresSharedSitesSql) +
                        std::string(kSiteViewSql) + std::string(kPostgresAliasesSql),
                    "INSERT INTO errdex_catalog (application_id, schema_version, generation) "
                    "VALUES (" + std::to_string(kApplicationId) + ", " +
                        std::to_string(kSchemaVersion) + ", 1)");
      if (!done) {
        done = Fail(done.error().code,
                    "cannot create an errdex catalog in " + url + ": " + done.error().message);
      }
    }
    ERRDEX_TRY(end(done));
  }
  Result<Statement> st = db_.Prepare("SELECT application_id, schema_version FROM errdex_catalog");
  if (!st) return tl::unexpected(st.error());
  Result<bool> row = st->Step();
  if (!row) return tl::unexpected(row.error());
  if (!*row || st->Int(0) != kApplicationId) {
    return Fail(ErrorCode::kCorrupt, url + " holds an errdex_catalog table but not an errdex catalog");
  }
  int64_t version = st->Int(1);
  st->Reset();
  if ((version == 9 || version == 10) && mode == OpenMode::kReadWrite) {
    // Version 9 or 10 to 11 in place, under the write lock; another writer
    // may have done it while this one waited.
    ERRDEX_TRY(db_.BeginWrite());
    Result<Statement> again = db_.Prepare("SELECT schema_version FROM errdex_catalog");
    Result<void> done;
    int64_t now = kSchemaVersion;
    if (!again) {
      done = tl::unexpected(again.error());
    } else if (Result<bool> again_row = again->Step(); !again_row) {
      done = tl::unexpected(again_row.error());
    } else {
      now = *again_row ? again->Int(0) : kSchemaVersion;
      again->Reset();
    }
    if (done && (now == 9 || now == 10)) {
      std::string sql = now == 9 ? std::string(kPostgresSharedSitesSql) + std::string(kSiteViewSql)
                                 : std::string();
      share_migrated_sites_ = now == 9;
      done = sealed(sql + std::string(kPostgresAliasesSql),
                    "UPDATE errdex_catalog SET schema_version = " + std::to_string(kSchemaVersion));
      share_migrated_sites_ = false;
    }
    ERRDEX_TRY(end(done));
    version = kSchemaVersion;
  }
  if (version != kSchemaVersion) {
    return Fail(ErrorCode::kCorrupt,
                url + " has catalog schema version " + std::to_string(version) +
                    "; this errdex reads version " + std::to_string(kSchemaVersion) +
                    (version > kSchemaVersion ? " (a newer errdex wrote it)" : ""));
  }
  return {};
}

Result<void> Catalog::RekeyErrors() {
  struct Row {
    int64_t pk = 0;
    int64_t library_pk = 0;
    std::string id, new_id, exception, template_text;
  };
  Result<Statement> read = db_.Prepare(
      "SELECT e.pk, e.library_pk, e.id, l.name, e.exception, e.pieces, e.template FROM error e "
      "JOIN library l ON l.pk = e.library_pk ORDER BY e.pk");
  if (!read) return tl::unexpected(read.error());
  std::map<std::string, std::vector<Row>> by_id;
  while (true) {
    Result<bool> more = read->Step();
    if (!more) return tl::unexpected(more.error());
    if (!*more) break;
    Row r{read->Int(0), read->Int(1), read->Text(2), "", read->Text(4), read->Text(6)};
    Result<Template> pieces = Fail(ErrorCode::kCorrupt, "unreadable pieces");
    try {
      pieces = PiecesFromJson(nlohmann::json::parse(read->Text(5)));
    } catch (const nlohmann::json::exception&) {
    }
    if (!pieces) return Damaged("the template of error " + r.id + " is unreadable");
    r.new_id = ErrorId(read->Text(3), r.exception, ToValidUtf8(ErrorIdentity(*pieces)));
    by_id[r.new_id].push_back(std::move(r));
  }
  // Of errors that become one, the one whose first site comes first in path
  // and line order keeps its row and template; the others' sites move to it.
  Result<Statement> first = db_.Prepare(
      "SELECT path, line, col FROM site WHERE error_pk = ?1 ORDER BY path, line, col LIMIT 1");
  Result<Statement> move = db_.Prepare("UPDATE site_row SET error_pk = ?2 WHERE error_pk = ?1");
  Result<Statement> unindex = db_.Prepare(
      "INSERT INTO error_fts (error_fts, rowid, template, exception) "
      "SELECT 'delete', pk, template, exception FROM error WHERE pk = ?1");
  // Foreign keys are not on yet: the analysis goes by hand, not by cascade.
  Result<Statement> drop_analysis = db_.Prepare("DELETE FROM analysis WHERE error_pk = ?1");
  Result<Statement> drop = db_.Prepare("DELETE FROM error WHERE pk = ?1");
  Result<Statement> drop_enrichment = db_.Prepare("DELETE FROM enrichment WHERE error_id = ?1");
  // New ids go through a "rekey:" form first, so that no id is ever held
  // twice on the way (an old id may equal another error's new one).
  Result<Statement> rekey = db_.Prepare("UPDATE error SET id = 'rekey:' || ?2 WHERE pk = ?1");
  Result<Statement> rekey_enrichment =
      db_.Prepare("UPDATE OR IGNORE enrichment SET error_id = 'rekey:' || ?2 WHERE error_id = ?1");
  Result<Statement> no_prefilter = db_.Prepare("DELETE FROM prefilter WHERE library_pk = ?1");
  for (auto* st : {&first, &move, &unindex, &drop_analysis, &drop, &drop_enrichment, &rekey,
                   &rekey_enrichment, &no_prefilter}) {
    if (!*st) return tl::unexpected(st->error());
  }
  std::set<int64_t> merged_libraries;
  for (auto& [new_id, rows] : by_id) {
    size_t keep = 0;
    if (rows.size() > 1) {
      std::tuple<std::string, int64_t, int64_t> best;
      for (size_t i = 0; i < rows.size(); ++i) {
        first->Bind(1, rows[i].pk);
        Result<bool> row = first->Step();
        if (!row) return tl::unexpected(row.error());
        auto key = *row ? std::make_tuple(first->Text(0), first->Int(1), first->Int(2))
                        : std::make_tuple(std::string("\xff"), int64_t{0}, int64_t{0});
        first->Reset();
        if (i == 0 || key < best) best = key, keep = i;
      }
      for (size_t i = 0; i < rows.size(); ++i) {
        if (i == keep) continue;
        move->Bind(1, rows[i].pk).Bind(2, rows[keep].pk);
        ERRDEX_TRY(move->Run());
        unindex->Bind(1, rows[i].pk);
        ERRDEX_TRY(unindex->Run());
        drop_analysis->Bind(1, rows[i].pk);
        ERRDEX_TRY(drop_analysis->Run());
        drop->Bind(1, rows[i].pk);
        ERRDEX_TRY(drop->Run());
      }
      merged_libraries.insert(rows[keep].library_pk);
    }
    if (rows[keep].id != new_id) {
      rekey->Bind(1, rows[keep].pk).Bind(2, new_id);
      ERRDEX_TRY(rekey->Run());
    }
    // A model's prose for any of them (the kept one's first) describes them all.
    std::swap(rows[0], rows[keep]);
    for (const Row& r : rows) {
      if (r.id == new_id) continue;
      rekey_enrichment->Bind(1, r.id).Bind(2, new_id);
      ERRDEX_TRY(rekey_enrichment->Run());
      drop_enrichment->Bind(1, r.id);
      ERRDEX_TRY(drop_enrichment->Run());
    }
  }
  ERRDEX_TRY(
      db_.Exec("UPDATE error SET id = substr(id, 7) WHERE id LIKE 'rekey:%';"
               "UPDATE enrichment SET error_id = substr(error_id, 7) "
               "WHERE error_id LIKE 'rekey:%'"));
  // The prefilters of libraries whose errors merged name errors that are
  // gone: the matcher rebuilds them in memory until `errdex index` stores
  // new ones. Kind and internal follow the merged sites.
  for (int64_t library_pk : merged_libraries) {
    no_prefilter->Bind(1, library_pk);
    ERRDEX_TRY(no_prefilter->Run());
  }
  return db_.Exec(
      "UPDATE error SET "
      "kind = (SELECT s.kind FROM site s WHERE s.error_pk = error.pk "
      "        ORDER BY s.snapshot_pk, s.path, s.line LIMIT 1), "
      "internal = NOT EXISTS (SELECT 1 FROM site s WHERE s.error_pk = error.pk AND "
      "                       s.internal = 0)");
}

Result<int64_t> Catalog::DataVersion() {
  if (reading_) return read_version_;
  return db_.DataVersion();
}

Result<void> Catalog::BeginRead() {
  if (!db_.postgres() || reading_ || !db_.InAutocommit()) return {};
  ERRDEX_TRY(db_.Exec("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"));
  // The transaction's first statement takes its snapshot: the version read
  // is the one of every row read until EndRead.
  Result<int64_t> version = db_.DataVersion();
  if (!version) {
    (void)db_.Exec("ROLLBACK");
    return tl::unexpected(version.error());
  }
  reading_ = true;
  read_version_ = *version;
  return {};
}

void Catalog::EndRead() {
  if (!reading_) return;
  reading_ = false;
  // Nothing was written: a failed statement's aborted transaction ends the same way.
  (void)db_.Exec("ROLLBACK");
}

Result<void> Catalog::BeginWrite() {
  if (write_depth_ == 0) {
    if (!db_.InAutocommit()) {
      return Fail(ErrorCode::kInternal, "a write began inside a transaction errdex did not open");
    }
    // A write re-hashes what it touches: on a damaged catalog it would
    // launder the damage, so it refuses to start. Cheap: the small tables
    // and the error rows, no sites. The two are read apart: another
    // writer's commit in between makes them disagree, so damage found
    // while the catalog moved is looked for again (GetBase says why).
    for (int attempt = 0;; ++attempt) {
      Result<int64_t> before = DataVersion();
      if (!before) return tl::unexpected(before.error());
      Result<std::shared_ptr<const Base>> base = GetBase();
      if (!base) return tl::unexpected(base.error());
      Result<std::vector<ErrorRow>> errors = AllErrors(-1, **base, /*pieces=*/false);
      if (errors) break;
      if (errors.error().code != ErrorCode::kCorrupt || attempt == 10) {
        return tl::unexpected(errors.error());
      }
      Result<int64_t> after = DataVersion();
      if (!after) return tl::unexpected(after.error());
      if (*after == *before) return tl::unexpected(errors.error());
    }
    ERRDEX_TRY(db_.BeginWrite());
    dirty_libraries_.clear();
    dirty_snapshots_.clear();
    dirty_all_ = false;
    dirty_seal_ = false;
  } else {
    ERRDEX_TRY(db_.Exec("SAVEPOINT w" + std::to_string(write_depth_)));
  }
  ++write_depth_;
  return {};
}

Result<void> Catalog::CommitWrite() {
  if (write_depth_ > 1) {
    --write_depth_;
    Result<void> released = db_.Exec("RELEASE w" + std::to_string(write_depth_));
    if (!released) {
      ++write_depth_;
      RollbackWrite();
    }
    return released;
  }
  Result<void> sealed = Seal(/*rehash_rows=*/false);
  // Read under the write lock: no other writer can commit before ours.
  Result<int64_t> version = pending_memo_ ? DataVersion() : Result<int64_t>(int64_t{-1});
  if (sealed && !version) sealed = tl::unexpected(version.error());
  if (sealed) sealed = db_.Exec("COMMIT");
  if (!sealed) {
    RollbackWrite();
    return sealed;
  }
  // A commit that wrote no sites may have dropped some: no memo outlives it.
  memo_ = std::move(pending_memo_);
  if (memo_) memo_->version = *version;
  write_depth_ = 0;
  dirty_libraries_.clear();
  dirty_snapshots_.clear();
  dirty_all_ = false;
  dirty_seal_ = false;
  // Our own commit does not change data_version: drop what was checked.
  base_.reset();
  fts_version_ = -1;
  return {};
}

void Catalog::RollbackWrite() {
  memo_.reset();
  pending_memo_.reset();
  if (write_depth_ > 1) {
    --write_depth_;
    std::string name = "w" + std::to_string(write_depth_);
    (void)db_.Exec("ROLLBACK TO " + name + "; RELEASE " + name);
    return;
  }
  if (write_depth_ == 1) (void)db_.Exec("ROLLBACK");
  write_depth_ = 0;
  dirty_libraries_.clear();
  dirty_snapshots_.clear();
  dirty_all_ = false;
  dirty_seal_ = false;
  base_.reset();
  fts_version_ = -1;
}

Result<WriteTransaction> WriteTransaction::Begin(Catalog& catalog) {
  ERRDEX_TRY(catalog.BeginWrite());
  return WriteTransaction(&catalog);
}

WriteTransaction::~WriteTransaction() {
  if (catalog_ != nullptr) catalog_->RollbackWrite();
}

Result<void> WriteTransaction::Commit() {
  Catalog* c = std::exchange(catalog_, nullptr);
  if (c == nullptr) return Fail(ErrorCode::kInternal, "transaction already ended");
  return c->CommitWrite();
}

namespace {
Result<void> MoveErrorSums(Database& db,
                           const std::map<int64_t, std::pair<int64_t, int64_t>>& moved);
}  // namespace

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
  // Sites whose templates differ only in placeholder names are one error
  // (ErrorIdentity); it shows the template of its first site in path and
  // line order.
  std::vector<std::string> identities;
  std::vector<std::string> site_ids;
  std::unordered_map<std::string, size_t> first_site;
  identities.reserve(x.sites.size());
  site_ids.reserve(x.sites.size());
  for (size_t i = 0; i < x.sites.size(); ++i) {
    const Site& s = x.sites[i];
    identities.push_back(ToValidUtf8(ErrorIdentity(s.message)));
    site_ids.push_back(ErrorId(info.library, ToValidUtf8(s.exception), identities[i]));
    auto [it, fresh] = first_site.emplace(site_ids[i], i);
    const Site& f = x.sites[it->second];
    if (!fresh && std::tie(s.path, s.line, s.column, displays[i]) <
                      std::tie(f.path, f.line, f.column, displays[it->second])) {
      it->second = i;
    }
  }
  std::set<std::string> ids(site_ids.begin(), site_ids.end());

  WriteScope scope(*this);
  ERRDEX_TRY(scope.Begin());
  int64_t library_pk = -1;
  auto body = [&]() -> Result<WriteSummary> {
    WriteSummary summary;
    summary.errors = static_cast<int64_t>(ids.size());
    summary.sites = static_cast<int64_t>(x.sites.size());
    std::set<std::string> languages;
    for (const Site& s : x.sites) languages.insert(s.language);

    // The library, keeping a URL given earlier when none is given now.
    // PostgreSQL names the stored row by its table (excluded is the new one).
    Result<Statement> lib = db_.Prepare(
        db_.postgres()
            ? "INSERT INTO library (name, url, languages) VALUES (?1, ?2, ?3) "
              "ON CONFLICT (name) DO UPDATE SET "
              "url = CASE WHEN ?2 = '' THEN library.url ELSE ?2 END, "
              "languages = CASE WHEN ?3 = '' THEN library.languages ELSE ?3 END"
            : "INSERT INTO library (name, url, languages) VALUES (?1, ?2, ?3) "
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
    library_pk = lib_pk->Int(0);

    Result<Statement> snap =
        db_.Prepare("SELECT pk, digest FROM snapshot WHERE library_pk = ?1 AND rev = ?2");
    if (!snap) return tl::unexpected(snap.error());
    snap->Bind(1, library_pk).Bind(2, info.rev);
    Result<bool> snap_row = snap->Step();
    if (!snap_row) return tl::unexpected(snap_row.error());
    int64_t snapshot_pk = -1;
    // By error whose sites change: links gained less links lost, and the
    // sum of their hashes (the error's n_sites and sites_sum move by these).
    std::map<int64_t, std::pair<int64_t, int64_t>> moved;
    std::map<int64_t, GainedRows> gained;  // errors with a row no snapshot held
    bool replaced = false;  // an older write of this revision is gone
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
      // The errors the old links named lose them; their kind is redone.
      Result<Statement> old_links = db_.Prepare(
          "SELECT r.error_pk, r.crc FROM site_link l JOIN site_row r ON r.pk = l.row_pk "
          "WHERE l.snapshot_pk = ?1");
      if (!old_links) return tl::unexpected(old_links.error());
      old_links->Bind(1, snapshot_pk);
      while (true) {
        Result<bool> more = old_links->Step();
        if (!more) return tl::unexpected(more.error());
        if (!*more) break;
        auto& [n, sum] = moved[old_links->Int(0)];
        --n;
        sum = AddHashes(sum, static_cast<int64_t>(0 - static_cast<uint64_t>(old_links->Int(1))));
      }
      replaced = true;
      for (std::string_view table : {"site_link", "non_site", "file_issue", "exception_class"}) {
        Result<Statement> del =
            db_.Prepare("DELETE FROM " + std::string(table) + " WHERE snapshot_pk = ?1");
        if (!del) return tl::unexpected(del.error());
        del->Bind(1, snapshot_pk);
        ERRDEX_TRY(del->Run());
      }
      Result<Statement> upd = db_.Prepare(
          "UPDATE snapshot SET commit_sha = ?2, date = ?3, kind = ?4, root = ?5, subdir = ?6, "
          "digest = ?7, indexed_at = ?8, files = ?9, bytes = ?10, source_digest = ?11, "
          "aliases = ?12 WHERE pk = ?1");
      if (!upd) return tl::unexpected(upd.error());
      upd->Bind(1, snapshot_pk).Bind(2, info.commit).Bind(3, info.date).Bind(4, info.kind);
      upd->Bind(5, info.root).Bind(6, info.subdir).Bind(7, digest).Bind(8, NowUtc());
      upd->Bind(9, x.files_scanned).Bind(10, x.bytes_scanned).Bind(11, info.source_digest);
      upd->Bind(12, JoinAliases(info.aliases));
      ERRDEX_TRY(upd->Run());
    } else {
      Result<Statement> ins = db_.Prepare(
          "INSERT INTO snapshot (library_pk, rev, commit_sha, date, kind, root, subdir, digest, "
          "indexed_at, files, bytes, source_digest, aliases) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) RETURNING pk");
      if (!ins) return tl::unexpected(ins.error());
      ins->Bind(1, library_pk).Bind(2, info.rev).Bind(3, info.commit).Bind(4, info.date);
      ins->Bind(5, info.kind).Bind(6, info.root).Bind(7, info.subdir).Bind(8, digest);
      ins->Bind(9, NowUtc()).Bind(10, x.files_scanned).Bind(11, x.bytes_scanned);
      ins->Bind(12, info.source_digest).Bind(13, JoinAliases(info.aliases));
      Result<bool> inserted = ins->Step();
      if (!inserted) return tl::unexpected(inserted.error());
      snapshot_pk = ins->Int(0);
      ins->Reset();
    }

    Result<Statement> max_pk = db_.Prepare("SELECT coalesce(max(pk), 0) FROM error");
    if (!max_pk) return tl::unexpected(max_pk.error());
    Result<bool> max_row = max_pk->Step();
    if (!max_row) return tl::unexpected(max_row.error());
    int64_t first_new_pk = max_pk->Int(0) + 1;

    Result<Statement> find_error = db_.Prepare(
        "SELECT pk, library_pk, exception, template, pieces, kind, internal FROM error "
        "WHERE id = ?1");
    // An error this snapshot raises takes the template of its first site here.
    Result<Statement> retemplate =
        db_.Prepare("UPDATE error SET template = ?2, pieces = ?3 WHERE pk = ?1");
    // SQLite's FTS5 index is kept by hand (schema.h says why); PostgreSQL's
    // is a generated column that follows the row.
    bool fts5 = !db_.postgres();
    Result<Statement> fts_drop = db_.Prepare(
        fts5 ? "INSERT INTO error_fts (error_fts, rowid, template, exception) VALUES ('delete', "
               "?1, ?2, ?3)"
             : "SELECT 1");
    Result<Statement> fts_put = db_.Prepare(
        fts5 ? "INSERT INTO error_fts (rowid, template, exception) VALUES (?1, ?2, ?3)"
             : "SELECT 1");
    if (!retemplate) return tl::unexpected(retemplate.error());
    if (!fts_drop) return tl::unexpected(fts_drop.error());
    if (!fts_put) return tl::unexpected(fts_put.error());
    Result<Statement> insert_error = db_.Prepare(
        "INSERT INTO error (id, library_pk, exception, template, kind, pieces, literal_size, "
        "dynamic, internal) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING pk");
    if (!find_error) return tl::unexpected(find_error.error());
    if (!insert_error) return tl::unexpected(insert_error.error());
    std::unordered_map<std::string, int64_t> error_pks;
    std::vector<int64_t> site_errors(x.sites.size());
    // The kind and internal flag stored for the errors held already; an
    // error inserted here took both from one of its sites.
    std::unordered_map<int64_t, std::pair<std::string, bool>> stored_kinds;
    for (size_t i = 0; i < x.sites.size(); ++i) {
      const Site& s = x.sites[i];
      std::string exception = ToValidUtf8(s.exception);
      const std::string& id = site_ids[i];
      auto known = error_pks.find(id);
      int64_t error_pk;
      if (known != error_pks.end()) {
        error_pk = known->second;
      } else {
        // The error's template: its first site's (the same error whichever).
        size_t first = first_site.at(id);
        find_error->Bind(1, id);
        Result<bool> found = find_error->Step();
        if (!found) return tl::unexpected(found.error());
        if (*found) {
          error_pk = find_error->Int(0);
          stored_kinds.emplace(error_pk,
                               std::make_pair(find_error->Text(5), find_error->Int(6) != 0));
          std::string stored_template = find_error->Text(3);
          Result<Template> stored = Fail(ErrorCode::kCorrupt, "unreadable pieces");
          try {
            stored = PiecesFromJson(nlohmann::json::parse(find_error->Text(4)));
          } catch (const nlohmann::json::exception&) {
          }
          if (find_error->Int(1) != library_pk || find_error->Text(2) != exception || !stored ||
              ToValidUtf8(ErrorIdentity(*stored)) != identities[i]) {
            return Fail(ErrorCode::kInternal, "error id collision on " + id);
          }
          find_error->Reset();
          if (stored_template != displays[first]) {
            if (fts5) {
              fts_drop->Bind(1, error_pk).Bind(2, stored_template).Bind(3, exception);
              ERRDEX_TRY(fts_drop->Run());
            }
            retemplate->Bind(1, error_pk).Bind(2, displays[first]).Bind(3, pieces_json[first]);
            ERRDEX_TRY(retemplate->Run());
            if (fts5) {
              fts_put->Bind(1, error_pk).Bind(2, displays[first]).Bind(3, exception);
              ERRDEX_TRY(fts_put->Run());
            }
          }
        } else {
          find_error->Reset();
          insert_error->Bind(1, id).Bind(2, library_pk).Bind(3, exception).Bind(4, displays[first]);
          insert_error->Bind(5, SiteKindName(x.sites[first].kind)).Bind(6, pieces_json[first]);
          insert_error->Bind(7, static_cast<int64_t>(s.message.LiteralSize()));
          insert_error->Bind(8, s.message.IsDynamic()).Bind(9, s.internal);
          Result<bool> inserted = insert_error->Step();
          if (!inserted) return tl::unexpected(inserted.error());
          error_pk = insert_error->Int(0);
          insert_error->Reset();
          ++summary.new_errors;
        }
        error_pks.emplace(id, error_pk);
      }
      site_errors[i] = error_pk;
    }
    ERRDEX_TRY(WriteSites(library_pk, snapshot_pk, x.sites, site_errors, replaced, moved, gained,
                          &summary.sites));
    ERRDEX_TRY(MoveErrorSums(db_, moved));

    Result<std::unique_ptr<BulkWriter>> non_site =
        db_.BulkInsert("non_site", "snapshot_pk, path, line, reason, crc");
    if (!non_site) return tl::unexpected(non_site.error());
    for (const NonSite& n : x.non_sites) {
      std::string path = ToValidUtf8(n.path);
      int64_t crc = RowHasher().Int(snapshot_pk).Text(path).Int(n.line).Text(n.reason).Digest();
      ERRDEX_TRY((*non_site)->Add({snapshot_pk, path, n.line, n.reason, crc}));
    }
    ERRDEX_TRY((*non_site)->Finish());
    Result<std::unique_ptr<BulkWriter>> issue =
        db_.BulkInsert("file_issue", "snapshot_pk, path, reason, detail, skipped, crc");
    if (!issue) return tl::unexpected(issue.error());
    for (const FileIssue& i : x.issues) {
      std::string path = ToValidUtf8(i.path);
      std::string detail = ToValidUtf8(i.detail);
      int64_t crc = RowHasher()
                        .Int(snapshot_pk)
                        .Text(path)
                        .Text(i.reason)
                        .Text(detail)
                        .Int(i.skipped)
                        .Digest();
      ERRDEX_TRY((*issue)->Add({snapshot_pk, path, i.reason, detail, i.skipped, crc}));
    }
    ERRDEX_TRY((*issue)->Finish());
    Result<std::unique_ptr<BulkWriter>> cls =
        db_.BulkInsert("exception_class", "snapshot_pk, name, bases, path, line, crc");
    if (!cls) return tl::unexpected(cls.error());
    for (const ExceptionClass& c : x.classes) {
      std::string name = ToValidUtf8(c.name);
      std::string bases = ToValidUtf8(JoinComma(c.bases));
      std::string path = ToValidUtf8(c.path);
      int64_t crc =
          RowHasher().Int(snapshot_pk).Text(name).Text(bases).Text(path).Int(c.line).Digest();
      ERRDEX_TRY((*cls)->Add({snapshot_pk, name, bases, path, c.line, crc}));
    }
    ERRDEX_TRY((*cls)->Finish());
    // PostgreSQL plans the statements below by its statistics, which rows
    // just copied in are not part of yet: without them, the refresh of
    // the errors' kind walked the sites once per error (5 s for Python's
    // standard library, 3,600 errors).
    if (db_.postgres()) ERRDEX_TRY(db_.Exec("ANALYZE site_link, site_row, site_text, error"));

    // New errors into the search index; errors no snapshot raises any more
    // out of it and out of the catalog. The others take kind and internal
    // from their sites (an error is internal only if every site is).
    if (fts5) {
      Result<Statement> fts_add = db_.Prepare(
          "INSERT INTO error_fts (rowid, template, exception) "
          "SELECT pk, template, exception FROM error WHERE pk >= ?1");
      if (!fts_add) return tl::unexpected(fts_add.error());
      fts_add->Bind(1, first_new_pk);
      ERRDEX_TRY(fts_add->Run());
      Result<Statement> fts_gc = db_.Prepare(
          "INSERT INTO error_fts (error_fts, rowid, template, exception) "
          "SELECT 'delete', pk, template, exception FROM error WHERE library_pk = ?1 AND "
          "NOT EXISTS (SELECT 1 FROM site_row r WHERE r.error_pk = error.pk)");
      if (!fts_gc) return tl::unexpected(fts_gc.error());
      fts_gc->Bind(1, library_pk);
      ERRDEX_TRY(fts_gc->Run());
    }
    Result<Statement> gc = db_.Prepare(
        "DELETE FROM error WHERE library_pk = ?1 AND NOT EXISTS "
        "(SELECT 1 FROM site_row r WHERE r.error_pk = error.pk)");
    if (!gc) return tl::unexpected(gc.error());
    gc->Bind(1, library_pk);
    ERRDEX_TRY(gc->Run());
    summary.removed_errors = db_.Changes();
    // An error's kind and internal flag are read from all its rows, in
    // every version: only a row added or dropped can change them. Links to
    // rows held already cannot, and neither can added rows of the kind the
    // error has, internal or not public again (GainedRows). Each of jax's
    // releases adds rows to about half its errors, as lines move, nearly
    // all of that kind: reading every row of those errors again took a
    // tenth of a run over 146 releases, growing with each.
    std::set<int64_t> touched;
    for (const auto& [pk, rows] : gained) {
      auto stored = stored_kinds.find(pk);
      if (stored == stored_kinds.end() ||
          rows.CanChange(stored->second.first, stored->second.second)) {
        touched.insert(pk);
      }
    }
    if (replaced) {
      for (const auto& [pk, by] : moved) touched.insert(pk);
    }
    Result<Statement> refresh = db_.Prepare(
        "UPDATE error SET "
        "kind = (SELECT r.kind FROM site_row r WHERE r.error_pk = error.pk "
        "        ORDER BY r.path, r.line, r.col, r.kind LIMIT 1), "
        "internal = CASE WHEN EXISTS (SELECT 1 FROM site_row r WHERE r.error_pk = error.pk AND "
        "                            r.internal = 0) THEN 0 ELSE 1 END "
        "WHERE library_pk = ?1 AND pk IN (" + JoinInts(touched) + ")");
    if (!refresh) return tl::unexpected(refresh.error());
    refresh->Bind(1, library_pk);
    if (!touched.empty()) ERRDEX_TRY(refresh->Run());
    scope.MarkSitesDirty(snapshot_pk);
    if (index != nullptr) {
      ERRDEX_TRY(StorePrefilter(library_pk, *index));
      summary.prefilter_rebuilt = true;
    } else {
      // A prefilter covers the whole library: one not rebuilt now would
      // miss this write's errors. Without one, explain builds it in memory
      // (and says so) until a write stores it again.
      Result<Statement> drop = db_.Prepare("DELETE FROM prefilter WHERE library_pk = ?1");
      if (!drop) return tl::unexpected(drop.error());
      drop->Bind(1, library_pk);
      ERRDEX_TRY(drop->Run());
    }
    return summary;
  };
  Result<WriteSummary> result = body();
  if (!result || (result->unchanged && !result->prefilter_rebuilt)) {
    scope.Rollback();
    return result;
  }
  scope.MarkDirty(library_pk);
  ERRDEX_TRY(scope.Commit());
  return result;
}

namespace {

// One of the tables a site row's large text is shared through: its name,
// its text columns and the hash column, which site_row repeats.
struct SharedText {
  std::string_view table;
  std::string_view columns;
  std::string_view hash;
};
constexpr SharedText kBodies{"site_text", "statement, excerpt", "body_hash"};
constexpr SharedText kGuardTexts{"site_guard", "guards, trigger, signature, entries",
                                 "guard_hash"};

}  // namespace

namespace {

Result<int64_t> NextPk(Database& db, std::string_view table) {
  Result<Statement> st = db.Prepare("SELECT coalesce(max(pk), 0) FROM " + std::string(table));
  if (!st) return tl::unexpected(st.error());
  Result<bool> row = st->Step();
  if (!row) return tl::unexpected(row.error());
  return st->Int(0) + 1;
}

// Calls `visit` with each row of "SELECT <columns> FROM <from> WHERE
// <key> IN (...)" for `keys`, 500 at a time.
Result<void> SelectIn(Database& db, const std::string& columns, const std::string& from,
                      const std::string& key, const std::set<int64_t>& keys,
                      const std::function<void(const Statement&)>& visit) {
  for (auto it = keys.begin(); it != keys.end();) {
    std::set<int64_t> batch;
    while (it != keys.end() && batch.size() < 500) batch.insert(*it++);
    Result<Statement> st = db.Prepare("SELECT " + columns + " FROM " + from + " WHERE " + key +
                                      " IN (" + JoinInts(batch) + ")");
    if (!st) return tl::unexpected(st.error());
    while (true) {
      Result<bool> more = st->Step();
      if (!more) return tl::unexpected(more.error());
      if (!*more) break;
      visit(*st);
    }
  }
  return {};
}

// Moves into `found` the memo's entries of each of `hashes` (`memo` may be
// null) and returns the hashes it did not hold, to be looked up; each of
// them has an empty entry in `found`.
template <typename Content>
std::set<int64_t> TakeFromMemo(const std::vector<int64_t>& hashes, ByHash<Content>* memo,
                               ByHash<Content>& found) {
  std::set<int64_t> unknown;
  for (int64_t h : hashes) {
    if (found.count(h) != 0) continue;
    auto held = memo != nullptr ? memo->find(h) : typename ByHash<Content>::iterator{};
    if (memo != nullptr && held != memo->end()) {
      found.emplace(h, std::move(held->second));
      memo->erase(held);
    } else {
      found[h];
      unknown.insert(h);
    }
  }
  return unknown;
}

// For each of `contents`, the pks of the stored texts equal to it in
// `table`, writing those not stored yet. A hash only nominates a stored
// text; the columns decide. The hashes `memo` holds (it is consumed) are
// not looked up; `next`, when given, receives every hash of `hashes`.
Result<std::vector<std::vector<int64_t>>> ShareTexts(
    Database& db_, const SharedText& table, const std::vector<std::vector<std::string>>& contents,
    const std::vector<int64_t>& hashes, ByHash<std::vector<std::string>>* memo,
    ByHash<std::vector<std::string>>* next) {
  ByHash<std::vector<std::string>> found;
  std::set<int64_t> unknown = TakeFromMemo(hashes, memo, found);
  int n = ColumnCount(table.columns);
  ERRDEX_TRY(SelectIn(db_, "pk, " + std::string(table.hash) + ", " + std::string(table.columns),
                      std::string(table.table), std::string(table.hash), unknown,
                      [&](const Statement& st) {
                        std::vector<std::string> v;
                        for (int c = 0; c < n; ++c) v.push_back(st.Text(2 + c));
                        found[st.Int(1)].emplace_back(st.Int(0), std::move(v));
                      }));
  // The first equal text is the one a new row names: the oldest, whichever
  // way it was found.
  for (int64_t h : unknown) {
    auto& stored = found[h];
    std::sort(stored.begin(), stored.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  Result<int64_t> next_pk = NextPk(db_, table.table);
  if (!next_pk) return tl::unexpected(next_pk.error());
  Result<std::unique_ptr<BulkWriter>> out = db_.BulkInsert(
      table.table, "pk, " + std::string(table.columns) + ", " + std::string(table.hash));
  if (!out) return tl::unexpected(out.error());
  // Every stored text equal to the site's: a catalog upgraded from version
  // 9 holds one text per old row, equal ones included.
  std::vector<std::vector<int64_t>> equal(contents.size());
  for (size_t i = 0; i < contents.size(); ++i) {
    std::vector<std::pair<int64_t, std::vector<std::string>>>& stored = found.at(hashes[i]);
    for (const auto& [pk, c] : stored) {
      if (c == contents[i]) equal[i].push_back(pk);
    }
    if (!equal[i].empty()) continue;
    int64_t pk = (*next_pk)++;
    const std::vector<std::string>& c = contents[i];
    if (n == 2) {
      ERRDEX_TRY((*out)->Add({pk, c[0], c[1], hashes[i]}));
    } else {
      ERRDEX_TRY((*out)->Add({pk, c[0], c[1], c[2], c[3], hashes[i]}));
    }
    stored.emplace_back(pk, c);
    equal[i].push_back(pk);
  }
  ERRDEX_TRY((*out)->Finish());
  if (next != nullptr) *next = std::move(found);
  return equal;
}

// Moves each error's n_sites and sites_sum by `moved` (see WriteSnapshot).
Result<void> MoveErrorSums(Database& db,
                           const std::map<int64_t, std::pair<int64_t, int64_t>>& moved) {
  std::set<int64_t> pks;
  for (const auto& [pk, by] : moved) pks.insert(pk);
  std::map<int64_t, std::pair<int64_t, int64_t>> now;
  ERRDEX_TRY(SelectIn(db, "pk, n_sites, sites_sum", "error", "pk", pks, [&](const Statement& st) {
    const auto& [n, sum] = moved.at(st.Int(0));
    now[st.Int(0)] = {st.Int(1) + n, AddHashes(st.Int(2), sum)};
  }));
  Result<Statement> update =
      db.Prepare("UPDATE error SET n_sites = ?2, sites_sum = ?3 WHERE pk = ?1");
  if (!update) return tl::unexpected(update.error());
  for (const auto& [pk, sums] : now) {
    update->Bind(1, pk).Bind(2, sums.first).Bind(3, sums.second);
    ERRDEX_TRY(update->Run());
  }
  return {};
}

}  // namespace

Result<void> Catalog::WriteSites(int64_t library_pk, int64_t snapshot_pk,
                                 const std::vector<Site>& sites,
                                 const std::vector<int64_t>& error_pks, bool replaced,
                                 std::map<int64_t, std::pair<int64_t, int64_t>>& moved,
                                 std::map<int64_t, GainedRows>& gained, int64_t* written) {
  // The last write's memo stands for the tables only if nothing but that
  // write changed them since: no other connection (DataVersion, which our
  // own commits leave alone; PostgreSQL's counts every commit, so it is
  // not used there), and no rows or texts dropped by this one. It is
  // taken, so a second write of sites in one transaction, which the first
  // changed the tables for, finds none.
  std::shared_ptr<SiteMemo> memo = std::move(memo_);
  if (memo != nullptr) {
    Result<int64_t> version = DataVersion();
    if (!version) return tl::unexpected(version.error());
    if (replaced || memo->library_pk != library_pk || memo->version != *version) memo.reset();
  }
  pending_memo_.reset();
  std::shared_ptr<SiteMemo> next;
  if (!replaced && !db_.postgres()) {
    next = std::make_shared<SiteMemo>();
    next->library_pk = library_pk;
  } else {
    memo.reset();  // a write that keeps none reads none (prints are not made)
  }
  // Sites the last write stored as they are now (`printed`, into the
  // memo): their rows and crcs.
  // The rest ("made") have their texts and rows made and found below.
  std::vector<SitePrint> prints(sites.size());
  std::vector<const SiteMemo::Printed*> printed(sites.size(), nullptr);
  std::vector<int64_t> links(sites.size());
  std::vector<int64_t> crcs(sites.size());
  std::vector<size_t> made;
  for (size_t i = 0; i < sites.size(); ++i) {
    if (next) prints[i] = PrintSite(sites[i], error_pks[i]);
    if (memo) {
      if (auto it = memo->printed.find(prints[i]); it != memo->printed.end()) {
        printed[i] = &it->second;
        links[i] = it->second.row_pk;
        crcs[i] = it->second.crc;
        continue;
      }
    }
    made.push_back(i);
  }
  std::vector<std::vector<std::string>> body_text(made.size()), guard_text(made.size());
  std::vector<int64_t> body_hash(made.size()), guard_hash(made.size());
  for (size_t m = 0; m < made.size(); ++m) {
    const Site& s = sites[made[m]];
    body_text[m] = {s.statement, s.excerpt};
    // Built relative at once: parsing the absolute text again cost 2% of
    // an index.
    guard_text[m] = {GuardsToJson(s.guards, s.line)
                         .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                     ToValidUtf8(s.trigger), ToValidUtf8(s.signature),
                     LinesForStorage(ToValidUtf8(s.entries), s.line, ToValidUtf8(s.path))};
    const auto& g = guard_text[m];
    body_hash[m] = RowHasher().Text(s.statement).Text(s.excerpt).Digest();
    guard_hash[m] = RowHasher().Text(g[0]).Text(g[1]).Text(g[2]).Text(g[3]).Digest();
  }
  Result<std::vector<std::vector<int64_t>>> site_bodies =
      ShareTexts(db_, kBodies, body_text, body_hash, memo ? &memo->bodies : nullptr,
                 next ? &next->bodies : nullptr);
  if (!site_bodies) return tl::unexpected(site_bodies.error());
  Result<std::vector<std::vector<int64_t>>> site_guards =
      ShareTexts(db_, kGuardTexts, guard_text, guard_hash, memo ? &memo->guards : nullptr,
                 next ? &next->guards : nullptr);
  if (!site_guards) return tl::unexpected(site_guards.error());

  // Each site's row as it would be stored, and the stored rows of the same
  // hash: a hash only nominates; the columns decide, so that two sites
  // whose hashes collide are still two rows.
  std::vector<SiteRowKey> keys(made.size());
  std::vector<int64_t> made_crcs(made.size());
  for (size_t m = 0; m < made.size(); ++m) {
    const Site& s = sites[made[m]];
    SiteRowKey& k = keys[m];
    k = SiteRowKey{error_pks[made[m]],
                   (*site_bodies)[m].front(),
                   (*site_guards)[m].front(),
                   s.language,
                   ToValidUtf8(s.path),
                   s.line,
                   s.column,
                   s.end_line,
                   ToValidUtf8(s.function),
                   std::string(SiteKindName(s.kind)),
                   ToValidUtf8(s.exception_written),
                   ToValidUtf8(s.cause),
                   ToValidUtf8(s.via),
                   s.internal ? 1 : 0,
                   s.excerpt_line};
    made_crcs[m] = RowHasher()
                       .Int(k.error_pk)
                       .Text(k.language)
                       .Text(k.path)
                       .Int(k.line)
                       .Int(k.col)
                       .Int(k.end_line)
                       .Text(k.function)
                       .Text(k.kind)
                       .Text(k.written)
                       .Text(k.cause)
                       .Text(k.via)
                       .Int(k.internal)
                       .Int(k.excerpt_line)
                       .Int(body_hash[m])
                       .Int(guard_hash[m])
                       .Digest();
  }
  ByHash<SiteRowKey> rows;  // by crc, every stored row of the crcs made
  std::set<int64_t> unknown = TakeFromMemo(made_crcs, memo ? &memo->rows : nullptr, rows);
  ERRDEX_TRY(SelectIn(
      db_,
      "crc, pk, error_pk, text_pk, guard_pk, language, path, line, col, end_line, function, kind, "
      "exception_written, cause, via, internal, excerpt_line",
      "site_row", "crc", unknown, [&](const Statement& st) {
        rows[st.Int(0)].emplace_back(
            st.Int(1), SiteRowKey{st.Int(2), st.Int(3), st.Int(4), st.Text(5), st.Text(6),
                                  st.Int(7), st.Int(8), st.Int(9), st.Text(10), st.Text(11),
                                  st.Text(12), st.Text(13), st.Text(14), st.Int(15), st.Int(16)});
      }));

  Result<int64_t> row_pk = NextPk(db_, "site_row");
  if (!row_pk) return tl::unexpected(row_pk.error());
  // Rows are hashed here, as they are bound: every backend stores the same
  // hashes (RowHasher), whether or not it can run errdex_row_hash.
  Result<std::unique_ptr<BulkWriter>> row_out = db_.BulkInsert(
      "site_row",
      "pk, error_pk, text_pk, guard_pk, language, path, line, col, end_line, function, kind, "
      "exception_written, cause, via, internal, excerpt_line, body_hash, guard_hash, crc");
  if (!row_out) return tl::unexpected(row_out.error());
  auto holds = [](const std::vector<int64_t>& v, int64_t pk) {
    return std::find(v.begin(), v.end(), pk) != v.end();
  };
  for (size_t m = 0; m < made.size(); ++m) {
    size_t i = made[m];
    const std::vector<int64_t>& my_bodies = (*site_bodies)[m];
    const std::vector<int64_t>& my_guards = (*site_guards)[m];
    SiteRowKey& k = keys[m];
    int64_t crc = made_crcs[m];
    int64_t found = -1;
    std::vector<std::pair<int64_t, SiteRowKey>>& stored = rows.at(crc);
    for (auto it = stored.begin(); it != stored.end() && found < 0; ++it) {
      SiteRowKey other = it->second;
      if (!holds(my_bodies, other.text_pk) || !holds(my_guards, other.guard_pk)) continue;
      other.text_pk = k.text_pk;
      other.guard_pk = k.guard_pk;
      if (other == k) found = it->first;
    }
    if (found < 0) {
      found = (*row_pk)++;
      ERRDEX_TRY(
          (*row_out)->Add({found, k.error_pk, k.text_pk, k.guard_pk, k.language, k.path, k.line,
                           k.col, k.end_line, k.function, k.kind, k.written, k.cause, k.via,
                           k.internal, k.excerpt_line, body_hash[m], guard_hash[m], crc}));
      GainedRows& g = gained[error_pks[i]];
      g.kinds.insert(k.kind);
      g.public_row = g.public_row || k.internal == 0;
      stored.emplace_back(found, std::move(k));
    }
    links[i] = found;
    crcs[i] = crc;
    if (next)
      next->printed.emplace(prints[i], SiteMemo::Printed{found, crc, body_hash[m], guard_hash[m]});
  }
  // A row is linked once: two sites that differ only in what the error
  // holds (the same raise read as two templates that differ in placeholder
  // names alone, through the branches of a class's __str__) are one site of
  // that error, not a site listed twice on its page.
  std::unordered_set<int64_t> linked;
  std::vector<size_t> first;  // the sites that are the first of their row
  for (size_t i = 0; i < sites.size(); ++i) {
    if (linked.insert(links[i]).second) first.push_back(i);
  }
  for (size_t i : first) {
    auto& [n, sum] = moved[error_pks[i]];
    ++n;
    sum = AddHashes(sum, crcs[i]);
  }
  ERRDEX_TRY((*row_out)->Finish());
  Result<std::unique_ptr<BulkWriter>> link_out = db_.BulkInsert("site_link", "snapshot_pk, row_pk");
  if (!link_out) return tl::unexpected(link_out.error());
  for (size_t i : first) ERRDEX_TRY((*link_out)->Add({snapshot_pk, links[i]}));
  ERRDEX_TRY((*link_out)->Finish());
  if (written != nullptr) *written = static_cast<int64_t>(first.size());
  if (next) {
    next->rows = std::move(rows);
    // What the last write's memo held for the sites found by their print
    // goes on to the next: a site that moves a line in the next release has
    // the same texts, and would otherwise look them up in the tables. An
    // entry this write did not take from the memo holds every stored text
    // or row of its hash still: this write stored only what it looked up.
    if (memo) {
      auto carry = [](auto& from, auto& to, int64_t h) {
        if (to.count(h) != 0) return;
        if (auto it = from.find(h); it != from.end()) {
          to.emplace(h, std::move(it->second));
          from.erase(it);
        }
      };
      for (size_t i = 0; i < sites.size(); ++i) {
        if (printed[i] == nullptr) continue;
        const SiteMemo::Printed& p = *printed[i];
        carry(memo->bodies, next->bodies, p.body_hash);
        carry(memo->guards, next->guards, p.guard_hash);
        carry(memo->rows, next->rows, p.crc);
        next->printed.emplace(prints[i], p);
      }
    }
    pending_memo_ = std::move(next);
  }

  if (replaced) {
    // Rows only the replaced links held, then texts no row holds.
    Result<Statement> rows_gc = db_.Prepare(
        "DELETE FROM site_row WHERE error_pk IN (SELECT pk FROM error WHERE library_pk = ?1) "
        "AND NOT EXISTS (SELECT 1 FROM site_link l WHERE l.row_pk = site_row.pk)");
    if (!rows_gc) return tl::unexpected(rows_gc.error());
    rows_gc->Bind(1, library_pk);
    ERRDEX_TRY(rows_gc->Run());
    ERRDEX_TRY(db_.Exec("DELETE FROM site_text WHERE NOT EXISTS "
                        "(SELECT 1 FROM site_row r WHERE r.text_pk = site_text.pk); "
                        "DELETE FROM site_guard WHERE NOT EXISTS "
                        "(SELECT 1 FROM site_row r WHERE r.guard_pk = site_guard.pk)"));
  }
  return {};
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
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  Result<std::vector<ErrorRow>> rows = AllErrors(library_pk, **base);
  if (!rows) return tl::unexpected(rows.error());
  std::sort(rows->begin(), rows->end(),
            [](const ErrorRow& a, const ErrorRow& b) { return a.record.pk < b.record.pk; });
  std::vector<ErrorTemplate> out;
  out.reserve(rows->size());
  for (ErrorRow& r : *rows) out.push_back(ErrorTemplate{r.record.pk, std::move(r.record.message)});
  return out;
}

Result<void> Catalog::VisitPrefilters(
    const std::function<Result<void>(const PrefilterBlob& library, std::string_view blob)>& visit) {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  std::vector<std::pair<std::string, int64_t>> by_name;
  for (const auto& [pk, lib] : (*base)->libraries) by_name.emplace_back(lib.name, pk);
  std::sort(by_name.begin(), by_name.end());
  Result<Statement> st = db_.Prepare("SELECT format, blob FROM prefilter WHERE library_pk = ?1");
  if (!st) return tl::unexpected(st.error());
  for (const auto& [name, pk] : by_name) {
    st->Reset();
    st->Bind(1, pk);
    Result<bool> row = st->Step();
    if (!row) return tl::unexpected(row.error());
    int64_t expected = (*base)->libraries.at(pk).prefilter_crc;
    if ((*base)->verified && (*row ? st->HashColumns(0, 2) : 0) != expected) {
      return Damaged("the prefilter of " + name + " does not match its hash");
    }
    PrefilterBlob library{pk, name, *row ? static_cast<int>(st->Int(0)) : 0};
    ERRDEX_TRY(visit(library, *row ? st->BlobView(1) : std::string_view()));
  }
  return {};
}

Result<std::vector<ErrorRecord>> Catalog::GetByPks(const std::vector<int64_t>& pks,
                                                   SiteDetail detail) {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  // One cached statement per row: the matcher asks for a few dozen errors at
  // a time, many times a second; preparing an IN-list query each time costs
  // more than the lookups.
  Result<Statement*> error = Cached("SELECT " + ErrorSelect("e") + " FROM error e WHERE e.pk = ?1");
  if (!error) return tl::unexpected(error.error());
  std::vector<ErrorRecord> out;
  for (int64_t pk : pks) {
    (*error)->Reset();
    (*error)->Bind(1, pk);
    Result<std::vector<ErrorRow>> rows = ReadErrors(**error, **base);
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) {
      // The pks came from this catalog: one gone since it was opened is a
      // re-index by another errdex; one gone otherwise is damage.
      Result<int64_t> version = DataVersion();
      if (!version) return tl::unexpected(version.error());
      if ((*base)->verified && *version == opened_version_) {
        return Damaged("error row " + std::to_string(pk) + " is missing");
      }
      continue;
    }
    ErrorRow& row = rows->front();
    if ((*base)->verified && row.record.pk != pk) return Damaged("error rows are mixed up");
    if (detail != SiteDetail::kNone) ERRDEX_TRY(LoadSitesOf(row.record, row, detail, **base));
    out.push_back(std::move(row.record));
  }
  return out;
}

Result<void> Catalog::LoadSitesOf(ErrorRecord& e, const ErrorRow& row, SiteDetail detail,
                                  const Base& base, size_t keep) {
  if (keep != SIZE_MAX) return LoadFirstSitesOf(e, row, detail, base, keep);
  Result<Statement*> sites = Cached(SiteSelect(detail) +
                                    "WHERE s.error_pk = ?1 ORDER BY l.snapshot_pk, s.path, "
                                    "s.line, s.col");
  if (!sites) return tl::unexpected(sites.error());
  Statement& q = **sites;
  q.Bind(1, e.pk);
  Tally tally;
  while (true) {
    Result<bool> site = q.Step();
    if (!site) return tl::unexpected(site.error());
    if (!*site) break;
    if (base.verified) {
      if (!SiteIsIntact(q, detail) || q.Int(1) != e.pk) {
        return Damaged("a site of error " + e.id + " does not match its hash");
      }
      tally.Add(q.Int(kSiteCrc));
    }
    Result<SiteRecord> s = ReadSite(q, base);
    if (!s) return tl::unexpected(s.error());
    e.sites.push_back(std::move(*s));
  }
  q.Reset();
  if (base.verified && !tally.Matches(row.n_sites, row.sites_sum)) {
    return Damaged("the sites of error " + e.id + " do not match its hash");
  }
  FocusVersion(e, base, version_);
  return {};
}

Result<void> Catalog::LoadFirstSitesOf(ErrorRecord& e, const ErrorRow& row, SiteDetail detail,
                                       const Base& base, size_t keep) {
  // An `assert` of a big library is one error at 90,000 sites: reading and
  // ordering them all took most of a second. Every site is counted and its
  // stored hash summed, so that a lost or added row is noticed; those shown
  // are read, in order, and checked in full.
  Result<Statement*> all = Cached(
      "SELECT l.snapshot_pk, r.crc FROM site_row r JOIN site_link l ON l.row_pk = r.pk "
      "WHERE r.error_pk = ?1");
  if (!all) return tl::unexpected(all.error());
  (*all)->Bind(1, e.pk);
  Tally tally;
  std::map<int64_t, int64_t> per_snapshot;
  while (true) {
    Result<bool> site = (*all)->Step();
    if (!site) return tl::unexpected(site.error());
    if (!*site) break;
    ++per_snapshot[(*all)->Int(0)];
    tally.Add((*all)->Int(1));
  }
  (*all)->Reset();
  if (base.verified && !tally.Matches(row.n_sites, row.sites_sum)) {
    return Damaged("the sites of error " + e.id + " do not match its hash");
  }
  // By the error's index: left to itself, SQLite walks the (path, line)
  // index of every site for the order, seconds per error.
  Result<Statement*> first = Cached(SiteSelect(detail, /*by_error=*/!db_.postgres()) +
                                    "WHERE s.error_pk = ?1 AND "
                                    "l.snapshot_pk = ?2 ORDER BY s.path, s.line, s.col LIMIT ?3");
  if (!first) return tl::unexpected(first.error());
  Statement& q = **first;
  for (const auto& [snapshot_pk, n] : per_snapshot) {
    q.Bind(1, e.pk).Bind(2, snapshot_pk).Bind(3, static_cast<int64_t>(keep));
    ERRDEX_TRY(ReadSitesOf(q, e, detail, base));
  }
  FocusVersion(e, base, version_, &per_snapshot);
  return {};
}

namespace {

// Runs `q` (site rows: SELECT 0, the hashed columns, crc; ?1 the path) for
// each of `paths`, `bind` setting its other parameters, and collects where
// the sites are, each row checked against its hash when the catalog is.
Result<std::vector<SiteLocation>> ReadLocations(Statement& q, const std::vector<std::string>& paths,
                                                bool verified,
                                                const std::function<void(Statement&)>& bind) {
  std::vector<SiteLocation> out;
  for (const std::string& path : paths) {
    q.Bind(1, path);
    bind(q);
    while (true) {
      Result<bool> row = q.Step();
      if (!row) return tl::unexpected(row.error());
      if (!*row) break;
      if (verified && (!SiteIsIntact(q, SiteDetail::kLocations) || q.Text(3) != path)) {
        return Damaged("a site at " + path + " does not match its hash");
      }
      out.push_back(SiteLocation{q.Int(1), q.Text(3), static_cast<int>(q.Int(4)),
                                 static_cast<int>(q.Int(6)), q.Int(0)});
    }
    q.Reset();
  }
  return out;
}

}  // namespace

Result<std::vector<SiteLocation>> Catalog::SitesAt(const std::vector<std::string>& paths, int line,
                                                   int slack) {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  // Rows, not links: a site many versions share is one location.
  Result<Statement*> st =
      Cached("SELECT 0, " + Prefixed("s.", kSiteHashColumns) +
             ", s.crc FROM site_row s WHERE s.path = ?1 AND s.line <= ?2 + ?3 AND "
             "s.end_line >= ?2 - ?3 AND s.line >= ?2 - 200 AND "
             "EXISTS (SELECT 1 FROM site_link l WHERE l.row_pk = s.pk)");
  if (!st) return tl::unexpected(st.error());
  return ReadLocations(**st, paths, (*base)->verified,
                       [&](Statement& q) { q.Bind(2, line).Bind(3, slack); });
}

Result<std::optional<Catalog::FileOwner>> Catalog::OwnerOfFile(std::string_view path) {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  auto trimmed = [](std::string_view root) {
    while (!root.empty() && root.back() == '/') root.remove_suffix(1);
    return root;
  };
  // The roots that hold the file, a query each: the distributions of a
  // Python environment share one (site-packages).
  std::set<std::string_view> roots;
  for (const auto& [pk, snapshot] : (*base)->snapshots) {
    std::string_view root = trimmed(snapshot.root);
    if (!root.empty() && path.size() > root.size() + 1 && StartsWith(path, root) &&
        path[root.size()] == '/') {
      roots.insert(root);
    }
  }
  if (roots.empty()) return std::nullopt;
  Result<Statement*> st = Cached(
      "SELECT l.snapshot_pk, " + Prefixed("s.", kSiteHashColumns) +
      ", s.crc FROM site_row s JOIN site_link l ON l.row_pk = s.pk WHERE s.path = ?1 AND "
      "l.snapshot_pk IN (SELECT pk FROM snapshot WHERE root = ?2 OR root = ?2 || '/') LIMIT 1");
  if (!st) return tl::unexpected(st.error());
  for (std::string_view root : roots) {
    std::string relative(path.substr(root.size() + 1));
    std::string bound(root);
    Result<std::vector<SiteLocation>> found =
        ReadLocations(**st, {relative}, (*base)->verified, [&](Statement& q) { q.Bind(2, bound); });
    if (!found) return tl::unexpected(found.error());
    if (found->empty()) continue;
    // The snapshot table was read unchecked: its row must be the checked one's.
    auto snapshot = (*base)->snapshots.find(found->front().snapshot_pk);
    if (snapshot == (*base)->snapshots.end() || trimmed(snapshot->second.root) != root) {
      return Damaged("the snapshot of a site at " + relative + " is not the one checked");
    }
    auto library = (*base)->libraries.find(snapshot->second.library_pk);
    if (library == (*base)->libraries.end()) continue;
    return FileOwner{library->second.name, snapshot->second.rev, relative};
  }
  return std::nullopt;
}

VersionScope::VersionScope(Catalog& catalog, std::string version)
    : catalog_(catalog), previous_(catalog.version()) {
  catalog_.SetVersion(std::move(version));
}

VersionScope::~VersionScope() { catalog_.SetVersion(std::move(previous_)); }

Result<std::unordered_set<int64_t>> Catalog::ErrorsRaisedIn(std::string_view rev) {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  Result<Statement*> st = Cached("SELECT DISTINCT error_pk FROM site WHERE snapshot_pk = ?1");
  if (!st) return tl::unexpected(st.error());
  Statement& q = **st;
  std::unordered_set<int64_t> out;
  for (const auto& [pk, snap] : (*base)->snapshots) {
    if (snap.rev != rev) continue;
    q.Bind(1, pk);
    while (true) {
      Result<bool> row = q.Step();
      if (!row) return tl::unexpected(row.error());
      if (!*row) break;
      out.insert(q.Int(0));
    }
    q.Reset();
  }
  return out;
}

Result<std::vector<std::pair<int64_t, std::string>>> Catalog::SnapshotsWithFile(
    const std::vector<std::string>& paths) {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  Result<Statement*> st = Cached("SELECT DISTINCT snapshot_pk FROM site WHERE path = ?1");
  if (!st) return tl::unexpected(st.error());
  Statement& q = **st;
  std::set<int64_t> pks;
  for (const std::string& path : paths) {
    q.Bind(1, path);
    while (true) {
      Result<bool> row = q.Step();
      if (!row) return tl::unexpected(row.error());
      if (!*row) break;
      pks.insert(q.Int(0));
    }
    q.Reset();
  }
  std::vector<std::pair<int64_t, std::string>> out;
  for (int64_t pk : pks) {
    auto snap = (*base)->snapshots.find(pk);
    if (snap == (*base)->snapshots.end()) return Damaged("a site belongs to no snapshot");
    auto lib = (*base)->libraries.find(snap->second.library_pk);
    if (lib == (*base)->libraries.end()) return Damaged("a snapshot belongs to no library");
    out.emplace_back(pk, lib->second.name);
  }
  return out;
}

Result<std::vector<int64_t>> Catalog::ErrorsWithoutMessage(std::string_view exception) {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  // No index on the exception: the scan reads every row anyway, so it
  // checks them all against the libraries' sums.
  Result<std::vector<ErrorRow>> rows = AllErrors(-1, **base, /*pieces=*/false);
  if (!rows) return tl::unexpected(rows.error());
  std::vector<int64_t> out;
  for (const ErrorRow& r : *rows) {
    if (r.record.exception == exception && r.record.template_text.empty()) {
      out.push_back(r.record.pk);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<int64_t>> Catalog::ErrorsOfType(int64_t library_pk,
                                                  std::string_view exception) {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  Result<std::vector<ErrorRow>> rows = AllErrors(library_pk, **base, /*pieces=*/false);
  if (!rows) return tl::unexpected(rows.error());
  std::vector<int64_t> out;
  for (const ErrorRow& r : *rows) {
    if (r.record.exception == exception) out.push_back(r.record.pk);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void Tally::Add(int64_t crc) {
  ++count;
  sum = AddHashes(sum, crc);
}

Result<void> ScanHashedRows(Database& db, std::string_view columns, std::string_view from,
                            bool verify, std::string_view what, Tally* tally,
                            const std::function<void(const Statement& row)>& visit) {
  int n = ColumnCount(columns);
  Result<Statement> st =
      db.Prepare("SELECT " + std::string(columns) + ", crc FROM " + std::string(from));
  if (!st) return tl::unexpected(st.error());
  while (true) {
    Result<bool> row = st->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) return {};
    if (verify) {
      if (st->HashColumns(0, n) != st->Int(n)) {
        return Damaged("a row of " + std::string(what) + " does not match its hash");
      }
      if (tally != nullptr) tally->Add(st->Int(n));
    }
    visit(*st);
  }
}

Result<void> ScanSnapshotRows(Database& db, std::string_view table, std::string_view columns,
                              int64_t Catalog::Base::Snapshot::*count,
                              int64_t Catalog::Base::Snapshot::*sum, const Catalog::Base& base,
                              const std::function<void(const Statement& row)>& visit) {
  int n = ColumnCount(columns);
  std::map<int64_t, Tally> tallies;
  ERRDEX_TRY(ScanHashedRows(db, columns, table, base.verified, table, nullptr,
                            [&](const Statement& row) {
                              if (base.verified) tallies[row.Int(0)].Add(row.Int(n));
                              visit(row);
                            }));
  if (!base.verified) return {};
  for (const auto& [pk, snap] : base.snapshots) {
    auto it = tallies.find(pk);
    Tally t = it == tallies.end() ? Tally{} : it->second;
    if (!t.Matches(snap.*count, snap.*sum)) {
      return Damaged("the rows of " + std::string(table) + " do not match their snapshot's hash");
    }
    if (it != tallies.end()) tallies.erase(it);
  }
  if (!tallies.empty()) {
    return Damaged("rows of " + std::string(table) + " belong to no snapshot");
  }
  return {};
}

Result<std::map<std::string, std::vector<std::string>>> Catalog::ExceptionBases(
    std::string_view library) {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  std::set<int64_t> snapshots;  // of `library`, when one is named
  for (const auto& [pk, snap] : (*base)->snapshots) {
    auto lib = (*base)->libraries.find(snap.library_pk);
    if (!library.empty() && lib != (*base)->libraries.end() && lib->second.name == library) {
      snapshots.insert(pk);
    }
  }
  std::map<std::string, std::vector<std::string>> out;
  ERRDEX_TRY(ScanSnapshotRows(db_, "exception_class", kClassHashColumns, &Base::Snapshot::n_classes,
                              &Base::Snapshot::classes_sum, **base, [&](const Statement& row) {
                                if (!library.empty() && !snapshots.count(row.Int(0))) return;
                                std::vector<std::string>& bases = out[row.Text(1)];
                                std::string all = row.Text(2);
                                for (size_t b = 0, e; b < all.size(); b = e + 1) {
                                  e = all.find(',', b);
                                  if (e == std::string::npos) e = all.size();
                                  std::string one = all.substr(b, e - b);
                                  if (!one.empty() &&
                                      std::find(bases.begin(), bases.end(), one) == bases.end()) {
                                    bases.push_back(one);
                                  }
                                }
                              }));
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> Catalog::ErrorTypes() {
  Result<Statement*> st = Cached(
      "SELECT DISTINCT l.name, e.exception FROM error e JOIN library l ON l.pk = e.library_pk "
      "ORDER BY 1, 2");
  if (!st) return tl::unexpected(st.error());
  std::vector<std::pair<std::string, std::string>> out;
  while (true) {
    Result<bool> row = (*st)->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    out.emplace_back((*st)->Text(0), (*st)->Text(1));
  }
  return out;
}

Result<std::vector<ExceptionClassRecord>> Catalog::ExceptionClasses() {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  std::vector<ExceptionClassRecord> out;
  ERRDEX_TRY(ScanSnapshotRows(db_, "exception_class", kClassHashColumns, &Base::Snapshot::n_classes,
                              &Base::Snapshot::classes_sum, **base, [&](const Statement& row) {
                                ExceptionClassRecord c;
                                c.name = row.Text(1);
                                c.path = row.Text(3);
                                c.line = static_cast<int>(row.Int(4));
                                std::string all = row.Text(2);
                                for (size_t b = 0, e; b < all.size(); b = e + 1) {
                                  e = all.find(',', b);
                                  if (e == std::string::npos) e = all.size();
                                  if (e > b) c.bases.push_back(all.substr(b, e - b));
                                }
                                auto snap = (*base)->snapshots.find(row.Int(0));
                                if (snap != (*base)->snapshots.end()) {
                                  c.root = snap->second.root;
                                  c.subdir = snap->second.subdir;
                                  auto lib = (*base)->libraries.find(snap->second.library_pk);
                                  if (lib != (*base)->libraries.end()) c.library = lib->second.name;
                                }
                                out.push_back(std::move(c));
                              }));
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

Result<std::vector<Catalog::ErrorRow>> Catalog::ReadErrors(Statement& st, const Base& base,
                                                           bool pieces) {
  std::vector<ErrorRow> out;
  while (true) {
    Result<bool> step = st.Step();
    if (!step) return tl::unexpected(step.error());
    if (!*step) break;
    // A NULL pk: a search hit whose row is gone (see Search).
    bool missing = st.Int(0) == 0 && st.Text(1).empty();
    if (base.verified && (missing || st.HashColumns(0, kErrorColumnCount) !=
                                         st.Int(kErrorColumnCount))) {
      return Damaged("an error row does not match its hash");
    }
    if (missing) continue;
    ErrorRow r;
    r.record.pk = st.Int(0);
    r.record.id = st.Text(1);
    r.library_pk = st.Int(2);
    auto lib = base.libraries.find(r.library_pk);
    if (lib == base.libraries.end()) return Damaged("error " + r.record.id + " has no library");
    r.record.library = lib->second.name;
    r.record.exception = st.Text(3);
    r.record.template_text = st.Text(4);
    r.record.kind = st.Text(5);
    if (pieces) {
      Result<Template> t = PiecesFromJson(nlohmann::json::parse(st.Text(6), nullptr, false));
      if (!t) return tl::unexpected(t.error());
      r.record.message = std::move(*t);
    } else {
      r.pieces_json = st.Text(6);
    }
    r.record.dynamic = st.Int(8) != 0;
    r.record.internal = st.Int(9) != 0;
    r.n_sites = st.Int(10);
    r.sites_sum = st.Int(11);
    r.analysis_crc = st.Int(12);
    r.enrichment_crc = st.Int(13);
    r.crc = st.Int(kErrorColumnCount);
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<Catalog::ErrorRow>> Catalog::AllErrors(int64_t library_pk, const Base& base,
                                                          bool pieces) {
  std::string sql = "SELECT " + ErrorSelect("e") + " FROM error e";
  if (library_pk >= 0) sql += " WHERE e.library_pk = ?1";
  Result<Statement> st = db_.Prepare(sql);
  if (!st) return tl::unexpected(st.error());
  if (library_pk >= 0) st->Bind(1, library_pk);
  Result<std::vector<ErrorRow>> rows = ReadErrors(*st, base, pieces);
  if (!rows || !base.verified) return rows;
  std::map<int64_t, Tally> tallies;
  for (const ErrorRow& r : *rows) tallies[r.library_pk].Add(r.crc);
  for (const auto& [pk, lib] : base.libraries) {
    if (library_pk >= 0 && pk != library_pk) continue;
    auto it = tallies.find(pk);
    Tally t = it == tallies.end() ? Tally{} : it->second;
    if (!t.Matches(lib.n_errors, lib.errors_sum)) {
      return Damaged("the errors of " + lib.name + " do not match the library's hash");
    }
    if (it != tallies.end()) tallies.erase(it);
  }
  if (!tallies.empty()) return Damaged("error rows belong to no library");
  return rows;
}

Result<std::vector<ErrorRecord>> Catalog::LoadSites(std::vector<ErrorRow> rows, SiteDetail detail,
                                                    const Base& base) {
  std::vector<ErrorRecord> out;
  out.reserve(rows.size());
  if (rows.empty() || detail == SiteDetail::kNone) {
    for (ErrorRow& r : rows) out.push_back(std::move(r.record));
    return out;
  }
  if (rows.size() <= 4) {
    for (ErrorRow& r : rows) {
      ERRDEX_TRY(LoadSitesOf(r.record, r, detail, base));
      out.push_back(std::move(r.record));
    }
    return out;
  }
  std::unordered_map<int64_t, size_t> by_pk;
  std::string pks;
  for (size_t i = 0; i < rows.size(); ++i) {
    by_pk[rows[i].record.pk] = i;
    if (!pks.empty()) pks.push_back(',');
    pks += std::to_string(rows[i].record.pk);
  }
  std::map<int64_t, int> snapshots_of;  // by library
  for (const auto& [pk, snap] : base.snapshots) ++snapshots_of[snap.library_pk];
  bool versions = std::any_of(snapshots_of.begin(), snapshots_of.end(),
                              [](const auto& n) { return n.second > 1; });
  if (versions && version_ != kAllVersions) {
    return LoadFocusedSites(std::move(rows), by_pk, pks, detail, base);
  }
  // The error pks came from the database as integers: safe to splice. A
  // temporary table would be needed past SQLite's expression depth, so large
  // listings read every site and keep those of the errors asked for.
  std::string sql = SiteSelect(detail);
  if (rows.size() <= 500) sql += "WHERE s.error_pk IN (" + pks + ") ";
  sql += "ORDER BY s.error_pk, l.snapshot_pk, s.path, s.line, s.col";
  Result<Statement> sites = db_.Prepare(sql);
  if (!sites) return tl::unexpected(sites.error());
  std::vector<Tally> tallies(rows.size());
  while (true) {
    Result<bool> row = sites->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    if (base.verified && !SiteIsIntact(*sites, detail)) {
      return Damaged("a site does not match its hash");
    }
    auto it = by_pk.find(sites->Int(1));
    if (it == by_pk.end()) continue;
    tallies[it->second].Add(sites->Int(kSiteCrc));
    Result<SiteRecord> s = ReadSite(*sites, base);
    if (!s) return tl::unexpected(s.error());
    rows[it->second].record.sites.push_back(std::move(*s));
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    if (base.verified && !tallies[i].Matches(rows[i].n_sites, rows[i].sites_sum)) {
      return Damaged("the sites of error " + rows[i].record.id + " do not match its hash");
    }
    FocusVersion(rows[i].record, base, version_);
    out.push_back(std::move(rows[i].record));
  }
  return out;
}

Result<std::vector<ErrorRecord>> Catalog::LoadFocusedSites(
    std::vector<ErrorRow> rows, const std::unordered_map<int64_t, size_t>& by_pk,
    const std::string& pks, SiteDetail detail, const Base& base) {
  // Every link of the errors, hashes only: counted and summed against each
  // error, and counted per version. Then the sites in full of the one
  // version each error shows: a library of 146 releases holds its errors'
  // sites 50 times over, and reading them all in full took 2 GB.
  std::string sql =
      "SELECT r.error_pk, l.snapshot_pk, r.crc FROM site_row r JOIN site_link l ON l.row_pk = r.pk";
  if (rows.size() <= 500) sql += " WHERE r.error_pk IN (" + pks + ")";
  Result<Statement> links = db_.Prepare(sql);
  if (!links) return tl::unexpected(links.error());
  std::vector<Tally> tallies(rows.size());
  std::vector<std::map<int64_t, int64_t>> counts(rows.size());
  while (true) {
    Result<bool> row = links->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    auto it = by_pk.find(links->Int(0));
    if (it == by_pk.end()) continue;
    tallies[it->second].Add(links->Int(2));
    ++counts[it->second][links->Int(1)];
  }
  Result<Statement*> sites = Cached(SiteSelect(detail, /*by_error=*/!db_.postgres()) +
                                    "WHERE s.error_pk = ?1 AND l.snapshot_pk = ?2 "
                                    "ORDER BY s.path, s.line, s.col");
  if (!sites) return tl::unexpected(sites.error());
  Statement& q = **sites;
  std::vector<ErrorRecord> out;
  out.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    ErrorRecord& e = rows[i].record;
    if (base.verified && !tallies[i].Matches(rows[i].n_sites, rows[i].sites_sum)) {
      return Damaged("the sites of error " + e.id + " do not match its hash");
    }
    int64_t focus = FocusVersion(e, base, version_, &counts[i]);
    if (focus >= 0) {
      q.Bind(1, e.pk).Bind(2, focus);
      ERRDEX_TRY(ReadSitesOf(q, e, detail, base));
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<ErrorRecord>> Catalog::Load(Statement& errors, SiteDetail detail) {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  Result<std::vector<ErrorRow>> rows = ReadErrors(errors, **base);
  if (!rows) return tl::unexpected(rows.error());
  return LoadSites(std::move(*rows), detail, **base);
}

Result<std::vector<ErrorRecord>> Catalog::List(const ListQuery& query) {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  // Every row of the scope is read, limit or not, so that the libraries'
  // counts and sums check the whole listing; error rows are small.
  int64_t library_pk = -1;
  if (!query.library.empty()) {
    for (const auto& [pk, lib] : (*base)->libraries) {
      if (lib.name == query.library) library_pk = pk;
    }
    if (library_pk < 0) return std::vector<ErrorRecord>{};
  }
  Result<std::vector<ErrorRow>> rows = AllErrors(library_pk, **base, /*pieces=*/false);
  if (!rows) return tl::unexpected(rows.error());
  std::sort(rows->begin(), rows->end(),
            [](const ErrorRow& a, const ErrorRow& b) { return a.record.id < b.record.id; });
  if (query.limit >= 0 && static_cast<int64_t>(rows->size()) > query.limit) {
    rows->resize(static_cast<size_t>(query.limit));
  }
  for (ErrorRow& r : *rows) {
    Result<Template> t = PiecesFromJson(nlohmann::json::parse(r.pieces_json, nullptr, false));
    if (!t) return tl::unexpected(t.error());
    r.record.message = std::move(*t);
  }
  return LoadSites(std::move(*rows),
                   query.with_details  ? SiteDetail::kFull
                   : query.with_guards ? SiteDetail::kGuards
                                       : SiteDetail::kLocations,
                   **base);
}

Result<ErrorRecord> Catalog::Get(std::string_view text) {
  std::optional<std::string> canonical = CanonicalErrorId(text);
  if (!canonical) {
    return Fail(ErrorCode::kInvalidArgument,
                "'" + std::string(text) + "' is not an error id (16 hex digits)");
  }
  const std::string& id = *canonical;
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  Result<Statement> st = db_.Prepare("SELECT " + ErrorSelect("e") + " FROM error e WHERE e.id = ?1");
  if (!st) return tl::unexpected(st.error());
  st->Bind(1, id);
  Result<std::vector<ErrorRow>> rows = ReadErrors(*st, **base);
  if (!rows) return tl::unexpected(rows.error());
  if (rows->empty()) {
    if ((*base)->verified && !db_.postgres()) {
      // A damaged entry of the id index reads as "no such error": only a
      // miss pays for a scan of the table to tell the two apart.
      Result<Statement> scan =
          db_.Prepare("SELECT 1 FROM error NOT INDEXED WHERE id = ?1 LIMIT 1");
      if (!scan) return tl::unexpected(scan.error());
      scan->Bind(1, id);
      Result<bool> there = scan->Step();
      if (!there) return tl::unexpected(there.error());
      if (*there) return Damaged("the index of error ids lost " + std::string(id));
    }
    return Fail(ErrorCode::kNotFound, "no error with id " + std::string(id));
  }
  ErrorRow& row = rows->front();
  if (row.record.id != id) return Damaged("the index of error ids is wrong");
  ERRDEX_TRY(LoadSitesOf(row.record, row, SiteDetail::kFull, **base));
  ERRDEX_TRY(LoadAnalysis(row.record, row, **base));
  return std::move(row.record);
}

Result<std::vector<ErrorRecord>> Catalog::Search(std::string_view query, int64_t limit) {
  std::string fts = FtsQuery(query);
  if (fts.empty()) return std::vector<ErrorRecord>{};
  ERRDEX_TRY(VerifyFts());
  // LEFT JOIN: a hit whose error row is missing reads as NULLs, which fail
  // the row check instead of vanishing from the results. PostgreSQL's
  // index is part of the row.
  Result<Statement> st = db_.Prepare(
      db_.postgres()
          ? "SELECT " + ErrorSelect("e") +
                " FROM error e, to_tsquery('simple', ?1) q WHERE e.search @@ q "
                "ORDER BY ts_rank(e.search, q) DESC, e.dynamic, e.literal_size DESC, e.id "
                "LIMIT ?2"
          : "SELECT " + ErrorSelect("e") +
                " FROM error_fts f LEFT JOIN error e ON e.pk = f.rowid "
                "WHERE error_fts MATCH ?1 ORDER BY bm25(error_fts), e.dynamic, e.literal_size "
                "DESC, e.id LIMIT ?2");
  if (!st) return tl::unexpected(st.error());
  st->Bind(1, db_.postgres() ? TsQuery(query) : fts).Bind(2, limit);
  return Load(*st, SiteDetail::kLocations);
}

namespace {

// A stored snapshot as it was described when written (url: its library's).
SnapshotInfo DescribeSnapshot(const Catalog::Base::Library& lib, const Catalog::Base::Snapshot& snap) {
  SnapshotInfo info;
  info.library = lib.name;
  info.url = lib.url;
  info.rev = snap.rev;
  info.commit = snap.commit;
  info.date = snap.date;
  info.kind = snap.kind;
  info.root = snap.root;
  info.subdir = snap.subdir;
  info.source_digest = snap.source_digest;
  info.aliases = snap.aliases;
  return info;
}

}  // namespace

Result<std::optional<SnapshotInfo>> Catalog::FindSnapshot(std::string_view library,
                                                          std::string_view rev) {
  Result<std::shared_ptr<const Base>> got = GetBase();
  if (!got) return tl::unexpected(got.error());
  const Base& base = **got;
  for (const auto& [pk, snap] : base.snapshots) {
    auto lib = base.libraries.find(snap.library_pk);
    if (lib == base.libraries.end() || lib->second.name != library || snap.rev != rev) continue;
    return DescribeSnapshot(lib->second, snap);
  }
  return std::optional<SnapshotInfo>();
}

Result<std::optional<SnapshotInfo>> Catalog::FindRelease(
    std::string_view library, std::string_view version, const std::vector<std::string>& names) {
  Result<std::shared_ptr<const Base>> got = GetBase();
  if (!got) return tl::unexpected(got.error());
  const Base& base = **got;
  std::set<std::string, std::less<>> tags = {std::string(version), "v" + std::string(version)};
  for (const std::string& n : names) {
    for (const char* sep : {"-", "-v", "_", "/", "/v"}) tags.insert(n + sep + std::string(version));
  }
  // The snapshot named the version itself first: the one a distribution's
  // snapshot of that rev would replace.
  for (bool exact : {true, false}) {
    for (const auto& [pk, snap] : base.snapshots) {
      auto lib = base.libraries.find(snap.library_pk);
      if (lib == base.libraries.end() || lib->second.name != library || snap.kind != "git" ||
          snap.commit.size() != 40) {
        continue;
      }
      bool named = exact ? snap.rev == version
                         : tags.count(snap.rev) > 0 ||
                               std::any_of(snap.aliases.begin(), snap.aliases.end(),
                                           [&](const std::string& a) { return tags.count(a) > 0; });
      if (named) return std::optional<SnapshotInfo>(DescribeSnapshot(lib->second, snap));
    }
  }
  return std::optional<SnapshotInfo>();
}

namespace {

// Whether `snap` belongs to `library` (any library when empty).
bool OfLibrary(const Catalog::Base& base, const Catalog::Base::Snapshot& snap,
               std::string_view library) {
  if (library.empty()) return true;
  auto lib = base.libraries.find(snap.library_pk);
  return lib != base.libraries.end() && lib->second.name == library;
}

}  // namespace

Result<std::optional<std::string>> Catalog::ResolveVersion(std::string_view name,
                                                           std::string_view library) {
  Result<std::shared_ptr<const Base>> got = GetBase();
  if (!got) return tl::unexpected(got.error());
  const Base& base = **got;
  // A rev wins over an alias: one library's tag can be another's alias.
  std::optional<std::string> aliased;
  for (const auto& [pk, snap] : base.snapshots) {
    if (!OfLibrary(base, snap, library)) continue;
    if (snap.rev == name) return std::optional<std::string>(std::string(name));
    if (!aliased && std::find(snap.aliases.begin(), snap.aliases.end(), name) != snap.aliases.end()) {
      aliased = snap.rev;
    }
  }
  return aliased;
}

Result<std::set<std::string>> Catalog::VersionNames(std::string_view library) {
  Result<std::shared_ptr<const Base>> got = GetBase();
  if (!got) return tl::unexpected(got.error());
  std::set<std::string> out;
  for (const auto& [pk, snap] : (*got)->snapshots) {
    if (OfLibrary(**got, snap, library)) out.insert(snap.rev);
  }
  return out;
}

Result<std::string> Catalog::LastIndexedAt() {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  std::string last;
  for (const auto& [pk, snap] : (*base)->snapshots) last = std::max(last, snap.indexed_at);
  return last;
}

Result<std::string> Catalog::LastAnalysedAt() {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  auto it = (*base)->meta.find("analysed_at");
  return it == (*base)->meta.end() ? std::string() : it->second;
}

Result<void> Catalog::PutMeta(std::string_view key, std::string_view value) {
  Result<Statement> put = db_.Prepare(
      "INSERT INTO meta (key, value, crc) VALUES (?1, ?2, ?3) "
      "ON CONFLICT (key) DO UPDATE SET value = excluded.value, crc = excluded.crc");
  if (!put) return tl::unexpected(put.error());
  put->Bind(1, key).Bind(2, value).Bind(3, RowHasher().Text(key).Text(value).Digest());
  ERRDEX_TRY(put->Run());
  dirty_seal_ = true;
  return {};
}

Result<CatalogHealth> Catalog::Health() {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  Result<int64_t> version = DataVersion();
  if (!version) return tl::unexpected(version.error());
  return CatalogHealth{static_cast<int64_t>((*base)->libraries.size()),
                       static_cast<int64_t>((*base)->snapshots.size()), *version};
}

Result<Stats> Catalog::GetStats() {
  Result<std::shared_ptr<const Base>> got = GetBase();
  if (!got) return tl::unexpected(got.error());
  const Base& base = **got;
  Stats s;
  s.libraries = static_cast<int64_t>(base.libraries.size());
  s.snapshots = static_cast<int64_t>(base.snapshots.size());
  if (auto it = base.meta.find("analysed_at"); it != base.meta.end()) s.analysed_at = it->second;
  // Site counts come from the snapshots' checked counts: no scan of the
  // largest table. Inside a write they are not written yet: count.
  std::map<int64_t, int64_t> sites_of;
  if (base.verified) {
    for (const auto& [pk, snap] : base.snapshots) sites_of[pk] = snap.n_sites;
  } else {
    Result<Statement> st = db_.Prepare("SELECT snapshot_pk, count(*) FROM site_link GROUP BY 1");
    if (!st) return tl::unexpected(st.error());
    while (true) {
      Result<bool> row = st->Step();
      if (!row) return tl::unexpected(row.error());
      if (!*row) break;
      sites_of[st->Int(0)] = st->Int(1);
    }
  }
  std::map<int64_t, LibraryStats> libs;
  for (const auto& [pk, lib] : base.libraries) {
    libs[pk] = LibraryStats{lib.name, lib.url, 0, 0, 0};
  }
  for (const auto& [pk, snap] : base.snapshots) {
    s.files += snap.files;
    s.sites += sites_of[pk];
    LibraryStats& l = libs[snap.library_pk];
    ++l.snapshots;
    l.sites += sites_of[pk];
    s.per_snapshot.push_back(SnapshotStats{l.name, snap.rev, snap.commit, snap.date, snap.kind,
                                           snap.indexed_at, snap.files, snap.bytes, sites_of[pk],
                                           snap.ordinal, snap.aliases});
  }
  Result<std::vector<ErrorRow>> errors = AllErrors(-1, base, /*pieces=*/false);
  if (!errors) return tl::unexpected(errors.error());
  for (const ErrorRow& e : *errors) {
    ++s.errors;
    if (e.record.dynamic) ++s.dynamic_errors;
    ++s.errors_by_kind[e.record.kind];
    ++libs[e.library_pk].errors;
  }
  ERRDEX_TRY(ScanSnapshotRows(db_, "file_issue", kFileIssueHashColumns, &Base::Snapshot::n_issues,
                              &Base::Snapshot::issues_sum, base, [&](const Statement& row) {
                                ++(row.Int(4) != 0 ? s.skipped_by_reason
                                                   : s.recovered_by_reason)[row.Text(2)];
                              }));
  ERRDEX_TRY(ScanSnapshotRows(db_, "non_site", kNonSiteHashColumns, &Base::Snapshot::n_non_sites,
                              &Base::Snapshot::non_sites_sum, base, [&](const Statement& row) {
                                ++s.non_sites_by_reason[row.Text(3)];
                              }));
  for (auto& [pk, l] : libs) s.per_library.push_back(std::move(l));
  std::sort(s.per_library.begin(), s.per_library.end(),
            [](const LibraryStats& a, const LibraryStats& b) { return a.name < b.name; });
  // Snapshots by library name, then oldest version first.
  std::stable_sort(s.per_snapshot.begin(), s.per_snapshot.end(),
                   [](const SnapshotStats& a, const SnapshotStats& b) {
                     return a.library != b.library ? a.library < b.library
                                                   : a.ordinal < b.ordinal;
                   });
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
