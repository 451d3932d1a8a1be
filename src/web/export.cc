#include "web/export.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "catalog/json.h"
#include "web/site.h"

namespace errdex::web {
namespace {

namespace fs = std::filesystem;

class Writer {
 public:
  explicit Writer(fs::path root) : root_(std::move(root)) {}
  // `url` is a site path ("/errors/x.html"); it never leaves the root: every
  // name in it comes from the catalog's validated ids, slugs and names.
  Result<void> Write(const std::string& url, const std::string& body) {
    fs::path path = root_ / fs::path(url).relative_path();
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) return Fail(ErrorCode::kIo, path.parent_path().string() + ": " + ec.message());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << body;
    if (!out) return Fail(ErrorCode::kIo, path.string() + ": cannot write");
    ++summary.files;
    summary.bytes += static_cast<int64_t>(body.size());
    return {};
  }
  ExportSummary summary;

 private:
  fs::path root_;
};

}  // namespace

Result<ExportSummary> ExportSite(const std::string& db, const std::string& dir) {
  Links links;
  links.exported = true;
  Result<std::unique_ptr<Site>> site = Site::Open(db, links);
  if (!site) return tl::unexpected(site.error());
  catalog::Catalog& cat = (*site)->catalog();
  Writer w(dir);
  Query none;
  auto page = [&](const std::string& route, const std::string& file) -> Result<void> {
    Page p = (*site)->Get(route, none);
    if (p.status != 200) {
      return Fail(ErrorCode::kInternal, route + " gave HTTP " + std::to_string(p.status));
    }
    return w.Write(file, p.body);
  };
  ERRDEX_TRY(page("/", "/index.html"));
  // What static hosts (GitHub and GitLab Pages, Netlify, Cloudflare Pages;
  // nginx with error_page) serve for a missing file. Its script sends an
  // id in capitals, which the live server reads, to the lowercase file.
  Page missing = (*site)->Get("/404.html", none);
  if (missing.status != 404) {
    return Fail(ErrorCode::kInternal, "/404.html gave HTTP " + std::to_string(missing.status));
  }
  ERRDEX_TRY(w.Write("/404.html", missing.body));
  for (const char* asset : {"/static/style.css", "/static/app.js"}) ERRDEX_TRY(page(asset, asset));
  ERRDEX_TRY(w.Write("/api/openapi.json", OpenApiJson()));

  catalog::ListQuery all;
  Result<std::vector<catalog::ErrorRecord>> errors = cat.List(all);
  if (!errors) return tl::unexpected(errors.error());
  nlohmann::json index = nlohmann::json::array();
  std::set<std::string> libraries;
  for (const catalog::ErrorRecord& e : *errors) {
    libraries.insert(e.library);
    ERRDEX_TRY(page("/errors/" + e.id, links.Error(e.id)));
    ERRDEX_TRY(page("/api/errors/" + e.id, links.ErrorJson(e.id)));
    nlohmann::json row = catalog::ErrorSummaryJson(e);
    row.erase("kind");
    row["page"] = links.Error(e.id);
    if (row["sites"].size() > 1) row["sites"] = nlohmann::json::array({row["sites"][0]});
    index.push_back(std::move(row));
    ++w.summary.errors;
  }
  ERRDEX_TRY(w.Write("/search-index.json",
                     index.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  // Every page of a listing, in the site's default order: a static copy
  // has no query strings, so its pages are files of their own.
  auto listing = [&](const std::string& route, const std::string& api) -> Result<void> {
    Page first = (*site)->Get(api, none);
    nlohmann::json doc = nlohmann::json::parse(first.body, nullptr, false);
    if (first.status != 200 || !doc.is_object() || !doc["pages"].is_number_integer()) {
      return Fail(ErrorCode::kInternal, api + " gave HTTP " + std::to_string(first.status));
    }
    for (int64_t n = 1; n <= doc["pages"].get<int64_t>(); ++n) {
      Page p = (*site)->Get(route, Query{{"page", std::to_string(n)}});
      if (p.status != 200) {
        return Fail(ErrorCode::kInternal, route + " page " + std::to_string(n) + " gave HTTP " +
                                              std::to_string(p.status));
      }
      ERRDEX_TRY(w.Write(links.ListingPage(route, n), p.body));
    }
    return {};
  };
  for (const std::string& l : libraries) {
    ERRDEX_TRY(listing("/libraries/" + l, "/api/libraries/" + l + "/errors"));
  }
  Result<std::vector<FamilyInfo>> families = cat.Families(0);
  if (!families) return tl::unexpected(families.error());
  for (const FamilyInfo& f : *families) {
    ERRDEX_TRY(listing("/families/" + f.slug, "/api/families/" + f.slug + "/errors"));
  }
  for (const char* api : {"/api/libraries", "/api/families"}) {
    ERRDEX_TRY(page(api, std::string(api) + ".json"));
  }
  return w.summary;
}

}  // namespace errdex::web
