#include "source/walk.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_util.h"

namespace errdex::source {
namespace {

using errdex::testing::TempDir;

std::vector<std::string> Paths(const WalkResult& r) {
  std::vector<std::string> out;
  for (const SourceFile& f : r.files) out.push_back(f.path);
  return out;
}

TEST(Walk, SortedRelativePathsAndSkippedDirectories) {
  TempDir dir;
  dir.Write("b.py", "x");
  dir.Write("a/z.py", "x");
  dir.Write("a/y.txt", "x");
  dir.Write(".git/objects/x.py", "x");
  dir.Write("pkg/__pycache__/m.py", "x");
  dir.Write("node_modules/dep/x.py", "x");
  WalkOptions o;
  o.want = [](std::string_view p) { return p.size() > 3 && p.substr(p.size() - 3) == ".py"; };
  Result<WalkResult> r = Walk(dir.path(), o);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(Paths(*r), (std::vector<std::string>{"a/z.py", "b.py"}));
  EXPECT_TRUE(r->issues.empty());
}

TEST(Walk, ExcludeGlobs) {
  TempDir dir;
  dir.Write("lib/site-packages/dep.py", "x");
  dir.Write("lib/os.py", "x");
  dir.Write("tests/test_a.py", "x");
  WalkOptions o;
  o.exclude = {"site-packages", "tests/*"};
  Result<WalkResult> r = Walk(dir.path(), o);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(Paths(*r), (std::vector<std::string>{"lib/os.py"}));
}

TEST(Walk, SymlinksInsideAreFollowedLoopsAndEscapesReported) {
  TempDir dir;
  dir.Write("real/m.py", "x");
  std::filesystem::create_directory_symlink("real", dir.path() / "alias");
  std::filesystem::create_directory_symlink(".", dir.path() / "real" / "self");
  std::filesystem::create_directory_symlink("/usr", dir.path() / "usr");
  Result<WalkResult> r = Walk(dir.path(), {});
  ASSERT_TRUE(r.has_value());
  // "alias" and "real" are one directory: visited once, the second is a loop.
  EXPECT_EQ(r->files.size(), 1u);
  std::vector<std::string> reasons;
  for (const FileIssue& i : r->issues) reasons.push_back(i.path + " " + i.reason);
  EXPECT_NE(std::find(reasons.begin(), reasons.end(), "usr symlink-outside-root"), reasons.end());
  bool loop = false;
  for (const std::string& s : reasons) loop = loop || s.find("symlink-loop") != std::string::npos;
  EXPECT_TRUE(loop);
}

TEST(Walk, SingleFileAndMissingRoot) {
  TempDir dir;
  dir.Write("one.py", "raise X\n");
  Result<WalkResult> r = Walk(dir.path() / "one.py", {});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(Paths(*r), (std::vector<std::string>{"one.py"}));
  Result<WalkResult> missing = Walk(dir.path() / "nope", {});
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

TEST(ReadFile, RefusesLargerThanLimit) {
  TempDir dir;
  auto p = dir.Write("f.py", std::string(100, 'x'));
  EXPECT_EQ(ReadFile(p, 100).value(), std::string(100, 'x'));
  EXPECT_FALSE(ReadFile(p, 99).has_value());
  EXPECT_FALSE(ReadFile(dir.path() / "missing.py", 100).has_value());
}

}  // namespace
}  // namespace errdex::source
