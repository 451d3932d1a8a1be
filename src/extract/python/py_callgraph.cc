#include "extract/python/py_callgraph.h"

#include <algorithm>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/text.h"

namespace errdex::extract::python {
namespace {

// Name resolution follows imports and aliases this deep, and bases this many.
constexpr int kMaxResolveDepth = 8;
// The search up from a site stops this many calls away, or after visiting
// this many functions: enough for the deepest real chains, bounded on any
// graph.
constexpr int kMaxCallDepth = 8;
constexpr size_t kMaxVisited = 4096;

constexpr std::string_view kNonPublicDirs[] = {"tests", "test", "benchmarks", "examples", "docs",
                                                "doc"};

bool IsPublicModule(std::string_view module) {
  size_t at = 0;
  while (at <= module.size()) {
    size_t dot = module.find('.', at);
    std::string_view part = module.substr(at, dot == std::string_view::npos ? dot : dot - at);
    if (part.empty() || part[0] == '_') return false;
    for (std::string_view d : kNonPublicDirs) {
      if (part == d) return false;
    }
    if (dot == std::string_view::npos) break;
    at = dot + 1;
  }
  return !module.empty();
}

std::vector<std::string_view> Split(std::string_view dotted) {
  std::vector<std::string_view> out;
  size_t at = 0;
  while (true) {
    size_t dot = dotted.find('.', at);
    out.push_back(dotted.substr(at, dot == std::string_view::npos ? dot : dot - at));
    if (dot == std::string_view::npos) break;
    at = dot + 1;
  }
  return out;
}

std::string_view LastName(std::string_view dotted) {
  size_t dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

struct Target {
  // kVariable: a module-level name bound to anything else (id: keys_).
  enum Kind { kNone, kModule, kFunction, kClass, kVariable } kind = kNone;
  int id = -1;
};

struct Edge {
  int caller = -1;
  // Callee parameter ← caller parameter, for arguments passed unchanged.
  std::vector<std::pair<std::string, std::string>> binding;
};

struct Module {
  const FileResult* file = nullptr;
  std::string name;
  bool package = false;
  int first_node = 0;  // its functions are nodes first_node, first_node + 1, ...
  std::unordered_map<std::string, int> functions;  // module-level name → node
  std::unordered_map<std::string, int> classes;    // qualified name → class
  std::unordered_map<std::string, const ImportFact*> imports;
  std::unordered_map<std::string, std::string> aliases;
  std::unordered_map<std::string, int> variables;  // name → key id
};

struct Node {
  int module = -1;
  const DefinedFunction* fn = nullptr;
  const cpp::NativeFunction* native = nullptr;  // a C/C++ function's facts
};

struct Class {
  int module = -1;
  const DefinedClass* cls = nullptr;
  std::unordered_map<std::string, int> methods;
};

struct Public {
  std::string name;
  std::string kind;  // function, class, method
};

class Graph {
 public:
  Graph(const std::vector<const FileResult*>& files, const std::vector<NativeFile>& native) {
    for (const FileResult* f : files) AddModule(*f);
    AddNative(native);
    for (size_t m = 0; m < modules_.size(); ++m) AddRegistrations(static_cast<int>(m));
    for (size_t m = 0; m < modules_.size(); ++m) AddCalls(static_cast<int>(m));
    for (size_t m = 0; m < modules_.size(); ++m) AddPublicNames(static_cast<int>(m));
  }

  int NodeOf(const std::string& path, const std::string& qualified) const {
    auto it = node_by_key_.find(path + '\0' + qualified);
    return it == node_by_key_.end() ? -1 : it->second;
  }

  // A C/C++ site's function; one in a lambda that is not bound ("F::<lambda>")
  // runs as part of the function that defines it.
  int NativeNodeOf(const std::string& path, std::string function) const {
    while (true) {
      int node = NodeOf(path, function);
      if (node >= 0 || !EndsWith(function, "::<lambda>")) return node;
      function.resize(function.size() - 10);
    }
  }

  // The JSON of Site::entries for a function, computed once per function.
  const std::string& Entries(int start) {
    auto [it, fresh] = entries_.try_emplace(start);
    if (fresh) it->second = Search(start);
    return it->second;
  }

 private:
  void AddModule(const FileResult& f, bool importable = true) {
    Module m;
    m.file = &f;
    m.name = importable ? ModuleName(f.path) : "";
    m.package = EndsWith(f.path, "__init__.py");
    int id = static_cast<int>(modules_.size());
    m.first_node = static_cast<int>(nodes_.size());
    for (const DefinedFunction& fn : f.facts.functions) {
      int node = static_cast<int>(nodes_.size());
      nodes_.push_back({id, &fn});
      node_by_key_.emplace(f.path + '\0' + fn.qualified, node);
      if (fn.qualified.find('.') == std::string::npos) m.functions[fn.qualified] = node;
    }
    for (const DefinedClass& c : f.facts.classes) {
      m.classes[c.qualified] = static_cast<int>(classes_.size());
      classes_.push_back({id, &c, {}});
    }
    for (const DefinedFunction& fn : f.facts.functions) {
      auto owner = m.classes.find(fn.owner);
      if (fn.owner.empty() || owner == m.classes.end()) continue;
      int node = m.first_node + static_cast<int>(&fn - f.facts.functions.data());
      classes_[static_cast<size_t>(owner->second)].methods[fn.qualified.substr(fn.owner.size() + 1)] =
          node;
    }
    for (const ImportFact& i : f.facts.imports) m.imports[i.local] = &i;
    for (const auto& [local, target] : f.facts.aliases) m.aliases[local] = target;
    for (const std::string& v : f.facts.variables) {
      if (m.variables.count(v) == 0) m.variables[v] = static_cast<int>(registered_.size());
      registered_.resize(std::max(registered_.size(), static_cast<size_t>(m.variables[v]) + 1));
    }
    // A path seen twice (one module in two roots) keeps the first.
    if (importable) module_by_name_.emplace(m.name, id);
    modules_.push_back(std::move(m));
  }

  int FindModule(const std::string& name) const {
    auto it = module_by_name_.find(name);
    if (it != module_by_name_.end()) return it->second;
    // An extension module built elsewhere than its source's directory says
    // (jaxlib/gpu/linalg.cc as jax_cuda12_plugin._linalg): by its own name,
    // when only one has it.
    if (name.find('.') == std::string::npos) return -1;
    auto native = native_by_short_.find(std::string(LastName(name)));
    if (native != native_by_short_.end() && native->second.size() == 1) {
      return native->second[0];
    }
    return -1;
  }

  std::string Absolute(const Module& m, const ImportFact& i) const {
    return AbsoluteImport(m.name, m.package, i);
  }

  // What the single name `name` is in module `m`.
  Target Resolve(int m, std::string_view name, int depth) const {
    if (depth > kMaxResolveDepth || m < 0) return {};
    const Module& mod = modules_[static_cast<size_t>(m)];
    std::string key(name);
    if (auto f = mod.functions.find(key); f != mod.functions.end()) {
      return {Target::kFunction, f->second};
    }
    if (auto c = mod.classes.find(key); c != mod.classes.end()) return {Target::kClass, c->second};
    if (auto a = mod.aliases.find(key); a != mod.aliases.end()) {
      Target t = ResolveDotted(m, a->second, depth + 1);
      if (t.kind != Target::kNone) return t;
    }
    if (auto i = mod.imports.find(key); i != mod.imports.end()) {
      const ImportFact& imp = *i->second;
      std::string from = Absolute(mod, imp);
      if (imp.name.empty()) {
        int target = FindModule(from);
        return target < 0 ? Target{} : Target{Target::kModule, target};
      }
      return Member({Target::kModule, FindModule(from)}, imp.name, depth + 1);
    }
    if (auto v = mod.variables.find(key); v != mod.variables.end()) {
      return {Target::kVariable, v->second};
    }
    return {};
  }

  Target Member(Target t, std::string_view name, int depth) const {
    if (depth > kMaxResolveDepth) return {};
    if (t.kind == Target::kModule && t.id >= 0) {
      const Module& mod = modules_[static_cast<size_t>(t.id)];
      Target inside = Resolve(t.id, name, depth + 1);
      if (inside.kind != Target::kNone) return inside;
      int sub = FindModule(mod.name + "." + std::string(name));
      return sub < 0 ? Target{} : Target{Target::kModule, sub};
    }
    if (t.kind == Target::kClass) {
      const Class& c = classes_[static_cast<size_t>(t.id)];
      const Module& mod = modules_[static_cast<size_t>(c.module)];
      auto nested = mod.classes.find(c.cls->qualified + "." + std::string(name));
      if (nested != mod.classes.end()) return {Target::kClass, nested->second};
      int method = Method(t.id, name, depth + 1);
      return method < 0 ? Target{} : Target{Target::kFunction, method};
    }
    return {};
  }

  Target ResolveDotted(int m, std::string_view dotted, int depth) const {
    std::vector<std::string_view> parts = Split(dotted);
    Target t = Resolve(m, parts[0], depth);
    // `import a.b` binds `a`; a module not in the library resolves to nothing.
    for (size_t i = 1; i < parts.size() && t.kind != Target::kNone; ++i) {
      t = Member(t, parts[i], depth);
    }
    return t;
  }

  // The method `name` of class `c` or of its bases, in order.
  int Method(int c, std::string_view name, int depth) const {
    if (depth > kMaxResolveDepth || c < 0) return -1;
    const Class& cls = classes_[static_cast<size_t>(c)];
    if (auto it = cls.methods.find(std::string(name)); it != cls.methods.end()) return it->second;
    for (const std::string& base : cls.cls->bases) {
      Target b = ResolveDotted(cls.module, base, depth + 1);
      if (b.kind != Target::kClass || b.id == c) continue;
      int found = Method(b.id, name, depth + 1);
      if (found >= 0) return found;
    }
    return -1;
  }

  // What calling the class runs first that the library wrote.
  int Constructor(int c) const {
    int init = Method(c, "__init__", 0);
    return init >= 0 ? init : Method(c, "__new__", 0);
  }

  int OwnerClass(const Node& n) const {
    if (n.fn->owner.empty()) return -1;
    const Module& mod = modules_[static_cast<size_t>(n.module)];
    auto it = mod.classes.find(n.fn->owner);
    return it == mod.classes.end() ? -1 : it->second;
  }

  // C/C++ functions as nodes of modules no import finds; their calls; the
  // extension modules their bindings make, which imports do find.
  void AddNative(const std::vector<NativeFile>& native) {
    std::vector<int> first(native.size());
    for (size_t f = 0; f < native.size(); ++f) {
      FileResult& pseudo = owned_.emplace_back();
      pseudo.path = native[f].path;
      for (const cpp::NativeFunction& fn : native[f].facts->functions) {
        DefinedFunction d;
        d.qualified = fn.name;
        d.line = fn.line;
        for (const std::string& p : fn.params) d.params.push_back({p, "any", ""});
        pseudo.facts.functions.push_back(std::move(d));
      }
      first[f] = static_cast<int>(nodes_.size());
      AddModule(pseudo, /*importable=*/false);
      for (size_t i = 0; i < native[f].facts->functions.size(); ++i) {
        const cpp::NativeFunction& fn = native[f].facts->functions[i];
        int node = first[f] + static_cast<int>(i);
        nodes_[static_cast<size_t>(node)].native = &fn;
        if (fn.file_local) file_local_.insert(node);
        // A bound lambda's name is Python's; a module initialiser is no callee.
        if (fn.bound || !fn.module.empty()) continue;
        native_by_name_[fn.name].push_back(node);
        size_t colon = fn.name.rfind("::");
        if (colon != std::string::npos) native_by_name_[fn.name.substr(colon + 2)].push_back(node);
      }
    }
    for (size_t f = 0; f < native.size(); ++f) {
      for (const cpp::NativeCall& c : native[f].facts->calls) {
        int caller = first[f] + c.caller;
        int callee = ResolveNative(caller, c.callee);
        if (callee >= 0 && callee != caller) in_edges_[callee].push_back(Edge{caller, {}});
      }
    }
    for (size_t f = 0; f < native.size(); ++f) {
      const cpp::NativeFacts& facts = *native[f].facts;
      for (const cpp::NativeBinding& b : facts.bindings) {
        if (b.function < 0) continue;
        int where = first[f] + b.function;
        int target = b.lambda >= 0 ? first[f] + b.lambda : ResolveNative(where, b.target);
        if (target < 0) continue;
        for (int init : ModuleInitialisers(where, b.receiver)) {
          int module = NativeModule(init);
          if (module >= 0) modules_[static_cast<size_t>(module)].functions.emplace(b.name, target);
        }
      }
    }
  }

  // The module initialisers (NB_MODULE) whose module a binding on `receiver`
  // in function `where` goes to: `where` itself, or those that call it, when
  // `receiver` is its module parameter.
  std::vector<int> ModuleInitialisers(int where, const std::string& receiver) const {
    std::vector<int> out;
    std::vector<int> frontier{where};
    std::vector<int> seen{where};
    for (int depth = 0; depth < 4 && !frontier.empty(); ++depth) {
      std::vector<int> next;
      for (int n : frontier) {
        const cpp::NativeFunction& fn = *nodes_[static_cast<size_t>(n)].native;
        if (fn.module_var.empty() || (depth == 0 && fn.module_var != receiver)) continue;
        if (!fn.module.empty()) {
          out.push_back(n);
          continue;
        }
        auto in = in_edges_.find(n);
        if (in == in_edges_.end()) continue;
        for (const Edge& e : in->second) {
          if (std::find(seen.begin(), seen.end(), e.caller) != seen.end()) continue;
          if (nodes_[static_cast<size_t>(e.caller)].native != nullptr) {
            seen.push_back(e.caller);
            next.push_back(e.caller);
          }
        }
      }
      frontier = std::move(next);
    }
    return out;
  }

  // The importable module an initialiser makes: `jaxlib/xla.cc`'s
  // NB_MODULE(_xla, m) is jaxlib._xla.
  int NativeModule(int init) {
    auto known = native_module_of_.find(init);
    if (known != native_module_of_.end()) return known->second;
    const cpp::NativeFunction& fn = *nodes_[static_cast<size_t>(init)].native;
    const std::string& path = modules_[static_cast<size_t>(nodes_[static_cast<size_t>(init)].module)]
                                  .file->path;
    std::string dir = path.substr(0, path.rfind('/') == std::string::npos ? 0 : path.rfind('/'));
    if (StartsWith(dir, "src/")) dir = dir.substr(4);
    if (dir == "src") dir.clear();
    std::replace(dir.begin(), dir.end(), '/', '.');
    std::string name = dir.empty() ? fn.module : dir + "." + fn.module;
    int id = -1;
    if (module_by_name_.count(name) == 0) {
      FileResult& pseudo = owned_.emplace_back();
      pseudo.path = path;
      Module m;
      m.file = &pseudo;
      m.name = name;
      m.first_node = static_cast<int>(nodes_.size());
      id = static_cast<int>(modules_.size());
      module_by_name_.emplace(name, id);
      native_by_short_[fn.module].push_back(id);
      modules_.push_back(std::move(m));
    }
    native_module_of_[init] = id;
    return id;
  }

  // `f` called from `C::m` is C::f when defined, else the one function so
  // named; `ns::f` is the one named ns::f, else f. A `static` function is
  // seen from its own file only; two candidates are no edge.
  int ResolveNative(int caller, const std::string& callee) const {
    auto unique = [&](const std::string& name) {
      auto it = native_by_name_.find(name);
      if (it == native_by_name_.end()) return -1;
      int found = -1;
      for (int node : it->second) {
        if (file_local_.count(node) != 0 &&
            nodes_[static_cast<size_t>(node)].module != nodes_[static_cast<size_t>(caller)].module) {
          continue;
        }
        if (found >= 0 && found != node) return -2;
        found = node;
      }
      return found;
    };
    std::string name = StartsWith(callee, "::") ? callee.substr(2) : callee;
    if (name.empty()) return -1;
    const std::string& from = nodes_[static_cast<size_t>(caller)].fn->qualified;
    size_t colon = from.rfind("::");
    if (name.find("::") == std::string::npos && colon != std::string::npos) {
      int member = unique(from.substr(0, colon) + "::" + name);
      if (member != -1) return member;
    }
    int exact = unique(name);
    if (exact != -1) return exact;
    size_t last = name.rfind("::");
    return last == std::string::npos ? -1 : unique(name.substr(last + 2));
  }

  // Functions registered under a key variable: calling a method of the key
  // (`prim.bind(...)`) may run each.
  void AddRegistrations(int m) {
    const Module& mod = modules_[static_cast<size_t>(m)];
    for (const Registration& r : mod.file->facts.registrations) {
      Target key = ResolveDotted(m, r.key, 0);
      if (key.kind != Target::kVariable) continue;
      int node = -1;
      if (r.local >= 0) {
        node = mod.first_node + r.local;
      } else if (Target f = ResolveDotted(m, r.function, 0); f.kind == Target::kFunction) {
        node = f.id;
      }
      std::vector<int>& rules = registered_[static_cast<size_t>(key.id)];
      if (node >= 0 && std::find(rules.begin(), rules.end(), node) == rules.end()) {
        rules.push_back(node);
      }
    }
  }

  void AddCalls(int m) {
    const Module& mod = modules_[static_cast<size_t>(m)];
    for (const CallFact& call : mod.file->facts.calls) {
      if (call.caller < 0) continue;
      int caller = mod.first_node + call.caller;
      const Node& from = nodes_[static_cast<size_t>(caller)];
      int callee = -1;
      size_t skip = 0;  // parameters bound before the arguments: self, cls
      std::vector<std::string_view> parts = Split(call.callee);
      if (call.local >= 0) {
        callee = mod.first_node + call.local;
      } else if (parts.size() == 2 && (parts[0] == "self" || parts[0] == "cls")) {
        callee = Method(OwnerClass(from), parts[1], 0);
        skip = 1;
      } else if (parts.size() == 2 && parts[0] == "super") {
        int owner = OwnerClass(from);
        if (owner >= 0) {
          for (const std::string& b : classes_[static_cast<size_t>(owner)].cls->bases) {
            Target t = ResolveDotted(classes_[static_cast<size_t>(owner)].module, b, 0);
            if (t.kind == Target::kClass && (callee = Method(t.id, parts[1], 0)) >= 0) break;
          }
        }
        skip = 1;
      } else {
        Target t = ResolveDotted(m, call.callee, 0);
        if (t.kind == Target::kFunction) {
          callee = t.id;
          // Through the class, a classmethod has its cls bound; a plain
          // method takes self as the first argument.
          const std::vector<SigParam>& p = nodes_[static_cast<size_t>(callee)].fn->params;
          skip = !nodes_[static_cast<size_t>(callee)].fn->owner.empty() && !p.empty() &&
                         p[0].name == "cls"
                     ? 1
                     : 0;
        } else if (t.kind == Target::kClass) {
          callee = Constructor(t.id);
          skip = 1;
        } else if (parts.size() >= 2) {
          AddDispatch(m, caller, call.callee);
        }
      }
      if (callee < 0 || callee == caller) continue;
      Edge e;
      e.caller = caller;
      const std::vector<SigParam>& params = nodes_[static_cast<size_t>(callee)].fn->params;
      for (const CallFact::Passed& p : call.passed) {
        if (p.position >= 0) {
          size_t at = skip + static_cast<size_t>(p.position);
          if (at < params.size() && (params[at].kind == "pos" || params[at].kind == "any")) {
            e.binding.emplace_back(params[at].name, p.param);
          }
        } else {
          for (const SigParam& q : params) {
            if (q.name == p.keyword && (q.kind == "any" || q.kind == "kw")) {
              e.binding.emplace_back(q.name, p.param);
            }
          }
        }
      }
      in_edges_[callee].push_back(std::move(e));
    }
  }

  // `key.bind(...)` where key has functions registered under it.
  void AddDispatch(int m, int caller, std::string_view callee) {
    Target key = ResolveDotted(m, callee.substr(0, callee.rfind('.')), 0);
    if (key.kind != Target::kVariable) return;
    for (int rule : registered_[static_cast<size_t>(key.id)]) {
      if (rule != caller) in_edges_[rule].push_back(Edge{caller, {}});
    }
  }

  void Offer(int node, std::string name, std::string kind) {
    auto [it, fresh] = public_.try_emplace(node, Public{name, kind});
    if (fresh) return;
    // The spelling a user would write wins: fewest dots, then the function's
    // own name over an alias (`fast = partial(run, ...)`), then length.
    std::string_view own = LastName(nodes_[static_cast<size_t>(node)].fn->qualified);
    auto rank = [&](const Public& p) {
      std::string_view last = p.kind == "class" ? "__init__" : LastName(p.name);
      return std::make_tuple(std::count(p.name.begin(), p.name.end(), '.'), last != own,
                             p.name.size(), p.name);
    };
    if (rank(Public{name, kind}) < rank(it->second)) {
      it->second = Public{std::move(name), std::move(kind)};
    }
  }

  void AddPublicNames(int m) {
    const Module& mod = modules_[static_cast<size_t>(m)];
    if (!IsPublicModule(mod.name)) return;
    std::vector<std::string> names;
    if (mod.file->facts.all) {
      names = *mod.file->facts.all;
    } else {
      for (const auto& [n, _] : mod.functions) names.push_back(n);
      for (const auto& [n, _] : mod.classes) {
        if (n.find('.') == std::string::npos) names.push_back(n);
      }
      // A module imports names for its own use; a package's __init__, or
      // `import x as x`, imports them to export them.
      for (const auto& [n, i] : mod.imports) {
        if (!i->name.empty() && (mod.package || i->reexport)) names.push_back(n);
      }
      for (const auto& [n, _] : mod.aliases) names.push_back(n);
    }
    for (const std::string& n : names) {
      if (n.empty() || n[0] == '_') continue;
      Target t = Resolve(m, n, 0);
      std::string dotted = mod.name + "." + n;
      if (t.kind == Target::kFunction) {
        Offer(t.id, dotted, nodes_[static_cast<size_t>(t.id)].fn->owner.empty() ? "function" : "method");
      } else if (t.kind == Target::kClass) {
        int constructor = Constructor(t.id);
        if (constructor >= 0) Offer(constructor, dotted, "class");
        for (const auto& [method, node] : classes_[static_cast<size_t>(t.id)].methods) {
          if (!method.empty() && method[0] != '_') {
            Offer(node, dotted + "." + method, "method");
          }
        }
      }
    }
  }

  std::string Search(int start) const {
    struct Seen {
      int next = -1;  // one call closer to the site
      int depth = 0;
      std::vector<std::pair<std::string, std::string>> carried;  // site param → this one
    };
    std::unordered_map<int, Seen> seen;
    std::deque<int> queue{start};
    Seen& first = seen[start];
    for (const SigParam& p : nodes_[static_cast<size_t>(start)].fn->params) {
      // self and cls are the object, not an argument a caller writes.
      if (p.kind != "*" && p.kind != "**" && p.name != "self" && p.name != "cls") {
        first.carried.emplace_back(p.name, p.name);
      }
    }
    nlohmann::json out = nlohmann::json::array();
    while (!queue.empty() && out.size() < kMaxEntryPoints) {
      int n = queue.front();
      queue.pop_front();
      const Seen& here = seen.at(n);
      // Who calls a public function reaches the raise through it: that
      // entry point is shown already, and its callers would only fill the
      // list with wrappers of it instead of other ways in.
      if (auto pub = public_.find(n); pub != public_.end()) {
        out.push_back(Entry(n, pub->second, seen));
        continue;
      }
      if (here.depth >= kMaxCallDepth) continue;
      auto in = in_edges_.find(n);
      if (in == in_edges_.end()) continue;
      for (const Edge& e : in->second) {
        if (seen.size() >= kMaxVisited) break;
        if (seen.count(e.caller)) continue;
        Seen s;
        s.next = n;
        s.depth = seen.at(n).depth + 1;
        for (const auto& [site_param, param] : seen.at(n).carried) {
          for (const auto& [callee_param, caller_param] : e.binding) {
            if (callee_param == param) s.carried.emplace_back(site_param, caller_param);
          }
        }
        seen.emplace(e.caller, std::move(s));
        queue.push_back(e.caller);
      }
    }
    return out.empty() ? "" : out.dump();
  }

  template <typename SeenMap>
  nlohmann::json Entry(int n, const Public& pub, const SeenMap& seen) const {
    const Node& node = nodes_[static_cast<size_t>(n)];
    nlohmann::json e;
    e["name"] = pub.name;
    e["kind"] = pub.kind;
    e["path"] = modules_[static_cast<size_t>(node.module)].file->path;
    e["line"] = node.fn->line;
    // The site's own function is public: nothing to walk down.
    if (seen.at(n).next < 0) e["here"] = true;
    nlohmann::json via = nlohmann::json::array();
    for (int at = seen.at(n).next; at >= 0 && seen.at(at).next >= 0; at = seen.at(at).next) {
      via.push_back(nodes_[static_cast<size_t>(at)].fn->qualified);
    }
    e["via"] = std::move(via);
    nlohmann::json args = nlohmann::json::object();
    for (const auto& [site_param, param] : seen.at(n).carried) args[site_param] = param;
    e["args"] = std::move(args);
    nlohmann::json parameters = nlohmann::json::array();
    for (const SigParam& p : node.fn->params) {
      parameters.push_back(p.doc.empty() ? nlohmann::json{p.name, p.kind}
                                         : nlohmann::json{p.name, p.kind, p.doc});
    }
    e["parameters"] = std::move(parameters);
    return e;
  }

  std::vector<Module> modules_;
  std::unordered_map<std::string, int> module_by_name_;
  std::vector<Node> nodes_;
  std::unordered_map<std::string, int> node_by_key_;
  std::vector<Class> classes_;
  std::unordered_map<int, std::vector<Edge>> in_edges_;
  std::deque<FileResult> owned_;  // what C/C++ files and extension modules stand on
  std::unordered_map<std::string, std::vector<int>> native_by_name_;  // full and last name
  std::unordered_set<int> file_local_;
  std::unordered_map<std::string, std::vector<int>> native_by_short_;  // _xla → modules
  std::unordered_map<int, int> native_module_of_;                     // initialiser → module
  std::vector<std::vector<int>> registered_;  // by key id: functions registered under it
  std::unordered_map<int, Public> public_;
  std::unordered_map<int, std::string> entries_;
};

}  // namespace

std::string ModuleName(std::string_view path) {
  std::string p(path);
  if (StartsWith(p, "src/")) p = p.substr(4);
  if (EndsWith(p, ".py")) p.resize(p.size() - 3);
  if (p == "__init__") return "";
  if (EndsWith(p, "/__init__")) p.resize(p.size() - 9);
  std::replace(p.begin(), p.end(), '/', '.');
  return p;
}

std::string AbsoluteImport(std::string_view importer, bool package, const ImportFact& i) {
  if (i.level == 0) return i.module;
  // `from . import x` is relative to the package a module is in, or to the
  // package itself for its __init__.
  std::string base(importer);
  auto up = [&base] {
    size_t dot = base.rfind('.');
    base = dot == std::string::npos ? "" : base.substr(0, dot);
  };
  if (!package) up();
  for (int level = 1; level < i.level; ++level) up();
  if (i.module.empty()) return base;
  return base.empty() ? i.module : base + "." + i.module;
}

namespace {

// `entries` without the args of parameters the site's function may replace
// before the site (Site::rebound): what reaches the site there is no longer
// what the entry's caller passed. As it was when nothing is left out.
std::string WithoutRebound(const std::string& entries, const std::vector<std::string>& rebound) {
  nlohmann::json j = nlohmann::json::parse(entries, nullptr, false);
  if (j.is_discarded() || !j.is_array()) return entries;
  bool erased = false;
  for (nlohmann::json& e : j) {
    if (!e.is_object()) continue;
    auto args = e.find("args");
    if (args == e.end() || !args->is_object()) continue;
    for (const std::string& r : rebound) erased = args->erase(r) > 0 || erased;
  }
  return erased ? j.dump() : entries;
}

}  // namespace

void AssignEntryPoints(const std::vector<const FileResult*>& files,
                       const std::vector<NativeFile>& native, std::vector<Site>& sites,
                       size_t first, std::vector<Site>* native_sites) {
  Graph graph(files, native);
  if (native_sites != nullptr) {
    for (Site& s : *native_sites) {
      if (s.function.empty()) continue;
      int node = graph.NativeNodeOf(s.path, s.function);
      if (node >= 0) s.entries = graph.Entries(node);
    }
  }
  for (size_t i = first; i < sites.size(); ++i) {
    Site& s = sites[i];
    if (s.language != "python" || s.function.empty() || s.function == "<module>") continue;
    int node = graph.NodeOf(s.path, s.function);
    if (node >= 0) s.entries = graph.Entries(node);
    if (!s.rebound.empty() && !s.entries.empty()) s.entries = WithoutRebound(s.entries, s.rebound);
  }
}

}  // namespace errdex::extract::python
