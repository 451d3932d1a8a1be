#include "extract/cpp/cpp_format.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "core/text.h"

namespace errdex::extract::cpp {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

const Arg* At(const std::vector<Arg>& args, size_t i) {
  return i < args.size() ? &args[i] : nullptr;
}

void AppendMissing(ValueKind kind, Template& out) {
  // More conversions than arguments (a va_list, a macro): still a value.
  out.AppendValue("...", kind);
}

}  // namespace

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

void AppendArg(const Arg& arg, ValueKind kind, std::string_view spec, int max_length,
               Template& out) {
  // A number literal prints as itself in a %d or a string slot.
  bool number =
      arg.value && arg.value->pieces().size() == 1 && !arg.value->pieces()[0].is_value &&
      !arg.value->pieces()[0].text.empty() &&
      std::all_of(arg.value->pieces()[0].text.begin(), arg.value->pieces()[0].text.end(), IsDigit);
  if (number && (kind == ValueKind::kInt || kind == ValueKind::kStr) && max_length < 0) {
    out.Append(*arg.value);
    return;
  }
  if (arg.value && kind == ValueKind::kStr && max_length < 0 && spec.empty()) {
    out.Append(*arg.value);
    return;
  }
  out.AppendValue(arg.expression, kind, spec, max_length);
}

Template ApplyPrintf(const Template& format, const std::vector<Arg>& args, PrintfDialect dialect) {
  size_t next = 0;
  return MapLiterals(format, [&](std::string_view s, Template& out) {
    std::string text;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '%') {
        text.push_back(s[i]);
        continue;
      }
      size_t j = i + 1;
      if (j < s.size() && s[j] == '%') {
        text.push_back('%');
        i = j;
        continue;
      }
      // %[n$][flags][width][.precision][length]conversion
      size_t positional = 0;
      size_t k = j;
      while (k < s.size() && IsDigit(s[k])) ++k;
      if (k > j && k - j < 4 && k < s.size() && s[k] == '$') {
        positional = static_cast<size_t>(std::stoul(std::string(s.substr(j, k - j))));
        j = k + 1;
      }
      while (j < s.size() && (s[j] == '-' || s[j] == '+' || s[j] == ' ' || s[j] == '#' ||
                              s[j] == '0' || s[j] == '\'')) {
        ++j;
      }
      if (j < s.size() && s[j] == '*') {
        ++next;  // the width is an argument
        ++j;
      }
      while (j < s.size() && IsDigit(s[j])) ++j;
      int precision = -1;
      if (j < s.size() && s[j] == '.') {
        ++j;
        if (j < s.size() && s[j] == '*') {
          ++next;
          ++j;
        } else {
          size_t b = j;
          while (j < s.size() && IsDigit(s[j])) ++j;
          precision = j > b && j - b < 7 ? std::stoi(std::string(s.substr(b, j - b))) : 0;
        }
      }
      while (j < s.size() && (s[j] == 'h' || s[j] == 'l' || s[j] == 'L' || s[j] == 'z' ||
                              s[j] == 'j' || s[j] == 't' || s[j] == 'q')) {
        ++j;
      }
      if (j >= s.size()) {
        text.append(s.substr(i));  // a lone % at the end: printed as is
        break;
      }
      char conv = s[j];
      ValueKind kind;
      int max_length = -1;
      switch (conv) {
        case 'd':
        case 'i':
        case 'u':
          kind = ValueKind::kInt;
          break;
        case 'x':
        case 'X':
        case 'o':
          kind = ValueKind::kHex;
          break;
        case 'f':
        case 'F':
        case 'g':
        case 'G':
        case 'e':
        case 'E':
        case 'a':
        case 'A':
          kind = conv == 'A' && dialect == PrintfDialect::kPython ? ValueKind::kRepr
                                                                  : ValueKind::kFloat;
          break;
        case 'c':
          kind = ValueKind::kChar;
          break;
        case 'p':
          kind = ValueKind::kPointer;
          break;
        case 's':
          kind = ValueKind::kStr;
          max_length = precision;
          break;
        case 'v':
          kind = ValueKind::kStr;
          break;
        case 'S':
        case 'U':
        case 'V':
        case 'T':
        case 'N':
          if (dialect != PrintfDialect::kPython) {
            text.append(s.substr(i, j + 1 - i));
            i = j;
            continue;
          }
          kind = ValueKind::kStr;
          max_length = conv == 'S' || conv == 'U' ? precision : -1;
          break;
        case 'R':
          if (dialect != PrintfDialect::kPython) {
            text.append(s.substr(i, j + 1 - i));
            i = j;
            continue;
          }
          kind = ValueKind::kRepr;
          break;
        default:
          // Not a conversion (a literal % before a letter printf would reject).
          text.append(s.substr(i, j + 1 - i));
          i = j;
          continue;
      }
      if (!text.empty()) out.AppendText(text);
      text.clear();
      size_t index = positional > 0 ? positional - 1 : next++;
      std::string spec(s.substr(i, j + 1 - i));
      if (const Arg* a = At(args, index)) {
        AppendArg(*a, kind, kind == ValueKind::kStr && max_length < 0 ? "" : spec, max_length, out);
        // AppendArg only inlines a plain %s; give other values their spec.
      } else {
        AppendMissing(kind, out);
      }
      i = j;
    }
    if (!text.empty()) out.AppendText(text);
  });
}

Template ApplySubstitute(const Template& format, const std::vector<Arg>& args) {
  return MapLiterals(format, [&](std::string_view s, Template& out) {
    std::string text;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '$' && i + 1 < s.size() && s[i + 1] == '$') {
        text.push_back('$');
        ++i;
      } else if (s[i] == '$' && i + 1 < s.size() && IsDigit(s[i + 1])) {
        if (!text.empty()) out.AppendText(text);
        text.clear();
        size_t index = static_cast<size_t>(s[i + 1] - '0');
        if (const Arg* a = At(args, index)) {
          AppendArg(*a, ValueKind::kStr, "", -1, out);
        } else {
          AppendMissing(ValueKind::kStr, out);
        }
        ++i;
      } else {
        text.push_back(s[i]);
      }
    }
    if (!text.empty()) out.AppendText(text);
  });
}

Template ApplyBraces(const Template& format, const std::vector<Arg>& args,
                     const std::function<std::optional<Arg>(std::string_view)>& named) {
  size_t next = 0;
  return MapLiterals(format, [&](std::string_view s, Template& out) {
    std::string text;
    for (size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if ((c == '{' || c == '}') && i + 1 < s.size() && s[i + 1] == c) {
        text.push_back(c);
        ++i;
        continue;
      }
      if (c != '{') {
        text.push_back(c);
        continue;
      }
      size_t close = s.find('}', i);
      if (close == std::string_view::npos) {
        text.append(s.substr(i));
        break;
      }
      std::string_view field = s.substr(i + 1, close - i - 1);
      size_t colon = field.find(':');
      std::string_view id = field.substr(0, colon);
      std::string_view spec = colon == std::string_view::npos ? "" : field.substr(colon + 1);
      size_t index = next;
      std::optional<Arg> by_name;
      if (!id.empty() && std::all_of(id.begin(), id.end(), IsDigit) && id.size() < 4) {
        index = static_cast<size_t>(std::stoul(std::string(id)));
      } else if (!id.empty() && named && (by_name = named(id))) {
        index = args.size();
      } else if (!id.empty()) {
        text.append(s.substr(i, close + 1 - i));  // a named field fmt cannot fill here
        i = close;
        continue;
      } else {
        ++next;
      }
      if (!text.empty()) out.AppendText(text);
      text.clear();
      ValueKind kind = ValueKind::kStr;
      if (!spec.empty()) {
        char t = spec.back();
        if (t == 'd') kind = ValueKind::kInt;
        if (t == 'x' || t == 'X') kind = ValueKind::kHex;
        if (t == 'f' || t == 'g' || t == 'e') kind = ValueKind::kFloat;
        if (t == '?') kind = ValueKind::kRepr;  // Debug: quoted strings
      }
      if (by_name) {
        AppendArg(*by_name, kind, "", -1, out);
      } else if (const Arg* a = At(args, index)) {
        AppendArg(*a, kind, "", -1, out);
      } else {
        AppendMissing(kind, out);
      }
      i = close;
    }
    if (!text.empty()) out.AppendText(text);
  });
}

}  // namespace errdex::extract::cpp
