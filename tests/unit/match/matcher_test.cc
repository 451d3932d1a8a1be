// The matcher on a catalog of the Python idioms fixture, and a differential
// test against trying every template in turn on the local standard library.
#include "match/matcher.h"

#include <gtest/gtest.h>

#include <re2/re2.h>
#include <sqlite3.h>
#include <fstream>

#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "catalog/catalog.h"
#include "extract/extractor.h"
#include "match/pattern.h"
#include "test_util.h"

namespace errdex::match {
namespace {

using testing::TempDir;

// Indexes `root` as `library` into a catalog at `db`.
void Index(const std::filesystem::path& root, const std::string& library, const std::string& db,
           const std::vector<std::string>& only = {}) {
  source::WalkOptions walk;
  walk.want = [&](std::string_view p) {
    if (!extract::IsSourcePath(p)) return false;
    if (only.empty()) return true;
    for (const std::string& prefix : only) {
      if (p.substr(0, prefix.size()) == prefix) return true;
    }
    return false;
  };
  Result<source::WalkResult> files = source::Walk(root, walk);
  ASSERT_TRUE(files.has_value());
  Extraction x = extract::ExtractFiles(files->files, {});
  Result<catalog::Catalog> cat = catalog::Catalog::Open(db, catalog::OpenMode::kReadWrite);
  ASSERT_TRUE(cat.has_value());
  catalog::SnapshotInfo info;
  info.library = library;
  info.kind = "dir";
  info.root = root.string();
  PrefilterBuilder prefilter;
  ASSERT_TRUE(cat->WriteSnapshot(info, x, &prefilter).has_value());
}

// For each of `libs`, a package of that name holding `file` with `text`,
// indexed as library "test/<name>" into `db`.
void IndexPackages(const TempDir& dir, std::initializer_list<const char*> libs,
                   const std::string& file, const std::string& text, const std::string& db) {
  for (const char* lib : libs) {
    std::filesystem::path root = dir.path() / lib;
    std::filesystem::create_directories(root / lib);
    std::ofstream(root / lib / file) << text;
    Index(root, std::string("test/") + lib, db);
  }
}

// A read-only catalog at `db` and a matcher over it (null on failure).
struct Opened {
  std::unique_ptr<catalog::Catalog> catalog;
  std::unique_ptr<Matcher> matcher;
};
Opened OpenMatcher(const std::string& db) {
  Opened out;
  Result<catalog::Catalog> cat = catalog::Catalog::Open(db, catalog::OpenMode::kReadOnly);
  EXPECT_TRUE(cat.has_value()) << cat.error().message;
  if (!cat) return out;
  out.catalog = std::make_unique<catalog::Catalog>(std::move(*cat));
  Result<Matcher> m = Matcher::Open(out.catalog.get(), nullptr);
  EXPECT_TRUE(m.has_value()) << m.error().message;
  if (m) out.matcher = std::make_unique<Matcher>(std::move(*m));
  return out;
}

// The best match for the last error of `text`, if any.
std::optional<Match> FirstMatch(Matcher& matcher, const std::string& text) {
  Result<std::vector<Match>> m = matcher.Explain(ParseRuntimeText(text).back(), {});
  EXPECT_TRUE(m.has_value());
  return m && !m->empty() ? std::optional<Match>((*m)[0]) : std::nullopt;
}

class MatcherTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    db_ = (dir_->path() / "c.db").string();
    Index(testing::FixtureDir("python/idioms"), "test/idioms", db_);
  }
  static void TearDownTestSuite() { delete dir_; }

  void SetUp() override {
    Result<catalog::Catalog> cat = catalog::Catalog::Open(db_, catalog::OpenMode::kReadOnly);
    ASSERT_TRUE(cat.has_value());
    catalog_ = std::make_unique<catalog::Catalog>(std::move(*cat));
    Result<Matcher> m = Matcher::Open(catalog_.get(), &warnings_);
    ASSERT_TRUE(m.has_value()) << m.error().message;
    matcher_ = std::make_unique<Matcher>(std::move(*m));
  }

  std::vector<Match> Explain(const std::string& text, ExplainOptions options = {}) {
    std::vector<ParsedError> parsed = ParseRuntimeText(text);
    EXPECT_FALSE(parsed.empty());
    Result<std::vector<Match>> m = matcher_->Explain(parsed.back(), options);
    EXPECT_TRUE(m.has_value()) << m.error().message;
    return m ? *m : std::vector<Match>{};
  }

  static TempDir* dir_;
  static std::string db_;
  std::unique_ptr<catalog::Catalog> catalog_;
  std::unique_ptr<Matcher> matcher_;
  std::vector<std::string> warnings_;
};

TempDir* MatcherTest::dir_ = nullptr;
std::string MatcherTest::db_;

TEST_F(MatcherTest, MessageMatchesTemplateAndValuesAreExtracted) {
  EXPECT_TRUE(warnings_.empty());
  std::vector<Match> m = Explain("ValueError: Invalid TMEMLayout: TMEMLayout.FOO");
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0].error.template_text, "Invalid TMEMLayout: {self}");
  EXPECT_FALSE(m[0].fuzzy);
  EXPECT_GE(m[0].score, 0.9);
  ASSERT_EQ(m[0].values.size(), 1u);
  EXPECT_EQ(m[0].values[0], (std::pair<std::string, std::string>{"self", "TMEMLayout.FOO"}));
  ASSERT_FALSE(m[0].error.sites.empty());
  EXPECT_EQ(m[0].error.sites[0].path, "fstrings.py");
  EXPECT_EQ(m[0].error.sites[0].line, 11);
}

TEST_F(MatcherTest, TypedValuesAndMultiplePlaceholders) {
  std::vector<Match> m = Explain(
      "TypeError: dot_general requires contracting dimensions to have the same shape, got (2, 3) "
      "and (4,).");
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0].error.template_text,
            "dot_general requires contracting dimensions to have the same shape, got {lhs} and "
            "{rhs}.");
  EXPECT_EQ(m[0].values,
            (std::vector<std::pair<std::string, std::string>>{{"lhs", "(2, 3)"}, {"rhs", "(4,)"}}));
}

TEST_F(MatcherTest, WrongTypeRanksLowerThanRightType) {
  std::vector<Match> right = Explain("ValueError: Invalid TMEMLayout: X");
  std::vector<Match> wrong = Explain("KeyError: Invalid TMEMLayout: X");
  ASSERT_FALSE(right.empty());
  ASSERT_FALSE(wrong.empty());
  EXPECT_GT(right[0].score, wrong[0].score);
}

TEST_F(MatcherTest, TracebackFramePinsTheSiteEvenWhenTheWordingChanged) {
  std::string tb =
      "Traceback (most recent call last):\n"
      "  File \"/site-packages/idioms/fstrings.py\", line 11, in to_mgpu\n"
      "    raise ValueError(f\"Invalid TMEMLayout: {self}\")\n"
      "ValueError: TMEMLayout value is not valid: FOO\n";
  std::vector<Match> m = Explain(tb);
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0].error.template_text, "Invalid TMEMLayout: {self}");
  EXPECT_EQ(m[0].frame_sites, 1);
  EXPECT_GE(m[0].score, 0.5);
}

TEST_F(MatcherTest, DynamicTemplatesNeverWinAlone) {
  for (const Match& m : Explain("ValueError: some message nobody wrote")) {
    EXPECT_FALSE(m.error.dynamic) << m.error.template_text;
  }
  std::string tb =
      "Traceback (most recent call last):\n"
      "  File \"/x/variables.py\", line 55, in parameter\n"
      "ValueError: some message nobody wrote\n";
  std::vector<Match> pinned = Explain(tb);
  ASSERT_FALSE(pinned.empty());
  EXPECT_TRUE(pinned[0].error.dynamic);
  EXPECT_EQ(pinned[0].error.sites[0].line, 55);
}

TEST_F(MatcherTest, ExceptionWithoutMessage) {
  std::vector<Match> m = Explain("NotImplementedError");
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0].error.exception, "NotImplementedError");
  EXPECT_EQ(m[0].error.template_text, "");
}

TEST_F(MatcherTest, TruncatedMessageMatchesPartly) {
  std::vector<Match> m = Explain(
      "TypeError: dot_general requires contracting dimensions to have the same shape, got (2, 3) "
      "an");
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0].error.template_text,
            "dot_general requires contracting dimensions to have the same shape, got {lhs} and "
            "{rhs}.");
}

TEST_F(MatcherTest, OlderMessageWithoutTheAdviceAddedSinceMatches) {
  std::vector<Match> m =
      Explain("ValueError: Cannot calculate indices from sharding: GSPMDSharding({replicated}).");
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0].error.template_text,
            "Cannot calculate indices from sharding: {sharding}. Please create a device put.");
  EXPECT_FALSE(m[0].fuzzy);
}

TEST_F(MatcherTest, RewrappedTextFallsBackToSimilarWording) {
  std::vector<Match> m =
      Explain("ValueError: Nesting `compute_on` with different compu\nte types is not allowed.");
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0].error.template_text,
            "Nesting `compute_on` with different compute types is not allowed.");
  EXPECT_TRUE(m[0].fuzzy);
  EXPECT_FALSE(m[0].weak());  // the same words, wrapped: an answer
  EXPECT_GT(m[0].score, 0.3);
}

TEST_F(MatcherTest, NothingMatchesUnrelatedText) {
  EXPECT_TRUE(Explain("SyntaxError: completely unrelated words zebra quantum").empty());
}

TEST_F(MatcherTest, LibraryFilter) {
  ExplainOptions other;
  other.library = "someone/else";
  EXPECT_TRUE(Explain("ValueError: Invalid TMEMLayout: X", other).empty());
}

TEST(Matcher, RebuildsAMissingPrefilterWithAWarning) {
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  {
    // Stored without a prefilter, as an errdex before prefilters did (a
    // prefilter deleted behind errdex's back is damage: its hash is kept).
    source::WalkOptions walk;
    walk.want = extract::IsSourcePath;
    Result<source::WalkResult> files = source::Walk(testing::FixtureDir("python/idioms"), walk);
    ASSERT_TRUE(files.has_value());
    Extraction x = extract::ExtractFiles(files->files, {});
    Result<catalog::Catalog> writer = catalog::Catalog::Open(db, catalog::OpenMode::kReadWrite);
    catalog::SnapshotInfo info;
    info.library = "test/idioms";
    info.kind = "dir";
    ASSERT_TRUE(writer->WriteSnapshot(info, x).has_value());
  }
  Result<catalog::Catalog> cat = catalog::Catalog::Open(db, catalog::OpenMode::kReadOnly);
  ASSERT_TRUE(cat.has_value());
  std::vector<std::string> warnings;
  Result<Matcher> m = Matcher::Open(&*cat, &warnings);
  ASSERT_TRUE(m.has_value());
  ASSERT_EQ(warnings.size(), 1u);
  Result<std::vector<Match>> found =
      m->Explain(ParseRuntimeText("ValueError: Invalid TMEMLayout: X")[0], {});
  ASSERT_TRUE(found.has_value());
  ASSERT_FALSE(found->empty());
}

// The same message in two libraries: both match it fully, so both would
// score 1; the one the traceback's last frame stands on must come first.
// A message from before a class appended text to it ("See <url>") lacks
// only pieces too short to be prefilter fragments: it is the start of its
// template, and that counts for more than templates sharing only its first
// sentence, whose first value swallows the rest of the message.
TEST(Matcher, AnOlderWordingBeatsTemplatesThatShareOnlyItsFirstSentence) {
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  std::filesystem::path root = dir.path() / "tracers";
  std::filesystem::create_directories(root / "tracers");
  std::string head = "Abstract tracer value encountered where concrete value is expected: {x}";
  std::ofstream(root / "tracers" / "core.py")
      << "class ConcretizationTypeError(TypeError):\n    pass\n\n"
      << "def size_of(x, origin):\n    raise ConcretizationTypeError(\n        f'" << head
      << "\\nsize argument of lax.iota\\n{origin}')\n\n"
      << "def decimals_of(x, origin):\n    raise ConcretizationTypeError(\n        f'" << head
      << "\\n\\'decimals\\' argument of jnp.round\\n{origin}')\n\n"
      << "def axis_of(x, origin, url):\n    raise ConcretizationTypeError(\n        f'" << head
      << "\\nThe axis argument must be known statically.{origin}\\n\\nSee {url}')\n";
  Index(root, "test/tracers", db);
  Opened opened = OpenMatcher(db);
  ASSERT_TRUE(opened.matcher);
  Matcher* matcher = opened.matcher.get();
  std::string pasted =
      "ConcretizationTypeError: Abstract tracer value encountered where concrete value is "
      "expected: Traced<ShapedArray(float32[2,4,5])>with<BatchTrace(level=1/1)> with\n"
      "  val = Traced<ShapedArray(float32[2,3,4,5])>\n  batch_dim = 1\n"
      "The axis argument must be known statically.\n"
      "This Tracer was created on line /tmp/halley.py:7 (<module>)\n";
  Result<std::vector<Match>> m = matcher->Explain(ParseRuntimeText(pasted).back(), {});
  ASSERT_TRUE(m.has_value()) << m.error().message;
  ASSERT_FALSE(m->empty());
  EXPECT_NE((*m)[0].error.template_text.find("must be known statically"), std::string::npos)
      << (*m)[0].error.template_text;
  EXPECT_FALSE((*m)[0].fuzzy);
  for (size_t i = 1; i < m->size(); ++i) EXPECT_GT((*m)[0].score, (*m)[i].score);
}

// `KeyError("filename %r not found" % name)` prints `"filename 'x' not
// found"`: Python quotes the repr with " when the text holds a '. The
// template shows ' (its values' text is unknown), so no prefilter fragment
// may hold that quote, or the error is never a candidate and a shorter
// template that shares some words wins.
TEST(Matcher, AKeyErrorRequotedByPythonIsFoundByItsMessage) {
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  std::filesystem::path root = dir.path() / "archive";
  std::filesystem::create_directories(root / "archive");
  std::ofstream(root / "archive" / "members.py")
      << "def getmember(members, name):\n"
      << "    if name not in members:\n"
      << "        raise KeyError(\"filename %r not found\" % name)\n"
      << "    return members[name]\n\n"
      << "def find(spec):\n"
      << "    if spec is None:\n"
      << "        raise ValueError(\"not found\")\n";
  Index(root, "test/archive", db);
  Opened opened = OpenMatcher(db);
  ASSERT_TRUE(opened.matcher);
  for (const char* pasted :
       {"KeyError: \"filename 'x.txt' not found\"", "KeyError: 'filename 3 not found'"}) {
    Result<std::vector<Match>> m = opened.matcher->Explain(ParseRuntimeText(pasted).back(), {});
    ASSERT_TRUE(m.has_value()) << m.error().message;
    ASSERT_FALSE(m->empty()) << pasted;
    EXPECT_EQ((*m)[0].error.exception, "KeyError") << pasted;
    EXPECT_NE((*m)[0].error.template_text.find("filename"), std::string::npos) << pasted;
    EXPECT_FALSE((*m)[0].fuzzy) << pasted;
  }
}

// repr() of any value prints something, so a `{x!r}` cannot stand for
// nothing: numpy's index_tricks raises both `unknown special directive`
// and `unknown special directive {item!r}`, and the bare text is the first.
TEST(Matcher, AReprValueIsNeverEmpty) {
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  std::filesystem::path root = dir.path() / "tricks";
  std::filesystem::create_directories(root / "tricks");
  std::ofstream(root / "tricks" / "index.py")
      << "def directive(item, known):\n"
      << "    if item not in known:\n"
      << "        raise ValueError(f\"unknown special directive {item!r}\")\n"
      << "    if not known[item]:\n"
      << "        raise ValueError(\"unknown special directive\")\n";
  Index(root, "test/tricks", db);
  Opened opened = OpenMatcher(db);
  ASSERT_TRUE(opened.matcher);
  for (const char* pasted : {"ValueError: unknown special directive",
                             "ValueError: unknown special directive 'r'"}) {
    Result<std::vector<Match>> m = opened.matcher->Explain(ParseRuntimeText(pasted).back(), {});
    ASSERT_TRUE(m.has_value()) << m.error().message;
    ASSERT_FALSE(m->empty()) << pasted;
    bool bare = std::string(pasted).back() == 'e';
    EXPECT_EQ((*m)[0].error.template_text.find("{"), bare ? std::string::npos : 26u) << pasted;
    EXPECT_FALSE((*m)[0].fuzzy) << pasted;
    if (bare) {
      for (size_t i = 1; i < m->size(); ++i) EXPECT_GT((*m)[0].score, (*m)[i].score) << pasted;
    }
  }
}

// A bare type that two libraries raise without a message: nothing tells
// the errors apart, so neither scores as an answer; a frame on one decides.
TEST(Matcher, ABareTypeManyErrorsRaiseWithoutAMessageIsNoAnswer) {
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  IndexPackages(dir, {"alpha", "beta"}, "core.py",
                "def check(k):\n    if k < 1:\n        raise ValueError\n"
                "    return ValueError('k is ' + str(k))\n",
                db);
  Opened opened = OpenMatcher(db);
  ASSERT_TRUE(opened.matcher);
  Matcher* matcher = opened.matcher.get();
  Result<std::vector<Match>> bare = matcher->Explain(ParseRuntimeText("ValueError").back(), {});
  ASSERT_TRUE(bare.has_value());
  ASSERT_EQ(bare->size(), 2u);
  for (const Match& m : *bare) {
    EXPECT_LE(m.score, 0.3) << m.error.library;
    EXPECT_EQ(m.same_bare, 2);
    EXPECT_FALSE(m.strong);
  }
  std::string traceback = "Traceback (most recent call last):\n"
                          "  File \"/site/beta/core.py\", line 3, in check\nValueError\n";
  Result<std::vector<Match>> framed = matcher->Explain(ParseRuntimeText(traceback).back(), {});
  ASSERT_TRUE(framed.has_value());
  ASSERT_FALSE(framed->empty());
  EXPECT_EQ((*framed)[0].error.library, "test/beta");
  EXPECT_EQ((*framed)[0].same_bare, 0);
  EXPECT_GT((*framed)[0].score, 0.9);
}

// "day is out of range for month" (CPython's C datetime) shares a phrase
// with a heap's "Size {} out of range": the nearest wording, which must not
// pass for the user's error; the same text with one word changed is one.
TEST(Matcher, APhraseInCommonIsTheNearestWordingNotAnAnswer) {
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  IndexPackages(dir, {"heap"}, "core.py",
                "def malloc(size):\n    if size < 0:\n"
                "        raise ValueError('Size {0:n} out of range'.format(size))\n"
                "def grow(n):\n    if n > 9:\n"
                "        raise ValueError('The requested growth of the heap is too large for "
                "this arena')\n",
                db);
  Opened opened = OpenMatcher(db);
  ASSERT_TRUE(opened.matcher);
  auto explain = [&](const std::string& text) {
    Result<std::vector<Match>> m = opened.matcher->Explain(ParseRuntimeText(text).back(), {});
    EXPECT_TRUE(m.has_value());
    return m ? *m : std::vector<Match>{};
  };
  std::vector<Match> phrase = explain("ValueError: day is out of range for month");
  ASSERT_FALSE(phrase.empty());
  EXPECT_TRUE(phrase[0].fuzzy);
  EXPECT_TRUE(phrase[0].weak());
  EXPECT_GT(Similarity("day is out of range for month", "Size  out of range"), 0.45);
  EXPECT_LT(CompareWording("day is out of range for month", "Size  out of range").dice, 0.7);
  std::vector<Match> reworded =
      explain("ValueError: The requested growth of the heap is much too large for this arena");
  ASSERT_FALSE(reworded.empty());
  EXPECT_EQ(reworded[0].error.template_text,
            "The requested growth of the heap is too large for this arena");
  EXPECT_TRUE(reworded[0].fuzzy);
  EXPECT_FALSE(reworded[0].weak());
  // A frame on the raise is evidence enough, whatever the wording.
  std::vector<Match> framed = explain(
      "Traceback (most recent call last):\n  File \"/site/heap/heap/core.py\", line 3, in "
      "malloc\nValueError: day is out of range for month\n");
  ASSERT_FALSE(framed.empty());
  EXPECT_EQ(framed[0].error.template_text, "Size {size:n} out of range");
  EXPECT_FALSE(framed[0].weak());
}

// The traceback ends in a file of one indexed library (mpmath calling C's
// float()); another library's template fits only part of the message, and
// the traceback passes through none of its files: not where it was raised.
TEST(Matcher, APartialFitInALibraryTheTracebackNeverEntersIsWeak) {
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  IndexPackages(dir, {"solvers"}, "core.py",
                "def poly(f_num):\n    if f_num:\n"
                "        raise ValueError('could not convert %s to Poly' % f_num)\n",
                db);
  IndexPackages(dir, {"numbers"}, "parse.py",
                "def to_float(text):\n    if not text:\n"
                "        raise ValueError('empty number')\n    return float(text)\n",
                db);
  Opened opened = OpenMatcher(db);
  ASSERT_TRUE(opened.matcher);
  const std::string message = "ValueError: could not convert string to float: 'abc'";
  auto first = [&](const std::string& text) { return FirstMatch(*opened.matcher, text); };
  std::string parse_py = (dir.path() / "numbers" / "numbers" / "parse.py").string();
  std::optional<Match> framed = first("Traceback (most recent call last):\n  File \"" + parse_py +
                                      "\", line 4, in to_float\n" + message + "\n");
  ASSERT_TRUE(framed);
  EXPECT_EQ(framed->error.library, "test/solvers");
  EXPECT_TRUE(framed->weak());
  // The message alone says nothing of where it was raised.
  std::optional<Match> alone = first(message);
  ASSERT_TRUE(alone);
  EXPECT_EQ(alone->error.library, "test/solvers");
  EXPECT_FALSE(alone->weak());
}

// A template that fits only part of the message, raised as a type the
// printed one has nothing to do with: a phrase in common, shown as the
// nearest wording, never as the answer.
TEST(Matcher, APartOfTheMessageInAnUnrelatedTypeIsTheNearestWording) {
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  IndexPackages(dir, {"keys"}, "keys.py",
                "class KeyFormatError(ValueError):\n"
                "    pass\n"
                "def check(k):\n"
                "    if not isinstance(k, str):\n"
                "        raise ValueError('must be a str')\n"
                "    if not k:\n"
                "        raise KeyFormatError('must be a str')\n",
                db);
  Opened opened = OpenMatcher(db);
  ASSERT_TRUE(opened.matcher);
  auto first = [&](const std::string& text) { return FirstMatch(*opened.matcher, text); };
  std::optional<Match> other = first("TypeError: note must be a str, not 'NoneType'");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->weak_reason, WeakReason::kNearestWording);
  // The printed type, a subclass of it, or no type at all: the part may
  // be the error's own text, with more around it.
  for (const char* text : {"ValueError: note must be a str, not 'NoneType'",
                           "keys.KeyFormatError: note must be a str, not 'NoneType'",
                           "note must be a str, not 'NoneType'"}) {
    std::optional<Match> m = first(text);
    ASSERT_TRUE(m) << text;
    EXPECT_FALSE(m->weak()) << text;
  }
  // The whole message in another type is not a part.
  EXPECT_FALSE(first("TypeError: must be a str")->weak());
}

// CPython's own wording, raised at a library line with no raise on it (a
// `for` over what is not iterable): a raise elsewhere worded only alike is
// no answer, and the reason given is who raised it, not the wording.
TEST(Matcher, TheInterpreterComesBeforeANearWording) {
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  IndexPackages(dir, {"retry"}, "retry.py",
                "class Retrying:\n"
                "    def __iter__(self):\n"
                "        raise TypeError('Retrying object is not iterable')\n"
                "def each(items):\n"
                "    for item in items:\n"
                "        yield item\n",
                db);
  Opened opened = OpenMatcher(db);
  ASSERT_TRUE(opened.matcher);
  std::string retry_py = (dir.path() / "retry" / "retry" / "retry.py").string();
  std::string text =
      "Traceback (most recent call last):\n"
      "  File \"/home/me/app.py\", line 4, in load\n    list(each(1))\n"
      "  File \"" +
      retry_py +
      "\", line 5, in each\n    for item in items:\n"
      "TypeError: 'int' object is not iterable\n";
  std::optional<Match> m = FirstMatch(*opened.matcher, text);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->fuzzy);
  EXPECT_EQ(m->weak_reason, WeakReason::kInterpreter);
  // Not CPython's wording: the nearest raise is only near.
  std::string other =
      "Traceback (most recent call last):\n"
      "  File \"/home/me/app.py\", line 4, in load\n    list(each(1))\n"
      "TypeError: the Retry object is not iterable here\n";
  std::optional<Match> n = FirstMatch(*opened.matcher, other);
  if (n) {
    EXPECT_NE(n->weak_reason, WeakReason::kInterpreter);
  }
}

// A library's __getattr__ copies CPython's wording. A whole traceback that
// ends in the user's own code and never enters the library's file says
// Python itself raised it there: the library's raise is no answer.
TEST(Matcher, ACopyOfThePythonWordingTheTracebackNeverEntersIsWeak) {
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  IndexPackages(dir, {"client"}, "client.py",
                "class Client:\n"
                "    def __getattr__(self, item):\n"
                "        raise AttributeError(\n"
                "            f\"'{self.__class__.__name__}' object has no attribute '{item}'\")\n"
                "    def check(self, name):\n"
                "        if not name:\n"
                "            raise ValueError('name is required here')\n",
                db);
  Opened opened = OpenMatcher(db);
  ASSERT_TRUE(opened.matcher);
  auto first = [&](const std::string& text) { return FirstMatch(*opened.matcher, text); };
  const std::string header = "Traceback (most recent call last):\n";
  const std::string user =
      "  File \"/home/me/app.py\", line 4, in load\n    return data.get('x')\n";
  const std::string message = "AttributeError: 'NoneType' object has no attribute 'get'\n";

  std::optional<Match> in_user_code = first(header + user + message);
  ASSERT_TRUE(in_user_code);
  EXPECT_EQ(in_user_code->error.library, "test/client");
  EXPECT_TRUE(in_user_code->weak());
  EXPECT_EQ(in_user_code->weak_reason, WeakReason::kInterpreter);

  // Raised in the library: its file is the last frame.
  std::string client_py = (dir.path() / "client" / "client" / "client.py").string();
  std::optional<Match> in_library =
      first(header + user + "  File \"" + client_py + "\", line 3, in __getattr__\n" + message);
  ASSERT_TRUE(in_library);
  EXPECT_FALSE(in_library->weak());
  // The library's file anywhere in the traceback: it may have raised it.
  EXPECT_FALSE(
      first(header + "  File \"" + client_py + "\", line 9, in other\n" + user + message)->weak());
  // The message alone says nothing of where it was raised.
  EXPECT_FALSE(first(message)->weak());
  // A library that cuts its own frames out says so: the last frame printed
  // need not be where it was raised.
  EXPECT_FALSE(first("For simplicity, JAX has removed its internal frames from the traceback of "
                     "the following exception.\n\n" +
                     header + user + message)
                   ->weak());
  // The library's own words are no interpreter's: it raised them, its
  // frames cut or not.
  std::optional<Match> own = first(header + user + "ValueError: name is required here\n");
  ASSERT_TRUE(own);
  EXPECT_FALSE(own->weak());
}

TEST(Matcher, TheRaiseUnderTheLastFrameBeatsAnEqualMatchElsewhere) {
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  IndexPackages(dir, {"graphs", "numbers"}, "checks.py",
                "def check(k):\n    if k < 1:\n        raise ValueError('k cannot be less than 1')\n",
                db);
  Opened opened = OpenMatcher(db);
  ASSERT_TRUE(opened.matcher);
  Matcher* matcher = opened.matcher.get();
  for (const char* lib : {"graphs", "numbers"}) {
    std::string traceback = std::string("Traceback (most recent call last):\n") +
                            "  File \"/site/" + lib + "/checks.py\", line 3, in check\n" +
                            "ValueError: k cannot be less than 1\n";
    Result<std::vector<Match>> m = matcher->Explain(ParseRuntimeText(traceback).back(), {});
    ASSERT_TRUE(m.has_value());
    ASSERT_EQ(m->size(), 2u);
    EXPECT_EQ((*m)[0].error.library, std::string("test/") + lib);
    EXPECT_DOUBLE_EQ((*m)[0].score, 1.0);
    EXPECT_LT((*m)[1].score, 0.9) << "no frame on its raise";
  }
}

TEST(Matcher, AFramesFullPathPicksItsOwnCopyOfAVendoredFile) {
  // pip and setuptools both vendor `packaging`: the same relative path, the
  // same raise. The frame's directories above that path name the copy.
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  for (const char* lib : {"pip", "setuptools", "pkg_resources"}) {
    std::filesystem::path root = dir.path() / "site-packages" / lib;
    std::filesystem::create_directories(root / "_vendor" / "packaging");
    std::ofstream(root / "_vendor" / "packaging" / "specifiers.py")
        << "class InvalidSpecifier(ValueError):\n    pass\n\n"
        << "def parse(spec):\n    raise InvalidSpecifier(f\"Invalid specifier: '{spec}'\")\n";
    Index(root, std::string("pypi/") + lib, db);
  }
  Opened opened = OpenMatcher(db);
  ASSERT_TRUE(opened.matcher);
  Matcher* matcher = opened.matcher.get();
  for (const char* lib : {"pip", "setuptools", "pkg_resources"}) {
    // Indexed on this machine, and a traceback from another's install.
    for (const std::string& prefix :
         {(dir.path() / "site-packages").string(), std::string("/usr/lib/python3/dist-packages")}) {
      std::string traceback = "Traceback (most recent call last):\n  File \"" + prefix + "/" + lib +
                              "/_vendor/packaging/specifiers.py\", line 5, in parse\n" +
                              "InvalidSpecifier: Invalid specifier: '~=1'\n";
      Result<std::vector<Match>> m = matcher->Explain(ParseRuntimeText(traceback).back(), {});
      ASSERT_TRUE(m.has_value());
      ASSERT_EQ(m->size(), 3u);
      EXPECT_EQ((*m)[0].error.library, std::string("pypi/") + lib) << prefix;
      EXPECT_GT((*m)[0].frame_depth, (*m)[1].frame_depth) << prefix;
    }
  }
}

// Writes `files` (path -> text) under `root` and indexes it as `library`.
void IndexFiles(const std::filesystem::path& root, const std::string& library,
                const std::string& db, const std::map<std::string, std::string>& files) {
  for (const auto& [path, text] : files) {
    std::filesystem::create_directories((root / path).parent_path());
    std::ofstream(root / path) << text;
  }
  Index(root, library, db);
}

std::vector<Match> ExplainIn(const std::string& db, const std::string& text) {
  Result<catalog::Catalog> cat = catalog::Catalog::Open(db, catalog::OpenMode::kReadOnly);
  EXPECT_TRUE(cat.has_value());
  if (!cat) return {};
  Result<Matcher> matcher = Matcher::Open(&*cat, nullptr);
  EXPECT_TRUE(matcher.has_value());
  if (!matcher) return {};
  Result<std::vector<Match>> m = matcher->Explain(ParseRuntimeText(text).back(), {});
  EXPECT_TRUE(m.has_value());
  return m ? *m : std::vector<Match>{};
}

constexpr const char* kIdnaCore =
    "class IDNAError(UnicodeError):\n    pass\n\n"
    "def encode(s):\n    if not s:\n        raise IDNAError('Empty domain')\n";

TEST(Matcher, TheQualifiedTypeNamesTheLibraryOfTwoWithTheSameText) {
  // pip vendors idna: the same class, the same raise. What the interpreter
  // prints, idna.core.IDNAError or pip._vendor.idna.core.IDNAError, says which.
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  std::filesystem::path site = dir.path() / "site-packages";
  IndexFiles(site / "idna", "pypi/idna", db, {{"core.py", kIdnaCore}, {"__init__.py", ""}});
  IndexFiles(site / "pip", "pypi/pip", db,
             {{"_vendor/idna/core.py", kIdnaCore}, {"_vendor/idna/__init__.py", ""}});
  for (const auto& [type, library] : std::vector<std::pair<std::string, std::string>>{
           {"idna.core.IDNAError", "pypi/idna"}, {"pip._vendor.idna.core.IDNAError", "pypi/pip"}}) {
    std::vector<Match> m = ExplainIn(db, type + ": Empty domain");
    ASSERT_EQ(m.size(), 2u) << type;
    EXPECT_EQ(m[0].error.library, library) << type;
    EXPECT_GT(m[0].score, m[1].score) << type;
    EXPECT_NE(m[0].evidence.find("module"), std::string::npos) << m[0].evidence;
  }
  // A bare type name says nothing of the module: the original first.
  std::vector<Match> bare = ExplainIn(db, "IDNAError: Empty domain");
  ASSERT_EQ(bare.size(), 2u);
  EXPECT_EQ(bare[0].error.library, "pypi/idna");
  EXPECT_TRUE(bare[1].vendored);
}

TEST(Matcher, AQualifiedTypeFindsItsLibrarysErrorWhenTheMessageIsOnlyAValue) {
  // `raise TemplateNotFound(name)` prints only the name; the printed module
  // says whose class it is. Another library's error whose words fit the
  // message better has an unrelated type.
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  std::filesystem::path site = dir.path() / "site-packages";
  IndexFiles(site / "tmpl", "pypi/tmpl", db,
             {{"__init__.py", ""},
              {"exceptions.py", "class TemplateNotFound(IOError):\n    pass\n"},
              {"loaders.py",
               "from .exceptions import TemplateNotFound\n"
               "def load(name, found):\n    if not found:\n"
               "        raise TemplateNotFound(name)\n"
               "    raise TemplateNotFound(f'{name} is not in the search path')\n"}});
  IndexFiles(site / "other", "pypi/other", db,
             {{"__init__.py", ""},
              {"errors.py", "def f(x):\n    raise KeyError(f'index {x}')\n"}});
  std::vector<Match> m = ExplainIn(db, "tmpl.exceptions.TemplateNotFound: index.html");
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0].error.library, "pypi/tmpl");
  EXPECT_EQ(m[0].error.exception, "TemplateNotFound");
  EXPECT_TRUE(m[0].named);
  // Words the template has and the message lacks: not that error.
  for (const Match& x : m) {
    EXPECT_EQ(x.error.template_text.find("search path"), std::string::npos) << x.evidence;
  }
  // The well-fitting KeyError of another library falls behind.
  for (size_t i = 1; i < m.size(); ++i) EXPECT_LT(m[i].score, m[0].score);
  // An unqualified name is the class of the one library defining a class
  // of that name, and the page says that is all it knows.
  std::vector<Match> bare = ExplainIn(db, "TemplateNotFound: index.html");
  ASSERT_FALSE(bare.empty());
  EXPECT_TRUE(bare[0].named);
  EXPECT_EQ(bare[0].error.library, "pypi/tmpl");
  EXPECT_NE(bare[0].evidence.find("only this library defines a class of the printed name"),
            std::string::npos)
      << bare[0].evidence;
  // A module no library defines the class in adds nothing.
  for (const Match& x : ExplainIn(db, "elsewhere.TemplateNotFound: index.html")) {
    EXPECT_FALSE(x.named);
  }
  // With two libraries defining a class of that name, it says nothing of either.
  IndexFiles(
      site / "pages", "pypi/pages", db,
      {{"__init__.py", ""}, {"errors.py", "class TemplateNotFound(LookupError):\n    pass\n"}});
  for (const Match& x : ExplainIn(db, "TemplateNotFound: index.html")) EXPECT_FALSE(x.named);
}

TEST(Matcher, AWrapperOfThePrintedClassBeatsTheInnerErrorOfARelatedClass) {
  // `raise AddressValueError("%s in %r" % (exc, ip))` around a ValueError
  // whose words are all in the message: a raise of ValueError would have
  // printed ValueError, so the printed class's own error comes first.
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  std::filesystem::path site = dir.path() / "site-packages";
  IndexFiles(site / "addr", "pypi/addr", db,
             {{"__init__.py",
               "class AddressValueError(ValueError):\n    pass\n"
               "def _octet(s):\n"
               "    raise ValueError('Leading zeros are not permitted in %r' % s)\n"
               "def parse(ip):\n"
               "    try:\n        _octet(ip)\n"
               "    except ValueError as exc:\n"
               "        raise AddressValueError('%s in %r' % (exc, ip)) from None\n"}});
  std::vector<Match> m =
      ExplainIn(db, "addr.AddressValueError: Leading zeros are not permitted in '01' in '01.2'");
  ASSERT_GE(m.size(), 2u);
  EXPECT_EQ(m[0].error.exception, "AddressValueError");
  EXPECT_EQ(m[1].error.exception, "ValueError");
  // Printed as the base class, the inner error is what was raised.
  std::vector<Match> inner = ExplainIn(db, "ValueError: Leading zeros are not permitted in '01'");
  ASSERT_FALSE(inner.empty());
  EXPECT_EQ(inner[0].error.exception, "ValueError");
}

TEST(Matcher, AClassErrdexCouldNotNameNeitherConfirmsNorContradicts) {
  // `raise error_class(response, name)` with the class looked up at run
  // time: the frame on it decides, against a related class's fitting words.
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  std::filesystem::path site = dir.path() / "site-packages";
  IndexFiles(site / "cloud", "pypi/cloud", db,
             {{"__init__.py", ""},
              {"exceptions.py",
               "class ClientError(Exception):\n"
               "    def __init__(self, response, operation):\n"
               "        super().__init__(f'An error occurred ({response}) when calling the "
               "{operation} operation')\n"
               "class StreamError(ClientError):\n    pass\n"
               "def stream(r, op):\n    raise StreamError(r, op)\n"},
              {"client.py",
               "def call(factory, response, operation):\n"
               "    error_class = factory.from_code(response)\n"
               "    raise error_class(response, operation)\n"}});
  std::string traceback =
      "Traceback (most recent call last):\n"
      "  File \"/site-packages/cloud/client.py\", line 3, in call\n"
      "    raise error_class(response, operation)\n"
      "cloud.exceptions.ClientError: An error occurred (NotFound) when calling the Head "
      "operation\n";
  std::vector<Match> m = ExplainIn(db, traceback);
  ASSERT_GE(m.size(), 2u);
  EXPECT_EQ(m[0].error.exception, "error_class");
  EXPECT_EQ(m[0].frame_level, 3);
  EXPECT_EQ(m[1].error.exception, "StreamError");
}

TEST(Matcher, AWrapperCountsTheWordsOfTheErrorItWraps) {
  // The wrapper's own words are few (" at "); the value it caught is the
  // whole text of another error of the library, so it fits as well as that
  // one, and the printed type decides. `type(exc)(...)` raises the caught
  // class or any subclass of it: the printed subclass agrees.
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  std::filesystem::path site = dir.path() / "site-packages";
  IndexFiles(site / "asn", "pypi/asn", db,
             {{"__init__.py", ""},
              {"error.py",
               "class AsnError(Exception):\n    pass\n"
               "class ConstraintError(AsnError):\n    pass\n"},
              {"constraint.py",
               "from .error import ConstraintError\n"
               "def check(self, value):\n"
               "    raise ConstraintError(f'{self} failed at: {value}')\n"},
              {"base.py",
               "from . import error\n"
               "def verify(self, value):\n"
               "    try:\n        self.check(value)\n"
               "    except error.AsnError as exc:\n"
               "        raise type(exc)('%s at %s' % (exc, self.__class__.__name__))\n"}});
  std::string text =
      "asn.error.ConstraintError: <Range 0, 3> failed at: ConstraintError(5) at Integer";
  std::vector<Match> m = ExplainIn(db, text);
  ASSERT_GE(m.size(), 2u);
  ASSERT_EQ(m[0].error.sites.size(), 1u);
  EXPECT_EQ(m[0].error.sites[0].path, "base.py");
  EXPECT_NE(m[0].evidence.find("wraps"), std::string::npos) << m[0].evidence;
  EXPECT_EQ(m[1].error.sites[0].path, "constraint.py");
  // The inner error alone is still the inner error.
  std::vector<Match> inner = ExplainIn(db, "asn.error.ConstraintError: <Range 0, 3> failed at: 5");
  ASSERT_FALSE(inner.empty());
  EXPECT_EQ(inner[0].error.sites[0].path, "constraint.py");
}

TEST(Matcher, TheLastFrameOnARaiseOfRunTimeTextOutweighsWordsFittingElsewhere) {
  // The raise the traceback ends on builds its text at run time, so no
  // wording could confirm it; another library's words that fit are more
  // likely the text it carries than the error raised.
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  std::filesystem::path site = dir.path() / "site-packages";
  IndexFiles(site / "models", "pypi/models", db,
             {{"__init__.py", ""},
              {"main.py",
               "def parse_raw(data):\n"
               "    msg = describe(data)\n"
               "    raise ValueError(msg)\n"}});
  IndexFiles(site / "decoder", "pypi/decoder", db,
             {{"__init__.py", ""},
              {"scan.py",
               "def scan(s, n, m):\n"
               "    raise ValueError(f'Expecting value: line {n} column {m}')\n"}});
  std::string traceback =
      "Traceback (most recent call last):\n"
      "  File \"/site-packages/models/main.py\", line 3, in parse_raw\n"
      "    raise ValueError(msg)\n"
      "ValueError: Expecting value: line 1 column 1\n";
  std::vector<Match> m = ExplainIn(db, traceback);
  ASSERT_GE(m.size(), 2u);
  EXPECT_EQ(m[0].error.library, "pypi/models");
  EXPECT_EQ(m[0].frame_level, 3);
  EXPECT_EQ(m[1].error.library, "pypi/decoder");
}

TEST(Matcher, AnInstalledFrameStandsOnTheRaiseOfASourceTreeWithASourceRoot) {
  // Indexed from its repository, the package sits below src/; installed,
  // its files sit right below site-packages. The frame is on the raise.
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  IndexFiles(dir.path() / "repo", "pallets/tmpl", db,
             {{"src/tmpl/__init__.py", ""},
              {"src/tmpl/loaders.py",
               "class NotFound(IOError):\n"
               "    pass\n"
               "\n"
               "def get_source(name):\n"
               "    raise NotFound(name)\n"}});
  IndexFiles(dir.path() / "other", "pypi/other", db,
             {{"other/__init__.py", ""},
              {"other/find.py", "def find(name):\n    raise NotFound(f'{name}')\n"}});
  for (const char* type : {"tmpl.loaders.NotFound", "NotFound"}) {
    std::string traceback = std::string(
                                "Traceback (most recent call last):\n"
                                "  File \"/env/lib/python3.11/site-packages/tmpl/loaders.py\", "
                                "line 5, in get_source\n"
                                "    raise NotFound(name)\n") +
                            type + ": page.html\n";
    std::vector<Match> m = ExplainIn(db, traceback);
    ASSERT_GE(m.size(), 1u) << type;
    EXPECT_EQ(m[0].error.library, "pallets/tmpl") << type;
    EXPECT_EQ(m[0].frame_level, 3) << type;
    ASSERT_FALSE(m[0].error.sites.empty());
    EXPECT_EQ(m[0].error.sites[0].path, "src/tmpl/loaders.py");
  }
  // Pasted alone, a name with no Error in it is a type only when the
  // catalog knows a class by that name; then the one library defining it
  // raises it, whatever the message says.
  std::vector<Match> alone = ExplainIn(db, "NotFound: page.html");
  ASSERT_GE(alone.size(), 1u);
  EXPECT_EQ(alone[0].error.library, "pallets/tmpl");
  EXPECT_TRUE(ExplainIn(db, "Found: page.html").empty());
  // A file of the user's own project with the package's path is no
  // installed copy of it: nothing says its tree has a source root.
  for (const Match& x : ExplainIn(db,
                                  "Traceback (most recent call last):\n"
                                  "  File \"/home/u/proj/tmpl/loaders.py\", line 5, in load\n"
                                  "    raise NotFound(name)\n"
                                  "tmpl.loaders.NotFound: page.html\n")) {
    EXPECT_LT(x.frame_level, 2) << x.error.library;
  }
  // A file of the same name in another package is no frame of it.
  std::vector<Match> m =
      ExplainIn(db,
                "Traceback (most recent call last):\n"
                "  File \"/env/lib/python3.11/site-packages/elsewhere/loaders.py\", "
                "line 5, in get_source\n"
                "    raise NotFound(name)\n"
                "NotFound: page.html\n");
  for (const Match& x : m) EXPECT_LT(x.frame_level, 2) << x.error.library;
}

TEST(Matcher, TheFirstLineOfAMessageOfSeveralIsItsTemplateNotASimilarWording) {
  // Pasted as the first line of three; an old wording differs in case only.
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  std::filesystem::path site = dir.path() / "site-packages";
  IndexFiles(site / "web", "pypi/web", db,
             {{"__init__.py", ""},
              {"globals.py",
               "_msg = (\n"
               "    'Working outside of request context.\\n'\n"
               "    '\\n'\n"
               "    'This typically means that you attempted to use functionality that needed\\n'\n"
               "    'an active HTTP request.'\n"
               ")\n"
               "\n"
               "def lookup(top):\n"
               "    if top is None:\n"
               "        raise RuntimeError(_msg)\n"}});
  IndexFiles(site / "old", "pypi/old", db,
             {{"__init__.py", ""},
              {"globals.py",
               "def lookup(top):\n"
               "    if top is None:\n"
               "        raise RuntimeError('working outside of request context')\n"}});
  std::vector<Match> m = ExplainIn(db, "RuntimeError: Working outside of request context.");
  ASSERT_GE(m.size(), 1u);
  EXPECT_EQ(m[0].error.library, "pypi/web");
  EXPECT_TRUE(m[0].strong);
  // A cut inside a line is no line's end: it is not the template's text.
  m = ExplainIn(db, "RuntimeError: Working outside of request");
  for (const Match& x : m) {
    EXPECT_FALSE(x.strong && x.error.library == "pypi/web") << x.evidence;
  }
}

TEST(Matcher, TheFirstLinesOfATemplateOutrankAValueThatSwallowsThem) {
  // numpy 1.24's removed aliases: a table's text of several lines, pasted
  // without its last line or with Python's suggestion after it, and the
  // module's generic text, whose repr value can swallow the rest.
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  IndexFiles(
      dir.path() / "site-packages" / "num", "pypi/num", db,
      {{"__init__.py",
        "_msg = (\n"
        "    \"module 'num' has no attribute '{n}'.\\n\"\n"
        "    \"`num.{n}` was a deprecated alias for the builtin `{n}`. {extra}\\n\"\n"
        "    \"The aliases was originally deprecated in release 1.20; see the notes at:\\n\"\n"
        "    \"    https://example.org/notes.html#deprecations\")\n"
        "_info = [('float', 'Use num.float64.'), ('int', 'Use num.int64.')]\n"
        "__former_attrs__ = {n: _msg.format(n=n, extra=extra) for n, extra in _info}\n"
        "\n"
        "def __getattr__(attr):\n"
        "    if attr in __former_attrs__:\n"
        "        raise AttributeError(__former_attrs__[attr])\n"
        "    raise AttributeError('module {!r} has no attribute {!r}'.format(__name__, "
        "attr))\n"}});
  const std::string lines =
      "AttributeError: module 'num' has no attribute 'int'.\n"
      "`num.int` was a deprecated alias for the builtin `int`. Use num.int64.\n"
      "The aliases was originally deprecated in release 1.20; see the notes at:";
  for (const std::string& paste :
       {lines, lines + "\n    https://example.org/notes.html#deprecations. Did you mean: 'inf'?"}) {
    std::vector<Match> m = ExplainIn(db, paste);
    ASSERT_GE(m.size(), 2u) << paste;
    EXPECT_NE(m[0].error.message.Display().find("deprecated alias"), std::string::npos) << paste;
    EXPECT_TRUE(m[0].strong) << paste;
  }
  // The generic text, with and without a suggestion, is still the generic one.
  for (const char* paste : {"AttributeError: module 'num' has no attribute 'foo'",
                            "AttributeError: module 'num' has no attribute 'foo'. Did you mean: "
                            "'float'?"}) {
    std::vector<Match> m = ExplainIn(db, paste);
    ASSERT_GE(m.size(), 1u) << paste;
    EXPECT_EQ(m[0].error.message.Display().find("deprecated alias"), std::string::npos) << paste;
  }
}

TEST(Matcher, AClassOfThePrintedNameFromAnotherModuleFallsBehindThePrintedOne) {
  // requests re-raises json's JSONDecodeError under its own class of that
  // name, with json's text: the printed module says whose.
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  std::filesystem::path site = dir.path() / "site-packages";
  IndexFiles(site / "jsonlib", "pypi/jsonlib", db,
             {{"__init__.py", ""},
              {"decoder.py", "class DecodeError(ValueError):\n    pass\n"
                             "def decode(s):\n    raise DecodeError(f'Expecting value: line {s}')\n"}});
  IndexFiles(site / "http", "pypi/http", db,
             {{"__init__.py", ""},
              {"exceptions.py", "class DecodeError(ValueError):\n    pass\n"},
              {"models.py", "from .exceptions import DecodeError as HttpDecodeError\n"
                            "def json(s):\n    try:\n        return 1\n"
                            "    except ValueError as e:\n        raise HttpDecodeError(*e.args)\n"}});
  std::vector<Match> m = ExplainIn(db, "http.exceptions.DecodeError: Expecting value: line 1");
  ASSERT_GE(m.size(), 2u);
  EXPECT_EQ(m[0].error.library, "pypi/http");
  std::vector<Match> inner = ExplainIn(db, "jsonlib.decoder.DecodeError: Expecting value: line 1");
  ASSERT_FALSE(inner.empty());
  EXPECT_EQ(inner[0].error.library, "pypi/jsonlib");
}

TEST(Matcher, AFrameInAnotherPackagesFileOfTheSameNameIsNotOnTheRaise) {
  // A package indexed at its own directory lists `__init__.py` and
  // `core.py`; a frame in another package's file of that name ends with
  // that path too, on the line of its raise.
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  std::filesystem::path site = dir.path() / "site-packages";
  for (const std::string file : {"__init__.py", "core.py"}) {
    std::string text = "no len() for " + file;
    IndexFiles(site / "docutils", "pypi/docutils", db,
               {{file, "def f(label):\n    raise TypeError('" + text + "')\n"}});
    auto in = [&](const std::string& package) {
      return ExplainIn(db,
                       "Traceback (most recent call last):\n  File \"/env/lib/python3.11/"
                       "site-packages/" +
                           package + "/" + file + "\", line 2, in f\n" + "TypeError: " + text +
                           "\n");
    };
    std::vector<Match> own = in("docutils");
    ASSERT_EQ(own.size(), 1u) << file;
    EXPECT_EQ(own[0].frame_level, 3) << file;
    std::vector<Match> other = in("idna");
    ASSERT_EQ(other.size(), 1u) << file;
    EXPECT_EQ(other[0].frame_level, 0) << file;
  }
  // A module of its own right below site-packages is its path.
  IndexFiles(site, "pypi/six", db, {{"six.py", "def g():\n    raise TypeError('six says no')\n"}});
  std::string six =
      "Traceback (most recent call last):\n"
      "  File \"/env/lib/python3.11/site-packages/six.py\", line 2, in g\n"
      "TypeError: six says no\n";
  std::vector<Match> m = ExplainIn(db, six);
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0].error.library, "pypi/six");
  EXPECT_EQ(m[0].frame_level, 3);
}

TEST(Matcher, OnEqualEvidenceTheOriginalComesBeforeItsVendoredCopies) {
  // A builtin type names no module: only where the copies live decides.
  // (By name, pypi/pip and pypi/pkg_resources would sort first.)
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  std::filesystem::path site = dir.path() / "site-packages";
  const std::string core =
      "def set_parse_action(fn):\n    if not callable(fn):\n"
      "        raise TypeError('parse actions must be callable')\n";
  IndexFiles(site / "pip", "pypi/pip", db, {{"_vendor/pyparsing/core.py", core}});
  IndexFiles(site / "pkg_resources", "pypi/pkg_resources", db,
             {{"_vendor/pyparsing/core.py", core}});
  IndexFiles(site / "pyparsing", "pypi/pyparsing", db, {{"core.py", core}});
  std::vector<Match> m = ExplainIn(db, "TypeError: parse actions must be callable");
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].error.library, "pypi/pyparsing");
  EXPECT_FALSE(m[0].vendored);
  EXPECT_TRUE(m[1].vendored);
  EXPECT_DOUBLE_EQ(m[0].score, m[1].score) << "a tie, broken by evidence";
  // The standard library before a package that copies its text.
  const std::string zip = "def check(f):\n    raise ValueError('File is not a zip file')\n";
  IndexFiles(dir.path() / "lib" / "python3.11", "python/cpython", db, {{"zipfile.py", zip}});
  IndexFiles(site / "backport", "pypi/backport", db, {{"zipfile.py", zip}});
  m = ExplainIn(db, "ValueError: File is not a zip file");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].error.library, "python/cpython");
}

TEST(Matcher, CodeAnotherModuleReplacesComesAfterCodeThatRuns) {
  // datetime.py's Python tzinfo, rebound by `from _datetime import *`,
  // words an error a package also raises; CPython never runs the former.
  // Without the import the standard library would come first (above).
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  const std::string tz =
      "class tzinfo:\n    def fromutc(self, dt):\n"
      "        raise TypeError('fromutc() requires a datetime argument')\n";
  IndexFiles(dir.path() / "lib" / "python3.11", "python/cpython", db,
             {{"datetime.py", tz + "\ntry:\n    from _datetime import *\nexcept ImportError:\n"
                                   "    pass\n"}});
  IndexFiles(dir.path() / "site-packages" / "dateutil", "pypi/dateutil", db,
             {{"tz/_common.py", tz}});
  std::vector<Match> m = ExplainIn(db, "TypeError: fromutc() requires a datetime argument");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].error.library, "pypi/dateutil");
  EXPECT_FALSE(m[0].replaced);
  EXPECT_TRUE(m[1].replaced);
  EXPECT_DOUBLE_EQ(m[0].score, m[1].score) << "a tie, broken by evidence";
  // Only the guard sets it apart: the same file with no import comes first.
  IndexFiles(dir.path() / "lib" / "python3.11", "python/cpython", db, {{"datetime.py", tz}});
  m = ExplainIn(db, "TypeError: fromutc() requires a datetime argument");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].error.library, "python/cpython");
  EXPECT_FALSE(m[0].replaced);
}

TEST(Matcher, TemplatesDifferingOnlyInPlaceholderNamesAreOneMatch) {
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  IndexFiles(dir.path() / "graphql", "pypi/graphql", db,
             {{"type/scalars.py",
               "def serialize_int(output_value):\n"
               "    raise GraphQLError(f'Int cannot represent non-integer value: "
               "{inspect(output_value)}')\n\n"
               "def coerce_int(input_value):\n"
               "    raise GraphQLError(f'Int cannot represent non-integer value: "
               "{inspect(input_value)}')\n"}});
  std::vector<Match> m = ExplainIn(
      db, "graphql.error.graphql_error.GraphQLError: Int cannot represent non-integer value: 1.5");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].error.sites.size(), 2u);
  EXPECT_EQ(m[0].error.template_text,
            "Int cannot represent non-integer value: {inspect(output_value)}");  // line 2 first
  EXPECT_EQ(m[0].values.size(), 1u);
}

TEST(Matcher, FitModuleAndVendoredPaths) {
  catalog::ExceptionClassRecord idna{"IDNAError", "pypi/idna", "/sp/idna", "", "core.py", 1};
  catalog::ExceptionClassRecord pip{
      "IDNAError", "pypi/pip", "/sp/pip/", "", "_vendor/idna/core.py", 1};
  catalog::ExceptionClassRecord std_json{
      "JSONDecodeError", "python/cpython", "/usr/lib/python3.11", "", "json/decoder.py", 1};
  catalog::ExceptionClassRecord src_layout{"E", "o/r", "/src/r", "", "src/r/errors.py", 1};
  catalog::ExceptionClassRecord init{
      "TooSlowError", "pypi/trio", "/sp/trio", "", "_timeouts.py", 1};
  EXPECT_EQ(FitModule("idna.core", idna), kModuleRootPackage);
  // cfnlint keeps a copy of jsonschema as cfnlint/jsonschema: its path fits
  // the printed module, less well than jsonschema's own package.
  catalog::ExceptionClassRecord nested{"FormatError", "pypi/cfnlint", "/sp/cfnlint", "",
                                       "jsonschema/exceptions.py", 1};
  catalog::ExceptionClassRecord own{"FormatError", "pypi/jsonschema", "/sp/jsonschema", "",
                                    "exceptions.py", 1};
  EXPECT_LT(FitModule("jsonschema.exceptions", nested), FitModule("jsonschema.exceptions", own));
  EXPECT_EQ(FitModule("idna.core", pip), kModuleVendoredCopy);
  EXPECT_EQ(FitModule("pip._vendor.idna.core", pip), kModuleRootPackage);
  EXPECT_EQ(FitModule("pip._vendor.idna.core", idna), kModuleNone);
  EXPECT_EQ(FitModule("json.decoder", std_json), kModuleExact);
  EXPECT_EQ(FitModule("json", std_json), kModulePackage);
  EXPECT_EQ(FitModule("r.errors", src_layout), kModuleExact);
  EXPECT_EQ(FitModule("trio", init), kModulePackage);
  EXPECT_EQ(FitModule("other.core", idna), kModuleNone);
  EXPECT_TRUE(IsVendoredPath("_vendor/idna/core.py"));
  EXPECT_TRUE(IsVendoredPath("src/third_party/x/y.cc"));
  EXPECT_FALSE(IsVendoredPath("core.py"));
  EXPECT_FALSE(IsVendoredPath("vendor.py"));  // a file, not a directory
  EXPECT_TRUE(IsStandardLibrary("python/cpython"));
  EXPECT_FALSE(IsStandardLibrary("pypi/pip"));
}

TEST(Matcher, FramePathsAddTheSourceRootsOfAPackagesFile) {
  std::vector<std::string> p = FramePaths("/env/site-packages/tmpl/loaders.py");
  for (const char* want : {"tmpl/loaders.py", "src/tmpl/loaders.py", "Lib/tmpl/loaders.py"}) {
    EXPECT_NE(std::find(p.begin(), p.end(), want), p.end()) << want;
  }
  // Only the path below the installation's import root.
  EXPECT_EQ(std::find(p.begin(), p.end(), "src/loaders.py"), p.end());
  std::vector<std::string> stdlib = FramePaths("/usr/lib/python3.11/json/decoder.py");
  EXPECT_NE(std::find(stdlib.begin(), stdlib.end(), "Lib/json/decoder.py"), stdlib.end());
  // A project's own file is no installation's.
  std::vector<std::string> own = FramePaths("/home/u/proj/utils/io.py");
  EXPECT_EQ(std::find(own.begin(), own.end(), "src/utils/io.py"), own.end());
}

TEST(Matcher, PathSuffixesAndSimilarity) {
  EXPECT_EQ(PathSuffixes("/usr/lib/python3.11/json/decoder.py"),
            (std::vector<std::string>{
                "usr/lib/python3.11/json/decoder.py", "lib/python3.11/json/decoder.py",
                "python3.11/json/decoder.py", "json/decoder.py", "decoder.py"}));
  EXPECT_TRUE(PathSuffixes("<stdin>").empty());
  EXPECT_EQ(PathSuffixes("C:\\x\\y.py"), (std::vector<std::string>{"C:/x/y.py", "x/y.py", "y.py"}));
  EXPECT_DOUBLE_EQ(Similarity("same text here", "same text here"), 1.0);
  EXPECT_GT(Similarity("Expecting value: line", "Expecting value: line 1 column 1"), 0.7);
  EXPECT_LT(Similarity("completely different", "nothing alike at all"), 0.3);
}

// The local standard library's templates, instantiated with sample values:
// the prefilter+RE2 path must find exactly the templates that a naive scan of
// every template (with a prefilter fragment) finds.
TEST(MatcherDifferential, AgreesWithTryingEveryTemplate) {
  FILE* pipe =
      popen("python3 -c 'import sysconfig; print(sysconfig.get_paths()[\"stdlib\"])'", "r");
  ASSERT_NE(pipe, nullptr);
  char buf[4096] = {0};
  std::string stdlib = fgets(buf, sizeof buf, pipe) ? buf : "";
  pclose(pipe);
  while (!stdlib.empty() && (stdlib.back() == '\n' || stdlib.back() == '\r')) stdlib.pop_back();
  ASSERT_FALSE(stdlib.empty()) << "python3 is needed (./dev installs it)";
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  Index(stdlib, "python/cpython", db,
        {"json/",    "email/",   "argparse",     "asyncio/",   "http/",   "urllib/",
         "xml/",     "logging/", "configparser", "tarfile",    "zipfile", "csv",
         "datetime", "decimal",  "fractions",    "ipaddress",  "pathlib", "subprocess",
         "typing",   "inspect",  "enum",         "dataclasses"});
  Opened opened = OpenMatcher(db);
  ASSERT_TRUE(opened.matcher);
  Matcher* matcher = opened.matcher.get();

  catalog::ListQuery all;
  Result<std::vector<catalog::ErrorRecord>> errors = opened.catalog->List(all);
  ASSERT_TRUE(errors.has_value());
  RE2::Options options;
  options.set_dot_nl(true);
  options.set_log_errors(false);
  std::vector<std::pair<int64_t, std::unique_ptr<RE2>>> reference;
  for (const catalog::ErrorRecord& e : *errors) {
    if (PrefilterFragments(e.message).empty()) continue;  // matched only through frames
    reference.emplace_back(e.pk, std::make_unique<RE2>(TemplateRegex(e.message), options));
  }
  ASSERT_GT(reference.size(), 500u);

  std::mt19937 rng(12345);
  const char* samples[] = {"abc", "'name'", "a b c", "42", "x.y", "(1, 2)", "<object>", ""};
  auto sample_for = [&](const Piece& p) -> std::string {
    switch (p.kind) {
      case ValueKind::kInt:
        return std::to_string(rng() % 1000);
      case ValueKind::kFloat:
        return "1.5";
      case ValueKind::kHex:
        return "ff";
      case ValueKind::kChar:
        return "q";
      case ValueKind::kPointer:
        return "0x7f00";
      default:
        return samples[rng() % 8];
    }
  };
  std::vector<std::string> messages;
  size_t requoted = 0;
  for (const catalog::ErrorRecord& e : *errors) {
    for (int variant = 0; variant < 4; ++variant) {
      std::string text;
      for (const Piece& p : e.message.pieces()) text += p.is_value ? sample_for(p) : p.text;
      if (variant == 2 && text.size() > 10) text = text.substr(0, text.size() * 2 / 3);
      // A KeyError's repr as Python prints it when the values hold a quote:
      // double quotes outside.
      if (variant == 3) {
        if (!ReprQuoted(e.message)) continue;
        text = "\"" + text.substr(1, text.size() - 2) + "\"";
        ++requoted;
      }
      messages.push_back(text);
    }
  }
  EXPECT_GT(requoted, 3u);
  ASSERT_GT(messages.size(), 2000u);
  size_t compared = 0;
  size_t with_matches = 0;
  for (const std::string& message : messages) {
    std::string normal = NormalizeText(message);
    std::vector<int64_t> expected;
    for (const auto& [pk, re] : reference) {
      if (re->ok() && RE2::FullMatch(normal, *re)) expected.push_back(pk);
    }
    std::sort(expected.begin(), expected.end());
    Result<std::vector<int64_t>> fast = matcher->FullMatches(message);
    ASSERT_TRUE(fast.has_value());
    EXPECT_EQ(*fast, expected) << "message: " << message;
    ++compared;
    if (!expected.empty()) ++with_matches;
  }
  EXPECT_GT(with_matches, compared / 2);
}

}  // namespace
}  // namespace errdex::match
