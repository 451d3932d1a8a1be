#include "match/pattern.h"

#include <re2/re2.h>

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/text.h"

namespace errdex::match {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// The regex a value of this kind can stand for.
std::string ValueRegex(const Piece& p) {
  if (p.max_length >= 0) return ".{0," + std::to_string(std::min(p.max_length, 1000)) + "}?";
  switch (p.kind) {
    case ValueKind::kInt:
      return " *[-+]?\\d+";
    case ValueKind::kFloat:
      return " *[-+]?(?:\\d+\\.?\\d*(?:[eE][-+]?\\d+)?|\\.\\d+(?:[eE][-+]?\\d+)?|inf|nan|Infinity|"
             "NaN)%?";
    case ValueKind::kHex:
      return " *(?:0[xX])?[0-9a-fA-F]+";
    case ValueKind::kChar:
      return ".";
    case ValueKind::kPointer:
      return "(?:0[xX])?[0-9a-fA-F]+|\\(nil\\)";
    case ValueKind::kRepr:
      // repr() of anything, %R and Rust's {:?} print something: at least
      // the quotes of an empty string. An empty value here would let
      // `unknown special directive {item!r}` take the message that the
      // exact `unknown special directive` raises.
      return ".+?";
    case ValueKind::kStr:
    case ValueKind::kAny:
      break;
  }
  return ".*?";
}

// Keeps only UTF-8 continuation-safe cut points: `n` moved back to a
// character boundary.
size_t Boundary(std::string_view s, size_t n) {
  while (n > 0 && n < s.size() && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

}  // namespace

std::string StripAnsi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\x1b') {
      out.push_back(text[i]);
      continue;
    }
    // CSI: ESC [ params final-byte; OSC: ESC ] ... BEL or ESC \; others: ESC x.
    if (i + 1 < text.size() && text[i + 1] == '[') {
      size_t j = i + 2;
      while (j < text.size() && !(text[j] >= 0x40 && text[j] <= 0x7E)) ++j;
      i = j;
    } else if (i + 1 < text.size() && text[i + 1] == ']') {
      size_t j = i + 2;
      while (j < text.size() && text[j] != '\a' &&
             !(text[j] == '\x1b' && j + 1 < text.size() && text[j + 1] == '\\')) {
        ++j;
      }
      i = j < text.size() && text[j] == '\x1b' ? j + 1 : j;
    } else {
      ++i;
    }
  }
  return out;
}

std::string NormalizeText(std::string_view text) {
  std::string stripped =
      text.find('\x1b') == std::string_view::npos ? std::string(text) : StripAnsi(text);
  return CollapseWhitespace(stripped);
}

namespace {

// The regex of one literal piece. Whitespace inside it is one space in
// normal form; at the edges next to a value it may vanish (trimmed ends, a
// value that ends a line). Leading whitespace at the start of the message
// is trimmed away, the optional " ?"; after a value it stays one space,
// which keeps a value from matching nothing before it.
std::string LiteralRegex(std::string_view text, bool message_start) {
  std::string literal;
  bool pending_space = false;
  for (char c : text) {
    if (IsSpace(c)) {
      pending_space = true;
      continue;
    }
    if (pending_space && (!literal.empty() || !message_start)) literal.push_back(' ');
    pending_space = false;
    literal.push_back(c);
  }
  bool lead = !text.empty() && IsSpace(text.front());
  bool trail = pending_space;
  if (literal.empty()) return lead || trail ? " ?" : "";
  return (lead ? " ?" : "") + RE2::QuoteMeta(literal) + (trail ? " ?" : "");
}

// A literal piece cut before each of its line breaks (the break starts the
// next part): where a message may be cut short.
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t from = 0;
  for (size_t at = text.find('\n', 1); at != std::string_view::npos && out.size() < 256;
       at = text.find('\n', at + 1)) {
    if (text.find_first_not_of(" \t\r\n", from) >= at) continue;  // nothing before it yet
    out.push_back(text.substr(from, at - from));
    from = at;
  }
  out.push_back(text.substr(from));
  return out;
}

}  // namespace

bool ReprQuoted(const Template& t) {
  const std::vector<Piece>& pieces = t.pieces();
  return pieces.size() >= 2 && !pieces.front().is_value && !pieces.back().is_value &&
         StartsWith(pieces.front().text, "'") && EndsWith(pieces.back().text, "'");
}

namespace {

// A repr around values (ReprQuoted) without its outer quotes: what every
// reading of the template compares, since Python prints ' or " there.
std::optional<Template> ReprInner(const Template& t) {
  if (!ReprQuoted(t)) return std::nullopt;
  const std::vector<Piece>& pieces = t.pieces();
  Template inner;
  for (size_t i = 0; i < pieces.size(); ++i) {
    Piece p = pieces[i];
    if (i == 0) p.text.erase(0, 1);
    if (i + 1 == pieces.size()) p.text.pop_back();
    inner.AppendPiece(std::move(p));
  }
  return inner;
}

constexpr std::string_view kEitherQuote = "['\"]";

}  // namespace

std::string TemplateRegex(const Template& t) {
  if (std::optional<Template> inner = ReprInner(t)) {
    return std::string(kEitherQuote) + TemplateRegex(*inner) + std::string(kEitherQuote);
  }
  std::string out;
  const std::vector<Piece>& pieces = t.pieces();
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    if (p.is_value) {
      out +=
          "(?P<" + (p.name.empty() ? "v" + std::to_string(i) : p.name) + ">" + ValueRegex(p) + ")";
      continue;
    }
    out += LiteralRegex(p.text, i == 0);
  }
  return out;
}

std::string TruncatableTemplateRegex(const Template& t) {
  if (std::optional<Template> inner = ReprInner(t)) {
    return std::string(kEitherQuote) + TruncatableTemplateRegex(*inner) +
           "(?:" + std::string(kEitherQuote) + ")?";
  }
  std::string out;
  size_t open = 0;
  auto add = [&](const std::string& piece) {
    if (piece.empty()) return;
    if (!out.empty()) {
      out += "(?:";
      ++open;
    }
    out += piece;
  };
  for (size_t i = 0; i < t.pieces().size(); ++i) {
    const Piece& p = t.pieces()[i];
    if (p.is_value) {
      Template one;
      one.AppendPiece(p);
      add(TemplateRegex(one));
      continue;
    }
    // A message of several lines is often pasted as its first line, or
    // was worded without the lines after it: a cut may fall at a line's end.
    std::vector<std::string_view> lines = Lines(p.text);
    for (size_t k = 0; k < lines.size(); ++k) add(LiteralRegex(lines[k], i == 0 && k == 0));
  }
  for (size_t k = 0; k < open; ++k) out += ")?";
  return out;
}

LeadingLiterals FindLeadingLiterals(const Template& t, std::string_view message) {
  if (std::optional<Template> inner = ReprInner(t)) {
    if (!message.empty() && (message.front() == '\'' || message.front() == '"')) {
      message.remove_prefix(1);
    }
    return FindLeadingLiterals(*inner, message);
  }
  size_t total = 0;
  size_t found = 0;
  size_t at = 0;
  bool going = true;
  bool first = true;
  bool ends_a_line = false;
  const size_t end = message.find_last_not_of(" \t\r\n") + 1;  // npos + 1 == 0
  for (const Piece& p : t.pieces()) {
    if (p.is_value) {
      first = false;
      continue;
    }
    // Line by line: a message cut at a line's end shows the lines before.
    std::vector<std::string_view> lines = Lines(p.text);
    for (size_t k = 0; k < lines.size(); ++k) {
      std::string literal(Trim(CollapseWhitespace(lines[k])));
      if (literal.empty()) continue;
      total += literal.size();
      if (!going) continue;
      // The first piece, when the template starts with text, must start the message.
      size_t where = first ? (StartsWith(message, literal) ? 0 : std::string_view::npos)
                           : message.find(literal, at);
      first = false;
      if (where == std::string_view::npos) {
        going = false;
        continue;
      }
      found += literal.size();
      at = where + literal.size();
      ends_a_line = k + 1 < lines.size() && literal.size() >= 8 && at >= end;
    }
  }
  return {found, total, ends_a_line};
}

std::vector<std::string> PrefilterFragments(const Template& t) {
  std::vector<std::string> out;
  // A set, not a scan of `out`: a generated template can have thousands of pieces.
  std::unordered_set<std::string> seen;
  auto add = [&](std::string_view f) {
    f = Trim(f);
    if (f.size() < kMinFragment) return;
    if (seen.emplace(f).second) out.emplace_back(f);
  };
  // No fragment may hold the quote a repr around values happens to show.
  std::optional<Template> inner = ReprInner(t);
  for (const Piece& p : (inner ? *inner : t).pieces()) {
    if (p.is_value) continue;
    std::string literal = CollapseWhitespace(p.text);
    add(std::string_view(literal).substr(0, Boundary(literal, kMaxFragment)));
    if (literal.size() > kWindow * 2) {
      add(std::string_view(literal).substr(0, Boundary(literal, kWindow)));
      size_t from = Boundary(literal, literal.size() - kWindow);
      add(std::string_view(literal).substr(from));
    }
  }
  return out;
}

}  // namespace errdex::match
