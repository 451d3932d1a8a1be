#include "extract/python/cy_prepass.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string_view>
#include <vector>

#include "core/text.h"
#include "extract/python/py_prepass.h"

namespace errdex::extract::python {
namespace {

constexpr size_t kNone = std::string_view::npos;

// A cast is at most this many tokens between `<` and `>`
// (`<np.ndarray[np.float64_t, ndim=2]>` has 14): the scan stays linear.
constexpr size_t kMaxCastTokens = 32;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Words after which an expression starts: `<` there opens a cast, `&` takes
// an address.
bool IsExpressionKeyword(std::string_view w) {
  static constexpr std::string_view kWords[] = {
      "and", "assert", "await", "elif",   "else",  "if",    "in",    "is",   "lambda",
      "not", "or",     "raise", "return", "while", "yield", "print", "with", "del"};
  return std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords);
}

// Words of a C declaration that come before its type and name.
bool IsModifier(std::string_view w) {
  static constexpr std::string_view kWords[] = {"cdef",     "cpdef",    "inline", "public", "api",
                                                "readonly", "static",   "const",  "extern", "nogil",
                                                "signed",   "unsigned", "long",   "short"};
  return std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords);
}

// What follows `cdef` in a statement that declares only C things: the
// statement and its indented block carry no Python.
bool IsCOnlyBlock(std::string_view w) {
  return w == "extern" || w == "struct" || w == "union" || w == "enum" || w == "cppclass" ||
         w == "fused" || w == "packed" || w == "ctypedef";
}

bool IsStringPrefix(std::string_view w) {
  return w.size() <= 2 && w.find_first_not_of("rRbBuUfFcC") == kNone;
}

// Tempita's own statements: `{{for ...}}`, `{{py: ...}}`, `{{endif}}`.
bool IsTempitaDirective(std::string_view inner) {
  std::string_view t = Trim(inner);
  size_t w = 0;
  while (w < t.size() && IsPythonWordByte(t[w])) ++w;
  std::string_view word = t.substr(0, w);
  static constexpr std::string_view kWords[] = {
      "py",       "for", "endfor", "if",      "elif",    "else",  "endif",   "while",
      "endwhile", "def", "enddef", "default", "inherit", "break", "continue"};
  return (!t.empty() && t[0] == '#') ||
         std::find(std::begin(kWords), std::end(kWords), word) != std::end(kWords);
}

enum class Tk { kWord, kNumber, kString, kOp, kOpen, kClose };

struct Tok {
  size_t begin;
  size_t end;
  Tk kind;
  int depth;  // brackets around it; an opener and its closer share one
};

class Rewriter {
 public:
  Rewriter(std::string& text, bool tempita) : t_(text), n_(text.size()), tempita_(tempita) {}

  int Run() {
    if (tempita_) Tempita();
    std::vector<Tok> toks;
    size_t i = 0;
    while (i < n_) {
      toks.clear();
      size_t end = LogicalLine(i, toks);
      if (!toks.empty()) {
        size_t indent = toks[0].begin - i;
        Line(toks, indent);
      }
      i = end;
    }
    return rewrites_;
  }

 private:
  char At(size_t i) const { return i < n_ ? t_[i] : '\0'; }
  std::string_view Text(const Tok& k) const {
    return std::string_view(t_).substr(k.begin, k.end - k.begin);
  }
  bool Is(const Tok& k, std::string_view s) const { return Text(k) == s; }
  bool IsWord(const Tok& k, std::string_view s) const { return k.kind == Tk::kWord && Is(k, s); }

  // Spaces over [from, to), line breaks kept.
  void Blank(size_t from, size_t to) {
    bool any = false;
    for (size_t k = from; k < to && k < n_; ++k) {
      if (t_[k] != '\n' && t_[k] != '\r' && t_[k] != ' ') {
        t_[k] = ' ';
        any = true;
      }
    }
    if (any) ++rewrites_;
  }

  // Writes `s` at `at` (which has room for it) and blanks the rest up to `to`.
  void Overwrite(size_t at, std::string_view s, size_t to) {
    Blank(at, to);
    for (size_t k = 0; k < s.size() && at + k < to; ++k) t_[at + k] = s[k];
    ++rewrites_;
  }

  // `{{...}}` outside strings: directives to spaces, substitutions to an
  // identifier of the same length.
  void Tempita() {
    char quote = 0;
    bool triple = false;
    size_t i = 0;
    while (i < n_) {
      char c = t_[i];
      if (quote != 0) {
        if (c == '\\') {
          i += 2;
        } else if (c == '\n' && !triple) {
          quote = 0;
          ++i;
        } else if (c == quote && (!triple || (At(i + 1) == quote && At(i + 2) == quote))) {
          i += triple ? 3 : 1;
          quote = 0;
        } else {
          ++i;
        }
        continue;
      }
      if (c == '#') {
        while (i < n_ && t_[i] != '\n') ++i;
        continue;
      }
      if (c == '"' || c == '\'') {
        quote = c;
        triple = At(i + 1) == c && At(i + 2) == c;
        i += triple ? 3 : 1;
        continue;
      }
      if (c == '{' && At(i + 1) == '{') {
        size_t close = t_.find("}}", i + 2);
        if (close == kNone) return;  // no later `}}`: nothing more is templated
        std::string_view inner(t_.data() + i + 2, close - i - 2);
        size_t end = close + 2;
        if (IsTempitaDirective(inner) || inner.find('\n') != kNone) {
          Blank(i, end);
        } else {
          for (size_t k = i; k < end; ++k) t_[k] = '_';
          ++rewrites_;
        }
        i = end;
        continue;
      }
      ++i;
    }
  }

  // Tokens of the logical line that starts at `i` (brackets and backslashes
  // join physical lines); returns where the next one starts.
  size_t LogicalLine(size_t i, std::vector<Tok>& toks) {
    int depth = 0;
    while (i < n_) {
      char c = t_[i];
      if (c == '\n') {
        ++i;
        if (depth == 0) return i;
        continue;
      }
      if (size_t next = SkipPythonBlank(t_, i); next != i) {
        i = next;
        continue;
      }
      size_t s = i;
      if (c == '"' || c == '\'') {
        i = StringEnd(i);
        toks.push_back({s, i, Tk::kString, depth});
      } else if (IsPythonWordByte(c)) {
        while (i < n_ && IsPythonWordByte(t_[i])) ++i;
        std::string_view w(t_.data() + s, i - s);
        if ((At(i) == '"' || At(i) == '\'') && IsStringPrefix(w)) {
          // c'x' is a C char literal; without its `c` it is a Python string.
          for (size_t k = s; k < i; ++k) {
            if (t_[k] == 'c' || t_[k] == 'C') {
              t_[k] = ' ';
              ++rewrites_;
            }
          }
          i = StringEnd(i);
          toks.push_back({s, i, Tk::kString, depth});
        } else if (IsDigit(c)) {
          CIntegerSuffix(s, i);
          toks.push_back({s, i, Tk::kNumber, depth});
        } else {
          toks.push_back({s, i, Tk::kWord, depth});
        }
      } else if (c == '(' || c == '[' || c == '{') {
        toks.push_back({s, ++i, Tk::kOpen, depth++});
      } else if (c == ')' || c == ']' || c == '}') {
        depth = std::max(0, depth - 1);
        toks.push_back({s, ++i, Tk::kClose, depth});
      } else {
        static constexpr std::string_view kPairs[] = {
            "==", "!=", "<=", ">=", "**", "->", ":=", "//", "<<", ">>",
            "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="};
        std::string_view two(t_.data() + i, std::min<size_t>(2, n_ - i));
        bool pair = std::find(std::begin(kPairs), std::end(kPairs), two) != std::end(kPairs);
        i += pair ? 2 : 1;
        toks.push_back({s, i, Tk::kOp, depth});
      }
    }
    return i;
  }

  // C's `U`/`L` after an integer (`0x80000000UL`): spaces.
  void CIntegerSuffix(size_t begin, size_t end) {
    size_t k = end;
    while (k > begin + 1 &&
           (t_[k - 1] == 'u' || t_[k - 1] == 'U' || t_[k - 1] == 'l' || t_[k - 1] == 'L')) {
      --k;
    }
    if (k == end || !std::isxdigit(static_cast<unsigned char>(t_[k - 1]))) return;
    bool hex =
        end - begin > 2 && t_[begin] == '0' && (t_[begin + 1] == 'x' || t_[begin + 1] == 'X');
    if (!hex && !IsDigit(t_[k - 1])) return;  // 1e5L is no C integer either
    Blank(k, end);
  }

  // Past the string whose quote is at `q` (or to the newline that leaves a
  // single-quoted one unterminated).
  size_t StringEnd(size_t q) {
    char quote = t_[q];
    bool triple = At(q + 1) == quote && At(q + 2) == quote;
    size_t i = q + (triple ? 3 : 1);
    while (i < n_) {
      char c = t_[i];
      if (c == '\\') {
        i += 2;
      } else if (c == '\n' && !triple) {
        return i;
      } else if (c == quote && (!triple || (At(i + 1) == quote && At(i + 2) == quote))) {
        return i + (triple ? 3 : 1);
      } else {
        ++i;
      }
    }
    return n_;
  }

  void Line(const std::vector<Tok>& toks, size_t indent) {
    if (block_indent_ != kNone) {
      if (indent > block_indent_) {
        Blank(toks.front().begin, toks.back().end);
        return;
      }
      block_indent_ = kNone;
    }
    Expressions(toks);
    if (cdef_block_ != kNone) {
      if (indent > cdef_block_) {
        Declaration(toks, 0);
        return;
      }
      cdef_block_ = kNone;
    }
    Statement(toks, indent);
  }

  // The statement `0` over the whole statement.
  void Neutralize(const std::vector<Tok>& toks) {
    Overwrite(toks.front().begin, "0", toks.back().end);
  }

  // The same, with the indented block a trailing `:` opens.
  void NeutralizeBlock(const std::vector<Tok>& toks, size_t indent) {
    if (Is(toks.back(), ":")) block_indent_ = indent;
    Neutralize(toks);
  }

  // Index of the first token from `from` that is `s` at depth `depth`, or
  // toks.size().
  size_t Find(const std::vector<Tok>& toks, size_t from, std::string_view s, int depth) const {
    for (size_t k = from; k < toks.size(); ++k) {
      if (toks[k].depth == depth && Is(toks[k], s)) return k;
    }
    return toks.size();
  }

  void Statement(const std::vector<Tok>& toks, size_t indent) {
    const Tok& first = toks[0];
    if (first.kind != Tk::kWord) return;
    std::string_view w = Text(first);
    if (w == "cimport" || (w == "from" && Find(toks, 1, "cimport", 0) < toks.size())) {
      Neutralize(toks);
    } else if (w == "include" && toks.size() >= 2 && toks[1].kind == Tk::kString) {
      Neutralize(toks);
    } else if (w == "ctypedef") {
      NeutralizeBlock(toks, indent);
    } else if (w == "DEF") {
      Declaration(toks, 1);
    } else if ((w == "IF" || w == "ELIF" || w == "ELSE") && Is(toks.back(), ":")) {
      for (size_t k = first.begin; k < first.end; ++k) t_[k] = static_cast<char>(t_[k] - 'A' + 'a');
      ++rewrites_;
    } else if (w == "cdef" || w == "cpdef") {
      Cdef(toks, indent);
    } else if (w == "def" || (w == "async" && toks.size() > 1 && IsWord(toks[1], "def"))) {
      size_t open = Find(toks, 1, "(", 0);
      if (open < toks.size()) Parameters(toks, open);
    } else if (w == "property" && toks.size() == 3 && toks[1].kind == Tk::kWord &&
               Is(toks[2], ":")) {
      // The old accessor block (`property x:` holding `def __get__`).
      Overwrite(first.begin, "class", first.end);
    } else if (w == "for") {
      ForFrom(toks);
    }
  }

  void Cdef(const std::vector<Tok>& toks, size_t indent) {
    const Tok& first = toks[0];
    if (toks.size() == 2 && Is(toks[1], ":")) {
      // `cdef:` opens a block of declarations; `if 1` keeps it a block.
      Overwrite(first.begin, "if 1", first.end);
      cdef_block_ = indent;
      return;
    }
    size_t k = 1;
    while (k < toks.size() && toks[k].kind == Tk::kWord &&
           (Text(toks[k]) == "public" || Text(toks[k]) == "api" || Text(toks[k]) == "readonly")) {
      ++k;
    }
    if (k >= toks.size()) return Neutralize(toks);
    if (IsWord(toks[k], "class") && k + 1 < toks.size() && toks[k + 1].kind == Tk::kWord) {
      Overwrite(first.begin, "class", toks[k + 1].begin);
      // `cdef class A [object AObject, type AType]:` names C structs.
      size_t open = k + 2;
      if (open < toks.size() && Is(toks[open], "[")) {
        size_t close = Find(toks, open + 1, "]", toks[open].depth);
        if (close < toks.size()) Blank(toks[open].begin, toks[close].end);
      }
      return;
    }
    if (toks[k].kind == Tk::kWord && IsCOnlyBlock(Text(toks[k])))
      return NeutralizeBlock(toks, indent);
    // A function: its name is the first word (not a modifier) before a `(`,
    // and a `:` follows the parameters.
    for (size_t p = k + 1; p < toks.size(); ++p) {
      if (toks[p].depth != 0) continue;
      if (Is(toks[p], "=") || Is(toks[p], ":")) break;
      if (!Is(toks[p], "(")) continue;
      const Tok& name = toks[p - 1];
      if (name.kind != Tk::kWord || IsModifier(Text(name))) continue;
      size_t close = Find(toks, p + 1, ")", 0);
      size_t colon = Find(toks, close, ":", 0);
      if (close >= toks.size() || colon >= toks.size()) break;  // a declaration
      Overwrite(first.begin, "def", name.begin);
      Parameters(toks, p);
      Blank(toks[close].end, toks[colon].begin);
      return;
    }
    Declaration(toks, k);
  }

  // A typed declaration from toks[from]: `TYPE name = value` keeps the
  // assignment behind a `0;`; anything else is the statement `0`.
  void Declaration(const std::vector<Tok>& toks, size_t from) {
    size_t eq = Find(toks, from, "=", 0);
    if (eq == toks.size() || eq == from || Find(toks, from, ",", 0) < toks.size()) {
      return Neutralize(toks);
    }
    const Tok& name = toks[eq - 1];
    if (name.kind != Tk::kWord || name.begin < toks[0].begin + 2) return Neutralize(toks);
    Overwrite(toks[0].begin, "0;", name.begin);
  }

  // The parameters in the brackets opened at toks[open]: each keeps its
  // name, default and annotation; C types, `not None` and `=*` go.
  void Parameters(const std::vector<Tok>& toks, size_t open) {
    int depth = toks[open].depth + 1;
    size_t close = Find(toks, open + 1, ")", depth - 1);
    size_t a = open + 1;
    while (a < close) {
      size_t b = a;
      while (b < close && !(toks[b].depth == depth && Is(toks[b], ","))) ++b;
      Parameter(toks, a, b, depth);
      a = b + 1;
    }
  }

  void Parameter(const std::vector<Tok>& toks, size_t a, size_t b, int depth) {
    if (a >= b || Is(toks[a], "*") || Is(toks[a], "**") || Is(toks[a], "/")) return;
    size_t eq = b;
    for (size_t k = a; k < b; ++k) {
      if (toks[k].depth != depth) continue;
      if (Is(toks[k], ":")) return;  // annotated: Python already
      if (Is(toks[k], "=")) {
        eq = k;
        break;
      }
    }
    if (eq + 1 < b && Is(toks[eq + 1], "*") && eq + 2 == b) {
      Blank(toks[eq].begin, toks[eq + 1].end);  // `x=*`: a default the .pyx gives
    }
    size_t end = eq;
    if (end >= a + 3 && toks[end - 1].kind == Tk::kWord && Is(toks[end - 1], "None") &&
        (IsWord(toks[end - 2], "not") || IsWord(toks[end - 2], "or"))) {
      end -= 2;
      Blank(toks[end].begin, toks[eq - 1].end);
    }
    if (end <= a + 1) return;
    size_t name = end;
    for (size_t k = end; k-- > a;) {
      if (toks[k].depth == depth && toks[k].kind == Tk::kWord) {
        name = k;
        break;
      }
    }
    if (name == end) return;
    Blank(toks[a].begin, toks[name].begin);
    Blank(toks[name].end, toks[end - 1].end);
  }

  // `for i from 0 <= i < n by 2:` (Pyrex's loop) reads `for i in ...`.
  void ForFrom(const std::vector<Tok>& toks) {
    if (toks.size() < 4 || toks[1].kind != Tk::kWord || !IsWord(toks[2], "from")) return;
    Overwrite(toks[2].begin, "in", toks[2].end);
    size_t by = Find(toks, 3, "by", 0);
    size_t colon = Find(toks, 3, ":", 0);
    if (by < colon && colon < toks.size()) Blank(toks[by].begin, toks[colon].begin);
  }

  // Casts, address-of, a pointer star after a type, C++ `new`.
  void Expressions(const std::vector<Tok>& toks) {
    for (size_t k = 0; k < toks.size(); ++k) {
      const Tok& tok = toks[k];
      bool prefix = k == 0 || toks[k - 1].kind == Tk::kOp || toks[k - 1].kind == Tk::kOpen ||
                    (toks[k - 1].kind == Tk::kWord && IsExpressionKeyword(Text(toks[k - 1])));
      if (prefix && Is(tok, "<")) {
        size_t end = CastEnd(toks, k);
        if (end != kNone) {
          Blank(tok.begin, toks[end].end);
          k = end;
        }
      } else if (prefix && k > 0 && Is(tok, "&") && k + 1 < toks.size() &&
                 (toks[k + 1].kind == Tk::kWord || toks[k + 1].kind == Tk::kOpen)) {
        Blank(tok.begin, tok.end);
      } else if (prefix && k > 0 && IsWord(tok, "new") && k + 1 < toks.size() &&
                 toks[k + 1].kind == Tk::kWord) {
        Blank(tok.begin, tok.end);
      } else if ((Is(tok, "*") || Is(tok, "**")) && k > 0 && toks[k - 1].kind == Tk::kWord &&
                 k + 1 < toks.size() &&
                 (toks[k + 1].kind == Tk::kClose || Is(toks[k + 1], ",") || Is(toks[k + 1], ">"))) {
        Blank(tok.begin, tok.end);
      }
    }
  }

  // The index of the `>` that closes a cast opened at toks[at], or kNone.
  size_t CastEnd(const std::vector<Tok>& toks, size_t at) const {
    int depth = toks[at].depth;
    for (size_t k = at + 1; k < toks.size() && k <= at + kMaxCastTokens; ++k) {
      const Tok& tok = toks[k];
      if (tok.depth == depth && Is(tok, ">")) return k > at + 1 ? k : kNone;
      bool typeish = tok.kind == Tk::kWord || tok.kind == Tk::kNumber || tok.kind == Tk::kOpen ||
                     tok.kind == Tk::kClose || Is(tok, ".") || Is(tok, "*") || Is(tok, "**") ||
                     Is(tok, "&") || Is(tok, "?") || Is(tok, ",") || Is(tok, ":") || Is(tok, "=");
      if (!typeish) return kNone;
    }
    return kNone;
  }

  std::string& t_;
  const size_t n_;
  const bool tempita_;
  int rewrites_ = 0;
  size_t block_indent_ = kNone;  // blanking the block under a C-only statement
  size_t cdef_block_ = kNone;    // inside a `cdef:` block
};

}  // namespace

bool IsTempitaPath(std::string_view path) {
  return EndsWith(path, ".pyx.in") || EndsWith(path, ".pxi.in") || EndsWith(path, ".pxd.in");
}

bool IsCythonPath(std::string_view path) {
  return EndsWith(path, ".pyx") || EndsWith(path, ".pxd") || EndsWith(path, ".pxi") ||
         IsTempitaPath(path);
}

int RewriteCython(std::string& text, bool tempita) { return Rewriter(text, tempita).Run(); }

}  // namespace errdex::extract::python
