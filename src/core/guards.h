// Conditions on the way to a raise (Guard, core/record.h) in words: for the
// front ends, which write each site's trigger, and for analysis and prose.
#pragma once

#include <string>
#include <vector>

#include "core/record.h"

namespace errdex {

// The guards as one sentence: "raised when `x is not None` and `mode` is not
// an instance of `Buffered`"; empty without guards. Negations are spelled out
// by flipping a single comparison (`==` / `!=`, `is` / `is not`, `<` / `>=`,
// `in` / `not in`) or dropping a `not`/`!`; anything else "is false".
std::string TriggerSentence(const std::vector<Guard>& guards);

// A raise that should be unreachable: it follows a match/switch whose cases
// name members of one enum (`TMEMLayout.A`, `Kind::kB`) — the author listed
// every member, so getting past them means a member was added since, or code
// of two versions is mixed.
bool LooksUnreachable(const std::vector<Guard>& guards);

// An assertion's own condition (`assert c`, `CHECK(c)`, `TORCH_CHECK(c, ...)`)
// as the innermost guard: the error happens when it is false. Updates the
// site's trigger sentence.
void AddAssertGuard(Site& site, std::string code);

}  // namespace errdex
