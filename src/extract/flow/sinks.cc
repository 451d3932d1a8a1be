#include "extract/flow/sinks.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/guards.h"
#include "core/text.h"

namespace errdex::extract::flow {
namespace {

// The last name of a qualified one: `mod.CONST`, `ns::kConst`.
std::string_view LastComponent(std::string_view name) {
  size_t dot = name.rfind('.');
  size_t colon = name.rfind("::");
  if (colon != std::string_view::npos && (dot == std::string_view::npos || colon > dot)) {
    return name.substr(colon + 2);
  }
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

// What an argument written as a literal is known to be: None or not,
// truthy or not; unknown for anything else.
struct LiteralTruth {
  std::optional<bool> none;
  std::optional<bool> truthy;
};

LiteralTruth TruthOf(const Arg& a) {
  std::string_view e = Trim(a.expression);
  if (e == "None") return {true, false};
  if (e == "True") return {false, true};
  if (e == "False" || e == "()" || e == "[]" || e == "{}") return {false, false};
  if (!e.empty() && std::all_of(e.begin(), e.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return {false, e.find_first_not_of('0') != std::string_view::npos};
  }
  size_t quote = e.find_first_of("'\"");
  if (quote == std::string_view::npos || quote > 2 ||
      e.substr(0, quote).find_first_not_of("rRbBuUfF") != std::string_view::npos ||
      e.back() != e[quote]) {
    return {};
  }
  bool formatted = e.substr(0, quote).find_first_of("fF") != std::string_view::npos;
  if (e.size() == quote + 2) return {false, false};  // '' or ""
  if (!formatted) return {false, true};
  // An f-string is truthy when it has words; of values alone, not known.
  if (a.value && a.value->LiteralSize() > 0) return {false, true};
  return {false, std::nullopt};
}

// One string literal: not `"a" if c else "b"`, nor `"a" "b"`.
bool IsStringLiteral(std::string_view e) {
  if (e.size() < 2 || (e.front() != '\'' && e.front() != '"') || e.back() != e.front())
    return false;
  for (size_t i = 1; i + 1 < e.size(); ++i) {
    if (e[i] == '\\') {
      ++i;
    } else if (e[i] == e.front()) {
      return false;
    }
  }
  return true;
}

// Whether two constants as written are the same: string literals by their
// text whatever the quotes ('fill', "fill"), names by their last part. A
// name and a literal are never the same here, though the name may hold it.
bool SameConstant(std::string_view a, std::string_view b) {
  if (IsStringLiteral(a) || IsStringLiteral(b)) {
    return IsStringLiteral(a) && IsStringLiteral(b) &&
           a.substr(1, a.size() - 2) == b.substr(1, b.size() - 2);
  }
  // Numbers whole (`2.0` is not `1.0`); names by their last part.
  auto number = [](std::string_view e) {
    return !e.empty() && e.front() >= '0' && e.front() <= '9';
  };
  if (number(a) || number(b)) return a == b;
  return LastComponent(a) == LastComponent(b);
}

}  // namespace

// Whether binding `b` contradicts one of the assumptions: the branch they
// belong to is never taken with these arguments.
bool Contradicts(const std::vector<Assumption>& assumed, const Bindings& b) {
  using Test = Assumption::Test;
  for (const Assumption& a : assumed) {
    auto it = b.find(a.name);
    if (it == b.end()) continue;
    LiteralTruth t = TruthOf(it->second);
    if ((a.test == Test::kNone && t.none == false) ||
        (a.test == Test::kNotNone && t.none == true) ||
        (a.test == Test::kTruthy && t.truthy == false) ||
        (a.test == Test::kFalsy && t.truthy == true)) {
      return true;
    }
  }
  return false;
}

std::string GuardedSinkTrigger(const Site& call, std::string_view sink) {
  std::string base = call.trigger.empty() ? "raised whenever `" + call.function +
                                                "` reaches line " + std::to_string(call.line)
                                          : call.trigger;
  return base + std::string(kHelperConditionLead) + std::string(sink) + "` also holds";
}

// Letters and digits in a template's literal text.
size_t WordCharacters(const Template& t) {
  size_t n = 0;
  for (const Piece& p : t.pieces()) {
    if (p.is_value) continue;
    for (char c : p.text) n += std::isalnum(static_cast<unsigned char>(c)) != 0 ? 1 : 0;
  }
  return n;
}

// A constant as a mode argument is written: an upper-case name (maybe
// qualified), a number or a string literal.
bool IsConstantExpression(std::string_view e) {
  if (e.empty()) return false;
  if (e.front() == '"' || e.front() == '\'' || (e.front() >= '0' && e.front() <= '9')) return true;
  bool upper = false;
  for (char c : LastComponent(e)) {
    if (c >= 'a' && c <= 'z') return false;
    upper |= c >= 'A' && c <= 'Z';
  }
  return upper;
}

SinkLinker::SinkLinker(Printing printing, TypeNamed type_named)
    : printing_(printing), type_named_(std::move(type_named)) {}

int SinkLinker::AddFunction(const std::vector<Param>* params) {
  functions_.push_back(Function{params, {}});
  return static_cast<int>(functions_.size() - 1);
}

bool SinkLinker::IsSink(int function) const {
  return function >= 0 && !functions_[static_cast<size_t>(function)].raises.empty();
}

const std::vector<SinkRaise>& SinkLinker::Raises(int function) const {
  return functions_[static_cast<size_t>(function)].raises;
}

bool SinkLinker::HasParam(int function, std::string_view name) const {
  const std::vector<Param>& params = *functions_[static_cast<size_t>(function)].params;
  return std::any_of(params.begin(), params.end(), [&](const Param& p) { return p.name == name; });
}

bool SinkLinker::MentionsParam(int function, const Template& t) const {
  for (const Piece& p : t.pieces()) {
    if (p.is_value && HasParam(function, p.text)) return true;
  }
  return false;
}

bool SinkLinker::IsVariadic(int function) const {
  const std::vector<Param>& params = *functions_[static_cast<size_t>(function)].params;
  // `*args` or C's `...`, not `**kwargs`.
  return std::any_of(params.begin(), params.end(),
                     [](const Param& p) { return p.variadic && p.name.compare(0, 2, "**") != 0; });
}

bool SinkLinker::AddRaise(int function, SinkRaise r) {
  std::vector<SinkRaise>& raises = functions_[static_cast<size_t>(function)].raises;
  if (raises.size() >= kMaxSinkRaises) return false;
  std::string display = r.message.Display();
  for (SinkRaise& have : raises) {
    if (have.exception == r.exception && have.type_param == r.type_param &&
        have.requires_equal == r.requires_equal && have.excludes == r.excludes &&
        have.kind == r.kind && have.fill.has_value() == r.fill.has_value() &&
        have.guarded == r.guarded && have.message.Display() == display) {
      // One text under two sets of branches: what both say still holds.
      have.message.KeepCommonAssumptions(r.message);
      return false;
    }
  }
  raises.push_back(std::move(r));
  return true;
}

void SinkLinker::Propagate(const std::vector<SinkCall>& calls, const CalleeOf& callee,
                           int max_depth) {
  for (int round = 0; round < max_depth; ++round) {
    bool grew = false;
    for (size_t i = 0; i < calls.size(); ++i) {
      const SinkCall& c = calls[i];
      if (c.caller < 0 || c.ways == nullptr) continue;
      int sink = callee(i);
      if (sink < 0 || sink == c.caller || !IsSink(sink)) continue;
      std::vector<SinkRaise> raises = Raises(sink);
      for (const SinkRaise& r : raises) {
        for (const std::vector<CallArg>& args : *c.ways) {
          std::optional<SinkRaise> bound = Bind(sink, r, args, c.caller);
          if (!bound) continue;
          bool type_passed_on = HasParam(c.caller, bound->type_param);
          if (!MentionsParam(c.caller, bound->message) && !type_passed_on) continue;
          // A type argument that is neither a class nor the caller's own
          // parameter: the caller raises a type errdex cannot name.
          if (!bound->type_param.empty() && !type_passed_on) continue;
          // A variadic caller hands its own variadic arguments on (C's
          // va_list, Python's `*args`) when it passes nothing else there.
          if (bound->fill && r.fill && r.fill->variadic && bound->fill->args.empty() &&
              IsVariadic(c.caller)) {
            bound->fill->variadic = true;
          }
          bound->guarded |= c.guarded;
          grew |= AddRaise(c.caller, std::move(*bound));
        }
      }
    }
    if (!grew) break;
  }
}

std::optional<SinkRaise> SinkLinker::Bind(int sink, const SinkRaise& r,
                                          const std::vector<CallArg>& args, int caller) const {
  const std::vector<Param>& sink_params = *functions_[static_cast<size_t>(sink)].params;
  // What the branches the message was built in assume of the sink's
  // parameters is decided by the arguments or, where none is passed, the
  // defaults: an assumption is only made of a parameter's entry value.
  Bindings entry;
  BindArguments(sink_params, args, entry);
  if (Contradicts(r.message.assumptions(), entry)) return std::nullopt;
  // Only what the caller passes is bound: a default may be replaced inside
  // the sink before the raise (`if where is None: where = ...`).
  std::vector<Param> params = sink_params;
  for (Param& p : params) p.default_value.reset();
  Bindings b;
  std::vector<Arg> rest;
  BindArguments(params, args, b, &rest);
  SinkRaise out = r;
  out.type_from_caller = false;
  out.requires_equal.clear();
  out.excludes.clear();
  for (const auto& [param, constants] : r.excludes) {
    auto it = b.find(param);
    if (it == b.end()) continue;
    const std::string& e = it->second.expression;
    if (IsConstantExpression(e)) {
      bool excluded = std::any_of(constants.begin(), constants.end(),
                                  [&](const std::string& c) { return SameConstant(e, c); });
      if (excluded) return std::nullopt;
    } else if (!e.empty()) {
      out.excludes.emplace_back(e, constants);
    }
  }
  for (const auto& [param, constants] : r.requires_equal) {
    auto it = b.find(param);
    if (it == b.end()) continue;  // not passed: unknown here
    const std::string& e = it->second.expression;
    if (IsConstantExpression(e)) {
      // A name against a literal (`FILL` against "fill") may be equal.
      bool reached = std::any_of(constants.begin(), constants.end(), [&](const std::string& c) {
        return SameConstant(e, c) || IsStringLiteral(e) != IsStringLiteral(c);
      });
      if (!reached) return std::nullopt;  // another branch
    } else if (!e.empty()) {
      out.requires_equal.emplace_back(e, constants);  // the caller's parameter, maybe
    }
  }
  out.message = Substitute(r.message, b, printing_);
  if (r.fill) {
    std::vector<Arg> fill_args = r.fill->variadic ? std::move(rest) : r.fill->args;
    const std::vector<Piece>& pieces = out.message.pieces();
    if ((pieces.size() == 1 && pieces[0].is_value) ||
        (caller >= 0 && MentionsParam(caller, out.message))) {
      // The format is still (part) the caller's parameter: fill later.
      out.fill->args = std::move(fill_args);
      out.fill->variadic = false;
    } else {
      FormatArgs format_args = FormatArgs::Positional(std::move(fill_args));
      format_args.is_tuple = true;  // Python's `fmt % args`: the tuple *args is
      out.message = ApplyFormat(r.fill->format, out.message, format_args);
      out.fill.reset();
    }
  }
  if (!r.type_param.empty()) {
    auto it = b.find(r.type_param);
    // Not passed: the parameter's default, when that is the class raised.
    if (it == b.end() && r.exception != r.type_param) {
      out.type_param.clear();
      return out;
    }
    if (it == b.end() || it->second.value) return std::nullopt;
    std::string written = it->second.expression;
    if (LastComponent(written).empty()) return std::nullopt;
    // What the sink's dict maps the passed class to is raised in its place.
    for (const auto& [key, value] : r.type_map) {
      if (LastComponent(key) == LastComponent(written)) {
        written = value;
        break;
      }
    }
    // The caller's own parameter names no class, whatever a class of that
    // name elsewhere (runpy's `error`).
    std::optional<std::string> named;
    if (caller < 0 || !HasParam(caller, written)) named = type_named_(written, sink);
    if (named) {
      out.exception = std::move(*named);
      out.exception_written = written;
      out.type_param.clear();
      out.type_from_caller = true;
    } else {
      out.type_param = written;  // the caller's own parameter, maybe
    }
  }
  return out;
}

std::vector<SinkRaise> SinkLinker::Made(const SinkCall& call, int sink) const {
  std::vector<SinkRaise> out;
  if (!IsSink(sink) || call.ways == nullptr) return out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const SinkRaise& r : Raises(sink)) {
    for (const std::vector<CallArg>& args : *call.ways) {
      std::optional<SinkRaise> bound = Bind(sink, r, args, call.caller);
      if (!bound || !bound->type_param.empty() || bound->fill) continue;
      // The caller must add words or name the class: quotes a repr puts
      // around a value it passes (sympify(exp(e0)*...) into `SympifyError:
      // {a!r}`) add none. A class named with a message the caller passes
      // but writes no word of (`warn(self.message,
      // category=DeprecationWarning)`) says nothing to match; a message of
      // the sink's own does (numpy's raise_casting_error builds the object
      // the class's __str__ reads).
      size_t words = WordCharacters(bound->message);
      bool named = bound->type_from_caller && (words > 0 || !MentionsParam(sink, r.message));
      if (!named && words <= WordCharacters(r.message)) continue;
      if (!seen.emplace(bound->exception, bound->message.Display()).second) continue;
      out.push_back(std::move(*bound));
    }
  }
  return out;
}

}  // namespace errdex::extract::flow
