#include "cli/explain.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <istream>
#include <string>
#include <vector>

#include "catalog/json.h"
#include "cli/render.h"
#include "core/text.h"
#include "match/interpreter.h"
#include "match/parse.h"
#include "match/report.h"

namespace errdex::cli {
namespace {

using nlohmann::ordered_json;

constexpr int kExcerptContext = 6;

std::string Paint(bool color, std::string_view code, std::string_view text) {
  if (!color) return std::string(text);
  return std::string(code) + std::string(text) + "\x1b[0m";
}

std::string Indented(std::string_view text, std::string_view indent) {
  std::string out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    out += std::string(indent) + std::string(line) + "\n";
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return out;
}

void RenderExcerpt(const catalog::SiteRecord& s, bool color, std::ostream& out) {
  int first = std::max(s.excerpt_line, s.line - kExcerptContext);
  int last = std::max(s.line, s.end_line) + kExcerptContext;
  int line = s.excerpt_line;
  size_t pos = 0;
  std::string_view text = s.excerpt;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view l = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    if (line >= first && line <= last) {
      bool here = line >= s.line && line <= std::max(s.line, s.end_line);
      std::string gutter = fmt::format("{}{:>6} | ", here ? ">" : " ", line);
      out << "     "
          << (here ? Paint(color, "\x1b[1m", gutter + Printable(l))
                   : Paint(color, "\x1b[2m", gutter) + Printable(l))
          << '\n';
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
    ++line;
  }
}

// `text` on one line, at most `max_bytes` of it: a line break or tab is shown
// escaped, as in the source's string literal. A candidate is one line of a
// list; a template's own line break would start a line that reads as the
// next entry.
std::string OneLine(std::string_view text, size_t max_bytes) {
  std::string_view cut = TruncateUtf8(text, max_bytes);
  std::string out;
  for (char c : cut) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out.push_back(c);
    }
  }
  out = Printable(out);
  if (cut.size() < text.size()) out += "...";
  return out;
}

// The exception type and the kind of site, each said once: a C++ CHECK has
// no type, and "UserWarning · warning" or "AssertionError · assert" would
// say the kind twice.
std::string TypeAndKind(const catalog::ErrorRecord& e) {
  if (e.exception.empty()) return e.kind;
  if (e.kind.empty() || AsciiLower(e.exception).find(AsciiLower(e.kind)) != std::string::npos) {
    return e.exception;
  }
  return e.exception + " · " + e.kind;
}

// For a library indexed at several versions: where this wording is raised,
// what the traceback says about the version, and the newer wording if the
// newest version says it otherwise.
void RenderVersions(const match::Match& m, bool color, std::ostream& out) {
  const std::vector<catalog::VersionPresence>& versions = m.error.versions;
  if (versions.size() < 2) return;
  std::string line = "raised in " + catalog::DescribeRanges(catalog::RaisedIn(versions)) + " (of " +
                     Counted(static_cast<int64_t>(versions.size()), "version") + " indexed)";
  if (!m.frame_versions.empty()) {
    std::string fits;
    for (const std::string& v : m.frame_versions) fits += (fits.empty() ? "" : ", ") + v;
    line += "; the traceback's lines fit " + fits;
  }
  out << "     " << Paint(color, "\x1b[2m", Printable(line)) << '\n';
  for (const Rewording& r : m.reworded_to) {
    std::string text = r.template_text.size() > 160
                           ? std::string(TruncateUtf8(r.template_text, 160)) + "..."
                           : r.template_text;
    out << "     " << Paint(color, "\x1b[33m", "reworded in " + Printable(r.first_after) + " as: ")
        << Printable(text) << '\n';
  }
}

void RenderText(catalog::Catalog& catalog, const match::ParsedError& input,
                const std::vector<match::Match>& matches, bool color, std::ostream& out) {
  std::string head =
      input.exception.empty() ? "" : input.exception + (input.message.empty() ? "" : ": ");
  std::string shown = head + (input.status.empty() ? "" : input.status + ": ") + input.message;
  if (shown.size() > 400) shown = std::string(TruncateUtf8(shown, 400)) + "...";
  out << Paint(color, "\x1b[1;31m", Printable(shown)) << '\n';
  if (matches.empty()) {
    // The library is indexed when the last frame lies in a file it was
    // indexed from: nothing there raises this by name.
    // A catalog too damaged to say falls back to the question.
    Result<std::optional<catalog::Catalog::FileOwner>> owner =
        match::InnermostFrameOwner(catalog, input);
    if (owner && *owner) {
      const catalog::Catalog::FileOwner& f = **owner;
      const match::Frame& frame = input.frames.back();
      out << "  no error in the catalog matches this. The last frame, "
          << Paint(color, "\x1b[36m", fmt::format("{}:{}", Printable(f.path), frame.line)) << " in "
          << Printable(frame.function) << ", is in " << Printable(f.library)
          << (f.rev.empty() ? "" : "@" + Printable(f.rev))
          << ", which has no raise statement of this error there: the interpreter or compiled "
             "code raised it on that line (a missing key or attribute, an index out of range, a "
             "value of the wrong type...), or a raise errdex could not read\n";
      return;
    }
    out << "  no error in the catalog matches this (is the library indexed? `errdex stats`)\n";
    return;
  }
  if (matches.front().weak_reason == match::WeakReason::kInterpreter) {
    const match::Frame& frame = input.frames.back();
    out << "  Python itself raised this, on the traceback's last line: "
        << Paint(color, "\x1b[36m", fmt::format("{}:{}", Printable(frame.path), frame.line))
        << " in " << Printable(frame.function)
        << " (an attribute or name missing, an operand of the wrong type, an index out of "
           "range...). No frame of the traceback stands on a raise below: those errors are "
           "raised elsewhere, worded "
        << (matches.front().fuzzy ? "alike" : "the same") << '\n';
  } else if (matches.front().weak()) {
    out << "  no error in the catalog has this wording; the nearest wordings follow (compiled "
           "code, or a library not indexed, may have raised it)\n";
  } else if (input.frames.empty() && match::IsInterpreterWording(input)) {
    // Libraries copy these wordings, and the interpreter raises them
    // everywhere: only frames say which raised this one.
    out << "  CPython raises errors worded so itself, with no raise statement: without the "
           "traceback, the library below may only have copied the wording (paste the whole "
           "traceback to tell)\n";
  }
  for (size_t i = 0; i < matches.size(); ++i) {
    const match::Match& m = matches[i];
    const catalog::SiteRecord* site = m.error.sites.empty() ? nullptr : &m.error.sites.front();
    std::string at;
    if (site != nullptr) {
      std::string rev =
          !site->rev.empty() && site->rev != site->commit ? site->rev : site->commit.substr(0, 10);
      at = rev.empty() ? m.error.library : m.error.library + "@" + rev;
    }
    std::string header = fmt::format("{}. {} · {}{} · score {:.2f}", i + 1, TypeAndKind(m.error),
                                     at.empty() ? m.error.library : at,
                                     m.fuzzy ? " · similar wording" : "", m.score);
    if (i > 0) {
      out << "  " << Paint(color, "\x1b[2m", Printable(header)) << "  "
          << (m.error.template_text.empty() ? "(no message)" : OneLine(m.error.template_text, 100))
          << '\n';
      continue;
    }
    out << "\n  " << Paint(color, "\x1b[1m", Printable(header)) << '\n';
    out << Indented(
        Printable(m.error.template_text.empty() ? "(no message)" : m.error.template_text), "     ");
    // People read the expression as the source wrote it; names are for JSON.
    // An expression written twice ('{obj}' ... {obj}) is one value, shown
    // once; should its places have caught different text, each is shown
    // under its own name.
    std::vector<std::string> written;
    for (const auto& [name, value] : m.values) {
      written.push_back(name);
      for (const Piece& p : m.error.message.pieces()) {
        if (p.is_value && p.name == name) written.back() = p.text;
      }
    }
    for (size_t k = 0; k < m.values.size(); ++k) {
      const auto& [name, value] = m.values[k];
      bool again = false;
      bool differs = false;
      for (size_t o = 0; o < m.values.size(); ++o) {
        if (o == k || written[o] != written[k]) continue;
        again = again || o < k;
        differs = differs || m.values[o].second != value;
      }
      if (again && !differs) continue;
      std::string v = value.size() > 120 ? std::string(TruncateUtf8(value, 120)) + "..." : value;
      out << "       " << Paint(color, "\x1b[36m", Printable(differs ? name : written[k])) << " = "
          << Printable(v) << '\n';
    }
    out << "     " << Paint(color, "\x1b[2m", m.evidence) << '\n';
    if (m.same_bare > 0) {
      // One of many equal raises: its site, condition and fixes would be
      // said of an error the user may not have.
      out << "     paste the whole traceback: its last frames name the raise\n";
      if (matches.size() > 1) out << "\n  other candidates:\n";
      continue;
    }
    if (m.weak()) {
      // The nearest wording: where it is raised, not why or how to fix it,
      // which would be said of an error the user may not have.
      if (site != nullptr) {
        out << "     worded so at "
            << Paint(color, "\x1b[36m", fmt::format("{}:{}", site->path, site->line)) << " in "
            << Printable(site->function) << '\n';
      }
      out << "     " << Paint(color, "\x1b[2m", "more: errdex show " + m.error.id) << '\n';
      if (matches.size() > 1) out << "\n  other candidates:\n";
      continue;
    }
    if (site != nullptr) {
      std::string heading(catalog::SiteHeading(*site));
      heading[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(heading[0])));
      out << "     " << heading << " "
          << Paint(color, "\x1b[36m", fmt::format("{}:{}", site->path, site->line)) << " in "
          << Printable(site->function);
      // A call of a helper: the raise itself is inside the helper.
      if (!site->via.empty()) out << " via " << Printable(site->via);
      if (m.error.sites.size() > 1)
        out << " (and " << Counted(static_cast<int64_t>(m.error.sites.size() - 1), "more site")
            << ")";
      out << '\n';
      RenderVersions(m, color, out);
      // The page's facts for the version the match shows.
      Result<catalog::ErrorRecord> full = [&] {
        catalog::VersionScope scope(catalog, m.error.version);
        return catalog.Get(m.error.id);
      }();
      if (full) {
        for (const catalog::SiteRecord& s : full->sites) {
          if (s.path == site->path && s.line == site->line && s.rev == site->rev) {
            if (!s.trigger.empty()) out << "     " << Printable(s.trigger) << '\n';
            std::vector<catalog::EntryPoint> entries = catalog::EntryPoints(s);
            if (!entries.empty()) {
              out << "     reached from " << Printable(catalog::EntryChain(entries.front(), s))
                  << '\n';
            }
            RenderExcerpt(s, color, out);
            break;
          }
        }
        // How to fix it, from the analysis: the family, the solutions and
        // the example fix (`errdex show ID` has every section).
        if (full->analysis) {
          const Analysis& a = *full->analysis;
          if (full->family) {
            std::string labels;
            for (const std::string& l : a.labels) labels += " · " + l;
            out << "     " << Paint(color, "\x1b[2m", "family: " + full->family->name + labels)
                << '\n';
          }
          for (const std::string& solution : a.prose.solutions) {
            out << "     fix: " << Printable(solution) << '\n';
          }
          if (!a.prose.fix_after.empty()) {
            out << "     " << Paint(color, "\x1b[31m", "- " + Printable(a.prose.fix_before))
                << "\n     " << Paint(color, "\x1b[32m", "+ " + Printable(a.prose.fix_after))
                << '\n';
          }
          out << "     " << Paint(color, "\x1b[2m", "more: errdex show " + full->id) << '\n';
        }
      }
    }
    if (matches.size() > 1) out << "\n  other candidates:\n";
  }
}

// A JSON string of kMaxInputBytes may take six bytes per byte (\u0000).
constexpr size_t kMaxLineBytes = 6 * kMaxInputBytes + 2;

// The next line of `in` without its '\n'; of a longer one only the fact
// (`too_long`), its bytes skipped rather than held. False at the end.
bool ReadLineBounded(std::istream& in, size_t max_bytes, std::string& line, bool& too_long) {
  line.clear();
  too_long = false;
  std::streambuf* buf = in.rdbuf();
  bool any = false;
  for (int c = buf->sbumpc(); c != std::char_traits<char>::eof(); c = buf->sbumpc()) {
    any = true;
    if (c == '\n') return true;
    if (too_long) continue;
    if (line.size() >= max_bytes) {
      too_long = true;
      line.clear();
      continue;
    }
    line.push_back(static_cast<char>(c));
  }
  return any;
}

}  // namespace

Result<bool> ExplainText(catalog::Catalog& catalog, const ExplainRequest& request,
                         std::ostream& out, std::ostream& err) {
  if (request.text.size() > kMaxInputBytes) {
    return Fail(ErrorCode::kInvalidArgument,
                "input is larger than 10 MB; give the end of the output (the traceback) instead");
  }
  std::vector<std::string> warnings;
  Result<match::Matcher> matcher = match::Matcher::Open(&catalog, &warnings);
  if (!matcher) return tl::unexpected(matcher.error());
  for (const std::string& w : warnings) err << "errdex: warning: " << w << '\n';
  Result<match::Report> report = match::ExplainAll(*matcher, request.text, request.options);
  if (!report) return tl::unexpected(report.error());
  if (request.json) {
    out << match::ReportJson(*report).dump(-1, ' ', false, ordered_json::error_handler_t::replace)
        << '\n';
    return report->any();
  }
  const std::vector<match::ParsedError>& parsed = report->errors;
  const std::vector<std::vector<match::Match>>& all = report->matches;
  for (size_t i = 0; i < parsed.size(); ++i) {
    if (i > 0) out << '\n';
    RenderText(catalog, parsed[i], all[i], request.color, out);
  }
  return report->any();
}

Result<size_t> ExplainLines(catalog::Catalog& catalog, const match::ExplainOptions& options,
                            std::istream& in, std::ostream& out, std::ostream& err) {
  std::vector<std::string> warnings;
  Result<match::Matcher> matcher = match::Matcher::Open(&catalog, &warnings);
  if (!matcher) return tl::unexpected(matcher.error());
  for (const std::string& w : warnings) err << "errdex: warning: " << w << '\n';
  size_t matched = 0;
  std::string line;
  bool too_long = false;
  while (ReadLineBounded(in, kMaxLineBytes, line, too_long)) {
    ordered_json answer;
    nlohmann::json text = too_long ? nlohmann::json()
                                   : nlohmann::json::parse(line, nullptr, false);
    if (too_long || (text.is_string() && text.get_ref<const std::string&>().size() >
                                              kMaxInputBytes)) {
      answer = {{"error", "input is larger than 10 MB"}};
    } else if (text.is_discarded() || !text.is_string()) {
      answer = {{"error", "not a JSON string: each line must be one paste, JSON-quoted"}};
    } else {
      Result<match::Report> report =
          match::ExplainAll(*matcher, text.get_ref<const std::string&>(), options);
      if (!report) return tl::unexpected(report.error());
      matched += report->any() ? 1 : 0;
      answer = match::ReportJson(*report);
    }
    out << answer.dump(-1, ' ', false, ordered_json::error_handler_t::replace) << '\n';
  }
  return matched;
}

}  // namespace errdex::cli
