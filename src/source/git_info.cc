#include "source/git_info.h"

#include <git2.h>

#include <cstdio>
#include <ctime>
#include <memory>
#include <system_error>

#include "source/git_tree.h"
#include "source/git_util.h"

namespace errdex::source {

void EnsureLibGit2() {
  struct LibGit2 {
    LibGit2() {
      git_libgit2_init();
      git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
    }
    ~LibGit2() { git_libgit2_shutdown(); }
  };
  static LibGit2 library;
}

std::string FormatGitTime(git_time_t seconds, int offset_minutes) {
  time_t local = static_cast<time_t>(seconds) + offset_minutes * 60;
  struct tm tm;
  gmtime_r(&local, &tm);
  char buf[64];
  int off = offset_minutes < 0 ? -offset_minutes : offset_minutes;
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                offset_minutes < 0 ? '-' : '+', off / 60, off % 60);
  return buf;
}

std::string OriginUrl(git_repository* repo) {
  // Read from the config, not git_remote_lookup: libgit2 1.5 leaks a regex
  // match buffer there (url.*.insteadOf handling) on every call.
  std::string out;
  git_config* config = nullptr;
  if (git_repository_config_snapshot(&config, repo) == 0) {
    const char* url = nullptr;
    if (git_config_get_string(&url, config, "remote.origin.url") == 0 && url != nullptr) out = url;
    git_config_free(config);
  }
  return out;
}

std::string GitError() {
  const git_error* e = git_error_last();
  return e != nullptr && e->message != nullptr ? e->message : "unknown libgit2 error";
}

std::optional<GitInfo> DescribeGit(const std::filesystem::path& path) {
  // A git directory, or a directory a work tree does not track, is no
  // checked-out commit (GitRepository::Open refuses the latter).
  Result<std::unique_ptr<GitRepository>> repo = GitRepository::Open(path);
  if (!repo || (*repo)->bare()) return std::nullopt;
  Result<Revision> head = (*repo)->Resolve("HEAD");
  if (!head) return std::nullopt;
  GitInfo info;
  info.commit = head->commit;
  info.date = head->date;
  info.remote_url = (*repo)->remote_url();
  info.subdir = (*repo)->subdir();
  return info;
}

}  // namespace errdex::source
