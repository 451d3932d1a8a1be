#include "extract/python/py_linker.h"

#include "core/text.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace errdex::extract::python {
namespace {

using Bindings = std::map<std::string, FormatArg, std::less<>>;

constexpr size_t kMaxMro = 16;

size_t CommonPrefix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
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
  explicit Linker(std::vector<FileResult>& files) : files_(files) {
    for (const FileResult& f : files_) {
      for (const ClassInfo& c : f.classes) classes_[c.name].push_back(&c);
      for (const FunctionInfo& fn : f.functions) {
        functions_[fn.name].push_back(new_ref(FunctionRef{&fn, &f, fn.path}));
      }
    }
  }

  void Run(Extraction& out) {
    for (FileResult& f : files_) {
      for (const ProtoSite& p : f.sites) {
        for (Site& s : Resolve(p)) {
          s.message.AssignNames();
          // `raise AssertionError(...)` is an assert that survives `python -O`.
          if (s.exception == "AssertionError") s.internal = true;
          out.sites.push_back(std::move(s));
        }
      }
      for (NonSite& n : f.non_sites) out.non_sites.push_back(std::move(n));
      for (FileIssue& i : f.issues) out.issues.push_back(std::move(i));
    }
    for (const FileResult& f : files_) {
      for (const ClassInfo& c : f.classes) {
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

  // The message class `c` builds from constructor arguments `args`.
  Template Compose(const ClassInfo* c, const std::vector<CallArg>& args) const {
    std::vector<const ClassInfo*> mro = Mro(c);
    // The class's own name is known wherever it is raised.
    Bindings class_name;
    for (std::string_view expr : {"type(self).__name__", "self.__class__.__name__", "cls.__name__",
                                  "self.__class__.__qualname__", "type(self).__qualname__"}) {
      class_name[std::string(expr)] = FormatArg{std::string(expr), Template::Literal(c->name)};
    }
    return Substitute(ComposeArgs(mro, args), class_name);
  }

  Template ComposeArgs(const std::vector<const ClassInfo*>& mro,
                       const std::vector<CallArg>& args) const {
    Bindings init_bindings;
    for (const ClassInfo* k : mro) {
      if (k->has_init) {
        BindArguments(k->init_params, args, init_bindings);
        break;
      }
    }
    for (const ClassInfo* k : mro) {
      if (!k->str_template) continue;
      // __str__ reads attributes __init__ set: self.x = <expr of parameters>.
      Bindings attrs;
      for (const ClassInfo* owner : mro) {
        for (const auto& [attr, value] : owner->self_attrs) {
          std::string key = "self." + attr;
          if (attrs.count(key)) continue;
          FormatArg bound = value;
          if (value.value) {
            bound.value = Substitute(*value.value, init_bindings);
          } else if (auto it = init_bindings.find(value.expression); it != init_bindings.end()) {
            // A parameter left at a None default is usually filled in later in
            // __init__ (`if message is None: message = name`): unknown, not None.
            if (it->second.expression == "None") {
              bound = FormatArg{key, std::nullopt};
            } else {
              bound = it->second;
            }
          }
          attrs[key] = bound;
        }
      }
      return Substitute(Substitute(*k->str_template, attrs), init_bindings);
    }
    std::vector<CallArg> current = args;
    for (size_t i = 0; i < mro.size(); ++i) {
      const ClassInfo* k = mro[i];
      if (!k->has_init) continue;
      // Without super().__init__(...) the exception keeps the arguments it
      // was constructed with (BaseException.__new__ stores them).
      if (!k->super_args) return BuiltinMessage(BuiltinBase(mro), args);
      Bindings b;
      BindArguments(k->init_params, current, b);
      std::vector<CallArg> next;
      for (const CallArg& a : *k->super_args) {
        // super().__init__(*args): the positional arguments *args gathered.
        if (a.splat && a.keyword.empty() && IsVariadic(k->init_params, a.arg.expression)) {
          for (CallArg& rest : Gathered(k->init_params, current)) next.push_back(std::move(rest));
          continue;
        }
        if (a.splat && StartsWith(a.arg.expression, "**")) continue;  // keywords: not printed
        next.push_back(WithValue(a, b));
      }
      current = std::move(next);
      if (k->super_target.empty()) continue;
      // Base.__init__(self, ...) goes straight to Base, skipping the classes
      // between; a base outside the library prints the arguments.
      auto target = std::find_if(mro.begin(), mro.end(),
                                 [&](const ClassInfo* m) { return m->name == k->super_target; });
      if (target == mro.end()) return BuiltinMessage(k->super_target, current);
      // Only a later class in the MRO can be next; a call back to the class
      // itself or an earlier one is a recursion no message comes out of.
      auto next_index = static_cast<size_t>(target - mro.begin());
      if (next_index <= i) return Template::Value("message", ValueKind::kAny);
      i = next_index - 1;
    }
    return BuiltinMessage(BuiltinBase(mro), current);
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
      if (k->has_init || k->str_template) return true;
    }
    return false;
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
    // Sites a helper returns are read again for each `raise helper(...)`: work on a copy.
    ProtoSite p = original;
    std::vector<Site> out;
    InlineMessageHelpers(p);
    if (p.callee_is_class) {
      const ClassInfo* c = FindClass(p.callee, p.site.path);
      if (c != nullptr && BuildsMessage(c)) {
        p.site.message = Compose(c, p.args);
        if (p.site.via.empty()) p.site.via = c->name;
      } else if (c != nullptr || p.has_call) {
        p.site.message = BuiltinMessage(c ? BuiltinBase(Mro(c)) : p.callee, p.args);
      }
      out.push_back(std::move(p.site));
      return out;
    }
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
        if (!r->info->returned_sites.empty()) returning.push_back(r);
      }
    }
    const FunctionRef* ref = Nearest(returning, p.site.path);
    if (ref == nullptr) {
      p.site.message = BuiltinMessage(p.callee, p.args);
      out.push_back(std::move(p.site));
      return out;
    }
    Bindings b;
    BindArguments(ref->info->params, p.args, b);
    for (size_t index : ref->info->returned_sites) {
      const ProtoSite& returned = ref->file->sites[index];
      Site s = p.site;
      s.exception = returned.site.exception;
      s.exception_written = returned.site.exception_written;
      Template message = returned.site.message;
      if (returned.callee_is_class) {
        const ClassInfo* c = FindClass(returned.callee, returned.site.path);
        if (c != nullptr && BuildsMessage(c)) message = Compose(c, returned.args);
      }
      s.message = Substitute(message, b);
      s.via = ref->info->qualified;
      out.push_back(std::move(s));
    }
    return out;
  }

  std::vector<FileResult>& files_;
  std::unordered_map<std::string, std::vector<const ClassInfo*>> classes_;
  std::unordered_map<std::string, std::vector<const FunctionRef*>> functions_;
  std::vector<std::unique_ptr<FunctionRef>> refs_;
  std::unordered_map<const ClassInfo*, bool> is_exception_;
};

}  // namespace

void LinkPython(std::vector<FileResult>& files, Extraction& out) { Linker(files).Run(out); }

}  // namespace errdex::extract::python
