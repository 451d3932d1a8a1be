#include "source/git_info.h"

#include <git2.h>

#include <cstdio>
#include <ctime>
#include <memory>
#include <system_error>

namespace errdex::source {
namespace {

struct LibGit2 {
  LibGit2() {
    git_libgit2_init();
    // The catalog records what a tree holds; who owns the directory is not our
    // concern (CI checkouts are often owned by another user than the indexer).
    git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
  }
  ~LibGit2() { git_libgit2_shutdown(); }
};

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using RepoPtr = std::unique_ptr<git_repository, Deleter<git_repository, git_repository_free>>;
using ObjectPtr = std::unique_ptr<git_object, Deleter<git_object, git_object_free>>;

std::string FormatTime(git_time_t seconds, int offset_minutes) {
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

}  // namespace

std::optional<GitInfo> DescribeGit(const std::filesystem::path& path) {
  static LibGit2 library;
  git_repository* raw = nullptr;
  if (git_repository_open_ext(&raw, path.c_str(), 0, nullptr) != 0) return std::nullopt;
  RepoPtr repo(raw);
  if (git_repository_is_bare(repo.get())) return std::nullopt;
  git_object* head_raw = nullptr;
  if (git_revparse_single(&head_raw, repo.get(), "HEAD^{commit}") != 0) return std::nullopt;
  ObjectPtr head(head_raw);
  auto* commit = reinterpret_cast<git_commit*>(head.get());
  GitInfo info;
  char sha[GIT_OID_HEXSZ + 1];
  git_oid_tostr(sha, sizeof sha, git_commit_id(commit));
  info.commit = sha;
  const git_signature* committer = git_commit_committer(commit);
  info.date = FormatTime(committer->when.time, committer->when.offset);
  // Read from the config, not git_remote_lookup: libgit2 1.5 leaks a regex
  // match buffer there (url.*.insteadOf handling) on every call.
  git_config* config = nullptr;
  if (git_repository_config_snapshot(&config, repo.get()) == 0) {
    const char* url = nullptr;
    if (git_config_get_string(&url, config, "remote.origin.url") == 0 && url != nullptr) {
      info.remote_url = url;
    }
    git_config_free(config);
  }
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
