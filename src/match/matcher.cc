#include "match/matcher.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "core/native_errors.h"
#include "core/text.h"
#include "match/interpreter.h"
#include "match/keys.h"
#include "match/pattern.h"

namespace errdex::match {
namespace {

constexpr size_t kMaxCompleteCandidates = 256;
constexpr size_t kMaxRegexCandidates = 16;
constexpr size_t kMaxFuzzyCandidates = 24;
// The most a match can score when nothing tells it from other errors of
// the pasted type raised without a message.
constexpr double kAmbiguousBare = 0.3;
// A message cut short still shows a good part of its template's literal text.
constexpr int kMinPartialBytes = 12;
constexpr size_t kMaxFrames = 16;
constexpr size_t kMaxRegexCache = 8192;
constexpr double kMinSimilarity = 0.45;
// Below this share of wording (Dice over trigrams), a fuzzy match is the
// nearest wording, not an answer (Match::weak). Measured 2026-12-03: of
// jax's old wordings whose successor a one-release catalog ranks first by
// similar wording, 85% share more; of 414 messages of compiled code that
// drew a fuzzy first match from the standard library, 10% do.
constexpr double kNearestWordingDice = 0.7;
// What a candidate no frame is near loses when the traceback's last frame
// stands on another candidate's raise, and when that raise's text is built
// at run time.
constexpr double kOffRaise = 0.15;
constexpr double kOffBuiltRaise = 0.25;
// Fewer literal characters than this are weak evidence that a template fits.
constexpr double kWeakLiteral = 16.0;

// Directories projects keep copies of other projects under: of two errors
// with the same text, the one outside them is the original.
constexpr std::string_view kVendoredDirs[] = {
    "_vendor", "vendor",  "_vendored", "vendored",   "third_party", "_third_party", "thirdparty",
    "extern",  "_extern", "externals", "_externals", "bundled",     "_bundled"};

// Standard libraries: packages copy their messages (a backport, a vendored
// module), so on equal evidence the standard library's error comes first.
constexpr std::string_view kStandardLibraries[] = {"python/cpython"};

// What a qualified type's module adds to or takes from an error's score: the
// printed module names a file of the error's library defining the class, or
// the library defines a class of that name elsewhere (its own, another one).
constexpr double kModuleAgrees = 0.03;
constexpr double kModuleDisagrees = -0.03;
// TypeFactor of an unrelated type, and what such an error loses when the
// printed type names a library class with a fitting error: enough to fall
// behind a type-only fit (0.3 + type + module).
constexpr double kTypeAgrees = 0.05;
constexpr double kTypeContradicts = -0.25;
// A base or subclass of the printed type: a raise of exactly that class
// would have printed its own name, so the wording must make up for it.
constexpr double kTypeRelated = -0.10;
constexpr double kNamedTypeContradicts = 0.5;
constexpr size_t kMaxNamedCandidates = 64;

// Types that carry another error's message: they neither confirm nor contradict.
constexpr std::string_view kWrapperTypes[] = {"XlaRuntimeError", "JaxRuntimeError",
                                              "UnfilteredStackTrace", "Exception"};

std::string NormalizePath(std::string_view path) {
  std::string p(path);
  std::replace(p.begin(), p.end(), '\\', '/');
  while (StartsWith(p, "./")) p.erase(0, 2);
  return p;
}

bool PathEndsWith(std::string_view frame_path, std::string_view site_path) {
  if (site_path.empty() || frame_path.size() < site_path.size()) return false;
  if (!EndsWith(frame_path, site_path)) return false;
  return frame_path.size() == site_path.size() ||
         frame_path[frame_path.size() - site_path.size() - 1] == '/';
}

// Directories a source tree keeps its importable code in, which an
// installed copy drops: `src/jinja2/loaders.py` of a checkout is
// `site-packages/jinja2/loaders.py` at run time, CPython's
// `Lib/json/decoder.py` is `lib/python3.11/json/decoder.py`.
constexpr std::string_view kSourceRoots[] = {"src", "lib", "Lib", "python"};

// A site's path as the code imports it: below a source root, when a
// package directory and a file follow it.
std::string_view ImportPath(std::string_view path) {
  for (std::string_view root : kSourceRoots) {
    if (path.size() > root.size() + 1 && StartsWith(path, root) && path[root.size()] == '/' &&
        path.find('/', root.size() + 1) != std::string_view::npos) {
      return path.substr(root.size() + 1);
    }
  }
  return path;
}

// Where the path below the last site-packages/ or dist-packages/ of a
// frame's path starts; npos when it has neither.
size_t BelowPackages(std::string_view frame_path) {
  size_t below = std::string_view::npos;
  for (std::string_view packages : {"site-packages/", "dist-packages/"}) {
    size_t at = frame_path.rfind(packages);
    if (at != std::string_view::npos && (below == std::string_view::npos || at > below)) {
      below = at + packages.size();
    }
  }
  return below;
}

// Where a frame's file is below an installation's import root
// (`.../site-packages/jinja2/loaders.py` -> `jinja2/loaders.py`,
// `/usr/lib/python3.11/json/decoder.py` -> `json/decoder.py`); empty for a
// file elsewhere (a checkout, the user's own project), whose path says
// nothing of a source root it may or may not have.
std::string_view InstalledPath(std::string_view frame_path) {
  size_t best = BelowPackages(frame_path);
  if (best == std::string_view::npos) {
    // The standard library: lib/pythonX.Y/ (Lib/ on Windows).
    for (size_t at = frame_path.find("/lib/python"); at != std::string_view::npos;
         at = frame_path.find("/lib/python", at + 1)) {
      size_t end = frame_path.find('/', at + 11);
      std::string_view version =
          frame_path.substr(at + 11, end == std::string_view::npos ? 0 : end - at - 11);
      if (!version.empty() && version.find_first_not_of("0123456789.") == std::string_view::npos) {
        best = end + 1;
      }
    }
    if (size_t at = frame_path.rfind("/Lib/");
        best == std::string_view::npos && at != std::string_view::npos) {
      best = at + 5;
    }
  }
  return best == std::string_view::npos || best >= frame_path.size() ? std::string_view{}
                                                                     : frame_path.substr(best);
}

std::string_view LastQualifier(std::string_view name) {
  size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

// The template's literal text, values as single spaces: what wording
// similarity compares.
std::string LiteralText(const Template& t) {
  std::string out;
  for (const Piece& p : t.pieces()) out += p.is_value ? " " : p.text;
  return NormalizeText(out);
}

// True when a site raises the class of a caught exception (`type(e)(...)`,
// `e.__class__(...)`), catalogued under the class the handler catches.
bool RaisesCaughtClass(const catalog::ErrorRecord& e) {
  return std::any_of(e.sites.begin(), e.sites.end(), [](const catalog::SiteRecord& s) {
    return StartsWith(s.exception_written, "type(") || EndsWith(s.exception_written, ".__class__");
  });
}

bool OnlyInTests(const std::vector<catalog::SiteRecord>& sites) {
  if (sites.empty()) return false;
  return std::all_of(sites.begin(), sites.end(),
                     [](const catalog::SiteRecord& s) { return IsTestPath(s.path); });
}

// A small tie-breaker from the values' shape: a repr slot that caught a
// quoted value, or a str slot that caught a quote-free one, fits better.
double ValueFit(const Template& t, const std::vector<std::pair<std::string, std::string>>& values) {
  double fit = 0;
  for (const Piece& p : t.pieces()) {
    if (!p.is_value) continue;
    auto it = std::find_if(values.begin(), values.end(),
                           [&](const auto& v) { return v.first == p.name; });
    if (it == values.end() || it->second.size() < 2) continue;
    char f = it->second.front();
    bool quoted = (f == '\'' || f == '"') && it->second.back() == f;
    if (p.kind == ValueKind::kRepr) fit += quoted ? 0.005 : -0.005;
    if (p.kind == ValueKind::kStr && quoted) fit -= 0.002;
  }
  return fit;
}

std::vector<uint32_t> Trigrams(std::string_view text) {
  std::vector<uint32_t> out;
  if (text.size() < 3) return out;
  out.reserve(text.size());
  for (size_t i = 0; i + 3 <= text.size(); ++i) {
    uint32_t g = 0;
    for (size_t k = 0; k < 3; ++k) {
      g = (g << 8) |
          static_cast<unsigned char>(std::tolower(static_cast<unsigned char>(text[i + k])));
    }
    out.push_back(g);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// How many trailing '/'-separated components `a` and `b` share.
int SharedTail(std::string_view a, std::string_view b) {
  int shared = 0;
  while (!a.empty() && !b.empty()) {
    size_t sa = a.rfind('/'), sb = b.rfind('/');
    std::string_view ca = sa == std::string_view::npos ? a : a.substr(sa + 1);
    std::string_view cb = sb == std::string_view::npos ? b : b.substr(sb + 1);
    if (ca != cb || ca.empty()) break;
    ++shared;
    a = sa == std::string_view::npos ? std::string_view() : a.substr(0, sa);
    b = sb == std::string_view::npos ? std::string_view() : b.substr(0, sb);
  }
  return shared;
}

std::vector<std::string_view> SplitOn(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  for (size_t b = 0; b <= text.size();) {
    size_t e = text.find(sep, b);
    if (e == std::string_view::npos) e = text.size();
    if (e > b) out.push_back(text.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

// True when a template's literal text has a letter: words of its own, which
// a message must carry to be this error.
bool HasWords(const Template& t) {
  std::string text = LiteralText(t);
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

bool IsVendoredDir(std::string_view dir) {
  return std::find(std::begin(kVendoredDirs), std::end(kVendoredDirs), dir) !=
         std::end(kVendoredDirs);
}

// Whether a guard of the site says another module's code runs in its place
// (core/record.h: kinds replaced and stands-in). The text is searched before
// the JSON is read: an error may have thousands of sites.
bool IsReplacedSite(const catalog::SiteRecord& s) {
  if (s.guards_json.find("\"replaced\"") == std::string::npos &&
      s.guards_json.find("\"stands-in\"") == std::string::npos) {
    return false;
  }
  nlohmann::json guards = nlohmann::json::parse(s.guards_json, nullptr, false);
  if (!guards.is_array()) return false;
  return std::any_of(guards.begin(), guards.end(), [](const nlohmann::json& g) {
    if (!g.is_object()) return false;
    auto kind = g.find("kind");
    return kind != g.end() && kind->is_string() && (*kind == "replaced" || *kind == "stands-in");
  });
}

// Sites users most likely hit first: the library's own code before its
// vendored copies and its tests, and code that runs before code another
// module replaces. The order is a sum of these bits, the smallest first.
constexpr int kSiteTest = 1;
constexpr int kSiteVendored = 2;
constexpr int kSiteReplaced = 4;
int SiteOrder(const catalog::SiteRecord& s) {
  return (IsReplacedSite(s) ? kSiteReplaced : 0) + (IsVendoredPath(s.path) ? kSiteVendored : 0) +
         (IsTestPath(s.path) ? kSiteTest : 0);
}

}  // namespace

bool IsVendoredPath(std::string_view path) {
  std::string normal = NormalizePath(path);
  std::vector<std::string_view> parts = SplitOn(normal, '/');
  if (!parts.empty()) parts.pop_back();  // the file itself
  return std::any_of(parts.begin(), parts.end(), IsVendoredDir);
}

bool IsStandardLibrary(std::string_view library) {
  return std::find(std::begin(kStandardLibraries), std::end(kStandardLibraries), library) !=
         std::end(kStandardLibraries);
}

ModuleFit FitModule(std::string_view module, const catalog::ExceptionClassRecord& c) {
  std::vector<std::string_view> m = SplitOn(module, '.');
  if (m.empty()) return kModuleNone;
  // The file's module path within the snapshot: `_vendor/idna/core.py` ->
  // _vendor.idna.core, `pkg/__init__.py` -> pkg.
  std::string path = NormalizePath(c.path);
  for (std::string_view ext : {".pyi", ".py"}) {
    if (EndsWith(path, ext)) {
      path.resize(path.size() - ext.size());
      break;
    }
  }
  std::vector<std::string_view> p = SplitOn(path, '/');
  if (!p.empty() && p.back() == "__init__") p.pop_back();
  // The indexed root is often the package itself (site-packages/idna).
  std::string_view root = c.root;
  while (!root.empty() && root.back() == '/') root.remove_suffix(1);
  std::string_view top =
      root.substr(root.rfind('/') == std::string_view::npos ? 0 : root.rfind('/') + 1);
  if (!IsIdentifier(top)) top = {};  // python3.11, decorator.py, site-packages-x
  if (!top.empty() && m.size() == p.size() + 1 && m.front() == top &&
      std::equal(p.begin(), p.end(), m.begin() + 1)) {
    return kModuleRootPackage;
  }
  if (m == p) return kModuleExact;
  if (m.size() < p.size() && std::equal(m.rbegin(), m.rend(), p.rbegin())) {
    // A tail of the path: a copy under pip/_vendor, or a src/ layout.
    return IsVendoredDir(p[p.size() - m.size() - 1]) ? kModuleVendoredCopy : kModuleExact;
  }
  if ((!top.empty() && m.front() == top) || (p.size() >= 2 && m.front() == p.front())) {
    return kModulePackage;
  }
  return kModuleNone;
}

Wording CompareWording(std::string_view a, std::string_view b) {
  std::vector<uint32_t> ta = Trigrams(a);
  std::vector<uint32_t> tb = Trigrams(b);
  if (ta.empty() || tb.empty()) {
    double same = a == b ? 1.0 : 0.0;
    return {same, same};
  }
  size_t common = 0;
  for (size_t i = 0, j = 0; i < ta.size() && j < tb.size();) {
    if (ta[i] == tb[j]) {
      ++common, ++i, ++j;
    } else if (ta[i] < tb[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return {2.0 * static_cast<double>(common) / static_cast<double>(ta.size() + tb.size()),
          static_cast<double>(common) / static_cast<double>(std::min(ta.size(), tb.size()))};
}

double Similarity(std::string_view a, std::string_view b) {
  // Dice rewards equal texts; overlap rewards one containing the other (a
  // message cut short, a template whose values were filled in).
  Wording w = CompareWording(a, b);
  return 0.5 * w.dice + 0.5 * w.overlap;
}

Result<std::optional<catalog::Catalog::FileOwner>> InnermostFrameOwner(catalog::Catalog& catalog,
                                                                       const ParsedError& error) {
  if (error.frames.empty()) return std::nullopt;
  return catalog.OwnerOfFile(NormalizePath(error.frames.back().path));
}

std::vector<std::string> PathSuffixes(std::string_view path) {
  std::string p = NormalizePath(path);
  std::vector<std::string> out;
  if (p.empty() || p.front() == '<') return out;  // <stdin>, <string>, <cell 1>
  size_t end = p.size();
  size_t pos = p.size();
  while (out.size() < 12) {
    size_t slash = p.rfind('/', pos == 0 ? 0 : pos - 1);
    std::string suffix = slash == std::string::npos ? p : p.substr(slash + 1);
    if (!suffix.empty() && (out.empty() || out.back() != suffix)) out.push_back(suffix);
    if (slash == std::string::npos || slash == 0) break;
    pos = slash;
  }
  (void)end;
  std::reverse(out.begin(), out.end());  // longest first
  return out;
}

std::vector<std::string> FramePaths(std::string_view path) {
  std::vector<std::string> out = PathSuffixes(path);
  std::string normal = NormalizePath(path);
  std::string_view installed = InstalledPath(normal);
  if (!installed.empty()) {
    for (std::string_view root : kSourceRoots)
      out.push_back(std::string(root) + "/" + std::string(installed));
  }
  return out;
}

// Whether a frame's file is the site's file, its path ending with the
// site's: the directory the site's path hangs from must be named as the
// library's root is. A package indexed at its own directory has paths
// without its name (`core.py` for docutils/core.py), which a frame in
// idna/core.py ends with too. Checked for a package's own `__init__.py`
// everywhere (a frame in markupsafe/__init__.py is not on
// jsonschema/__init__.py), and for any file below site-packages, where the
// directory after it names the distribution; elsewhere (a checkout, a
// frame whose path is the site's) the path decides alone.
bool SamePackageFile(std::string_view frame_path, std::string_view site_path,
                     const catalog::SiteRecord& site) {
  std::string root = NormalizePath(site.subdir.empty() ? site.root : site.root + "/" + site.subdir);
  while (!root.empty() && root.back() == '/') root.pop_back();
  if (root.empty()) return true;
  std::string_view dir = frame_path.substr(0, frame_path.size() - site_path.size());
  if (!dir.empty()) dir.remove_suffix(1);
  bool dunder = site_path.find('/') == std::string::npos && StartsWith(site_path, "__");
  if (!dunder) {
    size_t below = BelowPackages(frame_path);
    if (below == std::string_view::npos || below > dir.size()) return true;
  }
  return PathEndsWith(dir, root.substr(root.rfind('/') + 1));
}

// Whether a frame's file is the site's: as the catalog has it, or as an
// installed copy of its source tree has it (ImportPath).
bool InSiteFile(std::string_view frame_path, const catalog::SiteRecord& site) {
  if (PathEndsWith(frame_path, site.path)) return SamePackageFile(frame_path, site.path, site);
  // An installed copy: its path below the import root is the site's below
  // its source root, exactly.
  std::string_view imported = ImportPath(site.path);
  return imported.size() < site.path.size() && InstalledPath(frame_path) == imported;
}

FrameFit FrameEvidence(const std::vector<Frame>& frames, const catalog::SiteRecord& site) {
  FrameFit best;
  for (size_t i = 0; i < frames.size(); ++i) {
    const Frame& f = frames[i];
    std::string path = NormalizePath(f.path);
    if (!InSiteFile(path, site)) continue;
    bool on_statement = f.line >= site.line && f.line <= std::max(site.line, site.end_line);
    bool innermost = i + 1 == frames.size();
    int level = 0;
    if (on_statement) {
      level = innermost ? 3 : 2;
    } else if (!f.function.empty() && LastQualifier(site.function) == LastQualifier(f.function)) {
      level = 1;  // same function, another version's line numbers
    }
    if (level == 0 || level < best.level) continue;
    int depth = SharedTail(path, NormalizePath(site.root + "/" + site.path));
    if (level > best.level || depth > best.depth) best = {level, depth};
  }
  return best;
}

const std::set<int64_t> kNoSnapshots;

// True when every site of an error is a raise in a Python source file and
// no frame is in any of those files. Where a Python raise raised, its file
// is a frame of the traceback; compiled code (C, a Cython cdef) raises
// with no frame of its own, so its sites say nothing here.
bool NeverEntered(const std::vector<Frame>& frames, const std::vector<catalog::SiteRecord>& sites) {
  if (sites.empty()) return false;
  for (const catalog::SiteRecord& s : sites) {
    if (s.language != "python" || !EndsWith(s.path, ".py")) return false;
  }
  for (const Frame& f : frames) {
    std::string path = NormalizePath(f.path);
    for (const catalog::SiteRecord& s : sites) {
      if (InSiteFile(path, s)) return false;
    }
  }
  return true;
}

// Keeps the sites of one version of `e`: `asked` when given (false when the
// error is not raised there), else the newest version whose sites the
// frames stand on best, else the newest raising it. `frame_versions` gets
// every version the frames fit equally well.
bool KeepOneVersion(catalog::ErrorRecord& e, const std::vector<Frame>& frames,
                    const std::string& asked, const std::set<int64_t>& file_fit,
                    std::vector<std::string>& frame_versions) {
  std::map<int, std::pair<int, std::string>> by_version;  // ordinal -> (best level, rev)
  std::set<int> has_files;  // ordinals of versions having every file the frames name
  for (const catalog::SiteRecord& s : e.sites) {
    auto& [level, rev] = by_version[s.version];
    level = std::max(level, FrameEvidence(frames, s).level);
    rev = s.rev;
    if (file_fit.count(s.snapshot_pk)) has_files.insert(s.version);
  }
  if (by_version.empty()) return asked.empty();
  int chosen = by_version.rbegin()->first;
  if (!asked.empty()) {
    auto it = std::find_if(by_version.begin(), by_version.end(),
                           [&](const auto& v) { return v.second.second == asked; });
    if (it == by_version.end()) return false;
    chosen = it->first;
  } else {
    // The versions whose sites the frames stand on best (all of them when no
    // frame is on or near a raise), then of those the ones having every file
    // the traceback names (numpy/core/ became numpy/_core/).
    int top = 0;
    for (const auto& [ordinal, fit] : by_version) top = std::max(top, fit.first);
    std::vector<int> candidates;
    for (const auto& [ordinal, fit] : by_version) {
      if (top < 2 || fit.first == top) candidates.push_back(ordinal);
    }
    std::vector<int> with_files;
    for (int ordinal : candidates) {
      if (has_files.count(ordinal)) with_files.push_back(ordinal);
    }
    if (!with_files.empty()) candidates = std::move(with_files);
    chosen = candidates.back();
    // What fits every version tells nothing about the version.
    if (candidates.size() < by_version.size()) {
      for (int ordinal : candidates) frame_versions.push_back(by_version[ordinal].second);
    }
  }
  e.version = by_version[chosen].second;
  std::vector<catalog::SiteRecord> kept;
  for (catalog::SiteRecord& s : e.sites) {
    if (s.version == chosen) kept.push_back(std::move(s));
  }
  e.sites = std::move(kept);
  return true;
}

Result<std::string> PrefilterBuilder::Build(const std::vector<catalog::ErrorTemplate>& errors) {
  std::vector<Prefilter::Entry> entries;
  entries.reserve(errors.size());
  for (const catalog::ErrorTemplate& e : errors) entries.push_back({e.pk, &e.message});
  return Prefilter::Build(entries);
}

Result<Matcher> Matcher::Open(catalog::Catalog* catalog, std::vector<std::string>* warnings) {
  Matcher m(catalog);
  Result<std::map<std::string, std::vector<std::string>>> bases = catalog->ExceptionBases();
  if (!bases) return tl::unexpected(bases.error());
  m.bases_ = std::move(*bases);
  Result<std::vector<catalog::ExceptionClassRecord>> classes = catalog->ExceptionClasses();
  if (!classes) return tl::unexpected(classes.error());
  for (catalog::ExceptionClassRecord& c : *classes) m.classes_[c.name].push_back(std::move(c));
  Result<void> visited = catalog->VisitPrefilters([&](const catalog::PrefilterBlob& b,
                                                      std::string_view blob) -> Result<void> {
    Library lib;
    lib.pk = b.library_pk;
    lib.name = b.library;
    Result<Prefilter> loaded = Fail(ErrorCode::kCorrupt, "no prefilter stored");
    if (b.format == kPrefilterFormat) loaded = Prefilter::Load(blob);
    if (!loaded) {
      Result<std::vector<catalog::ErrorTemplate>> templates = catalog->LibraryTemplates(lib.pk);
      if (!templates) return tl::unexpected(templates.error());
      PrefilterBuilder builder;
      Result<std::string> rebuilt = builder.Build(*templates);
      if (!rebuilt) return tl::unexpected(rebuilt.error());
      loaded = Prefilter::Load(*rebuilt);
      if (!loaded) return tl::unexpected(loaded.error());
      if (warnings != nullptr) {
        warnings->push_back("the prefilter of " + lib.name + " was rebuilt in memory (" +
                            (blob.empty() ? std::string("none stored") : "stored one unusable") +
                            "); `errdex index` stores a new one");
      }
    }
    lib.prefilter = std::make_unique<Prefilter>(std::move(*loaded));
    m.libraries_.push_back(std::move(lib));
    return {};
  });
  if (!visited) return tl::unexpected(visited.error());
  return m;
}

const RE2* Matcher::Regex(const catalog::ErrorRecord& e, bool truncatable) {
  auto& cache = truncatable ? truncatable_regexes_ : regexes_;
  auto it = cache.find(e.pk);
  if (it != cache.end()) return it->second.get();
  if (cache.size() >= kMaxRegexCache) cache.clear();
  RE2::Options options;
  options.set_dot_nl(true);
  options.set_log_errors(false);
  options.set_max_mem(16 << 20);
  auto re = std::make_unique<RE2>(
      truncatable ? TruncatableTemplateRegex(e.message) : TemplateRegex(e.message), options);
  const RE2* out = re->ok() ? re.get() : nullptr;
  cache.emplace(e.pk, re->ok() ? std::move(re) : nullptr);
  return out;
}

bool Matcher::IsSubclass(const std::string& derived, const std::string& base, int depth) const {
  if (depth > 16) return false;
  auto it = bases_.find(derived);
  if (it == bases_.end()) return false;
  for (const std::string& b : it->second) {
    if (b == base || IsSubclass(b, base, depth + 1)) return true;
  }
  return false;
}

// Whether a catalogued type is a class rather than the variable or
// expression a raise took its class from (`error_class`, `type(e)`,
// `self.mapping[code]`) when the front end could not tell which class:
// such a type says nothing about the printed one.
bool Matcher::NamesClass(const std::string& have) const {
  if (have.find_first_of("([") != std::string::npos) return false;
  size_t first = have.find_first_not_of('_');
  if (first == std::string::npos || !std::islower(static_cast<unsigned char>(have[first]))) {
    return true;
  }
  return have.find(':') != std::string::npos || bases_.count(have) > 0 || classes_.count(have) > 0;
}

Result<std::pair<size_t, std::string>> Matcher::WrappedError(const catalog::ErrorRecord& outer,
                                                             const std::string& message,
                                                             bool same_class) {
  std::pair<size_t, std::string> best{0, ""};
  auto lib = std::find_if(libraries_.begin(), libraries_.end(),
                          [&](const Library& l) { return l.name == outer.library; });
  if (lib == libraries_.end()) return best;
  std::vector<PrefilterHit> hits;
  Result<void> scanned = lib->prefilter->Scan(message, hits);
  if (!scanned) return tl::unexpected(scanned.error());
  std::sort(hits.begin(), hits.end(), [](const PrefilterHit& a, const PrefilterHit& b) {
    return a.bytes_found != b.bytes_found ? a.bytes_found > b.bytes_found : a.error_pk < b.error_pk;
  });
  std::vector<int64_t> pks;
  for (const PrefilterHit& h : hits) {
    if (h.error_pk != outer.pk && h.fragments_found >= h.fragments_total &&
        pks.size() < kMaxRegexCandidates) {
      pks.push_back(h.error_pk);
    }
  }
  Result<std::vector<catalog::ErrorRecord>> records =
      catalog_->GetByPks(pks, catalog::SiteDetail::kNone);
  if (!records) return tl::unexpected(records.error());
  RE2::Options options;
  options.set_dot_nl(true);
  options.set_log_errors(false);
  options.set_max_mem(16 << 20);
  const std::vector<Piece>& pieces = outer.message.pieces();
  for (const catalog::ErrorRecord& inner : *records) {
    size_t literal = inner.message.LiteralSize();
    // An error of the wrapper's own class: the class's generic text around
    // a message passed in (`{message}\n\n{location}`) adds nothing to the
    // raise that wrote the message, it would only win on its suffix; but
    // `type(e)(...)` does wrap an error of its own class.
    if (inner.dynamic || literal <= best.first || !HasWords(inner.message) ||
        (inner.exception == outer.exception && !same_class)) {
      continue;
    }
    // The outer template with one of its values replaced by the inner one.
    for (size_t i = 0; i < pieces.size(); ++i) {
      if (!pieces[i].is_value) continue;
      Template composed;
      for (size_t k = 0; k < pieces.size(); ++k) {
        if (k == i) {
          composed.Append(inner.message);
        } else {
          composed.AppendPiece(pieces[k]);
        }
      }
      RE2 re(TemplateRegex(composed), options);
      if (re.ok() && RE2::FullMatch(message, re)) {
        best = {literal, inner.template_text};
        break;
      }
    }
  }
  return best;
}

// How the input's exception type bears on an error of type `have`.
double Matcher::TypeFactor(const std::string& wanted, const std::string& status,
                           const std::string& have) const {
  // Status errors are catalogued under their code; the paste shows it as a
  // prefix, inside whatever exception carried the status.
  if (IsStatusCode(have)) {
    if (!status.empty()) return status == have ? kTypeAgrees : kTypeContradicts;
    if (wanted.empty() || wanted == "RuntimeError") return 0.0;
  } else if (have == "MLIRError") {
    return wanted == have ? kTypeAgrees : 0.0;  // diagnostics reach users wrapped in many ways
  }
  if (wanted.empty()) return 0.0;
  if (wanted == have) return kTypeAgrees;
  if (!NamesClass(have)) return 0.0;
  for (std::string_view w : kWrapperTypes) {
    if (wanted == w) return 0.0;
  }
  if (IsSubclass(wanted, have, 0) || IsSubclass(have, wanted, 0)) return kTypeRelated;
  return kTypeContradicts;
}

struct Matcher::Candidate {
  int64_t pk = 0;
  int fragments_found = 0;
  int fragments_total = 0;
  int bytes_found = 0;
};

Result<std::vector<int64_t>> Matcher::FullMatches(std::string_view text) {
  std::string message = NormalizeText(ToValidUtf8(text));
  std::vector<PrefilterHit> hits;
  for (Library& lib : libraries_) {
    Result<void> scanned = lib.prefilter->Scan(message, hits);
    if (!scanned) return tl::unexpected(scanned.error());
  }
  std::vector<int64_t> pks;
  for (const PrefilterHit& h : hits) pks.push_back(h.error_pk);
  Result<std::vector<catalog::ErrorRecord>> records =
      catalog_->GetByPks(pks, catalog::SiteDetail::kNone);
  if (!records) return tl::unexpected(records.error());
  std::vector<int64_t> out;
  for (const catalog::ErrorRecord& e : *records) {
    const RE2* re = Regex(e, false);
    if (re != nullptr && RE2::FullMatch(message, *re)) out.push_back(e.pk);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// How well one template fits the message, before frames and type count.
struct Assessment {
  double base = -1;  // < 0: no fit
  bool full = false;  // the template's regex matched the whole message
  bool fuzzy = false;
  bool strong = false;
  double dice = 1;  // fuzzy: the wording both texts share (CompareWording)
  double explains = 0;  // the share of the message the template's words are
  std::string evidence;
  std::vector<std::pair<std::string, std::string>> values;
};

// `Name: text` the parser left whole because Name does not look like an
// exception's (no Error, Exception or Warning in it): a class the catalog
// knows by that name makes it the type and the rest the message.
std::optional<ParsedError> Matcher::WithKnownType(const ParsedError& input) const {
  if (!input.exception.empty() || !input.frames.empty()) return std::nullopt;
  size_t colon = input.message.find(": ");
  if (colon == std::string::npos || colon == 0 || colon > 200) return std::nullopt;
  std::string_view name = std::string_view(input.message).substr(0, colon);
  for (std::string_view part : SplitOn(name, '.')) {
    if (!IsIdentifier(part)) return std::nullopt;
  }
  if (classes_.count(std::string(LastQualifier(name))) == 0) return std::nullopt;
  ParsedError typed = input;
  typed.exception = std::string(name);
  typed.message = input.message.substr(colon + 2);
  return typed;
}

Result<std::vector<Match>> Matcher::Explain(const ParsedError& given,
                                            const ExplainOptions& options) {
  std::optional<ParsedError> typed = WithKnownType(given);
  const ParsedError& input = typed ? *typed : given;
  std::string message = NormalizeText(ToValidUtf8(input.message));
  // A C++ exception that escaped (`terminate ... 'std::invalid_argument'`)
  // is catalogued under the Python type its binding would raise.
  std::string type(PythonTypeOfCpp(input.exception));
  if (type.empty()) type = ShortExceptionName(input.exception);
  message = WithoutSuggestion(type, std::move(message));
  std::vector<Frame> frames;
  for (const Frame& f : input.frames) frames.push_back(ResolveCythonFrame(f));
  if (frames.size() > kMaxFrames) frames.erase(frames.begin(), frames.end() - kMaxFrames);
  // A qualified type names the module its class is defined in: per library
  // defining a class of that name, how well (ModuleFit).
  std::unordered_map<std::string, int> module_fits;
  int best_module_fit = kModuleNone;
  bool sole_definer = false;  // module_fits from the one library defining an unqualified type
  if (size_t dot = input.exception.rfind('.');
      dot != std::string::npos && input.exception.find("::") == std::string::npos) {
    std::string_view module = std::string_view(input.exception).substr(0, dot);
    auto defs = classes_.find(type);
    if (defs != classes_.end()) {
      for (const catalog::ExceptionClassRecord& c : defs->second) {
        int& fit = module_fits[c.library];
        fit = std::max(fit, static_cast<int>(FitModule(module, c)));
        best_module_fit = std::max(best_module_fit, fit);
      }
    }
  } else if (!type.empty() && input.exception.find("::") == std::string::npos) {
    // A type printed without its module (a log line, a thread's title:
    // `TemplateNotFound: index.html`) is the class of the one library that
    // defines a class of that name, when only one does.
    auto defs = classes_.find(type);
    if (defs != classes_.end() && !defs->second.empty() &&
        std::all_of(defs->second.begin(), defs->second.end(),
                    [&](const auto& c) { return c.library == defs->second.front().library; })) {
      module_fits[defs->second.front().library] = kModuleExact;
      best_module_fit = kModuleExact;
      sole_definer = true;
    }
  }

  // 1. Templates whose literal fragments occur in the message. Only those
  // with every fragment present can match all of it; the others are kept
  // for a message cut short.
  std::vector<PrefilterHit> hits;
  for (Library& lib : libraries_) {
    if (!options.library.empty() && lib.name != options.library) continue;
    Result<void> scanned = lib.prefilter->Scan(message, hits);
    if (!scanned) return tl::unexpected(scanned.error());
  }
  std::sort(hits.begin(), hits.end(), [](const PrefilterHit& a, const PrefilterHit& b) {
    double fa = static_cast<double>(a.fragments_found) / std::max(1, a.fragments_total);
    double fb = static_cast<double>(b.fragments_found) / std::max(1, b.fragments_total);
    if (fa != fb) return fa > fb;
    if (a.bytes_found != b.bytes_found) return a.bytes_found > b.bytes_found;
    return a.error_pk < b.error_pk;
  });
  std::unordered_set<int64_t> seen;
  std::vector<int64_t> complete, incomplete, pinned, worded;
  std::vector<const PrefilterHit*> part_shown;
  for (const PrefilterHit& h : hits) {
    if (!seen.insert(h.error_pk).second || h.fragments_found == 0) continue;
    if (h.fragments_found >= h.fragments_total) {
      if (complete.size() < kMaxCompleteCandidates) complete.push_back(h.error_pk);
    } else if (h.bytes_found >= kMinPartialBytes) {
      part_shown.push_back(&h);
    }
  }
  // Of the templates the message shows only part of, those showing the
  // most of their text: a message cut to a long template's first sentence
  // shows few of its fragments, and by that share it lost its place to
  // short templates sharing a word or two with the message.
  std::stable_sort(
      part_shown.begin(), part_shown.end(),
      [](const PrefilterHit* a, const PrefilterHit* b) { return a->bytes_found > b->bytes_found; });
  for (size_t i = 0; i < part_shown.size() && incomplete.size() < kMaxRegexCandidates; ++i) {
    incomplete.push_back(part_shown[i]->error_pk);
  }
  // For wording that changed: the templates sharing most distinctive words.
  std::vector<const PrefilterHit*> by_words;
  for (const PrefilterHit& h : hits) {
    if (h.words_found > 0) by_words.push_back(&h);
  }
  std::sort(by_words.begin(), by_words.end(), [](const PrefilterHit* a, const PrefilterHit* b) {
    if (a->words_found != b->words_found) return a->words_found > b->words_found;
    return a->error_pk < b->error_pk;
  });
  for (size_t i = 0; i < by_words.size() && worded.size() < kMaxFuzzyCandidates; ++i) {
    worded.push_back(by_words[i]->error_pk);
  }

  // 2. Sites the traceback's frames stand on; 3. for a bare type, the
  // errors raised without a message.
  for (const Frame& f : frames) {
    if (f.line <= 0) continue;
    std::vector<std::string> suffixes = FramePaths(f.path);
    if (suffixes.empty()) continue;
    Result<std::vector<catalog::SiteLocation>> at = catalog_->SitesAt(suffixes, f.line, 0);
    if (!at) return tl::unexpected(at.error());
    for (const catalog::SiteLocation& s : *at) pinned.push_back(s.error_pk);
  }
  if (message.empty() && !type.empty()) {
    Result<std::vector<int64_t>> bare = catalog_->ErrorsWithoutMessage(type);
    if (!bare) return tl::unexpected(bare.error());
    pinned.insert(pinned.end(), bare->begin(), bare->end());
  }
  // 5. A qualified type that names a library's own class (`jinja2.exceptions.
  // TemplateNotFound: a`): that library's errors of the type, although the
  // message may carry no words of theirs (a value, an inner error's text).
  std::vector<int64_t> named;
  if (best_module_fit >= kModuleExact) {
    for (const Library& lib : libraries_) {
      auto fit = module_fits.find(lib.name);
      if (fit == module_fits.end() || fit->second != best_module_fit) continue;
      if (!options.library.empty() && lib.name != options.library) continue;
      // A scan of the library's rows: once per matcher (a server's, a
      // --jsonl run's), not once per paste.
      auto cached = errors_of_type_.find({lib.pk, type});
      if (cached == errors_of_type_.end()) {
        Result<std::vector<int64_t>> of_type = catalog_->ErrorsOfType(lib.pk, type);
        if (!of_type) return tl::unexpected(of_type.error());
        if (errors_of_type_.size() >= kMaxRegexCache) errors_of_type_.clear();
        cached = errors_of_type_.emplace(std::make_pair(lib.pk, type), std::move(*of_type)).first;
      }
      for (int64_t pk : cached->second) {
        if (named.size() < kMaxNamedCandidates) named.push_back(pk);
      }
    }
  }
  std::unordered_set<int64_t> named_set(named.begin(), named.end());

  enum class Mode { kWhole, kOrItsStart, kWordsOnly };
  auto assess = [&](const catalog::ErrorRecord& e, Mode mode) {
    Assessment a;
    double literal = static_cast<double>(e.message.LiteralSize());
    double coverage =
        message.empty() ? 0.0 : std::min(1.0, literal / static_cast<double>(message.size()));
    if (e.message.empty()) {
      if (message.empty()) {
        a.base = 0.75;
        a.strong = true;
        a.evidence = "raised without a message";
      }
      return a;
    }
    // A message built where errdex cannot see matches anything: only frames count.
    if (e.dynamic) return a;
    if (const RE2* re = mode != Mode::kWordsOnly ? Regex(e, false) : nullptr; re != nullptr) {
      int groups = re->NumberOfCapturingGroups();
      std::vector<re2::StringPiece> sub(static_cast<size_t>(groups) + 1);
      bool full = re->Match(message, 0, message.size(), RE2::ANCHOR_BOTH, sub.data(),
                            static_cast<int>(sub.size()));
      bool partial = !full && re->Match(message, 0, message.size(), RE2::UNANCHORED, sub.data(),
                                        static_cast<int>(sub.size()));
      if (full || partial) {
        a.full = full;
        a.explains = coverage;
        a.base = full ? 0.80 + 0.15 * coverage : 0.45 + 0.25 * coverage;
        // A few literal characters ("[Errno {code}] {text}") match almost
        // anything: little evidence, however well the rest fits.
        a.base -= 0.3 * std::max(0.0, 1.0 - literal / kWeakLiteral);
        a.strong = (full || coverage >= 0.5) && literal >= 8;
        a.evidence =
            full ? "the message matches the template" : "the template matches part of the message";
        const std::map<std::string, int>& names = re->NamedCapturingGroups();
        for (const auto& [name, index] : names) {
          if (index < static_cast<int>(sub.size()) && sub[static_cast<size_t>(index)].data()) {
            a.values.emplace_back(name, std::string(sub[static_cast<size_t>(index)]));
          }
        }
        std::sort(a.values.begin(), a.values.end(), [&](const auto& x, const auto& y) {
          return names.at(x.first) < names.at(y.first);
        });
        return a;
      }
    }
    // The message is the start of the template: cut short, or from a version
    // before text was added at the end.
    if (const RE2* re = mode == Mode::kOrItsStart ? Regex(e, true) : nullptr;
        re != nullptr && message.size() >= static_cast<size_t>(kMinPartialBytes) &&
        RE2::FullMatch(message, *re)) {
      // How much of the template the message shows, and how much of the
      // message its literal text explains -- not how long the message is:
      // a template whose first value swallows the rest of the message
      // shows only its first piece, and explains little of the message.
      LeadingLiterals shown = FindLeadingLiterals(e.message, message);
      double start = static_cast<double>(shown.found) / std::max<double>(1.0, shown.total);
      double explained = std::min(1.0, static_cast<double>(shown.found) /
                                           std::max<double>(1.0, message.size()));
      // A message that is, word for word, a long opening of the template
      // (its first line, pasted alone) is the template's text, which no
      // similar wording is.
      bool verbatim = explained >= 0.9 && shown.found >= 20;
      a.base = 0.45 + 0.125 * start + 0.125 * explained + (verbatim ? 0.1 : 0.0) -
               0.3 * std::max(0.0, 1.0 - literal / kWeakLiteral);
      a.strong = (start >= 0.5 || verbatim) && literal >= 8;
      a.explains = explained;
      a.evidence = "the message is the start of the template (cut short, or worded so since)";
      // Cut where a line of the template ends, with the words the template
      // has up to there: the whole of the template's first lines, as a
      // whole template fits -- by how much of the message its words are.
      if (shown.ends_a_line && explained >= 0.5) {
        a.base = 0.80 + 0.15 * explained - 0.3 * std::max(0.0, 1.0 - literal / kWeakLiteral);
        a.strong = literal >= 8;
        a.evidence = "the message is the template's first lines, word for word";
      }
      return a;
    }
    if (!message.empty()) {
      Wording w = CompareWording(message, LiteralText(e.message));
      double sim = 0.5 * w.dice + 0.5 * w.overlap;
      if (sim >= kMinSimilarity) {
        a.base = 0.6 * sim;
        a.fuzzy = true;
        a.dice = w.dice;
        a.evidence = "similar wording (the message differs from the template)";
      }
    }
    return a;
  };

  // Templates first (cheap): which fit at all.
  std::vector<std::pair<catalog::ErrorRecord, Assessment>> fits;
  std::unordered_set<int64_t> assessed;
  bool confirmed = false;
  // kWordsOnly for candidates none of whose fragments is in the message:
  // their regex cannot match, compiling it would only cost time.
  auto run = [&](const std::vector<int64_t>& pks, bool keep_unfit, Mode mode) -> Result<void> {
    std::vector<int64_t> fresh;
    for (int64_t pk : pks) {
      if (assessed.insert(pk).second) fresh.push_back(pk);
    }
    Result<std::vector<catalog::ErrorRecord>> records =
        catalog_->GetByPks(fresh, catalog::SiteDetail::kNone);
    if (!records) return tl::unexpected(records.error());
    for (catalog::ErrorRecord& e : *records) {
      if (!options.library.empty() && e.library != options.library) continue;
      Assessment a = assess(e, mode);
      if (a.base < 0 && !keep_unfit) continue;
      // A fit whose words are little of the message (a value took most
      // of it: `{attr!r}` over a paragraph) does not end the search: a
      // template the message shows the first lines of may be its text.
      confirmed = confirmed || (a.strong && !a.fuzzy && a.explains >= 0.5);
      fits.emplace_back(std::move(e), std::move(a));
    }
    return {};
  };
  // Every fragment found is not every piece found: pieces shorter than a
  // fragment ("See ", "#") may be what a version before them lacks.
  Result<void> done = run(complete, false, Mode::kOrItsStart);
  if (done) done = run(pinned, true, Mode::kOrItsStart);
  if (done && !confirmed) done = run(incomplete, false, Mode::kOrItsStart);
  // 4. Wording changed across versions, or the paste was cut or re-wrapped.
  if (done && !confirmed && !message.empty()) done = run(worded, false, Mode::kWordsOnly);
  // Last, so that one found above keeps the fit it was found by.
  if (done) done = run(named, true, Mode::kWhole);
  if (!done) return tl::unexpected(done.error());
  // A wrapper that puts a caught error's text into its own (`"%s in %r" %
  // (exc, address)`) has few words of its own: when a value it caught is
  // the whole text of another error of its library, those words are its too.
  for (auto& [e, a] : fits) {
    double literal = static_cast<double>(e.message.LiteralSize());
    if (!a.full || literal == 0 || literal >= kWeakLiteral || a.values.empty()) continue;
    Result<std::vector<catalog::ErrorRecord>> located =
        catalog_->GetByPks({e.pk}, catalog::SiteDetail::kLocations);
    if (!located) return tl::unexpected(located.error());
    bool reraises = !located->empty() && RaisesCaughtClass(located->front());
    Result<std::pair<size_t, std::string>> wrapped = WrappedError(e, message, reraises);
    if (!wrapped) return tl::unexpected(wrapped.error());
    auto [inner, inner_template] = *wrapped;
    if (inner == 0) continue;
    literal += static_cast<double>(inner);
    double coverage = std::min(1.0, literal / static_cast<double>(message.size()));
    a.base = 0.80 + 0.15 * coverage - 0.3 * std::max(0.0, 1.0 - literal / kWeakLiteral);
    a.strong = a.strong || literal >= 8;
    a.evidence += "; a value is the text of another error it wraps (" + inner_template + ")";
  }

  // Then sites, for the best fits and the pinned ones: frames and type decide.
  std::unordered_set<int64_t> pinned_set(pinned.begin(), pinned.end());
  std::stable_sort(fits.begin(), fits.end(),
                   [](const auto& x, const auto& y) { return x.second.base > y.second.base; });
  std::vector<int64_t> detail;
  // With --version, errors that version does not raise leave before the
  // cut, not after it.
  std::optional<std::unordered_set<int64_t>> in_version;
  if (!options.version.empty()) {
    Result<std::unordered_set<int64_t>> raised = catalog_->ErrorsRaisedIn(options.version);
    if (!raised) return tl::unexpected(raised.error());
    in_version = std::move(*raised);
  }
  for (size_t i = 0, kept = 0; i < fits.size(); ++i) {
    int64_t pk = fits[i].first.pk;
    if (in_version && !in_version->count(pk)) continue;
    if (kept++ < options.top * 4 || pinned_set.count(pk) || named_set.count(pk)) {
      detail.push_back(pk);
    }
  }
  // Per library, the versions having every file of the traceback that the
  // library has at all.
  std::map<std::string, std::set<int64_t>> file_fit;
  for (const Frame& f : frames) {
    // A bare file name (a user's own random.py) names no library's file.
    std::vector<std::string> suffixes;
    for (std::string& p : FramePaths(f.path)) {
      if (p.find('/') != std::string::npos) suffixes.push_back(std::move(p));
    }
    if (suffixes.empty()) continue;
    Result<std::vector<std::pair<int64_t, std::string>>> in = catalog_->SnapshotsWithFile(suffixes);
    if (!in) return tl::unexpected(in.error());
    std::map<std::string, std::set<int64_t>> here;
    for (const auto& [pk, library] : *in) here[library].insert(pk);
    for (auto& [library, pks] : here) {
      auto [it, fresh] = file_fit.emplace(library, pks);
      if (fresh) continue;
      std::set<int64_t> both;
      std::set_intersection(it->second.begin(), it->second.end(), pks.begin(), pks.end(),
                            std::inserter(both, both.end()));
      it->second = std::move(both);
    }
  }
  // Every version's sites: the traceback tells which version the user runs.
  Result<std::vector<catalog::ErrorRecord>> sited = [&] {
    catalog::VersionScope scope(*catalog_, std::string(catalog::kAllVersions));
    return catalog_->GetByPks(detail, catalog::SiteDetail::kLocations);
  }();
  if (!sited) return tl::unexpected(sited.error());
  std::unordered_map<int64_t, const Assessment*> by_pk;
  for (const auto& [e, a] : fits) by_pk[e.pk] = &a;

  std::vector<Match> matches;
  // Errors of a class with the printed short name that is not the printed
  // class (json's JSONDecodeError when requests' is printed).
  std::unordered_set<int64_t> other_class;
  // Errors raised as the class of a caught exception, of which the printed
  // class is a subclass.
  std::unordered_set<int64_t> reraised_class;
  // Where the traceback says the error was raised, when that is a file of
  // an indexed library: a partial fit elsewhere, in another library and in
  // no file the traceback passes through, is not where it was raised.
  // Looked up once, and only for such a fit: most pastes have none.
  std::optional<std::optional<catalog::Catalog::FileOwner>> raised_in;
  auto raised_elsewhere = [&](const std::string& library) -> Result<bool> {
    if (!raised_in) {
      Result<std::optional<catalog::Catalog::FileOwner>> at = InnermostFrameOwner(*catalog_, input);
      if (!at) return tl::unexpected(at.error());
      raised_in = std::move(*at);
    }
    return raised_in->has_value() && (*raised_in)->library != library;
  };
  // A whole Python traceback, no frame cut out by a library, of a message
  // CPython words as it does what it raises itself.
  bool interpreter_raised = input.source == "traceback" && !input.frames_hidden &&
                            !input.frames.empty() && IsInterpreterWording(type, message);
  for (catalog::ErrorRecord& e : *sited) {
    const Assessment& a = *by_pk.at(e.pk);
    Match m;
    auto files = file_fit.find(e.library);
    if (!KeepOneVersion(e, frames, options.version,
                        files == file_fit.end() ? kNoSnapshots : files->second,
                        m.frame_versions)) {
      continue;
    }
    int best_frame = 0;
    // Each site's order once (reading a replaced site's guards is a JSON
    // parse); the error is vendored or replaced when every site is.
    int every_site = e.sites.empty() ? 0 : kSiteReplaced | kSiteVendored;
    std::vector<catalog::SiteRecord> on_frames;
    std::vector<std::pair<int, catalog::SiteRecord>> others;
    for (catalog::SiteRecord& s : e.sites) {
      int order = SiteOrder(s);
      every_site &= order;
      FrameFit fit = FrameEvidence(frames, s);
      if (fit.level > best_frame || (fit.level == best_frame && fit.depth > m.frame_depth)) {
        m.frame_depth = fit.depth;
      }
      best_frame = std::max(best_frame, fit.level);
      if (fit.level >= 2) {
        on_frames.push_back(std::move(s));
      } else {
        others.emplace_back(order, std::move(s));
      }
    }
    m.vendored = (every_site & kSiteVendored) != 0;
    m.replaced = (every_site & kSiteReplaced) != 0;
    std::stable_sort(others.begin(), others.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    m.frame_sites = static_cast<int>(on_frames.size());
    e.sites = std::move(on_frames);
    for (auto& [order, s] : others) e.sites.push_back(std::move(s));
    double base = a.base;
    m.fuzzy = a.fuzzy;
    m.strong = a.strong || best_frame >= 2;
    m.values = a.values;
    m.evidence = a.evidence;
    bool type_only = false;
    if (base < 0 && best_frame >= 2) {
      // A class errdex could not name (`raise error_class(...)`) composes a
      // text it cannot see either.
      bool built = e.dynamic || !NamesClass(e.exception);
      base = built ? 0.35 : 0.3;
      m.evidence = built ? "the traceback stands on the raise; its message is built at run time"
                         : "the traceback stands on the raise";
    } else if (base < 0 && named_set.count(e.pk) && !HasWords(e.message)) {
      // Its text is a value or built at run time: the printed type is the
      // only evidence, and it names this library's class.
      base = 0.3;
      type_only = true;
      m.evidence = sole_definer ? "only this library defines a class of the printed name; the "
                                  "message carries no words of the template"
                                : "the printed type is this library's class; the message carries "
                                  "no words of the template";
    } else if (base < 0) {
      continue;
    }
    // `raise type(e)(...)` raises the caught class or any subclass of it.
    bool caught_subclass = IsSubclass(type, e.exception, 0) && RaisesCaughtClass(e);
    if (caught_subclass) reraised_class.insert(e.pk);
    double type_fit = TypeFactor(type, input.status, e.exception);
    double score =
        base + (caught_subclass ? kTypeAgrees : type_fit) + ValueFit(e.message, m.values);
    if (OnlyInTests(e.sites)) score -= 0.02;
    if (best_module_fit > kModuleNone && e.exception == type) {
      auto fit = module_fits.find(e.library);
      m.module_fit = fit == module_fits.end() ? kModuleNone : fit->second;
      if (m.module_fit == best_module_fit) {
        score += kModuleAgrees;
        if (!sole_definer) m.evidence += "; the type's module is defined in this library";
      } else if (fit != module_fits.end()) {
        // The library defines a class of that name, not the one printed.
        score += kModuleDisagrees;
        other_class.insert(e.pk);
      }
    }
    if (best_frame == 3) score += 0.35;
    if (best_frame == 2) score += 0.2;
    if (best_frame == 1) score += 0.05;
    if (best_frame >= 2) m.evidence += "; a traceback frame is on this raise";
    m.named = named_set.count(e.pk) > 0 && m.module_fit == best_module_fit;
    m.type_only = type_only;
    if (RaisesKey(e, input.key)) {
      score += kKeyAgrees;
      m.evidence += "; the pasted type= names this variant";
    }
    m.rank = score;
    m.frame_level = best_frame;
    if (a.fuzzy && a.dice < kNearestWordingDice && best_frame < 2) {
      m.weak_reason = WeakReason::kNearestWording;
    } else if (best_frame == 0 && !a.full && !input.frames.empty()) {
      Result<bool> elsewhere = raised_elsewhere(e.library);
      if (!elsewhere) return tl::unexpected(elsewhere.error());
      if (*elsewhere) m.weak_reason = WeakReason::kOtherLibrary;
    }
    // Part of the message, raised as a type that is not the printed one
    // nor related to it, no frame on or near its raise: a phrase in common
    // (`must be a str` in `TypeError: note must be a str, not 'NoneType'`),
    // not the error. Measured in bench/README.md: never the right answer.
    if (m.weak_reason == WeakReason::kNone && !a.full && !a.fuzzy && best_frame < 2 &&
        type_fit <= kTypeContradicts) {
      m.weak_reason = WeakReason::kNearestWording;
    }
    // Of the reasons, this one says who raised it, so it comes first. The
    // traceback enters none of the error's files; or the error only
    // resembles the message and no frame stands on or near its raise
    // (`'int' object is not iterable` at a library's `for` line, with a
    // raise a few lines up or in another library worded alike).
    if (interpreter_raised &&
        (NeverEntered(input.frames, e.sites) || (a.fuzzy && best_frame < 2))) {
      m.weak_reason = WeakReason::kInterpreter;
    }
    m.error = std::move(e);
    matches.push_back(std::move(m));
  }
  // The traceback's last frame is where the error was raised: when it stands
  // on a candidate's raise, candidates nowhere near any frame fall behind.
  bool on_raise = std::any_of(matches.begin(), matches.end(),
                              [](const Match& m) { return m.frame_level == 3; });
  // More so when that raise's text is built at run time: no wording could
  // have confirmed it, so words fitting elsewhere say less against it.
  bool on_built_raise = std::any_of(matches.begin(), matches.end(), [&](const Match& m) {
    return m.frame_level == 3 && (m.error.dynamic || !NamesClass(m.error.exception));
  });
  // A printed type naming a library's class that has a fitting error there
  // contradicts every error of an unrelated type, however well its words fit
  // (they are usually the inner error the named one wraps).
  bool named_fits = std::any_of(matches.begin(), matches.end(),
                                [](const Match& m) { return m.named; });
  // Errors raised bare, the pasted type without a message: all of them are
  // candidates (pinned), of the --library and --version asked for.
  int64_t bare_errors =
      message.empty() ? std::count_if(matches.begin(), matches.end(),
                                      [](const Match& m) { return m.error.message.empty(); })
                      : 0;
  for (Match& m : matches) {
    if (on_raise && m.frame_level == 0) m.rank -= on_built_raise ? kOffBuiltRaise : kOffRaise;
    if (named_fits && !m.named && m.frame_level < 2) {
      // Another class of the printed name contradicts as an unrelated type
      // does: the agreement its name earned it goes too.
      bool unrelated = TypeFactor(type, input.status, m.error.exception) <= kTypeContradicts;
      bool namesake = other_class.count(m.error.pk) > 0;
      // A base or subclass of the printed class: a raise of that class would
      // have printed its own name (the inner error a wrapper of the printed
      // class re-raises with its text, `"%s in %r" % (exc, address)`).
      bool relative = !unrelated && m.error.exception != type && NamesClass(m.error.exception) &&
                      reraised_class.count(m.error.pk) == 0 &&
                      (IsSubclass(type, m.error.exception, 0) ||
                       IsSubclass(m.error.exception, type, 0));
      if (unrelated || namesake || relative) {
        m.rank -= kNamedTypeContradicts +
                  (namesake ? kTypeAgrees + kModuleDisagrees - kTypeContradicts : 0.0);
        m.evidence += "; the printed type is a different class";
      }
    }
    // A bare type that several errors raise without a message: an equal
    // fit for each, so a confident score for any would be a guess.
    if (message.empty() && bare_errors > 1 && m.error.message.empty() && m.frame_level < 2) {
      m.same_bare = bare_errors;
      m.rank = std::min(m.rank, kAmbiguousBare);
      m.strong = false;
      m.evidence += "; " + std::to_string(bare_errors) +
                    " errors of the catalog raise this type without a message: only a "
                    "traceback tells which";
    }
    m.score = std::round(std::clamp(m.rank, 0.0, 1.0) * 1000.0) / 1000.0;
  }
  if (matches.empty() && message.empty() && !input.exception.empty()) {
    // A lone word read as a type may have been the whole message.
    ParsedError as_message;
    as_message.message = input.exception;
    as_message.frames = input.frames;
    return Explain(as_message, options);
  }
  // Equal scores are ordered by evidence, then by where the errors are
  // (never by the id, a hash): the frame's own copy, code that runs before
  // code another module replaces, the original before a vendored copy, the
  // standard library before a package copying its text, more literal text.
  auto where = [](const Match& m) {
    const catalog::SiteRecord* s = m.error.sites.empty() ? nullptr : &m.error.sites.front();
    return std::make_tuple(m.error.library, s ? s->path : std::string(), s ? s->line : 0,
                           m.error.exception, m.error.template_text);
  };
  std::sort(matches.begin(), matches.end(), [&](const Match& x, const Match& y) {
    if (x.rank != y.rank) return x.rank > y.rank;
    if (x.frame_depth != y.frame_depth) return x.frame_depth > y.frame_depth;
    if (x.replaced != y.replaced) return !x.replaced;
    if (x.vendored != y.vendored) return !x.vendored;
    bool xs = IsStandardLibrary(x.error.library), ys = IsStandardLibrary(y.error.library);
    if (xs != ys) return xs;
    if (x.error.message.LiteralSize() != y.error.message.LiteralSize()) {
      return x.error.message.LiteralSize() > y.error.message.LiteralSize();
    }
    auto wx = where(x), wy = where(y);
    if (wx != wy) return wx < wy;
    return x.error.id < y.error.id;
  });
  if (matches.size() > options.top) matches.resize(options.top);
  for (Match& m : matches) {
    const std::vector<catalog::VersionPresence>& v = m.error.versions;
    if (v.size() < 2 || v.back().sites > 0) continue;
    Result<catalog::ErrorRecord> full = catalog_->Get(m.error.id);
    if (!full) return tl::unexpected(full.error());
    if (full->analysis) m.reworded_to = full->analysis->reworded_to;
  }
  return matches;
}

std::string_view WeakReasonName(WeakReason reason) {
  switch (reason) {
    case WeakReason::kNearestWording:
      return "nearest-wording";
    case WeakReason::kOtherLibrary:
      return "other-library";
    case WeakReason::kInterpreter:
      return "interpreter";
    case WeakReason::kNone:
      break;
  }
  return "";
}

}  // namespace errdex::match
