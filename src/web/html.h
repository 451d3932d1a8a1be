// The website's pages as HTML: an error's page with the sections of the
// seed entries, the home page with search as you type, a library's and a
// family's listing. Every text is escaped: templates, code and messages come
// from third-party source, and a template holding `<script>` must render
// inert.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "core/analysis.h"

namespace errdex::web {

// & < > " ' as entities: safe in element content and in quoted attributes.
std::string Escape(std::string_view text);

// Percent-encoding for a URL's query value.
std::string UrlEncode(std::string_view text);

// Where the pages link: the server's routes, or the files of a static export;
// and what every page's footer says of the catalog they come from.
struct Links {
  bool exported = false;
  // When the catalog was last indexed and analysed (ISO 8601); empty when
  // unknown, and then the footer says nothing of it.
  std::string analysed_at;
  std::string Error(std::string_view id) const;
  // The page of an error at one version; empty in an export (one page per error).
  std::string ErrorAt(std::string_view id, std::string_view version) const;
  std::string LibraryAt(std::string_view name, std::string_view version) const;
  std::string ErrorJson(std::string_view id) const;
  std::string Library(std::string_view name) const;
  std::string Family(std::string_view slug) const;
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
std::string ListPage(std::string_view title, std::string_view intro,
                     const std::vector<catalog::ErrorRecord>& errors, const Links& links,
                     std::string_view extra_html = "");
// A library's versions, oldest first, as a section of its page.
std::string VersionsSection(std::string_view library, std::string_view shown,
                            const std::vector<catalog::SnapshotStats>& versions,
                            const Links& links);
std::string NotFoundPage(std::string_view what, const Links& links);

}  // namespace errdex::web
