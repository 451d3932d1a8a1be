#include "core/template.h"
#include "core/text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_map>
#include <utility>

namespace errdex {
namespace {

constexpr std::array<std::pair<ValueKind, std::string_view>, 8> kKindNames = {{
    {ValueKind::kStr, "str"},
    {ValueKind::kRepr, "repr"},
    {ValueKind::kInt, "int"},
    {ValueKind::kFloat, "float"},
    {ValueKind::kHex, "hex"},
    {ValueKind::kChar, "char"},
    {ValueKind::kPointer, "pointer"},
    {ValueKind::kAny, "any"},
}};

}  // namespace

std::string_view ValueKindName(ValueKind kind) {
  for (const auto& [k, name] : kKindNames) {
    if (k == kind) return name;
  }
  return "str";
}

std::optional<ValueKind> ValueKindFromName(std::string_view name) {
  for (const auto& [k, n] : kKindNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

Template Template::Literal(std::string_view text) {
  Template t;
  t.AppendText(text);
  return t;
}

Template Template::Value(std::string_view expression, ValueKind kind, std::string_view spec,
                         int max_length) {
  Template t;
  t.AppendValue(expression, kind, spec, max_length);
  return t;
}

void Template::AppendText(std::string_view text) {
  if (text.empty()) return;
  if (!pieces_.empty() && !pieces_.back().is_value) {
    pieces_.back().text.append(text);
    return;
  }
  Piece p;
  p.text = std::string(text);
  pieces_.push_back(std::move(p));
}

void Template::AppendValue(std::string_view expression, ValueKind kind, std::string_view spec,
                           int max_length) {
  Piece p;
  p.is_value = true;
  p.text = std::string(expression);
  p.kind = kind;
  p.spec = std::string(spec);
  p.max_length = max_length;
  pieces_.push_back(std::move(p));
}

void Template::AppendPiece(Piece piece) {
  if (piece.is_value) {
    pieces_.push_back(std::move(piece));
  } else {
    AppendText(piece.text);
  }
}

void Template::Append(const Template& other) {
  for (const Piece& p : other.pieces_) AppendPiece(p);
  for (const Assumption& a : other.assumptions_) Assume(a);
}

void Template::Assume(const Assumption& a) {
  if (std::find(assumptions_.begin(), assumptions_.end(), a) == assumptions_.end()) {
    assumptions_.push_back(a);
  }
}

void Template::KeepCommonAssumptions(const Template& other) {
  const std::vector<Assumption>& theirs = other.assumptions_;
  assumptions_.erase(std::remove_if(assumptions_.begin(), assumptions_.end(),
                                    [&](const Assumption& a) {
                                      return std::find(theirs.begin(), theirs.end(), a) ==
                                             theirs.end();
                                    }),
                     assumptions_.end());
}

bool Template::AssumesTheImpossible() const {
  using Test = Assumption::Test;
  // Which tests can hold together: None is falsy; truthy is never None.
  auto compatible = [](Test x, Test y) {
    if (x == y) return true;
    auto pair = [&](Test a, Test b) { return (x == a && y == b) || (x == b && y == a); };
    return pair(Test::kNone, Test::kFalsy) || pair(Test::kTruthy, Test::kNotNone) ||
           pair(Test::kFalsy, Test::kNotNone);
  };
  for (size_t i = 0; i < assumptions_.size(); ++i) {
    for (size_t j = i + 1; j < assumptions_.size(); ++j) {
      if (assumptions_[i].name == assumptions_[j].name &&
          !compatible(assumptions_[i].test, assumptions_[j].test)) {
        return true;
      }
    }
  }
  return false;
}

void AppendDisplayLiteral(std::string& out, std::string_view text) {
  for (char c : text) {
    out.push_back(c);
    if (c == '{' || c == '}') out.push_back(c);
  }
}

std::string Template::Display() const {
  std::string out;
  for (const Piece& p : pieces_) {
    if (!p.is_value) {
      AppendDisplayLiteral(out, p.text);
      continue;
    }
    out.push_back('{');
    out.append(p.text);
    if (!p.spec.empty() && p.spec.front() != '%') out.append(p.spec);
    out.push_back('}');
  }
  return out;
}

size_t Template::LiteralSize() const {
  size_t n = 0;
  for (const Piece& p : pieces_) {
    if (!p.is_value) n += p.text.size();
  }
  return n;
}

void Template::AssignNames() {
  std::unordered_map<std::string, int> seen;
  for (Piece& p : pieces_) {
    if (!p.is_value) continue;
    std::string base = PlaceholderName(p.text);
    int& count = seen[base];
    ++count;
    p.name = count == 1 ? base : base + "_" + std::to_string(count);
  }
}

std::string PlaceholderName(std::string_view expression) {
  std::vector<std::string> words;
  for (size_t i = 0; i < expression.size();) {
    char c = expression[i];
    // Skip string literals inside the expression: their words are data.
    if (c == '\'' || c == '"') {
      size_t j = i + 1;
      while (j < expression.size() && expression[j] != c) j += expression[j] == '\\' ? 2 : 1;
      i = j + 1;
      continue;
    }
    if (!IsIdentChar(c)) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < expression.size() && IsIdentChar(expression[j])) ++j;
    std::string word(expression.substr(i, j - i));
    i = j;
    if (std::isdigit(static_cast<unsigned char>(word[0]))) continue;  // a number
    // Dunders and private names: `f.__name__` -> f_name.
    size_t start = word.find_first_not_of('_');
    if (start == std::string::npos) continue;
    size_t end = word.find_last_not_of('_');
    words.push_back(word.substr(start, end + 1 - start));
  }
  if (words.size() > 1) {
    std::vector<std::string> kept;
    for (std::string& w : words) {
      if (w != "self" && w != "cls" && w != "this") kept.push_back(std::move(w));
    }
    if (!kept.empty()) words = std::move(kept);
  }
  std::string name;
  for (const std::string& w : words) {
    if (!name.empty() && name.size() + w.size() >= 40) break;
    if (!name.empty()) name.push_back('_');
    name.append(w);
  }
  if (name.empty()) return "value";
  return name;
}

}  // namespace errdex
