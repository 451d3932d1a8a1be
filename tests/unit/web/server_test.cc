// The website and JSON API over HTTP on an ephemeral loopback port, and the
// static export: routes, status codes, escaping of hostile templates,
// caching headers, gzip, limits, path traversal; and hostile clients over
// raw sockets (ranges, chunked floods, smuggling headers, pipelining,
// connection floods, slow clients, a catalog replaced or truncated).
#include "web/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "core/error_id.h"
#include "test_util.h"
#include "web/export.h"

namespace errdex::web {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kCommit = "0123456789abcdef0123456789abcdef01234567";
constexpr const char* kHostile = "<script>alert(1)</script> & 'quoted' \"double\"";

using Clock = std::chrono::steady_clock;

// Writes `source` as lib/m.py under `dir` and indexes lib/ as t/l into
// `db`; errdex's exit code.
int IndexModule(testing::TempDir& dir, const std::string& source, const std::string& db) {
  dir.Write("lib/m.py", source);
  return testing::RunErrdex(
             {"--db", db, "index", (dir.path() / "lib").string(), "--name", "t/l", "-q"})
      .exit_code;
}

int64_t MsSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// A raw client socket to 127.0.0.1:port. `source` is the loopback address
// it comes from: another one (127.0.0.2...) stands for another client.
// -1 when it cannot connect.
int Connect(int port, const char* source = "127.0.0.1") {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source, &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Everything the peer sends until it closes or `limit` passes.
std::string ReadAll(int fd, std::chrono::milliseconds limit = std::chrono::milliseconds(10000)) {
  std::string out;
  Clock::time_point end = Clock::now() + limit;
  char buf[65536];
  while (Clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    int wait = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count());
    if (poll(&p, 1, std::max(wait, 1)) <= 0) continue;
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// The status codes of the answers in a byte stream, in order.
std::vector<int> Statuses(const std::string& stream) {
  std::vector<int> out;
  for (size_t at = stream.find("HTTP/1."); at != std::string::npos;
       at = stream.find("HTTP/1.", at + 1)) {
    if (at == 0 || stream[at - 1] == '\n') {
      out.push_back(std::atoi(stream.c_str() + at + 9));
    }
  }
  return out;
}

// A server of its own for a test that changes its options or its catalog.
class Running {
 public:
  explicit Running(const ServeOptions& options) {
    Result<std::unique_ptr<Server>> s = Server::Create(options);
    EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message);
    if (!s) return;
    server_ = std::move(*s);
    thread_ = std::thread([this] { (void)server_->Run(); });
  }
  ~Running() {
    if (!server_) return;
    server_->Stop();
    thread_.join();
  }
  int port() const { return server_ ? server_->port() : -1; }

 private:
  std::unique_ptr<Server> server_;
  std::thread thread_;
};

class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    dir_->Write(
        "lib/hostile.py",
        "def f(stage):\n"
        "    if stage not in (0, 1):\n"
        "        raise ValueError(\"<script>alert(1)</script> & 'quoted' \\\"double\\\"\")\n"
        "    raise KeyError(f'no stage {stage}')\n");
    // An error correct use never reaches: the library's to fix.
    dir_->Write("lib/internal.py",
                "def check(n):\n"
                "    raise AssertionError(f'broken invariant: {n}')\n");
    db_ = dir_->Catalog();
    testing::CommandResult r = testing::RunErrdex(
        {"--db", db_, "index", (dir_->path() / "lib").string(), "--name", "test/lib", "-q", "--url",
         "https://github.com/test/lib", "--commit", kCommit});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ServeOptions options;
    options.db = db_;
    options.port = 0;
    options.threads = 4;
    Result<std::unique_ptr<Server>> s = Server::Create(options);
    ASSERT_TRUE(s.has_value()) << s.error().message;
    server_ = s->release();
    thread_ = new std::thread([] { (void)server_->Run(); });
    // The port listens from Create on; Run only starts accepting.
  }
  static void TearDownTestSuite() {
    server_->Stop();
    thread_->join();
    delete thread_;
    delete server_;
    delete dir_;
  }

  httplib::Client Client() {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(10, 0);
    return c;
  }
  std::string HostileId() { return ErrorId("test/lib", "ValueError", kHostile); }

  static testing::TempDir* dir_;
  static std::string db_;
  static Server* server_;
  static std::thread* thread_;
};

testing::TempDir* ServerTest::dir_ = nullptr;
std::string ServerTest::db_;
Server* ServerTest::server_ = nullptr;
std::thread* ServerTest::thread_ = nullptr;

TEST_F(ServerTest, HomePageListsLibrariesAndFamilies) {
  auto res = Client().Get("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_NE(res->body.find("id=\"q\""), std::string::npos);
  EXPECT_NE(res->body.find("href=\"/libraries/test/lib\""), std::string::npos);
  EXPECT_NE(res->body.find("href=\"/families/invalid-choice\""), std::string::npos);
  EXPECT_NE(res->body.find("/static/app.js"), std::string::npos);
}

TEST_F(ServerTest, ErrorPageEscapesEverythingAndHasTheSections) {
  auto res = Client().Get("/errors/" + HostileId());
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->body.find("<script>alert"), std::string::npos) << "a template ran as markup";
  EXPECT_NE(res->body.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#39;quoted&#39; "
                           "&quot;double&quot;"),
            std::string::npos);
  for (const char* section :
       {"id=\"message\"", "id=\"meaning\"", "id=\"source\"", "id=\"solutions\"", "id=\"fix\"",
        "id=\"when\"", "id=\"family\"", "id=\"related\"", "class=\"provenance\""}) {
    EXPECT_NE(res->body.find(section), std::string::npos) << section;
  }
  EXPECT_NE(res->body.find(std::string("href=\"https://github.com/test/lib/blob/") + kCommit +
                           "/hostile.py#L3\">View on GitHub (pinned to 0123456789)"),
            std::string::npos);
  // The raise line is numbered and highlighted.
  EXPECT_NE(res->body.find("<span class=\"line hl\" id=\"raise\"><span class=\"ln\">3</span>"),
            std::string::npos);
  EXPECT_NE(res->get_header_value("Content-Security-Policy").find("script-src 'self'"),
            std::string::npos);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/html; charset=utf-8");
}

TEST_F(ServerTest, ErrorJsonAndItsStatusCodes) {
  httplib::Client c = Client();
  auto res = c.Get("/api/errors/" + HostileId());
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  json j = json::parse(res->body);
  EXPECT_EQ(j["id"], HostileId());
  EXPECT_EQ(j["template"], kHostile);
  EXPECT_EQ(j["family"], "invalid-choice");
  EXPECT_EQ(j["page"], "/errors/" + HostileId());
  EXPECT_TRUE(j["analysis"].is_object());
  EXPECT_EQ(j["sites"][0]["source_url"],
            std::string("https://github.com/test/lib/blob/") + kCommit + "/hostile.py#L3");
  // The caller's mistake: nothing to report to the library.
  EXPECT_FALSE(j.contains("report_issue_url")) << j.dump();
  res = c.Get("/api/errors/not-an-id");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(json::parse(res->body)["status"], 400);
  res = c.Get("/api/errors/0123456789abcdef");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  res = c.Get("/errors/0123456789abcdef");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  res = c.Get("/api/nothing");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  res = c.Delete("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 405);
}

// "Report an issue" (page footer and JSON) only for an error that is the
// library's to fix; no other page offers one.
TEST_F(ServerTest, ReportAnIssueOnlyForInternalErrors) {
  httplib::Client c = Client();
  std::string internal = ErrorId("test/lib", "AssertionError", "broken invariant: {str}");
  auto res = c.Get("/api/errors/" + internal);
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  json j = json::parse(res->body);
  EXPECT_TRUE(j["internal"].get<bool>()) << j.dump();
  EXPECT_EQ(j["report_issue_url"].get<std::string>().rfind(
                "https://github.com/test/lib/issues/new?title=AssertionError%3A%20broken", 0),
            0u)
      << j.dump();
  res = c.Get("/errors/" + internal);
  ASSERT_TRUE(res);
  EXPECT_NE(res->body.find("\">Report an issue</a>"), std::string::npos);
  EXPECT_NE(res->body.find("href=\"https://github.com/test/lib/issues/new?title="),
            std::string::npos);
  for (std::string path : {"/errors/" + HostileId(), std::string("/"),
                           std::string("/libraries/test/lib"), std::string("/nothing")}) {
    res = c.Get(path);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->body.find("Report an issue"), std::string::npos) << path;
    EXPECT_EQ(res->body.find("/issues/new"), std::string::npos) << path;
  }
}

// Every page's footer says when the catalog was indexed (the newest
// snapshot's time) and when it was analysed, as `stats` gives them.
TEST_F(ServerTest, EveryPageGivesTheIndexingAndAnalysisDates) {
  testing::CommandResult stats = testing::RunErrdex({"stats", "--json", "--db", db_});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  json s = json::parse(stats.out);
  std::string indexed = s["per_snapshot"][0]["indexed_at"];
  std::string analysed = s["analysed_at"];
  ASSERT_EQ(indexed.size(), 20u) << indexed;
  ASSERT_EQ(analysed.size(), 20u) << analysed;
  std::string footer = "<footer class=\"site\"><p>Indexed on <time datetime=\"" + indexed +
                       "\">" + indexed.substr(0, 10) +
                       "</time> · analysed on <time datetime=\"" + analysed + "\">" +
                       analysed.substr(0, 10) + "</time>.</p></footer>";
  httplib::Client c = Client();
  for (std::string path :
       {std::string("/"), "/errors/" + HostileId(), std::string("/libraries/test/lib"),
        std::string("/families/invalid-choice"), std::string("/nothing"),
        std::string("/errors/0123456789abcdef")}) {
    auto res = c.Get(path);
    ASSERT_TRUE(res);
    EXPECT_NE(res->body.find(footer), std::string::npos) << path << "\n" << res->body;
  }
}

// Counts agree with their nouns on the pages: one library is "1 library".
TEST_F(ServerTest, CountsAgreeWithTheirNouns) {
  httplib::Client c = Client();
  auto res = c.Get("/families/invalid-choice");
  ASSERT_TRUE(res);
  EXPECT_NE(res->body.find(" across 1 library."), std::string::npos) << res->body;
  for (std::string path : {std::string("/"), std::string("/families/invalid-choice"),
                           std::string("/libraries/test/lib"), "/errors/" + HostileId()}) {
    res = c.Get(path);
    ASSERT_TRUE(res);
    for (const char* wrong : {"1 libraries", "1 errors", "1 sites", "1 more sites"}) {
      EXPECT_EQ(res->body.find(std::string(">") + wrong), std::string::npos) << path << wrong;
      EXPECT_EQ(res->body.find(std::string(" ") + wrong), std::string::npos) << path << wrong;
    }
  }
  res = c.Get("/");
  ASSERT_TRUE(res);
  EXPECT_NE(res->body.find("1 library</span>"), std::string::npos) << res->body;
}

TEST_F(ServerTest, MatchTakesJsonOrPlainText) {
  httplib::Client c = Client();
  auto res = c.Post("/api/match", json({{"text", "KeyError: 'no stage 7'"}, {"top", 3}}).dump(),
                    "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  json j = json::parse(res->body);
  ASSERT_FALSE(j["matches"].empty());
  EXPECT_EQ(j["matches"][0]["template"], "'no stage {stage}'");  // KeyError prints a repr
  EXPECT_EQ(j["matches"][0]["values"]["stage"], "7");
  EXPECT_EQ(j["matches"][0]["page"], "/errors/" + j["matches"][0]["id"].get<std::string>());
  res = c.Post("/api/match",
               std::string("Traceback (most recent call last):\n"
                           "  File \"/x/hostile.py\", line 3, in f\n"
                           "ValueError: ") +
                   kHostile + "\n",
               "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(json::parse(res->body)["matches"][0]["id"], HostileId());
  res = c.Post("/api/match", "{\"nope\": 1}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  res = c.Post("/api/match", json({{"text", "x"}, {"top", 1000}}).dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  res = c.Post("/api/match", std::string(2u << 20, 'x'), "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
}

TEST_F(ServerTest, SearchLibrariesFamiliesAndOpenApi) {
  httplib::Client c = Client();
  auto res = c.Get("/api/search?q=stage");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  EXPECT_FALSE(json::parse(res->body).empty());
  res = c.Get("/api/search?q=stage&limit=0");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  res = c.Get("/api/libraries");
  ASSERT_TRUE(res);
  EXPECT_EQ(json::parse(res->body)[0]["name"], "test/lib");
  res = c.Get("/api/families");
  ASSERT_TRUE(res);
  EXPECT_GE(json::parse(res->body).size(), 20u);
  res = c.Get("/api/openapi.json");
  ASSERT_TRUE(res);
  json api = json::parse(res->body);
  EXPECT_EQ(api["openapi"], "3.0.3");
  for (const char* path :
       {"/api/errors/{id}", "/api/match", "/api/search", "/api/libraries", "/api/families",
        "/healthz", "/metrics"}) {
    EXPECT_TRUE(api["paths"].contains(path)) << path;
  }
  res = c.Get("/families/invalid-choice");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_NE(res->body.find(HostileId()), std::string::npos);
  res = c.Get("/libraries/test/lib");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

TEST_F(ServerTest, CachingAndCompression) {
  httplib::Client c = Client();
  auto res = c.Get("/errors/" + HostileId());
  ASSERT_TRUE(res);
  std::string etag = res->get_header_value("ETag");
  ASSERT_FALSE(etag.empty());
  EXPECT_EQ(res->get_header_value("Cache-Control"), "public, max-age=300");
  res = c.Get("/errors/" + HostileId(), {{"If-None-Match", etag}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 304);
  EXPECT_TRUE(res->body.empty());
  c.set_decompress(false);
  res = c.Get("/errors/" + HostileId(), {{"Accept-Encoding", "gzip"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->get_header_value("Content-Encoding"), "gzip");
}

TEST_F(ServerTest, NoPathLeavesTheSiteAndHostileHeadersDoNotHurt) {
  httplib::Client c = Client();
  for (const char* path : {"/static/../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd",
                           "/libraries/../../etc/passwd", "/families/../x", "/errors/../c.db"}) {
    auto res = c.Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 404) << path;
    EXPECT_EQ(res->body.find("root:"), std::string::npos);
  }
  // A Range header as long as the server takes: still answered, server alive.
  std::string range = "bytes=";
  while (range.size() < 8000) range += "0-1,";
  auto res = c.Get("/static/style.css", {{"Range", range + "0-1"}});
  res = c.Get("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

// Hostile clients, over raw sockets: a client library would not send these.

TEST_F(ServerTest, ManyRangesGetNoMoreThanTheResource) {
  auto plain = Client().Get("/static/style.css", {{"Accept-Encoding", "identity"}});
  ASSERT_TRUE(plain);
  size_t resource = plain->body.size();
  ASSERT_GT(resource, 1000u);
  std::string ranges = "bytes=0-";
  for (int i = 0; i < 400; ++i) ranges += ",0-";
  int fd = Connect(server_->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "GET /static/style.css HTTP/1.1\r\nHost: x\r\nRange: " + ranges +
                              "\r\nConnection: close\r\n\r\n"));
  std::string reply = ReadAll(fd);
  close(fd);
  EXPECT_EQ(Statuses(reply), std::vector<int>{200});
  size_t body = reply.size() - (reply.find("\r\n\r\n") + 4);
  EXPECT_EQ(body, resource);
  EXPECT_LE(reply.size(), resource + 2048);
}

TEST_F(ServerTest, AChunkedBodyOverTheLimitIsRefusedBeforeItIsRead) {
  int fd = Connect(server_->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd,
                      "POST /api/match HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
                      "Transfer-Encoding: chunked\r\n\r\n"));
  // 5 MB in 64 KiB chunks and never the closing zero-size chunk: a server
  // that waited for the whole body would never answer. How much the client
  // managed to send says nothing, since the kernel's socket buffers (up to
  // 32 MiB on some machines) take it whether the server reads or not.
  std::string chunk = "10000\r\n" + std::string(0x10000, 'x') + "\r\n";
  size_t sent = 0;
  Clock::time_point start = Clock::now();
  while (sent < (5u << 20) && MsSince(start) < 10000) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 0) > 0) break;
    if (!SendAll(fd, chunk)) break;
    sent += 0x10000;
  }
  std::string reply = ReadAll(fd, std::chrono::milliseconds(5000));
  close(fd);
  ASSERT_FALSE(Statuses(reply).empty()) << "no answer after " << sent << " bytes";
  EXPECT_EQ(Statuses(reply)[0], 413);
  EXPECT_NE(reply.find("\"status\":413"), std::string::npos) << reply;
}

TEST_F(ServerTest, ContentLengthWithTransferEncodingIs400) {
  for (const char* headers : {"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n",
                              "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n",
                              "Transfer-Encoding: gzip\r\nContent-Length: 4\r\n",
                              "Transfer-Encoding: chunked, identity\r\n"}) {
    int fd = Connect(server_->port());
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(SendAll(fd, std::string("POST /api/match HTTP/1.1\r\nHost: x\r\n") + headers +
                                "\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    std::string reply = ReadAll(fd, std::chrono::milliseconds(5000));
    close(fd);
    EXPECT_EQ(Statuses(reply), std::vector<int>{400}) << headers << reply;
    EXPECT_NE(reply.find("\"status\":400"), std::string::npos);
  }
}

TEST_F(ServerTest, PipelinedRequestsAreAllAnsweredInOrder) {
  int fd = Connect(server_->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(
      SendAll(fd, "GET /api/errors/" + HostileId() +
                      " HTTP/1.1\r\nHost: x\r\n\r\n"
                      "GET /api/nothing HTTP/1.1\r\nHost: x\r\n\r\n"
                      "GET /api/libraries HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  std::string reply = ReadAll(fd);
  close(fd);
  EXPECT_EQ(Statuses(reply), (std::vector<int>{200, 404, 200}));
  size_t error = reply.find(HostileId());
  size_t missing = reply.find("no such API route");
  size_t libraries = reply.find("\"name\":\"test/lib\"");
  ASSERT_NE(libraries, std::string::npos);
  EXPECT_LT(error, missing);
  EXPECT_LT(missing, libraries);
}

TEST_F(ServerTest, ConnectionsOverThePerAddressLimitAreRefusedFast) {
  ServeOptions options;
  options.db = db_;
  options.port = 0;
  options.threads = 2;
  options.max_connections_per_ip = 4;
  Running server(options);
  std::vector<int> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(Connect(server.port()));
    ASSERT_GE(held.back(), 0);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // all four accepted
  Clock::time_point start = Clock::now();
  int fd = Connect(server.port());
  ASSERT_GE(fd, 0);
  SendAll(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  std::string reply = ReadAll(fd, std::chrono::milliseconds(5000));
  close(fd);
  EXPECT_LT(MsSince(start), 1000);
  EXPECT_EQ(Statuses(reply), std::vector<int>{503});
  EXPECT_NE(reply.find("\"status\":503"), std::string::npos);
  // Another client is served.
  fd = Connect(server.port(), "127.0.0.2");
  ASSERT_GE(fd, 0);
  SendAll(fd, "GET /api/libraries HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(Statuses(ReadAll(fd)), std::vector<int>{200});
  close(fd);
  for (int h : held) close(h);
}

TEST_F(ServerTest, SlowConnectionsDoNotDelayOthers) {
  ServeOptions options;
  options.db = db_;
  options.port = 0;
  options.threads = 2;
  Running server(options);
  // 300 clients that never finish their header, from 10 addresses (under
  // the per-address limit), each one byte at a time.
  std::vector<int> slow;
  for (int i = 0; i < 300; ++i) {
    std::string source = "127.0.0." + std::to_string(10 + i % 10);
    int fd = Connect(server.port(), source.c_str());
    ASSERT_GE(fd, 0) << i;
    ASSERT_TRUE(SendAll(fd, "G"));
    slow.push_back(fd);
  }
  for (int round = 0; round < 3; ++round) {
    for (int fd : slow) SendAll(fd, "E");
    httplib::Client c("127.0.0.1", server.port());
    c.set_read_timeout(10, 0);
    Clock::time_point start = Clock::now();
    auto res = c.Get("/api/errors/" + HostileId());
    int64_t ms = MsSince(start);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    EXPECT_LT(ms, 500) << "round " << round;
  }
  for (int fd : slow) close(fd);
}

TEST(Serve, AClientThatNeverFinishesItsHeaderIsClosedAtTheDeadline) {
  testing::TempDir dir;
  std::string db = dir.Catalog();
  ASSERT_EQ(IndexModule(dir, "raise ValueError('first')\n", db), 0);
  ServeOptions options;
  options.db = db;
  options.port = 0;
  options.threads = 1;
  options.header_timeout_ms = 300;
  Running server(options);
  int fd = Connect(server.port());
  ASSERT_GE(fd, 0);
  Clock::time_point start = Clock::now();
  // A byte every 100 ms: each arrives well within any idle timeout.
  std::string reply;
  bool closed = false;
  for (int i = 0; i < 30 && !closed; ++i) {
    if (!SendAll(fd, std::string(i == 0 ? "GET / HTTP/1.1\r\n" : "") + "X-Slow: 1\r\n")) break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      char buf[256];
      closed = recv(fd, buf, sizeof buf, 0) <= 0;
    }
  }
  int64_t ms = MsSince(start);
  close(fd);
  EXPECT_TRUE(closed);
  EXPECT_GE(ms, 250);
  EXPECT_LT(ms, 2000);
}

// The catalog replaced under the server, three ways, a few times each: the
// server stays up, answers 503 (or the right page) meanwhile, and serves
// the catalog that is there once it is whole.
TEST(ServeSqlite, ACatalogTruncatedOrReplacedWhileServingIsSurvived) {
  testing::TempDir dir;
  auto index = [&](const std::string& message, const std::string& db) {
    return IndexModule(dir, "raise ValueError('" + message + "')\n", db);
  };
  fs::path live = dir.path() / "live.db";
  fs::path first = dir.path() / "first.db";
  fs::path second = dir.path() / "second.db";
  ASSERT_EQ(index("first", first.string()), 0);
  ASSERT_EQ(index("second", second.string()), 0);
  fs::copy_file(first, live);
  ServeOptions options;
  options.db = live.string();
  options.port = 0;
  options.threads = 2;
  Running server(options);
  httplib::Client c("127.0.0.1", server.port());
  c.set_read_timeout(10, 0);
  std::string one = "/api/errors/" + ErrorId("t/l", "ValueError", "first");
  std::string two = "/api/errors/" + ErrorId("t/l", "ValueError", "second");
  auto serves = [&](const std::string& path) {
    // A change is seen within a second.
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    auto res = c.Get(path);
    return res && res->status == 200;
  };
  // While the file is cut short: the page as it was (cached) or a 503, never
  // a 404 made from the rows that are missing.
  auto meanwhile = [&](const std::string& path) {
    for (int i = 0; i < 5; ++i) {
      auto res = c.Get(path);
      ASSERT_TRUE(res) << "the server is gone";
      EXPECT_TRUE(res->status == 200 || res->status == 503) << res->status << " " << res->body;
      if (res->status == 503) {
        EXPECT_EQ(json::parse(res->body)["status"], 503);
      }
      auto match = c.Post("/api/match", "ValueError: first", "text/plain");
      ASSERT_TRUE(match) << "the server is gone";
      EXPECT_TRUE(match->status == 200 || match->status == 503) << match->status;
    }
  };
  ASSERT_TRUE(serves(one));
  for (int trial = 0; trial < 2; ++trial) {
    // Truncated in place, to half and to nothing; then a good copy over it.
    for (uintmax_t size : {fs::file_size(first) / 2, uintmax_t{0}}) {
      fs::resize_file(live, size);
      meanwhile(one);
      std::this_thread::sleep_for(std::chrono::milliseconds(1100));
      meanwhile(one);
      fs::copy_file(first, live, fs::copy_options::overwrite_existing);
      EXPECT_TRUE(serves(one)) << "trial " << trial << ", truncated to " << size;
    }
    // Another catalog renamed onto it, and back.
    fs::copy_file(second, dir.path() / "next.db", fs::copy_options::overwrite_existing);
    fs::rename(dir.path() / "next.db", live);
    EXPECT_TRUE(serves(two)) << "trial " << trial << ", renamed";
    auto res = c.Get(one);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 404) << "the old catalog is still served";
    auto match = c.Post("/api/match", "ValueError: second", "text/plain");
    ASSERT_TRUE(match);
    ASSERT_EQ(match->status, 200);
    EXPECT_EQ(json::parse(match->body)["matches"][0]["template"], "second");
    // A different catalog copied over it in place.
    fs::copy_file(first, live, fs::copy_options::overwrite_existing);
    EXPECT_TRUE(serves(one)) << "trial " << trial << ", copied over";
  }
}

TEST(ServeSqlite, ReindexingWhileServingIsSeenWithinASecond) {
  testing::TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  ASSERT_EQ(IndexModule(dir, "raise ValueError('first')\n", db), 0);
  ServeOptions options;
  options.db = db;
  options.port = 0;
  Result<std::unique_ptr<Server>> s = Server::Create(options);
  ASSERT_TRUE(s.has_value());
  std::thread t([&] { (void)(*s)->Run(); });
  httplib::Client c("127.0.0.1", (*s)->port());
  std::string second = "/api/errors/" + ErrorId("t/l", "ValueError", "second");
  auto res = c.Get(second);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  ASSERT_EQ(IndexModule(dir, "raise ValueError('second')\n", db), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  res = c.Get(second);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << "a cached 404 outlived the catalog it came from";
  (*s)->Stop();
  t.join();
}

TEST(ServeSqlite, ADamagedCatalogIsRefusedAtStart) {
  testing::TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  ASSERT_EQ(IndexModule(dir, "def f(x):\n    if x:\n        raise ValueError('bad x')\n", db), 0);
  ServeOptions options;
  options.db = db;
  options.port = 0;
  ASSERT_TRUE(Server::Create(options).has_value());
  // A site's line changed behind errdex's back: its row no longer matches
  // its hash, which no page might read for a long time.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "UPDATE site_row SET line = line + 1", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  Result<std::unique_ptr<Server>> s = Server::Create(options);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(s.error().message.find("the catalog is damaged"), std::string::npos)
      << s.error().message;
}

TEST(ServeSqlite, AMissingCatalogIsRefusedNotCreated) {
  testing::TempDir dir;
  ServeOptions options;
  options.db = (dir.path() / "none.db").string();
  options.port = 0;
  Result<std::unique_ptr<Server>> s = Server::Create(options);
  EXPECT_FALSE(s.has_value());
  EXPECT_FALSE(fs::exists(options.db) && fs::file_size(options.db) > 0);
}

// One line of Prometheus' text format 0.0.4: a comment (HELP, TYPE or any
// other), or a sample `name{label="value",...} value [timestamp]`.
const std::string kLabel = R"re([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*")re";
const std::string kFloat = R"re([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?Inf|NaN)re";
// Groups: 1 the name, 2 the labels with their braces, 5 the value.
const std::regex kSampleLine("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(" + kLabel + "(," + kLabel +
                             ")*,?)?\\})? (" + kFloat + ")( -?[0-9]+)?");
const std::regex kHelpLine(R"re(# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*)re");
const std::regex kTypeLine(
    R"re(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped))re");

// A scrape: every sample by its series ("name{labels}"), each line checked
// against the grammar, each sample after the TYPE of its family, no
// series twice.
std::map<std::string, double> Scrape(httplib::Client& c) {
  std::map<std::string, double> out;
  auto res = c.Get("/metrics");
  EXPECT_TRUE(res);
  if (!res) return out;
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type").rfind("text/plain; version=0.0.4", 0), 0u)
      << res->get_header_value("Content-Type");
  EXPECT_EQ(res->get_header_value("Cache-Control"), "no-store");
  std::map<std::string, std::string> types;
  std::istringstream in(res->body);
  std::string line;
  EXPECT_FALSE(res->body.empty());
  EXPECT_EQ(res->body.back(), '\n');
  while (std::getline(in, line)) {
    std::smatch m;
    if (line.rfind("# HELP ", 0) == 0) {
      EXPECT_TRUE(std::regex_match(line, kHelpLine)) << line;
    } else if (line.rfind("# TYPE ", 0) == 0) {
      if (!std::regex_match(line, m, kTypeLine)) {
        ADD_FAILURE() << "not a TYPE line: " << line;
        continue;
      }
      EXPECT_TRUE(types.emplace(m[1].str(), m[2].str()).second) << "TYPE twice: " << line;
    } else if (line.rfind("#", 0) == 0) {
      continue;  // any other comment
    } else {
      if (!std::regex_match(line, m, kSampleLine)) {
        ADD_FAILURE() << "not a sample: " << line;
        continue;
      }
      std::string name = m[1].str();
      std::string family = name;
      for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        std::string_view sv(name);
        if (sv.size() > strlen(suffix) && sv.substr(sv.size() - strlen(suffix)) == suffix &&
            types.count(name.substr(0, sv.size() - strlen(suffix)))) {
          family = name.substr(0, sv.size() - strlen(suffix));
        }
      }
      EXPECT_TRUE(types.count(family)) << "no TYPE before " << line;
      std::string series = name + m[2].str();
      EXPECT_TRUE(out.emplace(series, std::stod(m[5].str())).second)
          << "twice: " << series;
    }
  }
  return out;
}

double Value(const std::map<std::string, double>& scrape, const std::string& series) {
  auto it = scrape.find(series);
  return it == scrape.end() ? 0 : it->second;
}

std::string Requests(const std::string& route, int code) {
  return "errdex_http_requests_total{route=\"" + route + "\",code=\"" + std::to_string(code) +
         "\"}";
}

// Every histogram's buckets rise with `le` and end in +Inf, which _count
// equals.
void ExpectWholeHistograms(const std::map<std::string, double>& scrape) {
  std::map<std::string, std::vector<std::pair<double, double>>> buckets;  // route -> (le, n)
  std::regex bucket(
      R"re(errdex_http_request_duration_seconds_bucket\{route="([^"]*)",le="([^"]*)"\})re");
  for (const auto& [series, v] : scrape) {
    std::smatch m;
    if (!std::regex_match(series, m, bucket)) continue;
    double le = m[2].str() == "+Inf" ? INFINITY : std::stod(m[2].str());
    buckets[m[1].str()].emplace_back(le, v);
  }
  for (auto& [route, bs] : buckets) {
    std::sort(bs.begin(), bs.end());
    ASSERT_TRUE(std::isinf(bs.back().first)) << route << " has no +Inf bucket";
    for (size_t i = 1; i < bs.size(); ++i) {
      EXPECT_LE(bs[i - 1].second, bs[i].second) << route << ": buckets are not cumulative";
    }
    std::string labels = "{route=\"" + route + "\"}";
    EXPECT_EQ(Value(scrape, "errdex_http_request_duration_seconds_count" + labels),
              bs.back().second)
        << route;
    EXPECT_GE(Value(scrape, "errdex_http_request_duration_seconds_sum" + labels), 0) << route;
    EXPECT_TRUE(scrape.count("errdex_http_request_duration_seconds_sum" + labels)) << route;
  }
}

TEST_F(ServerTest, MetricsAreWellFormedAndCountEveryRequestOnce) {
  httplib::Client c = Client();
  std::map<std::string, double> before = Scrape(c);
  ExpectWholeHistograms(before);
  EXPECT_GT(Value(before, "process_start_time_seconds"), 1.6e9);
  EXPECT_GE(Value(before, "errdex_http_open_connections"), 1);
  std::string error = "/api/errors/" + HostileId();
  for (int i = 0; i < 3; ++i) {
    auto res = c.Get(error);
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200);
  }
  for (const std::string& path : {std::string("/api/errors/0123456789abcdef"),
                                  std::string("/api/errors/fedcba9876543210?version=x")}) {
    auto res = c.Get(path);
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 404) << path;
  }
  for (int i = 0; i < 2; ++i) {
    auto res = c.Post("/api/match", "ValueError: nothing of the kind", "text/plain");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200);
  }
  // Paths no route serves share one label, however many there are.
  for (int i = 0; i < 4; ++i) {
    auto res = c.Get("/no/such/page/" + std::to_string(i));
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 404);
  }
  auto res = c.Delete("/api/libraries");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 405);
  res = c.Get("/healthz");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  std::map<std::string, double> after = Scrape(c);
  ExpectWholeHistograms(after);
  auto rise = [&](const std::string& series) { return Value(after, series) - Value(before, series); };
  EXPECT_EQ(rise(Requests("/api/errors/{id}", 200)), 3);
  EXPECT_EQ(rise(Requests("/api/errors/{id}", 404)), 2);
  EXPECT_EQ(rise(Requests("/api/match", 200)), 2);
  EXPECT_EQ(rise(Requests("other", 404)), 4);
  EXPECT_EQ(rise(Requests("/api/libraries", 405)), 1);
  EXPECT_EQ(rise(Requests("/healthz", 200)), 1);
  // The first scrape is counted, the second not yet (its answer was made
  // before it was recorded).
  EXPECT_EQ(rise(Requests("/metrics", 200)), 1);
  EXPECT_EQ(rise("errdex_http_request_duration_seconds_count{route=\"/api/errors/{id}\"}"), 5);
  EXPECT_EQ(Value(after, "errdex_http_request_duration_seconds_bucket{route=\"/api/errors/{id}\","
                         "le=\"+Inf\"}"),
            5);
  EXPECT_EQ(rise("errdex_http_request_duration_seconds_count{route=\"other\"}"), 4);
  EXPECT_GT(rise("errdex_http_request_duration_seconds_sum{route=\"/api/match\"}"), 0);
  for (const auto& [series, v] : after) {
    EXPECT_EQ(series.find("/no/such"), std::string::npos) << "a path became a label: " << series;
  }
  // Nothing else counted a request: every rise is one of the above.
  double total = 0;
  for (const auto& [series, v] : after) {
    if (series.rfind("errdex_http_requests_total{", 0) == 0) total += v - Value(before, series);
  }
  EXPECT_EQ(total, 3 + 2 + 2 + 4 + 1 + 1 + 1);
  EXPECT_EQ(Value(after, "errdex_catalog_generation"), Value(before, "errdex_catalog_generation"));
  EXPECT_EQ(after.count("errdex_catalog_watch_up") != 0, testing::TestingPostgres());
}

TEST_F(ServerTest, HealthzAsksTheCatalogAndIsNeverCached) {
  httplib::Client c = Client();
  for (int i = 0; i < 2; ++i) {
    auto res = c.Get("/healthz");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
    EXPECT_EQ(res->get_header_value("Cache-Control"), "no-store");
    EXPECT_FALSE(res->has_header("ETag"));
    json j = json::parse(res->body);
    EXPECT_EQ(j["status"], "ok");
    EXPECT_EQ(j["libraries"], 1);
    EXPECT_EQ(j["snapshots"], 1);
    EXPECT_EQ(j["backend"], testing::TestingPostgres() ? "postgresql" : "sqlite");
    EXPECT_TRUE(j["generation"].is_number());
    if (testing::TestingPostgres()) {
      EXPECT_EQ(j["watch"], "listening");
      EXPECT_GE(j["catalog_generation"].get<int64_t>(), 1);
    }
  }
  auto res = c.Head("/healthz");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  res = c.Post("/healthz", "", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 405);
  res = c.Post("/metrics", "", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 405);
}

// A catalog that does not answer is a 503 saying why, at once, and a 200
// again as soon as it is back: never an answer remembered from before.
TEST(ServeSqlite, HealthzIs503WhileTheCatalogIsCut) {
  testing::TempDir dir;
  fs::path live = dir.path() / "live.db";
  fs::path good = dir.path() / "good.db";
  ASSERT_EQ(IndexModule(dir, "raise ValueError('first')\n", good.string()), 0);
  fs::copy_file(good, live);
  ServeOptions options;
  options.db = live.string();
  options.port = 0;
  options.threads = 1;
  Running server(options);
  httplib::Client c("127.0.0.1", server.port());
  c.set_read_timeout(10, 0);
  auto res = c.Get("/healthz");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  fs::resize_file(live, fs::file_size(good) / 2);
  res = c.Get("/healthz");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503) << res->body;
  json j = json::parse(res->body);
  EXPECT_EQ(j["status"], "unavailable");
  EXPECT_FALSE(j["reason"].get<std::string>().empty());
  EXPECT_EQ(j["reason"].get<std::string>().find(live.string()), std::string::npos)
      << "a reason names the deployment's paths";
  EXPECT_EQ(res->get_header_value("Cache-Control"), "no-store");
  fs::copy_file(good, live, fs::copy_options::overwrite_existing);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  res = c.Get("/healthz");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
}

// --- Several servers on one PostgreSQL catalog (the suite's PostgreSQL run).

// GET `path` until it answers 200 or `limit` passes; the time it took, or
// -1.
int64_t MsUntil200(httplib::Client& c, const std::string& path, Clock::time_point since,
                   std::chrono::milliseconds limit = std::chrono::milliseconds(5000)) {
  while (Clock::now() - since < limit) {
    auto res = c.Get(path);
    if (res && res->status == 200) return MsSince(since);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return -1;
}

int64_t Generation(httplib::Client& c) {
  auto res = c.Get("/healthz");
  if (!res || res->status != 200) return -1;
  return json::parse(res->body)["generation"].get<int64_t>();
}

// A server of `threads` workers on `db` whose watch polls every `poll_ms`.
ServeOptions Watching(const std::string& db, int threads, int poll_ms) {
  ServeOptions options;
  options.db = db;
  options.port = 0;
  options.threads = threads;
  options.catalog_poll_ms = poll_ms;
  return options;
}

// Two servers on one catalog, a library indexed while both serve: both
// answer for it within 5 s (the commit's NOTIFY, not a poll), without a
// restart, pages they had cached for the catalog before included.
TEST(ServePostgres, TwoServersSeeALibraryIndexedWhileTheyServe) {
  if (!testing::TestingPostgres()) GTEST_SKIP() << "PostgreSQL only";
  testing::TempDir dir;
  std::string db = dir.Catalog();
  ASSERT_EQ(IndexModule(dir, "raise ValueError('first')\n", db), 0);
  // Polling far apart: what is seen within 5 s was heard, not polled.
  ServeOptions options = Watching(db, 2, 60000);
  auto one = std::make_unique<Running>(options);
  auto two = std::make_unique<Running>(options);
  std::vector<std::unique_ptr<httplib::Client>> clients;
  for (int port : {one->port(), two->port()}) {
    clients.push_back(std::make_unique<httplib::Client>("127.0.0.1", port));
  }
  const std::string library = "/libraries/t/other";
  const std::string message = "ValueError: the other library's own words";
  for (auto& client : clients) {
    httplib::Client& c = *client;
    c.set_read_timeout(10, 0);
    auto res = c.Get(library);  // a 404 each caches now
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 404);
    res = c.Post("/api/match", message, "text/plain");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200);
    EXPECT_EQ(json::parse(res->body)["matches"].size(), 0u) << res->body;
  }
  dir.Write("other/o.py", "raise ValueError(\"the other library's own words\")\n");
  testing::CommandResult r = testing::RunErrdex(
      {"--db", db, "index", (dir.path() / "other").string(), "--name", "t/other", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Clock::time_point committed = Clock::now();
  // Both servers asked in turn, so that each one's time is its own.
  std::vector<int64_t> matched(clients.size(), -1), page(clients.size(), -1);
  auto done = [](const std::vector<int64_t>& v) {
    return std::all_of(v.begin(), v.end(), [](int64_t ms) { return ms >= 0; });
  };
  while ((!done(matched) || !done(page)) && MsSince(committed) < 5000) {
    for (size_t i = 0; i < clients.size(); ++i) {
      httplib::Client& c = *clients[i];
      if (matched[i] < 0) {
        auto res = c.Post("/api/match", message, "text/plain");
        if (res && res->status == 200 && !json::parse(res->body)["matches"].empty()) {
          EXPECT_EQ(json::parse(res->body)["matches"][0]["library"], "t/other");
          matched[i] = MsSince(committed);
        }
      }
      if (page[i] < 0) {
        auto res = c.Get(library);
        if (res && res->status == 200) page[i] = MsSince(committed);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (size_t i = 0; i < clients.size(); ++i) {
    EXPECT_GE(matched[i], 0) << "server " << i << " never matched the new library";
    EXPECT_GE(page[i], 0) << "server " << i << " kept its 404 of the new library";
    std::cout << "server " << i << ": /api/match after " << matched[i]
              << " ms, the library page after " << page[i] << " ms\n";
  }
  // Stopping joins the watch's thread at once, whatever it was waiting on.
  Clock::time_point stopping = Clock::now();
  one.reset();
  two.reset();
  EXPECT_LT(MsSince(stopping), 3000);
}

// Generations start at commits: a write rolled back (its NOTIFY with it)
// starts none, a commit without a NOTIFY (as a standby sees one) is found
// by polling.
TEST(ServePostgres, OnlyACommittedWriteStartsAGeneration) {
  if (!testing::TestingPostgres()) GTEST_SKIP() << "PostgreSQL only";
  testing::TempDir dir;
  std::string db = dir.Catalog();
  ASSERT_EQ(IndexModule(dir, "raise ValueError('first')\n", db), 0);
  ServeOptions options = Watching(db, 1, 300);
  Running server(options);
  httplib::Client c("127.0.0.1", server.port());
  c.set_read_timeout(10, 0);
  int64_t start = Generation(c);
  ASSERT_GE(start, 0);
  EXPECT_EQ(testing::PostgresExec(db, "BEGIN; UPDATE errdex_catalog SET generation = generation + 1; "
                                      "NOTIFY errdex_catalog; ROLLBACK"),
            "");
  // An index run that fails half-way through its write, its snapshot row
  // refused by a trigger.
  ASSERT_EQ(testing::PostgresExec(
                db, "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS "
                    "$$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$; "
                    "CREATE TRIGGER refuse BEFORE INSERT ON snapshot "
                    "FOR EACH ROW EXECUTE FUNCTION refuse()"),
            "");
  dir.Write("bad/b.py", "raise ValueError('never written')\n");
  testing::CommandResult r = testing::RunErrdex(
      {"--db", db, "index", (dir.path() / "bad").string(), "--name", "t/bad", "-q"});
  EXPECT_NE(r.exit_code, 0) << "the trigger let the write through";
  EXPECT_NE(r.err.find("refused by the test"), std::string::npos) << r.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // five polls
  EXPECT_EQ(Generation(c), start) << "a rolled-back write started a generation";
  EXPECT_EQ(testing::PostgresExec(db, "UPDATE errdex_catalog SET generation = generation + 1"), "");
  Clock::time_point committed = Clock::now();
  while (Generation(c) == start && MsSince(committed) < 5000) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(Generation(c), start + 1) << "the commit was not polled";
  std::cout << "a commit without NOTIFY seen after " << MsSince(committed) << " ms (polling every "
            << options.catalog_poll_ms << " ms)\n";
}

// The watch's connection cut by the server: it connects again, says so in
// /metrics, and the next library indexed is seen as before.
TEST(ServePostgres, TheWatchConnectsAgainAfterItsConnectionIsCut) {
  if (!testing::TestingPostgres()) GTEST_SKIP() << "PostgreSQL only";
  testing::TempDir dir;
  std::string db = dir.Catalog();
  ASSERT_EQ(IndexModule(dir, "raise ValueError('first')\n", db), 0);
  ServeOptions options = Watching(db, 1, 60000);
  Running server(options);
  httplib::Client c("127.0.0.1", server.port());
  c.set_read_timeout(10, 0);
  std::string second = "/api/errors/" + ErrorId("t/l", "ValueError", "second");
  auto res = c.Get(second);
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 404);
  ASSERT_EQ(testing::PostgresExec(db, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                      "WHERE application_name = 'errdex serve (watch)' AND "
                                      "datname = current_database()"),
            "");
  Clock::time_point cut = Clock::now();
  std::map<std::string, double> metrics;
  while (MsSince(cut) < 5000) {
    metrics = Scrape(c);
    if (Value(metrics, "errdex_catalog_watch_failures_total") >= 1 &&
        Value(metrics, "errdex_catalog_watch_up") == 1) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(Value(metrics, "errdex_catalog_watch_failures_total"), 1);
  EXPECT_EQ(Value(metrics, "errdex_catalog_watch_up"), 1);
  ASSERT_EQ(IndexModule(dir, "raise ValueError('second')\n", db), 0);
  EXPECT_GE(MsUntil200(c, second, Clock::now()), 0) << "not seen after the watch reconnected";
}

// A server on a hot standby of the tests' server (tests/pg_server.sh
// standby): PostgreSQL refuses LISTEN there, so a write on the primary is
// seen by polling errdex_catalog.generation as it is replayed.
TEST(ServePostgres, AServerOnAStandbySeesThePrimarysWritesByPolling) {
  if (!testing::TestingPostgres()) GTEST_SKIP() << "PostgreSQL only";
  testing::TempDir dir;
  std::string db = dir.Catalog();
  ASSERT_EQ(IndexModule(dir, "raise ValueError('first')\n", db), 0);
  std::string script = (testing::SourceDir() / "tests" / "pg_server.sh").string();
  std::string out = (dir.path() / "standby").string();
  testing::CommandResult started = testing::RunCommand(
      "sh '" + script + "' standby \"$ERRDEX_TEST_PG\" '" + out + "' 2>&1");
  ASSERT_EQ(started.exit_code, 0) << started.out;
  std::string socket = testing::ReadFileOrEmpty(out);
  while (!socket.empty() && socket.back() == '\n') socket.pop_back();
  struct StopStandby {
    std::string script, out;
    ~StopStandby() { testing::RunCommand("sh '" + script + "' stop-standby '" + out + "' 2>&1"); }
  } stop{script, out};
  // The same database, on the standby's socket.
  size_t name = db.find(":///") + 4;
  std::string standby = "postgresql:///" + db.substr(name, db.find('?') - name) +
                        "?host=" + socket + "&user=postgres";
  ServeOptions options = Watching(standby, 1, 2000);
  {
    Running server(options);
    httplib::Client c("127.0.0.1", server.port());
    c.set_read_timeout(10, 0);
    auto res = c.Get("/healthz");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
    EXPECT_EQ(json::parse(res->body)["watch"], "polling") << res->body;
    std::string second = "/api/errors/" + ErrorId("t/l", "ValueError", "second");
    res = c.Get(second);
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 404);
    ASSERT_EQ(IndexModule(dir, "raise ValueError('second')\n", db), 0);
    Clock::time_point committed = Clock::now();
    int64_t seen = MsUntil200(c, second, committed, std::chrono::milliseconds(8000));
    EXPECT_GE(seen, 0) << "the standby's server never saw the primary's write";
    std::cout << "a write on the primary served by the standby's server after " << seen
              << " ms (polling every " << options.catalog_poll_ms << " ms)\n";
  }
}

TEST_F(ServerTest, ExportWritesEveryPageAsStaticFiles) {
  testing::TempDir out;
  Result<ExportSummary> s = ExportSite(db_, out.path().string());
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->errors, 3);
  fs::path page = out.path() / "errors" / (HostileId() + ".html");
  ASSERT_TRUE(fs::exists(page));
  std::string html = testing::ReadFileOrEmpty(page);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("href=\"/api/errors/" + HostileId() + ".json\""), std::string::npos);
  json j = json::parse(
      testing::ReadFileOrEmpty(out.path() / "api" / "errors" / (HostileId() + ".json")));
  EXPECT_EQ(j["id"], HostileId());
  EXPECT_EQ(json::parse(testing::ReadFileOrEmpty(out.path() / "search-index.json")).size(), 3u);
  for (const char* f : {"index.html", "static/style.css", "static/app.js", "api/openapi.json",
                        "libraries/test/lib.html", "families/invalid-choice.html",
                        "api/families.json", "api/libraries.json"}) {
    EXPECT_TRUE(fs::exists(out.path() / f)) << f;
  }
  EXPECT_NE(testing::ReadFileOrEmpty(out.path() / "index.html").find("data-static=\"1\""),
            std::string::npos);
}

// A static host's files are case-sensitive where the live server's ids are
// not: the export names and links every error in lowercase, and its
// 404.html (what static hosts serve for a missing file) carries the script
// that sends an id in capitals to its file.
TEST_F(ServerTest, TheExportSpellsIdsInLowercaseAndMapsCapitals) {
  testing::TempDir out;
  Result<ExportSummary> s = ExportSite(db_, out.path().string());
  ASSERT_TRUE(s.has_value()) << s.error().message;
  std::string missing = testing::ReadFileOrEmpty(out.path() / "404.html");
  EXPECT_NE(missing.find("<h1 id=\"not-found\">"), std::string::npos) << missing;
  EXPECT_NE(missing.find("<script src=\"/static/app.js\" defer></script>"), std::string::npos);
  EXPECT_NE(missing.find("<footer class=\"site\"><p>Indexed on"), std::string::npos);
  int pages = 0;
  for (const char* dir : {"errors", "api/errors"}) {
    for (const fs::directory_entry& f : fs::directory_iterator(out.path() / dir)) {
      std::string id = f.path().stem().string();
      EXPECT_TRUE(IsErrorId(id)) << f.path();
      ++pages;
    }
  }
  EXPECT_EQ(pages, 2 * s->errors);
  std::regex link("href=\"/(api/)?errors/([^\".]*)\\.(html|json)\"");
  int links = 0;
  for (const fs::directory_entry& f : fs::recursive_directory_iterator(out.path())) {
    if (f.path().extension() != ".html") continue;
    std::string html = testing::ReadFileOrEmpty(f.path());
    for (auto it = std::sregex_iterator(html.begin(), html.end(), link);
         it != std::sregex_iterator(); ++it) {
      EXPECT_TRUE(IsErrorId((*it)[2].str())) << f.path() << ": " << it->str();
      EXPECT_TRUE(fs::exists(out.path() / ((*it)[1].str() + "errors") /
                             ((*it)[2].str() + "." + (*it)[3].str())))
          << f.path() << ": " << it->str();
      ++links;
    }
  }
  EXPECT_GT(links, 0);
  // The live server reads capitals and answers with the lowercase links.
  std::string upper = HostileId();
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto res = Client().Get("/errors/" + upper);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_NE(res->body.find("href=\"/api/errors/" + HostileId() + "\""), std::string::npos);
  res = Client().Get("/nothing");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->body.find("app.js"), std::string::npos);  // no script on a live 404
}

}  // namespace
}  // namespace errdex::web
