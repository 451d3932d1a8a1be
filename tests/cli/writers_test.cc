// Several indexers writing one catalog at once, some of them killed with
// SIGKILL at random moments: what a shared catalog (issue 14) must survive.
// The suite runs on SQLite and, from tests/CMakeLists.txt's pg_suites, on
// the tests' own PostgreSQL server.
//
// After every round the catalog passes its own check, and each library
// holds exactly one whole snapshot: the one its last successful run wrote,
// or, for a run that was killed, either that one or the killed run's (a
// kill can land after the commit), never a mix and never a part.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

namespace errdex {
namespace {

using nlohmann::json;
using testing::CommandResult;
using testing::RunErrdex;
using testing::TempDir;

constexpr int kLibraries = 4;
constexpr int kRaisesPerFile = 10;
constexpr int kRounds = 3;

int FilesOf(int library) { return 100 + 40 * library; }

// The tree of `library` in version `word`: every message carries the word,
// so a search for it tells which version a library holds.
void WriteTree(const TempDir& dir, int library, const std::string& word) {
  for (int f = 0; f < FilesOf(library); ++f) {
    std::string body;
    for (int k = 0; k < kRaisesPerFile; ++k) {
      body += "def f" + std::to_string(k) + "(x):\n    raise ValueError(f'" + word + " " +
              std::to_string(f) + "." + std::to_string(k) + " {x}')\n";
    }
    dir.Write("lib" + std::to_string(library) + "/m" + std::to_string(f) + ".py", body);
  }
}

std::string Word(int library, int round) {
  return "lib" + std::to_string(library) + "round" + std::to_string(round);
}

std::string Name(int library) { return "writers/lib" + std::to_string(library); }

unsigned Seed() {
  const char* s = std::getenv("ERRDEX_TEST_SEED");
  return s != nullptr ? static_cast<unsigned>(std::strtoul(s, nullptr, 10))
                      : std::random_device{}();
}

bool Holds(const std::string& db, const std::string& word) {
  CommandResult r = RunErrdex({"search", word, "--limit", "1", "--db", db});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return !r.out.empty();
}

TEST(Writers, KilledAtRandomWhileOthersWriteLeavesOnlyWholeSnapshots) {
  unsigned seed = Seed();
  std::printf("seed %u (ERRDEX_TEST_SEED to repeat)\n", seed);
  std::mt19937 random(seed);
  TempDir dir;
  std::string db = dir.Catalog();

  // Round 0, serially and unharmed: every library's whole size.
  for (int l = 0; l < kLibraries; ++l) {
    WriteTree(dir, l, Word(l, 0));
    CommandResult r = RunErrdex({"index", (dir.path() / ("lib" + std::to_string(l))).string(),
                                 "--name", Name(l), "--db", db, "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto sites = [&] {
    std::map<std::string, int64_t> out;
    CommandResult r = RunErrdex({"stats", "--json", "--db", db});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    json stats = json::parse(r.out);
    for (const json& l : stats["per_library"]) {
      out[l["name"].get<std::string>()] = l["sites"].get<int64_t>();
    }
    return out;
  };
  std::map<std::string, int64_t> whole = sites();
  for (int l = 0; l < kLibraries; ++l) {
    ASSERT_EQ(whole[Name(l)], FilesOf(l) * kRaisesPerFile);
  }

  std::vector<int> held(kLibraries, 0);  // the round whose snapshot each library holds
  int kills = 0, survivors = 0;
  for (int round = 1; round <= kRounds; ++round) {
    for (int l = 0; l < kLibraries; ++l) WriteTree(dir, l, Word(l, round));
    std::vector<pid_t> pids;
    for (int l = 0; l < kLibraries; ++l) {
      pids.push_back(testing::StartErrdex({"index", (dir.path() / ("lib" + std::to_string(l))).string(),
                            "--name", Name(l), "--db", db, "-q"}));
    }
    // Each run is killed with probability 1/2, somewhere in its first 2 s
    // (a run takes about 0.5–2 s here, longer under a sanitizer).
    std::vector<int> kill_at(kLibraries, -1);
    for (int l = 0; l < kLibraries; ++l) {
      if (random() % 2 == 0) kill_at[l] = static_cast<int>(random() % 2000);
    }
    auto started = std::chrono::steady_clock::now();
    for (int ms = 0; ms <= 2000; ms += 5) {
      for (int l = 0; l < kLibraries; ++l) {
        if (kill_at[l] >= 0 && kill_at[l] <= ms) {
          kill(pids[l], SIGKILL);
          kill_at[l] = -2;  // done
        }
      }
      std::this_thread::sleep_until(started + std::chrono::milliseconds(ms + 5));
    }
    for (int l = 0; l < kLibraries; ++l) {
      int status = 0;
      ASSERT_EQ(waitpid(pids[l], &status, 0), pids[l]);
      bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
      if (killed) {
        ++kills;
      } else {
        ASSERT_TRUE(WIFEXITED(status)) << "round " << round << ", library " << l;
        ASSERT_EQ(WEXITSTATUS(status), 0) << "round " << round << ", library " << l;
        ++survivors;
      }
      bool now = Holds(db, Word(l, round));
      bool before = Holds(db, Word(l, held[l]));
      if (!killed) {
        EXPECT_TRUE(now) << "round " << round << ": library " << l << " finished unharmed";
      }
      // One whole version: the new one or the one held before, not both.
      EXPECT_NE(now, before) << "round " << round << ", library " << l
                             << (killed ? " (killed)" : "");
      if (now) held[l] = round;
    }
    CommandResult check = RunErrdex({"check", "--db", db});
    EXPECT_EQ(check.exit_code, 0) << "round " << round << ": " << check.out << check.err;
    EXPECT_EQ(sites(), whole) << "round " << round;
  }
  std::printf("%d runs killed, %d ran to the end\n", kills, survivors);

  // Nothing is left locked or half-done: a last serial round writes them all.
  for (int l = 0; l < kLibraries; ++l) {
    CommandResult r = RunErrdex({"index", (dir.path() / ("lib" + std::to_string(l))).string(),
                                 "--name", Name(l), "--db", db, "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(Holds(db, Word(l, kRounds)));
  }
  EXPECT_EQ(sites(), whole);
}

// Analysis keys exception classes by short name across the catalog, so a
// library's errors can take their family from another library's classes.
// Whichever order the libraries are written in, the catalog ends the same.
TEST(Writers, AnAnalysisReadingAnotherLibrarysClassesDoesNotDependOnOrder) {
  TempDir dir;
  dir.Write("a/a/__init__.py",
            "class LookupFailed(KeyError):\n    pass\n"
            "def own(k):\n    raise LookupFailed(f'no entry named {k}')\n");
  dir.Write("b/b/__init__.py",
            "from a import LookupFailed\n"
            "def find(k):\n    raise LookupFailed(f'nothing registered under {k}')\n");
  dir.Write("c/c/__init__.py", "def other(x):\n    raise ValueError(f'bad value {x}')\n");
  auto build = [&](const std::string& name, const std::vector<std::string>& order) {
    std::string db = dir.Catalog(name);
    std::vector<std::string> reanalysed;
    for (const std::string& lib : order) {
      CommandResult r = RunErrdex({"index", (dir.path() / lib).string(), "--name", "order/" + lib,
                                   "--db", db, "--json", "-q"});
      EXPECT_EQ(r.exit_code, 0) << r.err;
      for (const json& j : testing::JsonLines(r.out)) {
        for (const json& l : j.value("reanalysed", json::array())) {
          reanalysed.push_back(lib + ">" + l.get<std::string>());
        }
      }
    }
    return std::make_pair(db, reanalysed);
  };
  auto [forward, forward_again] = build("forward.db", {"a", "b", "c"});
  auto [backward, backward_again] = build("backward.db", {"c", "b", "a"});
  // Written before a, b was analysed without a's class; writing a
  // analyses b again, and c, which names none of a's classes, is not read.
  EXPECT_TRUE(forward_again.empty()) << ::testing::PrintToString(forward_again);
  EXPECT_EQ(backward_again, std::vector<std::string>{"a>order/b"});

  auto analyses = [](const std::string& db) {
    std::map<std::string, json> out;
    CommandResult list = RunErrdex({"list", "--json", "--db", db});
    EXPECT_EQ(list.exit_code, 0) << list.err;
    for (const json& e : testing::JsonLines(list.out)) {
      std::string id = e["id"].get<std::string>();
      CommandResult show = RunErrdex({"show", id, "--json", "--db", db});
      EXPECT_EQ(show.exit_code, 0) << show.err;
      json j = json::parse(show.out);
      out[id] = {{"library", j["library"]}, {"family", j["family"]}, {"analysis", j["analysis"]}};
    }
    return out;
  };
  std::map<std::string, json> f = analyses(forward), b = analyses(backward);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f, b);
  // b's error has the family its base gives: the same as a's own error.
  std::map<std::string, std::string> family;
  for (const auto& [id, e] : f) family[e["library"]] = e["family"].get<std::string>();
  EXPECT_EQ(family["order/b"], family["order/a"]);
  EXPECT_NE(family["order/b"], family["order/c"]);
}

}  // namespace
}  // namespace errdex
