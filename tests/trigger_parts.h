// What the trigger property tests read a sentence with: "raised when `a`
// and not `b`" has the conditions "`a`" and "not `b`".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace errdex::testing {

// A sentence's conditions: split at " and " outside backticks.
inline std::vector<std::string> TriggerParts(std::string_view conditions) {
  std::vector<std::string> out(1);
  bool code = false;
  for (size_t i = 0; i < conditions.size(); ++i) {
    if (conditions[i] == '`') code = !code;
    if (!code && conditions.substr(i, 5) == " and ") {
      out.emplace_back();
      i += 4;
      continue;
    }
    out.back() += conditions[i];
  }
  return out;
}

}  // namespace errdex::testing
