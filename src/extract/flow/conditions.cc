#include "extract/flow/conditions.h"

#include <algorithm>
#include <climits>

#include "core/text.h"
#include "extract/ts_util.h"

namespace errdex::extract::flow {

namespace {

bool Equal(const Formula& a, const Formula& b) {
  if (a.op != b.op) return false;
  if (a.op == Formula::kAtom) return a.atom.id == b.atom.id && a.negated == b.negated;
  if (a.parts.size() != b.parts.size()) return false;
  for (size_t i = 0; i < a.parts.size(); ++i) {
    if (!Equal(a.parts[i], b.parts[i])) return false;
  }
  return true;
}

bool Complementary(const Formula& a, const Formula& b) {
  return a.op == Formula::kAtom && b.op == Formula::kAtom && a.atom.id == b.atom.id &&
         a.negated != b.negated;
}

// The items of one alternative (of an Or) or one requirement (of an And):
// the parts of a nested operation of the other kind, else the formula alone.
std::vector<Formula> Items(const Formula& f, Formula::Op inner) {
  return f.op == inner ? f.parts : std::vector<Formula>{f};
}

bool Has(const std::vector<Formula>& items, const Formula& x) {
  return std::any_of(items.begin(), items.end(), [&](const Formula& i) { return Equal(i, x); });
}

// One round of the rules on a flattened And (inner = kOr) or Or (inner =
// kAnd). `unit`/`zero` are the operation's identity and absorbing constant.
// Returns whether anything changed.
bool Round(Formula& f) {
  const Formula::Op op = f.op;
  const Formula::Op inner = op == Formula::kAnd ? Formula::kOr : Formula::kAnd;
  const Formula::Op unit = op == Formula::kAnd ? Formula::kTrue : Formula::kFalse;
  const Formula::Op zero = op == Formula::kAnd ? Formula::kFalse : Formula::kTrue;
  std::vector<Formula> parts;
  bool changed = false;
  for (Formula& p : f.parts) {
    if (p.op == op) {
      for (Formula& q : p.parts) parts.push_back(std::move(q));
      changed = true;
    } else if (p.op == unit || Has(parts, p)) {
      changed = true;
    } else if (p.op == zero) {
      f = Formula{zero, {}, false, {}};
      return true;
    } else {
      parts.push_back(std::move(p));
    }
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    for (size_t j = 0; j < parts.size(); ++j) {
      if (i != j && Complementary(parts[i], parts[j])) {  // x and not x; x or not x
        f = Formula{zero, {}, false, {}};
        return true;
      }
    }
  }
  // With a literal x present: an inner alternative holding x is absorbed
  // (x or (x and y) is x), and not x drops out of one (x or (not x and y) is
  // x or y). The same, dually, in an And.
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].op != Formula::kAtom) continue;
    for (size_t j = 0; j < parts.size(); ++j) {
      if (j == i || parts[j].op != inner) continue;
      if (Has(parts[j].parts, parts[i])) {
        parts[j] = Formula{unit, {}, false, {}};  // removed on the next round
        changed = true;
        continue;
      }
      auto& items = parts[j].parts;
      size_t before = items.size();
      items.erase(std::remove_if(items.begin(), items.end(),
                                 [&](const Formula& x) { return Complementary(x, parts[i]); }),
                  items.end());
      changed |= items.size() != before;
    }
  }
  // Two alternatives whose items are the same but for one complementary
  // pair merge: (a and x) or (a and not x) is a. One whose items include all
  // of another's is absorbed by it.
  for (size_t i = 0; i < parts.size(); ++i) {
    std::vector<Formula> a = Items(parts[i], inner);
    for (size_t j = 0; j < parts.size(); ++j) {
      if (i == j || parts[i].op == unit) continue;
      std::vector<Formula> b = Items(parts[j], inner);
      if (parts[j].op == unit) continue;
      bool subset = std::all_of(a.begin(), a.end(), [&](const Formula& x) { return Has(b, x); });
      if (subset) {
        parts[j] = Formula{unit, {}, false, {}};
        changed = true;
        continue;
      }
      if (a.size() != b.size()) continue;
      int missing = 0, pair = -1;
      for (size_t k = 0; k < a.size(); ++k) {
        if (Has(b, a[k])) continue;
        ++missing;
        pair = static_cast<int>(k);
      }
      if (missing != 1) continue;
      Formula flipped = a[pair];
      flipped.negated = !flipped.negated;
      if (a[pair].op != Formula::kAtom || !Has(b, flipped)) continue;
      a.erase(a.begin() + pair);
      parts[i] = a.size() == 1 ? a[0] : Formula{inner, {}, false, a};
      parts[j] = Formula{unit, {}, false, {}};
      changed = true;
      break;
    }
  }
  // Items every alternative shares are taken out: (a and x) or (a and y) is
  // a and (x or y) — so the outermost requirements become guards of their own.
  if (parts.size() >= 2 && !changed) {
    std::vector<Formula> common = Items(parts[0], inner);
    for (size_t i = 1; i < parts.size(); ++i) {
      std::vector<Formula> b = Items(parts[i], inner);
      common.erase(std::remove_if(common.begin(), common.end(),
                                  [&](const Formula& x) { return !Has(b, x); }),
                   common.end());
    }
    if (!common.empty()) {
      std::vector<Formula> rest;
      for (Formula& p : parts) {
        std::vector<Formula> left;
        for (Formula& x : Items(p, inner)) {
          if (!Has(common, x)) left.push_back(std::move(x));
        }
        rest.push_back(
            left.empty()
                ? Formula{unit == Formula::kTrue ? Formula::kFalse : Formula::kTrue, {}, false, {}}
            : left.size() == 1 ? left[0]
                               : Formula{inner, {}, false, left});
      }
      common.push_back(Formula{op, {}, false, std::move(rest)});
      f = Formula{inner, {}, false, std::move(common)};
      return true;
    }
  }
  if (parts.empty()) {
    f = Formula{unit, {}, false, {}};
    return true;
  }
  if (parts.size() == 1) {
    Formula only = std::move(parts[0]);
    f = std::move(only);
    return true;
  }
  f.parts = std::move(parts);
  return changed;
}

}  // namespace

namespace {

uint32_t FirstByte(const Formula& f) {
  if (f.op == Formula::kAtom) return ts_node_start_byte(f.atom);
  uint32_t first = UINT32_MAX;
  for (const Formula& p : f.parts) first = std::min(first, FirstByte(p));
  return first;
}

// The rules move operands around; the source order is the order the author
// wrote and Python evaluates (`x is not None and x.y`), so it is restored.
void SourceOrder(Formula& f) {
  for (Formula& p : f.parts) SourceOrder(p);
  std::stable_sort(f.parts.begin(), f.parts.end(),
                   [](const Formula& a, const Formula& b) { return FirstByte(a) < FirstByte(b); });
}

Formula Reduce(Formula f) {
  // Each round shrinks the formula or leaves it as it was; the bound only
  // guards against a rule that might undo another.
  for (int round = 0; round < 32; ++round) {
    if (f.op != Formula::kAnd && f.op != Formula::kOr) return f;
    for (Formula& p : f.parts) p = Reduce(std::move(p));
    if (!Round(f)) return f;
  }
  return f;
}

}  // namespace

Formula Simplify(Formula f) {
  f = Reduce(std::move(f));
  SourceOrder(f);
  return f;
}

size_t Formula::Atoms() const {
  if (op == kAtom) return 1;
  size_t n = 0;
  for (const Formula& p : parts) n += p.Atoms();
  return n;
}

std::string Wrap(const Expr& e, int at_least) {
  return e.precedence < at_least ? "(" + e.text + ")" : e.text;
}

Expr Render(const Formula& f, const ConditionWriter& writer) {
  const ConditionWriter::Words& w = writer.Connectives();
  switch (f.op) {
    case Formula::kTrue:
      return {w.true_word, w.operand_precedence};
    case Formula::kFalse:
      return {w.false_word, w.operand_precedence};
    case Formula::kAtom:
      return f.negated ? writer.Negative(f.atom) : writer.Positive(f.atom);
    case Formula::kAnd:
    case Formula::kOr: {
      int p = f.op == Formula::kAnd ? w.and_precedence : w.or_precedence;
      std::string text;
      for (const Formula& part : f.parts) {
        if (!text.empty()) text += f.op == Formula::kAnd ? w.and_word : w.or_word;
        // Same-operator nesting needs no parentheses: both are associative.
        text += Wrap(Render(part, writer), p);
      }
      return {text, p};
    }
  }
  return {w.true_word, w.operand_precedence};
}

std::optional<Expr> NegatedCBinary(std::string_view op, TSNode left, TSNode right,
                                   std::string_view source, const ConditionWriter& writer,
                                   int equality_precedence) {
  const ConditionWriter::Words& w = writer.Connectives();
  if (op == "&&" || op == "||" || op == "and" || op == "or") {
    bool conj = op == "&&" || op == "and";
    int p = conj ? w.or_precedence : w.and_precedence;
    return Expr{Wrap(writer.Negative(left), p) + (conj ? w.or_word : w.and_word) +
                    Wrap(writer.Negative(right), p),
                p};
  }
  if (op == "==" || op == "!=") {
    return Expr{CodeText(left, source) + (op == "==" ? " != " : " == ") + CodeText(right, source),
                equality_precedence};
  }
  return std::nullopt;
}

}  // namespace errdex::extract::flow
