// Paged, ordered and filtered listings of a library's and a family's errors
// (pages and /api/.../errors), hostile parameters, the static export of
// every page, word search through /api/match, and the OpenAPI document
// checked against itself and against the answers it describes.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "test_util.h"
#include "web/export.h"
#include "web/site.h"

namespace errdex::web {
namespace {

using errdex::testing::TempDir;
using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kTypes[] = {"ValueError", "KeyError", "TypeError", "RuntimeError"};

// 250 errors over three files, four exception types; the first ten raised
// at three sites each (the very first at twelve, more than a listing
// shows), so that the order by sites has something to order;
// five internal ones (an assertion), and one message for word search.
void WriteLibrary(TempDir& dir) {
  for (int f = 0; f < 3; ++f) {
    std::string src;
    for (int i = f; i < 250; i += 3) {
      std::string type = kTypes[i % 4];
      int copies = i == 0 ? 12 : i < 10 ? 3 : 1;
      for (int c = 0; c < copies; ++c) {
        src += "def f" + std::to_string(i) + "_" + std::to_string(c) + "(x):\n";
        src += "    raise " + type + "(f\"problem number " + std::to_string(i) + " with {x}\")\n\n";
      }
    }
    dir.Write("lib/m" + std::to_string(f) + ".py", src);
  }
  std::string extra;
  for (int i = 0; i < 5; ++i) {
    extra += "def inv" + std::to_string(i) + "(n):\n";
    extra += "    raise AssertionError(f\"broken invariant " + std::to_string(i) + ": {n}\")\n\n";
  }
  extra += "def shapes(a, b):\n";
  extra += "    raise ValueError(f\"operands differ: shape mismatch between {a} and {b}\")\n";
  dir.Write("lib/z.py", extra);
}

class Listing : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    WriteLibrary(*dir_);
    db_ = new std::string(dir_->Catalog());
    testing::CommandResult r = testing::RunErrdex(
        {"--db", *db_, "index", (dir_->path() / "lib").string(), "--name", "t/big", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete db_;
    delete dir_;
  }
  void SetUp() override {
    Result<std::unique_ptr<Site>> site = Site::Open(*db_, Links{});
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
  }
  Page Get(const std::string& path, Query q = {}) { return site_->Get(path, q); }
  json Api(const std::string& path, Query q = {}) {
    Page p = Get(path, std::move(q));
    EXPECT_EQ(p.status, 200) << path << ": " << p.body;
    return json::parse(p.body, nullptr, false);
  }
  // Every id of a listing, read page by page until an empty one.
  std::vector<std::string> AllIds(const std::string& path, Query q) {
    std::vector<std::string> ids;
    for (int page = 1; page < 100; ++page) {
      q.erase("page");
      q.emplace("page", std::to_string(page));
      json j = Api(path, q);
      if (j["items"].empty()) break;
      for (const json& e : j["items"]) ids.push_back(e["id"]);
    }
    return ids;
  }

  static TempDir* dir_;
  static std::string* db_;
  std::unique_ptr<Site> site_;
};

TempDir* Listing::dir_ = nullptr;
std::string* Listing::db_ = nullptr;

size_t Count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

TEST_F(Listing, ALibraryPageShowsOnePageAndLinksTheOthers) {
  Page first = Get("/libraries/t/big");
  ASSERT_EQ(first.status, 200);
  EXPECT_NE(first.body.find("256 errors"), std::string::npos);
  EXPECT_EQ(Count(first.body, "<li><a href=\"/errors/"), 100u);
  EXPECT_NE(first.body.find("page 1 of 3"), std::string::npos);
  EXPECT_NE(first.body.find("href=\"/libraries/t/big?page=2\""), std::string::npos);
  EXPECT_EQ(first.body.find("rel=\"prev\""), std::string::npos);
  Page last = Get("/libraries/t/big", {{"page", "3"}});
  EXPECT_EQ(Count(last.body, "<li><a href=\"/errors/"), 56u);
  EXPECT_NE(last.body.find("href=\"/libraries/t/big?page=2\""), std::string::npos);
  EXPECT_EQ(last.body.find("rel=\"next\""), std::string::npos);
  // A page past the end (a link kept from before a re-index) is the last.
  Page past = Get("/libraries/t/big", {{"page", "9"}});
  EXPECT_EQ(past.status, 200);
  EXPECT_NE(past.body.find("page 3 of 3"), std::string::npos);
  // Most sites first: the errors raised three times lead.
  size_t row = first.body.find("<li><a href=\"/errors/");
  EXPECT_NE(first.body.find("(12 sites)", row), std::string::npos);
  EXPECT_LT(first.body.find("(12 sites)", row), first.body.find("</li>", row));
}

TEST_F(Listing, LinksKeepTheOrderTheFiltersAndThePageSize) {
  Page p = Get("/libraries/t/big", {{"type", "KeyError"}, {"sort", "file"}, {"per", "10"}});
  ASSERT_EQ(p.status, 200) << p.body;
  EXPECT_NE(p.body.find("63 errors of this kind"), std::string::npos);
  EXPECT_NE(p.body.find("page 1 of 7"), std::string::npos);
  EXPECT_NE(p.body.find("href=\"/libraries/t/big?type=KeyError&amp;sort=file&amp;per=10&amp;page=2\""),
            std::string::npos)
      << p.body;
  // Another order keeps the filter and starts again at page 1.
  EXPECT_NE(p.body.find("href=\"/libraries/t/big?type=KeyError&amp;sort=type&amp;per=10\""),
            std::string::npos);
  // Dropping the filter keeps the order.
  EXPECT_NE(p.body.find("href=\"/libraries/t/big?sort=file&amp;per=10\""), std::string::npos);
  EXPECT_EQ(Count(p.body, "<li><a href=\"/errors/"), 10u);
}

TEST_F(Listing, TheApiPagesThroughEveryErrorOnce) {
  json j = Api("/api/libraries/t/big/errors", {{"per", "7"}});
  EXPECT_EQ(j["total"], 256);
  EXPECT_EQ(j["page"], 1);
  EXPECT_EQ(j["per"], 7);
  EXPECT_EQ(j["pages"], 37);
  ASSERT_EQ(j["items"].size(), 7u);
  // The first, at twelve sites, names ten and counts them all.
  EXPECT_EQ(j["items"][0]["sites"].size(), 10u);
  EXPECT_EQ(j["items"][0]["sites_total"], 12);
  EXPECT_EQ(j["items"][1]["sites"].size(), 3u);
  EXPECT_EQ(j["items"][1]["sites_total"], 3);
  EXPECT_TRUE(j["items"][0].contains("family"));
  EXPECT_TRUE(j["items"][0]["labels"].is_array());
  for (const char* sort : {"sites", "type", "family", "file"}) {
    std::vector<std::string> ids = AllIds("/api/libraries/t/big/errors", {{"per", "50"}, {"sort", sort}});
    EXPECT_EQ(ids.size(), 256u) << sort;
    EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 256u) << sort;
  }
  json past = Api("/api/libraries/t/big/errors", {{"page", "99"}});
  EXPECT_EQ(past["total"], 256);
  EXPECT_TRUE(past["items"].empty());
}

TEST_F(Listing, OrdersAreWhatTheyAreNamed) {
  json by_type = Api("/api/libraries/t/big/errors", {{"sort", "type"}, {"per", "500"}});
  std::string prev;
  for (const json& e : by_type["items"]) {
    EXPECT_LE(prev, e["exception"].get<std::string>());
    prev = e["exception"];
  }
  json by_file = Api("/api/libraries/t/big/errors", {{"sort", "file"}, {"per", "500"}});
  prev.clear();
  for (const json& e : by_file["items"]) {
    EXPECT_LE(prev, e["sites"][0]["path"].get<std::string>());
    prev = e["sites"][0]["path"];
  }
  json by_sites = Api("/api/libraries/t/big/errors", {{"per", "500"}});
  int64_t most = 99;
  for (const json& e : by_sites["items"]) {
    EXPECT_LE(e["sites_total"].get<int64_t>(), most);
    most = e["sites_total"];
  }
  json by_family = Api("/api/libraries/t/big/errors", {{"sort", "family"}, {"per", "500"}});
  prev.clear();
  for (const json& e : by_family["items"]) {
    std::string f = e["family"].is_string() ? e["family"].get<std::string>() : "~";
    EXPECT_LE(prev, f);
    prev = f;
  }
}

TEST_F(Listing, FiltersByTypeLabelAndFamily) {
  json internal = Api("/api/libraries/t/big/errors", {{"label", "internal"}});
  ASSERT_GE(internal["total"].get<int>(), 5);
  for (const json& e : internal["items"]) {
    EXPECT_NE(std::find(e["labels"].begin(), e["labels"].end(), "internal"), e["labels"].end());
  }
  json all = Api("/api/libraries/t/big/errors", {{"per", "1"}});
  std::string family = all["items"][0]["family"];
  json in_family = Api("/api/libraries/t/big/errors", {{"family", family}, {"per", "500"}});
  ASSERT_GT(in_family["total"].get<int>(), 0);
  for (const json& e : in_family["items"]) EXPECT_EQ(e["family"], family);
  // The family's own listing, across libraries, agrees.
  json family_list = Api("/api/families/" + family + "/errors", {{"per", "500"}});
  EXPECT_EQ(family_list["total"], in_family["total"]);
  json typed = Api("/api/families/" + family + "/errors", {{"type", "KeyError"}});
  for (const json& e : typed["items"]) EXPECT_EQ(e["exception"], "KeyError");
  Page html = Get("/families/" + family, {{"sort", "type"}});
  ASSERT_EQ(html.status, 200);
  EXPECT_NE(html.body.find("t/big"), std::string::npos);
  EXPECT_EQ(html.body.find(" 1 libraries"), std::string::npos);
  EXPECT_NE(html.body.find("across 1 library."), std::string::npos) << html.body.substr(0, 3000);
  // An unknown type is an empty listing, not an error.
  json none = Api("/api/libraries/t/big/errors", {{"type", "NoSuchError"}});
  EXPECT_EQ(none["total"], 0);
  EXPECT_EQ(none["pages"], 1);
  EXPECT_NE(Get("/libraries/t/big", {{"type", "NoSuchError"}}).body.find("No error here matches"),
            std::string::npos);
}

TEST_F(Listing, HostileParametersAre400sNeverCrashes) {
  const Query bad[] = {
      {{"page", "0"}},          {{"page", "-1"}},        {{"page", "2x"}},
      {{"page", ""}},           {{"page", "99999999999999999999"}},
      {{"per", "0"}},           {{"per", "501"}},        {{"per", "1e3"}},
      {{"sort", "bogus"}},      {{"sort", "<script>"}},  {{"label", "nope"}},
      {{"family", "../x"}},     {{"family", "no-such-family"}},
      {{"type", ""}},           {{"type", std::string("a\nb")}},
      {{"type", std::string(201, 'x')}},
  };
  for (const Query& q : bad) {
    std::string what = q.begin()->first + "=" + q.begin()->second;
    Page api = Get("/api/libraries/t/big/errors", q);
    EXPECT_EQ(api.status, 400) << what;
    json j = json::parse(api.body, nullptr, false);
    ASSERT_TRUE(j.is_object()) << what;
    EXPECT_NE(j["error"].get<std::string>().find(q.begin()->first), std::string::npos) << what;
    Page html = Get("/libraries/t/big", q);
    EXPECT_EQ(html.status, 400) << what;
    EXPECT_EQ(html.body.find("<script>"), std::string::npos) << what;
    EXPECT_EQ(Get("/api/families/invalid-choice/errors", q).status, 400) << what;
  }
  EXPECT_EQ(Get("/api/libraries/t/nope/errors").status, 404);
  EXPECT_EQ(Get("/api/libraries/t/big/errors", {{"version", "9.9"}}).status, 404);
  EXPECT_EQ(Get("/api/families/no-such-family/errors").status, 404);
  EXPECT_EQ(Get("/api/families/NOPE/errors").status, 404);
  EXPECT_EQ(Get("/api/libraries/errors").status, 404);
  EXPECT_EQ(Get("/api/families//errors").status, 404);
  EXPECT_EQ(Get("/api/families/invalid-choice/errors", {{"family", "invalid-value"}}).status, 400);
}

TEST_F(Listing, FilterValuesAreEscapedInPagesAndLinks) {
  std::string hostile = "<script>alert(1)</script>\"'&";
  Page p = Get("/libraries/t/big", {{"type", hostile}});
  ASSERT_EQ(p.status, 200);
  EXPECT_EQ(p.body.find("<script>alert"), std::string::npos);
  EXPECT_NE(p.body.find("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"), std::string::npos)
      << p.body;
  EXPECT_NE(p.body.find("type=%3Cscript%3Ealert%281%29%3C%2Fscript%3E%22%27%26"), std::string::npos)
      << p.body;
}

TEST_F(Listing, TheExportWritesEveryPageOfAListing) {
  TempDir out;
  Result<ExportSummary> s = ExportSite(*db_, out.path().string());
  ASSERT_TRUE(s.has_value()) << s.error().message;
  fs::path lib = out.path() / "libraries" / "t";
  ASSERT_TRUE(fs::exists(lib / "big.html"));
  ASSERT_TRUE(fs::exists(lib / "big" / "page-3.html"));
  EXPECT_FALSE(fs::exists(lib / "big" / "page-4.html"));
  std::string first = testing::ReadFileOrEmpty(lib / "big.html");
  EXPECT_NE(first.find("href=\"/libraries/t/big/page-2.html\""), std::string::npos);
  EXPECT_EQ(first.find("?page="), std::string::npos);
  EXPECT_EQ(first.find("sort="), std::string::npos);
  std::string second = testing::ReadFileOrEmpty(lib / "big" / "page-2.html");
  EXPECT_NE(second.find("href=\"/libraries/t/big.html\""), std::string::npos);
}

TEST_F(Listing, WordsFindMessagesTheMatcherCannot) {
  std::string id;
  for (const json& e : Api("/api/search", {{"q", "shape mismatch"}})) id = e["id"];
  ASSERT_FALSE(id.empty());
  for (const char* words : {"shape mismatch", "mismatch shape", "Shape Mismatch operands"}) {
    Page p = site_->Match(words, "text/plain");
    ASSERT_EQ(p.status, 200) << p.body;
    json j = json::parse(p.body);
    ASSERT_FALSE(j["matches"].empty()) << words;
    EXPECT_EQ(j["matches"][0]["id"], id) << words;
    EXPECT_EQ(j["matches"][0]["page"], "/errors/" + id);
    EXPECT_TRUE(j["matches"][0]["values"].is_object());
  }
  // A message the matcher reads still comes first, with its values.
  Page p = site_->Match("ValueError: problem number 4 with 17", "text/plain");
  json j = json::parse(p.body);
  ASSERT_FALSE(j["matches"].empty());
  EXPECT_EQ(j["matches"][0]["found_by"], "template");
  EXPECT_EQ(j["matches"][0]["values"]["x"], "17");
  EXPECT_EQ(j["matches"][0]["template"], "problem number 4 with {x}");
  Page nothing = site_->Match("zzyzx qqqq", "text/plain");
  EXPECT_TRUE(json::parse(nothing.body)["matches"].empty());
}

// The part of OpenAPI 3.0's schema language the document uses; each
// failure is the JSON path where the answer breaks the schema.
class SchemaCheck {
 public:
  explicit SchemaCheck(const json& doc) : doc_(doc) {}
  const json& Resolve(const json& schema) const {
    if (!schema.contains("$ref")) return schema;
    std::string ref = schema["$ref"];
    return doc_.at(json::json_pointer(ref.substr(1)));
  }
  void Check(const json& schema_in, const json& v, const std::string& at) {
    const json& s = Resolve(schema_in);
    if (s.contains("allOf")) {
      for (const json& part : s["allOf"]) Check(part, v, at);
    }
    if (v.is_null()) {
      if (s.contains("type") && !s.value("nullable", false)) problems.push_back(at + ": null");
      return;
    }
    std::string type = s.value("type", "");
    bool ok = type.empty() || (type == "object" && v.is_object()) ||
              (type == "array" && v.is_array()) || (type == "string" && v.is_string()) ||
              (type == "integer" && v.is_number_integer()) ||
              (type == "number" && v.is_number()) || (type == "boolean" && v.is_boolean());
    if (!ok) {
      problems.push_back(at + ": not " + type);
      return;
    }
    if (s.contains("enum") && std::find(s["enum"].begin(), s["enum"].end(), v) == s["enum"].end()) {
      problems.push_back(at + ": not in enum");
    }
    if (s.contains("minimum") && v.is_number() && v.get<double>() < s["minimum"].get<double>()) {
      problems.push_back(at + ": under minimum");
    }
    if (s.contains("maximum") && v.is_number() && v.get<double>() > s["maximum"].get<double>()) {
      problems.push_back(at + ": over maximum");
    }
    if (v.is_object()) {
      for (const json& r : s.value("required", json::array())) {
        if (!v.contains(r.get<std::string>())) problems.push_back(at + ": no " + r.get<std::string>());
      }
      for (const auto& [k, item] : v.items()) {
        if (s.contains("properties") && s["properties"].contains(k)) {
          Check(s["properties"][k], item, at + "." + k);
        } else if (s.contains("additionalProperties") && s["additionalProperties"].is_object()) {
          Check(s["additionalProperties"], item, at + "." + k);
        }
      }
    }
    if (v.is_array() && s.contains("items")) {
      for (size_t i = 0; i < v.size(); ++i) Check(s["items"], v[i], at + "[" + std::to_string(i) + "]");
    }
  }
  std::vector<std::string> problems;

 private:
  const json& doc_;
};

// Every "$ref" anywhere in `j`.
void Refs(const json& j, std::vector<std::string>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      if (k == "$ref" && v.is_string()) out.push_back(v);
      Refs(v, out);
    }
  } else if (j.is_array()) {
    for (const json& v : j) Refs(v, out);
  }
}

TEST_F(Listing, TheOpenApiDocumentIsWholeAndTheAnswersFitIt) {
  json doc = Api("/api/openapi.json");
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc["openapi"], "3.0.3");
  std::vector<std::string> refs;
  Refs(doc, refs);
  for (const std::string& r : refs) {
    ASSERT_EQ(r.rfind("#/components/", 0), 0u) << r;
    EXPECT_TRUE(doc.contains(json::json_pointer(r.substr(1)))) << r;
  }
  std::set<std::string> ids;
  SchemaCheck check(doc);
  for (const auto& [path, item] : doc["paths"].items()) {
    for (const auto& [method, op] : item.items()) {
      ASSERT_TRUE(op.contains("operationId")) << method << " " << path;
      EXPECT_TRUE(ids.insert(op["operationId"].get<std::string>()).second) << op["operationId"];
      ASSERT_FALSE(op["responses"].empty()) << path;
      for (const auto& [code, r] : op["responses"].items()) {
        EXPECT_TRUE(r.contains("description")) << path << " " << code;
      }
      // Every {name} of the path is a declared path parameter.
      for (size_t at = path.find('{'); at != std::string::npos; at = path.find('{', at + 1)) {
        std::string name = path.substr(at + 1, path.find('}', at) - at - 1);
        bool declared = false;
        for (const json& p : op.value("parameters", json::array())) {
          const json& d = check.Resolve(p);
          declared |= d["name"] == name && d["in"] == "path" && d.value("required", false);
        }
        EXPECT_TRUE(declared) << path << " " << name;
      }
    }
  }
  auto schema = [&](const std::string& path, const std::string& method, const std::string& code) {
    return doc["paths"][path][method]["responses"][code]["content"]["application/json"]["schema"];
  };
  std::string some_id = Api("/api/libraries/t/big/errors")["items"][0]["id"];
  std::string family = Api("/api/libraries/t/big/errors")["items"][0]["family"];
  struct Answer {
    std::string templ, route;
    Query query;
  };
  const Answer answers[] = {
      {"/api/libraries/{owner}/{name}/errors", "/api/libraries/t/big/errors", {}},
      {"/api/libraries/{owner}/{name}/errors", "/api/libraries/t/big/errors",
       {{"label", "internal"}, {"sort", "family"}}},
      {"/api/families/{slug}/errors", "/api/families/" + family + "/errors", {{"per", "3"}}},
      {"/api/libraries", "/api/libraries", {}},
      {"/api/families", "/api/families", {}},
      {"/api/search", "/api/search", {{"q", "problem"}}},
      {"/api/errors/{id}", "/api/errors/" + some_id, {}},
  };
  for (const Answer& a : answers) {
    check.Check(schema(a.templ, "get", "200"), Api(a.route, a.query), a.route);
  }
  Page bad = Get("/api/libraries/t/big/errors", {{"per", "0"}});
  check.Check(schema("/api/libraries/{owner}/{name}/errors", "get", "400"),
              json::parse(bad.body), "400");
  for (const char* text : {"ValueError: problem number 4 with 17", "shape mismatch"}) {
    Page m = site_->Match(text, "text/plain");
    check.Check(schema("/api/match", "post", "200"), json::parse(m.body), text);
  }
  EXPECT_TRUE(check.problems.empty()) << ::testing::PrintToString(check.problems);
}

}  // namespace
}  // namespace errdex::web
