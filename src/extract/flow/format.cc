#include "extract/flow/format.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <utility>

#include "core/text.h"

namespace errdex::extract::flow {
namespace {

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

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

const Arg* At(const std::vector<Arg>& args, size_t i) {
  return i < args.size() ? &args[i] : nullptr;
}

void AppendMissing(ValueKind kind, Template& out) {
  // More conversions than arguments (a va_list, a macro): still a value.
  out.AppendValue("...", kind);
}

}  // namespace

ValueKind KindFromFormatSpec(std::string_view spec) {
  if (spec.find('{') != std::string_view::npos || spec.empty()) return ValueKind::kStr;
  // A precision without a type ("{:.3}") rounds floats and truncates strings.
  ValueKind kind = KindFromTypeChar(spec.back());
  return kind == ValueKind::kRepr ? ValueKind::kStr : kind;
}

// repr() of a string errdex knows only partly: Python picks the quotes from
// the whole text, so this is exact when the values hold no quote characters.
void AppendReprOf(const Template& value, Template& out) {
  if (value.repr_is_text()) {
    out.Append(value);
    return;
  }
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

namespace {

void AppendPythonArg(const Arg& arg, ValueKind kind, std::string_view spec, int max_length,
                     Template& out) {
  // The branches the argument was built in hold for the text it goes into,
  // however much of it is shown.
  if (arg.value) {
    for (const Assumption& a : arg.value->assumptions()) out.Assume(a);
  }
  bool plain_spec = spec.empty() || spec == "%s" || spec == "!s" || spec == "%r" || spec == "!r" ||
                    spec == "%d" || spec == "%i" || spec == ":d";
  if (!arg.value && plain_spec && max_length < 0 && IsPlainConstant(arg.expression)) {
    // str() and repr() of 3, True, None print the literal; %d of a bool its int.
    bool as_int = kind == ValueKind::kInt;
    if (as_int && (arg.expression == "True" || arg.expression == "False")) {
      out.AppendText(arg.expression == "True" ? "1" : "0");
    } else {
      out.AppendText(arg.expression);
    }
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

Template Percent(const Template& format, const FormatArgs& args) {
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
  auto positional = [&](size_t index) -> Arg {
    if (args.is_tuple || total_positional <= 1) {
      if (index < args.positional.size()) return args.positional[index];
    }
    std::string base = args.expression.empty() ? "args" : args.expression;
    return Arg{base + "[" + std::to_string(index) + "]", std::nullopt};
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
      Arg arg;
      if (has_key) {
        auto it = args.named.find(key);
        arg = it != args.named.end() ? it->second : Arg{key, std::nullopt};
      } else {
        arg = positional(next++);
      }
      AppendPythonArg(arg, kind, spec, max_length, out);
      i = j + 1;
    }
  });
}

Template StrFormat(const Template& format, const FormatArgs& args) {
  const std::vector<Arg>& positional = args.positional;
  const std::map<std::string, Arg, std::less<>>& keywords = args.named;
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
      Arg arg;
      if (head.empty() || std::isdigit(static_cast<unsigned char>(head[0]))) {
        size_t index = head.empty() ? auto_index++ : std::stoul(std::string(head.substr(0, 6)));
        if (index < positional.size()) {
          arg = positional[index];
        } else {
          arg = Arg{"args[" + std::to_string(index) + "]", std::nullopt};
        }
      } else {
        auto it = keywords.find(head);
        arg = it != keywords.end() ? it->second : Arg{std::string(head), std::nullopt};
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
      AppendPythonArg(arg, kind, written, -1, out);
    }
    out.AppendText(text);
  });
}

void AppendNativeArg(const Arg& arg, ValueKind kind, std::string_view spec, int max_length,
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

Template Printf(const Template& format, const std::vector<Arg>& args, bool python) {
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
      size_t flags_at = j;
      while (j < s.size() && (s[j] == '-' || s[j] == '+' || s[j] == ' ' || s[j] == '#' ||
                              s[j] == '0' || s[j] == '\'')) {
        ++j;
      }
      if (j < s.size() && s[j] == '*') {
        ++next;  // the width is an argument
        ++j;
      }
      while (j < s.size() && IsDigit(s[j])) ++j;
      // Flags or a width pad what is printed (an integer's precision too).
      bool padded = j > flags_at;
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
          kind = conv == 'A' && python ? ValueKind::kRepr : ValueKind::kFloat;
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
          if (!python) {
            text.append(s.substr(i, j + 1 - i));
            i = j;
            continue;
          }
          kind = ValueKind::kStr;
          max_length = conv == 'S' || conv == 'U' ? precision : -1;
          break;
        case 'R':
          if (!python) {
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
      // PyUnicode_FromFormat's %V takes an object and the text printed when
      // it is NULL.
      if (python && conv == 'V' && positional == 0) ++next;
      std::string spec(s.substr(i, j + 1 - i));
      padded |= precision >= 0 && kind == ValueKind::kInt;
      std::string_view written =
          kind == ValueKind::kStr && max_length < 0 ? std::string_view() : std::string_view(spec);
      if (const Arg* a = At(args, index)) {
        if (padded) {
          // The padding is not spelled out: known text is a value there.
          out.AppendValue(a->expression, kind, written, max_length);
        } else {
          AppendNativeArg(*a, kind, written, max_length, out);
        }
      } else {
        AppendMissing(kind, out);
      }
      i = j;
    }
    if (!text.empty()) out.AppendText(text);
  });
}

Template Substitute(const Template& format, const std::vector<Arg>& args) {
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
          AppendNativeArg(*a, ValueKind::kStr, "", -1, out);
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

// A named field's argument: given by name, or (inline captures) the
// variable of that name.
std::optional<Arg> Named(const FormatArgs& args, std::string_view id) {
  auto it = args.named.find(id);
  if (it != args.named.end()) return it->second;
  if (args.capture_names) return Arg{std::string(id), std::nullopt};
  return std::nullopt;
}

Template Braces(const Template& format, const FormatArgs& call) {
  const std::vector<Arg>& args = call.positional;
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
      } else if (!id.empty() && (by_name = Named(call, id))) {
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
      // Debug (`{:?}`) quotes strings; the other types are Python's.
      ValueKind kind = spec.empty()         ? ValueKind::kStr
                       : spec.back() == '?' ? ValueKind::kRepr
                                            : KindFromTypeChar(spec.back());
      const Arg* a = by_name ? &*by_name : At(args, index);
      if (a != nullptr && !spec.empty() && spec != "d" && spec != "s") {
        // An alignment, width, precision or base (`{:>8}`, `{:5}`, `{:.3}`,
        // `{:b}`) changes what is printed: known text is a value there,
        // named after what it passes through (`let t = msg.to_string()`
        // printed `{t:?}` prints `msg`, which a helper's caller fills).
        const std::vector<Piece>* held = a->value ? &a->value->pieces() : nullptr;
        bool through = held != nullptr && held->size() == 1 && (*held)[0].is_value &&
                       (*held)[0].kind == ValueKind::kAny;
        std::string name = through ? (*held)[0].text : a->expression;
        // Named with its spec (`{msg:>8}`): padded text is not the text a
        // caller passes, which binding would otherwise put there as it is.
        if (spec != "?") name += ":" + std::string(spec);
        out.AppendValue(name, kind);
      } else if (a != nullptr) {
        AppendNativeArg(*a, kind, "", -1, out);
      } else {
        AppendMissing(kind, out);
      }
      i = close;
    }
    if (!text.empty()) out.AppendText(text);
  });
}

}  // namespace

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kPercent:
      return "percent";
    case Format::kStrFormat:
      return "str.format";
    case Format::kPrintf:
      return "printf";
    case Format::kPyPrintf:
      return "PyUnicode_FromFormat";
    case Format::kSubstitute:
      return "Substitute";
    case Format::kBraces:
      return "braces";
  }
  return "?";
}

Printing PrintingOf(Format format) {
  return format == Format::kPercent || format == Format::kStrFormat ? Printing::kPython
                                                                    : Printing::kNative;
}

// `{:?}` of a Rust `str`: quoted, with `\\`, `"`, the usual control escapes
// and other control characters as `\u{..}` (core's char::escape_debug;
// printable non-ASCII stays as it is).
std::string RustDebug(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
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
      case '\0':
        out += "\\0";
        break;
      default:
        if (u < 0x20 || u == 0x7f) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\u{";
          if (u >= 0x10) out += kHex[u >> 4];
          out += kHex[u & 15];
          out += '}';
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

void AppendArg(Printing printing, const Arg& arg, ValueKind kind, std::string_view spec,
               int max_length, Template& out) {
  if (printing == Printing::kPython) {
    AppendPythonArg(arg, kind, spec, max_length, out);
  } else if (printing == Printing::kRust && kind == ValueKind::kRepr && arg.value &&
             arg.value->pieces().size() == 1 && !arg.value->pieces()[0].is_value &&
             max_length < 0 && (spec.empty() || spec == "?")) {
    // Debug quotes a string (written with quotes somewhere in the argument,
    // not a byte string's `b"..."`, which prints its bytes) and prints a
    // number as it is; a variable, which may hold either, and text beyond
    // ASCII, which Debug may escape by Unicode's tables, stay values.
    const std::string& text = arg.value->pieces()[0].text;
    std::string_view e = arg.expression;
    bool string = e.find('"') != std::string_view::npos && e.substr(0, 2) != "b\"" &&
                  e.substr(0, 2) != "br" && e.substr(0, 3) != "&b\"";
    bool ascii = std::all_of(text.begin(), text.end(),
                             [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    // A number only as written at the call: a variable may hold a string.
    bool number = !e.empty() && std::all_of(e.begin(), e.end(), IsDigit);
    if (string && ascii) {
      out.AppendText(RustDebug(text));
    } else if (number) {
      out.AppendText(text);
    } else {
      out.AppendValue(arg.expression, kind, spec, max_length);
    }
  } else {
    AppendNativeArg(arg, kind, spec, max_length, out);
  }
}

Template ApplyFormat(Format format, const Template& pattern, const FormatArgs& args) {
  switch (format) {
    case Format::kPercent:
      return Percent(pattern, args);
    case Format::kStrFormat:
      return StrFormat(pattern, args);
    case Format::kPrintf:
      return Printf(pattern, args.positional, false);
    case Format::kPyPrintf:
      return Printf(pattern, args.positional, true);
    case Format::kSubstitute:
      return Substitute(pattern, args.positional);
    case Format::kBraces:
      return Braces(pattern, args);
  }
  return pattern;
}

}  // namespace errdex::extract::flow
