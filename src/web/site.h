// The website's routes as a function from request to page, shared by the
// live server and the static export: HTML pages, the JSON API and the
// assets. One Site per thread (it owns a catalog connection and a matcher).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "match/matcher.h"
#include "web/html.h"
#include "web/server.h"

namespace errdex::web {

using Query = std::multimap<std::string, std::string>;

class Site {
 public:
  // Opens `db` read-only.
  static Result<std::unique_ptr<Site>> Open(const std::string& db, Links links);

  // A GET (or HEAD) of `path` (no query string; `query` holds it).
  Page Get(std::string_view path, const Query& query);
  // POST /api/match: `body` is the pasted text, or JSON {"text", "top"?}.
  Page Match(std::string_view body, std::string_view content_type);

  // Opens the matcher now rather than at the first /api/match (a 100k-
  // template catalog takes about 100 ms to load).
  Result<void> Warm();

  catalog::Catalog& catalog() { return catalog_; }

 private:
  Site(catalog::Catalog catalog, Links links)
      : catalog_(std::move(catalog)), links_(std::move(links)) {}
  Page ErrorHtml(std::string_view id, const std::string& version);
  Page ErrorJson(std::string_view id, const std::string& version);
  // Reads the error at `version` (empty: the newest raising it).
  Result<catalog::ErrorRecord> GetAt(std::string_view id, const std::string& version);
  Page Home();
  // A listing as a page of the site, or (`api`) as JSON.
  Page Library(std::string_view name, const std::string& version, const Query& query, bool api);
  Page Family(std::string_view slug, const Query& query, bool api);

  catalog::Catalog catalog_;
  Links links_;
  std::unique_ptr<match::Matcher> matcher_;  // opened on the first match
};

// The JSON of an error as /api/errors/<id> serves it: `show --json` plus the
// page's URL and each site's link to its source at the pinned commit.
nlohmann::json ErrorApiJson(const catalog::ErrorRecord& e, const Links& links);

// The answer of /api/search, and of `errdex search --json`: each error's
// summary (as `list --json` gives it) with its page, best first.
nlohmann::json SearchJson(const std::vector<catalog::ErrorRecord>& found, const Links& links);

// The OpenAPI 3 description of the JSON API.
std::string OpenApiJson();

// The embedded assets (web/static), by path ("/static/style.css"); null if none.
const Page* Asset(std::string_view path);

}  // namespace errdex::web
