// The catalog's analysis tables: one row of facts per error (family in its
// own column, for counting), the family taxonomy, and model-written prose
// keyed by the stable error id.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "catalog/catalog.h"
#include "catalog/internal.h"
#include "catalog/json.h"
#include "catalog/schema.h"
#include "core/text.h"

namespace errdex::catalog {

using nlohmann::json;

Result<void> Catalog::WriteAnalyses(const std::vector<std::pair<int64_t, Analysis>>& errors,
                                    const std::vector<FamilyInfo>& taxonomy) {
  WriteScope scope(*this);
  ERRDEX_TRY(scope.Begin());
  Result<Statement> family = db_.Prepare(
      "INSERT INTO family (slug, name, description) VALUES (?1, ?2, ?3) "
      "ON CONFLICT (slug) DO UPDATE SET name = excluded.name, description = excluded.description");
  if (!family) return tl::unexpected(family.error());
  for (const FamilyInfo& f : taxonomy) {
    family->Bind(1, f.slug).Bind(2, f.name).Bind(3, f.description);
    ERRDEX_TRY(family->Run());
  }
  Result<Statement> put = db_.Prepare(
      "INSERT INTO analysis (error_pk, family, data, crc) "
      "VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT (error_pk) DO UPDATE SET family = excluded.family, data = excluded.data, "
      "crc = excluded.crc");
  if (!put) return tl::unexpected(put.error());
  Result<Statement> owner = db_.Prepare("SELECT library_pk FROM error WHERE pk = ?1");
  if (!owner) return tl::unexpected(owner.error());
  std::set<int64_t> libraries;
  for (const auto& [pk, a] : errors) {
    std::string data = AnalysisToJson(a).dump();
    put->Bind(1, pk).Bind(2, a.family.slug).Bind(3, data);
    put->Bind(4, RowHasher().Int(pk).Text(a.family.slug).Text(data).Digest());
    ERRDEX_TRY(put->Run());
    owner->Reset();
    owner->Bind(1, pk);
    Result<bool> row = owner->Step();
    if (!row) return tl::unexpected(row.error());
    if (*row) libraries.insert(owner->Int(0));
  }
  for (int64_t pk : libraries) scope.MarkDirty(pk);
  // The families' counts change with any analysis.
  if (libraries.empty() && !taxonomy.empty()) scope.MarkAllDirty();
  // The pages' footer says when the catalog was analysed, and an analysis
  // can run long after (or without) an index run.
  ERRDEX_TRY(PutMeta("analysed_at", NowUtc()));
  return scope.Commit();
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
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  // Counts and examples are written with the analyses (Seal) and checked
  // with the family rows: no count over the analysis table at read time.
  std::vector<FamilyInfo> out = (*base)->families;
  std::sort(out.begin(), out.end(), [](const FamilyInfo& a, const FamilyInfo& b) {
    return a.errors != b.errors ? a.errors > b.errors : a.slug < b.slug;
  });
  for (FamilyInfo& f : out) {
    if (f.examples.size() > static_cast<size_t>(std::max(examples, 0))) {
      f.examples.resize(static_cast<size_t>(std::max(examples, 0)));
    }
  }
  return out;
}

Result<std::vector<ErrorRecord>> Catalog::ListFamily(std::string_view slug, int64_t limit) {
  Result<std::shared_ptr<const Base>> base = GetBase();
  if (!base) return tl::unexpected(base.error());
  Result<Statement> st =
      db_.Prepare("SELECT " + ErrorSelect("e") + ", " + Prefixed("a.", kAnalysisHashColumns) +
                  ", a.crc FROM analysis a JOIN error e ON e.pk = a.error_pk WHERE a.family = ?1");
  if (!st) return tl::unexpected(st.error());
  st->Bind(1, slug);
  // Every member is read, limit or not, so that the family's count checks
  // the listing.
  std::vector<ErrorRow> rows;
  constexpr int kA = kErrorColumnCount + 1;
  while (true) {
    Result<bool> step = st->Step();
    if (!step) return tl::unexpected(step.error());
    if (!*step) break;
    if ((*base)->verified &&
        (st->HashColumns(kA, 3) != st->Int(kA + 3) || st->Int(kA + 3) != st->Int(12))) {
      return Damaged("an analysis row does not match its hash");
    }
    Statement& one = *st;
    // ReadErrors steps itself; read this row's error columns directly.
    ErrorRow r;
    if ((*base)->verified &&
        one.HashColumns(0, kErrorColumnCount) != one.Int(kErrorColumnCount)) {
      return Damaged("an error row does not match its hash");
    }
    r.record.pk = one.Int(0);
    r.record.id = one.Text(1);
    r.library_pk = one.Int(2);
    auto lib = (*base)->libraries.find(r.library_pk);
    if (lib == (*base)->libraries.end()) return Damaged("error " + r.record.id + " has no library");
    r.record.library = lib->second.name;
    r.record.exception = one.Text(3);
    r.record.template_text = one.Text(4);
    r.record.kind = one.Text(5);
    Result<Template> t = PiecesFromJson(json::parse(one.Text(6), nullptr, false));
    if (!t) return tl::unexpected(t.error());
    r.record.message = std::move(*t);
    r.record.dynamic = one.Int(8) != 0;
    r.record.internal = one.Int(9) != 0;
    r.n_sites = one.Int(10);
    r.sites_sum = one.Int(11);
    rows.push_back(std::move(r));
  }
  if ((*base)->verified) {
    auto f = std::find_if((*base)->families.begin(), (*base)->families.end(),
                          [&](const FamilyInfo& x) { return x.slug == slug; });
    int64_t expected = f == (*base)->families.end() ? 0 : f->errors;
    if (static_cast<int64_t>(rows.size()) != expected) {
      return Damaged("the members of family " + std::string(slug) + " do not match its count");
    }
  }
  std::sort(rows.begin(), rows.end(),
            [](const ErrorRow& a, const ErrorRow& b) { return a.record.id < b.record.id; });
  if (limit >= 0 && static_cast<int64_t>(rows.size()) > limit) {
    rows.resize(static_cast<size_t>(limit));
  }
  return LoadSites(std::move(rows), SiteDetail::kLocations, **base);
}

Result<void> Catalog::WriteEnrichment(std::string_view id, const Enrichment& e) {
  WriteScope scope(*this);
  ERRDEX_TRY(scope.Begin());
  Result<Statement> st = db_.Prepare(
      "INSERT INTO enrichment (error_id, model, created_at, data, crc) "
      "VALUES (?1, ?2, ?3, ?4, ?5) "
      "ON CONFLICT (error_id) DO UPDATE SET model = excluded.model, "
      "created_at = excluded.created_at, data = excluded.data, crc = excluded.crc");
  if (!st) return tl::unexpected(st.error());
  std::string data = EnrichmentToJson(e).dump();
  st->Bind(1, id).Bind(2, e.model).Bind(3, e.created_at).Bind(4, data);
  st->Bind(5, RowHasher().Text(id).Text(e.model).Text(e.created_at).Text(data).Digest());
  ERRDEX_TRY(st->Run());
  Result<Statement> owner = db_.Prepare("SELECT library_pk FROM error WHERE id = ?1");
  if (!owner) return tl::unexpected(owner.error());
  owner->Bind(1, id);
  Result<bool> row = owner->Step();
  if (!row) return tl::unexpected(row.error());
  if (*row) {
    scope.MarkDirty(owner->Int(0));
  } else {
    scope.MarkAllDirty();  // the seal counts enrichments of errors gone too
  }
  return scope.Commit();
}

Result<std::vector<std::string>> Catalog::ErrorsWithoutEnrichment(std::string_view library,
                                                                  int64_t limit) {
  std::string sql =
      "SELECT e.id FROM error e JOIN analysis a ON a.error_pk = e.pk "
      "JOIN library l ON l.pk = e.library_pk "
      "WHERE NOT EXISTS (SELECT 1 FROM enrichment n WHERE n.error_id = e.id) "
      "AND (?1 = '' OR l.name = ?1) ORDER BY e.id ";
  // PostgreSQL has no LIMIT -1; its LIMIT NULL is SQLite's error.
  sql += db_.postgres() ? "LIMIT CASE WHEN ?2 < 0 THEN NULL ELSE ?2 END" : "LIMIT ?2";
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

Result<void> Catalog::LoadAnalysis(ErrorRecord& e, const ErrorRow& row, const Base& base) {
  // The error row holds the hash of its analysis and enrichment: a row
  // lost or swapped is noticed, not shown as "not analysed".
  if (!base.verified || row.analysis_crc != 0) {
    Result<Statement> st = db_.Prepare("SELECT " + std::string(kAnalysisHashColumns) +
                                       ", crc FROM analysis WHERE error_pk = ?1");
    if (!st) return tl::unexpected(st.error());
    st->Bind(1, e.pk);
    Result<bool> found = st->Step();
    if (!found) return tl::unexpected(found.error());
    if (base.verified && (!*found || st->HashColumns(0, 3) != row.analysis_crc ||
                          st->Int(3) != row.analysis_crc || st->Int(0) != e.pk)) {
      return Damaged("the analysis of error " + e.id + " does not match its hash");
    }
    if (*found) {
      e.analysis = AnalysisFromJson(json::parse(st->Text(2), nullptr, false));
      std::string slug = st->Text(1);
      for (const FamilyInfo& f : base.families) {
        if (f.slug != slug) continue;
        FamilyInfo info = f;
        info.examples.clear();
        e.family = std::move(info);
      }
    }
  }
  if (!base.verified || row.enrichment_crc != 0) {
    Result<Statement> en = db_.Prepare("SELECT " + std::string(kEnrichmentHashColumns) +
                                       ", crc FROM enrichment WHERE error_id = ?1");
    if (!en) return tl::unexpected(en.error());
    en->Bind(1, e.id);
    Result<bool> found = en->Step();
    if (!found) return tl::unexpected(found.error());
    if (base.verified && (!*found || en->HashColumns(0, 4) != row.enrichment_crc ||
                          en->Int(4) != row.enrichment_crc || en->Text(0) != e.id)) {
      return Damaged("the enrichment of error " + e.id + " does not match its hash");
    }
    if (*found) e.enrichment = EnrichmentFromJson(json::parse(en->Text(3), nullptr, false));
  }
  return {};
}

}  // namespace errdex::catalog
