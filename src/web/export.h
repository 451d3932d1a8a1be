// `errdex export DIR`: the whole site as static files any static host can
// serve from the root of a domain: pages as .html, the API's error records
// as .json, the assets, and a search index the home page's box reads.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace errdex::web {

struct ExportSummary {
  int64_t errors = 0;
  int64_t files = 0;
  int64_t bytes = 0;
};

Result<ExportSummary> ExportSite(const std::string& db, const std::string& dir);

}  // namespace errdex::web
