// `errdex explain` and the report `errdex run` prints: runtime text in,
// the catalog errors it matches out, as text for people or JSON for tools.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "catalog/catalog.h"
#include "core/status.h"
#include "match/matcher.h"

namespace errdex::cli {

inline constexpr size_t kMaxInputBytes = 10u << 20;

struct ExplainRequest {
  std::string text;
  bool json = false;
  bool color = false;
  match::ExplainOptions options;
};

// Parses `text`, matches every error in it and writes the report. Returns
// whether any error matched.
Result<bool> ExplainText(catalog::Catalog& catalog, const ExplainRequest& request,
                         std::ostream& out, std::ostream& err);

}  // namespace errdex::cli
