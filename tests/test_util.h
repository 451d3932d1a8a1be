// Helpers shared by the tests: scratch directories, files, running the
// errdex binary, golden files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/record.h"
#include "extract/memo.h"

namespace errdex::testing {

// A fresh directory under the system temp dir, removed with its contents.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Writes `content` to `relative` (creating directories); returns the path.
  std::filesystem::path Write(const std::string& relative, const std::string& content) const;

  // Where the catalog `name` of this directory lives: the file `name` in
  // it; or, when the suite runs against PostgreSQL (TestingPostgres), a
  // database of its own on the tests' server, created on the first call
  // and dropped with the directory. A server that cannot be reached fails
  // the test.
  std::string Catalog(const std::string& name = "c.db") const;

 private:
  std::filesystem::path path_;
  mutable std::map<std::string, std::string> databases_;  // name -> database
};

// A memo of definitions, as indexing revisions keeps one, that counts what
// it was asked; `keeping` false is the last revision of a run.
template <typename T>
class CountingMemo final : public extract::DefinitionMemo<T> {
 public:
  std::shared_ptr<const T> Find(const std::string& key) override {
    auto it = kept_.find(key);
    if (it == kept_.end()) return nullptr;
    ++found;
    return it->second;
  }
  void Put(const std::string& key, std::shared_ptr<const T> value) override {
    kept_[key] = std::move(value);
    ++puts;
  }
  bool Keeping() const override { return keeping; }
  int found = 0;
  int puts = 0;
  bool keeping = true;

 private:
  std::map<std::string, std::shared_ptr<const T>> kept_;
};

// Whether CTest runs this suite against PostgreSQL: ERRDEX_TEST_PG names
// the file where tests/pg_server.sh wrote its socket directory.
bool TestingPostgres();

// Runs `sql` (one or more statements; rows are ignored) on the PostgreSQL
// database `url` names, on a connection of its own; "" or libpq's complaint.
std::string PostgresExec(const std::string& url, const std::string& sql);

std::filesystem::path SourceDir();
std::filesystem::path FixtureDir(const std::string& name);

// Every .py file under tests/fixtures with its text, sorted by path: the
// inputs of the differential tests that hold a fast path to a slow one.
std::vector<std::pair<std::filesystem::path, std::string>> PythonFixtures();

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Every error site of the source files under `root`, extracted and linked
// as `errdex index` does (on two threads); a walk that fails is a test
// failure.
Extraction ExtractTree(const std::filesystem::path& root);

// Runs `python3 SCRIPT ARGS...` (stdout and stderr together in `out`): the
// reference the property tests check errdex's facts against.
// `command` run by /bin/sh; its standard output (exit_code is the status).
CommandResult RunCommand(const std::string& command);
CommandResult RunPython(const std::filesystem::path& script, const std::string& args = "");

// Runs `program` under python3 and parses the JSON it prints: what a
// property test's random program made CPython print. A failed run or output
// that is no JSON is a test failure, and gives null. With
// $ERRDEX_PROPERTY_DUMP set the program is kept there, to read a failure.
nlohmann::json RunPythonForJson(const std::string& program);

// Python run after a program that defines `CALLS`, a list of (name,
// function): calls each and prints {name: null, or [the exception's class
// name, str() of it]} as JSON, for RunPythonForJson.
extern const char* const kPythonCallsHarness;

// Runs the errdex binary with `args` (no shell), optionally feeding `input`.
CommandResult RunErrdex(const std::vector<std::string>& args, const std::string& input = "");
// The same with another errdex executable (a copy the test made).
CommandResult RunErrdexAt(const std::string& binary, const std::vector<std::string>& args,
                          const std::string& input = "");

// Starts the errdex binary with `args`, its stdout and stderr to `output`,
// and returns its pid without waiting (for tests that kill it, or that act
// on what it prints while it runs).
int StartErrdex(const std::vector<std::string>& args,
                const std::filesystem::path& output = "/dev/null");

// Runs `git ARGS` in `dir` through the shell, with a fixed identity and the
// author and committer date `date`; returns the exit status.
int Git(const std::filesystem::path& dir, const std::string& args,
        const std::string& date = "2024-05-06T07:08:09+02:00");

// One JSON value per non-empty line (`list --json`, `index --json`).
std::vector<nlohmann::json> JsonLines(const std::string& text);

std::string ReadFileOrEmpty(const std::filesystem::path& path);

// The seed of a property test's random programs: $ERRDEX_PROPERTY_SEED when
// set (to try others, or replay a failure), else `fixed`.
uint32_t PropertySeed(uint32_t fixed);

// Compares `actual` with the golden file tests/golden/<name>; with
// ERRDEX_UPDATE_GOLDEN=1 in the environment, rewrites it instead.
void ExpectGolden(const std::string& name, const std::string& actual);

}  // namespace errdex::testing
