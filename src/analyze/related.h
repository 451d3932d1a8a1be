// Related errors: for each error of a library, the few others a reader of
// its page would look at next — raised by the same function, in the same
// file, or of the same family with similar wording (TF-IDF cosine over the
// words of the messages' literal text).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/analysis.h"

namespace errdex::analyze {

struct RelatedInput {
  std::string id;
  std::string exception;
  std::string template_text;
  std::string message;  // literal text only
  std::string family;
  std::vector<std::pair<std::string, std::string>> places;  // (path, function) of each site
};

// For each error, at most `top` others, best first: same function before
// same file before same family, closer wording first within each.
std::vector<std::vector<RelatedError>> FindRelated(const std::vector<RelatedInput>& errors,
                                                   size_t top = 5);

// The words TF-IDF compares: lowercased runs of letters, digits and `_` of
// two characters or more.
std::vector<std::string> Words(std::string_view text);

}  // namespace errdex::analyze
