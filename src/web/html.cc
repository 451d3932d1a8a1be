#include "web/html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "catalog/json.h"
#include "core/error_id.h"
#include "core/text.h"

namespace errdex::web {
namespace {

constexpr size_t kMaxSitesShown = 20;

std::string Layout(std::string_view title, std::string_view body, const Links& links,
                   std::string_view extra_head = {}) {
  std::string out;
  out.reserve(body.size() + 1024);
  out += "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
  out += "<title>" + Escape(title) + " · errdex</title>";
  out += "<link rel=\"stylesheet\" href=\"/static/style.css\">";
  // No favicon request to answer with a 404.
  out += "<link rel=\"icon\" href=\"data:,\">";
  out += extra_head;
  out += "</head><body><header class=\"top\"><a class=\"brand\" href=\"/\">errdex</a>";
  out += "<span class=\"tag\">every error a library can raise, from its source</span></header>";
  out += "<main>";
  out += body;
  out += "</main>";
  // Every page says how fresh the catalog behind it is: indexing and
  // analysis are separate runs (`errdex analyze`), with dates of their own.
  auto date = [](const std::string& at) {
    return "<time datetime=\"" + Escape(at) + "\">" + Escape(at.substr(0, 10)) + "</time>";
  };
  std::string fresh;
  if (!links.indexed_at.empty()) fresh = "Indexed on " + date(links.indexed_at);
  if (!links.analysed_at.empty()) {
    fresh += (fresh.empty() ? "Analysed on " : " · analysed on ") + date(links.analysed_at);
  }
  if (!fresh.empty()) out += "<footer class=\"site\"><p>" + fresh + ".</p></footer>";
  out += "</body></html>\n";
  return out;
}

std::string Section(std::string_view id, std::string_view title, std::string_view body) {
  if (body.empty()) return "";
  return fmt::format("<section id=\"{}\"><h2>{}</h2>{}</section>", id, Escape(title), body);
}

// Text with `code` spans (the prose's backticks) as <code>, all else escaped.
std::string Prose(std::string_view text) {
  std::string out;
  bool in_code = false;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '`') continue;
    std::string piece = Escape(text.substr(start, i - start));
    if (in_code) {
      out += "<code>" + piece + "</code>";
    } else {
      out += piece;
    }
    if (i < text.size()) in_code = !in_code;
    start = i + 1;
  }
  return out;
}

std::string Excerpt(const catalog::SiteRecord& s) {
  std::string out = "<pre class=\"code\"><code>";
  int line = s.excerpt_line;
  size_t pos = 0;
  std::string_view text = s.excerpt;
  while (pos <= text.size() && !text.empty()) {
    size_t nl = text.find('\n', pos);
    std::string_view l = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    bool here = line >= s.line && line <= std::max(s.line, s.end_line);
    out += fmt::format("<span class=\"line{}\"{}><span class=\"ln\">{}</span>{}</span>",
                       here ? " hl" : "", line == s.line ? " id=\"raise\"" : "", line, Escape(l));
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
    ++line;
  }
  out += "</code></pre>";
  return out;
}

std::string List(const std::vector<std::string>& items, bool ordered = false) {
  if (items.empty()) return "";
  std::string out = ordered ? "<ol>" : "<ul>";
  for (const std::string& i : items) out += "<li>" + Prose(i) + "</li>";
  return out + (ordered ? "</ol>" : "</ul>");
}

std::string Fix(std::string_view before, std::string_view after) {
  if (after.empty()) return "";
  return "<div class=\"fix\"><div class=\"before\"><span class=\"label\">before</span><pre><code>" +
         Escape(before) +
         "</code></pre></div><div class=\"after\"><span class=\"label\">after</span><pre><code>" +
         Escape(after) + "</code></pre></div></div>";
}

std::string AiLabel(const Enrichment& n) {
  return "<p class=\"ai\">AI-assisted: written by <b>" + Escape(n.model) + "</b> on " +
         Escape(n.created_at.substr(0, 10)) + " from the facts below; check it against them.</p>";
}

// A row of a listing: the message, and where it is raised. In a live
// listing the family and labels are links that filter by them.
std::string ErrorRow(const catalog::ErrorRecord& e, const Links& links, const Listing& listing) {
  std::string text = e.template_text.empty() ? "(no message)" : e.template_text;
  if (text.size() > 160) text = std::string(TruncateUtf8(text, 157)) + "...";
  std::vector<std::string> meta;
  if (listing.show_library) meta.push_back(Escape(e.library));
  if (!e.sites.empty()) {
    const catalog::SiteRecord& s = e.sites.front();
    std::string where = "<code>" + Escape(s.path) + ":" + std::to_string(s.line) + "</code>";
    int64_t n = std::max<int64_t>(e.sites_in_version, static_cast<int64_t>(e.sites.size()));
    if (n > 1) where += " (" + Counted(n, "site") + ")";
    meta.push_back(where);
  }
  auto filter_link = [&](const std::string& name, const std::string& value) {
    bool set = std::any_of(listing.filters.begin(), listing.filters.end(),
                           [&](const auto& f) { return f.first == name; });
    if (links.exported || set) return Escape(value);
    auto filters = listing.filters;
    filters.emplace_back(name, value);
    return fmt::format("<a href=\"{}\">{}</a>", Escape(listing.Url(links, 1, listing.sort, filters)),
                       Escape(value));
  };
  if (e.analysis && !e.analysis->family.slug.empty() &&
      listing.path.rfind("/families/", 0) != 0) {
    meta.push_back(filter_link("family", e.analysis->family.slug));
  }
  if (e.analysis) {
    for (const std::string& l : e.analysis->labels) {
      meta.push_back("<span class=\"label " + Escape(l) + "\">" + filter_link("label", l) +
                     "</span>");
    }
  }
  std::string joined;
  for (const std::string& m : meta) joined += (joined.empty() ? "" : " · ") + m;
  return fmt::format(
      "<li><a href=\"{}\"><span class=\"exc\">{}</span> <span class=\"tmpl\">{}</span></a>"
      " <span class=\"meta\">{}</span></li>",
      Escape(links.Error(e.id)), Escape(e.exception), Escape(text), joined);
}

// Previous, page N of M, next; nothing for a listing of one page.
std::string Pager(const Listing& l, const Links& links) {
  if (l.pages <= 1) return "";
  std::string out = "<nav class=\"pager\" aria-label=\"pages\">";
  if (l.page > 1) {
    out += fmt::format("<a rel=\"prev\" href=\"{}\">← previous</a> ",
                       Escape(l.Url(links, l.page - 1, l.sort, l.filters)));
  }
  out += fmt::format("<span class=\"count\">page {} of {}</span>", l.page, l.pages);
  if (l.page < l.pages) {
    out += fmt::format(" <a rel=\"next\" href=\"{}\">next →</a>",
                       Escape(l.Url(links, l.page + 1, l.sort, l.filters)));
  }
  return out + "</nav>";
}

// The orders to choose from and the filters in force, each removable.
std::string Controls(const Listing& l, const Links& links) {
  if (links.exported) return "";
  std::string out = "<p class=\"controls\">Order by";
  const std::pair<const char*, const char*> orders[] = {
      {"sites", "most sites"}, {"type", "type"}, {"family", "family"}, {"file", "file"}};
  for (const auto& [key, name] : orders) {
    bool current = l.sort == key || (l.sort.empty() && std::string_view(key) == "sites");
    if (current) {
      out += fmt::format(" <b>{}</b>", name);
    } else {
      out += fmt::format(" <a href=\"{}\">{}</a>",
                         Escape(l.Url(links, 1, key == std::string_view("sites") ? "" : key,
                                      l.filters)),
                         name);
    }
  }
  out += "</p>";
  for (size_t i = 0; i < l.filters.size(); ++i) {
    auto rest = l.filters;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    out += fmt::format(
        "<p class=\"filter\">Only {} <code>{}</code> · <a href=\"{}\">show all</a></p>",
        l.filters[i].first == "type" ? "exception type" : Escape(l.filters[i].first),
        Escape(l.filters[i].second), Escape(l.Url(links, 1, l.sort, rest)));
  }
  return out;
}

}  // namespace

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

namespace {

// Where an http(s) URL starting at `at` ends (`at` when none starts there).
size_t UrlEnd(std::string_view text, size_t at) {
  auto lower_starts = [&](std::string_view scheme) {
    if (text.size() - at < scheme.size()) return false;
    for (size_t i = 0; i < scheme.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(text[at + i])) != scheme[i]) return false;
    }
    return true;
  };
  size_t scheme = lower_starts("https://") ? 8 : lower_starts("http://") ? 7 : 0;
  if (scheme == 0) return at;
  // Inside a word, another URL or after a placeholder ("xhttp://",
  // ".../http://", "{base}http://") it is not one.
  if (at > 0) {
    auto before = static_cast<unsigned char>(text[at - 1]);
    if (std::isalnum(before) || std::string_view("/:.@-_+}").find(static_cast<char>(before)) !=
                                    std::string_view::npos) {
      return at;
    }
  }
  size_t end = at + scheme;
  while (end < text.size()) {
    auto c = static_cast<unsigned char>(text[end]);
    if (c <= 0x20 || c >= 0x7f || std::string_view("\"'<>`{}|\\^").find(static_cast<char>(c)) !=
                                      std::string_view::npos) {
      break;
    }
    ++end;
  }
  size_t host_end = end;
  for (size_t i = at + scheme; i < end; ++i) {
    if (text[i] == '/' || text[i] == '?' || text[i] == '#') {
      host_end = i;
      break;
    }
  }
  // No host, or a host a placeholder completes (`https://{host}/x`,
  // `https://docs.{domain}`): no link.
  if (host_end == at + scheme || !std::isalnum(static_cast<unsigned char>(text[at + scheme]))) {
    return at;
  }
  if (host_end == end && end < text.size() && text[end] == '{') return at;
  // Punctuation that ends the sentence, and a bracket closing one opened
  // before the URL: "(see https://x.org/a)." links https://x.org/a, while
  // https://en.wikipedia.org/wiki/Set_(mathematics) keeps its ")".
  while (end > at + scheme) {
    char last = text[end - 1];
    std::string_view url = text.substr(at, end - at);
    auto count = [&](char c) { return std::count(url.begin(), url.end(), c); };
    if (std::string_view(".,;:!?*").find(last) != std::string_view::npos ||
        (last == ')' && count(')') > count('(')) || (last == ']' && count(']') > count('['))) {
      --end;
      continue;
    }
    break;
  }
  if (end == at + scheme) return at;
  return end;
}

}  // namespace

std::string EscapeWithLinks(std::string_view text) {
  std::string out;
  size_t done = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != 'h' && text[i] != 'H') continue;
    size_t end = UrlEnd(text, i);
    if (end == i) continue;
    std::string url = Escape(text.substr(i, end - i));
    out += Escape(text.substr(done, i - done));
    // The catalog's text comes from third-party source: no referrer, no
    // endorsement, and never a scheme other than http(s).
    out += "<a class=\"doc\" rel=\"nofollow noreferrer\" href=\"" + url + "\">" + url + "</a>";
    done = end;
    i = end - 1;
  }
  out += Escape(text.substr(done));
  return out;
}

std::string UrlEncode(std::string_view text) {
  std::string out;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(c);
    } else {
      out += fmt::format("%{:02X}", u);
    }
  }
  return out;
}

namespace {

// An id as the catalog and the export's file names spell it: lowercase. A
// static host's files are case-sensitive where the live server is not.
std::string LowerId(std::string_view id) {
  std::optional<std::string> canonical = CanonicalErrorId(id);
  return canonical ? *canonical : std::string(id);
}

}  // namespace

std::string Links::Error(std::string_view id) const {
  return "/errors/" + LowerId(id) + (exported ? ".html" : "");
}
std::string Links::ErrorAt(std::string_view id, std::string_view version) const {
  if (exported) return "";
  return "/errors/" + LowerId(id) + "?version=" + UrlEncode(version);
}
std::string Links::LibraryAt(std::string_view name, std::string_view version) const {
  if (exported) return "";
  return "/libraries/" + std::string(name) + "?version=" + UrlEncode(version);
}
std::string Links::ErrorJson(std::string_view id) const {
  return "/api/errors/" + LowerId(id) + (exported ? ".json" : "");
}
std::string Links::Library(std::string_view name) const {
  return "/libraries/" + std::string(name) + (exported ? ".html" : "");
}
std::string Links::Family(std::string_view slug) const {
  return "/families/" + std::string(slug) + (exported ? ".html" : "");
}
std::string Links::ListingPage(std::string_view path, int64_t n) const {
  if (!exported) return std::string(path) + (n > 1 ? "?page=" + std::to_string(n) : "");
  return std::string(path) + (n > 1 ? "/page-" + std::to_string(n) : "") + ".html";
}

std::string Listing::Url(const Links& links, int64_t n, std::string_view order,
                         const std::vector<std::pair<std::string, std::string>>& with) const {
  if (links.exported) return links.ListingPage(path, n);
  std::string query;
  auto add = [&](std::string_view key, std::string_view value) {
    query += (query.empty() ? "?" : "&") + std::string(key) + "=" + UrlEncode(value);
  };
  if (!version.empty()) add("version", version);
  for (const auto& [key, value] : with) add(key, value);
  if (!order.empty()) add("sort", order);
  if (per > 0) add("per", std::to_string(per));
  if (n > 1) add("page", std::to_string(n));
  return path + query;
}

std::string SourceUrl(const catalog::SiteRecord& s) {
  if (s.commit.size() != 40 || s.url.empty()) return "";
  bool github = StartsWith(s.url, "https://github.com/");
  bool gitlab = StartsWith(s.url, "https://gitlab.com/");
  if (!github && !gitlab) return "";
  std::string path = s.subdir.empty() ? s.path : s.subdir + "/" + s.path;
  return s.url + (gitlab ? "/-/blob/" : "/blob/") + s.commit + "/" + path + "#L" +
         std::to_string(s.line);
}

std::string ReportIssueUrl(const catalog::ErrorRecord& e) {
  // Most errors tell the caller what it did wrong: an issue about them is
  // noise for the library. One that correct use should never reach is not.
  auto labelled = [&](std::string_view label) {
    return e.analysis && HasLabel(*e.analysis, label);
  };
  bool internal = e.internal || labelled("internal") ||
                  std::any_of(e.sites.begin(), e.sites.end(),
                              [](const catalog::SiteRecord& s) { return s.internal; });
  if (!internal && !labelled("version-mismatch")) return "";
  if (e.sites.empty() || e.sites.front().url.empty()) return "";
  const catalog::SiteRecord& s = e.sites.front();
  if (!StartsWith(s.url, "https://github.com/")) return "";
  std::string title = e.exception + ": " + std::string(TruncateUtf8(e.template_text, 120));
  std::string body = "Raised at " + s.path + ":" + std::to_string(s.line) + " (" + s.function +
                     ")" + (s.commit.empty() ? "" : " at " + s.commit) + ".\n\n" +
                     "Message template:\n\n    " + e.template_text + "\n";
  return s.url + "/issues/new?title=" + UrlEncode(title) + "&body=" + UrlEncode(body);
}

namespace {

// Other release tags of a version's commit, after its name: the same code,
// one row.
std::string AliasesHtml(const std::vector<std::string>& aliases) {
  std::string out;
  for (size_t i = 0; i < aliases.size(); ++i) {
    out += (i == 0 ? " = <code>" : ", <code>") + Escape(aliases[i]) + "</code>";
  }
  return out;
}

}  // namespace

// The versions of the library that raise the error, and the wordings it had
// before and after; nothing for a library indexed at one version.
std::string ErrorVersions(const catalog::ErrorRecord& e, const Analysis* a, const Links& links) {
  if (e.versions.size() < 2) return "";
  size_t present = 0;
  for (const catalog::VersionPresence& v : e.versions) present += v.sites > 0 ? 1 : 0;
  std::string out = fmt::format(
      "<p>Raised in <b>{}</b>: {} of the {} indexed versions of {}.</p>",
      Escape(catalog::DescribeRanges(catalog::RaisedIn(e.versions))), present, e.versions.size(),
      Escape(e.library));
  std::string rows;
  for (const catalog::VersionPresence& v : e.versions) {
    std::string link = v.sites > 0 ? links.ErrorAt(e.id, v.rev) : "";
    std::string name = link.empty() ? "<code>" + Escape(v.rev) + "</code>"
                                    : fmt::format("<a href=\"{}\"><code>{}</code></a>",
                                                  Escape(link), Escape(v.rev));
    name += AliasesHtml(v.aliases);
    rows += fmt::format("<tr{}><td>{}</td><td>{}</td><td>{}</td></tr>",
                        v.rev == e.version ? " class=\"shown\"" : "", name,
                        Escape(v.date.substr(0, 10)), v.sites > 0 ? std::to_string(v.sites) : "—");
  }
  out += "<table class=\"versions\"><tr><th>version</th><th>date</th><th>sites</th></tr>" + rows +
         "</table>";
  auto wording = [&](const Rewording& r) {
    std::string text = r.template_text.empty() ? "(no message)" : r.template_text;
    if (text.size() > 140) text = std::string(TruncateUtf8(text, 137)) + "...";
    return fmt::format("<a href=\"{}\"><span class=\"exc\">{}</span> <span class=\"tmpl\">{}</span></a>",
                       Escape(links.Error(r.id)), Escape(r.exception), Escape(text));
  };
  if (a) {
    for (const Rewording& r : a->reworded_to) {
      out += "<p>Reworded in <code>" + Escape(r.first_after) + "</code> as " + wording(r) + ".</p>";
    }
    for (const Rewording& r : a->reworded_from) {
      out += "<p>Until <code>" + Escape(r.last_before) + "</code> it read " + wording(r) + ".</p>";
    }
  }
  return Section("versions", "Versions", out);
}


std::string ErrorPage(const catalog::ErrorRecord& e, const Links& links) {
  const Analysis* a = e.analysis ? &*e.analysis : nullptr;
  const Enrichment* n = e.enrichment ? &*e.enrichment : nullptr;
  std::string body;
  // Header: library · kind · exception type.
  body +=
      fmt::format("<p class=\"crumbs\"><a href=\"{}\">{}</a> · {} · <span class=\"exc\">{}</span>",
                  Escape(links.Library(e.library)), Escape(e.library), Escape(e.kind),
                  Escape(e.exception.empty() ? "error" : e.exception));
  if (a) {
    for (const std::string& l : a->labels)
      body += " <span class=\"label " + Escape(l) + "\">" + Escape(l) + "</span>";
  }
  body += "</p>";
  // The message's documentation URLs are links here; in a listing the
  // whole row is one link already.
  body += "<h1 class=\"msg\">" +
          EscapeWithLinks(e.template_text.empty() ? "(no message)" : e.template_text) + "</h1>";
  body += Section("message", "Error message",
                  "<pre class=\"message\"><code>" + EscapeWithLinks(e.template_text) +
                      "</code></pre>" +
                      (e.dynamic ? "<p class=\"note\">The whole message is computed at run "
                                   "time.</p>"
                                 : ""));
  // What it means.
  std::string meaning;
  if (a && !a->prose.meaning.empty()) meaning += "<p>" + Prose(a->prose.meaning) + "</p>";
  if (n)
    meaning += "<div class=\"ai-block\">" + AiLabel(*n) + "<p>" + Prose(n->meaning) + "</p></div>";
  body += Section("meaning", "What it means", meaning);
  // Source: every site.
  std::string source;
  size_t shown = 0;
  for (const catalog::SiteRecord& s : e.sites) {
    if (shown++ == kMaxSitesShown) {
      source += "<p class=\"note\">... and " +
                Counted(static_cast<int64_t>(e.sites.size() - kMaxSitesShown), "more site") +
                " (see the JSON).</p>";
      break;
    }
    source += fmt::format("<div class=\"site\"><p>{} <code>{}:{}</code> in <code>{}</code>",
                          catalog::SiteHeading(s), Escape(s.path), s.line, Escape(s.function));
    if (!s.via.empty()) source += " via <code>" + Escape(s.via) + "</code>";
    source += "</p>";
    if (!s.excerpt.empty()) source += Excerpt(s);
    std::string url = SourceUrl(s);
    if (!url.empty()) {
      source +=
          fmt::format("<p><a class=\"gh\" href=\"{}\">View on {} (pinned to {})</a></p>",
                      Escape(url), StartsWith(url, "https://gitlab.com/") ? "GitLab" : "GitHub",
                      Escape(catalog::ShortRevision(s)));
    } else if (s.commit.empty() && !s.url.empty()) {
      // An installed distribution names its repository, not the commit it
      // was built from: a link to the line would point at another version.
      source += fmt::format(
          "<p class=\"note\">Repository: {} (unpinned: no commit is known for this release, "
          "so no line is linked)</p>",
          EscapeWithLinks(s.url));
    }
    source += "</div>";
  }
  std::string source_title =
      e.sites.size() > 1 ? "Source (" + Counted(static_cast<int64_t>(e.sites.size()), "site") + ")"
                         : "Source";
  if (e.versions.size() > 1 && !e.version.empty()) source_title += " in " + e.version;
  if (e.versions.size() > 1 && e.version.empty()) {
    source = "<p class=\"note\">Not raised in the version asked for; see Versions.</p>";
  }
  body += Section("source", source_title, source);
  body += ErrorVersions(e, a, links);
  // Solutions.
  std::string solutions;
  if (a) solutions += List(a->prose.solutions, true);
  if (n && !n->solutions.empty()) {
    solutions += "<div class=\"ai-block\">" + AiLabel(*n) + List(n->solutions, true) + "</div>";
  }
  body += Section("solutions", "Solutions", solutions);
  std::string fix;
  if (a) fix += Fix(a->prose.fix_before, a->prose.fix_after);
  if (n && !n->fix_after.empty()) {
    fix += "<div class=\"ai-block\">" + AiLabel(*n) + Fix(n->fix_before, n->fix_after) + "</div>";
  }
  body += Section("fix", "Example fix", fix);
  // When it happens.
  std::string when;
  if (a && !a->prose.when.empty()) when += "<p><b>Trigger:</b> " + Prose(a->prose.when) + "</p>";
  if (a) {
    for (const ValidValues& v : a->valid) {
      std::string values;
      for (size_t i = 0; i < v.values.size(); ++i) {
        values += (i ? ", " : "") + ("<code>" + Escape(v.values[i]) + "</code>");
        if (i < v.meanings.size() && !v.meanings[i].empty()) {
          values += " (<code>" + Escape(v.meanings[i]) + "</code>)";
        }
      }
      when += "<p><b>Valid " + std::string(v.source == "types" ? "types" : "values") +
              " for <code>" + Escape(v.subject) + "</code>:</b> " + values;
      if (!v.doc.empty()) {
        when += "<br><span class=\"note\">The docstring says of <code>" + Escape(v.subject) +
                "</code>: " + Prose(v.doc) + "</span>";
      }
      when += "</p>";
    }
  }
  // How a user's call gets there: the public functions whose calls reach
  // the first site, shortest first.
  if (!e.sites.empty()) {
    std::vector<std::string> chains;
    for (const catalog::EntryPoint& p : catalog::EntryPoints(e.sites.front())) {
      std::string chain = catalog::EntryChain(p, e.sites.front());
      for (const auto& [site_param, param] : p.args) {
        chain += " (`" + site_param + "` comes from its `" + param + "` argument)";
        break;  // the first is enough to read the path; the JSON has all
      }
      chains.push_back(Prose(chain));
    }
    if (!chains.empty()) {
      when += "<p><b>Reached from the public API:</b></p><ul class=\"entries\">";
      for (const std::string& c : chains) when += "<li>" + c + "</li>";
      when += "</ul>";
    }
  }
  if (n && !n->situations.empty()) {
    when += "<div class=\"ai-block\">" + AiLabel(*n) + "<p><b>Common situations:</b></p>" +
            List(n->situations) + "</div>";
  }
  body += Section("when", "When it happens", when);
  // The failure class.
  if (a && e.family) {
    body += Section(
        "family", "Understand the failure class",
        fmt::format("<p><a href=\"{}\"><b>{}</b></a>: {}</p><p>This error's family across {} "
                    "in this catalog: {}.</p><p class=\"note\">Why this family: {}</p>",
                    Escape(links.Family(e.family->slug)), Escape(e.family->name),
                    // Filed by the broad type alone: not said as what it is.
                    a->family.weak ? std::string(kWeakFamilyNote) : Escape(e.family->description),
                    Counted(e.family->libraries, "library"), Counted(e.family->errors, "error"),
                    Prose(a->family.reason)));
  }
  if (a && !a->related.empty()) {
    std::string related = "<ul class=\"errors\">";
    for (const RelatedError& r : a->related) {
      std::string text = r.template_text.empty() ? "(no message)" : r.template_text;
      if (text.size() > 140) text = std::string(TruncateUtf8(text, 137)) + "...";
      related += fmt::format(
          "<li><a href=\"{}\"><span class=\"exc\">{}</span> <span class=\"tmpl\">{}</span></a> "
          "<span class=\"meta\">{}</span></li>",
          Escape(links.Error(r.id)), Escape(r.exception), Escape(text), Escape(r.reason));
    }
    body += Section("related", "Related errors", related + "</ul>");
  }
  // Footer: provenance and links.
  std::string footer = "<footer class=\"provenance\"><p>";
  const catalog::SiteRecord* first = e.sites.empty() ? nullptr : &e.sites.front();
  footer += "Static analysis of <b>" + Escape(e.library) + "</b>";
  if (first && !catalog::ShortRevision(*first).empty())
    footer += "@" + Escape(catalog::ShortRevision(*first));
  if (first && !first->date.empty()) footer += " (" + Escape(first->date.substr(0, 10)) + ")";
  footer += ".";
  if (n)
    footer += " AI-assisted prose by " + Escape(n->model) + ", " +
              Escape(n->created_at.substr(0, 10)) + ".";
  footer += fmt::format(" <a href=\"{}\">Data as JSON</a>", Escape(links.ErrorJson(e.id)));
  std::string report = ReportIssueUrl(e);
  if (!report.empty()) footer += " · <a href=\"" + Escape(report) + "\">Report an issue</a>";
  footer += fmt::format(" · id <code>{}</code></p></footer>", Escape(e.id));
  body += footer;
  return Layout(e.exception + ": " + std::string(TruncateUtf8(e.template_text, 80)), body, links);
}

std::string HomePage(const std::vector<catalog::LibraryStats>& libraries,
                     const std::vector<FamilyInfo>& families, const Links& links) {
  std::string body;
  body += "<h1>What does this error mean?</h1>";
  body += fmt::format(
      "<form id=\"search\" class=\"search\" data-static=\"{}\">"
      "<label for=\"q\">Paste an error message or a whole traceback</label>"
      "<textarea id=\"q\" name=\"q\" rows=\"6\" spellcheck=\"false\" autofocus "
      "placeholder=\"ValueError: Invalid TMEMLayout: TMEMLayout.FOO\"></textarea></form>"
      "<div id=\"results\" aria-live=\"polite\"></div>",
      links.exported ? "1" : "0");
  std::string libs = "<ul class=\"cards\">";
  for (const catalog::LibraryStats& l : libraries) {
    libs += fmt::format("<li><a href=\"{}\">{}</a> <span class=\"meta\">{} · {}</span></li>",
                        Escape(links.Library(l.name)), Escape(l.name), Counted(l.errors, "error"),
                        Counted(l.sites, "site"));
  }
  body += Section("libraries", "Libraries", libraries.empty() ? "" : libs + "</ul>");
  std::string fams = "<ul class=\"cards\">";
  size_t listed = 0;
  for (const FamilyInfo& f : families) {
    if (f.errors == 0) continue;
    ++listed;
    fams += fmt::format("<li><a href=\"{}\">{}</a> <span class=\"meta\">{} · {}</span></li>",
                        Escape(links.Family(f.slug)), Escape(f.name), Counted(f.errors, "error"),
                        Counted(f.libraries, "library"));
  }
  body += Section("families", "Failure families", listed == 0 ? "" : fams + "</ul>");
  return Layout("Search", body, links, "<script src=\"/static/app.js\" defer></script>");
}

std::string ListPage(std::string_view title, std::string_view intro,
                     const std::vector<catalog::ErrorRecord>& errors, const Links& links,
                     const Listing& listing, std::string_view extra_html) {
  std::string body = "<h1>" + Escape(title) + "</h1>";
  if (!intro.empty()) body += "<p>" + Prose(intro) + "</p>";
  body += extra_html;
  body += Controls(listing, links);
  body += Pager(listing, links);
  if (errors.empty()) body += "<p class=\"note\">No error here matches.</p>";
  body += "<ul class=\"errors\">";
  for (const catalog::ErrorRecord& e : errors) body += ErrorRow(e, links, listing);
  body += "</ul>";
  body += Pager(listing, links);
  std::string head_title(title);
  if (listing.page > 1) head_title += " (page " + std::to_string(listing.page) + ")";
  return Layout(head_title, body, links);
}

std::string VersionsSection(std::string_view library, std::string_view shown,
                            const std::vector<catalog::SnapshotStats>& versions,
                            const Links& links) {
  if (versions.size() < 2) return "";
  std::string rows;
  for (const catalog::SnapshotStats& v : versions) {
    std::string link = links.LibraryAt(library, v.rev);
    std::string name = link.empty() ? "<code>" + Escape(v.rev) + "</code>"
                                    : fmt::format("<a href=\"{}\"><code>{}</code></a>",
                                                  Escape(link), Escape(v.rev));
    name += AliasesHtml(v.aliases);
    rows += fmt::format("<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                        v.rev == shown ? " class=\"shown\"" : "", name,
                        Escape(v.date.substr(0, 10)), v.files, v.sites);
  }
  return Section("versions", "Versions",
                 "<table class=\"versions\"><tr><th>version</th><th>date</th><th>files</th>"
                 "<th>sites</th></tr>" +
                     rows + "</table>");
}

std::string NotFoundPage(std::string_view what, const Links& links) {
  // A static copy's 404.html is what its host serves for any missing file:
  // its script sends an address the live server would answer (an id in
  // capitals, a page without .html) to the file the export wrote.
  return Layout("Not found",
                "<h1 id=\"not-found\">Not found</h1><p>" + Escape(what) +
                    "</p><p><a href=\"/\">Search</a></p>",
                links, links.exported ? "<script src=\"/static/app.js\" defer></script>" : "");
}

}  // namespace errdex::web
