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
using RemotePtr = std::unique_ptr<git_remote, Deleter<git_remote, git_remote_free>>;

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
  git_remote* remote_raw = nullptr;
  if (git_remote_lookup(&remote_raw, repo.get(), "origin") == 0) {
    RemotePtr remote(remote_raw);
    if (const char* url = git_remote_url(remote.get())) info.remote_url = url;
  }
  std::error_code ec;
  std::filesystem::path workdir =
      std::filesystem::canonical(git_repository_workdir(repo.get()), ec);
  std::filesystem::path target = std::filesystem::canonical(path, ec);
  if (!ec) {
    std::string rel = target.lexically_relative(workdir).generic_string();
    info.subdir = rel == "." ? "" : rel;
  }
  return info;
}

}  // namespace errdex::source
