// JSON forms of catalog records: the shapes (doc/catalog.md, "JSON forms") that
// scripts outside errdex read (`list --json`, `show --json`, /api/errors/<id>).
// Extend them; never rename or remove a field.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "catalog/catalog.h"
#include "core/template.h"

namespace errdex::catalog {

// [{"text": "..."}, {"expr": "x", "name": "x", "kind": "str", "spec": "!r"}]
nlohmann::json PiecesToJson(const Template& t);
Result<Template> PiecesFromJson(const nlohmann::json& j);

// The conditions leading to a site, as stored and shown:
// [{"kind", "code", "negated", "line", "subject"?, "values"?}]; with
// `relative_to`, each line as "dline", its distance from that line (how
// the catalog stores them, so that a site whose lines moved shares them).
nlohmann::json GuardsToJson(const std::vector<Guard>& guards,
                            std::optional<int> relative_to = std::nullopt);
// The inverse; entries that are not objects are skipped.
std::vector<Guard> GuardsFromJson(const nlohmann::json& j);

// Analysis and enrichment as stored and shown. FromJson reads what ToJson
// wrote and tolerates missing fields (an older errdex wrote fewer).
nlohmann::json AnalysisToJson(const Analysis& a);
Analysis AnalysisFromJson(const nlohmann::json& j);
nlohmann::json EnrichmentToJson(const Enrichment& e);
Enrichment EnrichmentFromJson(const nlohmann::json& j);
nlohmann::json FamilyJson(const FamilyInfo& f);

// The `list --json` line: id, library, exception, template, kind, and sites
// as {path, line, function}.
nlohmann::json ErrorSummaryJson(const ErrorRecord& e);

// The versions of the error's library that raise it, and whose sites are shown.
nlohmann::json VersionsJson(const ErrorRecord& e);

// The whole record (`show --json`, GET /api/errors/<id>).
nlohmann::json ErrorJson(const ErrorRecord& e);

// One parameter of Site::signature (and of an entry point's signature).
struct Parameter {
  std::string name;
  std::string kind;  // pos, any, kw, *, **
  std::string doc;   // the first sentence of its docstring entry; "" when none
};
// A site's signature read back ([name, kind] or [name, kind, doc] entries;
// catalogs before docs have only pairs); empty when none or damaged.
std::vector<Parameter> SiteParameters(const SiteRecord& s);

// A site's public entry points (Site::entries), read back; empty when none
// or when the stored JSON is damaged.
struct EntryPoint {
  std::string name;  // "pkg.run"
  std::string kind;  // function, class, method
  std::string path;
  int line = 0;
  bool here = false;  // the site's own function
  std::vector<std::string> via;                             // functions in between
  std::vector<std::pair<std::string, std::string>> args;    // site param → entry param
  std::vector<Parameter> parameters;                        // the entry's signature
};
std::vector<EntryPoint> EntryPoints(const SiteRecord& s);

// What the code at a site does, in the words of its kind and language
// ("Raised at", "Warned at", "Built and returned at"): only a C++ throw is
// "thrown".
std::string_view SiteHeading(const SiteRecord& s);

// "`pkg.run` → `helper` → `_check`", the chain down to the site's function.
std::string EntryChain(const EntryPoint& e, const SiteRecord& s);

nlohmann::json StatsJson(const Stats& s);

}  // namespace errdex::catalog
