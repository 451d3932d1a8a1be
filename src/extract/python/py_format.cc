#include "extract/python/py_format.h"

#include <cctype>
#include <cstdint>
#include <utility>

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

// What a conversion type prints, for both printf-style (%d) and format-spec
// (:d) types; the union is harmless, Python rejects the ones a style lacks.
ValueKind KindFromTypeChar(char type) {
  switch (type) {
    case 'd':
    case 'i':
    case 'u':
    case 'o':
    case 'n':
    case 'b':
      return ValueKind::kInt;
    case 'x':
    case 'X':
      return ValueKind::kHex;
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
    case '%':
      return ValueKind::kFloat;
    case 'c':
      return ValueKind::kChar;
    case 'r':
    case 'a':
      return ValueKind::kRepr;
    default:
      return ValueKind::kStr;
  }
}

}  // namespace

void AppendStringSegment(std::string_view s, bool raw, bool fstring, Template& out) {
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

ValueKind KindFromFormatSpec(std::string_view spec) {
  if (spec.find('{') != std::string_view::npos || spec.empty()) return ValueKind::kStr;
  // A precision without a type ("{:.3}") rounds floats and truncates strings.
  ValueKind kind = KindFromTypeChar(spec.back());
  return kind == ValueKind::kRepr ? ValueKind::kStr : kind;
}

// repr() of a string errdex knows only partly: Python picks the quotes from
// the whole text, so this is exact when the values hold no quote characters.
void AppendReprOf(const Template& value, Template& out) {
  bool has_single = false;
  bool has_double = false;
  for (const Piece& p : value.pieces()) {
    if (p.is_value) continue;
    has_single = has_single || p.text.find('\'') != std::string::npos;
    has_double = has_double || p.text.find('"') != std::string::npos;
  }
  char quote = has_single && !has_double ? '"' : '\'';
  out.AppendText(std::string(1, quote));
  for (const Piece& p : value.pieces()) {
    if (p.is_value) {
      out.AppendPiece(p);
      continue;
    }
    std::string body = PythonReprBody(p.text, quote);
    out.AppendText(body);
  }
  out.AppendText(std::string(1, quote));
}

bool IsPlainConstant(std::string_view expression) {
  if (expression == "True" || expression == "False" || expression == "None") return true;
  std::string_view digits = expression;
  if (!digits.empty() && digits.front() == '-') digits.remove_prefix(1);
  if (digits.empty() || digits.size() > 18 || (digits.size() > 1 && digits.front() == '0')) {
    return false;
  }
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

void AppendArgument(const FormatArg& arg, ValueKind kind, std::string_view spec, int max_length,
                    Template& out) {
  // The branches the argument was built in hold for the text it goes into,
  // however much of it is shown.
  if (arg.value) {
    for (const Assumption& a : arg.value->assumptions()) out.Assume(a);
  }
  bool plain_spec = spec.empty() || spec == "%s" || spec == "!s" || spec == "%r" || spec == "!r" ||
                    spec == "%d" || spec == "%i" || spec == ":d";
  if (!arg.value && plain_spec && max_length < 0 && IsPlainConstant(arg.expression)) {
    out.AppendText(arg.expression);  // str() and repr() of 3, True, None print the literal
    return;
  }
  if (arg.value && max_length < 0) {
    if (kind == ValueKind::kStr && (spec.empty() || spec == "%s" || spec == "!s")) {
      out.Append(*arg.value);
      return;
    }
    if (kind == ValueKind::kRepr && (spec.empty() || spec == "%r" || spec == "!r")) {
      AppendReprOf(*arg.value, out);
      return;
    }
  }
  out.AppendValue(arg.expression, kind, spec, max_length);
}

Template ApplyPercent(const Template& format, const PercentArgs& args) {
  size_t next = 0;
  int total_positional = 0;
  // Count conversions first: a lone non-tuple operand fills a single one.
  for (const Piece& p : format.pieces()) {
    if (p.is_value) continue;
    for (size_t i = 0; i + 1 < p.text.size(); ++i) {
      if (p.text[i] != '%') continue;
      if (p.text[i + 1] == '%') {
        ++i;
        continue;
      }
      ++total_positional;
    }
  }
  auto positional = [&](size_t index) -> FormatArg {
    if (args.is_tuple || total_positional <= 1) {
      if (index < args.positional.size()) return args.positional[index];
    }
    std::string base = args.expression.empty() ? "args" : args.expression;
    return FormatArg{base + "[" + std::to_string(index) + "]", std::nullopt};
  };
  return MapLiterals(format, [&](std::string_view s, Template& out) {
    size_t i = 0;
    while (i < s.size()) {
      size_t pct = s.find('%', i);
      if (pct == std::string_view::npos) {
        out.AppendText(s.substr(i));
        return;
      }
      out.AppendText(s.substr(i, pct - i));
      size_t j = pct + 1;
      if (j < s.size() && s[j] == '%') {
        out.AppendText("%");
        i = j + 1;
        continue;
      }
      std::string key;
      bool has_key = false;
      if (j < s.size() && s[j] == '(') {
        size_t close = s.find(')', j);
        if (close == std::string_view::npos) {
          out.AppendText(s.substr(pct));
          return;
        }
        key = std::string(s.substr(j + 1, close - j - 1));
        has_key = true;
        j = close + 1;
      }
      while (j < s.size() && std::string_view("#0- +").find(s[j]) != std::string_view::npos) ++j;
      auto skip_number = [&] {
        if (j < s.size() && s[j] == '*') {
          ++next;  // a '*' width or precision takes an argument of its own
          ++j;
          return -1;
        }
        int v = -1;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) {
          v = (v < 0 ? 0 : v * 10) + (s[j] - '0');
          if (v > 100000) v = 100000;
          ++j;
        }
        return v;
      };
      skip_number();
      int precision = -1;
      if (j < s.size() && s[j] == '.') {
        ++j;
        precision = skip_number();
        if (precision < 0) precision = 0;
      }
      while (j < s.size() && (s[j] == 'h' || s[j] == 'l' || s[j] == 'L')) ++j;
      if (j >= s.size() ||
          std::string_view("diouxXeEfFgGcrsa").find(s[j]) == std::string_view::npos) {
        // Not a conversion Python knows: at run time this raises, we keep the text.
        out.AppendText(s.substr(pct, j - pct));
        i = j;
        continue;
      }
      char type = s[j];
      std::string spec(s.substr(pct, j - pct + 1));
      // "%(key)s" prints like "%s"; only flags, width or precision change it.
      size_t body = has_key ? s.find(')', pct) + 1 : pct + 1;
      if (body == j) spec = std::string("%") + type;
      ValueKind kind = KindFromTypeChar(type);
      int max_length = (type == 's' || type == 'r' || type == 'a') ? precision : -1;
      FormatArg arg;
      if (has_key) {
        auto it = args.named.find(key);
        arg = it != args.named.end() ? it->second : FormatArg{key, std::nullopt};
      } else {
        arg = positional(next++);
      }
      AppendArgument(arg, kind, spec, max_length, out);
      i = j + 1;
    }
  });
}

Template ApplyStrFormat(const Template& format, const std::vector<FormatArg>& positional,
                        const std::map<std::string, FormatArg, std::less<>>& keywords) {
  size_t auto_index = 0;
  return MapLiterals(format, [&](std::string_view s, Template& out) {
    size_t i = 0;
    std::string text;
    while (i < s.size()) {
      char c = s[i];
      if ((c == '{' || c == '}') && i + 1 < s.size() && s[i + 1] == c) {
        text.push_back(c);
        i += 2;
        continue;
      }
      if (c != '{') {
        text.push_back(c);
        ++i;
        continue;
      }
      // Find the matching '}' allowing one level of nesting in the spec.
      size_t j = i + 1;
      int depth = 1;
      while (j < s.size() && depth > 0) {
        if (s[j] == '{') ++depth;
        if (s[j] == '}') --depth;
        if (depth > 0) ++j;
      }
      if (j >= s.size()) {  // an unmatched brace stays text
        text.append(s.substr(i));
        break;
      }
      std::string_view field = s.substr(i + 1, j - i - 1);
      i = j + 1;
      std::string_view spec;
      std::string_view conversion;
      size_t colon = std::string_view::npos;
      size_t bracket = 0;
      for (size_t k = 0; k < field.size(); ++k) {
        if (field[k] == '[') ++bracket;
        if (field[k] == ']' && bracket > 0) --bracket;
        if (bracket == 0 && (field[k] == ':' || field[k] == '!')) {
          colon = k;
          break;
        }
      }
      std::string_view name = field.substr(0, colon);
      if (colon != std::string_view::npos) {
        std::string_view rest = field.substr(colon);
        if (rest.front() == '!') {
          size_t c2 = rest.find(':');
          conversion = rest.substr(0, c2 == std::string_view::npos ? rest.size() : c2);
          if (c2 != std::string_view::npos) spec = rest.substr(c2 + 1);
        } else {
          spec = rest.substr(1);
        }
      }
      // Nested fields in the spec ("{:{width}}") consume automatic numbers.
      for (char sc : spec) {
        if (sc == '{') ++auto_index;
      }
      size_t split = name.find_first_of(".[");
      std::string_view head = name.substr(0, split);
      std::string_view chain = split == std::string_view::npos ? "" : name.substr(split);
      FormatArg arg;
      if (head.empty() || std::isdigit(static_cast<unsigned char>(head[0]))) {
        size_t index = head.empty() ? auto_index++ : std::stoul(std::string(head.substr(0, 6)));
        if (index < positional.size()) {
          arg = positional[index];
        } else {
          arg = FormatArg{"args[" + std::to_string(index) + "]", std::nullopt};
        }
      } else {
        auto it = keywords.find(head);
        arg = it != keywords.end() ? it->second : FormatArg{std::string(head), std::nullopt};
      }
      if (!chain.empty()) {
        arg.expression += std::string(chain);
        arg.value.reset();
      }
      ValueKind kind = KindFromFormatSpec(spec);
      if (conversion == "!r" || conversion == "!a") kind = ValueKind::kRepr;
      std::string written(conversion);
      if (!spec.empty()) {
        written += ":";
        written += spec;
      }
      out.AppendText(text);
      text.clear();
      AppendArgument(arg, kind, written, -1, out);
    }
    out.AppendText(text);
  });
}

}  // namespace errdex::extract::python
