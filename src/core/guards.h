// Conditions on the way to a raise (Guard, core/record.h) in words: for the
// front ends, which write each site's trigger, and for analysis and prose.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/record.h"

namespace errdex {

// How many conditions a trigger spells out before it folds the rest.
inline constexpr size_t kTriggerConditionsShown = 4;

// The guards as one sentence: "raised when `x is not None` and `mode` is not
// an instance of `Buffered`"; empty without guards. Each condition is the
// one that holds on the path: exactly, where the front end wrote it
// (Guard::when); otherwise only negations that hold for every operand are
// spelled out and the rest is "not `code`". More than `shown` conditions fold
// into the innermost one, which decides, and a count of the others.
std::string TriggerSentence(const std::vector<Guard>& guards,
                            size_t shown = kTriggerConditionsShown);

// Whether a `never` guard says the statement before it always leaves: the
// raise is dead code.
bool NeverRaised(const std::vector<Guard>& guards);

// A raise that should be unreachable: it follows a match/switch whose cases
// name members of one enum (`TMEMLayout.A`, `Kind::kB`) — the author listed
// every member, so getting past them means a member was added since, or code
// of two versions is mixed.
bool LooksUnreachable(const std::vector<Guard>& guards);

// An assertion's own condition (`assert c`, `CHECK(c)`, `TORCH_CHECK(c, ...)`)
// as the innermost guard: the error happens when it is false (`when`, if
// the front end can write that exactly). Updates the site's trigger sentence.
void AddAssertGuard(Site& site, std::string code, std::string when = "");

}  // namespace errdex
