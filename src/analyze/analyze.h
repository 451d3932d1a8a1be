// The analysis stage: reads a library's errors from the catalog, derives
// family, labels, valid values, related errors and prose for each, and
// writes them back in one transaction.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

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

using Bases = std::map<std::string, std::vector<std::string>>;  // class -> its bases

// Exception classes as a write found them: every library's, and those of
// the library it writes. Read in the write's transaction, before it.
struct ClassesBefore {
  Bases all;
  Bases own;
};
Result<ClassesBefore> ReadClassesBefore(catalog::Catalog& catalog, std::string_view library);

// After `library` was written: analyses again every other library with an
// error whose ancestry (by `before.all`) names a class `library` added,
// removed or rebased, so that what an analysis read of other libraries is
// as the catalog now holds it, whichever order libraries were written in
// (AnalyzeCatalog keys classes by short name across the catalog). Returns
// their names. Libraries the change cannot reach are not read.
Result<std::vector<std::string>> AnalyzeDependents(catalog::Catalog& catalog,
                                                   std::string_view library,
                                                   const ClassesBefore& before);

// The analysis of one error, prose included, without its related errors,
// which need the library's other errors. `bases`: exception class -> its bases.
Analysis AnalyzeError(const catalog::ErrorRecord& e,
                      const std::map<std::string, std::vector<std::string>>& bases);

// The exception and its bases, breadth first, short names, no repeats.
std::vector<std::string> Ancestry(const std::string& exception,
                                  const std::map<std::string, std::vector<std::string>>& bases);

}  // namespace errdex::analyze
