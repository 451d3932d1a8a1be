// The HTML of pages built from records alone (no catalog): documentation
// URLs in a message become links, and nothing else of the text escapes
// the escaping.
#include "web/html.h"

#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/render.h"

namespace errdex::web {
namespace {

std::string Link(const std::string& href) {
  return "<a class=\"doc\" rel=\"nofollow noreferrer\" href=\"" + href + "\">" + href + "</a>";
}

TEST(EscapeWithLinks, LinksHttpAndHttpsUrls) {
  EXPECT_EQ(EscapeWithLinks("see https://docs.jax.dev/en/latest/errors.html for more"),
            "see " + Link("https://docs.jax.dev/en/latest/errors.html") + " for more");
  EXPECT_EQ(EscapeWithLinks("http://x.org"), Link("http://x.org"));
  EXPECT_EQ(EscapeWithLinks("no url here"), "no url here");
  // Two in one message, and one at the very start and end.
  EXPECT_EQ(EscapeWithLinks("https://a.org and https://b.org/x"),
            Link("https://a.org") + " and " + Link("https://b.org/x"));
}

TEST(EscapeWithLinks, TrailingPunctuationIsTheSentences) {
  EXPECT_EQ(EscapeWithLinks("See https://x.org/a."), "See " + Link("https://x.org/a") + ".");
  EXPECT_EQ(EscapeWithLinks("at https://x.org/a, then"), "at " + Link("https://x.org/a") + ", then");
  EXPECT_EQ(EscapeWithLinks("(see https://x.org/a)."), "(see " + Link("https://x.org/a") + ").");
  EXPECT_EQ(EscapeWithLinks("https://x.org/a?!;:"), Link("https://x.org/a") + "?!;:");
  EXPECT_EQ(EscapeWithLinks("[https://x.org/a]"), "[" + Link("https://x.org/a") + "]");
  // A bracket the URL opened is its own.
  EXPECT_EQ(EscapeWithLinks("https://en.wikipedia.org/wiki/Set_(mathematics)."),
            Link("https://en.wikipedia.org/wiki/Set_(mathematics)") + ".");
}

TEST(EscapeWithLinks, AmpersandsAndQuotesAreEscapedInTheHrefToo) {
  EXPECT_EQ(EscapeWithLinks("https://x.org/?a=1&b=<2>"),
            Link("https://x.org/?a=1&amp;b=") + "&lt;2&gt;");
  // A quote ends the URL: it cannot close the attribute.
  EXPECT_EQ(EscapeWithLinks("'https://x.org/a\" onmouseover=\"alert(1)'"),
            "&#39;" + Link("https://x.org/a") + "&quot; onmouseover=&quot;alert(1)&#39;");
  EXPECT_EQ(EscapeWithLinks("<script>https://x.org/</script>"),
            "&lt;script&gt;" + Link("https://x.org/") + "&lt;/script&gt;");
  EXPECT_EQ(EscapeWithLinks("`https://x.org/a`"), "`" + Link("https://x.org/a") + "`");
}

TEST(EscapeWithLinks, NoOtherSchemeIsLinked) {
  for (const std::string text :
       {"javascript:alert(1)", "JavaScript:alert(document.cookie)", "data:text/html,<b>x</b>",
        "vbscript:msgbox", "ftp://x.org/f", "file:///etc/passwd", "javascript:http://x.org",
        "javascript://x.org/%0aalert(1)", "xhttps://x.org", "a.http://x.org", "http://",
        "https://", "https:// x.org", "https://...", "http:x.org", "https:/x.org", "//x.org/a"}) {
    std::string html = EscapeWithLinks(text);
    EXPECT_EQ(html.find("<a"), std::string::npos) << text << " -> " << html;
    EXPECT_EQ(html, Escape(text));
  }
}

// A placeholder is a value known at run time only: the link goes up to it,
// or nowhere when it is part of the host.
TEST(EscapeWithLinks, PlaceholdersAreNotPartOfTheLink) {
  EXPECT_EQ(EscapeWithLinks("see https://docs.x.org/{version}/errors.html#{name}"),
            "see " + Link("https://docs.x.org/") + "{version}/errors.html#{name}");
  EXPECT_EQ(EscapeWithLinks("https://x.org/errors#{code}."),
            Link("https://x.org/errors#") + "{code}.");
  EXPECT_EQ(EscapeWithLinks("https://{host}/api"), "https://{host}/api");
  EXPECT_EQ(EscapeWithLinks("https://docs.{domain}/api"), "https://docs.{domain}/api");
  EXPECT_EQ(EscapeWithLinks("{url}https://x.org"), "{url}https://x.org");
}

TEST(EscapeWithLinks, AUrlEndsAtNonAsciiAndControlCharacters) {
  EXPECT_EQ(EscapeWithLinks("https://x.org/a\xc3\xa9"), Link("https://x.org/a") + "\xc3\xa9");
  EXPECT_EQ(EscapeWithLinks("https://x.org/a\nb"), Link("https://x.org/a") + "\nb");
}

// Whatever the text: with the links' tags taken out, the output is the
// escaped text, and every href is an http(s) URL of the text.
TEST(EscapeWithLinks, RandomHostileTextStaysEscaped) {
  const std::vector<std::string> atoms = {
      "https://", "http://", "HTTPS://", "javascript:", "x.org", "/", "a", "{x}", "{", "}",
      "(", ")", "[", "]", ".", ",", "&", "&amp;", "<", ">", "<script>", "\"", "'", " ", "\n",
      "?q=1", "#", ":", "@", "\xc3\xa9", "`", "h", "%22"};
  std::mt19937 rng(12345);
  const std::regex tag("<a class=\"doc\" rel=\"nofollow noreferrer\" href=\"([^\"<>]*)\">|</a>");
  for (int round = 0; round < 5000; ++round) {
    std::string text;
    int n = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) text += atoms[rng() % atoms.size()];
    std::string html = EscapeWithLinks(text);
    std::string plain;
    auto last = std::sregex_iterator();
    size_t pos = 0;
    for (auto it = std::sregex_iterator(html.begin(), html.end(), tag); it != last; ++it) {
      plain += html.substr(pos, static_cast<size_t>(it->position()) - pos);
      pos = static_cast<size_t>(it->position() + it->length());
      if ((*it)[1].matched) {
        std::string href = (*it)[1];
        EXPECT_TRUE(href.rfind("http://", 0) == 0 || href.rfind("https://", 0) == 0 ||
                    href.rfind("HTTPS://", 0) == 0)
            << text;
      }
    }
    plain += html.substr(pos);
    ASSERT_EQ(plain, Escape(text)) << "text: " << text << "\nhtml: " << html;
  }
}

catalog::ErrorRecord Documented() {
  catalog::ErrorRecord e;
  e.id = "0123456789abcdef";
  e.library = "o/r";
  e.exception = "ValueError";
  e.kind = "raise";
  e.template_text =
      "Bad <b>{x}</b>; see https://docs.x.org/errors.html?a=1&b=2#{x}. Or javascript:alert(1)";
  return e;
}

// On an error's page the message's URL is a link, in the heading and in
// the message block; nothing else of the message is markup.
TEST(ErrorPage, TheMessagesDocumentationUrlIsALink) {
  std::string html = ErrorPage(Documented(), Links{});
  std::string link = Link("https://docs.x.org/errors.html?a=1&amp;b=2#");
  EXPECT_NE(html.find("<h1 class=\"msg\">Bad &lt;b&gt;{x}&lt;/b&gt;; see " + link +
                      "{x}. Or javascript:alert(1)</h1>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<pre class=\"message\"><code>Bad &lt;b&gt;{x}&lt;/b&gt;; see " + link),
            std::string::npos);
  EXPECT_EQ(html.find("<b>{x}"), std::string::npos);
  EXPECT_EQ(html.find("href=\"javascript"), std::string::npos);
}

// A site's heading says what the code there does: only a C++ throw is
// "thrown"; a warning, an assert, a fatal check, a status or a returned
// message (a Rust message table's arm) each say so.
TEST(ErrorPage, ASitesHeadingFollowsItsKindAndLanguage) {
  struct Case {
    const char* kind;
    const char* language;
    const char* heading;
  };
  for (const Case& c : {Case{"raise", "python", "Raised at"}, Case{"raise", "cpp", "Thrown at"},
                        Case{"raise", "c", "Raised at"}, Case{"raise", "rust", "Raised at"},
                        Case{"warning", "python", "Warned at"},
                        Case{"assert", "python", "Asserted at"},
                        Case{"fatal", "cpp", "Aborts the process at"},
                        Case{"status", "cpp", "Returned as an error status at"},
                        Case{"return", "rust", "Built and returned at"}}) {
    catalog::ErrorRecord e = Documented();
    e.kind = c.kind;
    catalog::SiteRecord s;
    s.path = "src/a.rs";
    s.line = 7;
    s.function = "f";
    s.kind = c.kind;
    s.language = c.language;
    e.sites.push_back(s);
    std::string html = ErrorPage(e, Links{});
    EXPECT_NE(html.find(std::string("<p>") + c.heading + " <code>src/a.rs:7</code>"),
              std::string::npos)
        << c.kind << " " << c.language;
    if (std::string_view(c.heading) != "Thrown at") {
      EXPECT_EQ(html.find("Thrown at"), std::string::npos) << c.kind << " " << c.language;
    }
  }
}

// A site of an installed distribution names its repository but no commit:
// the page says so and links the repository, never a line of some other
// version; with a commit the line is linked and pinned.
TEST(ErrorPage, ARepositoryWithoutACommitIsMarkedUnpinned) {
  catalog::ErrorRecord e = Documented();
  catalog::SiteRecord s;
  s.path = "jinja2/filters.py";
  s.line = 7;
  s.function = "f";
  s.kind = "raise";
  s.language = "python";
  s.url = "https://github.com/pallets/jinja";
  s.rev = "3.1.6";
  e.sites.push_back(s);
  std::string html = ErrorPage(e, Links{});
  EXPECT_NE(html.find("unpinned"), std::string::npos) << html;
  EXPECT_NE(html.find("href=\"https://github.com/pallets/jinja\""), std::string::npos);
  EXPECT_EQ(html.find("/blob/"), std::string::npos);
  e.sites[0].commit = std::string(40, 'a');
  html = ErrorPage(e, Links{});
  EXPECT_EQ(html.find("unpinned"), std::string::npos);
  EXPECT_NE(html.find("https://github.com/pallets/jinja/blob/" + std::string(40, 'a') +
                      "/jinja2/filters.py#L7"),
            std::string::npos);
}

// A listing's row is one link to the error: the URL in it stays text, so
// that no link is nested in another.
TEST(ListPage, ARowsUrlStaysText) {
  Listing listing;
  listing.path = "/libraries/o/r";
  std::string html = ListPage("o/r", "", {Documented()}, Links{}, listing);
  EXPECT_EQ(html.find("class=\"doc\""), std::string::npos);
  EXPECT_NE(html.find("see https://docs.x.org/errors.html?a=1&amp;b=2#{x}."), std::string::npos)
      << html;
}

// Links spell an id as the catalog and the export's files do, in lowercase,
// whatever case it came in.
TEST(Links, IdsAreLinkedInLowercase) {
  Links live;
  EXPECT_EQ(live.Error("0123456789ABCDEF"), "/errors/0123456789abcdef");
  EXPECT_EQ(live.ErrorJson("0123456789AbCdEf"), "/api/errors/0123456789abcdef");
  EXPECT_EQ(live.ErrorAt("0123456789ABCDEF", "v1"), "/errors/0123456789abcdef?version=v1");
  Links exported;
  exported.exported = true;
  EXPECT_EQ(exported.Error("0123456789ABCDEF"), "/errors/0123456789abcdef.html");
  EXPECT_EQ(exported.ErrorJson("0123456789ABCDEF"), "/api/errors/0123456789abcdef.json");
}

}  // namespace
// A family the broad type alone gave (ValueError: invalid-value) is where
// the error is filed: its description, said as what the error is, was
// wrong for prompt_toolkit's "Attempt to write into a closed pipe".
TEST(ErrorPage, AFamilyByTypeAloneIsFiledNotSaid) {
  catalog::ErrorRecord e = Documented();
  Analysis a;
  a.family.slug = "invalid-value";
  a.family.reason = "the exception type is ValueError";
  a.family.weak = true;
  e.analysis = a;
  FamilyInfo f;
  f.slug = "invalid-value";
  f.name = "Invalid argument value";
  f.description = "A value the code does not accept.";
  f.errors = 3;
  f.libraries = 1;
  e.family = f;
  std::string html = ErrorPage(e, Links{});
  EXPECT_NE(html.find("filed by the exception's type alone"), std::string::npos) << html;
  EXPECT_EQ(html.find("A value the code does not accept."), std::string::npos);
  std::ostringstream text;
  cli::RenderError(e, cli::Style{}, text);
  EXPECT_NE(text.str().find("filed by the exception's type alone"), std::string::npos)
      << text.str();
  EXPECT_EQ(text.str().find("A value the code does not accept."), std::string::npos);
  e.analysis->family.weak = false;
  EXPECT_NE(ErrorPage(e, Links{}).find("A value the code does not accept."), std::string::npos);
}

}  // namespace errdex::web
