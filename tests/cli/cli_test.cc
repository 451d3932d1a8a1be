// Black-box tests of the errdex binary: exit codes, messages, the JSON
// contracts, golden catalogs of the fixture repositories, and a catalog that
// survives an index run killed at any moment.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <thread>

#include "test_util.h"
#include "web/site.h"

namespace errdex {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::CommandResult;
using testing::JsonLines;
using testing::RunErrdex;
using testing::TempDir;


// A copy of a fixture outside any git work tree, so that snapshots of it do
// not pick up errdex's own commit.
fs::path CopyFixture(const TempDir& dir, const std::string& name) {
  fs::path target = dir.path() / "src" / name;
  fs::create_directories(target);
  fs::copy(testing::FixtureDir(name), target, fs::copy_options::recursive);
  return target;
}

TEST(Cli, HelpVersionAndUsageErrors) {
  CommandResult help = RunErrdex({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* cmd : {"index", "list", "show", "search", "stats"}) {
    EXPECT_NE(help.out.find(cmd), std::string::npos) << cmd;
  }
  EXPECT_EQ(RunErrdex({"index", "--help"}).exit_code, 0);
  EXPECT_EQ(RunErrdex({"--version"}).exit_code, 0);
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {}, {"frobnicate"}, {"index"}, {"index", "."}, {"list", "--limit", "x"}}) {
    CommandResult r = RunErrdex(args);
    EXPECT_EQ(r.exit_code, 2) << ::testing::PrintToString(args);
    EXPECT_EQ(r.err.rfind("errdex: error: ", 0), 0u) << r.err;
  }
}

TEST(Cli, FailuresAreOneLineErrors) {
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  CommandResult missing = RunErrdex({"index", "/no/such/dir", "--name", "a/b", "--db", db});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "errdex: error: /no/such/dir: no such file or directory\n");
  CommandResult bad_name =
      RunErrdex({"index", dir.path().string(), "--name", "noslash", "--db", db});
  EXPECT_EQ(bad_name.exit_code, 1);
  EXPECT_NE(bad_name.err.find("OWNER/REPO"), std::string::npos);
  CommandResult no_catalog = RunErrdex({"list", "--db", db});
  EXPECT_EQ(no_catalog.exit_code, 1);
  EXPECT_NE(no_catalog.err.find("no catalog at"), std::string::npos);
  fs::path text = dir.Write("notes.txt", "definitely not a SQLite database, only words in a file");
  CommandResult not_db = RunErrdex({"stats", "--db", text.string()});
  EXPECT_EQ(not_db.exit_code, 1);
  EXPECT_NE(not_db.err.find("not an errdex catalog"), std::string::npos);
}

// The subcommands `errdex --help` lists, in its order.
std::vector<std::string> Subcommands() {
  std::vector<std::string> names;
  std::istringstream help(RunErrdex({"--help"}).out);
  bool in_list = false;
  for (std::string line; std::getline(help, line);) {
    if (line.rfind("Subcommands:", 0) == 0 || line.rfind("SUBCOMMANDS:", 0) == 0) {
      in_list = true;
    } else if (in_list && line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
    } else if (in_list && !line.empty() && line[0] != ' ') {
      in_list = false;
    }
  }
  return names;
}

// --db goes before or after any subcommand. A file that is no catalog makes
// each fail on opening it, which shows it was the file given that was read;
// the rest of each command line is the least that parses.
TEST(Cli, DatabaseOptionAfterEverySubcommand) {
  TempDir dir;
  fs::path empty = dir.path() / "empty";
  fs::create_directories(empty);
  std::string db = dir.Write("notes.txt", "not a catalog, only words in a file").string();
  // build opens the catalog once it has found its manifest sound.
  fs::path repo = dir.path() / "repo";
  dir.Write("repo/m.py", "raise ValueError('x')\n");
  ASSERT_EQ(testing::Git(repo, "init -q"), 0);
  ASSERT_EQ(testing::Git(repo, "add -A"), 0);
  ASSERT_EQ(testing::Git(repo, "commit -q -m one"), 0);
  fs::path manifest = dir.Write(
      "manifest.json", R"({"libraries": [{"name": "a/b", "path": "repo", "rev": "HEAD"}]})");
  const std::map<std::string, std::vector<std::string>> rest = {
      {"index", {empty.string(), "--name", "a/b"}},
      {"build", {manifest.string()}},
      {"list", {}},
      {"show", {"0123456789abcdef"}},
      {"search", {"words"}},
      {"stats", {}},
      {"check", {}},
      {"analyze", {}},
      {"families", {}},
      {"enrich", {"--endpoint", "http://127.0.0.1:9/v1", "--model", "m"}},
      {"serve", {"--port", "0"}},
      {"export", {(dir.path() / "site").string()}},
      {"explain", {"ValueError: bad stage 7"}},
      {"run", {"--", "false"}},
  };
  std::vector<std::string> subcommands = Subcommands();
  ASSERT_GE(subcommands.size(), rest.size());
  for (const std::string& sub : subcommands) {
    auto it = rest.find(sub);
    ASSERT_NE(it, rest.end()) << "a new subcommand: give it a line in this test: " << sub;
    std::vector<std::string> after = {sub, "--db", db};
    std::vector<std::string> before = {"--db", db, sub};
    for (std::vector<std::string>* args : {&after, &before}) {
      // `run`'s arguments end with its command, after `--`.
      args->insert(args->end(), it->second.begin(), it->second.end());
      CommandResult r = RunErrdex(*args);
      EXPECT_EQ(r.exit_code, 1) << ::testing::PrintToString(*args) << "\n" << r.err;
      EXPECT_NE(r.err.find(db + " is not an errdex catalog"), std::string::npos)
          << ::testing::PrintToString(*args) << "\n"
          << r.err;
    }
  }
}

// One of everything reads "1 error", never "1 errors": every count the CLI
// prints goes through one rule.
TEST(Cli, CountsAgreeWithTheirNouns) {
  TempDir dir;
  dir.Write("lib/m.py", "def f(x):\n    raise ValueError(f'bad stage {x}')\n");
  std::string db = (dir.path() / "c.db").string();
  CommandResult index =
      RunErrdex({"index", (dir.path() / "lib").string(), "--name", "a/b", "--db", db});
  ASSERT_EQ(index.exit_code, 0) << index.err;
  EXPECT_NE(index.out.find("a/b: 1 file ("), std::string::npos) << index.out;
  EXPECT_NE(index.out.find(": 1 error at 1 site "), std::string::npos) << index.out;
  EXPECT_NE(index.out.find("analysed 1 error: 1 family,"), std::string::npos) << index.out;
  CommandResult families = RunErrdex({"families", "--db", db});
  std::string family = families.out.substr(0, families.out.find('\n'));
  EXPECT_NE(family.find(" 1 error "), std::string::npos) << families.out;
  EXPECT_NE(family.find(" 1 library "), std::string::npos) << families.out;
  CommandResult check = RunErrdex({"check", "--db", db});
  EXPECT_NE(check.out.find("of 1 library, 1 snapshot, 1 error, 1 site, 1 analysis, 0 enrichments"),
            std::string::npos)
      << check.out;
  EXPECT_NE(RunErrdex({"list", "--db", db}).out.find("(1 site)"), std::string::npos);
  CommandResult stats = RunErrdex({"stats", "--db", db});
  EXPECT_NE(stats.out.find("  1 file  1 site  indexed "), std::string::npos) << stats.out;
  for (const CommandResult* r : {&index, &families, &check, &stats}) {
    for (const char* wrong : {" 1 errors", " 1 sites", " 1 files", " 1 libraries", " 1 families"}) {
      EXPECT_EQ(r->out.find(wrong), std::string::npos) << wrong << "\n" << r->out;
    }
  }
}

class IndexedFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = CopyFixture(dir_, "python/idioms");
    db_ = (dir_.path() / "catalog.db").string();
    index_ = RunErrdex({"index", root_.string(), "--name", "test/idioms", "--db", db_, "--json"});
    ASSERT_EQ(index_.exit_code, 0) << index_.err;
  }
  TempDir dir_;
  fs::path root_;
  std::string db_;
  CommandResult index_;
};

// Each fixture repository's catalog, compared exactly with its golden files
// (ERRDEX_UPDATE_GOLDEN=1 rewrites them).
struct GoldenCase {
  const char* fixture;  // under tests/fixtures
  const char* golden;   // prefix of the files under tests/golden
};

class GoldenCatalog : public ::testing::TestWithParam<GoldenCase> {
 protected:
  void SetUp() override {
    fs::path root = CopyFixture(dir_, GetParam().fixture);
    db_ = (dir_.path() / "catalog.db").string();
    CommandResult index =
        RunErrdex({"index", root.string(), "--name", "test/idioms", "--db", db_, "--json"});
    ASSERT_EQ(index.exit_code, 0) << index.err;
  }
  TempDir dir_;
  std::string db_;
};

TEST_P(GoldenCatalog, List) {
  CommandResult list = RunErrdex({"list", "--json", "--db", db_});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  for (const json& j : JsonLines(list.out)) {
    for (const char* key : {"id", "library", "exception", "template", "kind", "sites"}) {
      EXPECT_TRUE(j.contains(key)) << key;
    }
  }
  testing::ExpectGolden(std::string(GetParam().golden) + ".list.jsonl", list.out);
}

TEST_P(GoldenCatalog, FullRecords) {
  CommandResult list = RunErrdex({"list", "--json", "--db", db_});
  std::string all;
  for (const json& j : JsonLines(list.out)) {
    CommandResult show = RunErrdex({"show", j["id"].get<std::string>(), "--json", "--db", db_});
    ASSERT_EQ(show.exit_code, 0) << show.err;
    json record = json::parse(show.out);
    EXPECT_EQ(record["id"], j["id"]);
    all += record.dump() + "\n";
  }
  testing::ExpectGolden(std::string(GetParam().golden) + ".records.jsonl", all);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoldenCatalog,
                         ::testing::Values(GoldenCase{"python/idioms", "python_idioms"},
                                           GoldenCase{"cpp/idioms", "cpp_idioms"},
                                           GoldenCase{"cython/idioms", "cython_idioms"},
                                           GoldenCase{"rust/idioms", "rust_idioms"}),
                         [](const ::testing::TestParamInfo<GoldenCase>& param) {
                           return std::string(param.param.golden);
                         });

TEST_F(IndexedFixture, SummaryStatsAndReindex) {
  json summary = json::parse(index_.out);
  EXPECT_EQ(summary["library"], "test/idioms");
  EXPECT_EQ(summary["kind"], "dir");
  EXPECT_GT(summary["errors"].get<int>(), 50);
  EXPECT_EQ(summary["unchanged"], false);
  EXPECT_EQ(summary["skipped_files"]["empty"], 1);

  CommandResult again = RunErrdex({"index", root_.string(), "--name", "test/idioms", "--db", db_});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.out.find("(unchanged)"), std::string::npos) << again.out;

  CommandResult stats = RunErrdex({"stats", "--json", "--db", db_});
  ASSERT_EQ(stats.exit_code, 0);
  json s = json::parse(stats.out);
  EXPECT_EQ(s["libraries"], 1);
  EXPECT_EQ(s["snapshots"], 1);
  EXPECT_EQ(s["errors"], summary["errors"]);
  EXPECT_EQ(s["non_sites"]["reraise"], 1);
  EXPECT_EQ(s["non_sites"]["reraise-caught"], 1);
  EXPECT_EQ(s["non_sites"]["reraise-variable"], 1);
  EXPECT_EQ(s["non_sites"]["raise-returned"], 1);
  CommandResult text = RunErrdex({"stats", "--db", db_});
  EXPECT_NE(text.out.find("raise statements that are not sites"), std::string::npos);
}

// `stats --json` gives when the catalog was last analysed apart from when
// it was indexed: `analyze` moves the one, an unchanged re-index neither.
TEST_F(IndexedFixture, AnalyzeRecordsWhenItRan) {
  auto times = [&] {
    CommandResult stats = RunErrdex({"stats", "--json", "--db", db_});
    EXPECT_EQ(stats.exit_code, 0) << stats.err;
    json s = json::parse(stats.out);
    return std::make_pair(s["per_snapshot"][0]["indexed_at"].get<std::string>(),
                          s["analysed_at"].get<std::string>());
  };
  auto [indexed, analysed] = times();
  ASSERT_EQ(indexed.size(), 20u) << indexed;
  ASSERT_EQ(analysed.size(), 20u) << analysed;
  EXPECT_GE(analysed, indexed);  // index analysed what it wrote
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_EQ(RunErrdex({"index", root_.string(), "--name", "test/idioms", "--db", db_}).exit_code,
            0);
  EXPECT_EQ(times(), std::make_pair(indexed, analysed));
  ASSERT_EQ(RunErrdex({"analyze", "--db", db_}).exit_code, 0);
  auto [indexed_after, analysed_after] = times();
  EXPECT_EQ(indexed_after, indexed);
  EXPECT_GT(analysed_after, analysed);
}

// An unchanged re-index analyses only when errors were left without an
// analysis (indexed with --no-analyze, or by an older errdex).
TEST(Cli, AnUnchangedReindexAnalysesWhatWasLeftUnanalysed) {
  TempDir dir;
  fs::path root = CopyFixture(dir, "python/idioms");
  std::string db = (dir.path() / "catalog.db").string();
  auto analysed_at = [&] {
    CommandResult stats = RunErrdex({"stats", "--json", "--db", db});
    EXPECT_EQ(stats.exit_code, 0) << stats.err;
    json s = json::parse(stats.out);
    return s["analysed_at"].is_string() ? s["analysed_at"].get<std::string>() : "";
  };
  auto index = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"index", root.string(), "--name", "test/idioms", "--db",
                                     db,      "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    CommandResult r = RunErrdex(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.empty() ? json() : json::parse(r.out);
  };
  json first = index({"--no-analyze"});
  EXPECT_EQ(first["unchanged"], false);
  EXPECT_EQ(analysed_at(), "");
  json second = index({});
  EXPECT_EQ(second["unchanged"], true);
  std::string analysed = analysed_at();
  ASSERT_EQ(analysed.size(), 20u) << analysed;
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  json third = index({});
  EXPECT_EQ(third["unchanged"], true);
  EXPECT_EQ(analysed_at(), analysed);  // nothing left to analyse
}

TEST_F(IndexedFixture, ShowAndSearch) {
  CommandResult search = RunErrdex({"search", "TMEMLayout", "--json", "--db", db_});
  ASSERT_EQ(search.exit_code, 0);
  // One document, the one the server answers /api/search with.
  json hits = json::parse(search.out);
  ASSERT_TRUE(hits.is_array()) << search.out;
  ASSERT_EQ(hits.size(), 1u);
  Result<std::unique_ptr<web::Site>> site = web::Site::Open(db_, web::Links{});
  ASSERT_TRUE(site.has_value()) << site.error().message;
  web::Page api = (*site)->Get("/api/search", {{"q", "TMEMLayout"}});
  EXPECT_EQ(api.status, 200);
  EXPECT_EQ(search.out, api.body);
  EXPECT_EQ(hits[0]["page"], "/errors/" + hits[0]["id"].get<std::string>());
  CommandResult none = RunErrdex({"search", "nothing-is-called-this", "--json", "--db", db_});
  EXPECT_EQ(json::parse(none.out), json::array());
  EXPECT_EQ(hits[0]["template"], "Invalid TMEMLayout: {self}");
  EXPECT_EQ(hits[0]["sites"][0]["function"], "TMEMLayout.to_mgpu");
  std::string id = hits[0]["id"];
  CommandResult show = RunErrdex({"show", id, "--db", db_});
  ASSERT_EQ(show.exit_code, 0);
  EXPECT_NE(show.out.find("Invalid TMEMLayout: {self}"), std::string::npos);
  EXPECT_NE(show.out.find("fstrings.py:11"), std::string::npos);
  EXPECT_NE(show.out.find(">    11 |"), std::string::npos) << show.out;
  std::string upper = id;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CommandResult capitals = RunErrdex({"show", upper, "--json", "--db", db_});
  ASSERT_EQ(capitals.exit_code, 0) << capitals.err;
  EXPECT_EQ(json::parse(capitals.out)["id"], id);
  CommandResult unknown = RunErrdex({"show", "0123456789abcdef", "--db", db_});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "errdex: error: no error with id 0123456789abcdef\n");
  EXPECT_EQ(RunErrdex({"show", "not-an-id", "--db", db_}).exit_code, 1);
}

// One generated file must not sink its library: a 20,000-character literal
// (over Vectorscan's limit), a format of 2,000 placeholders and 2,000 raises
// in one function, beside an ordinary file. Everything is indexed and
// analysed; what was cut is named in a warning and counted in stats; the
// long message is still explained.
TEST(Cli, AHostileFileDoesNotSinkTheLibrary) {
  TempDir dir;
  fs::path root = dir.path() / "tree";
  dir.Write("tree/normal.py", "def f(m):\n    raise ValueError(f'unknown mode {m!r}')\n");
  std::string literal;
  for (int i = 0; literal.size() < 20'000; ++i) literal += "word" + std::to_string(i) + " ";
  std::string hostile = "def f(x):\n    raise ValueError('" + literal + "%s' % x)\n\n";
  std::string placeholders;
  std::string names;
  for (int i = 0; i < 2000; ++i) {
    placeholders += "%s,";
    names += (i ? ", a" : "a") + std::to_string(i);
  }
  hostile += "def g():\n    raise ValueError('" + placeholders + "' % (" + names + "))\n\n";
  hostile += "def h(x):\n";
  for (int i = 0; i < 2000; ++i) {
    hostile += "    if x == " + std::to_string(i) + ":\n        raise KeyError('case " +
               std::to_string(i) + " is %s' % y)\n";
  }
  dir.Write("tree/hostile.py", hostile);
  std::string db = (dir.path() / "c.db").string();
  CommandResult index = RunErrdex({"index", root.string(), "--name", "test/hostile", "--db", db});
  ASSERT_EQ(index.exit_code, 0) << index.err;
  EXPECT_NE(index.err.find("errdex: warning: hostile.py: indexed with recovery (long-message"),
            std::string::npos)
      << index.err;
  EXPECT_NE(index.err.find("errdex: warning: hostile.py: indexed with recovery (work-budget"),
            std::string::npos)
      << index.err;
  EXPECT_EQ(index.err.find("normal.py"), std::string::npos) << index.err;
  EXPECT_NE(index.out.find("2003 errors"), std::string::npos) << index.out;
  EXPECT_NE(index.out.find("analysed 2003 errors"), std::string::npos) << index.out;

  CommandResult stats = RunErrdex({"stats", "--json", "--db", db});
  ASSERT_EQ(stats.exit_code, 0);
  json s = json::parse(stats.out);
  EXPECT_EQ(s["recovered_files"]["long-message"], 1) << stats.out;
  EXPECT_EQ(s["recovered_files"]["work-budget"], 1) << stats.out;

  CommandResult list = RunErrdex({"list", "--json", "--limit", "10000", "--db", db});
  ASSERT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("unknown mode {m!r}"), std::string::npos);
  std::string long_id;
  for (const json& e : JsonLines(list.out)) {
    if (e["template"].get<std::string>().rfind("word0 word1 ", 0) == 0) long_id = e["id"];
  }
  ASSERT_FALSE(long_id.empty());
  CommandResult explain =
      RunErrdex({"explain", "--json", "--db", db, "-"}, "ValueError: " + literal + "42\n");
  ASSERT_EQ(explain.exit_code, 0) << explain.err;
  EXPECT_NE(explain.out.find(long_id), std::string::npos) << "the long error is found";
}

TEST(Cli, DatabaseFromEnvironment) {
  TempDir dir;
  fs::path root = CopyFixture(dir, "python/idioms");
  std::string db = (dir.path() / "env.db").string();
  setenv("ERRDEX_DB", db.c_str(), 1);
  CommandResult r = RunErrdex({"index", root.string(), "--name", "t/env", "-q"});
  unsetenv("ERRDEX_DB");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(db));
}

TEST(Cli, GitWorkTreeRecordsHeadCommit) {
  TempDir dir;
  dir.Write("repo/pkg/m.py", "raise ValueError('from git')\n");
  fs::path repo = dir.path() / "repo";
  std::string git = "cd '" + repo.string() +
                    "' && git -c init.defaultBranch=main init -q && git add -A && "
                    "git -c user.name=t -c user.email=t@example.invalid commit -q -m one && "
                    "git remote add origin git@github.com:owner/repo.git";
  ASSERT_EQ(std::system(git.c_str()), 0);
  std::string db = (dir.path() / "g.db").string();
  CommandResult r =
      RunErrdex({"index", (repo / "pkg").string(), "--name", "owner/repo", "--db", db, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json summary = json::parse(r.out);
  EXPECT_EQ(summary["kind"], "git");
  EXPECT_EQ(summary["commit"].get<std::string>().size(), 40u);
  EXPECT_EQ(summary["rev"], summary["commit"]);
  CommandResult list = RunErrdex({"list", "--json", "--db", db});
  std::vector<json> errors = JsonLines(list.out);
  ASSERT_EQ(errors.size(), 1u);
  CommandResult show =
      RunErrdex({"show", errors[0]["id"].get<std::string>(), "--json", "--db", db});
  json record = json::parse(show.out);
  EXPECT_EQ(record["repository"], "https://github.com/owner/repo");
  EXPECT_EQ(record["sites"][0]["snapshot"]["subdir"], "pkg");
  EXPECT_EQ(record["sites"][0]["path"], "m.py");
}

TEST(Cli, ATreeOutsideGitIsPinnedByCommit) {
  TempDir dir;
  dir.Write("tree/m.py", "raise ValueError('from a tarball')\n");
  std::string db = (dir.path() / "t.db").string();
  std::string sha = "cec06d11aa22bb33cc44dd55ee66ff7788990011";
  CommandResult bad = RunErrdex({"index", (dir.path() / "tree").string(), "--name", "o/r", "--db",
                                 db, "--commit", "cec06d11"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("40 lowercase hex digits"), std::string::npos);
  CommandResult r = RunErrdex({"index", (dir.path() / "tree").string(), "--name", "o/r", "--db", db,
                               "--commit", sha, "--url", "https://github.com/o/r", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["commit"], sha);
  EXPECT_EQ(json::parse(r.out)["kind"], "dir");
  std::vector<json> errors = JsonLines(RunErrdex({"list", "--json", "--db", db}).out);
  ASSERT_EQ(errors.size(), 1u);
  json record = json::parse(
      RunErrdex({"show", errors[0]["id"].get<std::string>(), "--json", "--db", db}).out);
  EXPECT_EQ(record["sites"][0]["snapshot"]["commit"], sha);
}

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void WriteBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST_F(IndexedFixture, CheckPassesASoundCatalogAndReportsDamage) {
  CommandResult good = RunErrdex({"check", "--db", db_});
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(good.out.find(": ok: SQLite integrity_check and content hashes"), std::string::npos)
      << good.out;
  json report = json::parse(RunErrdex({"check", "--json", "--db", db_}).out);
  EXPECT_EQ(report["ok"], true);
  EXPECT_GT(report["sites"].get<int>(), 50);

  // One flipped byte in a row's content.
  std::string bytes = ReadBytes(db_);
  size_t at = bytes.find("Invalid TMEMLayout");
  ASSERT_NE(at, std::string::npos);
  std::string flipped = bytes;
  flipped[at + 3] ^= 0x20;
  WriteBytes(db_, flipped);
  CommandResult bad = RunErrdex({"check", "--db", db_});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("does not match its hash"), std::string::npos) << bad.out;
  EXPECT_EQ(bad.err.rfind("errdex: error: the catalog is damaged: ", 0), 0u) << bad.err;
  for (const std::vector<std::string>& read : std::vector<std::vector<std::string>>{
           {"list", "--json"}, {"stats"}, {"search", "TMEMLayout"}}) {
    std::vector<std::string> args = read;
    args.insert(args.end(), {"--db", db_});
    CommandResult r = RunErrdex(args);
    EXPECT_EQ(r.exit_code, 1) << read[0];
    EXPECT_EQ(r.err.rfind("errdex: error: the catalog is damaged: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("(run errdex check)"), std::string::npos) << r.err;
  }

  // Cut short.
  WriteBytes(db_, bytes.substr(0, bytes.size() / 2));
  CommandResult cut = RunErrdex({"check", "--db", db_});
  EXPECT_EQ(cut.exit_code, 1) << cut.out;
  EXPECT_EQ(cut.err.rfind("errdex: error: ", 0), 0u) << cut.err;
  CommandResult cut_list = RunErrdex({"list", "--json", "--db", db_});
  EXPECT_EQ(cut_list.exit_code, 1);
  EXPECT_TRUE(cut_list.out.empty());

  // Not a catalog at all.
  fs::path text = dir_.Write("notes.db", std::string(8192, 'x'));
  CommandResult other = RunErrdex({"check", "--db", text.string()});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("not an errdex catalog"), std::string::npos) << other.err;
}

TEST_F(IndexedFixture, AFailureBetweenSitesAndAnalysisLeavesTheCatalog) {
  std::string before = RunErrdex({"list", "--json", "--db", db_}).out;
  std::string stats_before = RunErrdex({"stats", "--json", "--db", db_}).out;
  dir_.Write("src/python/idioms/added.py", "raise ValueError('added by the second run')\n");
  for (const char* point : {"index-after-sites", "index-before-commit"}) {
    setenv("ERRDEX_FAILPOINT", point, 1);
    CommandResult r = RunErrdex({"index", root_.string(), "--name", "test/idioms", "--db", db_});
    unsetenv("ERRDEX_FAILPOINT");
    EXPECT_EQ(r.exit_code, 1) << point;
    EXPECT_NE(r.err.find("failpoint"), std::string::npos) << r.err;
    EXPECT_EQ(RunErrdex({"list", "--json", "--db", db_}).out, before) << point;
    EXPECT_EQ(RunErrdex({"stats", "--json", "--db", db_}).out, stats_before) << point;
    EXPECT_EQ(RunErrdex({"check", "--db", db_}).exit_code, 0) << point;
  }
  CommandResult r = RunErrdex({"index", root_.string(), "--name", "test/idioms", "--db", db_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(RunErrdex({"list", "--json", "--db", db_}).out, before);
  CommandResult added = RunErrdex({"search", "added by the second run", "--json", "--db", db_});
  json hits = json::parse(added.out);
  ASSERT_EQ(hits.size(), 1u);
  json record =
      json::parse(RunErrdex({"show", hits[0]["id"].get<std::string>(), "--json", "--db", db_}).out);
  EXPECT_TRUE(record.contains("analysis")) << record.dump();
}

TEST_F(IndexedFixture, IndexWaitsForAnotherWriterWithoutLosingItsWork) {
  dir_.Write("src/python/idioms/added.py", "raise ValueError('written after the wait')\n");
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  // The lock is held until errdex says it waits, not for a fixed time: on a
  // loaded machine errdex may not reach the catalog within any such time.
  std::filesystem::path output = dir_.path() / "index-output.txt";
  pid_t pid = testing::StartErrdex(
      {"index", root_.string(), "--name", "test/idioms", "--db", db_, "-q"}, output);
  const std::string notice = "errdex: waiting for another errdex writing the catalog";
  // Well inside CTest's timeout, so that a missing notice fails here, with
  // what errdex printed, and errdex is not left running.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  bool noticed = false;
  int status = 0;
  bool exited_while_held = false;
  while (!noticed && std::chrono::steady_clock::now() < deadline) {
    noticed = testing::ReadFileOrEmpty(output).find(notice) != std::string::npos;
    if (!noticed && waitpid(pid, &status, WNOHANG) == pid) {
      exited_while_held = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  if (!exited_while_held) {
    // After the lock is let go the index has a minute to finish.
    auto finish_by = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (waitpid(pid, &status, WNOHANG) != pid) {
      if (std::chrono::steady_clock::now() > finish_by) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  std::string err = testing::ReadFileOrEmpty(output);
  EXPECT_FALSE(exited_while_held) << "errdex ended while another writer held the lock: " << err;
  EXPECT_TRUE(noticed) << err;
  ASSERT_TRUE(WIFEXITED(status)) << err;
  EXPECT_EQ(WEXITSTATUS(status), 0) << err;
  EXPECT_FALSE(RunErrdex({"search", "written after the wait", "--db", db_}).out.empty());
  EXPECT_EQ(RunErrdex({"check", "--db", db_}).exit_code, 0);
}

// Starts errdex, kills it with SIGKILL after `delay`, and waits for it.
void RunAndKill(const std::vector<std::string>& args, std::chrono::milliseconds delay) {
  pid_t pid = testing::StartErrdex(args);
  std::this_thread::sleep_for(delay);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
}

// A crash on a user's machine or in CI is otherwise an exit status alone.
TEST(Cli, ACrashSaysWhereItHappenedAndDiesOfItsSignal) {
  TempDir dir;
  // errdex waits on stdin (a FIFO the script holds open) when it is sent SIGSEGV.
  std::filesystem::path script =
      dir.Write("crash.sh", std::string("mkfifo in\n'") + ERRDEX_BINARY +
                                "' explain <in 2>&1 &\n"
                                "pid=$!\nexec 3>in\n"
                                // Sent once it reads stdin (the loader reads other
                                // files), when its handler is surely set.
                                "case $(uname -m) in aarch64) read=63 ;; *) read=0 ;; esac\n"
                                "for i in $(seq 600); do\n"
                                "  set -- $(cat /proc/$pid/syscall 2>/dev/null)\n"
                                "  [ \"$1\" = \"$read\" ] && [ \"$2\" = 0x0 ] && break\n"
                                "  sleep 0.1\n"
                                "done\n"
                                "kill -SEGV $pid\nwait $pid\necho \"status=$?\"\n");
  CommandResult r =
      testing::RunCommand("cd '" + dir.path().string() + "' && bash '" + script.string() + "'");
  if (r.out.find("Sanitizer") != std::string::npos) {
    GTEST_SKIP() << "the sanitizer reports crashes in this build";
  }
  EXPECT_NE(r.out.find("errdex: crashed (SIGSEGV) during `errdex explain`"), std::string::npos)
      << r.out;
  // addr2line's line for a frame of errdex's own code, by function and line.
  EXPECT_NE(r.out.find("errdex::cli::Run(int, char**, std::ostream&, std::ostream&) at "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("/src/cli/commands.cc:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("status=139"), std::string::npos) << r.out;
}

TEST(Cli, KilledIndexRunLeavesThePreviousCatalog) {
  TempDir dir;
  auto write_tree = [&](const std::string& word) {
    for (int i = 0; i < 1500; ++i) {
      std::string body;
      for (int k = 0; k < 20; ++k) {
        body += "def f" + std::to_string(k) + "(x):\n    raise ValueError(f'" + word + " " +
                std::to_string(i) + "." + std::to_string(k) + " {x}')\n";
      }
      dir.Write("tree/m" + std::to_string(i) + ".py", body);
    }
  };
  write_tree("old");
  std::string db = (dir.path() / "k.db").string();
  std::string root = (dir.path() / "tree").string();
  CommandResult first = RunErrdex({"index", root, "--name", "k/k", "--db", db, "-q"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto site_count = [&] {
    CommandResult r = RunErrdex({"stats", "--json", "--db", db});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out)["sites"].get<int>();
  };
  ASSERT_EQ(site_count(), 30000);
  write_tree("new");
  for (int ms : {5, 40, 120, 250, 400, 600}) {
    RunAndKill({"index", root, "--name", "k/k", "--db", db, "-q"}, std::chrono::milliseconds(ms));
    EXPECT_EQ(site_count(), 30000) << "after a kill at " << ms << " ms";
    CommandResult old_msg = RunErrdex({"search", "old", "--limit", "1", "--db", db});
    CommandResult new_msg = RunErrdex({"search", "new", "--limit", "1", "--db", db});
    // Either the old snapshot or the new one, never a mix.
    EXPECT_NE(old_msg.out.empty(), new_msg.out.empty()) << "after a kill at " << ms << " ms";
  }
  CommandResult last = RunErrdex({"index", root, "--name", "k/k", "--db", db, "-q"});
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_EQ(site_count(), 30000);
  EXPECT_TRUE(RunErrdex({"search", "old", "--db", db}).out.empty());
}

}  // namespace
}  // namespace errdex
