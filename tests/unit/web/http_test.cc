// The server's request path over bytes, no sockets (ServeBytes): parsing
// limits and strictness, pipelining, ranges, methods, HEAD, gzip.
#include "web/http.h"

#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "core/error_id.h"
#include "test_util.h"
#include "web/site.h"

namespace errdex::web {
namespace {

class HttpTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    dir_->Write("lib/m.py", "def f(stage):\n    raise ValueError(f'bad stage {stage}')\n");
    options_ = new ServeOptions();
    options_->db = dir_->Catalog();
    ASSERT_EQ(testing::RunErrdex({"--db", options_->db, "index", (dir_->path() / "lib").string(),
                                  "--name", "t/l", "-q"})
                  .exit_code,
              0);
    Result<std::unique_ptr<Handler>> h = Handler::Create(*options_, 1);
    ASSERT_TRUE(h.has_value()) << h.error().message;
    handler_ = h->release();
  }
  static void TearDownTestSuite() {
    delete handler_;
    delete options_;
    delete dir_;
  }
  static std::string Serve(const std::string& input) {
    return ServeBytes(*handler_, *options_, input);
  }
  static size_t Count(const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
  }

  static testing::TempDir* dir_;
  static ServeOptions* options_;
  static Handler* handler_;
};

testing::TempDir* HttpTest::dir_ = nullptr;
ServeOptions* HttpTest::options_ = nullptr;
Handler* HttpTest::handler_ = nullptr;

TEST_F(HttpTest, PipelinedRequestsAreAnsweredInOrderUntilClose) {
  // The identity the id hashes: values by kind, not by name.
  std::string id = ErrorId("t/l", "ValueError", "bad stage {str}");
  std::string out = Serve("GET /api/errors/" + id +
                          " HTTP/1.1\r\nHost: x\r\n\r\n"
                          "GET /api/libraries HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                          "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(Count(out, "HTTP/1.1 200 OK\r\n"), 2u) << out;
  EXPECT_LT(out.find(id), out.find("\"name\":\"t/l\""));
}

TEST_F(HttpTest, SmugglingShapesAreRefused) {
  for (const char* headers : {"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n",
                              "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n",
                              "Content-Length: 3\r\nContent-Length: 4\r\n",
                              "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
                              "Transfer-Encoding: xchunked\r\n"}) {
    std::string out = Serve(std::string("POST /api/match HTTP/1.1\r\nHost: x\r\n") + headers +
                            "\r\nabc\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(out.rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u) << headers << out;
    EXPECT_EQ(Count(out, "HTTP/1.1 "), 1u) << "a request after a refused one was answered";
  }
  EXPECT_EQ(Serve("GET / HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 400", 0), 0u) << "no Host";
  EXPECT_EQ(Serve("GET http://evil/ HTTP/1.1\r\nHost: x\r\n\r\n").rfind("HTTP/1.1 400", 0), 0u);
  EXPECT_EQ(Serve("GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n").rfind("HTTP/1.1 400", 0), 0u);
}

TEST_F(HttpTest, BodiesOverTheLimitAre413WhateverTheFraming) {
  std::string big(options_->max_body + 1, 'x');
  std::string out =
      Serve("POST /api/match HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(big.size()) +
            "\r\n\r\n");
  EXPECT_EQ(out.rfind("HTTP/1.1 413", 0), 0u) << "refused from the header alone";
  std::string chunked = "POST /api/match HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 20; ++i) chunked += "10000\r\n" + std::string(0x10000, 'x') + "\r\n";
  out = Serve(chunked);  // 1.25 MiB, unfinished: refused as the limit is crossed
  EXPECT_EQ(out.rfind("HTTP/1.1 413", 0), 0u) << out.substr(0, 200);
  EXPECT_NE(out.find("{\"error\":\"request body too large\",\"status\":413}"), std::string::npos);
  out = Serve("GET / HTTP/1.1\r\nHost: x\r\nX: " + std::string(options_->max_header, 'a') +
              "\r\n\r\n");
  EXPECT_EQ(out.rfind("HTTP/1.1 431", 0), 0u);
}

TEST_F(HttpTest, RangesAreIgnored) {
  std::string ranges = "bytes=0-";
  for (int i = 0; i < 500; ++i) ranges += ",0-";
  std::string out = Serve("GET /static/app.js HTTP/1.1\r\nHost: x\r\nRange: " + ranges +
                          "\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(out.rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  size_t body = out.size() - out.find("\r\n\r\n") - 4;
  EXPECT_EQ(body, Asset("/static/app.js")->body.size());
}

// Every route, asked with a method it does not take: a 405 with the methods
// it does take in Allow, never a 404; OPTIONS names them too.
TEST_F(HttpTest, AWrongMethodIs405WithAllowOnEveryRoute) {
  std::string id = ErrorId("t/l", "ValueError", "bad stage {str}");
  for (const std::string& path : std::vector<std::string>{
           "/", "/index.html", "/static/app.js", "/errors/" + id, "/api/errors/" + id,
           "/libraries/t/l", "/families/invalid-value", "/api/openapi.json", "/api/search?q=x",
           "/api/libraries", "/api/families", "/healthz", "/metrics"}) {
    for (const char* method : {"POST", "PUT", "DELETE", "PATCH"}) {
      std::string out = Serve(std::string(method) + " " + path +
                              " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
      EXPECT_EQ(out.rfind("HTTP/1.1 405", 0), 0u) << method << " " << path << "\n" << out;
      EXPECT_NE(out.find("\r\nAllow: GET, HEAD\r\n"), std::string::npos) << method << " " << path;
    }
    std::string out = Serve("OPTIONS " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(out.rfind("HTTP/1.1 204", 0), 0u) << path;
    EXPECT_NE(out.find("\r\nAllow: GET, HEAD, OPTIONS\r\n"), std::string::npos) << path;
  }
  for (std::string target : {"/api/match", "/api/match?top=3"}) {
    for (const char* method : {"GET", "HEAD", "PUT", "DELETE"}) {
      std::string out = Serve(std::string(method) + " " + target +
                              " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
      EXPECT_EQ(out.rfind("HTTP/1.1 405", 0), 0u) << method << " " << target << "\n" << out;
      EXPECT_NE(out.find("\r\nAllow: POST\r\n"), std::string::npos) << method << " " << target;
    }
  }
  std::string out = Serve("GET /api/match HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_NE(out.find("takes a POST"), std::string::npos) << out;
  out = Serve("OPTIONS /api/match HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_NE(out.find("\r\nAllow: POST, OPTIONS\r\n"), std::string::npos) << out;
  // A query string does not make the POST another route.
  std::string body = "ValueError: bad stage 7";
  out = Serve(
      "POST /api/match?top=3 HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body);
  EXPECT_EQ(out.rfind("HTTP/1.1 200", 0), 0u) << out;
}

// Ids are hex numbers: in capitals they name the same error, on its page and
// in the API, which answer with the id in its lowercase form.
TEST_F(HttpTest, ErrorIdsAreCaseInsensitive) {
  std::string id = ErrorId("t/l", "ValueError", "bad stage {str}");
  std::string upper = id;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  ASSERT_NE(upper, id);
  std::string json = Serve("GET /api/errors/" + upper + " HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(json.rfind("HTTP/1.1 200", 0), 0u) << json;
  EXPECT_NE(json.find("\"id\":\"" + id + "\""), std::string::npos) << json;
  std::string mixed = upper.substr(0, 8) + id.substr(8);
  std::string html = Serve("GET /errors/" + mixed + " HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(html.rfind("HTTP/1.1 200", 0), 0u) << html.substr(0, 300);
  EXPECT_NE(html.find("bad stage {stage}"), std::string::npos);
  std::string bad =
      Serve("GET /api/errors/" + upper.substr(0, 15) + "G HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(bad.rfind("HTTP/1.1 400", 0), 0u) << bad;
}

TEST_F(HttpTest, MethodsHeadOptionsAndGzip) {
  std::string out = Serve("DELETE / HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(out.rfind("HTTP/1.1 405", 0), 0u);
  EXPECT_NE(out.find("Allow: GET, HEAD\r\n"), std::string::npos);
  out = Serve("PUT /api/match HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
  EXPECT_NE(out.find("Allow: POST\r\n"), std::string::npos);
  out = Serve("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(out.rfind("HTTP/1.1 204", 0), 0u);
  std::string get = Serve("GET /static/app.js HTTP/1.1\r\nHost: x\r\n\r\n");
  std::string head = Serve("HEAD /static/app.js HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(head, get.substr(0, get.find("\r\n\r\n") + 4));
  out = Serve("GET /static/app.js HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br, gzip;q=0.5\r\n\r\n");
  EXPECT_NE(out.find("Content-Encoding: gzip\r\n"), std::string::npos);
  EXPECT_LT(out.size(), get.size());
  out = Serve("GET /static/app.js HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip;q=0\r\n\r\n");
  EXPECT_EQ(out.find("Content-Encoding"), std::string::npos);
  out = Serve("GET /api/search?q=bad+stage&limit=5 HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_NE(out.find("bad stage {stage}"), std::string::npos) << out;
  out = Serve(
      "POST /api/match HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
      "Transfer-Encoding: chunked\r\n\r\n9\r\nValueErro\r\n10\r\nr: bad stage 7\n \r\n0\r\n\r\n");
  EXPECT_NE(out.find("\"stage\":\"7\""), std::string::npos) << out;
}

}  // namespace
}  // namespace errdex::web
