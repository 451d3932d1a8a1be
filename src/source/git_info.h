// What a git work tree says about the snapshot being indexed: the HEAD commit,
// its date, the remote it came from, and where the indexed directory sits.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace errdex::source {

struct GitInfo {
  std::string commit;      // 40 hex digits of HEAD
  std::string date;        // committer date of HEAD, ISO 8601 with offset
  std::string remote_url;  // the "origin" remote, or empty
  std::string subdir;      // the indexed directory relative to the work tree root
};

// Describes the git work tree `path` is in, or nullopt when it is in none (or
// the repository has no commit yet). Thread-compatible.
std::optional<GitInfo> DescribeGit(const std::filesystem::path& path);

}  // namespace errdex::source
