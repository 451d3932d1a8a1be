// Finds the catalog errors a parsed runtime error can be: prefilter by the
// templates' literal fragments, confirm with RE2 (values extracted), add the
// sites the traceback's frames point at, fall back to similar wording, rank.
#pragma once

#include <re2/re2.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "core/status.h"
#include "match/parse.h"
#include "match/prefilter.h"

namespace errdex::match {

// Why a match is no answer (Match::weak).
enum class WeakReason { kNone, kNearestWording, kOtherLibrary, kInterpreter };

// "nearest-wording", "other-library", "interpreter"; empty for kNone.
std::string_view WeakReasonName(WeakReason reason);

struct Match {
  catalog::ErrorRecord error;  // sites ordered: those a frame points at first
  double score = 0;            // 0..1
  double rank = 0;             // the score before clamping: orders matches that both reach 1
  int frame_level = 0;         // 3 a frame on the raise line, 2 near it, 1 in its file
  // Path components a frame at frame_level shares with the site's indexed
  // root and path: of two copies of one file (pip's and setuptools'
  // vendored `packaging`), the frame's own library shares more.
  int frame_depth = 0;
  bool fuzzy = false;          // found by similar wording, not by its template
  // Why this is no answer, its condition and fixes not to be shown as the
  // user's (kNone: it is one). The nearest wording: found by similar wording
  // that shares little of the message (a phrase such as "out of range") with
  // no frame on its raise. Another library: fitting part of the message in
  // another library than the one whose file the traceback ends in, no frame
  // passing through its files. The interpreter: the message is worded as
  // CPython words what it raises itself (an attribute missing, an operand of
  // the wrong type), and the whole traceback enters none of this error's
  // files (or the error is a fuzzy fit with no frame on or near its
  // raise): the interpreter raised it, this library only copied its
  // wording. The interpreter, when it applies, is the reason given.
  WeakReason weak_reason = WeakReason::kNone;
  bool weak() const { return weak_reason != WeakReason::kNone; }
  std::vector<std::pair<std::string, std::string>> values;  // placeholder name -> text
  int frame_sites = 0;   // sites a traceback frame points at (they come first)
  bool strong = false;   // a full match, most of the message, or a frame on the raise
  // How the printed module of a qualified type (`idna.core.IDNAError`) names
  // a file of this error's library defining that class: what tells the
  // original from a vendored copy of the same text.
  int module_fit = 0;     // a ModuleFit
  bool vendored = false;  // every site lies under a vendored directory (pip/_vendor/...)
  // Every site is Python code that another module's replaces where that
  // one imports (datetime.py's classes, rebound by `from _datetime import *`):
  // its text is not what runs there, so it comes after an equal match.
  bool replaced = false;
  // An error of the printed qualified type in the library whose module the
  // type names (5. in Explain); type_only: its template did not fit, its
  // message has no words of the template's.
  bool named = false;
  bool type_only = false;
  // A bare type pasted (`AssertionError`) that several errors raise without
  // a message, none of whose raises a frame stands on: nothing tells them
  // apart, so none is an answer (its score is capped, its site not shown).
  // The number of such errors of the type in the catalog.
  int64_t same_bare = 0;
  std::string evidence;  // why, in a few words
  // Versions of the library whose sites the traceback's frames stand on
  // (frame level 2 or 3), oldest first; empty when no frame decides.
  std::vector<std::string> frame_versions;
  // For an error the newest version no longer raises: the wordings that
  // replaced it (from the analysis).
  std::vector<Rewording> reworded_to;
};

// How a printed module (`idna.core` of `idna.core.IDNAError`) names the file
// an exception class is defined in, weakest first.
enum ModuleFit : int {
  kModuleNone = 0,
  kModulePackage = 1,       // only the top package agrees (a class re-exported by `pkg`)
  kModuleVendoredCopy = 2,  // the tail of a vendored copy's path (pip/_vendor/idna/core.py)
  kModuleExact = 3,         // the file's path itself (idna/core.py, or src/idna/core.py)
  // The file under an indexed root that is the package itself
  // (site-packages/idna + core.py): stronger than the path alone, which a
  // copy nested in another package has too (cfnlint/jsonschema/exceptions.py).
  kModuleRootPackage = 4,
};
ModuleFit FitModule(std::string_view module, const catalog::ExceptionClassRecord& c);

// True when a component of the directory part of `path` is one projects
// keep copies of other projects under (`_vendor`, `third_party`, ...).
bool IsVendoredPath(std::string_view path);

// True for a library that is a language's standard library (python/cpython):
// packages copy its messages, not the other way round.
bool IsStandardLibrary(std::string_view library);

struct ExplainOptions {
  size_t top = 5;
  std::string library;  // only this library (OWNER/REPO), if set
  std::string version;  // only errors raised in this version (a snapshot's rev), if set
};

// Builds prefilters for the catalog at index time.
class PrefilterBuilder : public catalog::IndexBuilder {
 public:
  int format() const override { return kPrefilterFormat; }
  Result<std::string> Build(const std::vector<catalog::ErrorTemplate>& errors) override;
};

class Matcher {
 public:
  // Loads every library's prefilter from `catalog`, which must outlive the
  // matcher; a prefilter stored in another format (or for another CPU) is
  // rebuilt in memory and a warning says so. Not thread-safe: one per thread.
  static Result<Matcher> Open(catalog::Catalog* catalog, std::vector<std::string>* warnings);

  // The best matches for `error`, best first; empty when nothing matched.
  Result<std::vector<Match>> Explain(const ParsedError& error, const ExplainOptions& options);

  // Every error whose template matches all of `message` (normalized), by
  // prefilter and RE2, unranked and uncapped: what the differential test
  // compares with trying every template in turn.
  Result<std::vector<int64_t>> FullMatches(std::string_view message);

 private:
  // The input with a type the parser could not tell from the text but the
  // catalog knows as a class (`TemplateNotFound: index.html`).
  std::optional<ParsedError> WithKnownType(const ParsedError& input) const;
  struct Library {
    int64_t pk = 0;
    std::string name;
    std::unique_ptr<Prefilter> prefilter;
  };
  struct Candidate;

  explicit Matcher(catalog::Catalog* catalog) : catalog_(catalog) {}
  // The compiled template regex of `e` (or of its every prefix), cached.
  const RE2* Regex(const catalog::ErrorRecord& e, bool truncatable);
  double TypeFactor(const std::string& wanted, const std::string& status,
                    const std::string& have) const;
  bool IsSubclass(const std::string& derived, const std::string& base, int depth) const;
  bool NamesClass(const std::string& have) const;
  // The literal size and template of the error of `outer`'s library (not
  // `outer`, and of another class unless `same_class`) with the most words
  // whose template, put in place of one of `outer`'s values, makes `outer`
  // match all of `message`; {0, ""} when none does.
  Result<std::pair<size_t, std::string>> WrappedError(const catalog::ErrorRecord& outer,
                                                      const std::string& message,
                                                      bool same_class);

  catalog::Catalog* catalog_;
  std::vector<Library> libraries_;
  std::map<std::string, std::vector<std::string>> bases_;
  // Exception classes by short name, where each is defined.
  std::unordered_map<std::string, std::vector<catalog::ExceptionClassRecord>> classes_;
  std::unordered_map<int64_t, std::unique_ptr<RE2>> regexes_;
  std::unordered_map<int64_t, std::unique_ptr<RE2>> truncatable_regexes_;
  // (library pk, exception) -> its errors: the candidates of a qualified type.
  std::map<std::pair<int64_t, std::string>, std::vector<int64_t>> errors_of_type_;
};

// How well `frames` (innermost last) point at `site`. A frame points at a
// site when its path ends with the site's path. `level`: 3 the innermost
// frame on the statement's lines, 2 another frame on them, 1 a frame in the
// same function at other lines (another version), 0 none. `depth`: the path
// components the best such frame shares with the site's indexed root and
// path (a frame of the same install shares the root's too).
struct FrameFit {
  int level = 0;
  int depth = 0;
};
FrameFit FrameEvidence(const std::vector<Frame>& frames, const catalog::SiteRecord& site);

// The catalog path suffixes a runtime frame path can stand for, longest first.
std::vector<std::string> PathSuffixes(std::string_view path);

// PathSuffixes, then, for a file of an installation (below site-packages
// or lib/pythonX.Y), its path there as a source tree would hold it below
// its source root (`src/jinja2/loaders.py`).
std::vector<std::string> FramePaths(std::string_view path);

// Trigram similarity (Dice, 0..1) of two normalized texts.
double Similarity(std::string_view a, std::string_view b);

// Who owns the file the traceback's innermost frame is in, when the catalog
// indexed that file from this machine (Catalog::OwnerOfFile, by full path:
// `utils.py` of a user's project is no library's).
Result<std::optional<catalog::Catalog::FileOwner>> InnermostFrameOwner(catalog::Catalog& catalog,
                                                                       const ParsedError& error);

// The parts Similarity mixes: Dice and overlap of the two texts' trigrams.
struct Wording {
  double dice = 0;
  double overlap = 0;
};
Wording CompareWording(std::string_view a, std::string_view b);

}  // namespace errdex::match
