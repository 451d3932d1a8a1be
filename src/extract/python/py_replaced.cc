#include "extract/python/py_replaced.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/guards.h"
#include "core/text.h"
#include "extract/python/py_callgraph.h"

namespace errdex::extract::python {
namespace {

// The library's modules, and the packages above them (a directory of
// modules is importable without an __init__.py).
class Modules {
 public:
  explicit Modules(const std::vector<const FileResult*>& files) {
    for (const FileResult* f : files) {
      std::string name = ModuleName(f->path);
      path_of_.try_emplace(name, f->path);
      for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
        packages_.insert(name.substr(0, dot));
      }
    }
  }
  bool Has(const std::string& module) const {
    return path_of_.count(module) > 0 || packages_.count(module) > 0;
  }
  const std::string* PathOf(const std::string& module) const {
    auto it = path_of_.find(module);
    return it == path_of_.end() ? nullptr : &it->second;
  }

 private:
  std::unordered_map<std::string, std::string> path_of_;
  std::unordered_set<std::string> packages_;
};

// The public names of the standard library's C accelerators that a
// module of it star-imports over its own Python definitions: what `from
// _datetime import *` rebinds. A star import of any other module may or may
// not rebind a definition (`_elementtree` defines five of the classes
// ElementTree.py writes, not ElementTree or XMLPullParser), and the guard
// says so (replaced-if-defined). Checked against CPython by
// tests/cli/replaced_test.cc; a name CPython adds later is only left
// unmarked.
constexpr std::pair<std::string_view, std::string_view> kCompiledNames[] = {
    {"_bisect", "bisect_left bisect_right insort_left insort_right"},
    {"_datetime", "MAXYEAR MINYEAR UTC date datetime datetime_CAPI time timedelta timezone tzinfo"},
    {"_elementtree", "Element ParseError SubElement TreeBuilder XMLParser"},
    {"_heapq", "heapify heappop heappush heappushpop heapreplace"},
    {"_operator",
     "abs add and_ attrgetter call concat contains countOf delitem eq floordiv ge getitem gt iadd "
     "iand iconcat ifloordiv ilshift imatmul imod imul index indexOf inv invert ior ipow irshift "
     "is_ is_not isub itemgetter itruediv ixor le length_hint lshift lt matmul methodcaller mod "
     "mul ne neg not_ or_ pos pow rshift setitem sub truediv truth xor"},
};

// The names a star import of `module` binds, when the table knows them.
std::optional<std::vector<std::string>> StarNames(std::string_view module) {
  for (const auto& [name, names] : kCompiledNames) {
    if (name != module) continue;
    std::vector<std::string> out;
    for (size_t start = 0; start < names.size();) {
      size_t end = std::min(names.find(' ', start), names.size());
      out.emplace_back(names.substr(start, end - start));
      start = end + 1;
    }
    return out;
  }
  return std::nullopt;
}

std::string Absolute(const FileResult& f, const TopImport& t) {
  ImportFact i;
  i.module = t.module;
  i.level = t.level;
  return AbsoluteImport(ModuleName(f.path), EndsWith(f.path, "__init__.py"), i);
}

std::string_view TopName(std::string_view function) {
  return function.substr(0, function.find('.'));
}

struct Rebinding {
  const TopImport* import = nullptr;
  bool certain = true;  // false: a star import of a module the table does not know
};

// The top-level definitions of `f` that an import of another module
// rebinds, with the import that does.
std::map<std::string, Rebinding, std::less<>> Replaced(const FileResult& f,
                                                       const Modules& modules) {
  // Line of each top-level definition; a name defined twice keeps its first.
  std::map<std::string, int, std::less<>> defined;
  for (const DefinedFunction& d : f.facts.functions) {
    if (d.qualified.find('.') == std::string::npos) defined.try_emplace(d.qualified, d.line);
  }
  for (const DefinedClass& c : f.facts.classes) {
    if (c.qualified.find('.') == std::string::npos) defined.try_emplace(c.qualified, c.line);
  }
  // Public definitions in line order: a star import of an unknown module
  // takes those above it that no earlier one took (each once, however many
  // star imports a generated module has).
  std::vector<std::pair<int, const std::string*>> public_defs;
  for (const auto& [name, line] : defined) {
    if (!name.empty() && name[0] != '_') public_defs.emplace_back(line, &name);
  }
  std::sort(public_defs.begin(), public_defs.end());
  size_t next_public = 0;
  std::map<std::string, Rebinding, std::less<>> replaced;
  // Every name an import surely rebinds, or its try's `else:` deletes,
  // defined here or not (a variable that holds a definition goes with it),
  // with the line of the import.
  std::map<std::string, int, std::less<>> gone;
  for (const TopImport& t : f.facts.top_imports) {
    std::string module = Absolute(f, t);
    // A relative import above the root resolves to nothing: CPython fails it.
    if (t.instead_of >= 0 || module.empty() || modules.Has(module)) continue;
    auto take = [&](const std::string& name, bool certain) {
      if (certain) gone.try_emplace(name, t.line);
      auto d = defined.find(name);
      if (d == defined.end() || d->second >= t.line) return;
      auto [at, fresh] = replaced.try_emplace(name, Rebinding{&t, certain});
      if (!fresh && certain && !at->second.certain) at->second = Rebinding{&t, true};
    };
    if (!t.star) {
      for (const std::string& name : t.names) take(name, true);
    } else if (auto names = StarNames(module)) {
      for (const std::string& name : *names) take(name, true);
    } else {
      for (; next_public < public_defs.size() && public_defs[next_public].first < t.line;
           ++next_public) {
        take(*public_defs[next_public].second, false);
      }
    }
    for (const std::string& name : t.deletes) take(name, true);
  }
  // A reference the module took before the import (`_py_f = f`, `default =
  // C()`, `class B(A)`, a decorator) keeps the Python definition running,
  // unless what holds it is itself surely rebound or deleted: a replaced
  // class's attributes (`timedelta.min = timedelta(...)`), a variable the
  // try's `else:` deletes. A definition kept running keeps what it holds.
  const std::vector<TopReference>& refs = f.facts.top_references;
  auto dead = [&](const TopReference& r) {
    return !r.holders.empty() &&
           std::all_of(r.holders.begin(), r.holders.end(), [&](const std::string& holder) {
             if (defined.count(holder)) {
               auto h = replaced.find(holder);
               return h != replaced.end() && h->second.certain;
             }
             auto g = gone.find(holder);
             return g != gone.end() && g->second > r.line;
           });
  };
  std::multimap<std::string_view, size_t> held_by;
  std::vector<size_t> work;
  for (size_t i = refs.size(); i-- > 0;) {
    for (const std::string& holder : refs[i].holders) held_by.emplace(holder, i);
    work.push_back(i);
  }
  while (!work.empty()) {
    const TopReference& r = refs[work.back()];
    work.pop_back();
    if (dead(r)) continue;  // looked at again if its holder is kept
    for (const std::string& name : r.names) {
      auto it = replaced.find(name);
      bool own = std::find(r.holders.begin(), r.holders.end(), name) != r.holders.end();
      if (it == replaced.end() || own || r.line >= it->second.import->line) continue;
      bool was_certain = it->second.certain;
      replaced.erase(it);
      if (!was_certain) continue;
      auto [from, to] = held_by.equal_range(name);
      for (auto h = from; h != to; ++h) work.push_back(h->second);
    }
  }
  return replaced;
}

// Whether a handler's import answers the try's own: it binds the same
// names (`*` for `*`), as a fallback of the same code does; `except
// ImportError: from collections import deque` after `from _collections
// import deque` does too, which is why the module must also be imported
// nowhere else (Fallbacks).
bool SameNames(const TopImport& fallback, const TopImport& tried) {
  if (fallback.star || tried.star) return fallback.star && tried.star;
  return std::any_of(fallback.names.begin(), fallback.names.end(), [&](const std::string& n) {
    return std::find(tried.names.begin(), tried.names.end(), n) != tried.names.end();
  });
}

// The modules that run only in place of one that failed to import, with
// the file and the import each stands in for: imported in an ImportError
// handler, binding what the try's import of no library module binds, and
// imported by no other code of the library (its tests aside), by its own
// name, one ending with it (`mylib._py` where the library is indexed at
// mylib's own directory) or a module below it. A package's `__init__.py` never does: it runs
// whenever any of its modules is imported.
std::unordered_map<std::string, std::pair<const FileResult*, const TopImport*>> Fallbacks(
    const std::vector<const FileResult*>& files, const Modules& modules) {
  std::vector<std::string> imported;
  for (const FileResult* f : files) {
    if (IsTestPath(f->path)) continue;  // its imports say nothing of how the library runs
    std::string self = ModuleName(f->path);
    bool package = EndsWith(f->path, "__init__.py");
    std::set<int> handler_lines;
    for (const TopImport& t : f->facts.top_imports) {
      if (t.instead_of >= 0) handler_lines.insert(t.line);
    }
    for (const ImportedModule& i : f->facts.imported) {
      if (handler_lines.count(i.line)) continue;
      ImportFact fact;
      fact.module = i.module;
      fact.level = i.level;
      if (std::string name = AbsoluteImport(self, package, fact); !name.empty()) {
        imported.push_back(std::move(name));
      }
    }
  }
  std::sort(imported.begin(), imported.end());
  imported.erase(std::unique(imported.begin(), imported.end()), imported.end());
  auto imported_elsewhere = [&](const std::string& module) {
    return std::any_of(imported.begin(), imported.end(), [&](const std::string& name) {
      // `import a.b` runs a too.
      for (size_t end = name.size(); end != std::string::npos && end > 0;
           end = name.rfind('.', end - 1)) {
        std::string_view head = std::string_view(name).substr(0, end);
        if (head == module || EndsWith(head, "." + module)) return true;
      }
      return false;
    });
  };
  std::unordered_map<std::string, std::pair<const FileResult*, const TopImport*>> out;
  for (const FileResult* f : files) {
    for (const TopImport& t : f->facts.top_imports) {
      if (t.instead_of < 0) continue;
      const TopImport& tried = f->facts.top_imports[static_cast<size_t>(t.instead_of)];
      std::string tried_module = Absolute(*f, tried);
      if (!SameNames(t, tried) || tried_module.empty() || modules.Has(tried_module)) continue;
      // `from . import impl` imports the module pkg.impl, not pkg.
      std::string from = Absolute(*f, t);
      std::vector<std::string> candidates;
      for (const std::string& name : t.names) {
        std::string sub = from.empty() ? name : from + "." + name;
        if (modules.PathOf(sub) != nullptr) candidates.push_back(std::move(sub));
      }
      if (candidates.empty()) candidates.push_back(from);
      for (const std::string& module : candidates) {
        const std::string* path = modules.PathOf(module);
        if (path == nullptr || *path == f->path || EndsWith(*path, "__init__.py") ||
            imported_elsewhere(module)) {
          continue;
        }
        out.try_emplace(*path, f, &tried);
      }
    }
  }
  return out;
}

// The sentence is written again from the guards; what a call into a
// helper added after them (HelperDecides) stays at its end.
void AddGuard(Site& s, Guard g) {
  std::string helper;
  if (size_t at = s.trigger.find(kHelperConditionLead); at != std::string::npos) {
    helper = s.trigger.substr(at);
  }
  s.guards.insert(s.guards.begin(), std::move(g));
  s.trigger = TriggerSentence(s.guards) + helper;
}

}  // namespace

void MarkReplaced(const std::vector<const FileResult*>& files, std::vector<Site>& sites,
                  size_t first) {
  Modules modules(files);
  // Per path: the replaced definitions; the import a whole module stands in for.
  std::unordered_map<std::string, std::map<std::string, Rebinding, std::less<>>> replaced;
  for (const FileResult* f : files) {
    if (f->facts.top_imports.empty()) continue;
    auto r = Replaced(*f, modules);
    if (!r.empty()) replaced.emplace(f->path, std::move(r));
  }
  auto stands_in = Fallbacks(files, modules);
  if (replaced.empty() && stands_in.empty()) return;
  for (size_t i = first; i < sites.size(); ++i) {
    Site& s = sites[i];
    if (auto file = replaced.find(s.path); file != replaced.end()) {
      auto r = file->second.find(TopName(s.function));
      if (r != file->second.end() && s.line < r->second.import->line) {
        Guard g;
        g.kind = r->second.certain ? "replaced" : "replaced-if-defined";
        g.code = r->second.import->code;
        g.subject = r->first;
        g.line = r->second.import->line;
        AddGuard(s, std::move(g));
        continue;
      }
    }
    if (auto m = stands_in.find(s.path); m != stands_in.end()) {
      Guard g;
      g.kind = "stands-in";
      g.code = m->second.second->code;
      g.subject = m->second.first->path;
      g.line = m->second.second->line;
      AddGuard(s, std::move(g));
    }
  }
}

}  // namespace errdex::extract::python
