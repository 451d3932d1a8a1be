// A minimal RAII layer over the SQLite C API for the catalog: a connection,
// prepared statements with typed binds and reads, and errors as values.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "core/status.h"

namespace errdex::catalog {

class Statement;

class Database {
 public:
  Database() = default;
  ~Database();
  Database(Database&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // flags: SQLITE_OPEN_READONLY or SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE.
  static Result<Database> Open(const std::string& path, int flags);

  Result<void> Exec(std::string_view sql);
  Result<Statement> Prepare(std::string_view sql);
  int64_t LastInsertId() const { return sqlite3_last_insert_rowid(db_); }
  int Changes() const { return sqlite3_changes(db_); }
  std::string ErrorMessage() const { return db_ ? sqlite3_errmsg(db_) : "no database"; }
  sqlite3* get() const { return db_; }

 private:
  explicit Database(sqlite3* db) : db_(db) {}
  sqlite3* db_ = nullptr;
};

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
