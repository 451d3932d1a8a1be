#include "source/git_info.h"

#include <git2.h>

#include <cstdio>
#include <ctime>
#include <memory>
#include <system_error>

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
  EnsureLibGit2();
  git_repository* raw = nullptr;
  if (git_repository_open_ext(&raw, path.c_str(), 0, nullptr) != 0) return std::nullopt;
  GitRepoPtr repo(raw);
  if (git_repository_is_bare(repo.get())) return std::nullopt;
  git_object* head_raw = nullptr;
  if (git_revparse_single(&head_raw, repo.get(), "HEAD^{commit}") != 0) return std::nullopt;
  GitObjectPtr head(head_raw);
  auto* commit = reinterpret_cast<git_commit*>(head.get());
  GitInfo info;
  char sha[GIT_OID_HEXSZ + 1];
  git_oid_tostr(sha, sizeof sha, git_commit_id(commit));
  info.commit = sha;
  const git_signature* committer = git_commit_committer(commit);
  info.date = FormatGitTime(committer->when.time, committer->when.offset);
  info.remote_url = OriginUrl(repo.get());
  std::error_code ec;
  std::filesystem::path workdir =
      std::filesystem::canonical(git_repository_workdir(repo.get()), ec);
  std::filesystem::path target = std::filesystem::canonical(path, ec);
  if (ec) return std::nullopt;
  std::string rel = target.lexically_relative(workdir).generic_string();
  info.subdir = rel == "." ? "" : rel;
  // A directory inside a work tree but not tracked by it (pyenv keeps Python
  // installations in an ignored folder of its own clone) is not that commit.
  if (!info.subdir.empty()) {
    git_tree* tree = nullptr;
    if (git_commit_tree(&tree, commit) != 0) return std::nullopt;
    git_tree_entry* entry = nullptr;
    int found = git_tree_entry_bypath(&entry, tree, info.subdir.c_str());
    git_tree_entry_free(entry);
    git_tree_free(tree);
    if (found != 0) return std::nullopt;
  }
  return info;
}

}  // namespace errdex::source
