// `errdex serve`: the website and its JSON API over HTTP (Boost.Beast on
// Asio), on a read-only catalog, built to face untrusted clients alone:
// a few event-loop threads hold the connections, every read and write has
// an absolute deadline, and the catalog work (SQLite and the matcher, which
// block) runs on a pool of workers, one site each, so slow or many clients
// never stall the loop. Routing is plain string work (web/http.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/status.h"

namespace errdex::web {

struct ServeOptions {
  std::string db;
  std::string host = "127.0.0.1";
  int port = 8080;     // 0: any free port (see Server::port)
  int threads = 0;     // workers doing catalog work, a site each; 0: cores + 1
  int io_threads = 0;  // event-loop threads; 0: 2 (1 on one core)
  size_t max_body = 1u << 20;
  size_t max_header = 16u << 10;
  int timeout_seconds = 10;          // deadline for a request's body, and for writing an answer
  int header_timeout_ms = 10000;     // deadline for a new connection's first request header
  int keep_alive_seconds = 5;        // deadline for the next request header on a kept connection
  int max_connections = 0;           // open at once, in total; 0: 10000 (less if few descriptors)
  int max_connections_per_ip = 128;  // 0: no limit (behind a proxy every client is the proxy)
  // PostgreSQL: how often errdex_catalog.generation is read besides
  // listening for commits (a standby delivers no notifications).
  int catalog_poll_ms = 2000;
};

// A response, whatever serves it: the live server or a static export.
struct Page {
  int status = 200;
  std::string content_type;
  std::string body;
};

class Site;

class Server {
 public:
  // Checks the catalog opens read-only, binds; does not serve yet.
  static Result<std::unique_ptr<Server>> Create(const ServeOptions& options);
  ~Server();
  int port() const;
  // Serves until Stop (from another thread) or a signal.
  Result<void> Run();
  void Stop();

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace errdex::web
