// What catalog.cc, analysis_store.cc and integrity.cc share: the checked
// rows behind a read, and the scope of a write.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "catalog/catalog.h"

namespace errdex::catalog {

struct Catalog::Base {
  struct Library {
    std::string name;
    std::string url;
    int64_t n_snapshots = 0;
    int64_t snapshots_sum = 0;
    int64_t n_errors = 0;
    int64_t errors_sum = 0;
    int64_t prefilter_crc = 0;
  };
  struct Snapshot {
    int64_t library_pk = 0;
    std::string rev;
    std::string commit;
    std::string date;
    std::string kind;
    std::string root;
    std::string subdir;
    std::string indexed_at;
    int64_t files = 0;
    int64_t bytes = 0;
    int64_t n_sites = 0;
    int64_t sites_sum = 0;
    int64_t n_non_sites = 0;
    int64_t non_sites_sum = 0;
    int64_t n_issues = 0;
    int64_t issues_sum = 0;
    int64_t n_classes = 0;
    int64_t classes_sum = 0;
    std::string source_digest;
    std::vector<std::string> aliases;
    int ordinal = 0;  // its place among the library's versions, 0 the oldest
  };
  std::map<int64_t, Library> libraries;
  std::map<int64_t, Snapshot> snapshots;
  std::vector<FamilyInfo> families;  // by slug, with up to 3 examples
  int64_t n_enrichments = 0;
  int64_t enrichments_sum = 0;
  int64_t fts_hash = 0;
  std::map<std::string, std::string> meta;  // the meta table, by key
  bool verified = false;  // false inside a write: the hashes are not written yet
};

struct Catalog::ErrorRow {
  // noexcept moves: a growing vector of rows moves them instead of copying
  // each record (Template's move is not declared noexcept).
  ErrorRow() = default;
  ErrorRow(ErrorRow&&) noexcept = default;
  ErrorRow& operator=(ErrorRow&&) noexcept = default;
  ErrorRow(const ErrorRow&) = default;
  ErrorRow& operator=(const ErrorRow&) = default;

  ErrorRecord record;
  int64_t crc = 0;
  int64_t library_pk = 0;
  int64_t n_sites = 0;
  int64_t sites_sum = 0;
  int64_t analysis_crc = 0;
  int64_t enrichment_crc = 0;
  std::string pieces_json;  // when read without parsing the pieces
};

// A snapshot's aliases as its column stores them: space-separated, as no
// git ref name holds a space. Names that would not round-trip are dropped.
inline std::string JoinAliases(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (n.empty() || n.find_first_of(" \t\n\r") != std::string::npos) continue;
    out += (out.empty() ? "" : " ") + n;
  }
  return out;
}
inline std::vector<std::string> SplitAliases(std::string_view stored) {
  std::vector<std::string> out;
  for (size_t at = 0; at < stored.size();) {
    size_t end = std::min(stored.find(' ', at), stored.size());
    if (end > at) out.emplace_back(stored.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// "1, 2, 3" for an SQL list of integers the catalog gave (safe to splice);
// "NULL" for none, which no IN matches.
inline std::string JoinInts(const std::set<int64_t>& values) {
  std::string out;
  for (int64_t v : values) {
    if (!out.empty()) out += ", ";
    out += std::to_string(v);
  }
  return out.empty() ? "NULL" : out;
}

// One write: BEGIN IMMEDIATE, or a savepoint inside an open transaction.
// Rolled back unless committed.
class WriteScope {
 public:
  explicit WriteScope(Catalog& catalog) : catalog_(catalog) {}
  ~WriteScope() { Rollback(); }
  WriteScope(const WriteScope&) = delete;
  WriteScope& operator=(const WriteScope&) = delete;
  Result<void> Begin() {
    ERRDEX_TRY(catalog_.BeginWrite());
    open_ = true;
    return {};
  }
  Result<void> Commit() {
    open_ = false;
    return catalog_.CommitWrite();
  }
  void Rollback() {
    if (open_) catalog_.RollbackWrite();
    open_ = false;
  }
  void MarkDirty(int64_t library_pk) { catalog_.dirty_libraries_.insert(library_pk); }
  void MarkAllDirty() { catalog_.dirty_all_ = true; }
  void MarkSitesDirty(int64_t snapshot_pk) { catalog_.dirty_snapshots_.insert(snapshot_pk); }

 private:
  Catalog& catalog_;
  bool open_ = false;
};

// Steps every row of "SELECT <columns>, crc FROM <from>" and calls `visit`
// with it. When `verify`: a row whose crc is not the hash of the columns
// before it is damage ("a row of <what> does not match its hash"), and
// `tally`, when given, counts the rows and sums their hashes for the caller
// to compare with the aggregate its parent row keeps.
struct Tally {
  int64_t count = 0;
  int64_t sum = 0;
  void Add(int64_t crc);
  bool Matches(int64_t n, int64_t s) const { return count == n && sum == s; }
};
Result<void> ScanHashedRows(Database& db, std::string_view columns, std::string_view from,
                            bool verify, std::string_view what, Tally* tally,
                            const std::function<void(const Statement& row)>& visit);

// Reads every row of a table whose rows belong to a snapshot (columns:
// its hash columns, snapshot_pk first), checking each row's hash and, per
// snapshot, their count and sum against the snapshot's `count` and `sum`.
Result<void> ScanSnapshotRows(Database& db, std::string_view table, std::string_view columns,
                              int64_t Catalog::Base::Snapshot::*count,
                              int64_t Catalog::Base::Snapshot::*sum, const Catalog::Base& base,
                              const std::function<void(const Statement& row)>& visit);

// kCorrupt: "the catalog is damaged: <what> (run errdex check)".
tl::unexpected<Error> Damaged(const std::string& what);

// "a.x, a.y" from "x, y" and "a.".
std::string Prefixed(std::string_view prefix, std::string_view columns);

// How many names a column list holds.
int ColumnCount(std::string_view columns);

// The columns of an error row as selected by ErrorSelect: kErrorHashColumns
// then crc.
std::string ErrorSelect(std::string_view alias);
inline constexpr int kErrorColumnCount = 14;

}  // namespace errdex::catalog
