#include "catalog/sqlite.h"

namespace errdex::catalog {

Database::~Database() { sqlite3_close_v2(db_); }

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
  }
  return *this;
}

Result<Database> Database::Open(const std::string& path, int flags) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Fail(rc == SQLITE_CANTOPEN ? ErrorCode::kNotFound : ErrorCode::kIo,
                path + ": " + message);
  }
  sqlite3_busy_timeout(db, 10000);
  sqlite3_extended_result_codes(db, 1);
  return Database(db);
}

Result<void> Database::Exec(std::string_view sql) {
  std::string owned(sql);
  char* error = nullptr;
  int rc = sqlite3_exec(db_, owned.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    ErrorCode code = (rc & 0xFF) == SQLITE_NOTADB || (rc & 0xFF) == SQLITE_CORRUPT
                         ? ErrorCode::kCorrupt
                         : ErrorCode::kIo;
    return Fail(code, message);
  }
  return {};
}

Result<Statement> Database::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    return Fail((rc & 0xFF) == SQLITE_NOTADB ? ErrorCode::kCorrupt : ErrorCode::kInternal,
                std::string(sqlite3_errmsg(db_)) + " in: " + std::string(sql.substr(0, 80)));
  }
  return Statement(stmt, db_);
}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    db_ = other.db_;
  }
  return *this;
}

Statement& Statement::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Statement& Statement::Bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::BindBlob(int index, std::string_view value) {
  sqlite3_bind_blob64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT);
  return *this;
}

std::string Statement::Blob(int column) const {
  const void* data = sqlite3_column_blob(stmt_, column);
  int n = sqlite3_column_bytes(stmt_, column);
  return data ? std::string(static_cast<const char*>(data), static_cast<size_t>(n)) : std::string();
}

std::string_view Statement::BlobView(int column) const {
  const void* data = sqlite3_column_blob(stmt_, column);
  int n = sqlite3_column_bytes(stmt_, column);
  return data ? std::string_view(static_cast<const char*>(data), static_cast<size_t>(n))
              : std::string_view();
}

Result<bool> Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  ErrorCode code = (rc & 0xFF) == SQLITE_CORRUPT || (rc & 0xFF) == SQLITE_NOTADB
                       ? ErrorCode::kCorrupt
                       : ErrorCode::kIo;
  return Fail(code, sqlite3_errmsg(db_));
}

Result<void> Statement::Run() {
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

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Statement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  int n = sqlite3_column_bytes(stmt_, column);
  return text ? std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(n))
              : std::string();
}

}  // namespace errdex::catalog
