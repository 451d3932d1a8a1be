#include "extract/python/py_linker.h"

#include "core/text.h"
#include "extract/flow/sinks.h"
#include "extract/python/py_callgraph.h"
#include "extract/python/py_replaced.h"
#include "extract/python/py_syntax.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace errdex::extract::python {
namespace {

constexpr size_t kMaxMro = 16;
// Helpers calling helpers are followed this many calls deep.
constexpr int kMaxSinkDepth = 3;
// Helpers returning what another helper returns, followed this deep.
constexpr int kMaxReturnChain = 3;
using flow::IsConstantExpression;
using flow::kMaxSinkRaises;
// The messages one exception class can compose from one call.
constexpr size_t kMaxMessages = 8;

// Receivers whose methods take text to log or print, never to raise: a
// library's own sink of the same name (`error`) is not what they call.
constexpr std::string_view kNotSinkReceivers[] = {
    "LOG", "LOGGER", "_LOGGER", "_log", "_logger", "log", "logger", "logging",
    "os",  "re",     "sys",     "warnings",
};

// Builtins and container or future methods that hand back a value they
// hold: `raise my_exceptions.pop()`, `raise value` after `value =
// cache.get(key)`, `raise next(effects)`, `raise fut.exception()` raise an
// object stored earlier, of a type the call does not say. Named after the
// call it would be a false type ("pop"), unless the library has a class so
// named. A future's `exception()` and `result()` take no argument: with
// one (`self.exception(value)`, pygments) the name is an attribute holding
// a class, and the call builds an error of it.
struct ValueCall {
  std::string_view name;
  bool with_arguments;  // also when called with arguments
};
constexpr ValueCall kValueReturningCalls[] = {
    {"exception", false}, {"get", true},     {"getattr", true}, {"next", true},
    {"pop", true},        {"popitem", true}, {"popleft", true}, {"result", false},
};

// Whether the arguments of a call, as evaluated where it is written, rest on
// a branch `b` contradicts.
bool ArgsContradict(const std::vector<CallArg>& args, const Bindings& b) {
  return std::any_of(args.begin(), args.end(), [&](const CallArg& a) {
    return a.arg.value && Contradicts(a.arg.value->assumptions(), b);
  });
}

// Which of the ways (each a call's arguments, `args_of(way)`) `b` leaves
// possible -- all of them when it rules out every one: then the ways were
// cut to a bound before the one this call takes was reached.
template <typename Way, typename ArgsOf>
std::vector<bool> PossibleWays(const std::vector<Way>& ways, ArgsOf args_of, const Bindings& b) {
  std::vector<bool> possible(ways.size());
  for (size_t i = 0; i < ways.size(); ++i) possible[i] = !ArgsContradict(args_of(ways[i]), b);
  if (std::none_of(possible.begin(), possible.end(), [](bool p) { return p; })) {
    possible.assign(ways.size(), true);
  }
  return possible;
}

// Among same-named definitions, the one in the file itself, else the one
// whose path shares the longest prefix with `path` (the nearest package).
template <typename T>
const T* Nearest(const std::vector<const T*>& candidates, std::string_view path) {
  const T* best = nullptr;
  size_t best_prefix = 0;
  for (const T* c : candidates) {
    if (c->path == path) return c;
    size_t prefix = CommonPrefix(c->path, path);
    if (best == nullptr || prefix > best_prefix) {
      best = c;
      best_prefix = prefix;
    }
  }
  return best;
}

struct FunctionRef {
  const FunctionInfo* info;
  const FileResult* file;
  std::string path;
};

class Linker {
 public:
  explicit Linker(const std::vector<const FileResult*>& files) : files_(files) {
    for (const FileResult* file : files_) {
      const FileResult& f = *file;
      by_path_[f.path] = &f;
      for (const ClassInfo& c : f.classes) classes_[c.name].push_back(&c);
      for (const FunctionInfo& fn : f.functions) {
        functions_[fn.name].push_back(new_ref(FunctionRef{&fn, &f, fn.path}));
      }
      for (const DefinedFunction& d : f.facts.functions) {
        size_t dot = d.qualified.rfind('.');
        std::string name = dot == std::string::npos ? d.qualified : d.qualified.substr(dot + 1);
        defined_[std::move(name)].push_back(Defined{&d, f.path});
      }
    }
  }

  void Run(Extraction& out) {
    FindSinks();
    // A sink's own raise is resolved again with its file.
    unnamed_.clear();
    std::set<std::pair<std::string, int>> unnamed_done;
    size_t next_call = 0;
    for (const FileResult* file : files_) {
      const FileResult& f = *file;
      std::vector<Site> sites;
      for (const ProtoSite& p : f.sites) {
        if (p.chained) continue;
        for (Site& s : Resolve(p)) sites.push_back(std::move(s));
      }
      DropWordlessAlternatives(sites);
      // One raise is looked at again through sinks and properties: once each.
      std::vector<NonSite> unnamed;
      for (NonSite& n : unnamed_) {
        if (unnamed_done.emplace(n.path, n.line).second) unnamed.push_back(std::move(n));
      }
      unnamed_.clear();
      for (size_t i = 0; i < f.calls.size(); ++i) SinkCallSites(next_call++, sites);
      for (Site& s : sites) {
        s.message.AssignNames();
        // `raise AssertionError(...)` is an assert that survives `python -O`,
        // unless an assert function raises it for its caller.
        if (s.exception == "AssertionError" && !NamedForAssert(s.function) &&
            !NamedForAssert(s.via)) {
          s.internal = true;
        }
        out.sites.push_back(std::move(s));
      }
      out.non_sites.insert(out.non_sites.end(), f.non_sites.begin(), f.non_sites.end());
      for (NonSite& n : unnamed) out.non_sites.push_back(std::move(n));
      out.issues.insert(out.issues.end(), f.issues.begin(), f.issues.end());
    }
    for (const FileResult* f : files_) {
      for (const ClassInfo& c : f->classes) {
        if (!IsException(&c, 0)) continue;
        out.classes.push_back(ExceptionClass{c.name, c.bases, c.path, c.line});
      }
    }
  }

 private:
  const FunctionRef* new_ref(FunctionRef r) {
    refs_.push_back(std::make_unique<FunctionRef>(std::move(r)));
    return refs_.back().get();
  }

  const ClassInfo* FindClass(std::string_view name, std::string_view path) const {
    auto it = classes_.find(std::string(name));
    return it == classes_.end() ? nullptr : Nearest(it->second, path);
  }

  // The exception class of the library named `name` nearest `path`, if any.
  const ClassInfo* LibraryException(std::string_view name, std::string_view path) {
    const ClassInfo* c = FindClass(name, path);
    return c != nullptr && IsException(c, 0) ? c : nullptr;
  }

  bool IsException(const ClassInfo* c, int depth) {
    auto memo = is_exception_.find(c);
    if (memo != is_exception_.end()) return memo->second;
    bool result = false;
    if (depth < static_cast<int>(kMaxMro)) {
      is_exception_[c] = false;  // breaks cycles (class A(B), class B(A))
      for (const std::string& b : c->bases) {
        const ClassInfo* base = FindClass(b, c->path);
        if (base != nullptr && base != c ? IsException(base, depth + 1)
                                         : LooksLikeExceptionClass(b)) {
          result = true;
          break;
        }
      }
    }
    is_exception_[c] = result;
    return result;
  }

  // The known classes of c's method resolution order, depth first, left to
  // right (C3 agrees with this for the hierarchies exception classes use).
  std::vector<const ClassInfo*> Mro(const ClassInfo* c) const {
    std::vector<const ClassInfo*> out;
    std::vector<const ClassInfo*> stack = {c};
    while (!stack.empty() && out.size() < kMaxMro) {
      const ClassInfo* k = stack.back();
      stack.pop_back();
      if (std::find(out.begin(), out.end(), k) != out.end()) continue;
      out.push_back(k);
      for (auto b = k->bases.rbegin(); b != k->bases.rend(); ++b) {
        const ClassInfo* base = FindClass(*b, k->path);
        if (base != nullptr && base != k) stack.push_back(base);
      }
    }
    return out;
  }

  // The first base outside the library along the MRO: the builtin whose
  // str() finally prints the arguments.
  std::string BuiltinBase(const std::vector<const ClassInfo*>& mro) const {
    for (const ClassInfo* k : mro) {
      for (const std::string& b : k->bases) {
        if (FindClass(b, k->path) == nullptr) return b;
      }
    }
    return "Exception";
  }

  static CallArg WithValue(const CallArg& a, const Bindings& bindings) {
    CallArg out = a;
    if (a.arg.value) {
      out.arg.value = Substitute(*a.arg.value, bindings);
    } else if (auto it = bindings.find(a.arg.expression); it != bindings.end()) {
      out.arg = it->second;  // the parameter itself is passed on
    }
    return out;
  }

  // The messages class `c` builds from constructor arguments `args`: one
  // per way its __init__ chain and __str__ can go, at most kMaxMessages.
  std::vector<Template> Compose(const ClassInfo* c, const std::vector<CallArg>& args) const {
    std::vector<const ClassInfo*> mro = Mro(c);
    // The class's own name is known wherever it is raised, in the class's
    // code; in the raise site's arguments `cls.__name__` is the raising
    // code's class (pyasn1's `BitString.fromHexString`), so those are
    // hidden from the substitution and shown again after it.
    Bindings class_name, hide, show;
    for (std::string_view expr : {"type(self).__name__", "self.__class__.__name__", "cls.__name__",
                                  "self.__class__.__qualname__", "type(self).__qualname__"}) {
      std::string e(expr);
      class_name[e] = flow::Arg{e, Template::Literal(c->name)};
      hide[e] = flow::Arg{"\x01" + e, std::nullopt};
      show["\x01" + e] = flow::Arg{e, std::nullopt};
    }
    std::vector<CallArg> hidden;
    for (const CallArg& a : args) hidden.push_back(WithValue(a, hide));
    std::vector<Template> out;
    ComposeFrom(mro, 0, hidden, hidden, Bindings{}, out);
    for (Template& t : out) t = Substitute(Substitute(t, class_name), show);
    return out;
  }

  // self.x a class body sets (the raised class first), for what __init__
  // does not set or sets from a parameter left at its None default.
  static void AddClassAttributes(const std::vector<const ClassInfo*>& mro, Bindings& attrs) {
    for (const ClassInfo* k : mro) {
      for (const auto& [attr, value] : k->class_attrs) {
        std::string key = "self." + attr;
        if (attrs.count(key)) continue;
        if (value.value) {
          attrs[key] = value;
        } else if (flow::IsPlainConstant(value.expression)) {
          // code = 404: str() prints the source text.
          attrs[key] = flow::Arg{value.expression, Template::Literal(value.expression)};
        }
      }
    }
  }

  static bool IsArgsFormat(const Template& t) {
    const std::vector<Piece>& pieces = t.pieces();
    return pieces.size() == 1 && pieces[0].is_value &&
           (pieces[0].text == "self.args[0] % self.args[1:]" ||
            pieces[0].text == "self.args[0] % tuple(self.args[1:])");
  }

  // self.args[i] (and the lazy `self.args[0] % self.args[1:]` of classes
  // that format in __str__) from the arguments the exception was built with.
  static std::vector<Template> ArgsTuple(const Template& t, const std::vector<CallArg>& args) {
    std::vector<const CallArg*> positional;
    for (const CallArg& a : args) {
      if (a.splat) return {t};
      if (a.keyword.empty()) positional.push_back(&a);
    }
    if (IsArgsFormat(t) && !positional.empty() && positional[0]->arg.value) {
      flow::FormatArgs rest;
      rest.is_tuple = true;
      rest.expression = "self.args[1:]";
      for (size_t i = 1; i < positional.size(); ++i) rest.positional.push_back(positional[i]->arg);
      return {flow::ApplyFormat(flow::Format::kPercent, *positional[0]->arg.value, rest)};
    }
    Bindings b;
    for (size_t i = 0; i < positional.size(); ++i) {
      b["self.args[" + std::to_string(i) + "]"] = positional[i]->arg;
    }
    return {Substitute(t, b)};
  }

  // Walks the __init__ chain from mro[i] with the arguments `current`,
  // collecting the attributes each __init__ sets (under its own bindings),
  // then applies the first __str__ of the MRO, or prints the arguments that
  // reach a builtin base.
  void ComposeFrom(const std::vector<const ClassInfo*>& mro, size_t i,
                   const std::vector<CallArg>& original, const std::vector<CallArg>& current,
                   Bindings attrs, std::vector<Template>& out) const {
    if (out.size() >= kMaxMessages) return;
    for (; i < mro.size(); ++i) {
      const ClassInfo* k = mro[i];
      if (!k->has_init) continue;
      Bindings b;
      BindArguments(k->init_params, current, b);
      for (const auto& [attr, value] : k->self_attrs) {
        std::string key = "self." + attr;
        if (attrs.count(key)) continue;
        flow::Arg bound = value;
        if (value.value) {
          bound.value = Substitute(*value.value, b);
        } else if (auto it = b.find(value.expression); it != b.end()) {
          // A parameter left at a None default is usually filled in later in
          // __init__ (`if message is None: message = name`): unknown, not None.
          // Set only under a condition (`if description is not None:`), the
          // class attribute of that name stays what self.x reads.
          if (it->second.expression == "None" && k->conditional_attrs.count(attr)) continue;
          bound = it->second.expression == "None" ? flow::Arg{key, std::nullopt} : it->second;
        }
        attrs[key] = bound;
      }
      // Without super().__init__(...) the exception keeps the arguments it
      // was constructed with (BaseException.__new__ stores them).
      if (!k->super_args) return Finish(mro, original, original, attrs, BuiltinBase(mro), out);
      // `msg = f"... {name} ..." if name else "..."` with name left None.
      std::vector<bool> possible = PossibleWays(
          *k->super_args,
          [](const std::vector<CallArg>& way) -> const std::vector<CallArg>& { return way; }, b);
      for (size_t w = 0; w < k->super_args->size(); ++w) {
        const std::vector<CallArg>& alternative = (*k->super_args)[w];
        if (!possible[w] || PassesNoneDefault(*k->super_args, alternative, b)) continue;
        std::vector<CallArg> next;
        for (const CallArg& a : alternative) {
          // super().__init__(*args): the positional arguments *args gathered.
          if (a.splat && a.keyword.empty() && IsVariadic(k->init_params, a.arg.expression)) {
            for (CallArg& rest : Gathered(k->init_params, current)) next.push_back(std::move(rest));
            continue;
          }
          if (a.splat && StartsWith(a.arg.expression, "**")) continue;  // keywords: not printed
          next.push_back(WithValue(a, b));
        }
        if (k->super_target.empty()) {
          ComposeFrom(mro, i + 1, original, next, attrs, out);
          continue;
        }
        // Base.__init__(self, ...) goes straight to Base, skipping the classes
        // between; a base outside the library prints the arguments.
        auto target = std::find_if(mro.begin(), mro.end(),
                                   [&](const ClassInfo* m) { return m->name == k->super_target; });
        if (target == mro.end()) {
          Finish(mro, original, next, attrs, k->super_target, out);
          continue;
        }
        // Only a later class in the MRO can be next; a call back to the class
        // itself or an earlier one is a recursion no message comes out of.
        auto next_index = static_cast<size_t>(target - mro.begin());
        if (next_index <= i) {
          AddTemplate(out, Template::Value("message", ValueKind::kAny));
          continue;
        }
        ComposeFrom(mro, next_index, original, next, attrs, out);
      }
      return;
    }
    Finish(mro, original, current, attrs, BuiltinBase(mro), out);
  }

  // The way through __init__ that hands on a parameter the caller left at
  // its None default: `if message is None: message = ...` is the other way.
  static bool PassesNoneDefault(const std::vector<std::vector<CallArg>>& alternatives,
                                const std::vector<CallArg>& alternative, const Bindings& b) {
    for (size_t j = 0; j < alternative.size(); ++j) {
      const CallArg& a = alternative[j];
      if (a.splat || a.arg.value) continue;
      auto it = b.find(a.arg.expression);
      if (it == b.end() || it->second.value || it->second.expression != "None") continue;
      // Only where another way gives this argument a value of its own.
      for (const std::vector<CallArg>& other : alternatives) {
        if (j < other.size() && other[j].arg.value) return true;
      }
    }
    return false;
  }

  // `{self.fmt.format(**kwargs)}` left by the front end: the class
  // attribute `fmt` of the raised class (or the nearest base that sets it)
  // formatted with the keyword arguments the raise passes.
  static Template ExpandClassFormats(const Template& t, const std::vector<const ClassInfo*>& mro,
                                     const std::vector<CallArg>& original) {
    static constexpr std::string_view kPrefix = "self.";
    static constexpr std::string_view kCall = ".format(";
    bool any = false;
    for (const Piece& p : t.pieces()) {
      any |= p.is_value && StartsWith(p.text, kPrefix) && p.text.find(kCall) != std::string::npos;
    }
    if (!any) return t;
    flow::FormatArgs keywords;
    for (const CallArg& a : original) {
      if (!a.keyword.empty() && !a.splat) keywords.named[a.keyword] = a.arg;
    }
    Template out;
    for (const Piece& p : t.pieces()) {
      size_t call = p.is_value && StartsWith(p.text, kPrefix) ? p.text.find(kCall) : std::string::npos;
      const Template* format = nullptr;
      if (call != std::string::npos) {
        std::string attr = p.text.substr(kPrefix.size(), call - kPrefix.size());
        for (const ClassInfo* k : mro) {
          for (const auto& [name, value] : k->class_attrs) {
            if (name == attr && value.value) format = &*value.value;
          }
          if (format != nullptr) break;
        }
      }
      if (format == nullptr) {
        out.AppendPiece(p);
        continue;
      }
      out.Append(flow::ApplyFormat(flow::Format::kStrFormat, *format, keywords));
    }
    return out;
  }

  static void AddTemplate(std::vector<Template>& out, Template t) {
    if (out.size() >= kMaxMessages) return;
    std::string display = t.Display();
    for (const Template& have : out) {
      if (have.Display() == display) return;
    }
    out.push_back(std::move(t));
  }

  // The text str() gives once the __init__ chain has run: the first __str__
  // of the MRO over the attributes set, else the arguments the builtin
  // base was given (`args`, as the class was called: `original`).
  void Finish(const std::vector<const ClassInfo*>& mro, const std::vector<CallArg>& original,
              const std::vector<CallArg>& args, Bindings attrs, const std::string& builtin,
              std::vector<Template>& out) const {
    const Bindings set_in_init = attrs;
    AddClassAttributes(mro, attrs);
    for (const ClassInfo* k : mro) {
      if (k->str_templates.empty() && !k->str_joined) continue;
      // Only what the raise passes: a default bound here would also fill a
      // local of __str__ that shares the parameter's name (`ndim =
      // self.ndim`), printing `None` where the class prints the attribute.
      Bindings init_bindings;
      for (const ClassInfo* owner : mro) {
        if (owner->has_init) {
          std::vector<Param> params = owner->init_params;
          for (Param& p : params) p.default_value.reset();
          BindArguments(params, original, init_bindings);
          break;
        }
      }
      if (k->str_joined) {
        // The parts whose attribute this raise leaves None (or empty, for
        // `if self.x:`) are not printed. A part under more conditions than
        // that is printed or not: both texts, at most two such parts.
        const auto& [sep, parts] = *k->str_joined;
        // Arguments spread (`raise E(**kw)`, `super().__init__(**kw)`) may
        // fill any parameter: a None default says nothing then.
        bool spread = std::any_of(original.begin(), original.end(),
                                  [](const CallArg& a) { return a.splat; });
        for (const ClassInfo* c : mro) {
          if (!c->super_args) continue;
          for (const std::vector<CallArg>& way : *c->super_args) {
            spread |= std::any_of(way.begin(), way.end(), [](const CallArg& a) { return a.splat; });
          }
        }
        std::vector<const ClassInfo::JoinedPart*> kept, uncertain;
        for (const ClassInfo::JoinedPart& part : parts) {
          if (!spread && !part.unless_none.empty() && LeftEmpty(part, set_in_init)) continue;
          kept.push_back(&part);
          if (part.more && uncertain.size() < 2) uncertain.push_back(&part);
        }
        for (size_t mask = 0; mask < (size_t{1} << uncertain.size()); ++mask) {
          Template joined;
          bool first = true;
          for (const ClassInfo::JoinedPart* part : kept) {
            auto u = std::find(uncertain.begin(), uncertain.end(), part);
            if (u != uncertain.end() && (mask >> (u - uncertain.begin()) & 1) != 0) continue;
            if (!first) joined.Append(sep);
            joined.Append(part->text);
            first = false;
          }
          AddTemplate(out, ExpandClassFormats(Substitute(Substitute(joined, attrs), init_bindings),
                                              mro, original));
        }
        return;
      }
      std::vector<Template> str_templates;
      for (const Template& t : k->str_templates) {
        for (Template& e : ExpandSelfCall(t, mro)) {
          str_templates.push_back(ExpandProperties(e, mro, attrs));
        }
      }
      // A branch with no words of its own (`return super().__str__()` in an
      // except) next to branches with words is a fallback, not an error text
      // -- unless what the raise passes gives it words (jinja2's
      // `return self.message` for a translated error, the message alone).
      std::vector<std::pair<Template, bool>> finals;  // and: worded before binding
      for (const Template& t : str_templates) {
        for (Template& r : ArgsTuple(t, args)) {
          finals.emplace_back(ExpandClassFormats(Substitute(Substitute(r, attrs), init_bindings),
                                                 mro, original),
                              t.LiteralSize() > 0 || IsArgsFormat(t));
        }
      }
      bool any_literal = std::any_of(finals.begin(), finals.end(),
                                     [](const auto& f) { return f.second; });
      for (auto& [final, worded] : finals) {
        // A value passed through whole stays: at a helper's raise it is
        // the parameter its callers fill with their own words.
        bool passed = final.pieces().size() == 1 && final.pieces()[0].is_value &&
                      !StartsWith(final.pieces()[0].text, "self.");
        if (any_literal && !worded && final.LiteralSize() == 0 && !passed) continue;
        AddTemplate(out, std::move(final));
      }
      return;
    }
    Template printed = BuiltinMessage(builtin, args);
    if (printed.pieces().empty()) {
      // `Exception.__init__(self)` then `self.msg = message` (docutils'
      // DirectiveError): str() is empty, and the text the library reports
      // of the error, the one a user reads, is the attribute.
      // Set by __init__: a class-body `message = "..."` is a default
      // nothing may ever read.
      for (const char* attr : {"self.msg", "self.message"}) {
        auto it = set_in_init.find(attr);
        if (it == set_in_init.end() || it->second.expression == attr) continue;
        // A parameter passed on unevaluated stays a value named after it,
        // for the caller's text to fill in.
        Template text = it->second.value ? *it->second.value
                                         : Template::Value(it->second.expression, ValueKind::kAny);
        if (text.pieces().empty()) continue;
        AddTemplate(out, std::move(text));
        return;
      }
    }
    AddTemplate(out, ExpandClassFormats(Substitute(printed, attrs), mro, original));
  }

  // Whether the raise leaves a joined part's attribute None, by what the
  // `__init__` chain bound it to (`attrs`, before class attributes): a None
  // passed or defaulted anywhere along the chain (`super().__init__(None,
  // None, problem, mark)`); for `if self.x:` also an empty text. An
  // attribute the chain does not bind (a `**kw` the raise fills) is printed.
  static bool LeftEmpty(const ClassInfo::JoinedPart& part, const Bindings& attrs) {
    auto it = attrs.find(part.unless_none);
    if (it == attrs.end()) return false;
    const flow::Arg& a = it->second;
    if (a.expression == "None" || (a.expression == part.unless_none && !a.value)) return true;
    if (a.value) {
      const std::vector<Piece>& pieces = a.value->pieces();
      if (pieces.size() == 1 && pieces[0].is_value && pieces[0].text == "None") return true;
      if (part.truthy && pieces.empty()) return true;
    }
    return false;
  }

  // `{self.message}` in __str__ where `message` is no attribute __init__ or
  // the class body sets but a property along the MRO returning one value
  // (jinja2's `return self.args[0] if self.args else None`): that value.
  Template ExpandProperties(const Template& t, const std::vector<const ClassInfo*>& mro,
                            const Bindings& attrs) const {
    Bindings properties;
    for (const Piece& p : t.pieces()) {
      if (!p.is_value || !StartsWith(p.text, "self.") || attrs.count(p.text)) continue;
      std::string_view name = std::string_view(p.text).substr(5);
      if (name.find_first_of(".([") != std::string_view::npos) continue;
      bool class_attr = std::any_of(mro.begin(), mro.end(), [&](const ClassInfo* k) {
        return std::any_of(k->class_attrs.begin(), k->class_attrs.end(),
                           [&](const auto& a) { return a.first == name; });
      });
      if (class_attr) continue;
      const FunctionRef* r = MethodAlong(name, mro);
      if (r == nullptr || r->info->returned_messages.size() != 1) continue;
      properties[p.text] = flow::Arg{p.text, r->info->returned_messages.front()};
    }
    return properties.empty() ? t : Substitute(t, properties);
  }

  // `return self.formatted_message()` in __str__: what the first method of
  // that name along the MRO returns, when it returns messages (every
  // branch); else `t` itself.
  std::vector<Template> ExpandSelfCall(const Template& t,
                                       const std::vector<const ClassInfo*>& mro) const {
    const std::vector<Piece>& pieces = t.pieces();
    if (pieces.size() != 1 || !pieces[0].is_value) return {t};
    std::string_view text = pieces[0].text;
    if (!StartsWith(text, "self.") || !EndsWith(text, "()")) return {t};
    const FunctionRef* r = MethodAlong(text.substr(5, text.size() - 7), mro);
    if (r == nullptr || r->info->returned_messages.empty()) return {t};
    return r->info->returned_messages;
  }

  // The method `name` that `self.name` reaches: the first along `mro`;
  // null when none has it.
  const FunctionRef* MethodAlong(std::string_view name,
                                 const std::vector<const ClassInfo*>& mro) const {
    auto it = functions_.find(std::string(name));
    if (it == functions_.end()) return nullptr;
    for (const ClassInfo* k : mro) {
      for (const FunctionRef* r : it->second) {
        if (IsMethodOf(r, {k})) return r;
      }
    }
    return nullptr;
  }

  // True when `expression` ("*args") spreads the *args parameter of `params`.
  static bool IsVariadic(const std::vector<Param>& params, std::string_view expression) {
    for (const Param& p : params) {
      if (p.variadic && p.name == expression && !StartsWith(expression, "**")) return true;
    }
    return false;
  }

  // The positional arguments a *args parameter gathers from `args`.
  static std::vector<CallArg> Gathered(const std::vector<Param>& params,
                                       const std::vector<CallArg>& args) {
    size_t named = 0;
    while (named < params.size() && !params[named].variadic) ++named;
    std::vector<CallArg> out;
    size_t index = 0;
    for (const CallArg& a : args) {
      if (!a.keyword.empty()) continue;
      if (a.splat) {
        out.push_back(a);
        continue;
      }
      if (index++ >= named) out.push_back(a);
    }
    return out;
  }

  bool BuildsMessage(const ClassInfo* c) const {
    for (const ClassInfo* k : Mro(c)) {
      if (k->has_init || !k->str_templates.empty() || k->str_joined) return true;
    }
    return false;
  }

  // `raise self.failureException(msg)`: the type is a class attribute of the
  // raising method's class (or a base), `failureException = AssertionError`,
  // or what its __init__ stores from a parameter whose default is a class
  // (`def __init__(self, ..., exc=UndefinedError): self._undefined_exception
  // = exc`, jinja2's Undefined): the class raised unless a caller passes
  // another, which errdex cannot follow to the raise.
  // A capitalized attribute (`_RETRIES_EXCEEDED_ERROR_CLS`, botocore) was
  // taken for a class by its name alone: the assignment says which.
  void ResolveTypeAttribute(ProtoSite& p) {
    if (!p.has_call || !StartsWith(p.site.exception_written, "self.")) return;
    auto resolve = [&](const ClassInfo* k, const std::string& expression) {
      std::string type(LastComponent(expression));
      const ClassInfo* t = FindClass(type, k->path);
      if (!(t != nullptr ? IsException(t, 0) : IsBuiltinException(type))) return;
      p.callee = type;
      p.callee_is_class = true;
      p.site.exception = type;
      p.site.exception_written = expression;
    };
    for (const ClassInfo* k : SelfClasses(p)) {
      for (const auto& [name, value] : k->self_attrs) {
        if (name != p.callee) continue;
        for (const Param& param : k->init_params) {
          if (param.name != value.expression || param.variadic || !param.default_value ||
              param.default_value->value) {
            continue;
          }
          return resolve(k, param.default_value->expression);
        }
      }
      for (const auto& [name, value] : k->class_attrs) {
        if (name != p.callee || value.value) continue;
        return resolve(k, value.expression);
      }
    }
  }

  static std::string_view CalleeWritten(const ProtoSite& p) {
    return p.callee_written.empty() ? std::string_view(p.site.exception_written)
                                    : std::string_view(p.callee_written);
  }

  // For `self.m(...)` or `cls.m(...)` in a method: the method's class and
  // its bases, the only classes whose `m` the call reaches; for `Cls.m(...)`
  // with a class of the library, that class and its bases. Empty when the
  // call is on something else or the class is not found.
  std::vector<const ClassInfo*> SelfClasses(const ProtoSite& p) const {
    std::string_view written = CalleeWritten(p);
    size_t dot = written.find('.');
    if (dot == std::string_view::npos || written.find('.', dot + 1) != std::string_view::npos) {
      return {};
    }
    std::string_view object = written.substr(0, dot);
    if (object != "self" && object != "cls") {
      // `IMAP4.error(...)`: a class of the library names where to look.
      bool capitalized =
          !object.empty() && std::isupper(static_cast<unsigned char>(object.front())) != 0;
      const ClassInfo* c = capitalized ? FindClass(object, p.site.path) : nullptr;
      return c == nullptr ? std::vector<const ClassInfo*>{} : Mro(c);
    }
    return EnclosingClasses(p);
  }

  // The class of the method `p` is in, and its bases; empty outside a
  // method or when the class is not found.
  std::vector<const ClassInfo*> EnclosingClasses(const ProtoSite& p) const {
    std::string_view function = p.site.function;
    size_t last = function.rfind('.');
    if (last == std::string_view::npos) return {};
    std::string_view owner = function.substr(0, last);
    if (size_t outer = owner.rfind('.'); outer != std::string_view::npos) {
      owner = owner.substr(outer + 1);
    }
    const ClassInfo* c = FindClass(owner, p.site.path);
    return c == nullptr ? std::vector<const ClassInfo*>{} : Mro(c);
  }

  // `raise Error(self.message)` where `message` is a method (a property) of
  // the raising method's class returning messages: one copy of `p` per
  // message it returns, that argument bound to it (jinja2's
  // `self._undefined_exception(self._undefined_message)`). Empty when no
  // argument is one.
  std::vector<ProtoSite> ExpandSelfProperties(const ProtoSite& p) const {
    std::vector<ProtoSite> out;
    for (size_t i = 0; i < p.args.size(); ++i) {
      const CallArg& a = p.args[i];
      std::string_view e = a.arg.expression;
      if (a.arg.value || a.splat || !StartsWith(e, "self.")) continue;
      std::string name(e.substr(5));
      if (name.empty() || !std::all_of(name.begin(), name.end(), IsIdentChar)) {
        continue;
      }
      const FunctionRef* r = MethodAlong(name, EnclosingClasses(p));
      if (r == nullptr || r->info->returned_messages.empty()) continue;
      for (const Template& m : r->info->returned_messages) {
        if (out.size() >= kMaxMessages) break;
        ProtoSite copy = p;
        copy.args[i].arg.value = m;
        if (copy.site.via.empty()) copy.site.via = r->info->qualified;
        out.push_back(std::move(copy));
      }
      return out;
    }
    return out;
  }

  // Whether `r` is a method of one of `classes`.
  static bool IsMethodOf(const FunctionRef* r, const std::vector<const ClassInfo*>& classes) {
    return std::any_of(classes.begin(), classes.end(), [&](const ClassInfo* k) {
      return r->path == k->path && EndsWith(r->info->qualified, k->name + "." + r->info->name);
    });
  }

  // Whether a call spelled `written` reaches a function returning exceptions:
  // a plain name a module function, `self.m` a method of `on_self` (when
  // known), anything else any function of that name.
  bool ReturnsSites(const std::string& name, std::string_view written,
                    const std::vector<const ClassInfo*>& on_self) const {
    auto it = functions_.find(name);
    if (it == functions_.end()) return false;
    return std::any_of(it->second.begin(), it->second.end(), [&](const FunctionRef* r) {
      bool returns = std::any_of(
          r->info->returned_sites.begin(), r->info->returned_sites.end(),
          [&](size_t i) { return !r->file->sites[i].chained; });
      return returns && Reaches(r, written, on_self);
    });
  }

  static bool OnInstance(std::string_view written) {
    return StartsWith(written, "self.") || StartsWith(written, "cls.");
  }

  // Whether a call spelled `written` surely reaches a function of the
  // library, whatever it returns: a plain name a module function, `self.m`
  // a method of `on_self`. Not `socket.error(...)`: a name of another module
  // may be a class the library also names a function.
  bool Defines(const std::string& name, std::string_view written, std::string_view path,
               const std::vector<const ClassInfo*>& on_self) const {
    auto it = defined_.find(name);
    if (it == defined_.end()) return false;
    bool on_instance = OnInstance(written);
    if (!on_instance && written.find('.') != std::string_view::npos) {
      // `mod.f`: a function at the top of the library module the raising
      // file imports as `mod` (jsonschema's `raise error` after `error =
      // exceptions.best_match(...)`, which returns one of the errors given).
      size_t dot = written.find('.');
      if (written.find('.', dot + 1) != std::string_view::npos) return false;
      std::string_view local = written.substr(0, dot);
      std::string_view function = written.substr(dot + 1);
      auto file = by_path_.find(std::string(path));
      if (file == by_path_.end()) return false;
      return std::any_of(it->second.begin(), it->second.end(), [&](const Defined& d) {
        if (d.function->qualified != function) return false;
        const std::vector<ImportFact>& imports = file->second->facts.imports;
        return std::any_of(imports.begin(), imports.end(), [&](const ImportFact& i) {
          // `from jsonschema import exceptions` binds the module m.x.
          return i.local == local && DefinesModule(d.path, path, i, !i.name.empty());
        });
      });
    }
    if (on_instance && on_self.empty()) return false;
    // A plain name is the raising module's own function, or one it imports
    // by that name from a module of the library whose file defines it:
    // `from socket import error as SocketError` is no function of the
    // library that happens to be called `error`.
    const ImportFact* imported = nullptr;
    if (auto file = by_path_.find(std::string(path)); !on_instance && file != by_path_.end()) {
      for (const ImportFact& i : file->second->facts.imports) {
        if (i.local == written && !i.name.empty()) imported = &i;
      }
    }
    return std::any_of(it->second.begin(), it->second.end(), [&](const Defined& d) {
      if (!on_instance) {
        if (d.function->qualified != name) return false;
        if (d.path == path) return true;
        return imported != nullptr && DefinesModule(d.path, path, *imported);
      }
      return std::any_of(on_self.begin(), on_self.end(), [&](const ClassInfo* k) {
               return d.path == k->path && EndsWith(d.function->qualified, k->name + "." + name);
             });
    });
  }

  // Whether the file at `path` is the module `from m import x` names in the
  // file at `importer`, by the call graph's module names; an absolute name
  // may carry the package the library's root is (`jinja2.debug` for the
  // root's `debug.py`). With `submodule`, the module is `m.x` itself.
  static bool DefinesModule(std::string_view path, std::string_view importer, const ImportFact& i,
                            bool submodule = false) {
    std::string wanted =
        AbsoluteImport(ModuleName(importer), EndsWith(importer, "__init__.py"), i);
    if (submodule) wanted += "." + i.name;
    std::string module = ModuleName(path);
    return !module.empty() && (wanted == module || EndsWith(wanted, "." + module));
  }

  static bool Reaches(const FunctionRef* r, std::string_view written,
                      const std::vector<const ClassInfo*>& on_self) {
    if (written.find('.') == std::string_view::npos) return r->info->qualified == r->info->name;
    return on_self.empty() || IsMethodOf(r, on_self);
  }

  // A whole-message argument that is a call to a helper returning a message.
  void InlineMessageHelpers(ProtoSite& p) {
    for (CallArg& a : p.args) {
      if (a.arg.value || !a.call) continue;
      auto it = functions_.find(a.call->callee);
      if (it == functions_.end()) continue;
      std::vector<const FunctionRef*> with_messages;
      for (const FunctionRef* r : it->second) {
        if (!r->info->returned_messages.empty()) with_messages.push_back(r);
      }
      const FunctionRef* ref = Nearest(with_messages, p.site.path);
      if (ref == nullptr) continue;
      Bindings b;
      BindArguments(ref->info->params, a.call->args, b);
      a.arg.value = Substitute(ref->info->returned_messages.front(), b);
      if (p.site.via.empty()) p.site.via = ref->info->qualified;
    }
  }

  std::vector<Site> Resolve(const ProtoSite& original) {
    if (std::vector<ProtoSite> each = ExpandSelfProperties(original); !each.empty()) {
      std::vector<Site> out;
      for (const ProtoSite& one : each) {
        for (Site& s : Resolve(one)) out.push_back(std::move(s));
      }
      return out;
    }
    // Sites a helper returns are read again for each `raise helper(...)`: work on a copy.
    ProtoSite p = original;
    std::vector<Site> out;
    InlineMessageHelpers(p);
    ResolveTypeAttribute(p);
    // `error(...)` with a lowercase name the library defines as an exception
    // class (re's `error`), unless a function of that name returns one.
    const ClassInfo* known = LibraryException(p.callee, p.site.path);
    // imaplib's `raise self.error(...)` is its nested class, not re's
    // Tokenizer.error: a method is looked for in the raising class's MRO.
    std::vector<const ClassInfo*> on_self = SelfClasses(p);
    // A method of the raising class by that name (docutils' `self.error`,
    // returning what another method returns) is no class of that name.
    std::string_view written = CalleeWritten(p);
    bool method = OnInstance(written) && Defines(p.callee, written, p.site.path, on_self);
    if (!p.callee_is_class && p.has_call && known != nullptr && !method &&
        !ReturnsSites(p.callee, written, on_self)) {
      p.callee_is_class = true;
    }
    if (p.tentative && known == nullptr) return out;
    if (p.callee_is_class && RaisesCaughtClass(p)) {
      // `raise type(e)(...)` raises the caught class or any subclass: each
      // of the library's is an error of its own, composed by its class.
      if (const ClassInfo* caught = LibraryException(p.callee, p.site.path)) {
        for (const ClassInfo* sub : Subclasses(caught)) {
          ProtoSite copy = p;
          copy.callee = sub->name;
          copy.site.exception = sub->name;
          for (Site& s : ResolveClass(copy)) out.push_back(std::move(s));
        }
      }
    }
    if (p.callee_is_class) {
      for (Site& s : ResolveClass(p)) out.push_back(std::move(s));
      return out;
    }
    return ResolveCall(p, on_self);
  }

  static bool RaisesCaughtClass(const ProtoSite& p) {
    return StartsWith(p.site.exception_written, "type(") ||
           EndsWith(p.site.exception_written, ".__class__");
  }

  // The library's classes with `c` in their MRO (not `c`), at most
  // kMaxMessages of them.
  std::vector<const ClassInfo*> Subclasses(const ClassInfo* c) {
    auto memo = subclasses_.find(c);
    if (memo != subclasses_.end()) return memo->second;
    std::vector<const ClassInfo*> out;
    for (const FileResult* f : files_) {
      for (const ClassInfo& k : f->classes) {
        if (&k == c || out.size() >= kMaxMessages) continue;
        std::vector<const ClassInfo*> mro = Mro(&k);
        if (std::find(mro.begin(), mro.end(), c) != mro.end()) out.push_back(&k);
      }
    }
    subclasses_[c] = out;
    return out;
  }

  // The sites of `p`, a raise of the class it names.
  std::vector<Site> ResolveClass(ProtoSite p) {
    std::vector<Site> out;
    const ClassInfo* c = FindClass(p.callee, p.site.path);
    if (c != nullptr && BuildsMessage(c)) {
      if (p.site.via.empty()) p.site.via = c->name;
      for (Template& t : Compose(c, p.args)) {
        Site s = p.site;
        s.message = std::move(t);
        out.push_back(std::move(s));
      }
      return out;
    }
    if (c != nullptr || p.has_call) {
      p.site.message = BuiltinMessage(c ? BuiltinBase(Mro(c)) : p.callee, p.args);
    }
    out.push_back(std::move(p.site));
    return out;
  }

  // The sites of `p`, a raise of what a call returns.
  std::vector<Site> ResolveCall(ProtoSite& p, const std::vector<const ClassInfo*>& on_self,
                                int depth = 0, std::string_view near = {}) {
    // The helper nearest the call: for a chain, the file of the helper that
    // makes the call, not of the raise.
    if (near.empty()) near = p.site.path;
    std::vector<Site> out;
    if (!p.has_call) {
      out.push_back(std::move(p.site));
      return out;
    }
    // raise helper(...): the exceptions the helper returns, its parameters
    // bound to this call's arguments.
    auto it = functions_.find(p.callee);
    std::vector<const FunctionRef*> returning;
    if (it != functions_.end()) {
      for (const FunctionRef* r : it->second) {
        if (r->info->returned_sites.empty()) continue;
        if (!Reaches(r, CalleeWritten(p), on_self)) continue;
        returning.push_back(r);
      }
    }
    const FunctionRef* ref = Nearest(returning, near);
    // `raise rewrite_traceback_stack(...)` (jinja2): the library's own
    // function, which returns no exception errdex can name (the caught one,
    // rebuilt, or one of a type chosen at run time). Its name is no
    // exception type, and a page saying so would be wrong.
    // Asked only once nothing is found: most raises of a call find a helper.
    auto unnamed = [&] {
      if (p.site.exception != p.callee) return false;
      if (Defines(p.callee, CalleeWritten(p), p.site.path, on_self)) return true;
      return std::any_of(std::begin(kValueReturningCalls), std::end(kValueReturningCalls),
                         [&](const ValueCall& v) {
                           return v.name == p.callee && (v.with_arguments || p.args.empty());
                         }) &&
             FindClass(p.callee, p.site.path) == nullptr;
    };
    if (depth > 0 && ref == nullptr) return out;
    if (ref == nullptr && unnamed()) {
      unnamed_.push_back(NonSite{p.site.path, p.site.line, "raise-returned"});
      return out;
    }
    if (ref == nullptr) {
      // `Error.from_data(...)`, a class's alternative constructor not found:
      // its arguments are not the message (the front end named the class).
      if (p.site.exception == p.callee) p.site.message = BuiltinMessage(p.callee, p.args);
      out.push_back(std::move(p.site));
      return out;
    }
    Bindings b;
    BindArguments(ref->info->params, p.args, b);
    // A return under `if qualifier:` for a call that leaves qualifier None.
    const std::vector<size_t>& returns = ref->info->returned_sites;
    std::vector<bool> possible = PossibleWays(
        returns,
        [&](size_t index) -> const std::vector<CallArg>& { return ref->file->sites[index].args; },
        b);
    for (size_t r = 0; r < returns.size(); ++r) {
      if (!possible[r]) continue;
      const ProtoSite& returned = ref->file->sites[returns[r]];
      std::vector<Template> messages{returned.site.message};
      const ClassInfo* c = FindClass(returned.callee, returned.site.path);
      bool is_class = returned.callee_is_class || (c != nullptr && IsException(c, 0));
      if (!is_class && returned.tentative && depth < kMaxReturnChain) {
        // The helper returns what another function returns: followed, with
        // this call's values put into that call's arguments.
        ProtoSite next = returned;
        for (CallArg& a : next.args) a = WithValue(a, b);
        next.site = p.site;
        next.site.exception = returned.site.exception;
        next.site.exception_written = returned.site.exception_written;
        next.tentative = false;
        for (Site& s : ResolveCall(next, SelfClasses(returned), depth + 1, returned.site.path)) {
          s.via = ref->info->qualified;
          out.push_back(std::move(s));
        }
        KeepDistinct(out);
        continue;
      }
      if (returned.tentative && LibraryException(returned.callee, returned.site.path) == nullptr) {
        continue;
      }
      if (is_class && c != nullptr && BuildsMessage(c)) {
        messages = Compose(c, returned.args);
      } else if (is_class && c != nullptr) {
        messages = {BuiltinMessage(BuiltinBase(Mro(c)), returned.args)};
      }
      for (const Template& message : messages) {
        Site s = p.site;
        s.exception = returned.site.exception;
        s.exception_written = returned.site.exception_written;
        s.message = Substitute(message, b);
        s.via = ref->info->qualified;
        out.push_back(std::move(s));
      }
    }
    KeepDistinct(out);
    if (out.empty() && depth == 0 && unnamed()) {
      unnamed_.push_back(NonSite{p.site.path, p.site.line, "raise-returned"});
    } else if (out.empty() && depth == 0) {
      // Every exception the helper returns was a guess that failed: the
      // raise stays a site of its own, as when no helper is found.
      if (p.site.exception == p.callee) p.site.message = BuiltinMessage(p.callee, p.args);
      out.push_back(std::move(p.site));
    }
    return out;
  }

  // Branches returning the same exception give one site, in order; a chain
  // of dispatching helpers is bounded like a sink's raises.
  static void KeepDistinct(std::vector<Site>& sites) {
    std::set<std::pair<std::string, std::string>> seen;
    std::erase_if(sites, [&](const Site& s) {
      return seen.size() >= kMaxSinkRaises ||
             !seen.emplace(s.exception, s.message.Display()).second;
    });
  }

  // One raise whose message has alternatives with words and one without
  // (`if message is None: message = "..."` leaves the caller's message as
  // the other way): the wordless one would match any message of the type.
  // What callers pass is their own error, at the call (a sink).
  static void DropWordlessAlternatives(std::vector<Site>& sites) {
    std::set<std::tuple<int, int, std::string>> worded;
    for (const Site& s : sites) {
      if (s.message.LiteralSize() > 0) worded.emplace(s.line, s.column, s.exception);
    }
    std::erase_if(sites, [&](const Site& s) {
      return s.message.LiteralSize() == 0 && !s.message.pieces().empty() &&
             worded.count({s.line, s.column, s.exception}) > 0;
    });
  }

 public:
  // C/C++ sites raising a library class by name with arguments errdex
  // cannot see (`PyErr_SetObject(exc_type, args)`): the class composes the
  // text from its constructor's parameters, left as placeholders.
  void ComposeNative(std::vector<Site>& sites) {
    std::vector<Site> out;
    for (Site& s : sites) {
      const ClassInfo* c = s.message.LiteralSize() == 0 && !s.exception.empty()
                               ? LibraryException(s.exception, s.path)
                               : nullptr;
      std::vector<Template> composed;
      if (c != nullptr && BuildsMessage(c)) {
        for (Template& t : Compose(c, {})) {
          if (t.LiteralSize() > 0) composed.push_back(std::move(t));
        }
      }
      if (composed.empty()) {
        out.push_back(std::move(s));
        continue;
      }
      for (Template& t : composed) {
        Site copy = s;
        copy.message = std::move(t);
        copy.message.AssignNames();
        copy.via = c->name;
        out.push_back(std::move(copy));
      }
    }
    sites = std::move(out);
  }

 private:
  // ------------------------------------------------------------------ sinks

  using ConstantTests = std::vector<std::pair<std::string, std::vector<std::string>>>;

  // `("a", 'b', MODE)`, `['a']`, `{1, 2}`: the constants of a literal
  // collection; nothing when an element is anything else.
  static std::optional<std::vector<std::string>> ConstantList(std::string_view e) {
    e = Trim(e);
    if (e.size() < 2) return std::nullopt;
    char open = e.front(), close = e.back();
    if (!((open == '(' && close == ')') || (open == '[' && close == ']') ||
          (open == '{' && close == '}'))) {
      return std::nullopt;
    }
    std::vector<std::string> out;
    std::string_view body = e.substr(1, e.size() - 2);
    size_t start = 0;
    char quote = 0;
    for (size_t i = 0; i <= body.size(); ++i) {
      char c = i < body.size() ? body[i] : ',';
      if (quote != 0) {
        if (c == '\\')
          ++i;
        else if (c == quote)
          quote = 0;
        continue;
      }
      if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == ',') {
        std::string_view item = Trim(body.substr(start, i - start));
        start = i + 1;
        if (item.empty()) continue;  // `("a",)`
        // A whole string literal, a number or an upper-case name; not a
        // dict's `'a': 1`.
        bool quoted = item.front() == '\'' || item.front() == '"';
        if (!IsConstantExpression(item) ||
            (quoted &&
             (item.size() < 2 || item.back() != item.front() ||
              item.substr(1, item.size() - 2).find(item.front()) != std::string_view::npos)) ||
            (!quoted && item.find_first_of(":=") != std::string_view::npos)) {
          return std::nullopt;
        }
        out.emplace_back(item);
      } else if (c == '(' || c == '[' || c == '{') {
        return std::nullopt;
      }
    }
    if (out.empty()) return std::nullopt;
    return out;
  }

  // What the conditions on the way to a raise in `fn` say of a parameter
  // compared with constants: `required`, the constants it equals one of
  // (`if cons == A or cons == B:`, `if mode in ("a", "b"):`), and
  // `excluded`, those it differs from (`if mode != "a":`, `if mode not in
  // (...)`, an early `if mode == "clip": return`, the `else` of `if s is
  // None or s == "fill"`). A true conjunction holds in each part and a false
  // disjunction fails in each; of a false conjunction nothing follows.
  static void ConstantConditions(const FunctionInfo& fn, const Site& site, ConstantTests& required,
                                 ConstantTests& excluded) {
    std::map<std::string, std::vector<std::string>> out;
    for (const Guard& g : site.guards) {
      if (g.kind != "if" && g.kind != "elif" && g.kind != "early-exit") continue;
      bool holds = !g.negated;
      std::string_view code = g.code;
      bool has_and = code.find(" and ") != std::string_view::npos;
      bool has_or = code.find(" or ") != std::string_view::npos;
      if (has_and && has_or) continue;
      // A true disjunction of equalities on one parameter: it equals one.
      if (holds && has_or) {
        std::string param;
        std::vector<std::string> constants;
        std::string_view rest = code;
        bool ok = true;
        while (ok && !rest.empty()) {
          size_t or_at = rest.find(" or ");
          std::string_view part = Trim(rest.substr(0, or_at));
          rest = or_at == std::string_view::npos ? std::string_view() : rest.substr(or_at + 4);
          size_t eq = part.find(" == ");
          ok = eq != std::string_view::npos;
          if (!ok) break;
          std::string left(Trim(part.substr(0, eq)));
          std::string right(Trim(part.substr(eq + 4)));
          if (HasParam(fn, right) && !HasParam(fn, left)) std::swap(left, right);
          ok =
              HasParam(fn, left) && IsConstantExpression(right) && (param.empty() || param == left);
          param = left;
          constants.push_back(right);
        }
        if (ok && !param.empty()) required.emplace_back(param, constants);
        continue;
      }
      if (!holds && has_and) continue;
      std::string_view sep = has_and ? " and " : " or ";
      std::map<std::string, std::vector<std::string>> differs;
      std::string_view rest = code;
      while (!rest.empty()) {
        size_t at = rest.find(sep);
        std::string_view part = Trim(rest.substr(0, at));
        rest = at == std::string_view::npos ? std::string_view() : rest.substr(at + sep.size());
        // The part's operator, and whether the part holding means equal.
        std::string_view op;
        bool equal = true;
        size_t pos = std::string_view::npos;
        for (auto [o, eq] : {std::pair<std::string_view, bool>{" not in ", false},
                             {" in ", true},
                             {" == ", true},
                             {" != ", false}}) {
          pos = part.find(o);
          if (pos != std::string_view::npos) {
            op = o;
            equal = eq;
            break;
          }
        }
        if (op.empty()) continue;
        std::string left(Trim(part.substr(0, pos)));
        std::string right(Trim(part.substr(pos + op.size())));
        std::vector<std::string> constants;
        if (op == " in " || op == " not in ") {
          std::optional<std::vector<std::string>> list = ConstantList(right);
          if (!list || !HasParam(fn, left)) continue;
          constants = std::move(*list);
        } else {
          if (HasParam(fn, right) && !HasParam(fn, left)) std::swap(left, right);
          if (!HasParam(fn, left) || !IsConstantExpression(right)) continue;
          constants.push_back(right);
        }
        // Equal where the part holds and it holds, or neither: one of them.
        bool equals_one = equal == holds;
        if (equals_one) {
          // A true `in` (or a false `not in`) is one of them; in a false
          // disjunction only a lone part says so.
          if (holds || !has_or) required.emplace_back(left, std::move(constants));
        } else {
          auto& d = differs[left];
          d.insert(d.end(), constants.begin(), constants.end());
        }
      }
      for (auto& [param, constants] : differs)
        out[param].insert(out[param].end(), constants.begin(), constants.end());
    }
    excluded.assign(out.begin(), out.end());
  }

  static bool HasParam(const FunctionInfo& fn, std::string_view name) {
    return std::any_of(fn.params.begin(), fn.params.end(),
                       [&](const Param& p) { return p.name == name; });
  }

  // The sink linker's id of `fn`, registered the first time it is asked.
  int SinkId(const FunctionInfo* fn) {
    auto [it, added] = sink_ids_.emplace(fn, 0);
    if (added) {
      it->second = sinks_.AddFunction(&fn->params);
      sink_functions_.push_back(fn);
    }
    return it->second;
  }

  int SinkIdOf(const FunctionInfo* fn) const {
    auto it = sink_ids_.find(fn);
    return it == sink_ids_.end() ? -1 : it->second;
  }

  // The functions that raise with a parameter; then, round by round, those
  // that pass their own parameter on to one (a helper calling a helper).
  void FindSinks() {
    for (const FileResult* file : files_) {
      const FileResult& f = *file;
      for (const FunctionInfo& fn : f.functions) {
        for (size_t index : fn.sink_sites) {
          const ProtoSite& p = f.sites[index];
          if (p.site.internal) continue;
          bool guarded = !p.site.guards.empty();
          std::string type_param =
              !p.type_param.empty() ? p.type_param : HasParam(fn, p.callee) ? p.callee : "";
          ConstantTests required, excluded;
          ConstantConditions(fn, p.site, required, excluded);
          for (Site& s : Resolve(p)) {
            // The branches the raise's arguments were built in, for each
            // caller's arguments to decide.
            for (const CallArg& a : p.args) {
              if (!a.arg.value) continue;
              for (const Assumption& x : a.arg.value->assumptions()) s.message.Assume(x);
            }
            flow::SinkRaise r;
            r.exception = std::move(s.exception);
            r.exception_written = std::move(s.exception_written);
            r.type_param = type_param;
            r.type_map = p.type_map;
            r.message = std::move(s.message);
            FormatOfVariadic(fn, r);
            r.guarded = guarded;
            r.requires_equal = required;
            r.excludes = excluded;
            sinks_.AddRaise(SinkId(&fn), std::move(r));
          }
        }
      }
    }
    for (const FileResult* file : files_) {
      const FileResult& f = *file;
      for (const SinkCall& c : f.calls) {
        flow::SinkCall call;
        if (c.function >= 0) call.caller = SinkId(&f.functions[static_cast<size_t>(c.function)]);
        call.ways = &c.arg_alternatives;
        call.guarded = !c.site.guards.empty();
        sink_calls_.push_back(call);
        calls_.push_back(&c);
      }
    }
    sinks_.Propagate(
        sink_calls_,
        [&](size_t i) {
          const FunctionInfo* sink = FindSink(*calls_[i]);
          return sink == nullptr ? -1 : SinkIdOf(sink);
        },
        kMaxSinkDepth);
  }

  // `raise X(fmt % args)` in `def f(fmt, *args)`: the format and what fills
  // it are both the caller's, so the raise is the format, filled once bound.
  static void FormatOfVariadic(const FunctionInfo& fn, flow::SinkRaise& r) {
    const std::vector<Piece>& pieces = r.message.pieces();
    if (pieces.size() != 1 || !pieces[0].is_value) return;
    std::string_view e = pieces[0].text;
    size_t op = e.find(" % ");
    if (op == std::string_view::npos) return;
    std::string_view format = Trim(e.substr(0, op));
    std::string_view args = Trim(e.substr(op + 3));
    auto param = [&](std::string_view name) -> const Param* {
      for (const Param& p : fn.params) {
        // A variadic parameter's name keeps its star: `*args`.
        if (p.name == name || (p.variadic && p.name.size() == name.size() + 1 && p.name[0] == '*' &&
                               EndsWith(p.name, name))) {
          return &p;
        }
      }
      return nullptr;
    };
    const Param* f = param(format);
    const Param* a = param(args);
    if (f == nullptr || f->variadic || a == nullptr || !a->variadic ||
        a->name != "*" + std::string(args)) {
      return;
    }
    Template message = Template::Value(format, ValueKind::kAny);
    for (const Assumption& x : r.message.assumptions()) message.Assume(x);
    r.message = std::move(message);
    r.fill = flow::SinkRaise::Fill{flow::Format::kPercent, {}, true};
  }

  // The class a type argument names: a builtin or a class of the library.
  std::optional<std::string> TypeNamed(std::string_view written, int sink) const {
    std::string_view last = LastComponent(written);
    const FunctionInfo* fn = sink_functions_[static_cast<size_t>(sink)];
    if (LooksLikeExceptionClass(last) || FindClass(last, fn->path) != nullptr) {
      return std::string(last);
    }
    return std::nullopt;
  }

  bool IsMethodOf(const FunctionInfo& fn, std::string_view class_name) const {
    std::string_view q = fn.qualified;
    size_t dot = q.rfind('.');
    if (dot == std::string_view::npos) return false;
    std::string_view owner = q.substr(0, dot);
    size_t outer = owner.rfind('.');
    if (outer != std::string_view::npos) owner = owner.substr(outer + 1);
    return owner == class_name;
  }

  // The sink a call reaches: through the calling class's hierarchy for
  // self/cls, the module function of that name for a plain call, and for
  // another receiver (`ctx.fail`) the one sink of that name, or the one in
  // the caller's file. Ambiguity gives none: a wrong site is worse.
  const FunctionInfo* FindSink(const SinkCall& c) const {
    auto it = functions_.find(c.callee);
    if (it == functions_.end()) return nullptr;
    std::vector<const FunctionRef*> candidates;
    for (const FunctionRef* r : it->second) {
      if (sinks_.IsSink(SinkIdOf(r->info))) candidates.push_back(r);
    }
    if (candidates.empty()) return nullptr;
    if (c.receiver == "self" || c.receiver == "cls") {
      if (c.owner.empty()) return nullptr;
      const ClassInfo* owner = FindClass(c.owner, c.site.path);
      if (owner == nullptr) return nullptr;
      for (const ClassInfo* k : Mro(owner)) {
        for (const FunctionRef* r : candidates) {
          if (IsMethodOf(*r->info, k->name) && r->path == k->path) return r->info;
        }
      }
      return nullptr;
    }
    if (c.receiver.empty()) {
      std::vector<const FunctionRef*> functions;
      for (const FunctionRef* r : candidates) {
        if (r->info->qualified != c.callee) continue;
        if (r->path == c.site.path) return r->info;
        functions.push_back(r);
      }
      // The caller's file's own function of that name is the one called,
      // sink or not (jax_plugins' `_load` is not pallas's).
      if (FileFacts(c.site.path).functions.count(c.callee) != 0) return nullptr;
      const FunctionRef* r = Nearest(functions, c.site.path);
      return r == nullptr ? nullptr : r->info;
    }
    if (Contains(c.receiver, kNotSinkReceivers)) return nullptr;
    // A module the caller's file imports (`unicodedata.normalize`,
    // `struct.pack`): a function of that module, never a method of some
    // class of that name (decimal's Context.normalize), nor a function of
    // another module; a module outside the library reaches no sink.
    if (const std::string* module = ImportedModule(c.site.path, c.receiver)) {
      std::erase_if(candidates, [&](const FunctionRef* r) {
        return r->info->qualified != c.callee || !InModule(r->path, *module);
      });
    }
    if (candidates.size() == 1) {
      return Plausible(c, *candidates[0]) ? candidates[0]->info : nullptr;
    }
    const FunctionRef* same_file = nullptr;
    for (const FunctionRef* r : candidates) {
      if (r->path != c.site.path) continue;
      if (same_file != nullptr) return nullptr;
      same_file = r;
    }
    return same_file == nullptr ? nullptr : same_file->info;
  }

  // Whether `obj.m(...)`, with nothing known of `obj`, may call `sink`, the
  // library's one sink named `m`. When the library defines no other `m`,
  // yes. Else only with evidence that the caller knows the sink's module:
  // it is the caller's own file or a sibling, or the caller imports the
  // module (`import a.b`, also a package above it), or the sink's class or
  // module by name (`from a.b import Headers`, `from a import b`). CPython's email tests call
  // `msg.add_header('First', 'One')` on a Message, whose add_header raises nothing; wsgiref's
  // Headers.add_header asserts, and was taken for it.
  bool Plausible(const SinkCall& c, const FunctionRef& sink) const {
    auto it = defined_.find(c.callee);
    auto other = [&](const Defined& d) {
      return d.path != sink.path || d.function->qualified != sink.info->qualified;
    };
    bool others = it != defined_.end() && std::any_of(it->second.begin(), it->second.end(), other);
    if (!others) return true;
    // The sink in the caller's own file is the one called, unless another
    // definition there is as near: httplib2's `auth.request(method, ...)`
    // in Http._request is its file's Authentication.request, not
    // Http.request, whose `uri` it would have filled with the method. The
    // caller itself is no rival: a method calling `other.same_name(...)`
    // hands the call on.
    if (sink.path == c.site.path) {
      return std::none_of(it->second.begin(), it->second.end(), [&](const Defined& d) {
        return other(d) && d.path == c.site.path && d.function->qualified != c.site.function;
      });
    }
    auto file = by_path_.find(c.site.path);
    // The class the sink is a method of, when it is one.
    std::string_view qualified = sink.info->qualified;
    std::string_view owner = qualified.substr(0, qualified.find('.'));
    if (owner == qualified) owner = {};
    // A class of that name the caller imports from elsewhere is the one it
    // calls: idlelib's tests beside its tkinter mock import tkinter's Text.
    if (!owner.empty() && file != by_path_.end()) {
      for (const ImportFact& i : file->second->facts.imports) {
        if (i.name == owner && DefinesOwnClass(c.site.path, i, sink.path)) return false;
      }
    }
    auto dir = [](std::string_view path) {
      size_t slash = path.rfind('/');
      return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
    };
    if (dir(sink.path) == dir(c.site.path)) return true;
    if (file == by_path_.end()) return false;
    std::string module = ModuleName(sink.path);
    if (module.empty()) return false;
    // `w` names the module, or (`above`) a package above it; `w` may name
    // it from a root above the one indexed (`numpy.linalg` for linalg/...).
    auto names_module = [&](std::string_view w, bool above) {
      for (std::string_view m = w; !m.empty();) {
        if (module == m || (above && StartsWith(module, std::string(m) + "."))) return true;
        size_t dot = m.find('.');
        m = dot == std::string_view::npos ? std::string_view() : m.substr(dot + 1);
      }
      return false;
    };
    for (const ImportFact& i : file->second->facts.imports) {
      std::string wanted =
          AbsoluteImport(ModuleName(c.site.path), EndsWith(c.site.path, "__init__.py"), i);
      if (i.name.empty()) {
        if (names_module(wanted, true)) return true;  // import pkg.sub
        continue;
      }
      // `from M import N`: N is the sink's class (wherever M re-exports it
      // from), or M.N is the sink's module, or, for a function, M is. M
      // being a package above it says nothing: a library's own tests import
      // everything from it. Nor does another class of the method's module
      // (lazr's cache tests import AtomicFileCache from _browser and call
      // `cache.delete("key")`, not Browser.delete).
      if ((!owner.empty() && i.name == owner) || (owner.empty() && names_module(wanted, false)) ||
          names_module(wanted + "." + i.name, false)) {
        return true;
      }
    }
    return false;
  }

  // Whether `from M import N`, in the file at `importer`, names a class N
  // that M's own file defines, not the one at `sink_path`: idlelib's `from
  // tkinter import Text` is tkinter's Text, not its test mock's.
  bool DefinesOwnClass(const std::string& importer, const ImportFact& i,
                       const std::string& sink_path) const {
    auto it = classes_.find(i.name);
    if (it == classes_.end()) return false;
    return std::any_of(it->second.begin(), it->second.end(), [&](const ClassInfo* k) {
      return k->path != sink_path && DefinesModule(k->path, importer, i);
    });
  }

  // What one file defines and imports, looked up by name; built on first use.
  struct Names {
    std::unordered_set<std::string> functions;             // module-level, by name
    std::unordered_map<std::string, std::string> modules;  // `import a.b as x`: x -> a.b
  };
  const Names& FileFacts(const std::string& path) const {
    auto [it, added] = file_names_.try_emplace(path);
    if (added) {
      auto f = by_path_.find(path);
      if (f != by_path_.end()) {
        for (const DefinedFunction& d : f->second->facts.functions) {
          it->second.functions.insert(d.qualified);
        }
        for (const ImportFact& i : f->second->facts.imports) {
          if (i.name.empty() && i.level == 0) it->second.modules.emplace(i.local, i.module);
        }
      }
    }
    return it->second;
  }

  // The module the file at `path` binds `name` to (`import x`, `import x.y
  // as name`), if any.
  const std::string* ImportedModule(const std::string& path, const std::string& name) const {
    const Names& n = FileFacts(path);
    auto it = n.modules.find(name);
    return it == n.modules.end() ? nullptr : &it->second;
  }

  // Whether a file at `path` (relative to the library's root) can be module
  // `module` or inside its package: `struct` is struct.py, `a.b` a/b.py or
  // under a/b/; a library indexed from its own package directory drops the
  // package's name (`networkx.x` is x.py there), so a module's tail counts.
  static bool InModule(std::string_view path, std::string_view module) {
    std::string dotted(path);
    for (char& ch : dotted) ch = ch == '/' ? '.' : ch;
    if (EndsWith(dotted, ".py")) dotted.resize(dotted.size() - 3);
    std::string_view d = dotted;
    for (std::string_view m = module; !m.empty();) {
      for (size_t at = d.find(m); at != std::string_view::npos; at = d.find(m, at + 1)) {
        size_t end = at + m.size();
        if ((at == 0 || d[at - 1] == '.') && (end == d.size() || d[end] == '.')) return true;
      }
      size_t dot = m.find('.');
      m = dot == std::string_view::npos ? std::string_view() : m.substr(dot + 1);
    }
    return false;
  }

  // The errors call `i` (of FindSinks' list) makes by passing text to a
  // sink: at the call, with the sink's type, when the caller wrote some of
  // the text or named the class.
  void SinkCallSites(size_t i, std::vector<Site>& out) {
    const SinkCall& c = *calls_[i];
    const FunctionInfo* sink = FindSink(c);
    if (sink == nullptr) return;
    for (flow::SinkRaise& bound : sinks_.Made(sink_calls_[i], SinkIdOf(sink))) {
      Site s = c.site;
      s.exception = std::move(bound.exception);
      s.exception_written = std::move(bound.exception_written);
      s.message = std::move(bound.message);
      s.via = sink->qualified;
      if (bound.guarded) s.trigger = flow::GuardedSinkTrigger(s, sink->qualified);
      out.push_back(std::move(s));
    }
  }

  const std::vector<const FileResult*>& files_;
  flow::SinkLinker sinks_{flow::Printing::kPython, [this](std::string_view written, int sink) {
                             return TypeNamed(written, sink);
                           }};
  std::unordered_map<const FunctionInfo*, int> sink_ids_;
  std::vector<const FunctionInfo*> sink_functions_;  // by sink id
  std::vector<flow::SinkCall> sink_calls_;           // every file's calls, in order
  std::vector<const SinkCall*> calls_;
  std::unordered_map<std::string, std::vector<const ClassInfo*>> classes_;
  std::unordered_map<std::string, std::vector<const FunctionRef*>> functions_;
  std::vector<std::unique_ptr<FunctionRef>> refs_;
  std::unordered_map<const ClassInfo*, bool> is_exception_;
  std::unordered_map<const ClassInfo*, std::vector<const ClassInfo*>> subclasses_;
  // Every function and method of the library by its name, returning
  // exceptions or not.
  struct Defined {
    const DefinedFunction* function;
    std::string_view path;
  };
  std::unordered_map<std::string, std::vector<Defined>> defined_;
  std::unordered_map<std::string, const FileResult*> by_path_;
  mutable std::unordered_map<std::string, Names> file_names_;  // FileFacts
  // Raises of what a library function returns, no exception errdex can name.
  std::vector<NonSite> unnamed_;
};

}  // namespace

void LinkPython(const std::vector<const FileResult*>& files, Extraction& out,
                std::vector<Site>* native, const std::vector<NativeFile>* native_files) {
  Linker linker(files);
  size_t first = out.sites.size();
  linker.Run(out);
  MarkReplaced(files, out.sites, first);
  if (native != nullptr) linker.ComposeNative(*native);
  AssignEntryPoints(files, native_files != nullptr ? *native_files : std::vector<NativeFile>{},
                    out.sites, first, native);
}

}  // namespace errdex::extract::python
