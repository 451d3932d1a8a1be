// A minimal RAII layer over the SQLite C API for the catalog: a connection,
// prepared statements with typed binds and reads, and errors as values.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "core/status.h"

namespace errdex::catalog {

class Statement;

// What a connection does while another one holds the write lock: wait,
// calling `notice` once when the wait gets long, up to `limit`.
struct BusyPolicy {
  std::chrono::milliseconds limit{10000};
  std::function<void()> notice;  // may be empty
};

class Database {
 public:
  Database() = default;
  ~Database();
  Database(Database&& other) noexcept
      : db_(std::exchange(other.db_, nullptr)), busy_(std::move(other.busy_)) {}
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // flags: SQLITE_OPEN_READONLY or SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE.
  // Registers errdex_row_hash(...) and errdex_sum(x) (see RowHash).
  static Result<Database> Open(const std::string& path, int flags, BusyPolicy busy = {});

  Result<void> Exec(std::string_view sql);
  Result<Statement> Prepare(std::string_view sql);
  int64_t LastInsertId() const { return sqlite3_last_insert_rowid(db_); }
  int Changes() const { return sqlite3_changes(db_); }
  std::string ErrorMessage() const { return db_ ? sqlite3_errmsg(db_) : "no database"; }
  sqlite3* get() const { return db_; }
  // False inside BEGIN ... COMMIT.
  bool InAutocommit() const { return sqlite3_get_autocommit(db_) != 0; }

  // Heap-held so that the busy handler's pointer survives moves.
  struct BusyState {
    BusyPolicy policy;
    std::chrono::steady_clock::time_point since{};
    bool noticed = false;
  };

 private:
  sqlite3* db_ = nullptr;
  std::unique_ptr<BusyState> busy_;
};

// The hash errdex stores beside its rows (doc/catalog.md, "Content hashes"):
// XXH3-64 over each value's type and bytes, as a signed 64-bit integer.
// The SQL function errdex_row_hash(v1, v2, ...) and Statement::HashColumns
// compute the same value, so rows hashed when written by SQL are checked by
// C++ when read. errdex_sum(x) adds its arguments modulo 2^64 (0 for none),
// the order-free aggregate of a set of row hashes.
int64_t RowHash(sqlite3_value** values, int count);
inline int64_t AddHashes(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

class Statement {
 public:
  Statement() = default;
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(Statement&& other) noexcept
      : stmt_(std::exchange(other.stmt_, nullptr)), db_(other.db_) {}
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binds are 1-based, as in SQL.
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, int value) { return Bind(index, static_cast<int64_t>(value)); }
  Statement& Bind(int index, bool value) { return Bind(index, static_cast<int64_t>(value)); }
  Statement& Bind(int index, std::string_view value);
  Statement& Bind(int index, const char* value) { return Bind(index, std::string_view(value)); }
  Statement& Bind(int index, const std::string& value) {
    return Bind(index, std::string_view(value));
  }
  Statement& BindBlob(int index, std::string_view value);

  // Steps once: true with a row, false when done.
  Result<bool> Step();
  // Steps to completion and resets, for statements without result rows.
  Result<void> Run();
  void Reset();

  // Columns are 0-based, as in the C API.
  int64_t Int(int column) const { return sqlite3_column_int64(stmt_, column); }
  int ColumnCount() const { return sqlite3_column_count(stmt_); }
  // errdex_row_hash over columns [first, first + count) of the current row.
  int64_t HashColumns(int first, int count) const;
  std::string Text(int column) const;
  std::string Blob(int column) const;
  // The column's bytes in SQLite's memory, valid until the next Step or Reset.
  std::string_view BlobView(int column) const;

 private:
  friend class Database;
  Statement(sqlite3_stmt* stmt, sqlite3* db) : stmt_(stmt), db_(db) {}
  sqlite3_stmt* stmt_ = nullptr;
  sqlite3* db_ = nullptr;
};

}  // namespace errdex::catalog
