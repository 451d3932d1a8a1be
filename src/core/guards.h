// Conditions on the way to a raise (Guard, core/record.h) in words: for the
// front ends, which write each site's trigger, and for analysis and prose.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/record.h"

namespace errdex {

// How many conditions a trigger spells out before it folds the rest.
inline constexpr size_t kTriggerConditionsShown = 4;

// The verbs of a trigger sentence, which follow the site's language and
// kind: what happens at the site ("raised when ...", "thrown when ...") and
// what the code of a `try` did when control reaches a handler or gets past
// the statement ("`f()` raised no `KeyError`", "`f()` threw nothing").
struct Voice {
  std::string_view happens = "raised";
  std::string_view tried = "raised";
};

// The voice of a site of `language` ("python", "c", "cpp", "rust") and
// `kind` (SiteKindName) whose statement is `statement`: a C++ `throw` is
// thrown and C++ try blocks throw; a warning is issued; an exception built
// and returned, or a status, is returned; a Rust panic or assertion panics;
// a fatal check of C or C++ aborts; anything else is raised.
Voice VoiceOf(std::string_view language, std::string_view kind, std::string_view statement);
Voice VoiceOf(const Site& site);

// The guards as one sentence: "raised when `x is not None` and `mode` is not
// an instance of `Buffered`"; empty without guards. Each condition is the
// one that holds on the path: exactly, where the front end wrote it
// (Guard::when); otherwise only negations that hold for every operand are
// spelled out and the rest is "not `code`". More than `shown` conditions fold
// into the innermost one, which decides, and a count of the others.
std::string TriggerSentence(const std::vector<Guard>& guards,
                            size_t shown = kTriggerConditionsShown, const Voice& voice = {});

// What a site made at a call into a helper that raises under a condition
// of its own adds to its trigger sentence (", and only when a condition
// inside `h` also holds"): the caller's guards lead to the call, not to
// the raise, and say nothing of the values that avoid it.
inline constexpr std::string_view kHelperConditionLead = ", and only when a condition inside `";
inline bool HelperDecides(std::string_view trigger) {
  return trigger.find(kHelperConditionLead) != std::string_view::npos;
}

// `trigger`, a sentence TriggerSentence wrote for `guards` in the default
// voice (or one that begins "raised whenever", as a call into a helper's
// does, or "never raised"), said in `voice`; any other sentence as it is.
// A sentence already in `voice` stays as it is.
std::string Revoiced(const std::string& trigger, const std::vector<Guard>& guards,
                     const Voice& voice);

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
