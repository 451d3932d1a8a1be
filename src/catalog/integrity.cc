// Content hashes: written at each write's commit (Seal), checked by reads
// (GetBase, VerifyFts and the row checks in catalog.cc) and in full by
// `errdex check` (Check). doc/catalog.md, "Content hashes", has the scheme.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/internal.h"
#include "catalog/postgres.h"
#include "catalog/schema.h"
#include "core/version.h"

namespace errdex::catalog {

namespace {

// After kSharedSitesSql and the hashes: version 9 held one row per snapshot
// and site, so the upgrade made one row, text and guard row per old row, and
// a catalog of N releases stayed N copies. Equal texts, guards and rows
// become one (the least pk stays) and what refers to them follows, leaves
// first; a snapshot that held two equal sites keeps two links to the one
// row, as a write makes it. The hash leads each partition, so that texts
// are compared within a hash. Window functions: SQLite 3.25, PostgreSQL.
std::string ShareMigratedSitesSql() {
  struct Merge {
    std::string_view table, equal, referrer, reference;
  };
  constexpr Merge kMerges[] = {
      {"site_text", "body_hash, statement, excerpt", "site_row", "text_pk"},
      {"site_guard", "guard_hash, guards, trigger, signature, entries", "site_row", "guard_pk"},
      {"site_row",
       "crc, error_pk, text_pk, guard_pk, language, path, line, col, end_line, function, kind, "
       "exception_written, cause, via, internal, excerpt_line",
       "site_link", "row_pk"},
  };
  std::string sql = "CREATE TEMP TABLE errdex_merge (pk BIGINT PRIMARY KEY, keep BIGINT NOT NULL);";
  for (const Merge& m : kMerges) {
    std::string table(m.table), referrer(m.referrer), reference(m.reference);
    sql +=
        "INSERT INTO errdex_merge (pk, keep) SELECT pk, keep FROM (SELECT pk, min(pk) OVER "
        "(PARTITION BY " +
        std::string(m.equal) + ") AS keep FROM " + table + ") m WHERE keep <> pk;";
    sql += "UPDATE " + referrer + " SET " + reference +
           " = (SELECT m.keep FROM errdex_merge m WHERE m.pk = " + referrer + "." + reference +
           ") WHERE " + reference + " IN (SELECT pk FROM errdex_merge);";
    sql += "DELETE FROM " + table + " WHERE pk IN (SELECT pk FROM errdex_merge);";
    sql += "DELETE FROM errdex_merge;";
  }
  return sql + "DROP TABLE errdex_merge;";
}

// What a damaged-catalog message says, without the wrapping.
std::string Problem(const Error& e) {
  std::string m = e.message;
  constexpr std::string_view kHead = "the catalog is damaged: ";
  constexpr std::string_view kTail = " (run errdex check)";
  if (m.rfind(kHead, 0) == 0) m.erase(0, kHead.size());
  if (m.size() >= kTail.size() && m.compare(m.size() - kTail.size(), kTail.size(), kTail) == 0) {
    m.resize(m.size() - kTail.size());
  }
  return m;
}

}  // namespace

Result<std::shared_ptr<const Catalog::Base>> Catalog::GetBase() {
  // Outside a transaction each statement sees the latest commit: another
  // writer's commit between two of them (errdex build's indexers, a server
  // reading while a catalog is indexed) tears the read, and the halves'
  // hashes disagree. A read that fails its checks while the catalog moved
  // is read again; one that fails on a catalog standing still is damage.
  for (int attempt = 0;; ++attempt) {
    Result<int64_t> before = Verifying() ? DataVersion() : Result<int64_t>(int64_t{0});
    if (!before) return tl::unexpected(before.error());
    Result<std::shared_ptr<const Base>> base = ReadBase();
    if (base || base.error().code != ErrorCode::kCorrupt || !Verifying() || attempt == 10) {
      return base;
    }
    Result<int64_t> after = DataVersion();
    if (!after) return tl::unexpected(after.error());
    if (*after == *before) return base;
  }
}

Result<std::shared_ptr<const Catalog::Base>> Catalog::ReadBase() {
  bool verify = Verifying();
  Result<int64_t> version = DataVersion();
  if (!version) return tl::unexpected(version.error());
  if (verify && base_ && base_version_ == *version) return base_;
  auto base = std::make_shared<Base>();
  base->verified = verify;

  Result<Statement> seal =
      db_.Prepare("SELECT " + std::string(kSealHashColumns) + ", crc FROM seal");
  if (!seal) return tl::unexpected(seal.error());
  Result<bool> sealed = seal->Step();
  if (!sealed) return tl::unexpected(sealed.error());
  int64_t n_libraries = 0, libraries_sum = 0, n_families = 0, families_sum = 0, n_meta = 0,
          meta_sum = 0;
  if (*sealed) {
    const int crc = ColumnCount(kSealHashColumns);
    if (verify && seal->HashColumns(0, crc) != seal->Int(crc)) {
      return Damaged("the seal row does not match its hash");
    }
    n_libraries = seal->Int(0);
    libraries_sum = seal->Int(1);
    n_families = seal->Int(2);
    families_sum = seal->Int(3);
    base->n_enrichments = seal->Int(4);
    base->enrichments_sum = seal->Int(5);
    base->fts_hash = seal->Int(6);
    n_meta = seal->Int(7);
    meta_sum = seal->Int(8);
  } else if (verify) {
    return Damaged("the seal row is missing");
  }

  Tally libraries;
  ERRDEX_TRY(ScanHashedRows(db_, kLibraryHashColumns, "library", verify, "library", &libraries,
                            [&](const Statement& row) {
                              Base::Library& l = base->libraries[row.Int(0)];
                              l.name = row.Text(1);
                              l.url = row.Text(2);
                              l.n_snapshots = row.Int(4);
                              l.snapshots_sum = row.Int(5);
                              l.n_errors = row.Int(6);
                              l.errors_sum = row.Int(7);
                              l.prefilter_crc = row.Int(8);
                            }));
  if (verify && !libraries.Matches(n_libraries, libraries_sum)) {
    return Damaged("the library table does not match the seal");
  }

  const int snapshot_crc = ColumnCount(kSnapshotHashColumns);
  std::map<int64_t, Tally> per_library;
  ERRDEX_TRY(ScanHashedRows(db_, kSnapshotHashColumns, "snapshot", verify, "snapshot", nullptr,
                            [&](const Statement& row) {
                              Base::Snapshot& n = base->snapshots[row.Int(0)];
                              n.library_pk = row.Int(1);
                              per_library[n.library_pk].Add(row.Int(snapshot_crc));
                              n.rev = row.Text(2);
                              n.commit = row.Text(3);
                              n.date = row.Text(4);
                              n.kind = row.Text(5);
                              n.root = row.Text(6);
                              n.subdir = row.Text(7);
                              n.indexed_at = row.Text(9);
                              n.files = row.Int(10);
                              n.bytes = row.Int(11);
                              n.n_sites = row.Int(12);
                              n.sites_sum = row.Int(13);
                              n.n_non_sites = row.Int(14);
                              n.non_sites_sum = row.Int(15);
                              n.n_issues = row.Int(16);
                              n.issues_sum = row.Int(17);
                              n.n_classes = row.Int(18);
                              n.classes_sum = row.Int(19);
                              n.source_digest = row.Text(20);
                              n.aliases = SplitAliases(row.Text(21));
                            }));
  if (verify) {
    for (const auto& [pk, lib] : base->libraries) {
      auto it = per_library.find(pk);
      Tally got = it == per_library.end() ? Tally{} : it->second;
      if (!got.Matches(lib.n_snapshots, lib.snapshots_sum)) {
        return Damaged("the snapshots of " + lib.name + " do not match the library's hash");
      }
      if (it != per_library.end()) per_library.erase(it);
    }
    if (!per_library.empty()) return Damaged("snapshot rows belong to no library");
  }
  std::map<int64_t, std::vector<std::pair<const int64_t, Base::Snapshot>*>> versions;
  for (auto& entry : base->snapshots) versions[entry.second.library_pk].push_back(&entry);
  for (auto& [library_pk, snaps] : versions) {
    std::stable_sort(snaps.begin(), snaps.end(), [](const auto* a, const auto* b) {
      return VersionBefore(a->second.date, a->second.rev, b->second.date, b->second.rev);
    });
    for (size_t i = 0; i < snaps.size(); ++i) snaps[i]->second.ordinal = static_cast<int>(i);
  }

  Tally families;
  ERRDEX_TRY(ScanHashedRows(
      db_, kFamilyHashColumns, "family ORDER BY slug", verify, "family", &families,
      [&](const Statement& row) {
        FamilyInfo f;
        f.slug = row.Text(0);
        f.name = row.Text(1);
        f.description = row.Text(2);
        f.errors = row.Int(3);
        f.libraries = row.Int(4);
        nlohmann::json examples = nlohmann::json::parse(row.Text(5), nullptr, false);
        if (examples.is_array()) {
          for (const nlohmann::json& x : examples) {
            if (x.is_string()) f.examples.push_back(x.get<std::string>());
          }
        }
        base->families.push_back(std::move(f));
      }));
  if (verify && !families.Matches(n_families, families_sum)) {
    return Damaged("the family table does not match the seal");
  }

  Tally meta;
  ERRDEX_TRY(ScanHashedRows(db_, kMetaHashColumns, "meta", verify, "meta", &meta,
                            [&](const Statement& row) { base->meta[row.Text(0)] = row.Text(1); }));
  if (verify && !meta.Matches(n_meta, meta_sum)) {
    return Damaged("the meta table does not match the seal");
  }
  if (verify) {
    base_ = base;
    base_version_ = *version;
  }
  return std::shared_ptr<const Base>(base);
}

Result<int64_t> Catalog::FtsHash() {
  // PostgreSQL's search index is derived from the error rows, which are
  // hashed, by the server; it has no tables of its own to hash.
  if (db_.postgres()) return int64_t{0};
  // FTS5's own tables, by key: any change to the search index shows.
  int64_t hash = 0;
  int64_t salt = 0;
  for (const char* sql :
       {"SELECT id, block FROM error_fts_data ORDER BY id",
        "SELECT segid, term, pgno FROM error_fts_idx ORDER BY segid, term",
        "SELECT id, sz FROM error_fts_docsize ORDER BY id",
        "SELECT k, v FROM error_fts_config ORDER BY k"}) {
    Result<Statement> st = db_.Prepare(sql);
    if (!st) return tl::unexpected(st.error());
    ++salt;
    while (true) {
      Result<bool> row = st->Step();
      if (!row) return tl::unexpected(row.error());
      if (!*row) break;
      uint64_t h = static_cast<uint64_t>(st->HashColumns(0, st->ColumnCount()));
      hash = AddHashes(hash, static_cast<int64_t>(h * static_cast<uint64_t>(2 * salt + 1)));
    }
  }
  return hash;
}

Result<void> Catalog::VerifyFts() {
  if (!Verifying()) return {};
  Result<int64_t> version = DataVersion();
  if (!version) return tl::unexpected(version.error());
  if (fts_version_ == *version && base_) return {};
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  Result<int64_t> hash = FtsHash();
  if (!hash) return tl::unexpected(hash.error());
  if (*hash != (*base)->fts_hash) return Damaged("the search index does not match its hash");
  fts_version_ = *version;
  return {};
}

// PostgreSQL has no errdex_row_hash: the rows of `from` that `where`
// selects are read and hashed here over `columns` (as SQLite's function
// would), and the hashes written to `target`'s `column` where its
// `target_key` equals the row's `key` (integers), in one statement.
Result<void> Catalog::RehashRows(std::string_view from, std::string_view key,
                                 std::string_view columns, std::string_view where,
                                 std::string_view target, std::string_view target_key,
                                 std::string_view column) {
  Result<Statement> read = db_.Prepare("SELECT " + std::string(key) + "::text, " +
                                       std::string(columns) + " FROM " + std::string(from) +
                                       " WHERE " + std::string(where));
  if (!read) return tl::unexpected(read.error());
  int n = ColumnCount(columns);
  nlohmann::json rows = nlohmann::json::array();
  while (true) {
    Result<bool> row = read->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    rows.push_back({read->Text(0), read->HashColumns(1, n)});
  }
  if (rows.empty()) return {};
  std::string t(target);
  Result<Statement> write = db_.Prepare(
      "UPDATE " + t + " SET " + std::string(column) +
      " = v.h FROM (SELECT x ->> 0 AS k, (x ->> 1)::bigint AS h FROM "
      "jsonb_array_elements(?1::text::jsonb) x) v WHERE " + t + "." + std::string(target_key) +
      "::text = v.k");
  if (!write) return tl::unexpected(write.error());
  write->Bind(1, rows.dump());
  return write->Run();
}

Result<void> Catalog::Seal(bool rehash_rows) {
  if (!dirty_all_ && dirty_libraries_.empty() && !dirty_seal_) return {};
  const bool pg = db_.postgres();
  std::string in;
  for (int64_t pk : dirty_libraries_) {
    if (!in.empty()) in += ", ";
    in += std::to_string(pk);
  }
  std::string of_library = dirty_all_ ? "1 = 1" : "library_pk IN (" + in + ")";
  std::string of_pk = dirty_all_ ? "1 = 1" : "pk IN (" + in + ")";
  auto hash_of = [](std::string_view columns) {
    return "errdex_row_hash(" + std::string(columns) + ")";
  };
  auto count_sum = [](std::string_view n, std::string_view s, std::string_view table,
                      std::string_view where) {
    std::string from = " FROM " + std::string(table) + " WHERE " + std::string(where);
    return std::string(n) + " = (SELECT count(*)" + from + "), " + std::string(s) +
           " = (SELECT errdex_sum(crc)" + from + ")";
  };
  // Sets each row's crc over `columns`: in SQL on SQLite, here on PostgreSQL.
  std::string sql;
  auto rehash = [&](std::string_view table, std::string_view key, std::string_view columns,
                    std::string_view where) -> Result<void> {
    if (!pg) {
      sql += "UPDATE " + std::string(table) + " SET crc = " + hash_of(columns) + " WHERE " +
             std::string(where) + ";";
      return {};
    }
    if (!sql.empty()) ERRDEX_TRY(db_.Exec(sql));
    sql.clear();
    return RehashRows(table, key, columns, where, table, key, "crc");
  };
  // PostgreSQL catalogs are created at the current schema and hash every
  // leaf row as it is written: nothing written before hashes to redo.
  // Sites are the exception: version 10 split them into shared rows and
  // texts (kSharedSitesSql), on both backends, with hashes to redo.
  if (rehash_rows && pg) {
    ERRDEX_TRY(RehashRows("site_text", "pk", kSiteBodyColumns, "1 = 1", "site_text", "pk",
                          "body_hash"));
    ERRDEX_TRY(RehashRows("site_guard", "pk", kSiteGuardColumns, "1 = 1", "site_guard", "pk",
                          "guard_hash"));
    ERRDEX_TRY(db_.Exec("UPDATE site_row SET body_hash = t.body_hash FROM site_text t "
                        "WHERE t.pk = site_row.text_pk; "
                        "UPDATE site_row SET guard_hash = g.guard_hash FROM site_guard g "
                        "WHERE g.pk = site_row.guard_pk"));
    ERRDEX_TRY(RehashRows("site_row", "pk", kSiteHashColumns, "1 = 1", "site_row", "pk", "crc"));
  }
  if (rehash_rows && !pg) {
    // Rows written before hashes existed (an upgrade): leaves first.
    sql += "UPDATE site_text SET body_hash = " + hash_of(kSiteBodyColumns) + ";";
    sql += "UPDATE site_guard SET guard_hash = " + hash_of(kSiteGuardColumns) + ";";
    sql += "UPDATE site_row SET body_hash = (SELECT t.body_hash FROM site_text t WHERE "
           "t.pk = site_row.text_pk), guard_hash = (SELECT g.guard_hash FROM site_guard g WHERE "
           "g.pk = site_row.guard_pk);";
    sql += "UPDATE site_row SET crc = " + hash_of(kSiteHashColumns) + ";";
    sql += "UPDATE non_site SET crc = " + hash_of(kNonSiteHashColumns) + ";";
    sql += "UPDATE file_issue SET crc = " + hash_of(kFileIssueHashColumns) + ";";
    sql += "UPDATE exception_class SET crc = " + hash_of(kClassHashColumns) + ";";
    sql += "UPDATE analysis SET crc = " + hash_of(kAnalysisHashColumns) + ";";
    sql += "UPDATE enrichment SET crc = " + hash_of(kEnrichmentHashColumns) + ";";
    sql += "UPDATE meta SET crc = " + hash_of(kMetaHashColumns) + ";";
  }
  if (rehash_rows && share_migrated_sites_) sql += ShareMigratedSitesSql();
  // Only the snapshots whose links a write changed have their sites counted
  // again (WriteScope::MarkSitesDirty). An error's count and sum of its
  // links are moved by each write (Catalog::WriteSnapshot): recounting the
  // links of every error a release raises cost a pass over all releases'
  // links at every one. A migration recounts them all.
  constexpr std::string_view kLinkedRows = "site_link l JOIN site_row r ON r.pk = l.row_pk";
  std::string of_snapshot = dirty_all_ ? "1 = 1" : "pk IN (" + JoinInts(dirty_snapshots_) + ")";
  if (dirty_all_ || !dirty_snapshots_.empty()) {
    sql += "UPDATE snapshot SET " +
           count_sum("n_sites", "sites_sum", kLinkedRows, "l.snapshot_pk = snapshot.pk") + ", " +
           count_sum("n_non_sites", "non_sites_sum", "non_site", "snapshot_pk = snapshot.pk") +
           ", " + count_sum("n_issues", "issues_sum", "file_issue", "snapshot_pk = snapshot.pk") +
           ", " +
           count_sum("n_classes", "classes_sum", "exception_class", "snapshot_pk = snapshot.pk") +
           " WHERE " + of_snapshot + ";";
  }
  ERRDEX_TRY(rehash("snapshot", "pk", kSnapshotHashColumns, of_library));
  if (dirty_all_) {
    sql += "UPDATE error SET " +
           count_sum("n_sites", "sites_sum", kLinkedRows, "r.error_pk = error.pk") + ";";
  }
  sql += "UPDATE error SET "
         "analysis_crc = coalesce((SELECT crc FROM analysis WHERE error_pk = error.pk), 0)"
         ", enrichment_crc = coalesce((SELECT crc FROM enrichment WHERE error_id = error.id), 0)"
         " WHERE " + of_library + ";";
  ERRDEX_TRY(rehash("error", "pk", kErrorHashColumns, of_library));
  sql += "UPDATE library SET " +
         count_sum("n_snapshots", "snapshots_sum", "snapshot", "library_pk = library.pk") + ", " +
         count_sum("n_errors", "errors_sum", "error", "library_pk = library.pk");
  if (pg) {
    sql += ", prefilter_crc = 0 WHERE " + of_pk + ";";
    ERRDEX_TRY(db_.Exec(sql));
    sql.clear();
    ERRDEX_TRY(RehashRows("prefilter", "library_pk", "format, blob", of_library, "library", "pk",
                          "prefilter_crc"));
  } else {
    sql += ", prefilter_crc = coalesce((SELECT errdex_row_hash(format, blob) FROM prefilter "
           "WHERE library_pk = library.pk), 0) WHERE " + of_pk + ";";
  }
  ERRDEX_TRY(rehash("library", "pk", kLibraryHashColumns, of_pk));
  // Families count across the catalog: all of them, every time (23 rows).
  // Examples: one per library first (the longest literal text of each), so
  // that they show how far the family reaches.
  std::string ranked =
      "SELECT e.template, e.literal_size, row_number() OVER (PARTITION BY e.library_pk "
      "ORDER BY e.dynamic, e.literal_size DESC, e.id) AS rank FROM analysis a JOIN error e "
      "ON e.pk = a.error_pk WHERE a.family = family.slug AND e.dynamic = 0";
  sql +=
      "UPDATE family SET errors = (SELECT count(*) FROM analysis a WHERE a.family = family.slug), "
      "libraries = (SELECT count(DISTINCT e.library_pk) FROM analysis a JOIN error e "
      "ON e.pk = a.error_pk WHERE a.family = family.slug), examples = ";
  sql += pg ? "coalesce((SELECT json_agg(template ORDER BY rank, literal_size DESC, template)::text "
              "FROM (SELECT template, rank, literal_size FROM (" + ranked +
                  ") r ORDER BY rank, literal_size DESC, template LIMIT 3) t), '[]');"
            : "(SELECT json_group_array(template) FROM (SELECT template FROM (" + ranked +
                  ") ORDER BY rank, literal_size DESC, template LIMIT 3));";
  ERRDEX_TRY(rehash("family", "slug", kFamilyHashColumns, "1 = 1"));
  if (!sql.empty()) ERRDEX_TRY(db_.Exec(sql));
  sql.clear();
  Result<int64_t> fts = FtsHash();
  if (!fts) return tl::unexpected(fts.error());
  Result<Statement> seal = db_.Prepare(
      std::string(pg ? "INSERT INTO seal" : "INSERT OR REPLACE INTO seal") +
      " (pk, n_libraries, libraries_sum, n_families, families_sum, "
      "n_enrichments, enrichments_sum, fts_hash, n_meta, meta_sum, crc) VALUES (1, "
      "(SELECT count(*) FROM library), (SELECT errdex_sum(crc) FROM library), "
      "(SELECT count(*) FROM family), (SELECT errdex_sum(crc) FROM family), "
      "(SELECT count(*) FROM enrichment), (SELECT errdex_sum(crc) FROM enrichment), ?1, "
      "(SELECT count(*) FROM meta), (SELECT errdex_sum(crc) FROM meta), 0)");
  if (!seal) return tl::unexpected(seal.error());
  if (pg) ERRDEX_TRY(db_.Exec("DELETE FROM seal"));
  seal->Bind(1, *fts);
  ERRDEX_TRY(seal->Run());
  ERRDEX_TRY(rehash("seal", "pk", kSealHashColumns, "1 = 1"));
  // Readers of other connections drop what they checked (DataVersion).
  // The NOTIFY goes out at COMMIT and only then: a server listening
  // (`errdex serve`'s CatalogWatch) never hears of a write rolled back or
  // killed, and hears of one committed without polling for it.
  if (pg) {
    sql += "UPDATE errdex_catalog SET generation = generation + 1; NOTIFY " +
           std::string(kCatalogChannel) + ";";
  }
  return sql.empty() ? Result<void>() : db_.Exec(sql);
}

Result<CheckReport> Catalog::Check() {
  CheckReport report;
  auto problem = [&](const Error& e) { report.problems.push_back(Problem(e)); };
  // PostgreSQL checks its own pages (data checksums, amcheck); the content
  // hashes below are errdex's check on both.
  if (!db_.postgres()) {
    Result<Statement> st = db_.Prepare("PRAGMA integrity_check(20)");
    if (!st) {
      problem(st.error());
      return report;
    }
    while (true) {
      Result<bool> row = st->Step();
      if (!row) {
        problem(row.error());
        return report;
      }
      if (!*row) break;
      std::string line = st->Text(0);
      if (line != "ok") report.problems.push_back("SQLite: " + line);
    }
  }
  base_.reset();
  Result<std::shared_ptr<const Base>> got = GetBase();
  if (!got) {
    problem(got.error());
    return report;
  }
  const Base& base = **got;
  report.libraries = static_cast<int64_t>(base.libraries.size());
  report.snapshots = static_cast<int64_t>(base.snapshots.size());

  Result<std::vector<ErrorRow>> errors = AllErrors(-1, base, /*pieces=*/false);
  if (!errors) {
    problem(errors.error());
    return report;
  }
  report.errors = static_cast<int64_t>(errors->size());
  std::map<int64_t, const ErrorRow*> by_pk;
  std::map<std::string, const ErrorRow*> by_id;
  for (const ErrorRow& r : *errors) {
    by_pk[r.record.pk] = &r;
    by_id[r.record.id] = &r;
  }

  // Every site in full: texts against their hashes, rows against theirs
  // and their texts', links against their snapshots and errors.
  {
    auto scan = [&](const std::string& sql, const std::function<void(const Statement&)>& visit) {
      Result<Statement> st = db_.Prepare(sql);
      if (!st) return problem(st.error()), false;
      while (true) {
        Result<bool> row = st->Step();
        if (!row) return problem(row.error()), false;
        if (!*row) return true;
        visit(*st);
      }
    };
    int64_t bad_texts = 0;
    if (!scan("SELECT " + std::string(kSiteBodyColumns) + ", body_hash FROM site_text",
              [&](const Statement& st) {
                if (st.HashColumns(0, 2) != st.Int(2)) ++bad_texts;
              }) ||
        !scan("SELECT " + std::string(kSiteGuardColumns) + ", guard_hash FROM site_guard",
              [&](const Statement& st) {
                if (st.HashColumns(0, 4) != st.Int(4)) ++bad_texts;
              })) {
      return report;
    }
    int64_t bad = 0;
    int64_t unread = 0;
    if (!scan("SELECT " + Prefixed("r.", kSiteHashColumns) + ", r.crc, t.body_hash, "
                  "g.guard_hash, (SELECT count(*) FROM site_link l WHERE l.row_pk = r.pk), "
                  "CASE WHEN t.pk IS NULL OR g.pk IS NULL THEN 1 ELSE 0 END "
                  "FROM site_row r LEFT JOIN site_text t ON t.pk = r.text_pk "
                  "LEFT JOIN site_guard g ON g.pk = r.guard_pk",
              [&](const Statement& st) {
                if (st.HashColumns(0, 15) != st.Int(15) || st.Int(13) != st.Int(16) ||
                    st.Int(14) != st.Int(17) || st.Int(19) != 0) {
                  ++bad;
                }
                if (st.Int(18) == 0) ++unread;
              })) {
      return report;
    }
    int64_t orphan_texts = 0;
    if (!scan("SELECT (SELECT count(*) FROM site_text t WHERE NOT EXISTS "
              "(SELECT 1 FROM site_row r WHERE r.text_pk = t.pk)) + "
              "(SELECT count(*) FROM site_guard g WHERE NOT EXISTS "
              "(SELECT 1 FROM site_row r WHERE r.guard_pk = g.pk))",
              [&](const Statement& st) { orphan_texts = st.Int(0); })) {
      return report;
    }
    std::map<int64_t, std::pair<int64_t, int64_t>> per_error;
    std::map<int64_t, std::pair<int64_t, int64_t>> per_snapshot;
    int64_t dangling = 0;
    if (!scan("SELECT l.snapshot_pk, r.error_pk, r.crc, CASE WHEN r.pk IS NULL THEN 1 ELSE 0 END "
              "FROM site_link l "
              "LEFT JOIN site_row r ON r.pk = l.row_pk",
              [&](const Statement& st) {
                ++report.sites;
                if (st.Int(3) != 0) {
                  ++dangling;
                  return;
                }
                for (auto* m : {&per_error, &per_snapshot}) {
                  auto& [c, s] = (*m)[m == &per_error ? st.Int(1) : st.Int(0)];
                  ++c;
                  s = AddHashes(s, st.Int(2));
                }
              })) {
      return report;
    }
    if (bad_texts > 0) {
      report.problems.push_back(std::to_string(bad_texts) +
                                " sites' texts do not match their hash");
    }
    if (bad > 0) report.problems.push_back(std::to_string(bad) + " sites do not match their hash");
    if (dangling > 0) {
      report.problems.push_back(std::to_string(dangling) + " snapshots' sites are missing");
    }
    if (unread + orphan_texts > 0) {
      report.problems.push_back(std::to_string(unread) + " site rows and " +
                                std::to_string(orphan_texts) +
                                " site texts belong to no snapshot");
    }
    int64_t errors_off = 0;
    for (const ErrorRow& r : *errors) {
      auto [c, s] = per_error[r.record.pk];
      if (c != r.n_sites || s != r.sites_sum) ++errors_off;
    }
    if (errors_off > 0) {
      report.problems.push_back(std::to_string(errors_off) +
                                " errors' sites do not match the error's count and hash");
    }
    for (const auto& [pk, cs] : per_error) {
      if (!by_pk.count(pk)) {
        report.problems.push_back("sites belong to error rows that are missing");
        break;
      }
    }
    int64_t snapshots_off = 0;
    for (const auto& [pk, snap] : base.snapshots) {
      auto [c, s] = per_snapshot[pk];
      if (c != snap.n_sites || s != snap.sites_sum) ++snapshots_off;
    }
    if (snapshots_off > 0) {
      report.problems.push_back(std::to_string(snapshots_off) +
                                " snapshots' sites do not match the snapshot's count and hash");
    }
  }

  struct Child {
    const char* table;
    std::string_view columns;
    int64_t Base::Snapshot::*count;
    int64_t Base::Snapshot::*sum;
  };
  for (const Child& c : {Child{"non_site", kNonSiteHashColumns, &Base::Snapshot::n_non_sites,
                               &Base::Snapshot::non_sites_sum},
                         Child{"file_issue", kFileIssueHashColumns, &Base::Snapshot::n_issues,
                               &Base::Snapshot::issues_sum},
                         Child{"exception_class", kClassHashColumns, &Base::Snapshot::n_classes,
                               &Base::Snapshot::classes_sum}}) {
    Result<void> scanned =
        ScanSnapshotRows(db_, c.table, c.columns, c.count, c.sum, base, [](const Statement&) {});
    if (!scanned) problem(scanned.error());
  }

  // Analyses against their errors' hashes, both ways.
  {
    Result<Statement> st = db_.Prepare("SELECT " + std::string(kAnalysisHashColumns) +
                                       ", crc FROM analysis");
    if (!st) {
      problem(st.error());
      return report;
    }
    int64_t bad = 0;
    std::map<int64_t, int64_t> seen;
    while (true) {
      Result<bool> row = st->Step();
      if (!row) {
        problem(row.error());
        return report;
      }
      if (!*row) break;
      ++report.analyses;
      auto e = by_pk.find(st->Int(0));
      if (st->HashColumns(0, 3) != st->Int(3) || e == by_pk.end() ||
          e->second->analysis_crc != st->Int(3)) {
        ++bad;
      }
      seen[st->Int(0)] = st->Int(3);
    }
    for (const ErrorRow& r : *errors) {
      if (r.analysis_crc != 0 && !seen.count(r.record.pk)) ++bad;
    }
    if (bad > 0) {
      report.problems.push_back(std::to_string(bad) + " analyses do not match their hash");
    }
  }
  {
    Result<Statement> st = db_.Prepare("SELECT " + std::string(kEnrichmentHashColumns) +
                                       ", crc FROM enrichment");
    if (!st) {
      problem(st.error());
      return report;
    }
    int64_t bad = 0;
    int64_t sum = 0;
    std::set<std::string> seen;
    while (true) {
      Result<bool> row = st->Step();
      if (!row) {
        problem(row.error());
        return report;
      }
      if (!*row) break;
      ++report.enrichments;
      sum = AddHashes(sum, st->Int(4));
      if (st->HashColumns(0, 4) != st->Int(4)) ++bad;
      auto e = by_id.find(st->Text(0));
      if (e != by_id.end() && e->second->enrichment_crc != st->Int(4)) ++bad;
      seen.insert(st->Text(0));
    }
    for (const ErrorRow& r : *errors) {
      if (r.enrichment_crc != 0 && !seen.count(r.record.id)) ++bad;
    }
    if (report.enrichments != base.n_enrichments || sum != base.enrichments_sum) ++bad;
    if (bad > 0) {
      report.problems.push_back(std::to_string(bad) + " enrichments do not match their hash");
    }
  }
  Result<void> prefilters =
      VisitPrefilters([](const PrefilterBlob&, std::string_view) -> Result<void> { return {}; });
  if (!prefilters) problem(prefilters.error());
  fts_version_ = -1;
  Result<void> fts = VerifyFts();
  if (!fts) problem(fts.error());
  return report;
}

}  // namespace errdex::catalog
