#include "web/server.h"

#include <httplib.h>
#include <xxhash.h>

#include <fmt/format.h>

#include <thread>

#include "web/site.h"

namespace errdex::web {
namespace {

std::string ETag(const std::string& body) {
  XXH128_hash_t h = XXH3_128bits(body.data(), body.size());
  return fmt::format("\"{:016x}{:016x}\"", h.high64, h.low64);
}

// Pages change only when the catalog does: a CDN may keep them a while; the
// ETag lets it (and browsers) revalidate for free.
void Respond(const httplib::Request& req, httplib::Response& res, const Page& page,
             bool immutable_asset) {
  res.status = page.status;
  if (page.status == 200) {
    std::string etag = ETag(page.body);
    res.set_header("ETag", etag);
    res.set_header("Cache-Control",
                   immutable_asset ? "public, max-age=86400" : "public, max-age=300");
    if (req.get_header_value("If-None-Match") == etag) {
      res.status = 304;
      return;
    }
  } else {
    res.set_header("Cache-Control", "no-store");
  }
  res.set_header("X-Content-Type-Options", "nosniff");
  if (page.content_type.rfind("text/html", 0) == 0) {
    // Pages run only errdex's own script, from its own origin.
    res.set_header("Content-Security-Policy",
                   "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                   "object-src 'none'; base-uri 'none'; frame-ancestors 'none'");
  }
  res.set_content(page.body, page.content_type.c_str());
}

}  // namespace

struct Server::Impl {
  ServeOptions options;
  httplib::Server http;
  int port = 0;
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;
int Server::port() const { return impl_->port; }
void Server::Stop() { impl_->http.stop(); }

Result<std::unique_ptr<Server>> Server::Create(const ServeOptions& options) {
  // Fail now, not at the first request, when the catalog cannot be read.
  Result<std::unique_ptr<Site>> probe = Site::Open(options.db, Links{});
  if (!probe) return tl::unexpected(probe.error());
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  httplib::Server& http = impl->http;
  int threads = options.threads > 0
                    ? options.threads
                    : static_cast<int>(std::max(2u, std::thread::hardware_concurrency() * 2));
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http.set_payload_max_length(options.max_body);
  http.set_read_timeout(options.timeout_seconds, 0);
  http.set_write_timeout(options.timeout_seconds, 0);
  http.set_keep_alive_timeout(5);
  std::string db = options.db;
  // Each worker thread's own site: a SQLite connection and matcher are not
  // shared between threads.
  auto site = [db]() -> Site* {
    thread_local std::unique_ptr<Site> mine;
    thread_local std::string mine_db;
    if (!mine || mine_db != db) {
      Result<std::unique_ptr<Site>> opened = Site::Open(db, Links{});
      if (!opened) return nullptr;
      mine = std::move(*opened);
      mine_db = db;
    }
    return mine.get();
  };
  // All routing here, by string: no regex engine sees the request path.
  http.set_pre_routing_handler([site](const httplib::Request& req, httplib::Response& res) {
    Site* s = site();
    if (s == nullptr) {
      res.status = 503;
      res.set_content("{\"error\": \"the catalog cannot be opened\", \"status\": 503}\n",
                      "application/json");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (req.method == "GET" || req.method == "HEAD") {
      httplib::Params params = req.params;
      Query query(params.begin(), params.end());
      Respond(req, res, s->Get(req.path, query), req.path.rfind("/static/", 0) == 0);
    } else if (req.method == "POST" && req.path == "/api/match") {
      // The body is read after this handler: the route below answers.
      return httplib::Server::HandlerResponse::Unhandled;
    } else if (req.method == "OPTIONS") {
      res.status = 204;
      res.set_header("Allow", "GET, HEAD, POST, OPTIONS");
    } else {
      res.status = 405;
      res.set_header("Allow", req.path == "/api/match" ? "POST" : "GET, HEAD");
      res.set_content("{\"error\": \"method not allowed\", \"status\": 405}\n", "application/json");
    }
    return httplib::Server::HandlerResponse::Handled;
  });
  // What the library itself refuses (a body over the limit, a malformed
  // request) gets a JSON body too.
  // httplib matches this literal pattern with std::regex; a literal cannot
  // backtrack, and nothing else is routed that way.
  http.Post("/api/match", [site](const httplib::Request& req, httplib::Response& res) {
    Site* s = site();
    Page page = s == nullptr
                    ? Page{503, "application/json",
                           "{\"error\": \"the catalog cannot be opened\", \"status\": 503}\n"}
                    : s->Match(req.body, req.get_header_value("Content-Type"));
    res.status = page.status;
    res.set_header("Cache-Control", "no-store");
    res.set_content(page.body, page.content_type.c_str());
  });
  http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string_view what = res.status == 413   ? "request body too large"
                            : res.status == 400 ? "bad request"
                            : res.status == 414 ? "request URI too long"
                                                : "error";
    res.set_content(fmt::format("{{\"error\": \"{}\", \"status\": {}}}\n", what, res.status),
                    "application/json");
  });
  if (options.port == 0) {
    impl->port = http.bind_to_any_port(options.host.c_str());
  } else {
    impl->port = http.bind_to_port(options.host.c_str(), options.port) ? options.port : -1;
  }
  if (impl->port <= 0) {
    return Fail(ErrorCode::kIo, fmt::format("cannot listen on {}:{}", options.host, options.port));
  }
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Result<void> Server::Run() {
  if (!impl_->http.listen_after_bind()) {
    return Fail(ErrorCode::kIo, "the server stopped with an error");
  }
  return {};
}

}  // namespace errdex::web
