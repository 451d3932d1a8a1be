// Trigger sentences in the words of a site's language and kind.
#include "core/guards.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace errdex {
namespace {

Guard If(std::string code) {
  Guard g;
  g.kind = "if";
  g.code = std::move(code);
  return g;
}

Guard NoException(std::string tried, std::string types) {
  Guard g;
  g.kind = "no-exception";
  g.subject = std::move(tried);
  g.code = std::move(types);
  return g;
}

TEST(Voice, FollowsLanguageAndKind) {
  EXPECT_EQ(VoiceOf("python", "raise", "raise ValueError()").happens, "raised");
  EXPECT_EQ(VoiceOf("python", "raise", "").tried, "raised");
  EXPECT_EQ(VoiceOf("python", "warning", "").happens, "issued");
  EXPECT_EQ(VoiceOf("python", "return", "").happens, "returned");
  EXPECT_EQ(VoiceOf("cpp", "raise", "throw std::out_of_range(\"x\");").happens, "thrown");
  EXPECT_EQ(VoiceOf("cpp", "raise", "PyErr_SetString(PyExc_ValueError, \"x\");").happens, "raised");
  EXPECT_EQ(VoiceOf("cpp", "raise", "").tried, "threw");
  EXPECT_EQ(VoiceOf("cpp", "status", "").happens, "returned");
  EXPECT_EQ(VoiceOf("cpp", "fatal", "").happens, "aborts");
  EXPECT_EQ(VoiceOf("c", "raise", "").tried, "raised");
  EXPECT_EQ(VoiceOf("rust", "fatal", "").happens, "panics");
  EXPECT_EQ(VoiceOf("rust", "assert", "").happens, "panics");
  EXPECT_EQ(VoiceOf("rust", "raise", "").happens, "raised");
}

TEST(Voice, TriggerSentenceSaysItInTheVoice) {
  Voice cpp = VoiceOf("cpp", "raise", "throw std::invalid_argument(\"x\");");
  std::vector<Guard> guards{NoException("get(i);", "std::out_of_range"), If("i < 0")};
  EXPECT_EQ(TriggerSentence(guards, kTriggerConditionsShown, cpp),
            "thrown when `get(i);` threw no `std::out_of_range` and `i < 0`");
  // The default is Python's.
  EXPECT_EQ(TriggerSentence(guards),
            "raised when `get(i);` raised no `std::out_of_range` and `i < 0`");
  Guard never;
  never.kind = "never";
  never.line = 3;
  EXPECT_EQ(TriggerSentence({never}, kTriggerConditionsShown, VoiceOf("rust", "fatal", "")),
            "never panics: the statement at line 3 always leaves before it");
}

// bz2's `if mode in ("", "r", "rb"): ... elif mode in ("w", "wb"): ... else:
// raise`: folded to its last test, the sentence lists every value the
// chain accepts, not the last test's alone.
TEST(Trigger, AFoldedSentenceListsTheValuesOfEveryTestOfItsSubject) {
  auto accepts = [](std::string code, std::string when, std::vector<std::string> values) {
    Guard g = If(std::move(code));
    g.kind = "elif";
    g.negated = true;
    g.when = std::move(when);
    g.subject = "mode";
    g.values = std::move(values);
    return g;
  };
  std::vector<Guard> guards{
      If("a"), If("b"), If("c"),
      accepts("mode in ('r', 'rb')", "mode not in ('r', 'rb')", {"'r'", "'rb'"}),
      accepts("mode in ('w', 'wb')", "mode not in ('w', 'wb')", {"'w'", "'wb'"})};
  EXPECT_EQ(TriggerSentence(guards),
            "raised when `mode not in ('w', 'wb')` (valid: `'w'`, `'wb'`, `'r'`, `'rb'`), and 4 "
            "more conditions on the path");
  // Spelled out, each test says its own.
  EXPECT_EQ(TriggerSentence({guards[3], guards[4]}),
            "raised when `mode not in ('r', 'rb')` (valid: `'r'`, `'rb'`) and `mode not in ('w', "
            "'wb')` (valid: `'w'`, `'wb'`)");
}

TEST(Voice, RevoicedKeepsWhatFollowsAndIsIdempotent) {
  std::vector<Guard> guards{NoException("", ""), If("x")};
  Voice cpp = VoiceOf("cpp", "raise", "throw E();");
  std::string helper =
      TriggerSentence(guards) + ", and only when a condition inside `check` also holds";
  std::string said = Revoiced(helper, guards, cpp);
  EXPECT_EQ(said,
            "thrown when the `try` block threw nothing and `x`, and only when a condition inside "
            "`check` also holds");
  EXPECT_EQ(Revoiced(said, guards, cpp), said);
  EXPECT_EQ(Revoiced("raised whenever `f` reaches line 4", {}, cpp),
            "thrown whenever `f` reaches line 4");
  EXPECT_EQ(Revoiced("anything else", guards, cpp), "anything else");
  EXPECT_EQ(Revoiced(helper, guards, Voice{}), helper);
}

}  // namespace
}  // namespace errdex
