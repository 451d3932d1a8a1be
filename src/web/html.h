// The website's pages as HTML: an error's page with the sections of the
// seed entries, the home page with search as you type, a library's and a
// family's listing. Every text is escaped: templates, code and messages come
// from third-party source, and a template holding `<script>` must render
// inert.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "core/analysis.h"

namespace errdex::web {

// & < > " ' as entities: safe in element content and in quoted attributes.
std::string Escape(std::string_view text);

// `text` escaped, with each http:// or https:// URL in it a link to itself
// (its href escaped too). Templates point at their library's documentation
// ("see https://docs.jax.dev/en/latest/errors.html"); no other scheme is
// ever linked. A URL ends before whitespace, quotes, <, >, a placeholder's
// `{` and any byte outside printable ASCII; trailing `.,;:!?` and a `)` or
// `]` that closes nothing inside it are the sentence's, not the URL's. A
// placeholder in the host (`https://{host}/x`) leaves the URL unlinked.
std::string EscapeWithLinks(std::string_view text);

// Percent-encoding for a URL's query value.
std::string UrlEncode(std::string_view text);

// Where the pages link: the server's routes, or the files of a static export;
// and what every page's footer says of the catalog they come from.
struct Links {
  bool exported = false;
  // When the catalog was last indexed, and last analysed (ISO 8601); each
  // empty when unknown, and then the footer leaves it out.
  std::string indexed_at;
  std::string analysed_at;
  std::string Error(std::string_view id) const;
  // The page of an error at one version; empty in an export (one page per error).
  std::string ErrorAt(std::string_view id, std::string_view version) const;
  std::string LibraryAt(std::string_view name, std::string_view version) const;
  std::string ErrorJson(std::string_view id) const;
  std::string Library(std::string_view name) const;
  std::string Family(std::string_view slug) const;
  // Page `n` (from 1) of a listing at `path` ("/libraries/o/n"): in an export,
  // page 1 is the listing's file and page n "<path>/page-<n>.html".
  std::string ListingPage(std::string_view path, int64_t n) const;
};

// The file at a site's pinned commit on its host, with the line anchored
// (GitHub, GitLab); empty when the host or commit is unknown.
std::string SourceUrl(const catalog::SiteRecord& s);
// A new issue on the library's tracker, prefilled, for an error that is the
// library's to fix: labelled internal (or raised at an internal site) or a
// version mismatch. Empty for any other error, which is the caller's to fix,
// and when the tracker is unknown.
std::string ReportIssueUrl(const catalog::ErrorRecord& e);

std::string ErrorPage(const catalog::ErrorRecord& e, const Links& links);
std::string HomePage(const std::vector<catalog::LibraryStats>& libraries,
                     const std::vector<FamilyInfo>& families, const Links& links);
// A page of a listing and how to reach the others: its route, the page
// numbers, the order, and the filters in force, which every link keeps. A
// static export has one order and no filters: page links to files only.
struct Listing {
  std::string path;  // the route of the listing ("/libraries/o/n")
  std::vector<std::pair<std::string, std::string>> filters;  // (name, value), set ones only
  std::string version;  // a library's version asked for, kept in the links
  std::string sort;     // as asked for; empty for the default (sites)
  int64_t page = 1;
  int64_t pages = 1;
  int64_t per = 0;  // rows per page as asked for; 0 for the default
  bool show_library = false;  // rows name their library (a family spans several)
  // The link to page `n` with these filters and this order (`sort`: empty
  // for the default); filters as given.
  std::string Url(const Links& links, int64_t n, std::string_view sort,
                  const std::vector<std::pair<std::string, std::string>>& filters) const;
};

std::string ListPage(std::string_view title, std::string_view intro,
                     const std::vector<catalog::ErrorRecord>& errors, const Links& links,
                     const Listing& listing, std::string_view extra_html = "");
// A library's versions, oldest first, as a section of its page.
std::string VersionsSection(std::string_view library, std::string_view shown,
                            const std::vector<catalog::SnapshotStats>& versions,
                            const Links& links);
std::string NotFoundPage(std::string_view what, const Links& links);

}  // namespace errdex::web
