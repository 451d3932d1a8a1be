// Everything in one pasted text explained at once, and its JSON form: the
// contract of `errdex explain --json` and POST /api/match (doc/explain.md).
#pragma once

#include <nlohmann/json.hpp>

#include <string_view>
#include <vector>

#include "match/matcher.h"
#include "match/parse.h"

namespace errdex::match {

struct Report {
  std::vector<ParsedError> errors;          // in the order the text prints them
  std::vector<std::vector<Match>> matches;  // for each error, best first
  bool any() const;
};

// Parses `text` and matches every error in it with `matcher`.
Result<Report> ExplainAll(Matcher& matcher, std::string_view text, const ExplainOptions& options);

// {"input", "matches", "errors": [{"input", "matches"}...]}: the last error
// printed (the one the program died with) is the top-level answer.
nlohmann::ordered_json ReportJson(const Report& report);

}  // namespace errdex::match
