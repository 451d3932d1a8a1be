// `errdex index --python-env`: a fake interpreter (a shell script printing
// the description DescribePythonEnv asks for) pointing at site and
// standard library directories the test writes; and the real python3.
#include <sys/stat.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace errdex {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::CommandResult;
using testing::JsonLines;
using testing::RunCommand;
using testing::RunErrdex;
using testing::TempDir;


class PythonEnvIndex : public ::testing::Test {
 protected:
  void SetUp() override {
    site_ = dir_.path() / "site";
    db_ = (dir_.path() / "c.db").string();
    WriteDist("alpha", "1.0", "https://github.com/acme/alpha",
              {{"alpha/__init__.py", ""},
               {"alpha/core.py", "def f(x):\n    raise ValueError(f'alpha cannot take {x}')\n"},
               {"alpha/tests/test_core.py", "raise AssertionError('only in a test')\n"}});
    // One monorepo, two distributions: mono keeps acme/mono.
    WriteDist("mono", "2.0", "https://github.com/acme/mono",
              {{"mono/__init__.py", "raise ImportError('mono needs a newer plugin')\n"}});
    WriteDist("mono_plugin", "0.3", "https://github.com/acme/mono",
              {{"mono_plugin/__init__.py", "def g():\n    raise TypeError('plugin misuse')\n"}});
    WriteDist("data_only", "5.0", "", {{"data_only/table.csv", "a,b\n"}});
    dir_.Write("stdlib/json/decoder.py",
               "def decode(s):\n    raise ValueError('Expecting value: line %d' % 1)\n");
    dir_.Write("stdlib/test/test_json.py", "raise RuntimeError('stdlib test only')\n");
    dir_.Write("stdlib/site-packages/stray.py", "raise RuntimeError('not the stdlib')\n");
    python_ = WriteInterpreter("python", "3.99.1", "3, 99, 1");
  }

  void WriteDist(const std::string& name, const std::string& version, const std::string& url,
                 const std::vector<std::pair<std::string, std::string>>& files) {
    std::string info = name + "-" + version + ".dist-info";
    std::string record;
    for (const auto& [path, content] : files) {
      dir_.Write("site/" + path, content);
      record += path + ",sha256=x," + std::to_string(content.size()) + "\n";
    }
    record += info + "/METADATA,,\n" + info + "/RECORD,,\n";
    dir_.Write("site/" + info + "/METADATA",
               "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n" +
                   (url.empty() ? "" : "Project-URL: Source, " + url + "\n") + "\n");
    dir_.Write("site/" + info + "/RECORD", record);
  }

  // A git repository of `files` under `name`, one commit tagged `tag`.
  fs::path TaggedRepo(const std::string& name, const std::string& tag,
                      const std::vector<std::pair<std::string, std::string>>& files) {
    fs::path repo = dir_.path() / name;
    for (const auto& [path, content] : files) dir_.Write(name + "/" + path, content);
    for (const char* step : {"init -q", "add -A", "commit -q -m one"}) {
      EXPECT_EQ(testing::Git(repo, step), 0) << step;
    }
    EXPECT_EQ(testing::Git(repo, "tag " + tag), 0);
    return repo;
  }

  // A new version of a distribution, as `pip install -U` leaves it.
  void Upgrade(const std::string& name, const std::string& from, const std::string& to,
               const std::vector<std::pair<std::string, std::string>>& files,
               const std::string& url) {
    fs::remove_all(site_ / (name + "-" + from + ".dist-info"));
    WriteDist(name, to, url, files);
  }

  std::string WriteInterpreter(const std::string& file, const std::string& version,
                               const std::string& info) {
    const std::string& v = version;
    std::string s = site_.string(), lib = (dir_.path() / "stdlib").string();
    std::string description =
        R"({"executable": "/fake/bin/python3", "implementation": "cpython", "version": ")" + v +
        R"(", "version_info": [)" + info + R"(], "prefix": "/fake", "base_prefix": "/fake",)" +
        R"( "stdlib": ")" + lib + R"(", "platstdlib": ")" + lib + R"(", "purelib": ")" + s +
        R"(", "platlib": ")" + s + R"(", "site_packages": [")" + s +
        R"("], "user_site": null, "user_site_enabled": false})";
    fs::path path = dir_.Write(file, "#!/bin/sh\necho 'errdex-pyenv " + description + "'\n");
    ::chmod(path.c_str(), 0755);
    return path.string();
  }

  CommandResult Index(std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"index", "--python-env", python_, "--db", db_};
    args.insert(args.end(), more.begin(), more.end());
    return RunErrdex(args);
  }

  // library -> revs, from `errdex stats --json`.
  std::map<std::string, std::vector<std::string>> Snapshots() {
    CommandResult stats = RunErrdex({"stats", "--db", db_, "--json"});
    EXPECT_EQ(stats.exit_code, 0) << stats.err;
    std::map<std::string, std::vector<std::string>> out;
    json parsed = json::parse(stats.out);
    for (const json& s : parsed["per_snapshot"]) {
      out[s["library"].get<std::string>()].push_back(s["rev"].get<std::string>());
    }
    return out;
  }

  TempDir dir_;
  fs::path site_;
  std::string db_;
  std::string python_;
};

TEST_F(PythonEnvIndex, IndexesEachDistributionAndTheStandardLibrary) {
  CommandResult r = Index();
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("4 distributions: 3 indexed, 0 unchanged, 1 skipped (no files)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("no source files, not indexed: data_only 5.0"), std::string::npos) << r.err;
  EXPECT_EQ(Snapshots(),
            (std::map<std::string, std::vector<std::string>>{{"acme/alpha", {"1.0"}},
                                                             {"acme/mono", {"2.0"}},
                                                             {"acme/mono-plugin", {"0.3"}},
                                                             {"python/cpython", {"3.99.1"}}}));
  CommandResult list = RunErrdex({"list", "--db", db_, "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  std::map<std::string, std::string> library_of;
  for (const json& e : JsonLines(list.out)) {
    library_of[e["template"].get<std::string>()] = e["library"].get<std::string>();
  }
  EXPECT_EQ(library_of["alpha cannot take {x}"], "acme/alpha");
  EXPECT_EQ(library_of["plugin misuse"], "acme/mono-plugin");
  bool stdlib_error = false;
  for (const auto& [text, library] : library_of) {
    stdlib_error |= text.starts_with("Expecting value") && library == "python/cpython";
  }
  EXPECT_TRUE(stdlib_error) << list.out;
  // Tests and the standard library's site-packages are not indexed.
  for (const char* gone : {"only in a test", "stdlib test only", "not the stdlib"}) {
    EXPECT_EQ(library_of.count(gone), 0u) << gone;
  }
  EXPECT_EQ(RunErrdex({"check", "--db", db_}).exit_code, 0);
}

// A distribution whose release tag the catalog holds from git is pinned to
// that commit, its files found under the repository's layout (`src/`): its
// sites link the release's lines. One whose tag is its version, the same
// name as the snapshot it would write, is the git snapshot, kept as it is.
TEST_F(PythonEnvIndex, ADistributionWhoseReleaseTagIsStoredFromGitIsPinned) {
  fs::path alpha = TaggedRepo("alpha-repo", "v1.0",
                              {{"src/alpha/__init__.py", ""},
                               {"src/alpha/core.py",
                                "def f(x):\n    raise ValueError(f'alpha cannot take {x}')\n"}});
  fs::path mono = TaggedRepo(
      "mono-repo", "2.0", {{"mono/__init__.py", "raise ImportError('mono needs a newer plugin')\n"}});
  CommandResult commit = RunCommand("git -C '" + alpha.string() + "' rev-parse v1.0");
  ASSERT_EQ(commit.exit_code, 0);
  std::string alpha_commit = commit.out.substr(0, 40);
  ASSERT_EQ(RunErrdex({"index", alpha.string(), "--name", "acme/alpha", "--rev", "v1.0", "--db", db_})
                .exit_code,
            0);
  ASSERT_EQ(
      RunErrdex({"index", mono.string(), "--name", "acme/mono", "--rev", "2.0", "--db", db_}).exit_code,
      0);

  // beta's installed file is patched (two lines more than at its tag): its
  // lines are not the tag's, so it is not pinned.
  fs::path beta =
      TaggedRepo("beta-repo", "v1.0", {{"beta/__init__.py", "def g():\n    raise KeyError('beta key')\n"}});
  WriteDist("beta", "1.0", "https://github.com/acme/beta",
            {{"beta/__init__.py", "# patched\n\ndef g():\n    raise KeyError('beta key')\n"}});
  ASSERT_EQ(RunErrdex({"index", beta.string(), "--name", "acme/beta", "--rev", "v1.0", "--db", db_})
                .exit_code,
            0);

  CommandResult r = Index();
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("; 2 pinned to a release tag\n"), std::string::npos) << r.out;
  auto snapshots = Snapshots();
  std::sort(snapshots["acme/alpha"].begin(), snapshots["acme/alpha"].end());
  EXPECT_EQ(snapshots["acme/alpha"], (std::vector<std::string>{"1.0", "v1.0"}));
  EXPECT_EQ(snapshots["acme/mono"], (std::vector<std::string>{"2.0"}));

  // The installed release's site: its own path, the tag's commit (found
  // only under the repository's src/, else it would not be pinned).
  CommandResult explained = RunErrdex({"explain", "--db", db_, "--json", "--version", "1.0",
                                       "--library", "acme/alpha", "ValueError: alpha cannot take 3"});
  ASSERT_EQ(explained.exit_code, 0) << explained.err;
  json report = json::parse(explained.out);
  ASSERT_FALSE(report["matches"].empty()) << explained.out;
  const json& site = report["matches"][0]["sites"][0];
  EXPECT_EQ(site["path"], "alpha/core.py");
  EXPECT_EQ(site["commit"], alpha_commit);
  EXPECT_EQ(site["rev"], "1.0");
  // Its link goes under the repository's src/.
  CommandResult shown = RunErrdex({"show", report["matches"][0]["id"].get<std::string>(), "--db",
                                   db_, "--json", "--version", "1.0"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  json e = json::parse(shown.out);
  ASSERT_EQ(e["sites"].size(), 1u) << shown.out;
  EXPECT_EQ(e["sites"][0]["snapshot"]["rev"], "1.0");
  EXPECT_EQ(e["sites"][0]["snapshot"]["subdir"], "src");
  EXPECT_EQ(e["sites"][0]["snapshot"]["commit"], alpha_commit);
  EXPECT_NE(RunErrdex({"show", report["matches"][0]["id"].get<std::string>(), "--db", db_,
                       "--version", "9.9"})
                .exit_code,
            0);

  // Nothing changed: nothing is read again, and the pins stay.
  CommandResult again = Index();
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("4 unchanged"), std::string::npos) << again.out;
}

TEST_F(PythonEnvIndex, ARerunReadsOnlyWhatChanged) {
  ASSERT_EQ(Index().exit_code, 0);
  CommandResult again = Index();
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("4 distributions: 0 indexed, 3 unchanged, 1 skipped (no files)\n"),
            std::string::npos)
      << again.out;
  EXPECT_NE(again.out.find("acme/alpha@1.0: unchanged, not read\n"), std::string::npos);
  EXPECT_NE(again.out.find("python/cpython@3.99.1: unchanged, not read\n"), std::string::npos);
  EXPECT_EQ(again.out.find(" files ("), std::string::npos) << again.out;  // no summary of a read

  // pip install -U alpha: a new version, a new RECORD.
  Upgrade("alpha", "1.0", "1.1",
          {{"alpha/__init__.py", ""},
           {"alpha/core.py", "def f(x):\n    raise ValueError(f'alpha 1.1 cannot take {x}')\n"}},
          "https://github.com/acme/alpha");
  CommandResult upgraded = Index({"--json"});
  ASSERT_EQ(upgraded.exit_code, 0) << upgraded.err;
  std::vector<json> lines = JsonLines(upgraded.out);
  std::vector<std::string> read;
  for (const json& j : lines) {
    if (j.contains("files"))
      read.push_back(j["library"].get<std::string>() + "@" + j["rev"].get<std::string>());
  }
  EXPECT_EQ(read, std::vector<std::string>{"acme/alpha@1.1"});
  EXPECT_EQ(lines.back()["indexed"], 1);
  EXPECT_EQ(lines.back()["unchanged"], 2);
  EXPECT_EQ(lines.back()["distributions"], 4);
  EXPECT_EQ(Snapshots()["acme/alpha"], (std::vector<std::string>{"1.0", "1.1"}));

  // The same version reinstalled with other files: its RECORD changed.
  Upgrade("mono", "2.0", "2.0",
          {{"mono/__init__.py", "raise ImportError('mono needs a newer plugin!')\n"}},
          "https://github.com/acme/mono");
  CommandResult rebuilt = Index();
  ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  EXPECT_NE(rebuilt.out.find("1 indexed, 2 unchanged"), std::string::npos) << rebuilt.out;
  EXPECT_NE(rebuilt.out.find("acme/mono@2.0: 1 file ("), std::string::npos) << rebuilt.out;

  // Other options choose other files: nothing is taken as unchanged.
  CommandResult excluded = Index({"--exclude", "no-file-is-named-this"});
  ASSERT_EQ(excluded.exit_code, 0) << excluded.err;
  EXPECT_NE(excluded.out.find("4 distributions: 3 indexed, 0 unchanged"), std::string::npos)
      << excluded.out;

  // Another errdex (here the same one with a byte appended, which still
  // runs) may extract other sites from the same files.
  std::string other = (dir_.path() / "errdex-next").string();
  std::filesystem::copy_file(ERRDEX_BINARY, other);
  std::ofstream(other, std::ios::app) << '\n';
  std::filesystem::permissions(other, std::filesystem::perms::owner_all);
  CommandResult next = testing::RunErrdexAt(
      other, {"index", "--python-env", python_, "--db", db_, "--exclude", "no-file-is-named-this"});
  ASSERT_EQ(next.exit_code, 0) << next.err;
  EXPECT_NE(next.out.find("4 distributions: 3 indexed, 0 unchanged"), std::string::npos)
      << next.out;

  CommandResult forced = Index({"--force"});
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_NE(forced.out.find("4 distributions: 3 indexed, 0 unchanged"), std::string::npos)
      << forced.out;
  EXPECT_NE(forced.out.find("python/cpython@3.99.1: 1 file ("), std::string::npos) << forced.out;
  EXPECT_EQ(RunErrdex({"check", "--db", db_}).exit_code, 0);
}

TEST_F(PythonEnvIndex, ANewInterpreterVersionIsANewSnapshot) {
  ASSERT_EQ(Index().exit_code, 0);
  python_ = WriteInterpreter("python-next", "3.99.2rc1", "3, 99, 2");
  CommandResult r = Index();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 indexed, 3 unchanged"), std::string::npos) << r.out;
  EXPECT_EQ(Snapshots()["python/cpython"], (std::vector<std::string>{"3.99.1", "3.99.2rc1"}));
}

// A snapshot whose write fails is a warning; the others go on, nothing of
// the failed ones is in the catalog, the run exits 1, and a rerun reads
// only what is missing.
TEST_F(PythonEnvIndex, FailedSnapshotsAreWarningsAndARerunCompletes) {
  ASSERT_EQ(Index().exit_code, 0);
  Upgrade("alpha", "1.0", "1.1", {{"alpha/core.py", "raise ValueError('alpha 1.1')\n"}},
          "https://github.com/acme/alpha");
  python_ = WriteInterpreter("python-next", "3.99.2", "3, 99, 2");
  setenv("ERRDEX_FAILPOINT", "index-before-commit", 1);
  CommandResult r = Index();
  unsetenv("ERRDEX_FAILPOINT");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("4 distributions: 0 indexed, 2 unchanged, 1 skipped (no files), 1 failed\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("errdex: warning: acme/alpha@1.1: not indexed: failpoint"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("errdex: warning: python/cpython@3.99.2: not indexed"), std::string::npos);
  EXPECT_NE(r.err.find("errdex: error: 2 not indexed"), std::string::npos) << r.err;
  EXPECT_EQ(Snapshots()["acme/alpha"], std::vector<std::string>{"1.0"});
  EXPECT_EQ(Snapshots()["python/cpython"], std::vector<std::string>{"3.99.1"});
  EXPECT_EQ(RunErrdex({"check", "--db", db_}).exit_code, 0);

  CommandResult again = Index();
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("4 distributions: 1 indexed, 2 unchanged"), std::string::npos)
      << again.out;
  EXPECT_EQ(Snapshots()["acme/alpha"], (std::vector<std::string>{"1.0", "1.1"}));
}

TEST_F(PythonEnvIndex, ArgumentErrors) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"index", "--python-env", python_, "."},
           {"index", "--python-env", python_, "--name", "a/b"},
           {"index", "--python-env", python_, "--rev", "1.0"},
           {"index", "--python-env", python_, "--revs", "v*"},
           {"index", "--python-env", python_, "--last", "2"},
           {"index", "--python-env", python_, "--url", "https://x"},
           {"index", "--python-env", python_, "--commit", std::string(40, 'a')},
           {"index", ".", "--name", "a/b", "--force"},
           {"index", "--name", "a/b"}}) {
    CommandResult r = RunErrdex(args);
    EXPECT_EQ(r.exit_code, 2) << ::testing::PrintToString(args) << r.err;
    EXPECT_EQ(r.err.rfind("errdex: error: index: ", 0), 0u) << r.err;
  }
  CommandResult named =
      RunErrdex({"index", "--python-env", python_, "--rev", "1", "--name", "a/b"});
  EXPECT_NE(named.err.find("--name, --rev cannot be given with it"), std::string::npos)
      << named.err;

  // An interpreter that is not one: a clear error, no catalog change.
  fs::path broken = dir_.Write("broken", "#!/bin/sh\necho 'Python 2.7' >&2\nexit 3\n");
  ::chmod(broken.c_str(), 0755);
  CommandResult r = RunErrdex({"index", "--python-env", broken.string(), "--db", db_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("exit status 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Python 2.7"), std::string::npos) << r.err;
  r = RunErrdex({"index", "--python-env", (dir_.path() / "nothing").string(), "--db", db_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("errdex: error: ", 0), 0u) << r.err;
}

// A real interpreter, found the way a user's is: the first python3 on PATH.
// It is a fresh venv made by the python3 the tests run with, so that the run
// reads one real distribution (pip, whose RECORD lists its vendored packages)
// and the standard library in seconds rather than every package installed on
// the machine (460 MB on ours: four minutes, a minute of it without output).
TEST(PythonEnvIndexReal, TheFirstPython3OnPath) {
  TempDir dir;
  fs::path venv = dir.path() / "venv";
  CommandResult made = testing::RunCommand("python3 -m venv '" + venv.string() + "' 2>&1");
  if (made.exit_code != 0 && made.out.find("ensurepip") != std::string::npos) {
    GTEST_SKIP() << "this python3 cannot make a venv with pip: " << made.out;
  }
  ASSERT_EQ(made.exit_code, 0) << made.out;
  const char* path = std::getenv("PATH");
  std::string search = (venv / "bin").string() + ":" + (path ? path : "");
  ASSERT_EQ(::setenv("PATH", search.c_str(), 1), 0);

  std::string db = (dir.path() / "c.db").string();
  auto started = std::chrono::steady_clock::now();
  CommandResult r = RunErrdex({"index", "--python-env", "--db", db, "--quiet", "--json"});
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> lines = JsonLines(r.out);
  ASSERT_FALSE(lines.empty());
  const json& summary = lines.back();
  EXPECT_EQ(summary.value("python", ""), (venv / "bin" / "python3").string()) << summary;
  EXPECT_GE(summary.value("indexed", 0), 1) << summary;
  EXPECT_EQ(summary.value("failed", -1), 0) << summary;
  bool stdlib = false, pip = false;
  for (const json& j : lines) {
    stdlib |= j.value("library", "") == "python/cpython" && j.value("errors", 0) > 1000;
    pip |= j.value("library", "") == "pypa/pip" && j.value("errors", 0) > 50;
  }
  EXPECT_TRUE(stdlib) << r.out;
  EXPECT_TRUE(pip) << r.out;
  std::printf("python3 on PATH: %s in %.1f s\n", summary.dump().c_str(), seconds);
}

}  // namespace
}  // namespace errdex
