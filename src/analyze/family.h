// The failure families: a taxonomy of about twenty kinds of failure that
// span libraries (an invalid choice, a wrong type, a shape mismatch...), and
// the rules that place an error in one from its exception type, its message
// and the shape of the conditions that lead to it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/analysis.h"
#include "core/record.h"

namespace errdex::analyze {

struct Family {
  std::string_view slug;
  std::string_view name;
  std::string_view description;
};

// Every family, most specific first; "other" last.
const std::vector<Family>& Families();
const Family* FindFamily(std::string_view slug);

// What the rules look at.
struct FamilyFacts {
  // The exception and its bases up to the builtin, short names:
  // {"LoweringException", "Exception"}; a status code's name for a status.
  std::vector<std::string> ancestry;
  std::string kind;     // raise, assert, warning, fatal, status, return
  std::string message;  // the template's literal text (values left out)
  bool internal = false;
  // Raised by a function named for an assertion (`assertEqual`,
  // `assert_called_with`, `assert_allclose`), or for a call into one: a
  // check a caller asked for, not one the library makes of itself.
  bool asserts_for_caller = false;
  std::vector<Guard> guards;  // of every site
  // The test a site's raise sits right under is a failed isinstance (`if
  // not isinstance(x, T):`, or the else of `elif isinstance(x, T):`), even
  // where what the value was converted from leaves no list of types.
  bool own_test_refuses_type = false;
  // An assert whose test reads only what a public entry point takes from
  // its caller (AssertsOnCallersInput, at every site): the caller's value
  // as often as the library's own invariant.
  bool asserts_callers_input = false;
  // The functions the sites raise in, qualified (`Config.__setattr__`).
  std::vector<std::string> functions;
};

// The family and the fact that decided it. Never empty: "other" when no
// rule applies.
FamilyAssignment ClassifyFamily(const FamilyFacts& facts);

}  // namespace errdex::analyze
