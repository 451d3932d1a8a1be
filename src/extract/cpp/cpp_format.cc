#include "extract/cpp/cpp_format.h"

#include <cstdint>

#include "core/text.h"

namespace errdex::extract::cpp {

void AppendEscape(std::string_view e, std::string& out) {
  if (e.size() < 2 || e[0] != '\\') {
    out.append(e);
    return;
  }
  char c = e[1];
  switch (c) {
    case 'n':
      out.push_back('\n');
      return;
    case 't':
      out.push_back('\t');
      return;
    case 'r':
      out.push_back('\r');
      return;
    case 'a':
      out.push_back('\a');
      return;
    case 'b':
      out.push_back('\b');
      return;
    case 'f':
      out.push_back('\f');
      return;
    case 'v':
      out.push_back('\v');
      return;
    case 'e':
      out.push_back('\x1b');
      return;
    case '\n':
      return;  // a line splice inside the literal
    case '\r':
      return;
    case 'x': {
      uint32_t v = 0;
      for (size_t i = 2; i < e.size() && HexDigitValue(e[i]) >= 0; ++i)
        v = v * 16 + HexDigitValue(e[i]);
      // A byte escape: keep ASCII, other bytes become U+FFFD, never invalid UTF-8.
      AppendUtf8(v < 0x80 ? v : 0xFFFD, out);
      return;
    }
    case 'u':
    case 'U': {
      uint32_t v = 0;
      for (size_t i = 2; i < e.size() && HexDigitValue(e[i]) >= 0; ++i)
        v = v * 16 + HexDigitValue(e[i]);
      AppendUtf8(v, out);
      return;
    }
    default:
      break;
  }
  if (c >= '0' && c <= '7') {
    uint32_t v = 0;
    for (size_t i = 1; i < e.size() && i < 4 && e[i] >= '0' && e[i] <= '7'; ++i) {
      v = v * 8 + static_cast<uint32_t>(e[i] - '0');
    }
    AppendUtf8(v < 0x80 ? v : 0xFFFD, out);
    return;
  }
  out.append(e.substr(1));  // \\ \" \' \?
}

}  // namespace errdex::extract::cpp
