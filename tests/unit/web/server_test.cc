// The website and JSON API over HTTP on an ephemeral loopback port, and the
// static export: routes, status codes, escaping of hostile templates,
// caching headers, gzip, limits, path traversal.
#include "web/server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/error_id.h"
#include "test_util.h"
#include "web/export.h"

namespace errdex::web {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kCommit = "0123456789abcdef0123456789abcdef01234567";
constexpr const char* kHostile = "<script>alert(1)</script> & 'quoted' \"double\"";

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
    db_ = (dir_->path() / "c.db").string();
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
  EXPECT_EQ(j["report_issue_url"].get<std::string>().rfind(
                "https://github.com/test/lib/issues/new?title=ValueError%3A%20%3Cscript%3E", 0),
            0u);
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
       {"/api/errors/{id}", "/api/match", "/api/search", "/api/libraries", "/api/families"}) {
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

TEST(Serve, ReindexingWhileServingIsSeenWithinASecond) {
  testing::TempDir dir;
  dir.Write("lib/m.py", "raise ValueError('first')\n");
  std::string db = (dir.path() / "c.db").string();
  auto index = [&] {
    return testing::RunErrdex(
               {"--db", db, "index", (dir.path() / "lib").string(), "--name", "t/l", "-q"})
        .exit_code;
  };
  ASSERT_EQ(index(), 0);
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
  dir.Write("lib/m.py", "raise ValueError('second')\n");
  ASSERT_EQ(index(), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  res = c.Get(second);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << "a cached 404 outlived the catalog it came from";
  (*s)->Stop();
  t.join();
}

TEST(Serve, AMissingCatalogIsRefusedNotCreated) {
  testing::TempDir dir;
  ServeOptions options;
  options.db = (dir.path() / "none.db").string();
  options.port = 0;
  Result<std::unique_ptr<Server>> s = Server::Create(options);
  EXPECT_FALSE(s.has_value());
  EXPECT_FALSE(fs::exists(options.db) && fs::file_size(options.db) > 0);
}

TEST_F(ServerTest, ExportWritesEveryPageAsStaticFiles) {
  testing::TempDir out;
  Result<ExportSummary> s = ExportSite(db_, out.path().string());
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->errors, 2);
  fs::path page = out.path() / "errors" / (HostileId() + ".html");
  ASSERT_TRUE(fs::exists(page));
  std::string html = testing::ReadFileOrEmpty(page);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("href=\"/api/errors/" + HostileId() + ".json\""), std::string::npos);
  json j = json::parse(
      testing::ReadFileOrEmpty(out.path() / "api" / "errors" / (HostileId() + ".json")));
  EXPECT_EQ(j["id"], HostileId());
  EXPECT_EQ(json::parse(testing::ReadFileOrEmpty(out.path() / "search-index.json")).size(), 2u);
  for (const char* f : {"index.html", "static/style.css", "static/app.js", "api/openapi.json",
                        "libraries/test/lib.html", "families/invalid-choice.html",
                        "api/families.json", "api/libraries.json"}) {
    EXPECT_TRUE(fs::exists(out.path() / f)) << f;
  }
  EXPECT_NE(testing::ReadFileOrEmpty(out.path() / "index.html").find("data-static=\"1\""),
            std::string::npos);
}

}  // namespace
}  // namespace errdex::web
