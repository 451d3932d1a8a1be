#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>

namespace errdex {

void AppendUtf8(uint32_t cp, std::string& out) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0; its code
// point in `*decoded` when given.
size_t Utf8SequenceLength(std::string_view text, size_t i, uint32_t* decoded = nullptr) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) {
    if (decoded != nullptr) *decoded = c;
    return 1;
  }
  size_t n;
  unsigned int min;
  unsigned int cp;
  if ((c & 0xE0) == 0xC0) {
    n = 2, min = 0x80, cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, min = 0x800, cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, min = 0x10000, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  if (decoded != nullptr) *decoded = cp;
  return n;
}

}  // namespace

bool IsValidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    size_t n = Utf8SequenceLength(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string ToValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t n = Utf8SequenceLength(text, i);
    if (n == 0) {
      out.append("\xEF\xBF\xBD");
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

namespace {

// The quote Python's repr() of a str or bytes picks: ' unless the text
// holds a ' and no ".
char PythonQuote(std::string_view text) {
  bool has_single = text.find('\'') != std::string_view::npos;
  bool has_double = text.find('"') != std::string_view::npos;
  return has_single && !has_double ? '"' : '\'';
}

}  // namespace

std::string PythonRepr(std::string_view text) {
  char quote = PythonQuote(text);
  return quote + PythonReprBody(text, quote) + quote;
}

namespace {

// The code points past ASCII that Python's repr() escapes, because
// str.isprintable() rejects them: categories Cc, Cf, Zs (but the space),
// Zl, Zp, Cs and Co, as of Unicode 14 (CPython 3.11). Unassigned code
// points, which Python escapes too, are covered only inside these ranges.
struct CodeRange {
  uint32_t first;
  uint32_t last;
};
constexpr CodeRange kUnprintable[] = {
    {0x80, 0xA0},       {0xAD, 0xAD},       {0x600, 0x605},     {0x61C, 0x61C},
    {0x6DD, 0x6DD},     {0x70F, 0x70F},     {0x890, 0x891},     {0x8E2, 0x8E2},
    {0x1680, 0x1680},   {0x180E, 0x180E},   {0x2000, 0x200F},   {0x2028, 0x202F},
    {0x205F, 0x206F},   {0x3000, 0x3000},   {0xD800, 0xF8FF},   {0xFEFF, 0xFEFF},
    {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD}, {0x110CD, 0x110CD}, {0x13430, 0x13438},
    {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE007F}, {0xF0000, 0x10FFFD},
};

bool PythonPrints(uint32_t cp) {
  for (const CodeRange& r : kUnprintable) {
    if (cp < r.first) return true;
    if (cp <= r.last) return false;
  }
  return true;
}

}  // namespace

std::string PythonReprBody(std::string_view text, char quote) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (ch == quote) {
          out.push_back('\\');
          out.push_back(ch);
        } else if (c < 0x20 || c == 0x7F) {
          char buf[5];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else if (uint32_t cp = 0, n = c >= 0x80 ? Utf8SequenceLength(text, i, &cp) : 0;
                   n > 0 && !PythonPrints(cp)) {
          char buf[11];
          if (cp < 0x100) {
            std::snprintf(buf, sizeof buf, "\\x%02x", cp);
          } else if (cp < 0x10000) {
            std::snprintf(buf, sizeof buf, "\\u%04x", cp);
          } else {
            std::snprintf(buf, sizeof buf, "\\U%08x", cp);
          }
          out += buf;
          i += n - 1;
        } else {
          out.push_back(ch);
        }
    }
  }
  return out;
}

std::string PythonBytesRepr(std::string_view bytes) {
  char quote = PythonQuote(bytes);
  std::string out = "b";
  out.push_back(quote);
  for (char ch : bytes) {
    auto c = static_cast<unsigned char>(ch);
    if (ch == '\\' || ch == quote) {
      out.push_back('\\');
      out.push_back(ch);
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7F) {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out.push_back(ch);
    }
  }
  out.push_back(quote);
  return out;
}

std::string Latin1Bytes(std::string_view utf8) {
  std::string out;
  for (size_t i = 0; i < utf8.size(); ++i) {
    uint32_t cp = 0;
    size_t n = static_cast<unsigned char>(utf8[i]) >= 0x80 ? Utf8SequenceLength(utf8, i, &cp) : 0;
    if (n > 0 && cp < 0x100) {
      out.push_back(static_cast<char>(cp));
      i += n - 1;
    } else {
      out.push_back(utf8[i]);
    }
  }
  return out;
}

std::string CollapseWhitespace(std::string_view text) {
  std::string out;
  bool pending_space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(c);
  }
  return out;
}

std::string_view Trim(std::string_view text) {
  size_t b = text.find_first_not_of(" \t\r\n\f\v");
  if (b == std::string_view::npos) return {};
  size_t e = text.find_last_not_of(" \t\r\n\f\v");
  return text.substr(b, e - b + 1);
}

std::string_view TruncateUtf8(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return text.substr(0, n);
}

bool IsIdentifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s.front()))) return false;
  return std::all_of(s.begin(), s.end(), IsIdentChar);
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool IsTestPath(std::string_view path) {
  // trio and sniffio keep theirs in `_tests/`, a private package.
  for (std::string_view dir : {"test/", "tests/", "idle_test/", "_tests/"}) {
    for (size_t at = path.find(dir); at != std::string_view::npos; at = path.find(dir, at + 1)) {
      if (at == 0 || path[at - 1] == '/') return true;
    }
  }
  std::string_view file = path.substr(path.rfind('/') + 1);
  return StartsWith(file, "test_") || EndsWith(file, "_test.py") || file == "conftest.py";
}

size_t CommonPrefix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

size_t CommonSuffix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[a.size() - 1 - n] == b[b.size() - 1 - n]) ++n;
  return n;
}

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string SnakeCase(std::string_view camel) {
  std::string out;
  for (size_t i = 0; i < camel.size(); ++i) {
    char c = camel[i];
    bool upper = std::isupper(static_cast<unsigned char>(c)) != 0;
    if (upper && i > 0 && camel[i - 1] != '_') {
      bool prev_lower = std::islower(static_cast<unsigned char>(camel[i - 1])) ||
                        std::isdigit(static_cast<unsigned char>(camel[i - 1]));
      bool next_lower =
          i + 1 < camel.size() && std::islower(static_cast<unsigned char>(camel[i + 1]));
      bool prev_upper = std::isupper(static_cast<unsigned char>(camel[i - 1])) != 0;
      if (prev_lower || (prev_upper && next_lower)) out.push_back('_');
    }
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

std::string NowUtc() {
  std::time_t now = std::time(nullptr);
  struct tm tm;
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string Counted(int64_t n, std::string_view singular, std::string_view plural) {
  std::string out = std::to_string(n) + " ";
  if (n == 1 || singular.empty()) return out.append(singular);
  if (!plural.empty()) return out.append(plural);
  auto vowel = [](char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; };
  size_t size = singular.size();
  if (size >= 2 && singular.back() == 'y' && !vowel(singular[size - 2])) {
    return out.append(singular.substr(0, size - 1)).append("ies");
  }
  out.append(singular);
  bool sibilant = singular.back() == 's' || singular.back() == 'x' || singular.back() == 'z' ||
                  EndsWith(singular, "ch") || EndsWith(singular, "sh");
  return out.append(sibilant ? "es" : "s");
}

bool NamedForAssert(std::string_view qualified) {
  // A private `_assert_consistent` is the library's check of itself.
  std::string_view name = qualified.substr(qualified.rfind('.') + 1);
  if (name.size() < 6) return false;
  std::string first;
  for (char c : name.substr(0, 6))
    first.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (first != "assert") return false;
  // The word ends there: `assert_x`, `assertEqual`, `assert`; not `asserts`.
  if (name.size() == 6) return true;
  char next = name[6];
  bool capitals = std::isupper(static_cast<unsigned char>(name[1])) != 0;  // ASSERTING
  return next == '_' || std::isdigit(static_cast<unsigned char>(next)) != 0 ||
         (!capitals && std::isupper(static_cast<unsigned char>(next)) != 0);
}

}  // namespace errdex
