#include "web/site.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <optional>

#include "catalog/json.h"
#include "core/error_id.h"
#include "core/text.h"
#include "match/report.h"

namespace errdex::web {
namespace {

using nlohmann::json;

// A listing's page. Unpaged, a big library's page stopped at 2,000 rows
// and 447 KB.
constexpr int64_t kPageSize = 100;
constexpr int64_t kMaxPerPage = 500;
constexpr int64_t kMaxPage = 1000000;
constexpr int64_t kMaxSearch = 100;
constexpr size_t kMaxVersionName = 256;
constexpr size_t kMaxTop = 20;

Page Json(int status, const json& j) {
  return {status, "application/json",
          j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n"};
}

Page JsonError(int status, std::string message) {
  return Json(status, {{"error", std::move(message)}, {"status", status}});
}

Page Html(int status, std::string body) {
  return {status, "text/html; charset=utf-8", std::move(body)};
}

std::string First(const Query& q, const std::string& key) {
  auto it = q.find(key);
  return it == q.end() ? "" : it->second;
}

bool ValidSlug(std::string_view slug) {
  if (slug.empty() || slug.size() > 64) return false;
  for (char c : slug) {
    if (!(std::islower(static_cast<unsigned char>(c)) || c == '-')) return false;
  }
  return true;
}

// What a listing was asked for: /libraries/..., /families/... and their
// /api/.../errors twins take the same parameters.
struct ListParams {
  int64_t page = 1;
  int64_t per = kPageSize;
  bool per_given = false;  // kept in a page's links only when asked for
  catalog::ErrorOrder order = catalog::ErrorOrder::kSites;
  std::string sort;  // as given; empty for the default
  std::vector<std::pair<std::string, std::string>> filters;  // type, family, label: set ones
  catalog::PageQuery query;  // filters, order and the page's bounds
};

// A whole number from 1 to `max`; nullopt for anything else ("", "2x", "-1").
std::optional<int64_t> Count(const std::string& text, int64_t max) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v < 1 || v > max) return std::nullopt;
  return v;
}

// The listing's parameters, or why they are refused (a 400): a client
// that asks for page "2x" or 10,000 rows learns so instead of getting
// something else than it asked for.
Result<ListParams> ParseList(const Query& q, const std::vector<FamilyInfo>& families) {
  ListParams p;
  auto bad = [](std::string why) { return Fail(ErrorCode::kInvalidArgument, std::move(why)); };
  if (q.count("page")) {
    std::optional<int64_t> n = Count(First(q, "page"), kMaxPage);
    if (!n) return bad("page must be a whole number from 1 to " + std::to_string(kMaxPage));
    p.page = *n;
  }
  if (q.count("per")) {
    std::optional<int64_t> n = Count(First(q, "per"), kMaxPerPage);
    if (!n) return bad("per must be a whole number from 1 to " + std::to_string(kMaxPerPage));
    p.per = *n;
    p.per_given = true;
  }
  if (q.count("sort")) {
    p.sort = First(q, "sort");
    if (p.sort == "sites") {
      p.order = catalog::ErrorOrder::kSites;
      p.sort.clear();  // the default, named
    } else if (p.sort == "type") {
      p.order = catalog::ErrorOrder::kType;
    } else if (p.sort == "family") {
      p.order = catalog::ErrorOrder::kFamily;
    } else if (p.sort == "file") {
      p.order = catalog::ErrorOrder::kFile;
    } else {
      return bad("sort must be one of sites, type, family, file");
    }
  }
  if (q.count("type")) {
    std::string type = First(q, "type");
    bool printable = std::all_of(type.begin(), type.end(),
                                 [](char c) { return static_cast<unsigned char>(c) >= 0x20; });
    if (type.empty() || type.size() > 200 || !printable) {
      return bad("type must be an exception type's name, 1 to 200 printable characters");
    }
    p.query.exception = type;
    p.filters.emplace_back("type", type);
  }
  if (q.count("family")) {
    std::string family = First(q, "family");
    bool known = ValidSlug(family) && std::any_of(families.begin(), families.end(),
                                                  [&](const FamilyInfo& f) { return f.slug == family; });
    if (!known) return bad("family must be the slug of a family of /api/families");
    p.query.family = family;
    p.filters.emplace_back("family", family);
  }
  if (q.count("label")) {
    std::string label = First(q, "label");
    std::string known;
    for (std::string_view l : kAnalysisLabels) known += (known.empty() ? "" : ", ") + std::string(l);
    if (std::find(std::begin(kAnalysisLabels), std::end(kAnalysisLabels), label) ==
        std::end(kAnalysisLabels)) {
      return bad("label must be one of " + known);
    }
    p.query.label = label;
    p.filters.emplace_back("label", label);
  }
  p.query.order = p.order;
  p.query.offset = (p.page - 1) * p.per;
  p.query.limit = p.per;
  return p;
}

int64_t Pages(int64_t total, int64_t per) {
  return std::max<int64_t>(1, (total + per - 1) / per);
}

// {total, page, per, pages, items}: each item as /api/search gives it,
// with its family and labels.
json PageJson(const catalog::PagedErrors& found, const ListParams& p, const Links& links) {
  json items = json::array();
  for (const catalog::ErrorRecord& e : found.items) {
    json j = catalog::ErrorSummaryJson(e);
    // An `assert` of the standard library is one error at 90,000 sites:
    // a page of a listing names the first few (PageQuery::keep_sites) and
    // counts the rest.
    j["sites_total"] = std::max<int64_t>(e.sites_in_version, static_cast<int64_t>(e.sites.size()));
    j["page"] = links.Error(e.id);
    j["family"] = e.analysis ? json(e.analysis->family.slug) : json(nullptr);
    j["labels"] = e.analysis ? json(e.analysis->labels) : json::array();
    if (!e.version.empty()) j["version"] = e.version;
    items.push_back(std::move(j));
  }
  return {{"total", found.total},
          {"page", p.page},
          {"per", p.per},
          {"pages", Pages(found.total, p.per)},
          {"items", std::move(items)}};
}

// The page asked for; a page past the last one shows the last one (a link
// kept from before a re-index), except in the API, where an empty page is
// what ends a client's loop over the pages.
Result<catalog::PagedErrors> ReadPage(catalog::Catalog& cat, ListParams& p,
                                      const std::string& version, bool api) {
  catalog::VersionScope scope(cat, version);
  Result<catalog::PagedErrors> found = cat.ListPage(p.query);
  if (!found || api) return found;
  int64_t last = Pages(found->total, p.per);
  if (p.page <= last) return found;
  p.page = last;
  p.query.offset = (last - 1) * p.per;
  return cat.ListPage(p.query);
}

// The lower-case words of a text, as the full-text index splits it.
std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || u >= 0x80) {
      word.push_back(static_cast<char>(std::tolower(u)));
    } else if (!word.empty()) {
      out.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) out.push_back(std::move(word));
  return out;
}

// A full-text hit scores from 0.3 to 0.6 by how much of its message the
// words cover: below a template that fits the text strongly, level with
// one of similar wording, and a short message the words nearly are first.
double WordScore(const std::vector<std::string>& words, const catalog::ErrorRecord& e) {
  // The message's own words: a placeholder's name is not in the text.
  std::string literal;
  int depth = 0;
  for (char c : e.template_text) {
    if (c == '{') ++depth;
    if (depth == 0) literal.push_back(c);
    if (c == '}' && depth > 0) --depth;
  }
  std::vector<std::string> message = Words(e.exception + " " + literal);
  if (message.empty()) return 0.3;
  size_t covered = 0;
  for (const std::string& w : message) {
    if (std::find(words.begin(), words.end(), w) != words.end()) ++covered;
  }
  return 0.3 + 0.3 * static_cast<double>(covered) / static_cast<double>(message.size());
}

// Adds the full-text hits `found` to the matcher's `matches` (the shape of
// explain --json, no values: words are not a message to read them from),
// best first, `top` at most.
void MergeWordMatches(nlohmann::ordered_json& matches,
                      const std::vector<catalog::ErrorRecord>& found, std::string_view text,
                      size_t top) {
  std::vector<std::string> words = Words(text);
  for (const catalog::ErrorRecord& e : found) {
    bool known = std::any_of(matches.begin(), matches.end(),
                             [&](const auto& m) { return m["id"] == e.id; });
    if (known) continue;
    nlohmann::ordered_json sites = nlohmann::ordered_json::array();
    for (size_t i = 0; i < e.sites.size() && i < 10; ++i) {
      const catalog::SiteRecord& s = e.sites[i];
      sites.push_back({{"path", s.path}, {"line", s.line}, {"function", s.function}});
    }
    matches.push_back({{"id", e.id},
                       {"score", WordScore(words, e)},
                       {"fuzzy", true},
                       {"library", e.library},
                       {"exception", e.exception},
                       {"template", e.template_text},
                       {"values", nlohmann::ordered_json::object()},
                       {"sites", std::move(sites)},
                       {"sites_total", e.sites.size()},
                       {"evidence", "the words appear in the message"},
                       {"found_by", "words"}});
  }
  std::vector<nlohmann::ordered_json> all(matches.begin(), matches.end());
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a["score"].template get<double>() > b["score"].template get<double>();
  });
  if (all.size() > top) all.resize(top);
  matches = nlohmann::ordered_json(all);
}

Listing MakeListing(std::string path, const ListParams& p, int64_t total) {
  Listing l;
  l.path = std::move(path);
  l.filters = p.filters;
  l.sort = p.sort;
  l.page = p.page;
  l.pages = Pages(total, p.per);
  if (p.per_given) l.per = p.per;
  return l;
}

}  // namespace

Result<std::unique_ptr<Site>> Site::Open(const std::string& db, Links links) {
  Result<catalog::Catalog> cat = catalog::Catalog::Open(db, catalog::OpenMode::kReadOnly);
  if (!cat) return tl::unexpected(cat.error());
  // A site lives for one state of the catalog file (the server opens another
  // when it changes): the dates hold for every page it makes.
  Result<std::string> indexed = cat->LastIndexedAt();
  if (!indexed) return tl::unexpected(indexed.error());
  links.indexed_at = std::move(*indexed);
  Result<std::string> analysed = cat->LastAnalysedAt();
  if (!analysed) return tl::unexpected(analysed.error());
  links.analysed_at = std::move(*analysed);
  return std::unique_ptr<Site>(new Site(std::move(*cat), std::move(links)));
}

json ErrorApiJson(const catalog::ErrorRecord& e, const Links& links) {
  json j = catalog::ErrorJson(e);
  j["page"] = links.Error(e.id);
  for (size_t i = 0; i < e.sites.size() && i < j["sites"].size(); ++i) {
    std::string url = SourceUrl(e.sites[i]);
    if (!url.empty()) j["sites"][i]["source_url"] = url;
  }
  std::string report = ReportIssueUrl(e);
  if (!report.empty()) j["report_issue_url"] = report;
  return j;
}

json SearchJson(const std::vector<catalog::ErrorRecord>& found, const Links& links) {
  json out = json::array();
  for (const catalog::ErrorRecord& e : found) {
    json j = catalog::ErrorSummaryJson(e);
    j["page"] = links.Error(e.id);
    out.push_back(std::move(j));
  }
  return out;
}

Page Site::Get(std::string_view path, const Query& query) {
  catalog::ReadScope read(catalog_);
  if (path == "/" || path == "/index.html") return Home();
  if (const Page* asset = Asset(path)) return *asset;
  std::string version = First(query, "version");
  if (version.size() > kMaxVersionName) {
    return StartsWith(path, "/api/") ? JsonError(400, "version is too long")
                                     : Html(400, NotFoundPage("That is no version name.", links_));
  }
  // Another release tag of an indexed commit names that snapshot.
  if (!version.empty()) {
    Result<std::optional<std::string>> rev = catalog_.ResolveVersion(version);
    if (rev && *rev) version = std::move(**rev);
  }
  if (StartsWith(path, "/errors/")) return ErrorHtml(path.substr(8), version);
  if (StartsWith(path, "/api/errors/")) return ErrorJson(path.substr(12), version);
  if (StartsWith(path, "/libraries/")) return Library(path.substr(11), version, query, false);
  if (StartsWith(path, "/families/")) return Family(path.substr(10), query, false);
  // A listing's JSON: /api/libraries/OWNER/NAME/errors, /api/families/SLUG/errors.
  if (StartsWith(path, "/api/libraries/") && EndsWith(path, "/errors") && path.size() > 22) {
    return Library(path.substr(15, path.size() - 15 - 7), version, query, true);
  }
  if (StartsWith(path, "/api/families/") && EndsWith(path, "/errors") && path.size() > 21) {
    return Family(path.substr(14, path.size() - 14 - 7), query, true);
  }
  if (path == "/api/openapi.json") return {200, "application/json", OpenApiJson()};
  if (path == "/api/search") {
    std::string q = First(query, "q");
    if (q.size() > 1000) return JsonError(400, "q is longer than 1000 characters");
    int64_t limit = 20;
    std::string l = First(query, "limit");
    if (!l.empty()) {
      char* end = nullptr;
      long long v = std::strtoll(l.c_str(), &end, 10);
      if (*end != '\0' || v < 1 || v > kMaxSearch) {
        return JsonError(400, "limit must be an integer from 1 to " + std::to_string(kMaxSearch));
      }
      limit = v;
    }
    Result<std::vector<catalog::ErrorRecord>> found = catalog_.Search(q, limit);
    if (!found) return JsonError(500, found.error().message);
    return Json(200, SearchJson(*found, links_));
  }
  if (path == "/api/libraries") {
    Result<catalog::Stats> stats = catalog_.GetStats();
    if (!stats) return JsonError(500, stats.error().message);
    json out = json::array();
    for (const catalog::LibraryStats& l : stats->per_library) {
      json versions = json::array();
      for (const catalog::SnapshotStats& s : stats->per_snapshot) {
        if (s.library != l.name) continue;
        json one = {{"rev", s.rev}, {"commit", s.commit}, {"date", s.date}, {"sites", s.sites}};
        if (!s.aliases.empty()) one["aliases"] = s.aliases;
        versions.push_back(std::move(one));
      }
      out.push_back({{"name", l.name},
                     {"url", l.url},
                     {"errors", l.errors},
                     {"sites", l.sites},
                     {"versions", std::move(versions)},
                     {"page", links_.Library(l.name)}});
    }
    return Json(200, out);
  }
  if (path == "/api/families") {
    Result<std::vector<FamilyInfo>> families = catalog_.Families(3);
    if (!families) return JsonError(500, families.error().message);
    json out = json::array();
    for (const FamilyInfo& f : *families) {
      json j = catalog::FamilyJson(f);
      j["page"] = links_.Family(f.slug);
      out.push_back(std::move(j));
    }
    return Json(200, out);
  }
  if (StartsWith(path, "/api/")) return JsonError(404, "no such API route");
  return Html(404, NotFoundPage("There is no page at this address.", links_));
}

Page Site::Match(std::string_view body, std::string_view content_type) {
  catalog::ReadScope read(catalog_);
  std::string text(body);
  size_t top = 5;
  if (StartsWith(content_type, "application/json")) {
    json request = json::parse(body, nullptr, false);
    if (request.is_discarded() || !request.is_object() || !request.contains("text") ||
        !request["text"].is_string()) {
      return JsonError(400, "the body must be JSON {\"text\": \"...\", \"top\": N} or plain text");
    }
    text = request["text"].get<std::string>();
    if (request.contains("top")) {
      if (!request["top"].is_number_integer() || request["top"].get<int64_t>() < 1 ||
          request["top"].get<int64_t>() > static_cast<int64_t>(kMaxTop)) {
        return JsonError(400, "top must be an integer from 1 to " + std::to_string(kMaxTop));
      }
      top = request["top"].get<size_t>();
    }
  }
  if (Result<void> warm = Warm(); !warm) return JsonError(500, warm.error().message);
  match::ExplainOptions options;
  options.top = top;
  Result<match::Report> report = match::ExplainAll(*matcher_, text, options);
  if (!report) return JsonError(500, report.error().message);
  nlohmann::ordered_json doc = match::ReportJson(*report);
  for (auto& m : doc["matches"]) m["found_by"] = "template";
  // Words are no message: "shape mismatch" fits no template whole. Unless
  // a template fits strongly, the full-text index answers too, and both
  // kinds are ranked together.
  const std::vector<match::Match>* last = report->matches.empty() ? nullptr
                                                                  : &report->matches.back();
  bool strong = last && std::any_of(last->begin(), last->end(),
                                     [](const match::Match& m) { return m.strong; });
  if (!strong) {
    Result<std::vector<catalog::ErrorRecord>> found =
        catalog_.Search(text, static_cast<int64_t>(top));
    if (!found) return JsonError(500, found.error().message);
    MergeWordMatches(doc["matches"], *found, text, top);
  }
  // Where each match's page is and, when the analysis knows one, its fix:
  // what the search box shows beside the values read from the text.
  for (auto& m : doc["matches"]) {
    std::string id = m["id"].get<std::string>();
    m["page"] = links_.Error(id);
    Result<catalog::ErrorRecord> e = catalog_.Get(id);
    if (!e) return JsonError(500, e.error().message);
    // One of many equal bare raises, or only the nearest wording: a fix
    // for it may be for another error.
    if (e->analysis && !m.contains("same_bare") && !m.contains("weak")) {
      const auto& prose = e->analysis->prose;
      nlohmann::ordered_json fix = nlohmann::ordered_json::object();
      if (!prose.solutions.empty()) fix["solution"] = prose.solutions.front();
      if (!prose.fix_after.empty()) {
        fix["before"] = prose.fix_before;
        fix["after"] = prose.fix_after;
      }
      if (!fix.empty()) m["fix"] = std::move(fix);
    }
  }
  return {200, "application/json",
          doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n"};
}

Result<void> Site::Warm() {
  if (matcher_) return {};
  std::vector<std::string> warnings;
  Result<match::Matcher> m = match::Matcher::Open(&catalog_, &warnings);
  if (!m) return tl::unexpected(m.error());
  matcher_ = std::make_unique<match::Matcher>(std::move(*m));
  return {};
}

Result<catalog::ErrorRecord> Site::GetAt(std::string_view id, const std::string& version) {
  catalog::VersionScope scope(catalog_, version);
  Result<catalog::ErrorRecord> e = catalog_.Get(id);
  // A version the library was never indexed at is no page.
  if (e && !version.empty() &&
      std::none_of(e->versions.begin(), e->versions.end(),
                   [&](const catalog::VersionPresence& v) { return v.rev == version; })) {
    return Fail(ErrorCode::kNotFound, "the library of this error has no indexed version '" +
                                          std::string(TruncateUtf8(version, 64)) + "'");
  }
  return e;
}

Page Site::ErrorHtml(std::string_view id, const std::string& version) {
  if (!CanonicalErrorId(id))
    return Html(404, NotFoundPage("An error id is 16 hexadecimal digits.", links_));
  Result<catalog::ErrorRecord> e = GetAt(id, version);
  if (!e) {
    if (e.error().code == ErrorCode::kNotFound) {
      return Html(404, NotFoundPage(version.empty() ? "No error in this catalog has that id."
                                                    : e.error().message + ".",
                                    links_));
    }
    return Html(500, NotFoundPage(e.error().message, links_));
  }
  return Html(200, ErrorPage(*e, links_));
}

Page Site::ErrorJson(std::string_view id, const std::string& version) {
  if (!CanonicalErrorId(id)) return JsonError(400, "an error id is 16 hexadecimal digits");
  Result<catalog::ErrorRecord> e = GetAt(id, version);
  if (!e) {
    return JsonError(e.error().code == ErrorCode::kNotFound ? 404 : 500, e.error().message);
  }
  return Json(200, ErrorApiJson(*e, links_));
}

Page Site::Home() {
  Result<catalog::Stats> stats = catalog_.GetStats();
  if (!stats) return Html(500, NotFoundPage(stats.error().message, links_));
  Result<std::vector<FamilyInfo>> families = catalog_.Families(0);
  if (!families) return Html(500, NotFoundPage(families.error().message, links_));
  return Html(200, HomePage(stats->per_library, *families, links_));
}

Page Site::Library(std::string_view name, const std::string& version, const Query& query,
                   bool api) {
  auto fail = [&](int status, const std::string& why) {
    return api ? JsonError(status, why) : Html(status, NotFoundPage(why, links_));
  };
  if (!catalog::IsLibraryName(name)) return fail(404, "No such library.");
  Result<catalog::Stats> stats = catalog_.GetStats();
  if (!stats) return fail(500, stats.error().message);
  if (std::none_of(stats->per_library.begin(), stats->per_library.end(),
                   [&](const catalog::LibraryStats& l) { return l.name == name; })) {
    return fail(404, "No such library in this catalog.");
  }
  std::vector<catalog::SnapshotStats> versions;
  for (const catalog::SnapshotStats& s : stats->per_snapshot) {
    if (s.library == name) versions.push_back(s);
  }
  bool known = version.empty() || std::any_of(versions.begin(), versions.end(),
                                               [&](const auto& v) { return v.rev == version; });
  if (!known) return fail(404, "This library has no indexed version of that name.");
  Result<std::vector<FamilyInfo>> families = catalog_.Families(0);
  if (!families) return fail(500, families.error().message);
  Result<ListParams> params = ParseList(query, *families);
  if (!params) return fail(400, params.error().message);
  params->query.library = std::string(name);
  Result<catalog::PagedErrors> found = ReadPage(catalog_, *params, version, api);
  if (!found) return fail(500, found.error().message);
  if (api) return Json(200, PageJson(*found, *params, links_));
  // At a version: the errors it raises; else those the newest version
  // raises, then those only older versions do.
  std::string newest = versions.empty() ? "" : versions.back().rev;
  std::string intro = Counted(found->total, "error");
  if (!params->filters.empty()) intro += " of this kind";
  if (!version.empty()) intro += " raised in " + version;
  if (version.empty() && found->older > 0) {
    intro += " (" + std::to_string(found->older) + " of them only in versions before " + newest + ")";
  }
  std::string title = version.empty() ? std::string(name) : std::string(name) + " " + version;
  Listing listing = MakeListing("/libraries/" + std::string(name), *params, found->total);
  listing.version = version;
  return Html(200, ListPage(title, intro, found->items, links_, listing,
                            VersionsSection(name, version.empty() ? newest : version, versions,
                                            links_)));
}

Page Site::Family(std::string_view slug, const Query& query, bool api) {
  auto fail = [&](int status, const std::string& why) {
    return api ? JsonError(status, why) : Html(status, NotFoundPage(why, links_));
  };
  if (!ValidSlug(slug)) return fail(404, "No such family.");
  Result<std::vector<FamilyInfo>> families = catalog_.Families(0);
  if (!families) return fail(500, families.error().message);
  auto f = std::find_if(families->begin(), families->end(),
                        [&](const FamilyInfo& x) { return x.slug == slug; });
  if (f == families->end()) return fail(404, "No such family.");
  Result<ListParams> params = ParseList(query, *families);
  if (!params) return fail(400, params.error().message);
  // The family of the path; a family= filter besides it narrows to nothing
  // unless it names the same one.
  if (!params->query.family.empty() && params->query.family != slug) {
    return fail(400, "the family is the one of the path; family= names another");
  }
  params->query.family = std::string(slug);
  Result<catalog::PagedErrors> found = ReadPage(catalog_, *params, "", api);
  if (!found) return fail(500, found.error().message);
  if (api) return Json(200, PageJson(*found, *params, links_));
  std::string intro = f->description + " " + Counted(f->errors, "error") + " across " +
                      Counted(f->libraries, "library") + ".";
  if (!params->filters.empty()) intro += " " + Counted(found->total, "error") + " of this kind.";
  Listing listing = MakeListing("/families/" + std::string(slug), *params, found->total);
  listing.show_library = true;
  return Html(200, ListPage(f->name, intro, found->items, links_, listing));
}

}  // namespace errdex::web
