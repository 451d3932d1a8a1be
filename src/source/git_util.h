// What the git readers share: libgit2's one-time set-up, owning pointers to
// its objects, and how a commit's date is written.
#pragma once

#include <git2.h>

#include <memory>
#include <string>

namespace errdex::source {

// Initialises libgit2 once per process (and the owner check off: the catalog
// records what a tree holds; who owns the directory is not our concern, and
// CI checkouts are often owned by another user than the indexer).
void EnsureLibGit2();

template <typename T, void (*Free)(T*)>
struct GitDeleter {
  void operator()(T* p) const { Free(p); }
};
using GitRepoPtr = std::unique_ptr<git_repository, GitDeleter<git_repository, git_repository_free>>;
using GitObjectPtr = std::unique_ptr<git_object, GitDeleter<git_object, git_object_free>>;
using GitTreePtr = std::unique_ptr<git_tree, GitDeleter<git_tree, git_tree_free>>;
using GitBlobPtr = std::unique_ptr<git_blob, GitDeleter<git_blob, git_blob_free>>;

// ISO 8601 with the committer's offset: "2026-08-08T12:00:00+02:00".
std::string FormatGitTime(git_time_t seconds, int offset_minutes);

// The "origin" remote's URL, or empty.
std::string OriginUrl(git_repository* repo);

// The last libgit2 error, for messages.
std::string GitError();

}  // namespace errdex::source
