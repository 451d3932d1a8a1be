// The catalog's storage seam: a connection to the database that holds one
// catalog, its prepared statements and its bulk writes, with errors as
// values. SQLite (sqlite.cc) and PostgreSQL (postgres.cc) implement it; the
// catalog writes its SQL in SQLite's dialect with ?N parameters, and asks
// dialect() where PostgreSQL's SQL differs.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "core/status.h"

namespace errdex::catalog {

enum class Dialect { kSqlite, kPostgres };

// What a connection does while another one holds the write lock: wait,
// calling `notice` once when the wait gets long, up to `limit`.
struct BusyPolicy {
  std::chrono::milliseconds limit{10000};
  std::function<void()> notice;  // may be empty
};

// The hash errdex stores beside its rows (doc/catalog.md, "Content hashes"):
// XXH3-64 over each value's type tag, length and bytes, as a signed 64-bit
// integer. Values go in as the database holds them: integers as 8 bytes,
// text and blobs as their bytes, so that 1 and '1' differ. SQLite's
// errdex_row_hash(...), Statement::HashColumns and this compute the same
// value on every backend.
class RowHasher {
 public:
  RowHasher& Int(int64_t v) { return Add('i', &v, sizeof v); }
  RowHasher& Real(double v) { return Add('f', &v, sizeof v); }
  RowHasher& Text(std::string_view v) { return Add('t', v.data(), v.size()); }
  RowHasher& Blob(std::string_view v) { return Add('b', v.data(), v.size()); }
  RowHasher& Null() { return Add('n', nullptr, 0); }
  int64_t Digest() const;

 private:
  RowHasher& Add(char tag, const void* data, size_t size);
  std::string buffer_;  // hashed at once: a row is a dozen small values
};

// errdex_sum: hashes added modulo 2^64, the order-free aggregate of a set
// of row hashes.
inline int64_t AddHashes(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

// A value of a row for BulkWriter::Add.
struct SqlValue {
  enum class Kind { kInt, kText };
  SqlValue(int64_t v) : kind(Kind::kInt), i(v) {}  // NOLINT: rows read as lists of values
  SqlValue(int v) : kind(Kind::kInt), i(v) {}      // NOLINT
  SqlValue(bool v) : kind(Kind::kInt), i(v) {}     // NOLINT
  SqlValue(std::string_view v) : kind(Kind::kText), s(v) {}      // NOLINT
  SqlValue(const std::string& v) : kind(Kind::kText), s(v) {}    // NOLINT
  SqlValue(const char* v) : kind(Kind::kText), s(v) {}           // NOLINT
  Kind kind;
  int64_t i = 0;
  std::string_view s;
};

// A backend's prepared statement: binds are 1-based, columns 0-based;
// a column's bytes stay valid until the next Step or Reset.
class StatementImpl {
 public:
  virtual ~StatementImpl() = default;
  virtual void BindInt(int index, int64_t value) = 0;
  virtual void BindText(int index, std::string_view value) = 0;
  virtual void BindBlob(int index, std::string_view value) = 0;
  virtual Result<bool> Step() = 0;
  // Ends the current execution and clears the binds.
  virtual void Reset() = 0;
  virtual int ColumnCount() const = 0;
  // 0 for NULL, as SQLite reads it.
  virtual int64_t Int(int column) const = 0;
  virtual std::string_view TextView(int column) const = 0;
  virtual std::string_view BlobView(int column) const = 0;
  virtual int64_t HashColumns(int first, int count) const = 0;
};

// Rows added to one table, written by the time Finish returns (SQLite: a
// prepared INSERT per row; PostgreSQL: COPY). Nothing else may run on the
// connection between the first Add and Finish.
class BulkWriter {
 public:
  virtual ~BulkWriter() = default;
  virtual Result<void> Add(std::initializer_list<SqlValue> row) = 0;
  virtual Result<void> Finish() = 0;
};

// A backend's connection. Not thread-safe; no state outside the object, so
// any number of connections may live in one process.
class Connection {
 public:
  virtual ~Connection() = default;
  virtual Dialect dialect() const = 0;
  // One or more statements without parameters or result rows.
  virtual Result<void> Exec(std::string_view sql) = 0;
  virtual Result<std::unique_ptr<StatementImpl>> Prepare(std::string_view sql) = 0;
  virtual Result<std::unique_ptr<BulkWriter>> BulkInsert(std::string_view table,
                                                         std::string_view columns) = 0;
  // Rows the last INSERT, UPDATE or DELETE changed.
  virtual int64_t Changes() const = 0;
  // False inside BEGIN ... COMMIT.
  virtual bool InAutocommit() const = 0;
  // Starts the one write transaction the catalog allows at a time, waiting
  // for another writer as the BusyPolicy says.
  virtual Result<void> BeginWrite() = 0;
  // A number that changes when another connection commits a write (it may
  // change on this one's too).
  virtual Result<int64_t> DataVersion() = 0;
};

class Statement {
 public:
  Statement() = default;
  explicit Statement(std::unique_ptr<StatementImpl> impl) : impl_(std::move(impl)) {}

  Statement& Bind(int index, int64_t value) {
    impl_->BindInt(index, value);
    return *this;
  }
  Statement& Bind(int index, int value) { return Bind(index, static_cast<int64_t>(value)); }
  Statement& Bind(int index, bool value) { return Bind(index, static_cast<int64_t>(value)); }
  Statement& Bind(int index, std::string_view value) {
    impl_->BindText(index, value);
    return *this;
  }
  Statement& Bind(int index, const char* value) { return Bind(index, std::string_view(value)); }
  Statement& Bind(int index, const std::string& value) {
    return Bind(index, std::string_view(value));
  }
  Statement& BindBlob(int index, std::string_view value) {
    impl_->BindBlob(index, value);
    return *this;
  }

  // Steps once: true with a row, false when done.
  Result<bool> Step() { return impl_->Step(); }
  // Steps to completion and resets, for statements without result rows.
  Result<void> Run();
  void Reset() { impl_->Reset(); }

  int64_t Int(int column) const { return impl_->Int(column); }
  int ColumnCount() const { return impl_->ColumnCount(); }
  // The row hash over columns [first, first + count) of the current row.
  int64_t HashColumns(int first, int count) const { return impl_->HashColumns(first, count); }
  std::string Text(int column) const { return std::string(impl_->TextView(column)); }
  std::string Blob(int column) const { return std::string(impl_->BlobView(column)); }
  // The column's bytes in the backend's memory, valid until the next Step or Reset.
  std::string_view BlobView(int column) const { return impl_->BlobView(column); }

 private:
  std::unique_ptr<StatementImpl> impl_;
};

class Database {
 public:
  Database() = default;
  explicit Database(std::unique_ptr<Connection> c) : c_(std::move(c)) {}

  Dialect dialect() const { return c_->dialect(); }
  bool postgres() const { return c_->dialect() == Dialect::kPostgres; }
  Result<void> Exec(std::string_view sql) { return c_->Exec(sql); }
  Result<Statement> Prepare(std::string_view sql) {
    Result<std::unique_ptr<StatementImpl>> st = c_->Prepare(sql);
    if (!st) return tl::unexpected(st.error());
    return Statement(std::move(*st));
  }
  Result<std::unique_ptr<BulkWriter>> BulkInsert(std::string_view table,
                                                 std::string_view columns) {
    return c_->BulkInsert(table, columns);
  }
  int64_t Changes() const { return c_->Changes(); }
  bool InAutocommit() const { return c_->InAutocommit(); }
  Result<void> BeginWrite() { return c_->BeginWrite(); }
  Result<int64_t> DataVersion() { return c_->DataVersion(); }

 private:
  std::unique_ptr<Connection> c_;
};

inline Result<void> Statement::Run() {
  while (true) {
    Result<bool> row = Step();
    if (!row) {
      Reset();
      return tl::unexpected(row.error());
    }
    if (!*row) break;
  }
  Reset();
  return {};
}

// Whether `location` names a PostgreSQL database (postgresql:// or
// postgres://) rather than a SQLite file.
bool IsPostgresUrl(std::string_view location);

}  // namespace errdex::catalog
