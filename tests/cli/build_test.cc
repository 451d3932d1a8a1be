// `errdex build MANIFEST`: a manifest is checked whole before anything is
// written; indexers running at once give the catalog one indexer gives; a
// rerun reads nothing; a library that fails leaves the others indexed.
// Runs on PostgreSQL too (tests/CMakeLists.txt), where the indexers are
// separate writers of one server's database.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "test_util.h"

namespace errdex {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::CommandResult;
using testing::Git;
using testing::JsonLines;
using testing::RunErrdex;
using testing::TempDir;

// Four small libraries, each a git repository with releases: Python with
// a helper linked across files, C, a bare clone, files left out by globs.
class Build : public ::testing::Test {
 protected:
  void SetUp() override {
    Library("alpha", {{"pkg/core.py", "def f(x):\n    if x < 0:\n        raise ValueError(f'negative: {x}')\n"},
                      {"pkg/util.py", "def fail(msg):\n    raise TypeError(msg)\n"},
                      {"pkg/use.py", "from .util import fail\n\ndef g():\n    fail('alpha failed')\n"}},
            {{"pkg/other.py", "def h():\n    raise KeyError('added in 1.1')\n"}});
    Library("beta", {{"src/m.c", "static PyObject *g(long x) {\n  if (x < 0) {\n    PyErr_SetString(PyExc_ValueError, \"x must be positive\");\n    return NULL;\n  }\n  return NULL;\n}\n"},
                     {"beta/api.py", "class BetaError(Exception):\n    pass\n\ndef run(n):\n    raise BetaError('cannot run %d' % n)\n"}},
            {{"beta/api.py", "class BetaError(Exception):\n    pass\n\ndef run(n):\n    raise BetaError(f'cannot run {n} times')\n"}});
    Library("gamma", {{"gamma/__init__.py", "def parse(s):\n    raise ValueError('bad input: ' + s)\n"},
                      {"tests/test_gamma.py", "def test():\n    raise AssertionError('only in tests')\n"}},
            {{"gamma/io.py", "import os\n\ndef load(p):\n    if not os.path.exists(p):\n        raise FileNotFoundError(p)\n"}});
    Library("delta", {{"delta/x.py", "def d(kind):\n    raise NotImplementedError(f'no {kind} yet')\n"}},
            {{"delta/y.py", "def e():\n    raise RuntimeError('delta two')\n"}});
    ASSERT_EQ(testing::RunCommand("git clone -q --bare '" + (repos_ / "o" / "gamma").string() + "' '" +
                                  (repos_ / "o" / "gamma.git").string() + "' && rm -rf '" +
                                  (repos_ / "o" / "gamma").string() + "'")
                  .exit_code,
              0);
  }

  using Files = std::vector<std::pair<std::string, std::string>>;

  // o/NAME under repos_: release 1.0 with `first`, 1.1 with `second` added.
  void Library(const std::string& name, const Files& first, const Files& second) {
    fs::path repo = repos_ / "o" / name;
    for (const auto& [path, text] : first) dir_.Write("repos/o/" + name + "/" + path, text);
    ASSERT_EQ(Git(repo, "init -q"), 0);
    ASSERT_EQ(Git(repo, "add -A", "2024-01-01T00:00:00+00:00"), 0);
    ASSERT_EQ(Git(repo, "commit -q -m one", "2024-01-01T00:00:00+00:00"), 0);
    ASSERT_EQ(Git(repo, "tag v1.0"), 0);
    for (const auto& [path, text] : second) dir_.Write("repos/o/" + name + "/" + path, text);
    ASSERT_EQ(Git(repo, "add -A", "2024-02-01T00:00:00+00:00"), 0);
    ASSERT_EQ(Git(repo, "commit -q -m two", "2024-02-01T00:00:00+00:00"), 0);
    ASSERT_EQ(Git(repo, "tag v1.1"), 0);
  }

  // Every library of the fixture, each selecting its releases another way.
  std::string Manifest() const {
    return R"({
      "exclude": ["tests"],
      "libraries": [
        {"name": "o/alpha", "last": 2},
        {"name": "o/beta", "rev": ["v1.0", "v1.1"], "url": "https://example.org/o/beta"},
        {"name": "o/gamma", "revs": "v1.*"},
        {"name": "o/delta", "path": "repos/o/delta", "rev": "v1.1", "exclude": ["delta/y.py"]}
      ]})";
  }

  CommandResult RunBuild(const std::string& manifest, const std::string& db,
                         std::vector<std::string> extra = {}) {
    fs::path file = dir_.Write("manifest.json", manifest);
    std::vector<std::string> args = {"build",   file.string(),         "--db", db,
                                     "--repos", repos_.string(), "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunErrdex(args);
  }

  // The catalog as readers see it: every error's whole record (sites,
  // versions, analysis), by id. What differs between two equal builds is
  // only when they ran.
  std::string Canonical(const std::string& db) {
    CommandResult list = RunErrdex({"list", "--json", "--db", db});
    EXPECT_EQ(list.exit_code, 0) << list.err;
    std::set<std::string> ids;
    for (const json& e : JsonLines(list.out)) ids.insert(e["id"].get<std::string>());
    std::string all;
    for (const std::string& id : ids) {
      CommandResult show = RunErrdex({"show", id, "--json", "--db", db});
      EXPECT_EQ(show.exit_code, 0) << show.err;
      json record = json::parse(show.out);
      Scrub(record);
      all += record.dump() + "\n";
    }
    CommandResult stats = RunErrdex({"stats", "--json", "--db", db});
    json s = json::parse(stats.out, nullptr, false);
    Scrub(s);
    return all + s.dump() + "\n";
  }

  static void Scrub(json& j) {
    if (j.is_object()) {
      for (const char* key : {"indexed_at", "analysed_at"}) j.erase(key);
      for (auto& [key, value] : j.items()) Scrub(value);
    } else if (j.is_array()) {
      for (json& v : j) Scrub(v);
    }
  }

  TempDir dir_;
  fs::path repos_ = dir_.path() / "repos";
};

TEST_F(Build, ParallelIndexersGiveTheCatalogOneIndexerGives) {
  std::string parallel = dir_.Catalog("parallel.db");
  std::string serial = dir_.Catalog("serial.db");
  // Two threads per indexer, whatever the machine: three indexers really
  // run at once even on one core.
  CommandResult p = RunBuild(Manifest(), parallel, {"--jobs", "3", "--threads", "2"});
  ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
  CommandResult s = RunBuild(Manifest(), serial, {"--jobs", "1"});
  ASSERT_EQ(s.exit_code, 0) << s.out << s.err;

  std::vector<json> lines = JsonLines(p.out);
  ASSERT_EQ(lines.size(), 5u) << p.out;
  json total = lines.back();
  EXPECT_EQ(total["libraries"], 4);
  EXPECT_EQ(total["indexed"], 4);
  EXPECT_EQ(total["failed"], 0);
  EXPECT_EQ(total["jobs"], 3);
  std::map<std::string, json> by_library;
  for (size_t i = 0; i + 1 < lines.size(); ++i) by_library[lines[i]["library"]] = lines[i];
  EXPECT_EQ(by_library["o/alpha"]["revs"], json::parse(R"(["v1.0","v1.1"])"));
  EXPECT_EQ(by_library["o/gamma"]["read"], 2);
  EXPECT_EQ(by_library["o/delta"]["revs"], json::parse(R"(["v1.1"])"));
  // Files seen and parsed: alpha's 1.1 reuses the three files 1.0 parsed.
  EXPECT_EQ(by_library["o/alpha"]["files"], 7);
  EXPECT_EQ(by_library["o/alpha"]["parsed_files"], 4);

  std::string a = Canonical(parallel);
  EXPECT_EQ(a, Canonical(serial));
  EXPECT_NE(a.find("negative: {x}"), std::string::npos);
  EXPECT_NE(a.find("x must be positive"), std::string::npos);
  EXPECT_NE(a.find("https://example.org/o/beta"), std::string::npos);
  EXPECT_EQ(a.find("only in tests"), std::string::npos);  // the manifest's exclude
  EXPECT_EQ(a.find("delta two"), std::string::npos);      // the entry's
  EXPECT_NE(a.find("no {kind} yet"), std::string::npos);

  // A rerun reads nothing, and the catalog stays as it was.
  CommandResult again = RunBuild(Manifest(), parallel, {"--jobs", "3"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  std::vector<json> rerun = JsonLines(again.out);
  ASSERT_EQ(rerun.size(), 5u);
  EXPECT_EQ(rerun.back()["indexed"], 0);
  EXPECT_EQ(rerun.back()["unchanged"], 4);
  EXPECT_EQ(rerun.back()["parsed_files"], 0);
  for (size_t i = 0; i + 1 < rerun.size(); ++i) {
    EXPECT_EQ(rerun[i]["status"], "unchanged") << rerun[i].dump();
    for (const json& snap : rerun[i]["snapshots"]) EXPECT_EQ(snap["read"], false);
  }
  EXPECT_EQ(Canonical(parallel), a);

  // Another reading of one library (its excludes changed) is read again.
  std::string changed = Manifest();
  changed.replace(changed.find("\"delta/y.py\""), 12, "\"delta/z.py\"");
  CommandResult other = RunBuild(changed, parallel, {"--jobs", "2"});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_EQ(JsonLines(other.out).back()["indexed"], 1) << other.out;
  EXPECT_NE(Canonical(parallel).find("delta two"), std::string::npos);
}

// An error's family can hang on another library's class: spx raises npx's
// LinAlgError, a ValueError. The catalog is analysed once every library is
// written, so it does not matter which was written first, or alone before.
TEST_F(Build, TheAnalysisDoesNotDependOnWhichLibraryCameFirst) {
  Library("npx", {{"npx/linalg.py", "class LinAlgError(ValueError):\n    pass\n"}},
          {{"README", "1.1\n"}});
  Library("spx",
          {{"spx/solve.py",
            "from npx.linalg import LinAlgError\n\n\ndef solve(a):\n"
            "    raise LinAlgError('Singular matrix')\n"}},
          {{"README", "1.1\n"}});
  std::string both_manifest =
      R"({"libraries": [{"name": "o/npx", "last": 1}, {"name": "o/spx", "last": 1}]})";
  std::string both = dir_.Catalog("both.db");
  ASSERT_EQ(RunBuild(both_manifest, both).exit_code, 0);
  std::string staged = dir_.Catalog("staged.db");
  ASSERT_EQ(RunBuild(R"({"libraries": [{"name": "o/spx", "last": 1}]})", staged).exit_code, 0);
  CommandResult added = RunBuild(both_manifest, staged);
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_EQ(JsonLines(added.out).back()["indexed"], 1) << added.out;
  EXPECT_EQ(JsonLines(added.out).back()["analysed"], 1) << added.out;

  std::string a = Canonical(both);
  EXPECT_EQ(Canonical(staged), a);
  EXPECT_NE(a.find("\"slug\":\"invalid-value\""), std::string::npos) << a;
}

TEST_F(Build, ALibraryThatFailsLeavesTheOthersIndexed) {
  // A damaged repository: a directory's tree object of v1.1 is gone. Its
  // tags resolve, so the manifest is fine; reading the tree fails.
  fs::path beta = repos_ / "o" / "beta";
  CommandResult tree = testing::RunCommand("git -C '" + beta.string() + "' rev-parse v1.1:beta");
  ASSERT_EQ(tree.exit_code, 0);
  std::string sha = tree.out.substr(0, 40);
  fs::remove(beta / ".git" / "objects" / sha.substr(0, 2) / sha.substr(2));

  std::string db = dir_.Catalog();
  CommandResult r = RunBuild(Manifest(), db, {"--jobs", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("1 of 4 libraries not indexed"), std::string::npos) << r.err;
  std::vector<json> lines = JsonLines(r.out);
  ASSERT_EQ(lines.size(), 5u) << r.out;
  EXPECT_EQ(lines.back()["indexed"], 3);
  EXPECT_EQ(lines.back()["failed"], 1);
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    bool broken = lines[i]["library"] == "o/beta";
    EXPECT_EQ(lines[i]["status"], broken ? "failed" : "indexed") << lines[i].dump();
    if (broken) {
      EXPECT_FALSE(lines[i]["error"].get<std::string>().empty());
    }
  }
  // Each revision is its own transaction: beta's 1.0, read before its 1.1
  // failed, is in the catalog.
  CommandResult stats = RunErrdex({"stats", "--json", "--db", db});
  json s = json::parse(stats.out);
  EXPECT_EQ(s["libraries"], 4);
  EXPECT_EQ(s["snapshots"], 6);

  // The text form says which library failed and why.
  fs::path file = dir_.Write("manifest.json", Manifest());
  CommandResult text =
      RunErrdex({"build", file.string(), "--db", db, "--repos", repos_.string()});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("o/beta: failed: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("o/alpha: unchanged, not read"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("4 libraries: 0 indexed, 3 unchanged, 1 failed"), std::string::npos)
      << text.out;
}

TEST_F(Build, ABadManifestWritesNothing) {
  struct Case {
    std::string manifest;
    std::string message;
  };
  std::vector<Case> cases = {
      {"{\"libraries\": [", "not valid JSON"},
      {R"({"libs": []})", "unknown key 'libs'"},
      {R"({"libraries": []})", "'libraries' must be a list of at least one library"},
      {R"({"libraries": [{"name": "o/alpha", "last": 1, "revz": "v*"}]})",
       "library 1 (o/alpha): unknown key 'revz'"},
      {R"({"libraries": [{"last": 1}]})", "library 1: no 'name'"},
      {R"({"libraries": [{"name": "alpha", "last": 1}]})", "library 1 (alpha): 'name' must be OWNER/REPO"},
      {R"({"libraries": [{"name": "o/alpha", "last": 1}, {"name": "o/beta"}]})",
       "library 2 (o/beta): nothing to index"},
      {R"({"libraries": [{"name": "o/alpha", "revs": "v[1"}]})",
       "library 1 (o/alpha): 'revs' glob 'v[1' has a '[' that is never closed"},
      {R"({"libraries": [{"name": "o/alpha", "last": 1, "exclude": ["ok", ""]}]})",
       "'exclude' glob '' is empty"},
      {R"({"libraries": [{"name": "o/alpha", "last": 0}]})", "'last' must be a positive"},
      {R"({"libraries": [{"name": "o/alpha", "last": 1, "rev": 3}]})",
       "'rev' must be a string or a list of strings"},
      {R"({"libraries": [{"name": "o/nowhere", "last": 1}]})",
       "library 1 (o/nowhere): no repository at"},
      {R"({"libraries": [{"name": "o/alpha", "path": "elsewhere", "last": 1}]})",
       "library 1 (o/alpha): no repository at"},
      {R"({"libraries": [{"name": "o/alpha", "path": "repos/o/alpha", "repo": "o/alpha", "last": 1}]})",
       "give 'path' or 'repo', not both"},
      {R"({"libraries": [{"name": "o/alpha", "last": 1}, {"name": "o/beta", "revs": "v9*"}]})",
       "library 2 (o/beta): "},
      {R"({"libraries": [{"name": "o/alpha", "rev": "v7"}]})", "'v7' names no commit"},
      {R"({"libraries": [{"name": "o/alpha", "last": 1}, {"name": "o/alpha", "rev": "v1.0"}]})",
       "library 2 (o/alpha): listed already as library 1"},
  };
  std::string db = dir_.Catalog();
  for (const Case& c : cases) {
    CommandResult r = RunBuild(c.manifest, db);
    EXPECT_EQ(r.exit_code, 2) << c.manifest << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.manifest << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("errdex: error: ", 0), 0u) << r.err;
  }
  // Without --repos an entry without a path cannot be found.
  fs::path file = dir_.Write("manifest.json", R"({"libraries": [{"name": "o/alpha", "last": 1}]})");
  CommandResult no_repos = RunErrdex({"build", file.string(), "--db", db});
  EXPECT_EQ(no_repos.exit_code, 2);
  EXPECT_NE(no_repos.err.find("no 'path', and no --repos DIR to find 'o/alpha' in"),
            std::string::npos)
      << no_repos.err;
  CommandResult missing = RunErrdex({"build", (dir_.path() / "none.json").string(), "--db", db});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("none.json: no such file"), std::string::npos) << missing.err;
  // None of them wrote: there is no catalog to read.
  CommandResult stats = RunErrdex({"stats", "--db", db});
  EXPECT_NE(stats.exit_code, 0) << stats.out;
}

}  // namespace
}  // namespace errdex
