// The PostgreSQL backend of the catalog (catalog/sql.h), over libpq: one
// catalog per database (or per schema, through the URL's search_path),
// shared by any number of readers and writers on any machine.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "catalog/sql.h"

namespace errdex::catalog {

// Connects to `url` (postgresql://[user[:password]@][host][:port]/dbname
// [?param=value...], libpq's URI form). kIo with libpq's reason, the
// password left out, when the server cannot be reached or refuses. A
// read-only connection refuses every write (default_transaction_read_only).
Result<Database> OpenPostgres(const std::string& url, bool read_only, BusyPolicy busy = {});

// The URL without its password, for messages.
std::string RedactUrl(std::string_view url);

// The channel every write's commit NOTIFYs (Catalog::Seal), with the
// generation it committed bumped in the same transaction.
inline constexpr std::string_view kCatalogChannel = "errdex_catalog";

// A connection of its own that learns of the catalog's commits: it LISTENs
// on kCatalogChannel and reads errdex_catalog.generation. A hot standby
// delivers no notifications (and refuses LISTEN), so a caller polls
// Generation too. Every wait is bounded and also ends, with an error, once
// `wake_fd` is readable: the owner's way to stop a thread blocked in one.
// Not thread-safe.
class CatalogListener {
 public:
  CatalogListener(std::string url, int wake_fd);
  ~CatalogListener();
  CatalogListener(const CatalogListener&) = delete;
  CatalogListener& operator=(const CatalogListener&) = delete;

  // Connects (dropping any connection before) and LISTENs. kIo when the
  // server cannot be reached within `timeout` or refuses.
  Result<void> Connect(std::chrono::milliseconds timeout);
  bool connected() const;
  // False on a server that refused LISTEN (a standby): only Generation
  // tells of commits there.
  bool listening() const { return listening_; }
  // Waits up to `timeout` for a notification: true when one or more came
  // (all are consumed), false when none did. kIo when the connection broke.
  Result<bool> Wait(std::chrono::milliseconds timeout);
  // errdex_catalog.generation, as of now.
  Result<int64_t> Generation(std::chrono::milliseconds timeout);
  void Close();

 private:
  struct Conn;
  Result<bool> Await(short events, std::chrono::steady_clock::time_point deadline);
  Result<void> Run(const std::string& sql, std::chrono::milliseconds timeout, int64_t* value);
  bool Drain();

  std::string url_;
  int wake_fd_;
  std::unique_ptr<Conn> conn_;
  bool listening_ = false;
  bool notified_ = false;  // a notification read while a query ran
};

}  // namespace errdex::catalog
