// The catalog's analysis tables: one row of facts per error (family in its
// own column, for counting), the family taxonomy, and model-written prose
// keyed by the stable error id.
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/json.h"

namespace errdex::catalog {

using nlohmann::json;

namespace {

// Rolls back unless committed: a failed write leaves the catalog as it was.
class Transaction {
 public:
  explicit Transaction(Database& db) : db_(db) {}
  ~Transaction() {
    if (open_) (void)db_.Exec("ROLLBACK");
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Result<void> Begin() {
    ERRDEX_TRY(db_.Exec("BEGIN IMMEDIATE"));
    open_ = true;
    return {};
  }
  Result<void> Commit() {
    ERRDEX_TRY(db_.Exec("COMMIT"));
    open_ = false;
    return {};
  }

 private:
  Database& db_;
  bool open_ = false;
};

}  // namespace

Result<void> Catalog::WriteAnalyses(const std::vector<std::pair<int64_t, Analysis>>& errors,
                                    const std::vector<FamilyInfo>& taxonomy) {
  Transaction tx(db_);
  ERRDEX_TRY(tx.Begin());
  Result<Statement> family = db_.Prepare(
      "INSERT INTO family (slug, name, description) VALUES (?1, ?2, ?3) "
      "ON CONFLICT (slug) DO UPDATE SET name = excluded.name, description = excluded.description");
  if (!family) return tl::unexpected(family.error());
  for (const FamilyInfo& f : taxonomy) {
    family->Bind(1, f.slug).Bind(2, f.name).Bind(3, f.description);
    ERRDEX_TRY(family->Run());
  }
  Result<Statement> put = db_.Prepare(
      "INSERT INTO analysis (error_pk, family, data) VALUES (?1, ?2, ?3) "
      "ON CONFLICT (error_pk) DO UPDATE SET family = excluded.family, data = excluded.data");
  if (!put) return tl::unexpected(put.error());
  for (const auto& [pk, a] : errors) {
    put->Bind(1, pk).Bind(2, a.family.slug).Bind(3, AnalysisToJson(a).dump());
    ERRDEX_TRY(put->Run());
  }
  return tx.Commit();
}

Result<int64_t> Catalog::CountUnanalyzed(std::string_view library) {
  Result<Statement> st = db_.Prepare(
      "SELECT count(*) FROM error e JOIN library l ON l.pk = e.library_pk "
      "WHERE (?1 = '' OR l.name = ?1) "
      "AND NOT EXISTS (SELECT 1 FROM analysis a WHERE a.error_pk = e.pk)");
  if (!st) return tl::unexpected(st.error());
  st->Bind(1, library);
  Result<bool> row = st->Step();
  if (!row) return tl::unexpected(row.error());
  return *row ? st->Int(0) : 0;
}

Result<std::vector<FamilyInfo>> Catalog::Families(int examples) {
  Result<Statement> st = db_.Prepare(
      "SELECT f.slug, f.name, f.description, count(a.error_pk), "
      "count(DISTINCT e.library_pk) FROM family f "
      "LEFT JOIN analysis a ON a.family = f.slug LEFT JOIN error e ON e.pk = a.error_pk "
      "GROUP BY f.slug ORDER BY count(a.error_pk) DESC, f.slug");
  if (!st) return tl::unexpected(st.error());
  std::vector<FamilyInfo> out;
  while (true) {
    Result<bool> row = st->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    FamilyInfo f;
    f.slug = st->Text(0);
    f.name = st->Text(1);
    f.description = st->Text(2);
    f.errors = st->Int(3);
    f.libraries = st->Int(4);
    out.push_back(std::move(f));
  }
  if (examples <= 0) return out;
  // One example per library first (the longest literal text of each), so
  // the examples show how far the family reaches.
  Result<Statement> ex = db_.Prepare(
      "SELECT template FROM (SELECT e.template, e.literal_size, row_number() OVER "
      "(PARTITION BY e.library_pk ORDER BY e.dynamic, e.literal_size DESC, e.id) AS rank "
      "FROM analysis a JOIN error e ON e.pk = a.error_pk WHERE a.family = ?1 AND e.dynamic = 0) "
      "ORDER BY rank, literal_size DESC, template LIMIT ?2");
  if (!ex) return tl::unexpected(ex.error());
  for (FamilyInfo& f : out) {
    ex->Reset();
    ex->Bind(1, f.slug).Bind(2, static_cast<int64_t>(examples));
    while (true) {
      Result<bool> row = ex->Step();
      if (!row) return tl::unexpected(row.error());
      if (!*row) break;
      f.examples.push_back(ex->Text(0));
    }
  }
  return out;
}

Result<std::vector<ErrorRecord>> Catalog::ListFamily(std::string_view slug, int64_t limit) {
  Result<Statement> st = db_.Prepare(
      "SELECT e.pk, e.id, l.name, e.exception, e.template, e.kind, e.pieces, e.dynamic, "
      "e.internal FROM analysis a JOIN error e ON e.pk = a.error_pk "
      "JOIN library l ON l.pk = e.library_pk WHERE a.family = ?1 ORDER BY e.id LIMIT ?2");
  if (!st) return tl::unexpected(st.error());
  st->Bind(1, slug).Bind(2, limit);
  return Load(*st, SiteDetail::kLocations);
}

Result<void> Catalog::WriteEnrichment(std::string_view id, const Enrichment& e) {
  Result<Statement> st = db_.Prepare(
      "INSERT INTO enrichment (error_id, model, created_at, data) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT (error_id) DO UPDATE SET model = excluded.model, "
      "created_at = excluded.created_at, data = excluded.data");
  if (!st) return tl::unexpected(st.error());
  st->Bind(1, id).Bind(2, e.model).Bind(3, e.created_at).Bind(4, EnrichmentToJson(e).dump());
  return st->Run();
}

Result<std::vector<std::string>> Catalog::ErrorsWithoutEnrichment(std::string_view library,
                                                                  int64_t limit) {
  std::string sql =
      "SELECT e.id FROM error e JOIN analysis a ON a.error_pk = e.pk "
      "JOIN library l ON l.pk = e.library_pk "
      "WHERE NOT EXISTS (SELECT 1 FROM enrichment n WHERE n.error_id = e.id) "
      "AND (?1 = '' OR l.name = ?1) ORDER BY e.id LIMIT ?2";
  Result<Statement> st = db_.Prepare(sql);
  if (!st) return tl::unexpected(st.error());
  st->Bind(1, library).Bind(2, limit < 0 ? int64_t{-1} : limit);
  std::vector<std::string> out;
  while (true) {
    Result<bool> row = st->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    out.push_back(st->Text(0));
  }
  return out;
}

Result<void> Catalog::LoadAnalysis(ErrorRecord& e) {
  Result<Statement> st = db_.Prepare(
      "SELECT a.data, f.slug, f.name, f.description, "
      "(SELECT count(*) FROM analysis b WHERE b.family = a.family), "
      "(SELECT count(DISTINCT x.library_pk) FROM analysis b JOIN error x ON x.pk = b.error_pk "
      " WHERE b.family = a.family) "
      "FROM analysis a LEFT JOIN family f ON f.slug = a.family WHERE a.error_pk = ?1");
  if (!st) return tl::unexpected(st.error());
  st->Bind(1, e.pk);
  Result<bool> row = st->Step();
  if (!row) return tl::unexpected(row.error());
  if (*row) {
    e.analysis = AnalysisFromJson(json::parse(st->Text(0), nullptr, false));
    if (!st->Text(1).empty()) {
      FamilyInfo f;
      f.slug = st->Text(1);
      f.name = st->Text(2);
      f.description = st->Text(3);
      f.errors = st->Int(4);
      f.libraries = st->Int(5);
      e.family = std::move(f);
    }
  }
  Result<Statement> en = db_.Prepare("SELECT data FROM enrichment WHERE error_id = ?1");
  if (!en) return tl::unexpected(en.error());
  en->Bind(1, e.id);
  row = en->Step();
  if (!row) return tl::unexpected(row.error());
  if (*row) e.enrichment = EnrichmentFromJson(json::parse(en->Text(0), nullptr, false));
  return {};
}

}  // namespace errdex::catalog
