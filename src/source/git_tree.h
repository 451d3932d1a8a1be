// A git repository read straight from its object database: revisions
// resolved, trees listed and blobs read at any commit, without a checkout.
// This is how errdex indexes a library's releases (`errdex index --rev`).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "source/walk.h"

struct git_repository;

namespace errdex::source {

// One revision to index, resolved to its commit.
struct Revision {
  std::string name;    // as the user or the tag list named it: "v1.24.2", "HEAD"
  std::string commit;  // 40 hex digits
  std::string date;    // committer date, ISO 8601 with offset
  int64_t time = 0;    // committer date, seconds since the epoch (for ordering)
  // Other selected names of the same commit, not indexed apart: one
  // snapshot per commit.
  std::vector<std::string> also;
};

class GitRepository {
 public:
  // Opens the repository `path` is in: a work tree, a directory inside one,
  // or a bare repository. Fails with kNotFound when there is none.
  static Result<std::unique_ptr<GitRepository>> Open(const std::filesystem::path& path);
  ~GitRepository();
  GitRepository(const GitRepository&) = delete;
  GitRepository& operator=(const GitRepository&) = delete;

  // The opened directory relative to the work tree's root ("" for the root or
  // a bare repository): only that part of each revision's tree is read.
  const std::string& subdir() const { return subdir_; }
  const std::string& remote_url() const { return remote_url_; }
  bool bare() const { return bare_; }

  // Anything `git rev-parse` takes that names a commit (a tag, a branch, a
  // hash, "HEAD~3"); annotated tags are peeled.
  Result<Revision> Resolve(std::string_view rev) const;

  // Tags matching the shell glob `pattern`, oldest commit first (ties by name).
  Result<std::vector<Revision>> Tags(std::string_view pattern) const;

  // The `n` most recent release tags (oldest first): tags whose name is a
  // version, optionally after a prefix ("v1.24.2", "jax-v0.4.30", "2.0"), and
  // not a pre-release ("rc", "dev", "a1", "b2", "alpha", "beta").
  Result<std::vector<Revision>> LastReleases(size_t n) const;

  // The wanted files of `rev` under subdir(), like Walk does for a directory:
  // each SourceFile carries its blob id and no absolute path. Symbolic links
  // and submodules are reported, not followed.
  Result<WalkResult> List(const Revision& rev, const WalkOptions& options) const;

  // A blob's bytes, refusing more than `max_size`. Thread-safe.
  Result<std::string> ReadBlob(const std::string& blob, uint64_t max_size) const;

 private:
  explicit GitRepository(git_repository* repo) : repo_(repo) {}

  git_repository* repo_;
  std::string subdir_;
  std::string remote_url_;
  bool bare_ = false;  // opened as a git directory: no work tree
  mutable std::mutex mutex_;  // libgit2 objects are not shared between threads
};

// The git blob id (40 hex digits) of `bytes`: what a file of that content is
// stored as, to tell an installed file from the one of a commit.
std::string BlobId(std::string_view bytes);

// True when `tag` names a release: a version after an optional prefix, no
// pre-release suffix. Exposed for tests.
bool IsReleaseTag(std::string_view tag);

// What `errdex index` reads of a repository: the revisions `revs` names,
// the tags matching `glob` (when not empty) and the `last` most recent
// release tags (when not 0), oldest first, one per commit (a release tag's
// name kept over another name of the same commit). A name that resolves to
// nothing, or a glob or `last` that finds no tag, fails.
Result<std::vector<Revision>> SelectRevisions(const GitRepository& repo,
                                              const std::vector<std::string>& revs,
                                              const std::string& glob, size_t last);

// The source a revision's snapshot holds, for a later run to tell it is
// stored already without reading it: 16 hex digits of XXH3-64 over its
// commit, the directory read within it and the repository URL it links.
std::string FingerprintRevision(const Revision& rev, std::string_view subdir, std::string_view url);

}  // namespace errdex::source
