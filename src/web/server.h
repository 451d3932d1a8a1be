// `errdex serve`: the website and its JSON API over HTTP (cpp-httplib), on a
// read-only catalog. Routing is plain string work, no regex engine on
// request paths. Requests borrow a site (a catalog connection and a
// matcher, which are not thread-safe) from a pool of one per core.
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
  int port = 8080;  // 0: any free port (see Server::port)
  int threads = 0;  // connections served at once (a thread each); 0: 256
  size_t max_body = 1u << 20;
  int timeout_seconds = 10;
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
