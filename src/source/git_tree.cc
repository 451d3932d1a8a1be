#include "source/git_tree.h"

#include <git2.h>
#include <xxhash.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <system_error>
#include <utility>

#include "core/version.h"
#include "source/git_util.h"

namespace errdex::source {
namespace {

namespace fs = std::filesystem;

// Revisions come from the command line and tag names from the repository:
// both are untrusted. libgit2 copes with any text, but an option-looking or
// huge string is more likely a mistake than a revision.
Result<void> CheckRevisionText(std::string_view rev) {
  if (rev.empty() || rev.size() > 256 || rev.front() == '-' ||
      rev.find('\0') != std::string_view::npos) {
    return Fail(ErrorCode::kInvalidArgument, "'" + std::string(rev.substr(0, 64)) +
                                                 "' is not a revision name");
  }
  return {};
}

struct ListState {
  git_odb* odb = nullptr;
  const WalkOptions* options = nullptr;
  WalkResult* out = nullptr;
};

void Skip(WalkResult& out, std::string path, std::string reason, std::string detail) {
  out.issues.push_back(FileIssue{std::move(path), std::move(reason), std::move(detail), true});
}

// git_tree_walk's callback: > 0 skips the entry's subtree, < 0 stops.
int VisitEntry(const char* root, const git_tree_entry* entry, void* payload) {
  auto& state = *static_cast<ListState*>(payload);
  std::string name = git_tree_entry_name(entry);
  std::string rel = std::string(root) + name;
  git_object_t type = git_tree_entry_type(entry);
  if (type == GIT_OBJECT_TREE) {
    return IsSkippedDirectory(name) || IsExcluded(*state.options, rel, name) ? 1 : 0;
  }
  if (IsExcluded(*state.options, rel, name)) return 0;
  if (state.options->want && !state.options->want(rel)) return 0;
  if (type == GIT_OBJECT_COMMIT) {
    Skip(*state.out, rel, "submodule", "a submodule's files are not part of this repository");
    return 0;
  }
  if (type != GIT_OBJECT_BLOB) return 0;
  if (git_tree_entry_filemode(entry) == GIT_FILEMODE_LINK) {
    Skip(*state.out, rel, "symlink", "a symbolic link in git, not followed");
    return 0;
  }
  size_t size = 0;
  git_object_t blob_type = GIT_OBJECT_INVALID;
  if (git_odb_read_header(&size, &blob_type, state.odb, git_tree_entry_id(entry)) != 0) {
    Skip(*state.out, rel, "unreadable", GitError());
    return 0;
  }
  if (size == 0) {
    Skip(*state.out, rel, "empty", "");
  } else if (size > state.options->max_file_size) {
    Skip(*state.out, rel, "too-large",
         std::to_string(size) + " bytes > limit " + std::to_string(state.options->max_file_size));
  } else {
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, git_tree_entry_id(entry));
    state.out->files.push_back(SourceFile{rel, fs::path(), size, hex});
  }
  return 0;
}

}  // namespace

bool IsReleaseTag(std::string_view tag) { return ReleaseNumbers(tag).has_value(); }

GitRepository::~GitRepository() { git_repository_free(repo_); }

Result<std::unique_ptr<GitRepository>> GitRepository::Open(const fs::path& path) {
  EnsureLibGit2();
  git_repository* raw = nullptr;
  // A git directory itself (a bare clone, a mirror, a work tree's .git) is
  // the whole repository: it may lack a config saying core.bare, so it is
  // opened as bare rather than searched upwards.
  if (git_repository_open_bare(&raw, path.c_str()) == 0) {
    std::unique_ptr<GitRepository> repo(new GitRepository(raw));
    repo->remote_url_ = OriginUrl(raw);
    repo->bare_ = true;
    return repo;
  }
  if (git_repository_open_ext(&raw, path.c_str(), 0, nullptr) != 0) {
    return Fail(ErrorCode::kNotFound, path.string() + ": not in a git repository (" + GitError() + ")");
  }
  std::unique_ptr<GitRepository> repo(new GitRepository(raw));
  repo->remote_url_ = OriginUrl(raw);
  if (!git_repository_is_bare(raw)) {
    std::error_code ec;
    fs::path workdir = fs::canonical(git_repository_workdir(raw), ec);
    fs::path target = fs::canonical(path, ec);
    if (ec) return Fail(ErrorCode::kIo, path.string() + ": " + ec.message());
    std::string rel = target.lexically_relative(workdir).generic_string();
    // Inside the .git directory of a work tree: the whole repository.
    if (rel == "." || rel.rfind(".git/", 0) == 0) rel.clear();
    repo->subdir_ = rel;
    // A directory inside a work tree but not tracked by it (pyenv keeps
    // Python installations in an ignored folder of its own clone) is no part
    // of that repository's history.
    if (!rel.empty()) {
      git_object* head = nullptr;
      if (git_revparse_single(&head, raw, ("HEAD:" + rel).c_str()) != 0) {
        return Fail(ErrorCode::kNotFound, path.string() + ": not tracked by the git repository");
      }
      git_object_free(head);
    }
  }
  return repo;
}

Result<Revision> GitRepository::Resolve(std::string_view rev) const {
  ERRDEX_TRY(CheckRevisionText(rev));
  std::lock_guard<std::mutex> lock(mutex_);
  git_object* raw = nullptr;
  std::string spec = std::string(rev) + "^{commit}";
  if (git_revparse_single(&raw, repo_, spec.c_str()) != 0) {
    return Fail(ErrorCode::kNotFound,
                "'" + std::string(rev) + "' names no commit of the repository (" + GitError() + ")");
  }
  GitObjectPtr object(raw);
  auto* commit = reinterpret_cast<git_commit*>(object.get());
  Revision out;
  out.name = rev;
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, git_commit_id(commit));
  out.commit = hex;
  const git_signature* committer = git_commit_committer(commit);
  out.time = committer->when.time;
  out.date = FormatGitTime(committer->when.time, committer->when.offset);
  return out;
}

Result<std::vector<Revision>> GitRepository::Tags(std::string_view pattern) const {
  if (pattern.empty() || pattern.find('\0') != std::string_view::npos) {
    return Fail(ErrorCode::kInvalidArgument, "a tag pattern must not be empty");
  }
  std::vector<std::string> names;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    git_strarray list{};
    if (git_tag_list_match(&list, std::string(pattern).c_str(), repo_) != 0) {
      return Fail(ErrorCode::kIo, "cannot list the tags: " + GitError());
    }
    for (size_t i = 0; i < list.count; ++i) names.emplace_back(list.strings[i]);
    git_strarray_dispose(&list);
  }
  std::vector<Revision> out;
  for (const std::string& name : names) {
    // A tag of a tree or a blob, or an unreadable one, is no version.
    Result<Revision> rev = Resolve("refs/tags/" + name);
    if (!rev) continue;
    rev->name = name;
    out.push_back(std::move(*rev));
  }
  std::sort(out.begin(), out.end(), [](const Revision& a, const Revision& b) {
    return a.time != b.time ? a.time < b.time : a.name < b.name;
  });
  return out;
}

Result<std::vector<Revision>> GitRepository::LastReleases(size_t n) const {
  Result<std::vector<Revision>> tags = Tags("*");
  if (!tags) return tl::unexpected(tags.error());
  std::vector<Revision> releases;
  for (Revision& r : *tags) {
    if (IsReleaseTag(r.name)) releases.push_back(std::move(r));
  }
  if (releases.size() > n) releases.erase(releases.begin(), releases.end() - static_cast<ptrdiff_t>(n));
  return releases;
}

Result<WalkResult> GitRepository::List(const Revision& rev, const WalkOptions& options) const {
  std::lock_guard<std::mutex> lock(mutex_);
  git_oid oid;
  if (git_oid_fromstr(&oid, rev.commit.c_str()) != 0) {
    return Fail(ErrorCode::kInvalidArgument, "'" + rev.commit + "' is not a commit id");
  }
  git_commit* commit = nullptr;
  if (git_commit_lookup(&commit, repo_, &oid) != 0) {
    return Fail(ErrorCode::kNotFound, rev.name + ": " + GitError());
  }
  git_tree* raw_tree = nullptr;
  int failed = git_commit_tree(&raw_tree, commit);
  git_commit_free(commit);
  if (failed != 0) return Fail(ErrorCode::kIo, rev.name + ": " + GitError());
  GitTreePtr tree(raw_tree);
  if (!subdir_.empty()) {
    git_tree_entry* entry = nullptr;
    if (git_tree_entry_bypath(&entry, tree.get(), subdir_.c_str()) != 0) {
      return Fail(ErrorCode::kNotFound, rev.name + " has no directory " + subdir_);
    }
    git_object* sub = nullptr;
    bool is_tree = git_tree_entry_type(entry) == GIT_OBJECT_TREE &&
                   git_tree_entry_to_object(&sub, repo_, entry) == 0;
    git_tree_entry_free(entry);
    if (!is_tree) return Fail(ErrorCode::kNotFound, rev.name + ": " + subdir_ + " is not a directory");
    tree.reset(reinterpret_cast<git_tree*>(sub));
  }
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, repo_) != 0) return Fail(ErrorCode::kIo, GitError());
  WalkResult out;
  ListState state{odb, &options, &out};
  int walked = git_tree_walk(tree.get(), GIT_TREEWALK_PRE, VisitEntry, &state);
  git_odb_free(odb);
  if (walked < 0) return Fail(ErrorCode::kIo, rev.name + ": " + GitError());
  auto by_path = [](const auto& a, const auto& b) { return a.path < b.path; };
  std::sort(out.files.begin(), out.files.end(), by_path);
  std::sort(out.issues.begin(), out.issues.end(), by_path);
  return out;
}

Result<std::string> GitRepository::ReadBlob(const std::string& blob, uint64_t max_size) const {
  git_oid oid;
  if (blob.size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, blob.c_str()) != 0) {
    return Fail(ErrorCode::kInvalidArgument, "'" + blob + "' is not a blob id");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  git_blob* raw = nullptr;
  if (git_blob_lookup(&raw, repo_, &oid) != 0) return Fail(ErrorCode::kIo, GitError());
  GitBlobPtr b(raw);
  auto size = static_cast<uint64_t>(git_blob_rawsize(b.get()));
  if (size > max_size) {
    return Fail(ErrorCode::kInvalidArgument, "larger than " + std::to_string(max_size) + " bytes");
  }
  const auto* data = static_cast<const char*>(git_blob_rawcontent(b.get()));
  return std::string(data, static_cast<size_t>(size));
}

std::string BlobId(std::string_view bytes) {
  git_oid oid;
  if (git_odb_hash(&oid, bytes.data(), bytes.size(), GIT_OBJECT_BLOB) != 0) return "";
  char hex[GIT_OID_HEXSZ + 1] = {};
  git_oid_tostr(hex, sizeof hex, &oid);
  return hex;
}

Result<std::vector<Revision>> SelectRevisions(const GitRepository& repo,
                                              const std::vector<std::string>& revs,
                                              const std::string& glob, size_t last) {
  std::vector<Revision> selected;
  for (const std::string& r : revs) {
    Result<Revision> rev = repo.Resolve(r);
    if (!rev) return Fail(rev.error().code, "--rev " + rev.error().message);
    selected.push_back(std::move(*rev));
  }
  auto add = [&](Result<std::vector<Revision>> more, const std::string& what) -> Result<void> {
    if (!more) return tl::unexpected(more.error());
    if (more->empty())
      return Fail(ErrorCode::kNotFound, what + ": no tag of the repository matches");
    for (Revision& r : *more) selected.push_back(std::move(r));
    return {};
  };
  if (!glob.empty()) ERRDEX_TRY(add(repo.Tags(glob), "--revs " + glob));
  if (last > 0) ERRDEX_TRY(add(repo.LastReleases(last), "--last"));
  std::stable_sort(selected.begin(), selected.end(),
                   [](const Revision& a, const Revision& b) { return a.time < b.time; });
  // One snapshot per commit: jax tags one commit jax-vX and jaxlib-vX, and
  // `--rev HEAD --rev v1.0` may name one commit twice.
  std::vector<Revision> unique;
  std::map<std::string, size_t> by_commit;
  for (Revision& r : selected) {
    auto [it, fresh] = by_commit.emplace(r.commit, unique.size());
    if (fresh) {
      unique.push_back(std::move(r));
      continue;
    }
    Revision& kept = unique[it->second];
    if (!IsReleaseTag(kept.name) && IsReleaseTag(r.name)) std::swap(kept.name, r.name);
    if (r.name != kept.name &&
        std::find(kept.also.begin(), kept.also.end(), r.name) == kept.also.end()) {
      kept.also.push_back(std::move(r.name));
    }
  }
  return unique;
}

std::string FingerprintRevision(const Revision& rev, std::string_view subdir,
                                std::string_view url) {
  std::string key = rev.commit;
  for (std::string_view part : {subdir, url}) {
    key.push_back('\0');
    key.append(part);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(XXH3_64bits(key.data(), key.size())));
  return hex;
}

}  // namespace errdex::source
