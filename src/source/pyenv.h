// What an installed Python environment holds: the interpreter's version and
// directories (asked of the interpreter itself), and every distribution
// installed in its site directories (read from their .dist-info and
// .egg-info metadata, never imported), each with the files it installed.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/record.h"
#include "core/status.h"
#include "source/walk.h"

namespace errdex::source {

struct PythonEnv {
  std::string executable;      // sys.executable
  std::string implementation;  // sys.implementation.name: "cpython", "pypy"
  std::string version;         // "3.11.7", "3.13.0rc1"
  int major = 0, minor = 0, micro = 0;
  std::filesystem::path prefix;       // sys.prefix (a venv's own directory)
  std::filesystem::path base_prefix;  // sys.base_prefix
  // The standard library. It contains site-packages (and test/); whoever
  // indexes it excludes those.
  std::filesystem::path stdlib;
  std::filesystem::path platstdlib;
  std::filesystem::path purelib;
  std::filesystem::path platlib;
  std::vector<std::filesystem::path> site_packages;  // site.getsitepackages()
  std::filesystem::path user_site;                   // site.getusersitepackages()
  // Whether a plain `python` run (not -I) puts user_site on sys.path: not
  // root-via-setuid, and not a venv without the system site packages.
  bool user_site_enabled = false;
  // The directories distributions are installed in, in sys.path order
  // (user site first when enabled, then the site packages, purelib,
  // platlib), existing ones only, each once (by canonical path).
  std::vector<std::filesystem::path> site_dirs;
};

struct DescribeOptions {
  std::chrono::milliseconds timeout{30000};
};

// Runs `python` (a path, or a name looked up on PATH; no shell) with -I and a
// short script, and reads what it prints. -I ignores PYTHONPATH, PYTHON*
// variables and the current directory: what is described is the
// interpreter's own installation. Fails when it cannot be run, exits with
// an error (its stderr is in the message), outlives the timeout (then it
// and its process group are killed), or prints something else than
// expected (every field is checked; paths must be UTF-8 and absolute).
Result<PythonEnv> DescribePythonEnv(const std::string& python, const DescribeOptions& options = {});

// Reads the JSON line the script prints; exposed for tests.
Result<PythonEnv> ParsePythonEnv(std::string_view output);

struct Distribution {
  std::string name;             // as its metadata writes it: "PyYAML"
  std::string normalized_name;  // PEP 503: "pyyaml"
  std::string version;          // as written: "6.0.1"
  std::filesystem::path site_dir;
  std::filesystem::path metadata_dir;  // .../PyYAML-6.0.1.dist-info
  std::string format;                  // "dist-info" or "egg-info"
  // The installed files the caller wants (DistributionOptions::want), as
  // Walk gives them: path relative to site_dir, '/'-separated, sorted; each
  // a non-empty regular file within the size limit whose real path is inside
  // site_dir. Vendored packages (pip/_vendor/...) belong to the distribution
  // whose RECORD lists them.
  std::vector<SourceFile> files;
  std::vector<std::string> top_level;  // top_level.txt, when present
  // https://github.com/OWNER/REPO (or gitlab.com, codeberg.org,
  // bitbucket.org) when the metadata links one; else the Source/Repository
  // or Home-page URL as written; else empty.
  std::string repository_url;
  // The catalog's OWNER/REPO: the forge's owner/repo, lowercased (GitHub
  // and GitLab names are case-insensitive and metadata spells them in
  // either case across releases: "PyCQA" and "pycqa"), else
  // "pypi/<normalized_name>". Several distributions may share one: from one
  // monorepo, pydantic and pydantic_core are both pydantic/pydantic, at
  // different versions (DisambiguateLibraries gives each its own).
  std::string library;
  bool editable = false;  // direct_url.json says so: the files live elsewhere
  // XXH3-64 of the metadata file and the file list (METADATA and RECORD,
  // PKG-INFO and installed-files.txt/SOURCES.txt): changes with any
  // reinstall that changes a file's hash or the version.
  uint64_t fingerprint = 0;
  // What reading it reported about it (also in ReadDistributions' issues):
  // its installed files left out, a missing file list; absolute paths.
  std::vector<FileIssue> issues;
};

struct DistributionOptions {
  // Which installed files (by path relative to the site dir) to return;
  // all when empty. extract::IsSourcePath is the one errdex indexes.
  std::function<bool(std::string_view path)> want;
  uint64_t max_file_size = 5u << 20;      // of a returned source file
  uint64_t max_metadata_size = 1u << 20;  // METADATA/PKG-INFO read up to here
  uint64_t max_record_size = 64u << 20;   // RECORD and friends; larger: skipped
};

// Lists the distributions installed in `site_dirs` (earlier directories
// shadow later ones, as on sys.path), sorted by normalized name. A
// distribution whose metadata is unreadable, lacks a valid Name or Version,
// or is shadowed is left out; it and every installed file left out are
// reported in `issues`, with the metadata directory's or file's absolute
// path. Fails only when no site dir can be read at all.
Result<std::vector<Distribution>> ReadDistributions(
    const std::vector<std::filesystem::path>& site_dirs, const DistributionOptions& options,
    std::vector<FileIssue>* issues);

// Gives every distribution a library name of its own, for distributions
// that share one (a monorepo's packages): the one whose normalized name is
// the repository's name keeps it (pydantic keeps pydantic/pydantic), the
// others become OWNER/<normalized_name> (pydantic/pydantic-core), or
// pypi/<normalized_name> when that is taken too. The result depends only on
// the list, so a later run names each distribution the same way.
void DisambiguateLibraries(std::vector<Distribution>& dists);

// XXH3-64 of each file's path, size and modification time: tells whether
// a tree without a file list (the standard library) changed, without
// reading it.
uint64_t FingerprintFiles(const std::vector<SourceFile>& files);

// What decides a snapshot's contents besides its files: the options that
// choose which files are read (`exclude` globs, the size limit) and the
// errdex binary that reads them, by the XXH3-64 of its own executable (a
// new extractor finds other sites in the same files). A rerun that differs
// in any of these reads an unchanged distribution again.
uint64_t FingerprintReading(const std::vector<std::string>& exclude, uint64_t max_file_size);

// Pieces of the above, exposed for tests.
std::string NormalizeDistName(std::string_view name);
struct RepositoryRef {
  std::string url;      // normalized https URL, empty when none is usable
  std::string library;  // OWNER/REPO lowercased, empty unless on a known forge
};
RepositoryRef RepositoryFromUrl(std::string_view url);

}  // namespace errdex::source
