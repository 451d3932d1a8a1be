#include "cli/commands.h"

#include <pthread.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyze/analyze.h"
#include "analyze/llm.h"
#include "catalog/catalog.h"
#include "catalog/json.h"
#include "catalog/postgres.h"
#include "cli/build.h"
#include "cli/explain.h"
#include "cli/render.h"
#include "cli/run.h"
#include "core/memory.h"
#include "core/text.h"
#include "core/threads.h"
#include "extract/extractor.h"
#include "match/matcher.h"
#include "source/git_info.h"
#include "source/git_tree.h"
#include "source/pyenv.h"
#include "source/walk.h"
#include "web/export.h"
#include "web/server.h"
#include "web/site.h"

namespace errdex::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view kVersion = "0.1.0";
constexpr size_t kMaxWarnings = 20;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// git@github.com:owner/repo.git and https://github.com/owner/repo.git both
// become https://github.com/owner/repo; other URLs are kept as they are.
std::string WebUrl(std::string url) {
  if (url.rfind("git@", 0) == 0) {
    size_t colon = url.find(':');
    if (colon != std::string::npos)
      url = "https://" + url.substr(4, colon - 4) + "/" + url.substr(colon + 1);
  }
  if (url.size() > 4 && url.compare(url.size() - 4, 4, ".git") == 0) url.resize(url.size() - 4);
  return url;
}

struct Common {
  std::string db;
  bool json = false;
};

class Progress {
 public:
  explicit Progress(std::ostream& err) : err_(err), enabled_(isatty(STDERR_FILENO) == 1) {}
  void Update(size_t done, size_t total) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (done != total && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    err_ << "\rindexing" << label_ << ": " << done << "/" << total << " files\x1b[K" << std::flush;
    if (done == total) err_ << "\r\x1b[K" << std::flush;
  }
  // What is being indexed, when a run indexes several libraries.
  void SetLabel(std::string label) { label_ = label.empty() ? "" : " " + label; }

 private:
  std::ostream& err_;
  bool enabled_;
  std::string label_;
  std::chrono::steady_clock::time_point last_{};
};

Result<catalog::Catalog> OpenCatalog(const Common& c, catalog::OpenMode mode,
                                     std::ostream* err = nullptr) {
  std::function<void()> on_wait;
  if (err != nullptr) {
    on_wait = [err] {
      *err << "errdex: waiting for another errdex writing the catalog…\n" << std::flush;
    };
  }
  return catalog::Catalog::Open(c.db.empty() ? catalog::DefaultPath() : c.db, mode,
                                std::move(on_wait));
}

// A test hook: ERRDEX_FAILPOINT=<name> makes the run fail at that point,
// to show that nothing of it reaches the catalog.
Result<void> Failpoint(std::string_view name) {
  const char* at = std::getenv("ERRDEX_FAILPOINT");
  if (at != nullptr && name == at) {
    return Fail(ErrorCode::kInternal, "failpoint " + std::string(name));
  }
  return {};
}

Style TerminalStyle() {
  Style s;
  s.color = isatty(STDOUT_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr;
  return s;
}

struct IndexArgs {
  std::string path;
  std::string name;
  std::vector<std::string> revs;  // --rev, repeatable
  std::string rev_glob;           // --revs
  size_t last = 0;                // --last
  std::string url;
  std::string commit;
  int jobs = 0;
  uint64_t max_file_size = 5u << 20;
  std::vector<std::string> exclude;
  bool quiet = false;
  bool python_env = false;  // --python-env given
  std::string python;       // its interpreter
  bool force = false;
  bool analyze = true;  // false: --no-analyze
};

// What CLI11 cannot say: a PATH or --python-env, and which options go with
// each. Empty when the arguments are fine.
std::string IndexUsageError(const IndexArgs& args) {
  if (!args.python_env) {
    if (args.path.empty()) return "index: give a PATH to index, or --python-env";
    if (args.name.empty()) return "index: --name OWNER/REPO is required with a PATH";
    bool by_revision = !args.revs.empty() || !args.rev_glob.empty() || args.last > 0;
    if (args.force && !by_revision)
      return "index: --force is for --python-env and --rev/--revs/--last";
    return "";
  }
  if (!args.path.empty()) {
    return "index: give a PATH or --python-env, not both ('" + args.path +
           "' is a PATH; an interpreter goes right after --python-env)";
  }
  std::vector<std::string> extra;
  if (!args.name.empty()) extra.push_back("--name");
  if (!args.revs.empty()) extra.push_back("--rev");
  if (!args.rev_glob.empty()) extra.push_back("--revs");
  if (args.last > 0) extra.push_back("--last");
  if (!args.commit.empty()) extra.push_back("--commit");
  if (!args.url.empty()) extra.push_back("--url");
  if (extra.empty()) return "";
  std::string joined;
  for (const std::string& e : extra) joined += (joined.empty() ? "" : ", ") + e;
  return "index: --python-env takes each library's name, version and URL from its metadata; " +
         joined + " cannot be given with it";
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// One snapshot to index: what it is, and its files.
struct IndexTarget {
  catalog::SnapshotInfo info;
  source::WalkResult walked;
  double walk_seconds = 0;  // listing the files
  // Analyse the library after the write. Of several revisions in one run
  // only the last does: the analysis covers the whole library, and a run
  // cut short leaves errors without one, which the next index analyses.
  bool analyze = true;
};

Result<void> IndexSnapshot(const Common& common, const IndexArgs& args, IndexTarget& target,
                           const extract::Options& options, std::ostream& out, std::ostream& err);

// What the extract stage made of a target, ready to be written.
struct Extracted {
  Extraction extraction;
  int64_t parsed = 0;  // files read and parsed, not taken from the cache
  double seconds = 0;
};

// A target's files parsed, not yet linked: the extract stage's first half.
struct ParsedTarget {
  extract::ParsedFiles files;
  int64_t parsed = 0;
  double seconds = 0;
};

ParsedTarget ParseTarget(const IndexTarget& target, const extract::Options& options);
Extracted LinkTarget(IndexTarget& target, ParsedTarget parsed, const extract::Options& options);
Extracted ExtractTarget(IndexTarget& target, const extract::Options& options);
// Writes into `open` when given (several revisions share one connection,
// and what its last write found: Catalog's memo), else into a catalog of
// its own.
Result<void> WriteTarget(const Common& common, const IndexArgs& args, IndexTarget& target,
                         const Extracted& extracted, std::ostream& out, std::ostream& err,
                         catalog::Catalog* open = nullptr);

// Never indexed: tests raise errors on purpose, for no user to see; the
// standard library's site-packages holds the distributions, indexed apart.
constexpr std::string_view kTestDirs[] = {"test", "tests", "idle_test"};
constexpr std::string_view kSiteDirs[] = {"site-packages", "dist-packages"};

std::string RelativeTo(const std::string& path, const fs::path& root) {
  std::string rel = fs::path(path).lexically_relative(root).generic_string();
  return rel.empty() || rel == "." || rel.starts_with("..") ? path : rel;
}

// A distribution, or the standard library, to index: its target and
// whether the catalog already holds it as it is.
struct EnvTarget {
  IndexTarget target;
  std::string distribution;  // its name; empty for the standard library
  std::string normalized;    // PEP 503 name, for release tags (`jax-v0.4.30`)
  bool unchanged = false;
  // Pinned to the commit of a release tag the catalog holds from git; and
  // whether that snapshot is this very version (same rev), kept as it is.
  bool pinned = false;
  bool from_git = false;
};

// The directory of a release's commit that holds a distribution's installed
// files byte for byte (`src/` for jinja2; tried: the root, `src/`, `lib/`,
// `python/`): only then do its lines link to the release's. nullopt when the
// repository cannot be read here, or some installed file differs from the
// commit's or is not in it (a patched or generated file: its lines would
// point elsewhere).
std::optional<std::string> ReleaseLayout(const catalog::SnapshotInfo& git,
                                         const std::vector<source::SourceFile>& files,
                                         uint64_t max_size) {
  if (files.empty() || git.root.empty()) return std::nullopt;
  Result<std::unique_ptr<source::GitRepository>> repo = source::GitRepository::Open(git.root);
  if (!repo) return std::nullopt;
  Result<source::Revision> rev = (*repo)->Resolve(git.commit);
  if (!rev || rev->commit != git.commit) return std::nullopt;
  source::WalkOptions all;
  all.max_file_size = max_size;
  Result<source::WalkResult> listed = (*repo)->List(*rev, all);
  if (!listed) return std::nullopt;
  std::unordered_map<std::string, std::string> blob_at;
  for (const source::SourceFile& f : listed->files) blob_at[f.path] = f.blob;
  std::vector<std::string> installed;
  for (const source::SourceFile& f : files) {
    std::ifstream in(f.absolute, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) return std::nullopt;
    installed.push_back(source::BlobId(bytes));
  }
  for (std::string dir : {"", "src", "lib", "python"}) {
    bool all_same = true;
    for (size_t i = 0; i < files.size() && all_same; ++i) {
      auto it = blob_at.find(dir.empty() ? files[i].path : dir + "/" + files[i].path);
      all_same = it != blob_at.end() && it->second == installed[i];
    }
    if (all_same) return dir;
  }
  return std::nullopt;
}

// Links pinned to the release: when the catalog holds the distribution's
// release tag from git and the installed files are its, the snapshot takes
// that commit (and the directory they are in). A tag that is the version
// itself is the snapshot this one would replace: kept, this one not read
// (`from_git`), else it would be read again at every run.
Result<void> PinToRelease(catalog::Catalog& cat, EnvTarget& t, uint64_t max_size,
                          std::ostream& err) {
  catalog::SnapshotInfo& info = t.target.info;
  std::vector<std::string> names = {t.normalized};
  std::string repo = info.library.substr(info.library.rfind('/') + 1);
  if (repo != t.normalized) names.push_back(repo);
  Result<std::optional<catalog::SnapshotInfo>> release =
      cat.FindRelease(info.library, info.rev, names);
  if (!release) return tl::unexpected(release.error());
  if (!*release) return {};
  const catalog::SnapshotInfo& git = **release;
  std::optional<std::string> dir = ReleaseLayout(git, t.target.walked.files, max_size);
  if (git.rev == info.rev) {
    t.pinned = t.from_git = true;
    if (!dir) {
      err << "errdex: warning: " << t.distribution << " " << info.rev
          << ": installed files differ from " << info.library << "@" << info.rev
          << " as stored from git (or its repository is not here); that snapshot is kept\n";
    }
    return {};
  }
  if (!dir) return {};
  info.commit = git.commit;
  info.date = git.date;
  info.subdir = git.subdir.empty() ? *dir : dir->empty() ? git.subdir : git.subdir + "/" + *dir;
  // Pinned later than indexed: read again once, to store the commit.
  info.source_digest += git.commit.substr(0, 16);
  t.pinned = true;
  return {};
}

Result<std::optional<EnvTarget>> StdlibTarget(const source::PythonEnv& env,
                                              source::WalkOptions walk_options, std::ostream& err) {
  if (env.implementation != "cpython") {
    err << "errdex: warning: the standard library of " << env.implementation
        << " is not indexed (python/cpython is CPython's)\n";
    return std::optional<EnvTarget>();
  }
  for (std::string_view e : kSiteDirs) walk_options.exclude.emplace_back(e);
  EnvTarget t;
  auto walking = std::chrono::steady_clock::now();
  Result<source::WalkResult> walked = source::Walk(env.stdlib, walk_options);
  if (!walked) {
    return Fail(walked.error().code, "the standard library: " + walked.error().message);
  }
  t.target.walked = std::move(*walked);
  t.target.walk_seconds = Seconds(std::chrono::steady_clock::now() - walking);
  catalog::SnapshotInfo& info = t.target.info;
  info.library = "python/cpython";
  info.rev = env.version;
  info.kind = "dir";
  std::error_code ec;
  info.root = fs::canonical(env.stdlib, ec).string();
  if (ec) info.root = env.stdlib.string();
  info.url = "https://github.com/python/cpython";
  info.subdir = "Lib";
  info.source_digest =
      fmt::format("{:016x}{:016x}", source::FingerprintFiles(t.target.walked.files),
                  source::FingerprintReading(walk_options.exclude, walk_options.max_file_size));
  return std::optional<EnvTarget>(std::move(t));
}

EnvTarget DistributionTarget(source::Distribution& d, const source::WalkOptions& walk_options) {
  EnvTarget t;
  t.distribution = d.name;
  t.normalized = d.normalized_name;
  catalog::SnapshotInfo& info = t.target.info;
  info.library = d.library;
  info.rev = d.version;
  info.kind = "python-package";
  std::error_code ec;
  info.root = fs::canonical(d.site_dir, ec).string();
  if (ec) info.root = d.site_dir.string();
  // Unpinned: the metadata names the repository, not the commit released.
  info.url = d.repository_url;
  info.source_digest =
      fmt::format("{:016x}{:016x}", d.fingerprint,
                  source::FingerprintReading(walk_options.exclude, walk_options.max_file_size));
  for (source::SourceFile& f : d.files) {
    if (!source::IsExcludedPath(walk_options, f.path)) t.target.walked.files.push_back(std::move(f));
  }
  for (FileIssue& i : d.issues) {
    i.path = RelativeTo(i.path, d.site_dir);
    if (!source::IsExcludedPath(walk_options, i.path)) t.target.walked.issues.push_back(std::move(i));
  }
  return t;
}

// --python-env: the interpreter's standard library and every distribution
// installed in it, each its own library at its installed version. One
// that is stored as it is installed (same version, same metadata
// fingerprint) is not read again. Each snapshot is its own transaction; one
// that fails is a warning, the others go on, and the run fails at the end.

// A snapshot the catalog holds unchanged: said, not read again.
void ReportNotRead(const Common& common, const std::string& library, const std::string& rev,
                   json fields, std::ostream& out) {
  if (common.json) {
    fields["library"] = library;
    fields["rev"] = rev;
    fields["unchanged"] = true;
    fields["read"] = false;
    out << Dump(fields) << '\n';
  } else {
    out << library << "@" << rev << ": unchanged, not read\n";
  }
}

Result<void> RunPythonEnv(const Common& common, const IndexArgs& args, std::ostream& out,
                          std::ostream& err) {
  auto started = std::chrono::steady_clock::now();
  Result<source::PythonEnv> env = source::DescribePythonEnv(args.python);
  if (!env) return tl::unexpected(env.error());
  source::WalkOptions walk_options;
  walk_options.want = extract::IsSourcePath;
  walk_options.max_file_size = args.max_file_size;
  walk_options.exclude = args.exclude;
  for (std::string_view e : kTestDirs) walk_options.exclude.emplace_back(e);
  source::DistributionOptions dist_options;
  dist_options.want = extract::IsSourcePath;
  dist_options.max_file_size = args.max_file_size;
  std::vector<FileIssue> issues;
  Result<std::vector<source::Distribution>> dists =
      source::ReadDistributions(env->site_dirs, dist_options, &issues);
  if (!dists) return tl::unexpected(dists.error());
  source::DisambiguateLibraries(*dists);

  // What belongs to no listed distribution: metadata errdex cannot use,
  // shadowed copies, unreadable site dirs.
  std::set<std::pair<std::string, std::string>> own;
  for (const source::Distribution& d : *dists) {
    for (const FileIssue& i : d.issues) own.emplace(i.path, i.reason);
  }
  if (!args.quiet) {
    size_t shown = 0;
    for (const FileIssue& i : issues) {
      if (own.count({i.path, i.reason}) || i.reason == "empty") continue;
      if (++shown > kMaxWarnings) continue;
      err << "errdex: warning: " << i.path << ": not indexed (" << i.reason
          << (i.detail.empty() ? "" : ": " + i.detail) << ")\n";
    }
    if (shown > kMaxWarnings) {
      err << "errdex: warning: ... and " << shown - kMaxWarnings << " more\n";
    }
  }

  std::vector<EnvTarget> targets;
  Result<std::optional<EnvTarget>> stdlib = StdlibTarget(*env, walk_options, err);
  if (!stdlib) return tl::unexpected(stdlib.error());
  if (*stdlib) targets.push_back(std::move(**stdlib));
  size_t no_files = 0;
  std::vector<std::string> empty_ones;
  size_t failed = 0, failed_dists = 0;  // snapshots; distributions among them
  for (source::Distribution& d : *dists) {
    // Names become URL paths and file names: one errdex would refuse as
    // --name is not written.
    if (!catalog::IsLibraryName(d.library)) {
      ++failed;
      ++failed_dists;
      err << "errdex: warning: " << d.name << " " << d.version << ": not indexed (library name '"
          << d.library << "' is not OWNER/REPO)\n";
      continue;
    }
    EnvTarget t = DistributionTarget(d, walk_options);
    if (t.target.walked.files.empty()) {
      ++no_files;
      empty_ones.push_back(d.name + " " + d.version);
      if (common.json) {
        out << Dump({{"library", t.target.info.library},
                     {"rev", t.target.info.rev},
                     {"kind", t.target.info.kind},
                     {"distribution", d.name},
                     {"skipped", "no files"}})
            << '\n';
      }
      continue;
    }
    targets.push_back(std::move(t));
  }
  if (!args.quiet && !common.json && !empty_ones.empty()) {
    std::string names;
    for (const std::string& n : empty_ones) names += (names.empty() ? "" : ", ") + n;
    err << "errdex: note: no source files, not indexed: " << names << '\n';
  }

  // What the catalog holds, asked once before anything is read. Opening it
  // for writing creates (or upgrades) it.
  {
    Result<catalog::Catalog> cat = OpenCatalog(common, catalog::OpenMode::kReadWrite, &err);
    if (!cat) return tl::unexpected(cat.error());
    for (EnvTarget& t : targets) {
      catalog::SnapshotInfo& info = t.target.info;
      if (!t.distribution.empty()) ERRDEX_TRY(PinToRelease(*cat, t, args.max_file_size, err));
      if (t.from_git) continue;
      Result<std::optional<catalog::SnapshotInfo>> stored =
          cat->FindSnapshot(info.library, info.rev);
      if (!stored) return tl::unexpected(stored.error());
      t.unchanged = !args.force && *stored && (*stored)->source_digest == info.source_digest;
    }
  }

  Progress progress(err);
  extract::Options options;
  options.jobs = args.jobs;
  options.max_file_size = args.max_file_size;
  options.progress = [&](size_t done, size_t total) { progress.Update(done, total); };
  size_t indexed = 0, unchanged = 0, done = 0, pinned = 0;
  for (const EnvTarget& t : targets) pinned += t.pinned;
  for (EnvTarget& t : targets) {
    const catalog::SnapshotInfo& info = t.target.info;
    bool is_dist = !t.distribution.empty();
    ++done;
    if (t.from_git) {
      unchanged += is_dist;
      ReportNotRead(common, info.library, info.rev,
                    {{"kind", "git"}, {"distribution", t.distribution}, {"pinned", true}}, out);
      continue;
    }
    if (t.unchanged) {
      unchanged += is_dist;
      ReportNotRead(common, info.library, info.rev,
                    {{"kind", info.kind}, {"distribution", t.distribution}}, out);
      continue;
    }
    progress.SetLabel(fmt::format("{}@{} ({}/{})", info.library, info.rev, done, targets.size()));
    Result<void> r = IndexSnapshot(common, args, t.target, options, out, err);
    if (r) {
      indexed += is_dist;
      continue;
    }
    // A damaged catalog refuses every write: no use going on.
    if (r.error().code == ErrorCode::kCorrupt) return r;
    ++failed;
    failed_dists += is_dist;
    err << "errdex: warning: " << info.library << "@" << info.rev
        << ": not indexed: " << r.error().message << '\n';
  }
  size_t distributions = dists->size();
  double seconds = Seconds(std::chrono::steady_clock::now() - started);
  if (common.json) {
    out << Dump({{"python", env->executable},
                 {"version", env->version},
                 {"distributions", distributions},
                 {"indexed", indexed},
                 {"unchanged", unchanged},
                 {"skipped", no_files},
                 {"pinned", pinned},
                 {"failed", failed_dists},
                 {"seconds", seconds}})
        << '\n';
  } else {
    out << fmt::format("{}: {} indexed, {} unchanged, {} skipped (no files)",
                       Counted(distributions, "distribution"), indexed, unchanged, no_files);
    if (failed_dists > 0) out << fmt::format(", {} failed", failed_dists);
    // Links go to the release's lines only where the catalog holds its tag.
    if (pinned > 0) out << fmt::format("; {} pinned to a release tag", pinned);
    out << '\n';
  }
  if (failed > 0) {
    out.flush();
    return Fail(ErrorCode::kIo,
                fmt::format("{} not indexed (see the warnings); the others are in the catalog, "
                            "and a rerun reads only what is not",
                            failed));
  }
  return {};
}

Result<void> RunIndex(const Common& common, const IndexArgs& args, std::ostream& out,
                      std::ostream& err) {
  if (args.python_env) return RunPythonEnv(common, args, out, err);
  if (!catalog::IsLibraryName(args.name)) {
    return Fail(ErrorCode::kInvalidArgument,
                "--name must be OWNER/REPO (letters, digits, '.', '_', '-'; no '..'), got '" +
                    args.name + "'");
  }
  if (!args.commit.empty() &&
      (args.commit.size() != 40 ||
       args.commit.find_first_not_of("0123456789abcdef") != std::string::npos)) {
    return Fail(ErrorCode::kInvalidArgument,
                "--commit must be 40 lowercase hex digits, got '" + args.commit + "'");
  }
  std::error_code ec;
  if (!fs::exists(args.path, ec)) {
    return Fail(ErrorCode::kNotFound, args.path + ": no such file or directory");
  }
  source::WalkOptions walk_options;
  walk_options.want = extract::IsSourcePath;
  walk_options.max_file_size = args.max_file_size;
  walk_options.exclude = args.exclude;
  Progress progress(err);
  extract::Options options;
  options.jobs = args.jobs;
  options.max_file_size = args.max_file_size;
  options.progress = [&](size_t done, size_t total) { progress.Update(done, total); };

  // Revisions are read from the repository's objects, never checked out; a
  // directory that is no repository (or is not tracked by one) has one
  // snapshot, and --rev is only its name.
  bool by_revision = args.last > 0 || !args.rev_glob.empty();
  Result<std::unique_ptr<source::GitRepository>> repo = source::GitRepository::Open(args.path);
  if (!repo && by_revision) {
    return Fail(ErrorCode::kInvalidArgument,
                "--revs and --last read a git repository: " + repo.error().message);
  }
  if (repo && (by_revision || !args.revs.empty())) {
    if (!args.commit.empty()) {
      return Fail(ErrorCode::kInvalidArgument, "--commit is for a directory, not a revision");
    }
    Result<std::vector<source::Revision>> revs =
        source::SelectRevisions(**repo, args.revs, args.rev_glob, args.last);
    if (!revs) return tl::unexpected(revs.error());
    // Two releases of one commit (jax-v0.1.74 and jax-v0.1.75) are one
    // snapshot under the first name, the other stored as its alias: said,
    // as a user of the other sees only the first in ranges. A pre-release
    // tagged again as the release, or HEAD, is not news.
    for (const source::Revision& rev : *revs) {
      for (const std::string& other : rev.also) {
        if (!args.quiet && source::IsReleaseTag(other)) {
          err << "errdex: " << other << " is the commit of " << rev.name << " ("
              << rev.commit.substr(0, 12) << "), indexed once as " << rev.name
              << "; --version takes either name\n";
        }
      }
    }
    std::string root = fs::canonical(args.path, ec).string();
    std::string url = args.url.empty() ? WebUrl((*repo)->remote_url()) : args.url;
    std::string reading = fmt::format(
        "{:016x}", source::FingerprintReading(walk_options.exclude, walk_options.max_file_size));
    // A revision stored from the same commit, read the same way by the same
    // errdex, is not read again: what makes a rerun of `errdex build` cheap.
    std::vector<std::string> digests;
    std::vector<bool> unchanged;
    // One connection for the run: it also writes every revision, and keeps
    // what its last write found for the next (Catalog's memo).
    Result<catalog::Catalog> cat = OpenCatalog(common, catalog::OpenMode::kReadWrite, &err);
    if (!cat) return tl::unexpected(cat.error());
    for (const source::Revision& rev : *revs) {
      digests.push_back(source::FingerprintRevision(rev, (*repo)->subdir(), url) + reading);
      Result<std::optional<catalog::SnapshotInfo>> stored = cat->FindSnapshot(args.name, rev.name);
      if (!stored) return tl::unexpected(stored.error());
      // A tag added to a stored commit since is news for the snapshot's aliases.
      unchanged.push_back(!args.force && *stored && (*stored)->source_digest == digests.back() &&
                          (*stored)->aliases == rev.also);
    }
    extract::FileCache cache;
    options.cache = &cache;
    options.read = [&](const source::SourceFile& f, uint64_t max_size) {
      return (*repo)->ReadBlob(f.blob, max_size);
    };
    size_t last_read = revs->size();
    for (size_t i = 0; i < revs->size(); ++i) {
      if (!unchanged[i]) last_read = i;
    }
    // Each revision frees what the one before made, and remakes about as
    // much: pages handed back to the kernel in between came back as page
    // faults and zeroing, 4–7% of the CPU over jax's releases (bench/README.md,
    // "Freed pages kept through a run of revisions").
    if (std::count(unchanged.begin(), unchanged.end(), false) > 1) KeepFreedPages();
    // Three stages, each on its own thread and in revision order: a
    // revision's files are parsed (on every core) while the one before is
    // linked and the one before that written. Linking and writing are one
    // core's work each; run one after the other, a core idled through
    // every link. Parses stay one at a time, in order, so the blob cache's
    // counts stay per revision; a stage starts its next revision once the
    // next stage took the last one, so at most three are held at once.
    struct Listed {
      IndexTarget target;
      ParsedTarget parsed;
    };
    struct Prepared {
      IndexTarget target;
      Extracted extracted;
    };
    auto list_and_parse = [&](size_t i) -> Result<Listed> {
      const source::Revision& rev = (*revs)[i];
      Listed l;
      IndexTarget& target = l.target;
      target.analyze = i == last_read;
      auto listing = std::chrono::steady_clock::now();
      Result<source::WalkResult> listed = (*repo)->List(rev, walk_options);
      if (!listed) return tl::unexpected(listed.error());
      target.walked = std::move(*listed);
      target.walk_seconds = Seconds(std::chrono::steady_clock::now() - listing);
      catalog::SnapshotInfo& info = target.info;
      info.library = args.name;
      info.kind = "git";
      info.root = root;
      info.rev = rev.name;
      info.commit = rev.commit;
      info.date = rev.date;
      info.subdir = (*repo)->subdir();
      info.url = url;
      info.source_digest = digests[i];
      info.aliases = rev.also;
      extract::Options parse = options;
      parse.later_runs = i < last_read;
      l.parsed = ParseTarget(target, parse);
      return l;
    };
    // A stage's thread reports what escapes it (memory running out) as its
    // revision's error, which ends the run as any other does.
    auto guarded = [](const std::string& rev, auto&& work) -> decltype(work()) {
      try {
        return work();
      } catch (const std::exception& e) {
        return Fail(ErrorCode::kInternal, rev + ": " + e.what());
      }
    };
    Handoff<Result<Listed>> parsed_slot;
    Handoff<Result<Prepared>> linked_slot;
    struct Stages {
      Handoff<Result<Listed>>& parsed;
      Handoff<Result<Prepared>>& linked;
      std::vector<std::thread> threads;
      // However the writes end, the stages before them stop and are joined.
      ~Stages() {
        parsed.Close();
        linked.Close();
        for (std::thread& t : threads) t.join();
      }
    } stages{parsed_slot, linked_slot, {}};
    // Named for top and perf; the parse's workers inherit the name.
    stages.threads.emplace_back([&] {
      pthread_setname_np(pthread_self(), "parse");
      for (size_t i = 0; i < revs->size(); ++i) {
        if (unchanged[i]) continue;
        if (!parsed_slot.WaitEmpty()) break;
        Result<Listed> l = guarded((*revs)[i].name, [&] { return list_and_parse(i); });
        bool ok = l.has_value();
        if (!parsed_slot.Put(std::move(l)) || !ok) break;
      }
      parsed_slot.Close();
    });
    stages.threads.emplace_back([&] {
      pthread_setname_np(pthread_self(), "link");
      while (std::optional<Result<Listed>> l = parsed_slot.Take()) {
        Result<Prepared> p = tl::unexpected(Error{});
        if (*l) {
          std::string rev = (*l)->target.info.rev;
          p = guarded(rev, [&]() -> Result<Prepared> {
            Prepared ready;
            ready.target = std::move((*l)->target);
            ready.extracted = LinkTarget(ready.target, std::move((*l)->parsed), options);
            return ready;
          });
        } else {
          p = tl::unexpected(l->error());
        }
        bool ok = p.has_value();
        if (!linked_slot.Put(std::move(p)) || !ok) break;
      }
      linked_slot.Close();
    });
    size_t read = 0;
    for (size_t i = 0; i < revs->size(); ++i) {
      const source::Revision& rev = (*revs)[i];
      if (unchanged[i]) {
        ReportNotRead(common, args.name, rev.name, {{"commit", rev.commit}, {"kind", "git"}},
                      out);
        continue;
      }
      ++read;
      std::optional<Result<Prepared>> p = linked_slot.Take();
      if (!p) return Fail(ErrorCode::kInternal, "the extraction of " + rev.name + " stopped");
      if (!*p) return tl::unexpected(p->error());
      ERRDEX_TRY(WriteTarget(common, args, (*p)->target, (*p)->extracted, out, err, &*cat));
    }
    if (read > 1 && !common.json) {
      out << fmt::format("{} revisions: {} parsed, {} reused from an earlier revision\n", read,
                         Counted(static_cast<int64_t>(cache.misses()), "file"), cache.hits());
    }
    return {};
  }

  IndexTarget target;
  auto walking = std::chrono::steady_clock::now();
  Result<source::WalkResult> walked = source::Walk(args.path, walk_options);
  if (!walked) return tl::unexpected(walked.error());
  target.walked = std::move(*walked);
  target.walk_seconds = Seconds(std::chrono::steady_clock::now() - walking);
  catalog::SnapshotInfo& info = target.info;
  info.library = args.name;
  info.root = fs::canonical(args.path, ec).string();
  info.kind = "dir";
  if (std::optional<source::GitInfo> git = source::DescribeGit(args.path)) {
    info.kind = "git";
    info.commit = git->commit;
    info.date = git->date;
    info.subdir = git->subdir;
    info.url = WebUrl(git->remote_url);
  }
  if (!args.url.empty()) info.url = args.url;
  // A tree that is not a work tree (a release tarball, a materialised
  // snapshot) can still be pinned to the commit it came from, for links.
  if (!args.commit.empty()) {
    if (!info.commit.empty() && info.commit != args.commit) {
      return Fail(ErrorCode::kInvalidArgument,
                  "--commit " + args.commit + " differs from the work tree's HEAD " + info.commit);
    }
    info.commit = args.commit;
  }
  if (args.revs.size() > 1) {
    return Fail(ErrorCode::kInvalidArgument,
                "one --rev names the one snapshot of a directory, and " +
                    repo.error().message);
  }
  info.rev = !args.revs.empty() ? args.revs.front() : info.commit;
  return IndexSnapshot(common, args, target, options, out, err);
}

Result<void> IndexSnapshot(const Common& common, const IndexArgs& args, IndexTarget& target,
                           const extract::Options& options, std::ostream& out, std::ostream& err) {
  Extracted extracted = ExtractTarget(target, options);
  return WriteTarget(common, args, target, extracted, out, err);
}

ParsedTarget ParseTarget(const IndexTarget& target, const extract::Options& options) {
  auto started = std::chrono::steady_clock::now();
  ParsedTarget p;
  size_t cached_before = options.cache != nullptr ? options.cache->misses() : 0;
  p.files = extract::ParseFiles(target.walked.files, options);
  p.parsed = options.cache != nullptr
                 ? static_cast<int64_t>(options.cache->misses() - cached_before)
                 : static_cast<int64_t>(target.walked.files.size());
  p.seconds = Seconds(std::chrono::steady_clock::now() - started);
  return p;
}

Extracted LinkTarget(IndexTarget& target, ParsedTarget parsed, const extract::Options& options) {
  auto started = std::chrono::steady_clock::now();
  Extracted e;
  e.extraction = extract::LinkFiles(std::move(parsed.files), target.walked.files, options);
  e.parsed = parsed.parsed;
  for (FileIssue& i : target.walked.issues) e.extraction.issues.push_back(std::move(i));
  std::stable_sort(e.extraction.issues.begin(), e.extraction.issues.end(),
                   [](const FileIssue& a, const FileIssue& b) { return a.path < b.path; });
  e.seconds = parsed.seconds + Seconds(std::chrono::steady_clock::now() - started);
  return e;
}

Extracted ExtractTarget(IndexTarget& target, const extract::Options& options) {
  ParsedTarget parsed = ParseTarget(target, options);
  return LinkTarget(target, std::move(parsed), options);
}

Result<void> WriteTarget(const Common& common, const IndexArgs& args, IndexTarget& target,
                         const Extracted& extracted, std::ostream& out, std::ostream& err,
                         catalog::Catalog* open) {
  auto extracted_at = std::chrono::steady_clock::now();
  const catalog::SnapshotInfo& info = target.info;
  const Extraction& extraction = extracted.extraction;
  int64_t parsed = extracted.parsed;

  // Everything above ran without the catalog's lock: a writer already at
  // work delays the write below, it does not cost the extraction.
  std::optional<catalog::Catalog> own;
  if (open == nullptr) {
    Result<catalog::Catalog> opened = OpenCatalog(common, catalog::OpenMode::kReadWrite, &err);
    if (!opened) return tl::unexpected(opened.error());
    own.emplace(std::move(*opened));
  }
  catalog::Catalog* cat = open != nullptr ? open : &*own;
  // Sites, prefilter and analysis in one transaction: a failure or a kill
  // at any moment leaves the catalog as it was.
  // How long writers queue for the lock, and hold it, is what bounds
  // several indexers writing one catalog at once (`errdex build --jobs`).
  auto locking = std::chrono::steady_clock::now();
  Result<catalog::WriteTransaction> tx = catalog::WriteTransaction::Begin(*cat);
  if (!tx) return tl::unexpected(tx.error());
  auto locked_at = std::chrono::steady_clock::now();
  // Of several revisions in one run, only the last is analysed.
  bool analyses = args.analyze && target.analyze;
  std::optional<analyze::ClassesBefore> classes;
  if (analyses) {
    Result<analyze::ClassesBefore> c = analyze::ReadClassesBefore(*cat, info.library);
    if (!c) return tl::unexpected(c.error());
    classes = std::move(*c);
  }
  match::PrefilterBuilder prefilter;
  // Of several revisions in one run, the last builds the library's
  // prefilter, which covers them all.
  Result<catalog::WriteSummary> written =
      cat->WriteSnapshot(info, extraction, target.analyze ? &prefilter : nullptr);
  if (!written) return tl::unexpected(written.error());
  ERRDEX_TRY(Failpoint("index-after-sites"));
  // Analysis reads what the write stored; an unchanged snapshot keeps its
  // analysis unless an older errdex left the library without one.
  auto written_at = std::chrono::steady_clock::now();
  std::optional<analyze::AnalyzeSummary> analysed;
  // Counted only where it decides something: the count scans the
  // library's errors, after every revision's write.
  bool analyse_now = analyses && !written->unchanged;
  if (analyses && written->unchanged) {
    Result<int64_t> unanalysed = cat->CountUnanalyzed(info.library);
    if (!unanalysed) return tl::unexpected(unanalysed.error());
    analyse_now = *unanalysed > 0;
  }
  if (analyse_now) {
    Result<analyze::AnalyzeSummary> a = analyze::AnalyzeCatalog(*cat, info.library);
    if (!a) return tl::unexpected(a.error());
    analysed = *a;
  }
  std::vector<std::string> dependents;
  if (classes && !written->unchanged) {
    Result<std::vector<std::string>> d = analyze::AnalyzeDependents(*cat, info.library, *classes);
    if (!d) return tl::unexpected(d.error());
    dependents = std::move(*d);
  }
  ERRDEX_TRY(Failpoint("index-before-commit"));
  ERRDEX_TRY(tx->Commit());
  auto now = std::chrono::steady_clock::now();
  auto secs = [](auto d) { return std::chrono::duration<double>(d).count(); };
  double seconds = target.walk_seconds + extracted.seconds + secs(now - extracted_at);

  std::map<std::string, int64_t> skipped;
  std::map<std::string, int64_t> recovered;
  for (const FileIssue& i : extraction.issues) ++(i.skipped ? skipped : recovered)[i.reason];
  if (!args.quiet) {
    // Empty files (package __init__.py) are common and harmless: one line for all.
    size_t shown = 0;
    size_t rest = 0;
    for (const FileIssue& i : extraction.issues) {
      if (i.reason == "empty") continue;
      if (shown == kMaxWarnings) {
        ++rest;
        continue;
      }
      ++shown;
      err << "errdex: warning: " << i.path << ": "
          << (i.skipped ? "skipped" : "indexed with recovery") << " (" << i.reason
          << (i.detail.empty() ? "" : ": " + i.detail) << ")\n";
    }
    if (rest > 0) err << "errdex: warning: ... and " << rest << " more (see errdex stats)\n";
    if (skipped.count("empty")) {
      err << "errdex: warning: " << Counted(skipped["empty"], "empty file") << " skipped\n";
    }
  }
  if (common.json) {
    out << Dump({{"library", info.library},
                 {"rev", info.rev},
                 {"commit", info.commit},
                 {"kind", info.kind},
                 {"files", extraction.files_scanned},
                 {"parsed_files", parsed},
                 {"bytes", extraction.bytes_scanned},
                 {"errors", written->errors},
                 {"sites", written->sites},
                 {"new_errors", written->new_errors},
                 {"removed_errors", written->removed_errors},
                 {"unchanged", written->unchanged},
                 {"non_sites", extraction.non_sites.size()},
                 {"reanalysed", dependents},
                 {"skipped_files", skipped},
                 {"recovered_files", recovered},
                 {"seconds", seconds},
                 {"walk_seconds", target.walk_seconds},
                 {"extract_seconds", extracted.seconds},
                 {"write_seconds", secs(written_at - extracted_at)},
                 {"analyze_seconds", secs(now - written_at)},
                 {"lock_wait_seconds", secs(locked_at - locking)},
                 {"lock_held_seconds", secs(now - locked_at)}})
        << '\n';
    return {};
  }
  std::string at =
      info.rev.empty() ? "" : "@" + info.rev.substr(0, std::min<size_t>(12, info.rev.size()));
  out << fmt::format("{}{}: {} ({:.1f} MB) in {:.2f} s: {} at {}", info.library, at,
                     Counted(extraction.files_scanned, "file"),
                     static_cast<double>(extraction.bytes_scanned) / 1e6, seconds,
                     Counted(written->errors, "error"), Counted(written->sites, "site"));
  if (written->unchanged) {
    out << " (unchanged)";
  } else if (written->new_errors || written->removed_errors) {
    out << fmt::format(" (+{} new, -{} gone)", written->new_errors, written->removed_errors);
  }
  out << '\n';
  if (analysed) {
    out << fmt::format("analysed {}: {}, {} with valid values, {} internal\n",
                       Counted(analysed->errors, "error"),
                       Counted(static_cast<int64_t>(analysed->by_family.size()), "family"),
                       analysed->with_valid_values, analysed->internal);
  }
  if (!dependents.empty()) {
    out << fmt::format("analysed again, for the exception classes it changed: {}\n",
                       fmt::join(dependents, ", "));
  }
  int64_t skipped_total = 0;
  for (const auto& [reason, n] : skipped) skipped_total += n;
  if (skipped_total > 0)
    out << fmt::format("{} skipped (errdex stats tells why)\n", Counted(skipped_total, "file"));
  return {};
}

Result<void> RunAnalyze(const Common& common, const std::string& library, std::ostream& out,
                        std::ostream& err) {
  Result<catalog::Catalog> cat = OpenCatalog(common, catalog::OpenMode::kReadWrite, &err);
  if (!cat) return tl::unexpected(cat.error());
  auto started = std::chrono::steady_clock::now();
  Result<analyze::AnalyzeSummary> a = analyze::AnalyzeCatalog(*cat, library);
  if (!a) return tl::unexpected(a.error());
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (common.json) {
    out << Dump({{"errors", a->errors},
                 {"internal", a->internal},
                 {"version_mismatch", a->version_mismatch},
                 {"with_valid_values", a->with_valid_values},
                 {"with_related", a->with_related},
                 {"with_example_fix", a->with_fix},
                 {"families", a->by_family},
                 {"seconds", seconds}})
        << '\n';
    return {};
  }
  out << fmt::format(
      "{} analysed in {:.2f} s: {} with valid values, {} with an example fix, {} with "
      "related errors, {} internal ({} version mismatch)\n",
      Counted(a->errors, "error"), seconds, a->with_valid_values, a->with_fix, a->with_related,
      a->internal, a->version_mismatch);
  std::vector<std::pair<int64_t, std::string>> ranked;
  for (const auto& [slug, n] : a->by_family) ranked.emplace_back(-n, slug);
  std::sort(ranked.begin(), ranked.end());
  for (const auto& [n, slug] : ranked) out << fmt::format("  {:<24} {}\n", slug, -n);
  return {};
}

struct EnrichArgs {
  analyze::LlmOptions llm;
  std::string library;
  int64_t limit = 20;
};

// Asks the model about each error without enrichment yet, storing each
// answer as it comes: an interrupted run keeps what it got. Fails only when
// every request failed.
Result<void> RunEnrich(const Common& common, EnrichArgs args, std::ostream& out,
                       std::ostream& err) {
  if (const char* key = std::getenv("ERRDEX_LLM_API_KEY"); key != nullptr) args.llm.api_key = key;
  Result<catalog::Catalog> cat = OpenCatalog(common, catalog::OpenMode::kReadWrite, &err);
  if (!cat) return tl::unexpected(cat.error());
  Result<std::vector<std::string>> ids = cat->ErrorsWithoutEnrichment(args.library, args.limit);
  if (!ids) return tl::unexpected(ids.error());
  int64_t done = 0;
  int64_t failed = 0;
  int64_t rejected = 0;  // answers that named what the catalog does not know
  std::map<std::string, int64_t> reasons;
  Error last;
  for (const std::string& id : *ids) {
    Result<catalog::ErrorRecord> e = cat->Get(id);
    if (!e) return tl::unexpected(e.error());
    Result<Enrichment> prose = analyze::Enrich(args.llm, *e);
    if (!prose) {
      // A bad endpoint or model name fails every request the same way.
      if (prose.error().code == ErrorCode::kInvalidArgument &&
          prose.error().message.rfind("the model refused", 0) != 0) {
        return tl::unexpected(prose.error());
      }
      ++failed;
      if (StartsWith(prose.error().message, analyze::kRejected)) ++rejected;
      last = prose.error();
      err << "errdex: warning: " << id << ": " << prose.error().message << '\n';
      continue;
    }
    ERRDEX_TRY(cat->WriteEnrichment(id, *prose));
    ++done;
  }
  if (common.json) {
    out << Dump({{"enriched", done},
                 {"failed", failed},
                 {"rejected", rejected},
                 {"candidates", ids->size()}})
        << '\n';
  } else {
    out << fmt::format("{} enriched by {}, {} failed, {} of them rejected ({} waiting)\n",
                       Counted(done, "error"), args.llm.model, failed, rejected, ids->size());
  }
  if (failed > 0 && done == 0) {
    return Fail(last.code, "every request failed; the last: " + last.message);
  }
  return {};
}

Result<void> RunServe(const Common& common, web::ServeOptions options, std::ostream& err) {
  options.db = common.db.empty() ? catalog::DefaultPath() : common.db;
  Result<std::unique_ptr<web::Server>> server = web::Server::Create(options);
  if (!server) return tl::unexpected(server.error());
  err << fmt::format("errdex: serving {} on http://{}:{}/ (Ctrl-C stops)\n",
                     catalog::IsPostgresUrl(options.db) ? catalog::RedactUrl(options.db)
                                                        : options.db,
                     options.host, (*server)->port());
  err.flush();
  return (*server)->Run();
}

Result<void> RunExport(const Common& common, const std::string& dir, std::ostream& out) {
  std::string db = common.db.empty() ? catalog::DefaultPath() : common.db;
  Result<web::ExportSummary> s = web::ExportSite(db, dir);
  if (!s) return tl::unexpected(s.error());
  out << fmt::format("{} exported to {}: {}, {:.1f} MB\n", Counted(s->errors, "error"), dir,
                     Counted(s->files, "file"), static_cast<double>(s->bytes) / 1e6);
  return {};
}

Result<void> RunFamilies(const Common& common, std::ostream& out) {
  Result<catalog::Catalog> cat = OpenCatalog(common, catalog::OpenMode::kReadOnly);
  if (!cat) return tl::unexpected(cat.error());
  Result<std::vector<FamilyInfo>> families = cat->Families(3);
  if (!families) return tl::unexpected(families.error());
  if (families->empty() && !common.json) {
    out << "no analysis in this catalog yet: run errdex analyze\n";
    return {};
  }
  for (const FamilyInfo& f : *families) {
    if (common.json) {
      out << Dump(catalog::FamilyJson(f)) << '\n';
      continue;
    }
    out << fmt::format("{:<24} {:>14}  {:>13}  {}\n", f.slug, Counted(f.errors, "error"),
                       Counted(f.libraries, "library"), f.name);
  }
  return {};
}

Result<void> RunList(const Common& common, const std::string& library, int64_t limit,
                     std::ostream& out) {
  Result<catalog::Catalog> cat = OpenCatalog(common, catalog::OpenMode::kReadOnly);
  if (!cat) return tl::unexpected(cat.error());
  catalog::ListQuery q;
  q.library = library;
  q.limit = limit;
  Result<std::vector<catalog::ErrorRecord>> errors = cat->List(q);
  if (!errors) return tl::unexpected(errors.error());
  Style style = TerminalStyle();
  for (const catalog::ErrorRecord& e : *errors) {
    if (common.json) {
      out << Dump(catalog::ErrorSummaryJson(e)) << '\n';
    } else {
      RenderErrorLine(e, style, out);
    }
  }
  return {};
}

Result<void> RunSearch(const Common& common, const std::string& query, int64_t limit,
                       std::ostream& out) {
  Result<catalog::Catalog> cat = OpenCatalog(common, catalog::OpenMode::kReadOnly);
  if (!cat) return tl::unexpected(cat.error());
  Result<std::vector<catalog::ErrorRecord>> found = cat->Search(query, limit);
  if (!found) return tl::unexpected(found.error());
  if (common.json) {
    // One document, the very answer of the server's /api/search, so that a
    // script reads either the same way.
    out << Dump(web::SearchJson(*found, web::Links{})) << '\n';
    return {};
  }
  Style style = TerminalStyle();
  for (const catalog::ErrorRecord& e : *found) RenderErrorLine(e, style, out);
  return {};
}

Result<void> RunStats(const Common& common, std::ostream& out) {
  Result<catalog::Catalog> cat = OpenCatalog(common, catalog::OpenMode::kReadOnly);
  if (!cat) return tl::unexpected(cat.error());
  Result<catalog::Stats> stats = cat->GetStats();
  if (!stats) return tl::unexpected(stats.error());
  if (common.json) {
    out << Dump(catalog::StatsJson(*stats)) << '\n';
  } else {
    RenderStats(*stats, out);
  }
  return {};
}

// Exit 0 with a one-line report, or the problems on stdout and exit 1.
Result<void> RunCheck(const Common& common, std::ostream& out) {
  std::string path = common.db.empty() ? catalog::DefaultPath() : common.db;
  // PostgreSQL checks its own pages (data checksums, amcheck); errdex
  // checks what it wrote on both.
  bool pg = catalog::IsPostgresUrl(path);
  if (pg) path = catalog::RedactUrl(path);
  Result<catalog::Catalog> cat = OpenCatalog(common, catalog::OpenMode::kReadOnly);
  if (!cat) return tl::unexpected(cat.error());
  Result<catalog::CheckReport> report = cat->Check();
  if (!report) return tl::unexpected(report.error());
  if (common.json) {
    out << Dump({{"ok", report->problems.empty()},
                 {"problems", report->problems},
                 {"libraries", report->libraries},
                 {"snapshots", report->snapshots},
                 {"errors", report->errors},
                 {"sites", report->sites},
                 {"analyses", report->analyses},
                 {"enrichments", report->enrichments}})
        << '\n';
  } else if (report->problems.empty()) {
    out << fmt::format(
        "{}: ok: {}content hashes of {}, {}, {}, {}, {}, {}\n", path,
        pg ? "" : "SQLite integrity_check and ",
        Counted(report->libraries, "library"), Counted(report->snapshots, "snapshot"),
        Counted(report->errors, "error"), Counted(report->sites, "site"),
        Counted(report->analyses, "analysis", "analyses"),
        Counted(report->enrichments, "enrichment"));
  } else {
    for (const std::string& p : report->problems) out << path << ": " << p << '\n';
  }
  if (!report->problems.empty()) {
    return Fail(ErrorCode::kCorrupt,
                "the catalog is damaged: " +
                    Counted(static_cast<int64_t>(report->problems.size()), "problem") +
                    " (re-index into a fresh catalog, or restore a copy)");
  }
  return {};
}

Result<std::string> ReadAll(std::istream& in, size_t limit) {
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > limit) {
      return Fail(ErrorCode::kInvalidArgument,
                  "input is larger than 10 MB; give the end of the output (the traceback) instead");
    }
  }
  return text;
}

struct ExplainArgs {
  std::vector<std::string> text;
  size_t top = 5;
  std::string library;
  std::string version;
  bool jsonl = false;
};

// --version names a version some library of the catalog was indexed at,
// as its rev or as another name of its commit: the rev it stands for, "" for
// none given. A name that is an alias is said on `err`.
Result<std::string> ResolveVersionArg(catalog::Catalog& cat, const ExplainArgs& args,
                                      std::ostream& err) {
  if (args.version.empty()) return std::string();
  Result<std::optional<std::string>> rev = cat.ResolveVersion(args.version, args.library);
  if (!rev) return tl::unexpected(rev.error());
  if (*rev) {
    if (**rev != args.version) {
      err << "errdex: " << args.version << " is the commit of " << **rev
          << ", indexed once under that name\n";
    }
    return **rev;
  }
  Result<std::set<std::string>> known = cat.VersionNames(args.library);
  if (!known) return tl::unexpected(known.error());
  std::string list;
  for (const std::string& v : *known) list += (list.empty() ? "" : ", ") + v;
  if (list.size() > 300) list = list.substr(0, 300) + "...";
  return Fail(ErrorCode::kNotFound, "--version " + args.version +
                                        ": no indexed version has that name (indexed: " + list + ")");
}

Result<void> RunShow(const Common& common, const std::string& id, const std::string& version,
                     std::ostream& out, std::ostream& err) {
  Result<catalog::Catalog> cat = OpenCatalog(common, catalog::OpenMode::kReadOnly);
  if (!cat) return tl::unexpected(cat.error());
  if (!version.empty()) {
    ExplainArgs named;
    named.version = version;
    Result<std::string> rev = ResolveVersionArg(*cat, named, err);
    if (!rev) return tl::unexpected(rev.error());
    cat->SetVersion(*rev);
  }
  Result<catalog::ErrorRecord> e = cat->Get(id);
  if (!e) return tl::unexpected(e.error());
  if (common.json) {
    out << Dump(catalog::ErrorJson(*e)) << '\n';
  } else {
    RenderError(*e, TerminalStyle(), out);
  }
  return {};
}

Result<int> RunExplain(const Common& common, const ExplainArgs& args, std::ostream& out,
                       std::ostream& err) {
  if (args.jsonl) {
    if (!args.text.empty()) {
      return Fail(ErrorCode::kInvalidArgument, "--jsonl reads its inputs from stdin, not arguments");
    }
    Result<catalog::Catalog> cat = OpenCatalog(common, catalog::OpenMode::kReadOnly);
    if (!cat) return tl::unexpected(cat.error());
    Result<std::string> version = ResolveVersionArg(*cat, args, err);
    if (!version) return tl::unexpected(version.error());
    cat->SetVersion(*version);
    match::ExplainOptions options;
    options.top = args.top;
    options.library = args.library;
    options.version = *version;
    Result<size_t> matched = ExplainLines(*cat, options, std::cin, out, err);
    if (!matched) return tl::unexpected(matched.error());
    return 0;
  }
  ExplainRequest request;
  if (args.text.empty() || (args.text.size() == 1 && args.text[0] == "-")) {
    if (args.text.empty() && isatty(STDIN_FILENO) == 1) {
      return Fail(ErrorCode::kInvalidArgument,
                  "give the error text as an argument, or pipe it on stdin (errdex explain -)");
    }
    Result<std::string> text = ReadAll(std::cin, kMaxInputBytes);
    if (!text) return tl::unexpected(text.error());
    request.text = std::move(*text);
  } else {
    for (const std::string& t : args.text) {
      if (!request.text.empty()) request.text.push_back(' ');
      request.text += t;
    }
  }
  request.json = common.json;
  request.color = TerminalStyle().color;
  request.options.top = args.top;
  request.options.library = args.library;
  Result<catalog::Catalog> cat = OpenCatalog(common, catalog::OpenMode::kReadOnly);
  if (!cat) return tl::unexpected(cat.error());
  Result<std::string> version = ResolveVersionArg(*cat, args, err);
  if (!version) return tl::unexpected(version.error());
  request.options.version = *version;
  cat->SetVersion(*version);
  Result<bool> matched = ExplainText(*cat, request, out, err);
  if (!matched) return tl::unexpected(matched.error());
  return 0;
}

Result<int> RunAndExplain(const Common& common, const std::vector<std::string>& command,
                          const ExplainArgs& args, std::ostream& out, std::ostream& err) {
  out.flush();
  Result<RunResult> run = RunCommand(command, kMaxInputBytes);
  if (!run) return tl::unexpected(run.error());
  if (run->exit_code == 0) return 0;
  ExplainRequest request;
  request.text = std::move(run->output);
  request.json = common.json;
  request.color = isatty(STDERR_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr;
  request.options.top = args.top;
  request.options.library = args.library;
  Result<catalog::Catalog> cat = OpenCatalog(common, catalog::OpenMode::kReadOnly);
  if (!cat) {
    err << "errdex: warning: cannot explain: " << cat.error().message << '\n';
    return run->exit_code;
  }
  Result<std::string> version = ResolveVersionArg(*cat, args, err);
  if (!version) {
    err << "errdex: warning: cannot explain: " << version.error().message << '\n';
    return run->exit_code;
  }
  request.options.version = *version;
  cat->SetVersion(*version);
  // The report goes where the error went: stderr, unless --json asked for data.
  std::ostream& report = common.json ? out : err;
  if (!common.json)
    report << "\n"
           << (request.color ? "\x1b[1m" : "") << "errdex: " << (request.color ? "\x1b[0m" : "")
           << "the command failed with exit code " << run->exit_code << "\n";
  Result<bool> matched = ExplainText(*cat, request, report, err);
  if (!matched) err << "errdex: warning: cannot explain: " << matched.error().message << '\n';
  return run->exit_code;
}

}  // namespace

int Run(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"errdex: the errors a library can raise, from its source code"};
  app.name("errdex");
  app.set_version_flag("--version", std::string(kVersion));
  app.require_subcommand(1);
  Common common;
  app.add_option("--db", common.db,
                 "Catalog: a SQLite file, or postgresql://[user[:password]@]host[:port]/dbname "
                 "(default: $ERRDEX_DB, else $XDG_DATA_HOME/errdex/catalog.db)");

  IndexArgs index;
  CLI::App* index_cmd = app.add_subcommand("index", "Index a source tree into the catalog");
  index_cmd->add_option(
      "path", index.path,
      "Directory or file; a git repository (work tree or bare) for --rev/--revs/--last");
  index_cmd->add_option("--name", index.name, "Library name, OWNER/REPO (required with a PATH)");
  CLI::Option* python_env =
      index_cmd
          ->add_option("--python-env", index.python,
                       "Instead of a PATH: every distribution installed in this Python "
                       "interpreter (default python3), each its own library at its version, "
                       "and its standard library as python/cpython")
          ->expected(0, 1);
  index_cmd->add_flag("--force", index.force,
                      "With --python-env or revisions: read every distribution or revision "
                      "again, even one stored unchanged");
  index_cmd->add_option("--rev", index.revs,
                        "In a git repository: a revision to read from its objects (repeatable); "
                        "else the snapshot's name (default: the work tree as it is)");
  index_cmd->add_option("--revs", index.rev_glob,
                        "Every tag matching this glob (e.g. 'v1.2*'), read from git");
  index_cmd->add_option("--last", index.last, "The N most recent release tags, read from git")
      ->check(CLI::PositiveNumber);
  index_cmd->add_option("--url", index.url, "Repository URL (default: the git remote 'origin')");
  index_cmd->add_option("--commit", index.commit,
                        "The commit a non-git tree was taken from (40 hex digits), for links");
  index_cmd
      ->add_option("--jobs,-j", index.jobs,
                   "Threads that parse (default: one per core); with several revisions, one more "
                   "links and one writes")
      ->check(CLI::NonNegativeNumber);
  index_cmd
      ->add_option("--max-file-size", index.max_file_size,
                   "Skip files larger than this many bytes (default 5 MB)")
      ->check(CLI::PositiveNumber);
  index_cmd->add_option("--exclude", index.exclude,
                        "Leave out files and directories matching this glob (repeatable)");
  index_cmd->add_flag("--quiet,-q", index.quiet, "No per-file warnings");
  index_cmd->add_flag("--no-analyze{false}", index.analyze,
                      "Leave the analysis to a later 'errdex analyze' (errdex build runs one "
                      "once every library is written)");
  index_cmd->add_flag("--json", common.json, "Print the summary as JSON");

  BuildArgs build;
  CLI::App* build_cmd = app.add_subcommand(
      "build",
      "Index the libraries a manifest lists (doc/build.md), each by an indexer process of its "
      "own, several at once");
  build_cmd->add_option("manifest", build.manifest, "The manifest (JSON)")->required();
  build_cmd->add_option("--repos", build.repos,
                        "Where a library's repository is when its entry gives no 'path': "
                        "DIR/OWNER/REPO (or its 'repo'), or the same with .git");
  build_cmd->add_option("--jobs,-j", build.jobs, "Indexer processes at once (default 1)")
      ->check(CLI::Range(1, 256));
  build_cmd
      ->add_option("--threads", build.threads,
                   "Worker threads of each indexer (default: the cores shared among them)")
      ->check(CLI::Range(1, 1024));
  build_cmd->add_flag("--force", build.force,
                      "Read every revision again, even one the catalog holds unchanged");
  build_cmd->add_flag("--json", build.json,
                      "One JSON object per library as it ends, then one for the whole run");

  std::string list_library;
  int64_t list_limit = -1;
  CLI::App* list_cmd = app.add_subcommand("list", "List the errors in the catalog");
  list_cmd->add_option("--library", list_library, "Only this library (OWNER/REPO)");
  list_cmd->add_option("--limit", list_limit, "At most this many errors");
  list_cmd->add_flag("--json", common.json, "One JSON object per line");

  std::string show_id;
  CLI::App* show_cmd = app.add_subcommand("show", "Show one error with all its sites");
  show_cmd->add_option("id", show_id, "Error id (16 hex digits)")->required();
  show_cmd->add_flag("--json", common.json, "The whole record as JSON");
  std::string show_version;
  show_cmd->add_option("--version", show_version,
                       "Its sites in this indexed version (a rev, or another tag of its "
                       "commit); default: the newest that raises it");

  std::string search_query;
  int64_t search_limit = 20;
  CLI::App* search_cmd = app.add_subcommand("search", "Full-text search over templates and types");
  search_cmd->add_option("query", search_query, "Words to look for")->required();
  search_cmd->add_option("--limit", search_limit, "At most this many results (default 20)")
      ->check(CLI::PositiveNumber);
  search_cmd->add_flag("--json", common.json,
                       "One JSON array, as the server's /api/search answers (doc/web.md)");

  CLI::App* stats_cmd =
      app.add_subcommand("stats", "Counts: libraries, errors, sites, skipped files");
  stats_cmd->add_flag("--json", common.json, "As one JSON object");

  CLI::App* check_cmd = app.add_subcommand(
      "check", "Verify the catalog: SQLite's integrity check and errdex's content hashes");
  check_cmd->add_flag("--json", common.json, "As one JSON object");

  std::string analyze_library;
  CLI::App* analyze_cmd = app.add_subcommand(
      "analyze", "Derive families, valid values, related errors and prose (index does it too)");
  analyze_cmd->add_option("--library", analyze_library, "Only this library (OWNER/REPO)");
  analyze_cmd->add_flag("--json", common.json, "Print the summary as JSON");

  CLI::App* families_cmd =
      app.add_subcommand("families", "The failure families and how many errors each holds");
  families_cmd->add_flag("--json", common.json, "One JSON object per line");

  EnrichArgs enrich;
  CLI::App* enrich_cmd = app.add_subcommand(
      "enrich",
      "Optional: ask a language model (OpenAI-compatible API) for prose about each error; "
      "stored beside the static analysis, labelled with the model");
  enrich_cmd
      ->add_option("--endpoint", enrich.llm.endpoint,
                   "API base URL (http://127.0.0.1:8080/v1) or its /chat/completions URL")
      ->required();
  enrich_cmd->add_option("--model", enrich.llm.model, "Model name the endpoint knows")->required();
  enrich_cmd->add_option("--limit", enrich.limit, "At most this many errors (default 20)")
      ->check(CLI::PositiveNumber);
  enrich_cmd->add_option("--library", enrich.library, "Only errors of this library (OWNER/REPO)");
  enrich_cmd
      ->add_option("--timeout", enrich.llm.timeout_seconds,
                   "Seconds to wait for each answer (default 120)")
      ->check(CLI::Range(1, 3600));
  enrich_cmd->add_flag("--json", common.json, "Print the summary as JSON");

  web::ServeOptions serve;
  CLI::App* serve_cmd =
      app.add_subcommand("serve", "Serve the website and JSON API on a read-only catalog");
  serve_cmd->add_option("--host", serve.host, "Address to listen on (default 127.0.0.1)");
  serve_cmd->add_option("--port", serve.port, "Port (default 8080; 0: any free port)")
      ->check(CLI::Range(0, 65535));
  serve_cmd
      ->add_option("--threads", serve.threads,
                   "Workers doing the catalog work, a catalog connection each (default cores + 1)")
      ->check(CLI::Range(0, 1024));
  serve_cmd
      ->add_option("--max-connections", serve.max_connections,
                   "Connections open at once; more are refused with a 503 (default 10000)")
      ->check(CLI::Range(0, 1000000));
  serve_cmd
      ->add_option("--max-connections-per-ip", serve.max_connections_per_ip,
                   "Connections open at once from one address (default 128; 0: no limit, "
                   "for use behind a proxy)")
      ->check(CLI::Range(0, 1000000));

  std::string export_dir;
  CLI::App* export_cmd =
      app.add_subcommand("export", "Write the whole site as static files (HTML and JSON)");
  export_cmd->add_option("dir", export_dir, "Output directory")->required();

  ExplainArgs explain;
  CLI::App* explain_cmd = app.add_subcommand(
      "explain",
      "Which catalog errors a pasted message or traceback is, and where they are raised");
  explain_cmd->add_option("text", explain.text, "The error text; '-' or nothing reads stdin");
  explain_cmd->add_option("--top", explain.top, "At most this many matches per error (default 5)")
      ->check(CLI::Range(1, 100));
  explain_cmd->add_option("--library", explain.library, "Only errors of this library (OWNER/REPO)");
  explain_cmd->add_option("--version", explain.version,
                          "Only errors raised in this indexed version (a snapshot's rev)");
  explain_cmd->add_flag("--json", common.json, "One JSON object (see doc/explain.md)");
  explain_cmd->add_flag("--jsonl", explain.jsonl,
                        "Many inputs: each stdin line one JSON-quoted paste, each answered by "
                        "one line of JSON");

  std::vector<std::string> run_command;
  CLI::App* run_cmd = app.add_subcommand(
      "run", "Run a command; if it fails, explain the error it died with (its exit code is kept)");
  run_cmd->add_option("command", run_command, "The command and its arguments, after --")
      ->required();
  run_cmd->add_option("--top", explain.top, "At most this many matches per error (default 5)")
      ->check(CLI::Range(1, 100));
  run_cmd->add_option("--library", explain.library, "Only errors of this library (OWNER/REPO)");
  run_cmd->add_option("--version", explain.version,
                      "Only errors raised in this indexed version (a snapshot's rev)");
  run_cmd->add_flag("--json", common.json, "Print the explanation as JSON on stdout");
  run_cmd->positionals_at_end();

  // Every subcommand reads a catalog, so --db (an option of the app) is taken
  // after any of them too: `errdex serve --db x.db` as `errdex --db x.db serve`.
  // All of them, rather than a list a new subcommand could be left out of.
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) sub->fallthrough();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << "errdex: error: " << e.what() << "\nRun 'errdex --help' for usage.\n";
    return 2;
  }

  if (index_cmd->parsed()) {
    index.python_env = python_env->count() > 0;
    if (index.python_env && index.python.empty()) index.python = "python3";
    std::string usage = IndexUsageError(index);
    if (!usage.empty()) {
      err << "errdex: error: " << usage << "\nRun 'errdex index --help' for usage.\n";
      return 2;
    }
  }

  try {
    Result<void> result;
    if (index_cmd->parsed()) {
      result = RunIndex(common, index, out, err);
    } else if (build_cmd->parsed()) {
      build.db = common.db.empty() ? catalog::DefaultPath() : common.db;
      Result<int> code = RunBuild(build, out, err);
      if (!code) {
        result = tl::unexpected(code.error());
      } else {
        out.flush();
        return *code;
      }
    } else if (list_cmd->parsed()) {
      result = RunList(common, list_library, list_limit, out);
    } else if (show_cmd->parsed()) {
      result = RunShow(common, show_id, show_version, out, err);
    } else if (search_cmd->parsed()) {
      result = RunSearch(common, search_query, search_limit, out);
    } else if (stats_cmd->parsed()) {
      result = RunStats(common, out);
    } else if (check_cmd->parsed()) {
      result = RunCheck(common, out);
    } else if (analyze_cmd->parsed()) {
      result = RunAnalyze(common, analyze_library, out, err);
    } else if (families_cmd->parsed()) {
      result = RunFamilies(common, out);
    } else if (enrich_cmd->parsed()) {
      result = RunEnrich(common, enrich, out, err);
    } else if (serve_cmd->parsed()) {
      result = RunServe(common, serve, err);
    } else if (export_cmd->parsed()) {
      result = RunExport(common, export_dir, out);
    } else if (explain_cmd->parsed()) {
      Result<int> code = RunExplain(common, explain, out, err);
      if (!code) {
        result = tl::unexpected(code.error());
      } else {
        out.flush();
        return *code;
      }
    } else if (run_cmd->parsed()) {
      Result<int> code = RunAndExplain(common, run_command, explain, out, err);
      if (!code) {
        result = tl::unexpected(code.error());
      } else {
        out.flush();
        return *code;
      }
    }
    out.flush();
    if (!result) {
      err << "errdex: error: " << result.error().message << '\n';
      return 1;
    }
  } catch (const std::exception& e) {
    err << "errdex: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

}  // namespace errdex::cli
