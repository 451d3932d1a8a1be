// The message template of an error: literal text and placeholders for the
// values interpolated at run time, as the source builds it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errdex {

// What text a placeholder can stand for at run time.
enum class ValueKind {
  kStr,      // str() of anything: %s, {x}, StrCat arguments
  kRepr,     // repr(): !r, %r, %R, {x=}
  kInt,      // %d, {:d}, "%" PRId64
  kFloat,    // %f %g %e, {:.3f}
  kHex,      // %x, {:x}
  kChar,     // %c, a single character
  kPointer,  // %p
  kAny,      // a message or tail errdex could not resolve
};

std::string_view ValueKindName(ValueKind kind);
std::optional<ValueKind> ValueKindFromName(std::string_view name);

struct Piece {
  bool is_value = false;
  // A literal: the text itself. A value: the source expression it comes from,
  // whitespace collapsed (`pipeline_mode`, `type(mesh)`, `self._sharding`).
  std::string text;
  // Values only. `name` is unique within its template and safe as a regex group
  // name; it is assigned by Template::AssignNames.
  std::string name;
  ValueKind kind = ValueKind::kStr;
  // The conversion and format spec as written: "!r", ":.3f", "!r:>10" (shown
  // in the display form) or a printf spec such as "%5d" (not shown).
  std::string spec;
  int max_length = -1;  // %.200s: at most 200 characters; -1 when unbounded.
  // A value whose text is shown re-wrapped (`dedent(s)`, `fill(s)`): text
  // bound to it later (a helper's parameter) is reflowed too. Never stored.
  bool reflow = false;
};

// What one branch of a message assumes of a name in the code that builds
// it, when the branch is taken only under a test of that name: `"A" if p
// else "B"` gives A under p truthy and B under p falsy; an assignment under
// `if p is None:` its text under p None. Front ends only, never stored, and
// not part of a template's identity: binding p to a value the assumption
// contradicts (`f(None)`) drops the branch.
//
// kHolds and kFails are of a whole test at a place rather than of a name:
// `if path.endswith(".py"): msg += ...` gives the longer text under the
// test holding. The front end finds the test again by its bytes (`start`,
// `end`) counted from the start of the function it is in, whose text hashes
// to `scope`: a function whose text did not change finds them again
// wherever it moved in its file. `name` is "@" and those three, which no
// parameter is.
// It says the test as a condition of the site whose message it is.
struct Assumption {
  enum class Test : uint8_t { kTruthy, kFalsy, kNone, kNotNone, kHolds, kFails };
  std::string name;
  Test test = Test::kTruthy;
  uint32_t start = 0;
  uint32_t end = 0;
  uint32_t scope = 0;
  bool OfATest() const { return test == Test::kHolds || test == Test::kFails; }
  friend bool operator==(const Assumption& a, const Assumption& b) {
    return a.name == b.name && a.test == b.test && a.start == b.start && a.end == b.end &&
           a.scope == b.scope;
  }
};

// Appends literal text in the display form: `{` and `}` doubled, as in
// str.format, so a literal brace never reads as a placeholder.
void AppendDisplayLiteral(std::string& out, std::string_view text);

class Template {
 public:
  Template() = default;
  static Template Literal(std::string_view text);
  static Template Value(std::string_view expression, ValueKind kind, std::string_view spec = {},
                        int max_length = -1);

  void AppendText(std::string_view text);
  void AppendValue(std::string_view expression, ValueKind kind, std::string_view spec = {},
                   int max_length = -1);
  void Append(const Template& other);
  void AppendPiece(Piece piece);

  const std::vector<Piece>& pieces() const { return pieces_; }
  std::vector<Piece>& mutable_pieces() { return pieces_; }

  const std::vector<Assumption>& assumptions() const { return assumptions_; }
  void Assume(const Assumption& a);
  // Keeps what `other` assumes too: the same text reached by two branches
  // holds under what both say.
  void KeepCommonAssumptions(const Template& other);
  // Drops the assumptions `drop` is true of.
  template <typename Pred>
  void ForgetAssumptions(Pred drop) {
    assumptions_.erase(std::remove_if(assumptions_.begin(), assumptions_.end(), drop),
                       assumptions_.end());
  }
  // Two assumptions of one name that cannot both hold (p None and p
  // truthy): branches a concatenation joined that never run together.
  bool AssumesTheImpossible() const;

  // A value whose repr() prints its text as it stands: a bytes object,
  // whose str() and repr() are both b'...'. Front ends only, never stored,
  // not part of a template's identity.
  bool repr_is_text() const { return repr_is_text_; }
  void set_repr_is_text(bool v) { repr_is_text_ = v; }

  // The seed form: literal text with `{` and `}` doubled, each value as
  // `{expression}` followed by its conversion/format spec when that is
  // Python syntax. Equal display forms mean the same error.
  std::string Display() const;

  // Characters of literal text, the strength of a match.
  size_t LiteralSize() const;
  // No message at all (`raise ValueError`, `raise ValueError()`).
  bool empty() const { return pieces_.empty(); }
  // A message with values but no literal text: it can never identify an error.
  bool IsDynamic() const { return !pieces_.empty() && LiteralSize() == 0; }

  // Gives every value a unique `name` derived from its expression.
  void AssignNames();

  friend bool operator==(const Template& a, const Template& b) {
    return a.Display() == b.Display();
  }

 private:
  std::vector<Piece> pieces_;
  std::vector<Assumption> assumptions_;
  bool repr_is_text_ = false;
};

// A template whose literal pieces are rewritten by `scan(text, out)` (which
// appends to `out`); values pass through unchanged. What the formatting
// operators of every language are built on.
template <typename Scan>
Template MapLiterals(const Template& format, Scan scan) {
  Template out;
  for (const Assumption& a : format.assumptions()) out.Assume(a);
  for (const Piece& p : format.pieces()) {
    if (p.is_value) {
      out.AppendPiece(p);
    } else {
      scan(std::string_view(p.text), out);
    }
  }
  return out;
}

// The identifier a value's expression is known by: identifiers and attributes
// joined by '_', `self`/`cls` dropped when something else is left, leading
// underscores removed (`self._sharding` -> `sharding`, `type(mesh)` ->
// `type_mesh`); "value" when the expression has no identifier.
std::string PlaceholderName(std::string_view expression);

}  // namespace errdex
