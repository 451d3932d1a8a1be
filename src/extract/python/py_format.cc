#include "extract/python/py_format.h"

#include <cstdint>

#include "core/text.h"

namespace errdex::extract::python {
namespace {

// Reads exactly `digits` hex digits at s[i]; returns false if they are not there.
bool ReadHex(std::string_view s, size_t i, size_t digits, uint32_t& value) {
  if (i + digits > s.size()) return false;
  value = 0;
  for (size_t k = 0; k < digits; ++k) {
    int h = HexDigitValue(s[i + k]);
    if (h < 0) return false;
    value = value * 16 + static_cast<uint32_t>(h);
  }
  return true;
}

}  // namespace

void AppendStringSegment(std::string_view s, bool raw, bool fstring, Template& out, bool bytes) {
  std::string text;
  text.reserve(s.size());
  auto flush = [&] {
    out.AppendText(text);
    text.clear();
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (fstring && (c == '{' || c == '}') && i + 1 < s.size() && s[i + 1] == c) {
      text.push_back(c);
      ++i;
      continue;
    }
    if (raw || c != '\\' || i + 1 >= s.size()) {
      text.push_back(c);
      continue;
    }
    char e = s[++i];
    uint32_t cp = 0;
    if (bytes && (e == 'u' || e == 'U' || e == 'N')) {
      text.push_back('\\');  // text in bytes, not an escape
      text.push_back(e);
      continue;
    }
    switch (e) {
      case '\n':
        break;
      case '\r':
        if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
        break;
      case '\\':
        text.push_back('\\');
        break;
      case '\'':
        text.push_back('\'');
        break;
      case '"':
        text.push_back('"');
        break;
      case 'a':
        text.push_back('\a');
        break;
      case 'b':
        text.push_back('\b');
        break;
      case 'f':
        text.push_back('\f');
        break;
      case 'n':
        text.push_back('\n');
        break;
      case 'r':
        text.push_back('\r');
        break;
      case 't':
        text.push_back('\t');
        break;
      case 'v':
        text.push_back('\v');
        break;
      case 'x':
        if (ReadHex(s, i + 1, 2, cp)) {
          AppendUtf8(cp, text);
          i += 2;
        } else {
          text.append("\\x");
        }
        break;
      case 'u':
      case 'U': {
        size_t digits = e == 'u' ? 4 : 8;
        if (ReadHex(s, i + 1, digits, cp)) {
          AppendUtf8(cp, text);
          i += digits;
        } else {
          text.push_back('\\');
          text.push_back(e);
        }
        break;
      }
      case 'N': {
        size_t close = s.find('}', i);
        if (i + 1 < s.size() && s[i + 1] == '{' && close != std::string_view::npos) {
          // Resolving character names needs the Unicode database; one character
          // it is, whatever its name.
          flush();
          out.AppendValue(s.substr(i - 1, close - i + 2), ValueKind::kChar);
          i = close;
        } else {
          text.append("\\N");
        }
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          uint32_t v = static_cast<uint32_t>(e - '0');
          for (int k = 0; k < 2 && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '7'; ++k) {
            v = v * 8 + static_cast<uint32_t>(s[++i] - '0');
          }
          AppendUtf8(v, text);
        } else {
          text.push_back('\\');
          text.push_back(e);
        }
    }
  }
  flush();
}

}  // namespace errdex::extract::python
