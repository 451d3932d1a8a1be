#include "source/git_info.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_util.h"

namespace errdex::source {
namespace {

using errdex::testing::Git;
using errdex::testing::TempDir;

TEST(GitInfo, DescribesHeadRemoteAndSubdirectory) {
  TempDir dir;
  dir.Write("pkg/m.py", "raise ValueError('x')\n");
  ASSERT_EQ(Git(dir.path(), "init -q"), 0);
  ASSERT_EQ(Git(dir.path(), "add -A"), 0);
  ASSERT_EQ(Git(dir.path(), "commit -q -m first"), 0);
  ASSERT_EQ(Git(dir.path(), "remote add origin https://github.com/owner/repo.git"), 0);
  std::optional<GitInfo> info = DescribeGit(dir.path() / "pkg");
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->commit.size(), 40u);
  EXPECT_EQ(info->date, "2024-05-06T07:08:09+02:00");
  EXPECT_EQ(info->remote_url, "https://github.com/owner/repo.git");
  EXPECT_EQ(info->subdir, "pkg");
  std::optional<GitInfo> top = DescribeGit(dir.path());
  ASSERT_TRUE(top.has_value());
  EXPECT_EQ(top->subdir, "");
  EXPECT_EQ(top->commit, info->commit);
}

TEST(GitInfo, UntrackedDirectoryInsideAWorkTreeIsNotThatCommit) {
  TempDir dir;
  dir.Write("tracked.txt", "x");
  dir.Write(".gitignore", "versions/\n");
  dir.Write("versions/3.11/lib/os.py", "raise OSError\n");
  ASSERT_EQ(Git(dir.path(), "init -q"), 0);
  ASSERT_EQ(Git(dir.path(), "add -A"), 0);
  ASSERT_EQ(Git(dir.path(), "commit -q -m first"), 0);
  EXPECT_FALSE(DescribeGit(dir.path() / "versions" / "3.11").has_value());
  EXPECT_TRUE(DescribeGit(dir.path()).has_value());
}

TEST(GitInfo, NoRepositoryOrNoCommit) {
  TempDir dir;
  EXPECT_FALSE(DescribeGit(dir.path()).has_value());
  ASSERT_EQ(Git(dir.path(), "init -q"), 0);
  EXPECT_FALSE(DescribeGit(dir.path()).has_value());
}

}  // namespace
}  // namespace errdex::source
