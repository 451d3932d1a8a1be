// The analysis stage: reads a library's errors from the catalog, derives
// family, labels, valid values, related errors and prose for each, and
// writes them back in one transaction.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "catalog/catalog.h"
#include "core/analysis.h"
#include "core/status.h"

namespace errdex::analyze {

struct AnalyzeSummary {
  int64_t errors = 0;
  int64_t internal = 0;          // labelled internal
  int64_t version_mismatch = 0;  // labelled version-mismatch
  int64_t with_valid_values = 0;
  int64_t with_related = 0;
  int64_t with_fix = 0;
  std::map<std::string, int64_t> by_family;
};

// Analyses every error of `library` (every library when empty).
Result<AnalyzeSummary> AnalyzeCatalog(catalog::Catalog& catalog, std::string_view library);

// The analysis of one error, prose included, without its related errors,
// which need the library's other errors. `bases`: exception class -> its bases.
Analysis AnalyzeError(const catalog::ErrorRecord& e,
                      const std::map<std::string, std::vector<std::string>>& bases);

// The exception and its bases, breadth first, short names, no repeats.
std::vector<std::string> Ancestry(const std::string& exception,
                                  const std::map<std::string, std::vector<std::string>>& bases);

}  // namespace errdex::analyze
