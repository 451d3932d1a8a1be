#include "source/git_tree.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_util.h"

namespace errdex::source {
namespace {

namespace fs = std::filesystem;
using errdex::testing::Git;
using errdex::testing::TempDir;

std::vector<std::string> Names(const std::vector<Revision>& revs) {
  std::vector<std::string> out;
  for (const Revision& r : revs) out.push_back(r.name);
  return out;
}

std::vector<std::string> Paths(const WalkResult& w) {
  std::vector<std::string> out;
  for (const SourceFile& f : w.files) out.push_back(f.path);
  return out;
}

bool WantPython(std::string_view path) { return path.size() > 3 && path.substr(path.size() - 3) == ".py"; }

// Three releases and a pre-release, each a commit of its own day; tags are
// made out of date order so that the order must come from the commits.
class GitTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path& d = dir_.path();
    dir_.Write("pkg/a.py", "raise ValueError('one')\n");
    ASSERT_EQ(Git(d, "init -q"), 0);
    Commit("2021-01-01T00:00:00+00:00", "v1.0.0");
    dir_.Write("pkg/a.py", "raise ValueError('two')\n");
    dir_.Write("pkg/b.py", "raise KeyError('b')\n");
    Commit("2021-02-01T00:00:00+00:00", "v1.1.0rc1");
    dir_.Write("pkg/__pycache__/c.py", "raise X\n");
    dir_.Write("pkg/empty.py", "");
    dir_.Write("pkg/big.py", std::string(5000, '#'));
    dir_.Write("docs/conf.py", "x = 1\n");
    fs::create_symlink("a.py", d / "pkg" / "link.py");
    Commit("2021-03-01T00:00:00+00:00", "v1.1.0");
    ASSERT_EQ(Git(d, "tag -a -m annotated release-2.0 HEAD"), 0);
    ASSERT_EQ(Git(d, "tag notes-2020 HEAD~2"), 0);
  }

  void Commit(const std::string& date, const std::string& tag) {
    ASSERT_EQ(Git(dir_.path(), "add -A", date), 0);
    ASSERT_EQ(Git(dir_.path(), "commit -q -m " + tag, date), 0);
    ASSERT_EQ(Git(dir_.path(), "tag " + tag), 0);
  }

  TempDir dir_;
};

TEST_F(GitTreeTest, ResolvesRevisionsAndOrdersTagsByCommitDate) {
  auto repo = GitRepository::Open(dir_.path());
  ASSERT_TRUE(repo) << repo.error().message;
  Result<Revision> v1 = (*repo)->Resolve("v1.0.0");
  ASSERT_TRUE(v1) << v1.error().message;
  EXPECT_EQ(v1->commit.size(), 40u);
  EXPECT_EQ(v1->date, "2021-01-01T00:00:00+00:00");
  Result<Revision> annotated = (*repo)->Resolve("release-2.0");
  ASSERT_TRUE(annotated);
  EXPECT_EQ(annotated->commit, (*repo)->Resolve("HEAD")->commit);

  Result<std::vector<Revision>> tags = (*repo)->Tags("v1.*");
  ASSERT_TRUE(tags);
  EXPECT_EQ(Names(*tags), (std::vector<std::string>{"v1.0.0", "v1.1.0rc1", "v1.1.0"}));
  Result<std::vector<Revision>> last = (*repo)->LastReleases(2);
  ASSERT_TRUE(last);
  // notes-2020 has no dot; rc1 is a pre-release; v1.1.0 and release-2.0
  // tag one commit and sort by name.
  EXPECT_EQ(Names(*last), (std::vector<std::string>{"release-2.0", "v1.1.0"}));
  EXPECT_EQ(Names(*(*repo)->LastReleases(10)),
            (std::vector<std::string>{"v1.0.0", "release-2.0", "v1.1.0"}));
}

TEST_F(GitTreeTest, RejectsWhatNamesNoCommit) {
  auto repo = GitRepository::Open(dir_.path());
  ASSERT_TRUE(repo);
  EXPECT_EQ((*repo)->Resolve("v9").error().code, ErrorCode::kNotFound);
  EXPECT_EQ((*repo)->Resolve("--all").error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ((*repo)->Resolve("").error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ((*repo)->Resolve(std::string(300, 'a')).error().code, ErrorCode::kInvalidArgument);
  EXPECT_FALSE((*repo)->Resolve("HEAD:pkg"));  // a tree, not a commit
  ASSERT_TRUE((*repo)->Tags("nothing*"));
  EXPECT_TRUE((*repo)->Tags("nothing*")->empty());
  EXPECT_FALSE((*repo)->ReadBlob("not-an-id", 100));
  EXPECT_FALSE((*repo)->ReadBlob(std::string(40, '0'), 100));
}

TEST_F(GitTreeTest, ListsARevisionWithoutTouchingTheWorkTree) {
  dir_.Write("pkg/a.py", "raise ValueError('uncommitted')\n");
  auto repo = GitRepository::Open(dir_.path() / "pkg");
  ASSERT_TRUE(repo);
  EXPECT_EQ((*repo)->subdir(), "pkg");
  WalkOptions options;
  options.want = WantPython;
  options.max_file_size = 1000;
  Result<WalkResult> first = (*repo)->List(*(*repo)->Resolve("v1.0.0"), options);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(Paths(*first), (std::vector<std::string>{"a.py"}));
  EXPECT_EQ(*(*repo)->ReadBlob(first->files[0].blob, 1000), "raise ValueError('one')\n");
  EXPECT_EQ(first->files[0].size, 24u);
  EXPECT_FALSE((*repo)->ReadBlob(first->files[0].blob, 10));

  Result<WalkResult> last = (*repo)->List(*(*repo)->Resolve("v1.1.0"), options);
  ASSERT_TRUE(last);
  EXPECT_EQ(Paths(*last), (std::vector<std::string>{"a.py", "b.py"}));
  EXPECT_EQ(*(*repo)->ReadBlob(last->files[0].blob, 1000), "raise ValueError('two')\n");
  std::vector<std::string> issues;
  for (const FileIssue& i : last->issues) issues.push_back(i.path + " " + i.reason);
  EXPECT_EQ(issues, (std::vector<std::string>{"big.py too-large", "empty.py empty",
                                               "link.py symlink"}));

  options.exclude = {"b.py"};
  EXPECT_EQ(Paths(*(*repo)->List(*(*repo)->Resolve("v1.1.0"), options)),
            (std::vector<std::string>{"a.py"}));
}

TEST_F(GitTreeTest, OpensBareClonesAndMirrorsWithoutConfig) {
  TempDir other;
  fs::path bare = other.path() / "repo.git";
  ASSERT_EQ(Git(other.path(), "clone -q --bare '" + dir_.path().string() + "' repo.git"), 0);
  fs::remove(bare / "config");  // the search tool's mirrors have none
  auto repo = GitRepository::Open(bare);
  ASSERT_TRUE(repo) << repo.error().message;
  EXPECT_EQ((*repo)->subdir(), "");
  WalkOptions options;
  options.want = WantPython;
  Result<WalkResult> listed = (*repo)->List(*(*repo)->Resolve("v1.1.0"), options);
  ASSERT_TRUE(listed);
  EXPECT_EQ(Paths(*listed),
            (std::vector<std::string>{"docs/conf.py", "pkg/a.py", "pkg/b.py", "pkg/big.py"}));
}

TEST(GitTree, NoRepositoryOrAnUntrackedDirectory) {
  TempDir dir;
  EXPECT_EQ(GitRepository::Open(dir.path()).error().code, ErrorCode::kNotFound);
  dir.Write("tracked.txt", "x");
  dir.Write(".gitignore", "versions/\n");
  dir.Write("versions/3.11/os.py", "raise OSError\n");
  ASSERT_EQ(Git(dir.path(), "init -q"), 0);
  ASSERT_EQ(Git(dir.path(), "add -A"), 0);
  ASSERT_EQ(Git(dir.path(), "commit -q -m first"), 0);
  EXPECT_FALSE(GitRepository::Open(dir.path() / "versions" / "3.11"));
  EXPECT_TRUE(GitRepository::Open(dir.path()));
}

TEST(GitTree, ReleaseTags) {
  for (const char* tag : {"v1.24.2", "1.0", "jax-v0.4.30", "jaxlib_v0.4.1", "release/2.1.0"}) {
    EXPECT_TRUE(IsReleaseTag(tag)) << tag;
  }
  for (const char* tag : {"v1.24.0rc1", "v2.6.0.dev0", "v2", "1.0b2", "1..2", "1.2.", "nightly",
                          "v1.2-alpha", "py3.11-build", ""}) {
    EXPECT_FALSE(IsReleaseTag(tag)) << tag;
  }
}

}  // namespace
}  // namespace errdex::source
