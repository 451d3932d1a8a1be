// Paged listings of a library's or a family's errors. A big library has
// tens of thousands of errors: reading each one's sites and analysis to show
// a hundred of them made a 2,000-row page take most of a second. The order
// and the filters need only a few columns of every error and a count per
// version of its sites; those are read for the whole scope, the rest for
// the page alone.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "catalog/catalog.h"
#include "catalog/internal.h"

namespace errdex::catalog {
// What ordering and filtering need of an error.
struct Catalog::ListKey {
  int64_t pk = 0;
  std::string id;
  int64_t library_pk = 0;
  std::string exception;
  std::string family;
  std::string labels;     // its analysis's labels, each followed by \1
  int64_t focus = -1;     // the snapshot whose sites are shown
  int focus_ordinal = -1;
  int64_t sites = 0;      // in the focus snapshot
  std::string first;      // its first site: path, \1, zero-padded line
  bool older = false;     // raised only before its library's newest version
};

// The keys of the last listing's scope, as of one state of the catalog:
// the next page, order or filter of the same library or family reads only
// its page's rows.
struct Catalog::ListCache {
  std::shared_ptr<const Base> base;
  std::string library;
  std::string family;
  std::string version;
  std::vector<ListKey> keys;
};

namespace {

using Key = Catalog::ListKey;

bool Before(const Key& a, const Key& b, ErrorOrder order) {
  if (a.older != b.older) return !a.older;
  switch (order) {
    case ErrorOrder::kSites:
      break;
    case ErrorOrder::kType:
      if (a.exception != b.exception) return a.exception < b.exception;
      break;
    case ErrorOrder::kFamily:
      // Unanalysed errors (no family) after every family.
      if (a.family.empty() != b.family.empty()) return !a.family.empty();
      if (a.family != b.family) return a.family < b.family;
      break;
    case ErrorOrder::kFile:
      if (a.first != b.first) return a.first < b.first;
      break;
  }
  if (a.sites != b.sites) return a.sites > b.sites;
  return a.id < b.id;
}

}  // namespace

Result<PagedErrors> Catalog::ListPage(const PageQuery& query) {
  Result<std::shared_ptr<const Base>> got = GetBase();
  if (!got) return tl::unexpected(got.error());
  const Base& base = **got;
  PagedErrors out;
  int64_t library_pk = -1;
  if (!query.library.empty()) {
    for (const auto& [pk, lib] : base.libraries) {
      if (lib.name == query.library) library_pk = pk;
    }
    if (library_pk < 0) return out;
  }
  const FamilyInfo* family = nullptr;
  if (!query.family.empty()) {
    for (const FamilyInfo& f : base.families) {
      if (f.slug == query.family) family = &f;
    }
    if (family == nullptr) return out;
  }
  // Inside a write the base is not checked yet: nothing is kept from it.
  bool reuse = list_cache_ && base.verified && list_cache_->base == *got &&
               list_cache_->library == query.library && list_cache_->family == query.family &&
               list_cache_->version == version_;
  if (!reuse) {
    auto fresh = std::make_shared<ListCache>();
    ERRDEX_TRY(ReadListKeys(fresh->keys, library_pk, family, base));
    fresh->base = *got;
    fresh->library = query.library;
    fresh->family = query.family;
    fresh->version = version_;
    list_cache_ = std::move(fresh);
  }
  // Filters, then the order.
  bool at_version = !version_.empty() && version_ != kAllVersions;
  std::string label = query.label + '\1';
  std::vector<const Key*> kept;
  for (const Key& k : list_cache_->keys) {
    if (at_version && k.focus < 0) continue;
    if (!query.exception.empty() && k.exception != query.exception) continue;
    if (!query.label.empty() && ("\1" + k.labels).find("\1" + label) == std::string::npos) continue;
    out.older += k.older ? 1 : 0;
    kept.push_back(&k);
  }
  out.total = static_cast<int64_t>(kept.size());
  int64_t offset = std::clamp<int64_t>(query.offset, 0, out.total);
  int64_t end = query.limit < 0 ? out.total : std::min(out.total, offset + query.limit);
  auto before = [&](const Key* a, const Key* b) { return Before(*a, *b, query.order); };
  // Only the page needs to be in order, and what comes before it.
  if (end < out.total) {
    std::partial_sort(kept.begin(), kept.begin() + end, kept.end(), before);
  } else {
    std::sort(kept.begin(), kept.end(), before);
  }
  std::vector<int64_t> pks;
  for (int64_t i = offset; i < end; ++i) pks.push_back(kept[static_cast<size_t>(i)]->pk);
  return LoadPage(std::move(out), pks, query.keep_sites, base);
}

Result<void> Catalog::ReadListKeys(std::vector<ListKey>& all, int64_t library_pk,
                                   const FamilyInfo* family, const Base& base) {
  // The scope in SQL; both bounds are plain integers and bound strings.
  std::string scope = " FROM error e LEFT JOIN analysis a ON a.error_pk = e.pk";
  std::string where;
  if (library_pk >= 0) where += " AND e.library_pk = ?1";
  if (family != nullptr) where += " AND a.family = ?2";
  std::string cond = where.empty() ? "" : " WHERE" + where.substr(4);
  std::string labels =
      db_.postgres()
          ? "coalesce((SELECT string_agg(l.value, chr(1) ORDER BY l.n) FROM "
            "jsonb_array_elements_text(a.data::jsonb -> 'labels') WITH ORDINALITY l(value, n)), "
            "'')"
          : "coalesce((SELECT group_concat(value, char(1)) FROM json_each(a.data, '$.labels')), "
            "'')";
  Result<Statement> keys =
      db_.Prepare("SELECT e.pk, e.id, e.library_pk, e.exception, e.crc, coalesce(a.family, ''), " +
                  labels + scope + cond);
  if (!keys) return tl::unexpected(keys.error());
  std::string slug = family != nullptr ? family->slug : "";
  keys->Bind(1, library_pk).Bind(2, slug);
  std::unordered_map<int64_t, size_t> by_pk;
  Tally tally;
  while (true) {
    Result<bool> row = keys->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    Key k;
    k.pk = keys->Int(0);
    k.id = keys->Text(1);
    k.library_pk = keys->Int(2);
    k.exception = keys->Text(3);
    tally.Add(keys->Int(4));
    k.family = keys->Text(5);
    k.labels = keys->Text(6);
    if (!k.labels.empty()) k.labels.push_back('\1');
    by_pk[k.pk] = all.size();
    all.push_back(std::move(k));
  }
  // The rows shown are checked one by one (LoadPage); the scope as a whole
  // is checked here against what its parent keeps, so that a lost row is
  // not just missing from the listing.
  if (base.verified) {
    if (library_pk >= 0 && family == nullptr) {
      const Base::Library& lib = base.libraries.at(library_pk);
      if (!tally.Matches(lib.n_errors, lib.errors_sum)) {
        return Damaged("the errors of " + lib.name + " do not match the library's hash");
      }
    }
    if (family != nullptr && library_pk < 0 &&
        static_cast<int64_t>(all.size()) != family->errors) {
      return Damaged("the members of family " + family->slug + " do not match its count");
    }
  }
  return FocusKeys(all, by_pk, scope + " JOIN site s ON s.error_pk = e.pk" + cond, library_pk,
                   slug, base);
}

Result<void> Catalog::FocusKeys(std::vector<ListKey>& keys,
                                const std::unordered_map<int64_t, size_t>& by_pk,
                                const std::string& from, int64_t library_pk,
                                const std::string& family, const Base& base) {
  Result<Statement> st = db_.Prepare(
      "SELECT s.error_pk, s.snapshot_pk, count(*), " +
      std::string(db_.postgres() ? "min(s.path || chr(1) || lpad(s.line::text, 10, '0'))"
                                 : "min(s.path || char(1) || printf('%010d', s.line))") +
      from + " GROUP BY s.error_pk, s.snapshot_pk");
  if (!st) return tl::unexpected(st.error());
  st->Bind(1, library_pk).Bind(2, family);
  bool at_version = !version_.empty() && version_ != kAllVersions;
  while (true) {
    Result<bool> row = st->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    auto k = by_pk.find(st->Int(0));
    auto snap = base.snapshots.find(st->Int(1));
    if (k == by_pk.end() || snap == base.snapshots.end()) {
      if (base.verified) return Damaged("a site belongs to no error or snapshot");
      continue;
    }
    Key& key = keys[k->second];
    bool wanted = at_version ? snap->second.rev == version_
                             : snap->second.ordinal > key.focus_ordinal;
    if (!wanted) continue;
    key.focus = snap->first;
    key.focus_ordinal = snap->second.ordinal;
    key.sites = st->Int(2);
    key.first = st->Text(3);
  }
  if (at_version) return {};
  std::map<int64_t, int> newest;  // library pk -> its newest snapshot's ordinal
  for (const auto& [pk, snap] : base.snapshots) {
    int& n = newest.try_emplace(snap.library_pk, -1).first->second;
    n = std::max(n, snap.ordinal);
  }
  for (Key& k : keys) {
    k.older = k.focus >= 0 && k.focus_ordinal < newest[k.library_pk];
  }
  return {};
}

Result<PagedErrors> Catalog::LoadPage(PagedErrors out, const std::vector<int64_t>& pks,
                                      size_t keep_sites, const Base& base) {
  Result<Statement*> error = Cached("SELECT " + ErrorSelect("e") + " FROM error e WHERE e.pk = ?1");
  if (!error) return tl::unexpected(error.error());
  for (int64_t pk : pks) {
    (*error)->Reset();
    (*error)->Bind(1, pk);
    Result<std::vector<ErrorRow>> rows = ReadErrors(**error, base);
    if (!rows) return tl::unexpected(rows.error());
    if (rows->size() != 1 || rows->front().record.pk != pk) {
      if (base.verified) return Damaged("error row " + std::to_string(pk) + " is missing");
      continue;
    }
    ErrorRow& row = rows->front();
    ERRDEX_TRY(LoadSitesOf(row.record, row, SiteDetail::kLocations, base, keep_sites));
    ERRDEX_TRY(LoadAnalysis(row.record, row, base));
    out.items.push_back(std::move(row.record));
  }
  return out;
}

}  // namespace errdex::catalog
