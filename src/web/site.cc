#include "web/site.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "catalog/json.h"
#include "core/error_id.h"
#include "core/text.h"
#include "match/report.h"

namespace errdex::web {
namespace {

using nlohmann::json;

constexpr int64_t kMaxListed = 2000;
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

}  // namespace

Result<std::unique_ptr<Site>> Site::Open(const std::string& db, Links links) {
  Result<catalog::Catalog> cat = catalog::Catalog::Open(db, catalog::OpenMode::kReadOnly);
  if (!cat) return tl::unexpected(cat.error());
  // A site lives for one state of the catalog file (the server opens another
  // when it changes): the date holds for every page it makes.
  Result<std::string> analysed = cat->LastIndexedAt();
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
  if (path == "/" || path == "/index.html") return Home();
  if (const Page* asset = Asset(path)) return *asset;
  std::string version = First(query, "version");
  if (version.size() > kMaxVersionName) {
    return StartsWith(path, "/api/") ? JsonError(400, "version is too long")
                                     : Html(400, NotFoundPage("That is no version name.", links_));
  }
  if (StartsWith(path, "/errors/")) return ErrorHtml(path.substr(8), version);
  if (StartsWith(path, "/api/errors/")) return ErrorJson(path.substr(12), version);
  if (StartsWith(path, "/libraries/")) return Library(path.substr(11), version);
  if (StartsWith(path, "/families/")) return Family(path.substr(10));
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
        versions.push_back(
            {{"rev", s.rev}, {"commit", s.commit}, {"date", s.date}, {"sites", s.sites}});
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
  // Where each match's page is, for the search box.
  for (auto& m : doc["matches"]) m["page"] = links_.Error(m["id"].get<std::string>());
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

Page Site::Library(std::string_view name, const std::string& version) {
  if (!catalog::IsLibraryName(name)) return Html(404, NotFoundPage("No such library.", links_));
  Result<catalog::Stats> stats = catalog_.GetStats();
  if (!stats) return Html(500, NotFoundPage(stats.error().message, links_));
  std::vector<catalog::SnapshotStats> versions;
  for (const catalog::SnapshotStats& s : stats->per_snapshot) {
    if (s.library == name) versions.push_back(s);
  }
  bool known = version.empty() || std::any_of(versions.begin(), versions.end(),
                                               [&](const auto& v) { return v.rev == version; });
  if (!known)
    return Html(404, NotFoundPage("This library has no indexed version of that name.", links_));
  catalog::ListQuery q;
  q.library = std::string(name);
  Result<std::vector<catalog::ErrorRecord>> errors = [&] {
    catalog::VersionScope scope(catalog_, version);
    return catalog_.List(q);
  }();
  if (!errors) return Html(500, NotFoundPage(errors.error().message, links_));
  if (errors->empty()) return Html(404, NotFoundPage("No such library in this catalog.", links_));
  // At a version: the errors it raises; else those the newest version raises,
  // then those only older versions do.
  std::string newest = versions.empty() ? "" : versions.back().rev;
  std::vector<catalog::ErrorRecord> shown;
  size_t older = 0;
  for (catalog::ErrorRecord& e : *errors) {
    if (!version.empty() && e.sites.empty()) continue;
    if (version.empty() && !newest.empty() && e.version != newest) ++older;
    shown.push_back(std::move(e));
  }
  std::stable_partition(shown.begin(), shown.end(),
                        [&](const auto& e) { return newest.empty() || e.version == newest; });
  size_t total = shown.size();
  if (shown.size() > static_cast<size_t>(kMaxListed)) shown.resize(kMaxListed);
  std::string intro = Counted(static_cast<int64_t>(total), "error");
  if (!version.empty()) intro += " raised in " + version;
  if (version.empty() && older > 0) {
    intro += " (" + std::to_string(older) + " of them only in versions before " + newest + ")";
  }
  std::string title = version.empty() ? std::string(name) : std::string(name) + " " + version;
  return Html(200, ListPage(title, intro, shown, links_,
                            VersionsSection(name, version.empty() ? newest : version, versions,
                                            links_)));
}

Page Site::Family(std::string_view slug) {
  if (!ValidSlug(slug)) return Html(404, NotFoundPage("No such family.", links_));
  Result<std::vector<FamilyInfo>> families = catalog_.Families(0);
  if (!families) return Html(500, NotFoundPage(families.error().message, links_));
  for (const FamilyInfo& f : *families) {
    if (f.slug != slug) continue;
    Result<std::vector<catalog::ErrorRecord>> errors = catalog_.ListFamily(slug, kMaxListed);
    if (!errors) return Html(500, NotFoundPage(errors.error().message, links_));
    return Html(200, ListPage(f.name,
                              f.description + " " + Counted(f.errors, "error") + " across " +
                                  Counted(f.libraries, "library") + ".",
                              *errors, links_));
  }
  return Html(404, NotFoundPage("No such family.", links_));
}

}  // namespace errdex::web
