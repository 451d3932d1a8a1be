#include "extract/python/py_prepass.h"

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace errdex::extract::python {
namespace {

constexpr size_t kNone = std::string_view::npos;

// Deeper f-strings inside f-strings are skipped, not read: the recursion
// stays bounded on any input.
constexpr int kMaxFieldNesting = 32;

// Words after which `[` opens a list display or pattern, not a subscript.
// `match` and `case` are soft keywords; taking them always as keywords costs
// only `match[*(...)]` on a variable named so, which stays unparsed.
bool IsKeyword(std::string_view w) {
  static constexpr std::string_view kWords[] = {
      "and",    "as",  "assert",   "async",  "await", "case",   "del",   "elif", "else",
      "except", "for", "from",     "global", "if",    "import", "in",    "is",   "lambda",
      "match",  "not", "nonlocal", "or",     "raise", "return", "while", "with", "yield"};
  return std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords);
}

// Words that name what the next `[` gives type parameters to.
bool IntroducesTypeParams(std::string_view w) { return w == "def" || w == "class" || w == "type"; }

bool IsStringPrefix(std::string_view w) {
  return w.size() <= 2 && w.find_first_not_of("rRbBuUfFtT") == kNone;
}

class Rewriter {
 public:
  explicit Rewriter(std::string& text) : t_(text), n_(text.size()) {}

  int Run() {
    Code(0, 0);
    return rewrites_;
  }

 private:
  enum class Last { kNothing, kOperand, kKeyword, kOpen, kComma, kOther };
  enum class Role { kPlain, kSubscript, kTypeParams };
  struct Bracket {
    Role role;
    size_t default_from;  // where a type parameter's `= default` began
  };

  char At(size_t i) const { return i < n_ ? t_[i] : '\0'; }

  // Blanks the default that ends at `end` (a `,` or the bracket's close).
  void EndDefault(Bracket& b, size_t end) {
    if (b.default_from == kNone) return;
    for (size_t k = b.default_from; k < end; ++k) {
      if (t_[k] != '\n' && t_[k] != '\r') t_[k] = ' ';
    }
    b.default_from = kNone;
    ++rewrites_;
  }

  // Code from `i` to the end of the text or, in a replacement field
  // (`nesting` > 0), to the `}`, `!` or `:` that closes its expression.
  size_t Code(size_t i, int nesting) {
    const bool field = nesting > 0;
    std::vector<Bracket> open;
    Last last = Last::kNothing;
    std::string_view word;     // the previous token, when it was a word
    bool after_intro = false;  // that word followed `def`, `class` or `type`
    while (i < n_) {
      char c = t_[i];
      if (c == '\n') {
        // A newline outside brackets ends the statement.
        if (open.empty() && !field) last = Last::kNothing;
        ++i;
        continue;
      }
      if (size_t next = SkipPythonBlank(t_, i); next != i) {
        i = next;
        continue;
      }
      if (field && open.empty() && (c == '}' || c == ':' || (c == '!' && At(i + 1) != '='))) {
        return i;
      }
      std::string_view this_word;
      bool this_after_intro = false;
      if (c == '"' || c == '\'') {
        i = String(i, i, nesting);
        last = Last::kOperand;
      } else if (IsPythonWordByte(c)) {
        size_t s = i;
        while (i < n_ && IsPythonWordByte(t_[i])) ++i;
        std::string_view w(t_.data() + s, i - s);
        if ((At(i) == '"' || At(i) == '\'') && IsStringPrefix(w)) {
          i = String(s, i, nesting);
          last = Last::kOperand;
        } else {
          this_word = w;
          this_after_intro = !word.empty() && IntroducesTypeParams(word);
          last = IsKeyword(w) ? Last::kKeyword : Last::kOperand;
        }
      } else if (c == '(' || c == '[' || c == '{') {
        Role role = Role::kPlain;
        if (c == '[' && last == Last::kOperand) {
          role = after_intro ? Role::kTypeParams : Role::kSubscript;
        }
        open.push_back({role, kNone});
        last = Last::kOpen;
        ++i;
      } else if (c == ')' || c == ']' || c == '}') {
        if (!open.empty()) {
          EndDefault(open.back(), i);
          open.pop_back();
        }
        last = Last::kOperand;
        ++i;
      } else if (c == ',') {
        if (!open.empty()) EndDefault(open.back(), i);
        last = Last::kComma;
        ++i;
      } else if (c == '*' && !open.empty() && open.back().role == Role::kSubscript &&
                 (last == Last::kOpen || last == Last::kComma) && At(i + 1) != '*' &&
                 At(i + 1) != '=') {
        // The grammar reads `x[*name]` (as a pattern) but not `x[*(...)]`;
        // unstarred, every element is an expression it reads.
        t_[i] = ' ';
        ++rewrites_;
        last = Last::kOther;
        ++i;
      } else if (c == '=' && !open.empty() && open.back().role == Role::kTypeParams &&
                 open.back().default_from == kNone && last == Last::kOperand && At(i + 1) != '=') {
        open.back().default_from = i;
        last = Last::kOther;
        ++i;
      } else {
        last = Last::kOther;
        ++i;
      }
      word = this_word;
      after_intro = this_after_intro;
    }
    return i;
  }

  // The string whose prefix starts at `s` and whose quote is at `q`, to past
  // its closing quote (or to the newline that leaves it unterminated).
  size_t String(size_t s, size_t q, int nesting) {
    bool formatted = false;
    for (size_t k = s; k < q; ++k) {
      char& p = t_[k];
      if (p == 't' || p == 'T') {
        p = p == 't' ? 'f' : 'F';
        ++rewrites_;
      }
      formatted |= p == 'f' || p == 'F';
    }
    char quote = t_[q];
    bool triple = At(q + 1) == quote && At(q + 2) == quote;
    return Literal(q + (triple ? 3 : 1), quote, triple, formatted, nesting, false);
  }

  // A string's text from `i` to past its closing quote; in a format spec
  // (`spec`), to the `}` that ends it, not past.
  size_t Literal(size_t i, char quote, bool triple, bool formatted, int nesting, bool spec) {
    while (i < n_) {
      char c = t_[i];
      if (c == '\\') {
        // Raw or not, a backslash keeps the next quote in the string; a
        // brace after it still opens or closes a field.
        bool brace = formatted && (At(i + 1) == '{' || At(i + 1) == '}');
        i = std::min(i + (brace ? 1 : 2), n_);
      } else if (c == '\n' && !triple) {
        return i;
      } else if (c == quote && (!triple || (At(i + 1) == quote && At(i + 2) == quote))) {
        return spec ? i : i + (triple ? 3 : 1);
      } else if (formatted && c == '{') {
        if (!spec && At(i + 1) == '{') {
          i += 2;
        } else {
          i = Field(i + 1, quote, triple, nesting + 1);
        }
      } else if (formatted && c == '}') {
        if (spec) return i;
        i += At(i + 1) == '}' ? 2 : 1;
      } else {
        ++i;
      }
    }
    return i;
  }

  // A replacement field from after its `{` to past its `}`.
  size_t Field(size_t i, char quote, bool triple, int nesting) {
    if (nesting > kMaxFieldNesting) {
      while (i < n_ && t_[i] != '}' && t_[i] != '\n') ++i;
      return std::min(i + 1, n_);
    }
    i = Code(i, nesting);
    if (At(i) == '!') {
      ++i;
      while (i < n_ && IsPythonWordByte(t_[i])) ++i;
    }
    if (At(i) == ':') i = Literal(i + 1, quote, triple, true, nesting, true);
    if (At(i) == '}') ++i;
    return i;
  }

  std::string& t_;
  const size_t n_;
  int rewrites_ = 0;
};

}  // namespace

size_t SkipPythonBlank(std::string_view text, size_t i) {
  const size_t n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
      ++i;
    } else if (c == '\\') {
      i = std::min(i + 2, n);
    } else if (c == '#') {
      while (i < n && text[i] != '\n') ++i;
    } else {
      break;
    }
  }
  return i;
}

bool IsPythonWordByte(char c) {
  auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
         u == '_';
}

int RewriteForGrammar(std::string& text) { return Rewriter(text).Run(); }

}  // namespace errdex::extract::python
