#include "extract/python/py_docstring.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "core/template.h"
#include "core/text.h"
#include "extract/python/py_format.h"
#include "extract/python/py_syntax.h"
#include "extract/ts_util.h"

namespace errdex::extract::python {
namespace {

uint16_t K(TSNode n) { return KindOf(n); }

// Parameter sections sit near the top; a generated docstring of megabytes
// is read no further than this.
constexpr size_t kMaxDocstringBytes = 256 * 1024;
// A description is kept up to this many bytes before its first sentence is
// looked for: enough for any sentence short enough to show.
constexpr size_t kMaxDescriptionBytes = 4096;

// What str.expandtabs() makes of a line: tab stops every 8 columns.
std::string ExpandTabs(std::string_view line) {
  std::string out;
  size_t column = 0;
  for (char c : line) {
    if (c == '\t') {
      size_t n = 8 - column % 8;
      out.append(n, ' ');
      column += n;
    } else {
      out.push_back(c);
      // Columns count characters, as Python's do: continuation bytes add none.
      if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++column;
    }
  }
  return out;
}

size_t Indent(std::string_view line) {
  size_t i = line.find_first_not_of(' ');
  return i == std::string_view::npos ? line.size() : i;
}

bool Blank(std::string_view line) { return Trim(line).empty(); }

// inspect.cleandoc: the first line stripped, the others' common indentation
// removed, blank lines at either end dropped.
std::string CleanDoc(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(ExpandTabs(text.substr(start, nl - start)));
    start = nl + 1;
  }
  size_t margin = std::string::npos;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (!Blank(lines[i])) margin = std::min(margin, Indent(lines[i]));
  }
  if (!lines.empty()) lines[0] = std::string(Trim(lines[0]));
  for (size_t i = 1; i < lines.size(); ++i) {
    lines[i] = Blank(lines[i]) ? "" : lines[i].substr(std::min(margin, lines[i].size()));
  }
  size_t first = 0;
  size_t last = lines.size();
  while (first < last && Blank(lines[first])) ++first;
  while (last > first && Blank(lines[last - 1])) --last;
  std::string out;
  for (size_t i = first; i < last; ++i) {
    if (i > first) out.push_back('\n');
    out += lines[i];
  }
  return out;
}

}  // namespace

std::optional<std::string> Docstring(TSNode definition, std::string_view source) {
  TSNode body = Field(definition, "body");
  if (K(body) != kBlock) return std::nullopt;  // a lambda's body is an expression
  TSNode first{};
  for (uint32_t i = 0, n = ts_node_named_child_count(body); i < n; ++i) {
    TSNode c = ts_node_named_child(body, i);
    if (K(c) == kComment) continue;
    first = c;
    break;
  }
  if (K(first) != kExpressionStatement || ts_node_named_child_count(first) != 1) {
    return std::nullopt;
  }
  TSNode literal = ts_node_named_child(first, 0);
  std::vector<TSNode> parts;
  if (K(literal) == kString) {
    parts.push_back(literal);
  } else if (K(literal) == kConcatenatedString) {
    parts = NamedChildren(literal);
  } else {
    return std::nullopt;
  }
  Template decoded;
  size_t bytes = 0;
  for (TSNode part : parts) {
    if (K(part) != kString) return std::nullopt;
    std::vector<TSNode> children = Children(part);
    if (children.empty() || K(children.front()) != kStringStart) return std::nullopt;
    std::string_view start = NodeText(children.front(), source);
    std::string_view prefix = start.substr(0, start.find_first_of("'\""));
    // An f-string is evaluated, bytes are not text, a t-string is a Template:
    // none of them is __doc__.
    if (prefix.find_first_of("fFbBtT") != std::string_view::npos) return std::nullopt;
    uint32_t from = ts_node_end_byte(children.front());
    uint32_t to = ts_node_end_byte(part);
    if (children.size() > 1 && K(children.back()) == kStringEnd) {
      to = ts_node_start_byte(children.back());
    }
    if (to < from || to > source.size() || bytes >= kMaxDocstringBytes) continue;
    std::string_view content = TruncateUtf8(source.substr(from, to - from), kMaxDocstringBytes);
    bytes += content.size();
    AppendStringSegment(content, prefix.find_first_of("rR") != std::string_view::npos, false,
                        decoded);
  }
  std::string text;
  for (const Piece& p : decoded.pieces()) {
    // A \N{NAME} escape is a value here (resolving names needs the Unicode
    // database): its source spelling reads better than a wrong character.
    text += p.text;
  }
  // Python reads \r\n and \r in source as \n.
  std::string normalized;
  normalized.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      normalized.push_back('\n');
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      normalized.push_back(text[i]);
    }
  }
  return CleanDoc(normalized);
}

namespace {

struct DocLine {
  size_t indent = 0;
  std::string_view text;  // without its indentation and trailing whitespace
};

std::vector<DocLine> SplitLines(std::string_view doc) {
  std::vector<DocLine> out;
  size_t start = 0;
  while (start <= doc.size()) {
    size_t nl = doc.find('\n', start);
    if (nl == std::string_view::npos) nl = doc.size();
    std::string_view line = doc.substr(start, nl - start);
    DocLine d;
    size_t i = 0;
    for (; i < line.size() && (line[i] == ' ' || line[i] == '\t'); ++i) {
      d.indent = line[i] == '\t' ? (d.indent / 8 + 1) * 8 : d.indent + 1;
    }
    d.text = Trim(line.substr(i));
    out.push_back(d);
    start = nl + 1;
  }
  return out;
}

// Python identifiers may be any letter; a byte past ASCII is taken for one.
bool IdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IdentChar(char c) { return IdentStart(c) || std::isdigit(static_cast<unsigned char>(c)); }

// The parameter names an entry starts with (`x`, `*args`, `x1, x2`), and in
// `end` where the last one ends; empty when the line starts otherwise.
std::vector<std::string> LeadingNames(std::string_view text, size_t& end) {
  std::vector<std::string> names;
  size_t i = 0;
  while (true) {
    size_t stars = 0;
    while (i < text.size() && text[i] == '*' && stars < 2) ++i, ++stars;
    size_t begin = i;
    if (i >= text.size() || !IdentStart(text[i])) return {};
    while (i < text.size() && IdentChar(text[i])) ++i;
    names.emplace_back(text.substr(begin, i - begin));
    size_t k = i;
    while (k < text.size() && text[k] == ' ') ++k;
    if (k >= text.size() || text[k] != ',') break;
    ++k;
    while (k < text.size() && text[k] == ' ') ++k;
    i = k;
  }
  end = i;
  return names;
}

size_t SkipSpaces(std::string_view text, size_t i) {
  while (i < text.size() && text[i] == ' ') ++i;
  return i;
}

bool IsHeader(std::string_view text, std::initializer_list<std::string_view> headers) {
  std::string lower = AsciiLower(text);
  return std::find(headers.begin(), headers.end(), lower) != headers.end();
}

struct Entry {
  std::vector<std::string> names;
  std::string text;  // the first paragraph of the description, lines joined
  bool open = true;  // more lines of the first paragraph may follow
};

void Append(Entry& e, std::string_view line) {
  if (!e.open || line.empty() || e.text.size() >= kMaxDescriptionBytes) return;
  if (!e.text.empty()) e.text.push_back(' ');
  e.text += line;
}

// Google: `name (type): text` or `name: text` (the type may hold colons:
// `x (:obj:`int`): ...`).
std::optional<Entry> GoogleEntry(std::string_view text) {
  size_t i = 0;
  std::vector<std::string> names = LeadingNames(text, i);
  if (names.empty()) return std::nullopt;
  i = SkipSpaces(text, i);
  if (i < text.size() && text[i] == '(') {
    int depth = 0;
    for (; i < text.size(); ++i) {
      if (text[i] == '(') ++depth;
      if (text[i] == ')' && --depth == 0) break;
    }
    if (i >= text.size()) return std::nullopt;
    i = SkipSpaces(text, i + 1);
  }
  // `name: text`, not `http://...`.
  if (i >= text.size() || text[i] != ':' || (i + 1 < text.size() && text[i + 1] != ' ')) {
    return std::nullopt;
  }
  return Entry{std::move(names), std::string(Trim(text.substr(i + 1)))};
}

// An "Args:" section: entries indented under the header, each entry's
// description continuing on lines indented deeper than it.
void ReadGoogle(const std::vector<DocLine>& lines, std::vector<Entry>& out) {
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = lines[i].text;
    if (t.size() < 2 || t.back() != ':' ||
        !IsHeader(t.substr(0, t.size() - 1), {"args", "arguments", "parameters", "params",
                                              "keyword args", "keyword arguments",
                                              "other parameters"})) {
      continue;
    }
    size_t j = i + 1;
    while (j < lines.size() && lines[j].text.empty()) ++j;
    if (j == lines.size() || lines[j].indent <= lines[i].indent) continue;
    size_t entry_indent = lines[j].indent;
    Entry* current = nullptr;
    for (; j < lines.size(); ++j) {
      const DocLine& l = lines[j];
      if (l.text.empty()) {
        if (current != nullptr) current->open = false;
        continue;
      }
      if (l.indent < entry_indent) break;
      if (l.indent == entry_indent) {
        current = nullptr;
        if (std::optional<Entry> e = GoogleEntry(l.text)) {
          out.push_back(std::move(*e));
          current = &out.back();
        }
      } else if (current != nullptr) {
        Append(*current, l.text);
      }
    }
    i = j - 1;  // a section is read once, however many headers it holds
  }
}

bool Underline(const DocLine& l) {
  return l.text.size() >= 3 && l.text.find_first_not_of('-') == std::string_view::npos;
}

// numpydoc: `name : type` (or `name` alone) at the section's indentation,
// the description on the lines indented under it.
void ReadNumpy(const std::vector<DocLine>& lines, std::vector<Entry>& out) {
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    if (!Underline(lines[i + 1]) || lines[i + 1].indent != lines[i].indent ||
        !IsHeader(lines[i].text, {"parameters", "other parameters", "params", "arguments",
                                  "args", "keyword arguments", "keyword args"})) {
      continue;
    }
    size_t j = i + 2;
    while (j < lines.size() && lines[j].text.empty()) ++j;
    if (j == lines.size() || lines[j].indent < lines[i].indent) continue;
    size_t entry_indent = lines[j].indent;
    Entry* current = nullptr;
    for (; j < lines.size(); ++j) {
      const DocLine& l = lines[j];
      if (l.text.empty()) {
        if (current != nullptr && !current->text.empty()) current->open = false;
        continue;
      }
      if (l.indent < entry_indent) break;
      if (l.indent > entry_indent) {
        if (current != nullptr) Append(*current, l.text);
        continue;
      }
      if (j + 1 < lines.size() && Underline(lines[j + 1])) break;  // the next section
      size_t end = 0;
      std::vector<std::string> names = LeadingNames(l.text, end);
      end = SkipSpaces(l.text, end);
      // Prose at the entries' indentation: the section is over.
      if (names.empty() || (end < l.text.size() && l.text[end] != ':')) break;
      out.push_back(Entry{std::move(names), ""});
      current = &out.back();
    }
    i = j - 1;
  }
}

// Sphinx/reST fields: `:param name: text`, `:param type name: text`, the
// text continuing on lines indented deeper than the field.
void ReadSphinx(const std::vector<DocLine>& lines, std::vector<Entry>& out) {
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = lines[i].text;
    if (t.empty() || t.front() != ':') continue;
    size_t close = t.find(':', 1);
    if (close == std::string_view::npos) continue;
    std::vector<std::string_view> words;
    std::string_view field = t.substr(1, close - 1);
    for (size_t k = 0; k < field.size();) {
      size_t b = field.find_first_not_of(" \t", k);
      if (b == std::string_view::npos) break;
      size_t e = std::min(field.find_first_of(" \t", b), field.size());
      words.push_back(field.substr(b, e - b));
      k = e;
    }
    if (words.size() < 2 || !IsHeader(words.front(), {"param", "parameter", "arg", "argument",
                                                      "key", "keyword"})) {
      continue;
    }
    size_t end = 0;
    std::vector<std::string> names = LeadingNames(words.back(), end);
    if (names.size() != 1 || end != words.back().size()) continue;
    Entry e{std::move(names), std::string(Trim(t.substr(close + 1)))};
    size_t j = i + 1;
    for (; j < lines.size(); ++j) {
      if (lines[j].text.empty() || lines[j].indent <= lines[i].indent) break;
      Append(e, lines[j].text);
    }
    out.push_back(std::move(e));
    // A field in the description is the description's (a callback's own
    // parameters), not the function's.
    i = j - 1;
  }
}

// ``code`` and :role:`target` (Sphinx's `~` included) read as `code`.
std::string PlainMarkup(std::string_view s) {
  std::string out;
  bool in_code = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "``") == 0) {
      ++i;
    } else if (s[i] == ':' && !in_code && (i == 0 || !IdentChar(s[i - 1]))) {
      // Roles are short names: a colon far from any backquote is text, and
      // looking further would make a line of colons quadratic.
      size_t tick = s.substr(0, i + 64).find('`', i + 1);
      std::string_view role =
          tick == std::string_view::npos ? std::string_view() : s.substr(i + 1, tick - i - 1);
      bool is_role = role.size() >= 2 && role.back() == ':' &&
                     std::all_of(role.begin(), role.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == ':' ||
                              c == '_' || c == '-' || c == '.';
                     });
      if (!is_role) {
        out.push_back(s[i]);
        continue;
      }
      i = tick;
    } else if (s[i] != '`') {
      out.push_back(s[i]);
      continue;
    }
    out.push_back('`');
    in_code = !in_code;
    if (in_code && i + 1 < s.size() && s[i + 1] == '~') ++i;
    // reST's escape that lets a word go on after code: ``Ref``\s.
    if (!in_code && i + 2 < s.size() && s[i + 1] == '\\' &&
        std::isalpha(static_cast<unsigned char>(s[i + 2]))) {
      ++i;
    }
  }
  return out;
}

// Where the first sentence ends: a full stop, ! or ? before a space and a
// word that does not start lower case (e.g. and i.e. do not end one), outside `code`.
size_t SentenceEnd(std::string_view s, size_t from) {
  bool in_code = false;
  for (size_t i = from; i < s.size(); ++i) {
    if (s[i] == '`') in_code = !in_code;
    if (in_code || (s[i] != '.' && s[i] != '!' && s[i] != '?')) continue;
    if (i + 1 == s.size()) return s.size();
    if (s[i + 1] != ' ') continue;
    if (i + 2 < s.size() && std::islower(static_cast<unsigned char>(s[i + 2]))) continue;
    size_t word = s.rfind(' ', i);
    word = word == std::string_view::npos ? 0 : word + 1;
    std::string before = AsciiLower(s.substr(word, i - word));
    if (IsHeader(before, {"e.g", "i.e", "etc", "cf", "vs", "viz", "resp", "approx", "(e.g",
                          "(i.e", "(cf"})) {
      continue;
    }
    return i + 1;
  }
  return s.size();
}

// At most kMaxParameterDocChars characters, cut at a word with "…".
std::string Bounded(std::string s) {
  size_t chars = 0;
  size_t cut = std::string::npos;  // the byte where the limit is reached
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (chars == kMaxParameterDocChars - 1) cut = i;
    ++chars;
  }
  if (chars <= kMaxParameterDocChars) return s;
  size_t space = s.rfind(' ', cut);
  if (space != std::string::npos && space >= cut / 2) cut = space;
  s.resize(cut);
  while (!s.empty() && (s.back() == ' ' || s.back() == ',' || s.back() == ';' ||
                        s.back() == ':' || s.back() == '(')) {
    s.pop_back();
  }
  return s + "…";
}

std::string Summary(std::string_view description) {
  std::string text =
      PlainMarkup(CollapseWhitespace(TruncateUtf8(description, kMaxDescriptionBytes)));
  // A first sentence of one word is a type (`nan_policy: str. Only
  // "propagate" is supported.`): the next one says what the parameter is for.
  size_t end = 0;
  do {
    end = SentenceEnd(text, end);
  } while (end < text.size() && text.find(' ') >= end);
  text.resize(end);
  return Bounded(std::string(Trim(text)));
}

}  // namespace

std::map<std::string, std::string, std::less<>> ParameterDocs(std::string_view docstring) {
  std::vector<DocLine> lines = SplitLines(TruncateUtf8(docstring, kMaxDocstringBytes));
  std::vector<Entry> entries;
  ReadGoogle(lines, entries);
  ReadNumpy(lines, entries);
  ReadSphinx(lines, entries);
  std::map<std::string, std::string, std::less<>> out;
  for (const Entry& e : entries) {
    std::string summary = Summary(e.text);
    if (summary.empty()) continue;
    // The first entry for a name wins; a docstring documenting one twice is
    // rare and the first is where a reader looks.
    for (const std::string& name : e.names) out.emplace(name, summary);
  }
  return out;
}

}  // namespace errdex::extract::python
