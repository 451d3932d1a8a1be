// The explaining sections of an error's page (What it means, When it
// happens, Solutions, Example fix) written from the facts alone: every
// sentence comes from the type, kind, sites, triggers, valid values, family
// or labels, and says nothing those do not.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyze/family.h"
#include "catalog/catalog.h"
#include "core/analysis.h"

namespace errdex::analyze {

// An `assert` whose own test reads nothing but what a public entry point
// takes from its caller (`assert status[3] == " "` in `start_response`):
// a value passed there can fail it, so the page may not call it the
// library's own invariant. Which parameter, and through which entry.
struct AssertedArgument {
  // Each name the test reads, as the site's function names it and as the
  // entry does.
  std::vector<std::pair<std::string, std::string>> params;
  std::string entry;  // "wsgiref.handlers.BaseHandler.start_response"
};
// Empty unless `s` is a Python assert, every name its test reads as a
// value (not a call, an attribute, a keyword, a builtin or a capitalised
// name) is a public parameter of one entry point that passes it down, and
// there is at least one.
std::optional<AssertedArgument> AssertsOnCallersInput(const catalog::SiteRecord& s,
                                                      const std::vector<Guard>& guards);

// `a` holds the family, labels and valid values already; `site_guards`
// are the parsed conditions of `e`'s sites, in order.
Prose WriteProse(const catalog::ErrorRecord& e, const Analysis& a,
                 const std::vector<std::vector<Guard>>& site_guards);

}  // namespace errdex::analyze
