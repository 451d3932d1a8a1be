#include "cli/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "catalog/json.h"
#include "core/text.h"

namespace errdex::cli {
namespace {

constexpr size_t kMaxSitesShown = 20;
constexpr std::string_view kBold = "\x1b[1m";
constexpr std::string_view kDim = "\x1b[2m";
constexpr std::string_view kRed = "\x1b[31m";
constexpr std::string_view kCyan = "\x1b[36m";
constexpr std::string_view kReset = "\x1b[0m";

std::string Paint(const Style& style, std::string_view code, std::string_view text) {
  if (!style.color) return std::string(text);
  return std::string(code) + std::string(text) + std::string(kReset);
}

void Section(const Style& style, std::string_view title, std::ostream& out) {
  out << '\n' << Paint(style, kBold, title) << '\n';
}

void Paragraph(std::string_view text, std::ostream& out) {
  if (!text.empty()) out << "  " << Printable(text) << '\n';
}

// The explaining sections, in the order of a page; each left out when the
// analysis has nothing for it.
void RenderAnalysis(const catalog::ErrorRecord& e, const Style& style, std::ostream& out) {
  const Analysis& a = *e.analysis;
  if (!a.labels.empty()) {
    std::string labels;
    for (const std::string& l : a.labels) labels += (labels.empty() ? "" : " / ") + l;
    out << Paint(style, kRed, "labelled " + labels) << '\n';
  }
  Section(style, "What it means", out);
  Paragraph(a.prose.meaning, out);
  Section(style, "When it happens", out);
  Paragraph(a.prose.when, out);
  for (const ValidValues& v : a.valid) {
    std::string values;
    for (size_t i = 0; i < v.values.size(); ++i) {
      values += (i ? ", " : "") + v.values[i];
      if (i < v.meanings.size() && !v.meanings[i].empty()) values += " (" + v.meanings[i] + ")";
    }
    Paragraph(fmt::format("valid for {}: {}", v.subject, values), out);
    // Beside the values, what the function's docstring says the parameter is.
    if (!v.doc.empty()) Paragraph("  docstring: " + v.doc, out);
  }
  if (!a.prose.solutions.empty()) {
    Section(style, "Solutions", out);
    for (const std::string& s : a.prose.solutions) out << "  - " << Printable(s) << '\n';
  }
  if (!a.prose.fix_after.empty()) {
    Section(style, "Example fix", out);
    out << "  " << Paint(style, kRed, "- " + Printable(a.prose.fix_before)) << '\n';
    out << "  " << Paint(style, kCyan, "+ " + Printable(a.prose.fix_after)) << '\n';
  }
  Section(style, "Failure class", out);
  if (e.family) {
    // A family the broad type alone gave is where the error is filed, not
    // what it is: its description would be said as if it were.
    Paragraph(
        a.family.weak
            ? fmt::format("{} ({}), {}", e.family->name, e.family->slug, kWeakFamilyNote)
            : fmt::format("{} ({}): {}", e.family->name, e.family->slug, e.family->description),
        out);
    Paragraph(Counted(e.family->errors, "error") + " of this family across " +
                  Counted(e.family->libraries, "library") + " in this catalog",
              out);
  } else {
    Paragraph(a.family.slug, out);
  }
  Paragraph("why: " + a.family.reason, out);
  if (!a.related.empty()) {
    Section(style, "Related errors", out);
    for (const RelatedError& r : a.related) {
      std::string text = Printable(r.template_text);
      for (char& c : text) {
        if (c == '\n') c = ' ';
      }
      if (text.size() > 100) text = text.substr(0, 97) + "...";
      out << "  " << Paint(style, kDim, r.id) << "  " << Printable(r.exception) << "  " << text
          << Paint(style, kDim, "  (" + r.reason + ")") << '\n';
    }
  }
  if (e.enrichment) {
    const Enrichment& n = *e.enrichment;
    Section(style, "AI-assisted (" + Printable(n.model) + ", " + n.created_at + ")", out);
    Paragraph(n.meaning, out);
    for (const std::string& s : n.situations) out << "  situation: " << Printable(s) << '\n';
    for (const std::string& s : n.solutions) out << "  - " << Printable(s) << '\n';
    if (!n.fix_after.empty()) {
      out << "  " << Paint(style, kRed, "- " + Printable(n.fix_before)) << '\n';
      out << "  " << Paint(style, kCyan, "+ " + Printable(n.fix_after)) << '\n';
    }
  }
  Section(style, "Source", out);
}

}  // namespace

std::string Printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\t' || (u >= 0x20 && u != 0x7F)) {
      out.push_back(c);
    } else {
      out += fmt::format("\\x{:02x}", u);
    }
  }
  return out;
}

void RenderErrorLine(const catalog::ErrorRecord& e, const Style& style, std::ostream& out) {
  std::string text = e.template_text.empty() ? "(no message)" : Printable(e.template_text);
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  if (text.size() > 120) text = text.substr(0, 117) + "...";
  out << Paint(style, kDim, e.id) << "  " << Paint(style, kBold, Printable(e.exception)) << "  "
      << text
      << Paint(style, kDim, "  (" + Counted(static_cast<int64_t>(e.sites.size()), "site") + ")")
      << '\n';
}

void RenderError(const catalog::ErrorRecord& e, const Style& style, std::ostream& out) {
  out << Paint(style, kBold, Printable(e.exception)) << " · " << e.kind << " · " << e.library;
  // The analysis, when there is one, decides: the front end marks every
  // assert internal, and one that tests a caller's value is not said so.
  bool internal = e.analysis ? HasLabel(*e.analysis, "internal") : e.internal;
  if (internal) out << " · internal";
  if (e.dynamic) out << " · message not known statically";
  out << '\n';
  out << Paint(style, kRed, e.template_text.empty() ? "(no message)" : Printable(e.template_text))
      << '\n';
  out << Paint(style, kDim, "id " + e.id) << "\n";
  if (e.analysis) RenderAnalysis(e, style, out);
  size_t shown = 0;
  for (const catalog::SiteRecord& s : e.sites) {
    if (shown++ == kMaxSitesShown) {
      out << '\n'
          << Paint(style, kDim,
                   "... and " +
                       Counted(static_cast<int64_t>(e.sites.size() - kMaxSitesShown), "more site") +
                       " (show --json lists them all)")
          << '\n';
      break;
    }
    out << '\n'
        << Paint(style, kCyan, fmt::format("{}:{}", Printable(s.path), s.line)) << "  in "
        << Printable(s.function);
    std::string rev = catalog::ShortRevision(s);
    out << Paint(style, kDim, fmt::format("  ({}{}{})", s.library, rev.empty() ? "" : "@", rev));
    if (!s.via.empty()) out << Paint(style, kDim, "  via " + Printable(s.via));
    out << '\n';
    if (!s.cause.empty()) out << "  chained from " << Printable(s.cause) << '\n';
    if (!s.trigger.empty()) out << "  " << Printable(s.trigger) << '\n';
    for (const catalog::EntryPoint& p : catalog::EntryPoints(s)) {
      out << "  reached from " << Printable(catalog::EntryChain(p, s)) << '\n';
    }
    if (s.excerpt.empty()) continue;
    int line = s.excerpt_line;
    size_t pos = 0;
    std::string_view text = s.excerpt;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      std::string_view l = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
      bool here = line >= s.line && line <= s.end_line;
      std::string gutter = fmt::format("{}{:>6} | ", here ? ">" : " ", line);
      out << (here ? Paint(style, kBold, gutter + Printable(l))
                   : Paint(style, kDim, gutter) + Printable(l))
          << '\n';
      if (nl == std::string_view::npos) break;
      pos = nl + 1;
      ++line;
    }
  }
}

void RenderStats(const catalog::Stats& s, std::ostream& out) {
  out << fmt::format("libraries {}  snapshots {}  errors {}  sites {}  files {}\n", s.libraries,
                     s.snapshots, s.errors, s.sites, s.files);
  out << fmt::format("errors with no literal text (dynamic): {}\n", s.dynamic_errors);
  auto section = [&](std::string_view title, const std::map<std::string, int64_t>& m) {
    if (m.empty()) return;
    out << title << ":\n";
    for (const auto& [k, v] : m) out << fmt::format("  {:<24} {}\n", k, v);
  };
  section("errors by kind", s.errors_by_kind);
  section("files skipped, by reason", s.skipped_by_reason);
  section("files indexed with recovery, by reason", s.recovered_by_reason);
  section("raise statements that are not sites, by reason", s.non_sites_by_reason);
  if (!s.per_snapshot.empty()) out << "snapshots:\n";
  for (const catalog::SnapshotStats& n : s.per_snapshot) {
    std::string rev =
        !n.rev.empty() ? n.rev : n.commit.substr(0, std::min<size_t>(10, n.commit.size()));
    std::string also;
    for (const std::string& a : n.aliases) also += (also.empty() ? " (also " : ", ") + a;
    if (!also.empty()) also += ")";
    out << fmt::format("  {}{}{}{}  {}  {}  {}  indexed {}\n", n.library, rev.empty() ? "" : "@",
                       rev, also, n.kind, Counted(n.files, "file"), Counted(n.sites, "site"),
                       n.indexed_at);
  }
}

}  // namespace errdex::cli
