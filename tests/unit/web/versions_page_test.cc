// Pages and API of a library indexed at several versions.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "analyze/analyze.h"
#include "catalog/catalog.h"
#include "core/error_id.h"
#include "test_util.h"
#include "web/site.h"

namespace errdex::web {
namespace {

using errdex::testing::TempDir;
using json = nlohmann::json;

errdex::Site Raise(int line, const std::string& text) {
  errdex::Site s;
  s.exception = s.exception_written = "ValueError";
  s.kind = SiteKind::kRaise;
  s.message = Template::Literal(text);
  s.language = "python";
  s.path = "pkg/core.py";
  s.line = s.end_line = line;
  s.column = 5;
  s.function = "check";
  s.statement = "raise ValueError(...)";
  return s;
}

catalog::SnapshotInfo Version(const std::string& rev, const std::string& date) {
  catalog::SnapshotInfo i;
  i.library = "o/r";
  i.url = "https://github.com/o/r";
  i.rev = rev;
  i.commit = std::string(40, rev.back());
  i.date = date;
  i.kind = "git";
  return i;
}

// 1.0 and 1.1 raise "negative value" (at lines 3, then 6); main rewords it.
// A version name with markup checks the escaping.
class VersionsPage : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = dir_.Catalog();
    Result<catalog::Catalog> cat = catalog::Catalog::Open(db_, catalog::OpenMode::kReadWrite);
    ASSERT_TRUE(cat);
    auto write = [&](const std::string& rev, const std::string& date, int line,
                     const std::string& text) {
      Extraction x;
      x.sites.push_back(Raise(line, text));
      x.files_scanned = 1;
      ASSERT_TRUE(cat->WriteSnapshot(Version(rev, date), x));
    };
    write("1.0", "2023-01-01T00:00:00+00:00", 3, "negative value");
    write("1.1", "2023-02-01T00:00:00+00:00", 6, "negative value");
    write("main<b>", "2023-03-01T00:00:00+00:00", 6, "value must not be negative");
    ASSERT_TRUE(analyze::AnalyzeCatalog(*cat, "o/r"));
    old_ = ErrorId("o/r", "ValueError", "negative value");
    new_ = ErrorId("o/r", "ValueError", "value must not be negative");
    Result<std::unique_ptr<Site>> site = Site::Open(db_, Links{});
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
  }

  Page Get(const std::string& path, Query q = {}) { return site_->Get(path, q); }

  TempDir dir_;
  std::string db_;
  std::string old_;
  std::string new_;
  std::unique_ptr<Site> site_;
};

TEST_F(VersionsPage, AnErrorPageShowsItsVersionsAndWordings) {
  Page p = Get("/errors/" + old_);
  ASSERT_EQ(p.status, 200);
  EXPECT_NE(p.body.find("Source in 1.1"), std::string::npos);
  EXPECT_NE(p.body.find("Raised in <b>1.0\u20131.1</b>: 2 of the 3 indexed versions"),
            std::string::npos)
      << p.body;
  EXPECT_EQ(p.body.find("main<b>"), std::string::npos);
  EXPECT_NE(p.body.find("/errors/" + old_ + "?version=1.0"), std::string::npos);
  EXPECT_NE(p.body.find("Reworded in <code>main&lt;b&gt;</code> as <a href=\"/errors/" + new_),
            std::string::npos);
  Page n_at = Get("/errors/" + new_);
  EXPECT_NE(n_at.body.find("/errors/" + new_ + "?version=main%3Cb%3E"), std::string::npos);
  Page n = Get("/errors/" + new_);
  EXPECT_NE(n.body.find("Until <code>1.1</code> it read <a href=\"/errors/" + old_),
            std::string::npos);
}

TEST_F(VersionsPage, VersionChoosesTheSites) {
  Page at = Get("/errors/" + old_, {{"version", "1.0"}});
  EXPECT_NE(at.body.find("<code>pkg/core.py:3</code>"), std::string::npos);
  Page api = Get("/api/errors/" + old_, {{"version", "1.0"}});
  json j = json::parse(api.body);
  EXPECT_EQ(j["versions"]["shown"], "1.0");
  EXPECT_EQ(j["sites"][0]["line"], 3);
  EXPECT_EQ(j["versions"]["each"].size(), 3u);
  EXPECT_EQ(j["versions"]["each"][2]["sites"], 0);
  EXPECT_EQ(j["analysis"]["reworded_to"][0]["id"], new_);
  Page absent = Get("/api/errors/" + old_, {{"version", "main<b>"}});
  json a = json::parse(absent.body);
  EXPECT_EQ(absent.status, 200);
  EXPECT_TRUE(a["sites"].empty());
  EXPECT_EQ(a["versions"]["shown"], "");
  EXPECT_EQ(Get("/api/errors/" + old_, {{"version", std::string(300, 'v')}}).status, 400);
  EXPECT_EQ(Get("/api/errors/" + old_, {{"version", "9.9"}}).status, 404);
  EXPECT_EQ(Get("/errors/" + old_, {{"version", "9.9"}}).status, 404);
}

TEST_F(VersionsPage, TheLibraryPageListsVersions) {
  Page lib = Get("/libraries/o/r");
  ASSERT_EQ(lib.status, 200);
  EXPECT_NE(lib.body.find("2 errors (1 of them only in versions before main&lt;b&gt;)"),
            std::string::npos)
      << lib.body;
  EXPECT_NE(lib.body.find("<table class=\"versions\">"), std::string::npos);
  Page at = Get("/libraries/o/r", {{"version", "main<b>"}});
  EXPECT_NE(at.body.find("1 error raised in main&lt;b&gt;"), std::string::npos) << at.body;
  EXPECT_EQ(Get("/libraries/o/r", {{"version", "9.9"}}).status, 404);
  json libs = json::parse(Get("/api/libraries").body);
  ASSERT_EQ(libs[0]["versions"].size(), 3u);
  EXPECT_EQ(libs[0]["versions"][0]["rev"], "1.0");
  EXPECT_EQ(libs[0]["versions"][2]["rev"], "main<b>");
}

}  // namespace
}  // namespace errdex::web
