// Reads a source tree from disk: the files to extract, in a stable order, and
// the ones left out with the reason (too large, empty, not a regular file,
// symlink loops or links leaving the tree).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/record.h"
#include "core/status.h"

namespace errdex::source {

struct SourceFile {
  std::string path;  // relative to the root, '/'-separated
  std::filesystem::path absolute;  // empty for a file read from git
  uint64_t size = 0;
  std::string blob;  // the git blob id (hex) when read from a repository
};

struct WalkOptions {
  // Which files (by relative path) to consider; others are not even counted.
  std::function<bool(std::string_view path)> want;
  uint64_t max_file_size = 5u << 20;
  // Shell globs; a file or directory is left out when one matches its path
  // relative to the root or its name ("site-packages", "tests/*").
  std::vector<std::string> exclude;
};

struct WalkResult {
  std::vector<SourceFile> files;  // sorted by path
  std::vector<FileIssue> issues;  // files and directories left out, with reasons
};

// True when one of the options' exclude globs matches `rel` (the path relative
// to the root) or `name` (its last component).
bool IsExcluded(const WalkOptions& options, const std::string& rel, const std::string& name);

// True when `rel` or a directory it is in is excluded, as a walk would
// leave it out (for file lists that come from elsewhere: a RECORD).
bool IsExcludedPath(const WalkOptions& options, const std::string& rel);

// Version control and cache directories, never entered.
bool IsSkippedDirectory(std::string_view name);

// Lists the wanted files under `root` (a directory, or a single file).
// Symbolic links are followed while they stay inside the root; a link to a
// directory already visited is a loop and is reported, not followed. Version
// control and cache directories (.git, __pycache__, ...) are not entered.
// Fails only when `root` itself cannot be read.
Result<WalkResult> Walk(const std::filesystem::path& root, const WalkOptions& options);

// Reads a whole file, refusing more than `max_size` bytes. Thread-safe.
Result<std::string> ReadFile(const std::filesystem::path& path, uint64_t max_size);

// Reads at most the first `max_size` bytes of a file. Thread-safe.
Result<std::string> ReadFilePrefix(const std::filesystem::path& path, uint64_t max_size);

// True when `path` is `root` or below it, component by component (both
// canonical).
bool IsInsideDirectory(const std::filesystem::path& path, const std::filesystem::path& root);

}  // namespace errdex::source
