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

// Many inputs, one matcher: each line of `in` is a JSON string (the text of
// one paste), each answered by one line of `out`, the JSON report
// ExplainText writes, or `{"error": "..."}` for a line that is not a JSON
// string. For scoring thousands of cases and explaining a log line by line,
// where opening the catalog per input would cost more than matching.
// Returns how many inputs matched.
Result<size_t> ExplainLines(catalog::Catalog& catalog, const match::ExplainOptions& options,
                            std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace errdex::cli
