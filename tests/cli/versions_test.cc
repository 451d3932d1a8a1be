// Indexing a repository's revisions from git: what each snapshot holds, and
// that reusing per-file results across revisions changes nothing.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_util.h"

namespace errdex {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::CommandResult;
using testing::Git;
using testing::RunErrdex;
using testing::TempDir;

// The first column of `sql` (one `?`: the snapshot's rev) over catalog `db`.
std::vector<std::string> Rows(const std::string& db, const char* sql, const std::string& rev) {
  sqlite3* h = nullptr;
  std::vector<std::string> rows;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return rows;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, sql, -1, &st, nullptr);
  sqlite3_bind_text(st, 1, rev.c_str(), -1, SQLITE_TRANSIENT);
  while (sqlite3_step(st) == SQLITE_ROW) {
    rows.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return rows;
}

// Every site of snapshot `rev` with what was linked into it.
std::vector<std::string> SiteRows(const std::string& db, const std::string& rev) {
  return Rows(db,
              "SELECT e.id || ' ' || e.exception || ' ' || e.template || ' @' || s.path || "
              "':' || s.line || ' via ' || s.via || ' when ' || s.trigger "
              "FROM site s JOIN snapshot n ON n.pk = s.snapshot_pk "
              "JOIN error e ON e.pk = s.error_pk WHERE n.rev = ? ORDER BY 1",
              rev);
}

// Three releases in which files that do not change are linked differently:
// a helper in one file changes the type a caller in another raises, and a
// macro in a header changes what an unchanged C file raises.
class Releases : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = dir_.path() / "repo";
    dir_.Write("repo/pkg/helpers.py", "def fail(msg):\n    raise ValueError(msg)\n");
    dir_.Write("repo/pkg/use.py",
               "from .helpers import fail\n\ndef f(x):\n    if x < 0:\n"
               "        fail(f'negative: {x}')\n");
    dir_.Write("repo/src/err.h",
               "#define CHECK_ARG(c, msg) if (!(c)) { PyErr_SetString(PyExc_ValueError, msg); "
               "return NULL; }\n");
    dir_.Write("repo/src/m.c",
               "#include \"err.h\"\nstatic PyObject *g(long x) {\n  CHECK_ARG(x > 0, \"x must be "
               "positive\");\n  return NULL;\n}\n");
    ASSERT_EQ(Git(repo_, "init -q"), 0);
    Commit("2022-01-01T00:00:00+00:00", "v1.0");
    dir_.Write("repo/pkg/helpers.py", "def fail(msg):\n    raise TypeError(msg)\n");
    dir_.Write("repo/pkg/other.py", "def h():\n    raise KeyError('new in 1.1')\n");
    Commit("2022-02-01T00:00:00+00:00", "v1.1");
    dir_.Write("repo/src/err.h",
               "#define CHECK_ARG(c, msg) if (!(c)) { PyErr_SetString(PyExc_TypeError, msg); "
               "return NULL; }\n");
    Commit("2022-03-01T00:00:00+00:00", "v1.2");
  }

  void Commit(const std::string& date, const std::string& tag) {
    ASSERT_EQ(Git(repo_, "add -A", date), 0);
    ASSERT_EQ(Git(repo_, "commit -q -m " + tag, date), 0);
    ASSERT_EQ(Git(repo_, "tag " + tag), 0);
  }

  std::string Db(const std::string& name) const { return (dir_.path() / name).string(); }

  TempDir dir_;
  fs::path repo_;
};

TEST_F(Releases, EachRevisionIsASnapshotOfItsOwnCode) {
  // The work tree differs from every release: it must not be read.
  dir_.Write("repo/pkg/use.py", "raise RuntimeError('uncommitted')\n");
  CommandResult r = RunErrdex({"index", repo_.string(), "--name", "o/r", "--db", Db("all.db"),
                               "--revs", "v1.*", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> lines = testing::JsonLines(r.out);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["rev"], "v1.0");
  EXPECT_EQ(lines[2]["rev"], "v1.2");
  EXPECT_EQ(lines[2]["kind"], "git");
  EXPECT_EQ(lines[2]["commit"].get<std::string>().size(), 40u);

  auto joined = [](const std::vector<std::string>& rows) {
    std::string all;
    for (const std::string& row : rows) all += row + "\n";
    return all;
  };
  std::string v10 = joined(SiteRows(Db("all.db"), "v1.0"));
  std::string v11 = joined(SiteRows(Db("all.db"), "v1.1"));
  std::string v12 = joined(SiteRows(Db("all.db"), "v1.2"));
  EXPECT_NE(v10.find("ValueError negative: {x} @pkg/use.py:5 via fail"), std::string::npos) << v10;
  EXPECT_NE(v11.find("TypeError negative: {x} @pkg/use.py:5 via fail"), std::string::npos) << v11;
  EXPECT_EQ(v10.find("new in 1.1"), std::string::npos);
  EXPECT_NE(v11.find("new in 1.1"), std::string::npos);
  EXPECT_NE(v11.find("ValueError x must be positive @src/m.c"), std::string::npos) << v11;
  EXPECT_NE(v12.find("TypeError x must be positive @src/m.c"), std::string::npos) << v12;
  EXPECT_EQ(v12.find("uncommitted"), std::string::npos);
}

// The blob cache is an optimisation only: each revision indexed alone, with
// nothing to reuse, gives the same sites as all of them in one run.
TEST_F(Releases, ReusingFilesAcrossRevisionsChangesNoSite) {
  CommandResult all = RunErrdex({"index", repo_.string(), "--name", "o/r", "--db", Db("all.db"),
                                 "--rev", "v1.2", "--rev", "v1.0", "--rev", "v1.1"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("3 revisions: 8 files parsed, 6 reused"), std::string::npos) << all.out;
  for (const std::string rev : {"v1.0", "v1.1", "v1.2"}) {
    std::string db = Db(rev + ".db");
    CommandResult one = RunErrdex({"index", repo_.string(), "--name", "o/r", "--db", db, "--rev", rev});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    std::vector<std::string> alone = SiteRows(db, rev);
    EXPECT_FALSE(alone.empty());
    EXPECT_EQ(SiteRows(Db("all.db"), rev), alone) << rev;
  }
}

// The excerpt of a site made at a call into a helper is cut from the
// calling file's text at that revision, whether the run read the file or
// kept it from a parse or an earlier revision's link: here the caller moves
// down in v2 and stays in v3, where only the helper's file changes.
TEST(ReleaseExcerpts, ACallersExcerptIsItsOwnRevisionsText) {
  TempDir dir;
  fs::path repo = dir.path() / "repo";
  auto commit = [&](const std::string& date, const std::string& tag) {
    ASSERT_EQ(Git(repo, "add -A", date), 0);
    ASSERT_EQ(Git(repo, "commit -q -m " + tag, date), 0);
    ASSERT_EQ(Git(repo, "tag " + tag), 0);
  };
  dir.Write("repo/pkg/helpers.py", "def fail(msg):\n    raise ValueError(msg)\n");
  dir.Write("repo/pkg/use.py",
            "from .helpers import fail\n\ndef f(x):\n    fail('first wording')\n");
  ASSERT_EQ(Git(repo, "init -q"), 0);
  commit("2022-01-01T00:00:00+00:00", "v1");
  dir.Write("repo/pkg/use.py",
            "from .helpers import fail\n# one line\n# and another\n\ndef f(x):\n"
            "    fail('first wording')\n");
  commit("2022-02-01T00:00:00+00:00", "v2");
  dir.Write("repo/pkg/helpers.py", "def fail(msg):\n    raise TypeError(msg)\n");
  commit("2022-03-01T00:00:00+00:00", "v3");
  auto rows = [](const std::string& db, const std::string& rev) {
    return Rows(db,
                "SELECT s.path || ':' || s.line || ' ' || s.excerpt_line || ' ' || "
                "s.excerpt FROM site s JOIN snapshot n ON n.pk = s.snapshot_pk "
                "WHERE n.rev = ? AND s.path = 'pkg/use.py' ORDER BY 1",
                rev);
  };
  std::string all = (dir.path() / "all.db").string();
  CommandResult run =
      RunErrdex({"index", repo.string(), "--name", "o/r", "--db", all, "--revs", "v*"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const std::string rev : {"v1", "v2", "v3"}) {
    std::string db = (dir.path() / (rev + ".db")).string();
    CommandResult one =
        RunErrdex({"index", repo.string(), "--name", "o/r", "--db", db, "--rev", rev});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    std::vector<std::string> alone = rows(db, rev);
    ASSERT_EQ(alone.size(), 1u) << rev;
    EXPECT_NE(alone[0].find("fail('first wording')"), std::string::npos) << alone[0];
    EXPECT_EQ(rows(all, rev), alone) << rev;
  }
  EXPECT_NE(rows(all, "v2")[0].find("# and another"), std::string::npos);
  EXPECT_EQ(rows(all, "v1")[0].find("# and another"), std::string::npos);
}

// Two release tags on one commit make one snapshot; the name left out is
// said, stored as an alias and taken by --version; a pre-release tagged
// again as the release is stored but not said.
TEST_F(Releases, ReleasesOfOneCommitAreOneSnapshotUnderEitherName) {
  ASSERT_EQ(Git(repo_, "tag v1.3"), 0);
  ASSERT_EQ(Git(repo_, "tag v1.3rc1"), 0);
  std::string db = Db("t.db");
  CommandResult r = RunErrdex({"index", repo_.string(), "--name", "o/r", "--db", db, "--revs",
                               "v1.*", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> lines = testing::JsonLines(r.out);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2]["rev"], "v1.2");
  EXPECT_NE(r.err.find("v1.3 is the commit of v1.2"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("v1.3rc1"), std::string::npos) << r.err;

  CommandResult stats = RunErrdex({"stats", "--db", db, "--json"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  json snapshots = json::parse(stats.out)["per_snapshot"];
  ASSERT_EQ(snapshots.size(), 3u);
  EXPECT_EQ(snapshots[2]["aliases"], json({"v1.3", "v1.3rc1"})) << snapshots.dump();
  EXPECT_FALSE(snapshots[1].contains("aliases"));

  // The C macro made the message a TypeError in v1.2: in v1.1 it is a ValueError.
  auto explain = [&](const std::string& version) {
    return RunErrdex({"explain", "--db", db, "--json", "--version", version,
                      "TypeError: x must be positive"});
  };
  CommandResult by_rev = explain("v1.2");
  ASSERT_EQ(by_rev.exit_code, 0) << by_rev.err;
  for (const std::string alias : {"v1.3", "v1.3rc1"}) {
    CommandResult by_alias = explain(alias);
    ASSERT_EQ(by_alias.exit_code, 0) << by_alias.err;
    EXPECT_EQ(by_alias.out, by_rev.out) << alias;
    EXPECT_NE(by_alias.err.find(alias + " is the commit of v1.2"), std::string::npos)
        << by_alias.err;
  }
  CommandResult older = explain("v1.1");
  ASSERT_EQ(older.exit_code, 0) << older.err;
  EXPECT_NE(older.out, by_rev.out);
  CommandResult unknown = explain("v1.9");
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("no indexed version has that name"), std::string::npos) << unknown.err;

  // A tag put on a stored commit later is news for that snapshot alone.
  ASSERT_EQ(Git(repo_, "tag v1.4"), 0);
  CommandResult again = RunErrdex({"index", repo_.string(), "--name", "o/r", "--db", db, "--revs",
                                   "v1.*", "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  lines = testing::JsonLines(again.out);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["read"], false);
  EXPECT_EQ(lines[1]["read"], false);
  EXPECT_FALSE(lines[2].contains("read")) << lines[2].dump();
  CommandResult by_new = explain("v1.4");
  ASSERT_EQ(by_new.exit_code, 0) << by_new.err;
  EXPECT_EQ(by_new.out, by_rev.out);
}

// A revision stored from the same commit, read the same way, is not read
// again; one read another way (other excludes, --force) is.
TEST_F(Releases, AStoredRevisionIsNotReadAgain) {
  std::string db = Db("c.db");
  auto index = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"index", repo_.string(), "--name", "o/r", "--db", db, "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    CommandResult r = RunErrdex(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return testing::JsonLines(r.out);
  };
  std::vector<json> first = index({"--rev", "v1.0", "--rev", "v1.1"});
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0]["parsed_files"], 4);
  EXPECT_EQ(first[1]["parsed_files"], 2);  // use.py and other.py; the rest reused
  std::vector<std::string> before = SiteRows(db, "v1.1");

  std::vector<json> again = index({"--rev", "v1.0", "--rev", "v1.1"});
  ASSERT_EQ(again.size(), 2u);
  for (const json& line : again) {
    EXPECT_EQ(line["read"], false) << line.dump();
    EXPECT_EQ(line["unchanged"], true);
  }
  std::vector<json> more = index({"--last", "3"});
  ASSERT_EQ(more.size(), 3u);
  EXPECT_EQ(more[0]["read"], false);
  EXPECT_EQ(more[1]["read"], false);
  EXPECT_EQ(more[2]["rev"], "v1.2");
  EXPECT_FALSE(more[2].contains("read"));
  EXPECT_EQ(more[2]["parsed_files"], 5);

  std::vector<json> forced = index({"--rev", "v1.1", "--force"});
  ASSERT_EQ(forced.size(), 1u);
  EXPECT_FALSE(forced[0].contains("read"));
  EXPECT_EQ(forced[0]["unchanged"], true);  // read, and found to hold the same
  EXPECT_EQ(SiteRows(db, "v1.1"), before);
  std::vector<json> other = index({"--rev", "v1.1", "--exclude", "src"});
  ASSERT_EQ(other.size(), 1u);
  EXPECT_FALSE(other[0].contains("read"));
  EXPECT_EQ(other[0]["unchanged"], false);

  CommandResult text = RunErrdex({"index", repo_.string(), "--name", "o/r", "--db", db, "--rev",
                                  "v1.1", "--exclude", "src"});
  EXPECT_NE(text.out.find("o/r@v1.1: unchanged, not read\n"), std::string::npos) << text.out;
  CommandResult dir_force = RunErrdex({"index", repo_.string(), "--name", "o/r", "--db", db, "--force"});
  EXPECT_EQ(dir_force.exit_code, 2);
  EXPECT_NE(dir_force.err.find("--force is for --python-env and --rev/--revs/--last"), std::string::npos);
}

TEST_F(Releases, LastReleasesAndClearErrors) {
  CommandResult last = RunErrdex({"index", repo_.string(), "--name", "o/r", "--db",
                                  Db("last.db"), "--last", "2", "--json"});
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_NE(last.out.find("\"rev\":\"v1.1\""), std::string::npos);
  EXPECT_NE(last.out.find("\"rev\":\"v1.2\""), std::string::npos);
  EXPECT_EQ(last.out.find("\"rev\":\"v1.0\""), std::string::npos);

  CommandResult missing =
      RunErrdex({"index", repo_.string(), "--name", "o/r", "--db", Db("x.db"), "--rev", "v9"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("'v9' names no commit"), std::string::npos) << missing.err;
  CommandResult nomatch =
      RunErrdex({"index", repo_.string(), "--name", "o/r", "--db", Db("x.db"), "--revs", "v9*"});
  EXPECT_EQ(nomatch.exit_code, 1);
  EXPECT_NE(nomatch.err.find("no tag of the repository matches"), std::string::npos);
  dir_.Write("plain/m.py", "raise ValueError('x')\n");
  CommandResult plain = RunErrdex({"index", (dir_.path() / "plain").string(), "--name", "o/p",
                                   "--db", Db("x.db"), "--last", "1"});
  EXPECT_EQ(plain.exit_code, 1);
  EXPECT_NE(plain.err.find("read a git repository"), std::string::npos) << plain.err;
  // In a plain directory --rev is the name of its one snapshot.
  CommandResult named = RunErrdex({"index", (dir_.path() / "plain").string(), "--name", "o/p",
                                   "--db", Db("x.db"), "--rev", "3.11.7", "--json"});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_NE(named.out.find("\"rev\":\"3.11.7\""), std::string::npos);
}

// A revision whose tree git cannot read ends the run with its error once
// the revisions before it are written: the stages that parse and link
// ahead of the writes stop with it, and nothing waits forever.
TEST_F(Releases, AnUnreadableRevisionEndsTheRunAfterTheOnesBefore) {
  CommandResult tree = testing::RunCommand("git -C " + repo_.string() + " rev-parse v1.1:pkg");
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  std::string id = tree.out.substr(0, 40);
  fs::path object = repo_ / ".git" / "objects" / id.substr(0, 2) / id.substr(2);
  ASSERT_TRUE(fs::exists(object)) << object;
  fs::remove(object);
  CommandResult run = RunErrdex({"index", repo_.string(), "--name", "o/r", "--db", Db("broken.db"),
                                 "--revs", "v*", "--json"});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(run.out.find("\"rev\":\"v1.0\""), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("\"rev\":\"v1.1\""), std::string::npos) << run.out;
  EXPECT_NE(run.err.find(id.substr(0, 7)), std::string::npos) << run.err;
  EXPECT_EQ(SiteRows(Db("broken.db"), "v1.1"), std::vector<std::string>{});
  EXPECT_FALSE(SiteRows(Db("broken.db"), "v1.0").empty());
}

}  // namespace
}  // namespace errdex

namespace errdex {
namespace {

// One error that moves (1.1) and is then reworded (1.2).
class MovedAndReworded : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = dir_.path() / "repo";
    dir_.Write("repo/pkg/core.py",
               "def check(x):\n    if x < 0:\n        raise ValueError(f'negative value: {x}')\n");
    ASSERT_EQ(Git(repo_, "init -q"), 0);
    Commit("2023-01-01T00:00:00+00:00", "v1.0");
    dir_.Write("repo/pkg/core.py",
               "import math\n\n\ndef check(x):\n    if x < 0:\n"
               "        raise ValueError(f'negative value: {x}')\n");
    Commit("2023-02-01T00:00:00+00:00", "v1.1");
    dir_.Write("repo/pkg/core.py",
               "import math\n\n\ndef check(x):\n    if x < 0:\n"
               "        raise ValueError(f'x must be >= 0, got negative value {x}')\n");
    Commit("2023-03-01T00:00:00+00:00", "v1.2");
    db_ = (dir_.path() / "c.db").string();
    CommandResult r = RunErrdex({"index", repo_.string(), "--name", "o/r", "--db", db_, "--revs",
                                 "v*", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  void Commit(const std::string& date, const std::string& tag) {
    ASSERT_EQ(Git(repo_, "add -A", date), 0);
    ASSERT_EQ(Git(repo_, "commit -q -m " + tag, date), 0);
    ASSERT_EQ(Git(repo_, "tag " + tag), 0);
  }

  json Explain(const std::string& text, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"explain", "--json", "--db", db_};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("-");
    CommandResult r = RunErrdex(args, text);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }

  static std::string Traceback(int line) {
    return "Traceback (most recent call last):\n  File \"/site/pkg/core.py\", line " +
           std::to_string(line) +
           ", in check\n    raise ValueError(...)\nValueError: negative value: -1\n";
  }

  TempDir dir_;
  fs::path repo_;
  std::string db_;
};

TEST_F(MovedAndReworded, TheTracebackLineNarrowsTheVersion) {
  json old = Explain(Traceback(3));
  ASSERT_FALSE(old["matches"].empty()) << old.dump();
  json v = old["matches"][0]["versions"];
  EXPECT_EQ(v["shown"], "v1.0");
  EXPECT_EQ(v["traceback_fits"], json::array({"v1.0"}));
  EXPECT_EQ(v["raised_in"], json::parse(R"([{"first":"v1.0","last":"v1.1"}])"));
  EXPECT_EQ(v["newest"], "v1.2");
  EXPECT_EQ(old["matches"][0]["sites"][0]["line"], 3);

  json moved = Explain(Traceback(6));
  EXPECT_EQ(moved["matches"][0]["versions"]["shown"], "v1.1");
  EXPECT_EQ(moved["matches"][0]["sites"][0]["line"], 6);
}

TEST_F(MovedAndReworded, AnOldWordingNamesItsSuccessor) {
  json r = Explain("ValueError: negative value: -1\n");
  ASSERT_FALSE(r["matches"].empty());
  json v = r["matches"][0]["versions"];
  EXPECT_EQ(v["shown"], "v1.1");  // the newest version with this wording
  ASSERT_EQ(v["reworded_as"].size(), 1u) << v.dump();
  EXPECT_EQ(v["reworded_as"][0]["since"], "v1.2");
  EXPECT_EQ(v["reworded_as"][0]["template"], "x must be >= 0, got negative value {x}");

  CommandResult text = RunErrdex({"explain", "--db", db_, "ValueError: negative value: -1"});
  EXPECT_NE(text.out.find("raised in v1.0\u2013v1.1 (of 3 versions indexed)"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("reworded in v1.2 as: x must be >= 0"), std::string::npos);
}

TEST_F(MovedAndReworded, VersionRestrictsTheMatches) {
  json in_old = Explain("ValueError: negative value: -1\n", {"--version", "v1.0"});
  ASSERT_FALSE(in_old["matches"].empty());
  EXPECT_EQ(in_old["matches"][0]["versions"]["shown"], "v1.0");
  json in_new = Explain("ValueError: negative value: -1\n", {"--version", "v1.2"});
  for (const json& m : in_new["matches"]) {
    EXPECT_EQ(m["versions"]["shown"], "v1.2");
    EXPECT_NE(m["template"], "negative value: {x}");
  }
  CommandResult bad = RunErrdex({"explain", "--db", db_, "--version", "v7", "ValueError: x"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("indexed: v1.0, v1.1, v1.2"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace errdex

namespace errdex {
namespace {

// A file renamed between releases: the same error in both, at the path of
// each; an error removed in the second release ends with the first.
TEST(RenamedFile, TheErrorFollowsTheFile) {
  TempDir dir;
  fs::path repo = dir.path() / "repo";
  dir.Write("repo/pkg/old_name.py",
            "def f(x):\n    raise ValueError('renamed file error')\n\n\ndef g():\n"
            "    raise KeyError('removed in 2.0')\n");
  ASSERT_EQ(Git(repo, "init -q"), 0);
  ASSERT_EQ(Git(repo, "add -A", "2020-01-01T00:00:00+00:00"), 0);
  ASSERT_EQ(Git(repo, "commit -q -m one", "2020-01-01T00:00:00+00:00"), 0);
  ASSERT_EQ(Git(repo, "tag 1.0"), 0);
  ASSERT_EQ(Git(repo, "mv pkg/old_name.py pkg/new_name.py"), 0);
  dir.Write("repo/pkg/new_name.py", "def f(x):\n    raise ValueError('renamed file error')\n");
  ASSERT_EQ(Git(repo, "add -A", "2020-02-01T00:00:00+00:00"), 0);
  ASSERT_EQ(Git(repo, "commit -q -m two", "2020-02-01T00:00:00+00:00"), 0);
  ASSERT_EQ(Git(repo, "tag 2.0"), 0);
  std::string db = (dir.path() / "c.db").string();
  CommandResult r = RunErrdex({"index", repo.string(), "--name", "o/r", "--db", db, "--last", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  CommandResult list = RunErrdex({"list", "--json", "--db", db});
  std::map<std::string, std::string> ids;
  for (const json& e : testing::JsonLines(list.out)) {
    ids[e["template"].get<std::string>()] = e["id"].get<std::string>();
  }
  ASSERT_EQ(ids.size(), 2u) << list.out;
  json renamed = json::parse(RunErrdex({"show", ids["renamed file error"], "--json", "--db", db}).out);
  EXPECT_EQ(renamed["versions"]["raised_in"], json::parse(R"([{"first":"1.0","last":"2.0"}])"));
  EXPECT_EQ(renamed["sites"][0]["path"], "pkg/new_name.py");
  json removed = json::parse(RunErrdex({"show", ids["'removed in 2.0'"], "--json", "--db", db}).out);
  EXPECT_EQ(removed["versions"]["shown"], "1.0");
  EXPECT_EQ(removed["versions"]["raised_in"], json::parse(R"([{"first":"1.0","last":"1.0"}])"));
  EXPECT_EQ(removed["sites"][0]["path"], "pkg/old_name.py");
  EXPECT_EQ(removed["versions"]["each"][1]["sites"], 0);
}

}  // namespace
}  // namespace errdex

namespace errdex {
namespace {

// A package that moved a module between releases (pkg/core/ became
// pkg/_core/) while the raise it calls stayed put: the frames stand on the
// raise in both releases, the caller's file tells them apart.
TEST(MovedModule, TheTracebacksFilesTellTheRelease) {
  TempDir dir;
  fs::path repo = dir.path() / "repo";
  dir.Write("repo/pkg/impl.py", "def fail():\n    raise ValueError('boom in impl')\n");
  std::string api =
      "from pkg.impl import fail\n\n\ndef call():\n    fail()\n\n\ndef other(x):\n"
      "    raise KeyError('api error')\n";
  dir.Write("repo/pkg/core/api.py", api);
  ASSERT_EQ(Git(repo, "init -q"), 0);
  ASSERT_EQ(Git(repo, "add -A", "2021-01-01T00:00:00+00:00"), 0);
  ASSERT_EQ(Git(repo, "commit -q -m one", "2021-01-01T00:00:00+00:00"), 0);
  ASSERT_EQ(Git(repo, "tag 1.0"), 0);
  ASSERT_EQ(Git(repo, "mv pkg/core pkg/_core"), 0);
  ASSERT_EQ(Git(repo, "commit -q -m two", "2021-02-01T00:00:00+00:00"), 0);
  ASSERT_EQ(Git(repo, "tag 2.0"), 0);
  std::string db = (dir.path() / "c.db").string();
  ASSERT_EQ(RunErrdex({"index", repo.string(), "--name", "o/r", "--db", db, "--last", "2", "-q"})
                .exit_code,
            0);
  auto explain = [&](const std::string& module_dir) {
    std::string tb = "Traceback (most recent call last):\n  File \"/env/pkg/" + module_dir +
                     "/api.py\", line 5, in call\n    fail()\n  File \"/env/pkg/impl.py\", "
                     "line 2, in fail\n    raise ValueError('boom in impl')\n"
                     "ValueError: boom in impl\n";
    CommandResult r = RunErrdex({"explain", "--json", "--db", db, "-"}, tb);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out)["matches"][0]["versions"];
  };
  json old = explain("core");
  EXPECT_EQ(old["shown"], "1.0");
  EXPECT_EQ(old["traceback_fits"], json::array({"1.0"}));
  json now = explain("_core");
  EXPECT_EQ(now["shown"], "2.0");
  EXPECT_EQ(now["traceback_fits"], json::array({"2.0"}));
}

}  // namespace
}  // namespace errdex
