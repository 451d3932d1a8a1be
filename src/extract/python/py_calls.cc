#include "extract/python/py_calls.h"

#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t on the stack
#include <xxhash.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "core/text.h"
#include "extract/python/py_docstring.h"
#include "extract/python/py_syntax.h"
#include "extract/ts_util.h"

namespace errdex::extract::python {
namespace {

uint16_t K(TSNode n) { return KindOf(n); }

// Deeper syntax is left unread: generated code nests expressions thousands
// deep, and no call graph edge is worth a stack overflow.
constexpr int kMaxDepth = 400;

// "a.b.c" for a chain of attributes on a name; "super.m" for super().m;
// empty for anything else (a call's result, a subscript).
std::string DottedName(TSNode n, std::string_view src) {
  if (K(n) == kIdentifier) return std::string(NodeText(n, src));
  if (K(n) != kAttribute) return "";
  TSNode object = Field(n, "object");
  std::string attribute(NodeText(Field(n, "attribute"), src));
  std::string head;
  if (K(object) == kCall && K(Field(object, "function")) == kIdentifier &&
      NodeText(Field(object, "function"), src) == "super") {
    head = "super";
  } else {
    head = DottedName(object, src);
  }
  return head.empty() || attribute.empty() ? "" : head + "." + attribute;
}

// The text of a plain string literal, without prefix and quotes.
std::optional<std::string> StringValue(TSNode n, std::string_view src) {
  if (K(n) != kString) return std::nullopt;
  std::string out;
  for (TSNode c : NamedChildren(n)) {
    std::string_view type = NodeType(c);
    if (type == "string_content") {
      out += NodeText(c, src);
    } else if (type != "string_start" && type != "string_end") {
      return std::nullopt;  // an interpolation or an escape
    }
  }
  return out;
}

// The module a `from ... import` statement names, without its leading
// dots, and how many dots lead it (`from ..a.b import x`: "a.b", 2); ""
// and 0 without a module name.
std::pair<std::string, int> FromModule(TSNode stmt, std::string_view src) {
  TSNode module_node = Field(stmt, "module_name");
  if (ts_node_is_null(module_node)) return {"", 0};
  if (K(module_node) == kDottedName) return {std::string(NodeText(module_node, src)), 0};
  std::pair<std::string, int> out{"", 0};  // relative_import: dots, then maybe a dotted name
  for (TSNode c : Children(module_node)) {
    if (NodeType(c) == "import_prefix") {
      std::string_view dots = NodeText(c, src);
      out.second = static_cast<int>(std::count(dots.begin(), dots.end(), '.'));
    } else if (K(c) == kDottedName) {
      out.first = std::string(NodeText(c, src));
    }
  }
  return out;
}

class Reader {
 public:
  Reader(std::string_view src, bool every_node) : src_(src), every_node_(every_node) {}

  ModuleFacts Run(TSNode root, DefinitionFactsMemo* memo) {
    memo_ = every_node_ ? nullptr : memo;
    // One cursor walks the whole tree: asking a node for its i-th child is
    // linear in i, which made wide modules (long data tables) quadratic.
    TSTreeCursor cursor = ts_tree_cursor_new(root);
    int depth = 0;
    while (true) {
      TSNode node = ts_tree_cursor_current_node(&cursor);
      bool descend = ts_node_is_named(node) && !FromMemo(node, depth) && Enter(node, depth) &&
                     (every_node_ || MayHoldFacts(node));
      if (descend && depth < kMaxDepth && ts_tree_cursor_goto_first_child(&cursor)) {
        ++depth;
        continue;
      }
      // Leave nodes until one has a next sibling, closing their scopes.
      bool done = false;
      while (true) {
        while (!scopes_.empty() && scopes_.back().depth == depth) scopes_.pop_back();
        if (!reading_.empty() && reading_.back().depth == depth) Keep();
        if (ts_tree_cursor_goto_next_sibling(&cursor)) break;
        if (depth == 0 || !ts_tree_cursor_goto_parent(&cursor)) {
          done = true;
          break;
        }
        --depth;
      }
      if (done) break;
    }
    ts_tree_cursor_delete(&cursor);
    return std::move(facts_);
  }

 private:
  // A definition read for the memo: what facts_ held before it.
  struct Reading {
    std::string key;
    int depth = 0;
    int line = 0;
    size_t functions, classes, calls, imports, aliases, variables, registrations, imported;
    std::optional<size_t> all;
  };

  // The key of a function whose facts depend on its text alone, given where
  // it stands: at the top of the module, or a method directly in the body
  // of the class being read (its facts name the class; an `__init__`
  // documents its parameters from the class's docstring). Empty for
  // anything else. A class is read each time, its methods from the memo:
  // keeping both would keep every method twice.
  std::string MemoKey(TSNode node, int depth) const {
    uint16_t k = K(node);
    if (k != kFunctionDefinition && k != kDecoratedDefinition) return "";
    TSNode def = k == kDecoratedDefinition ? Field(node, "definition") : node;
    if (K(def) != kFunctionDefinition) return "";
    std::string where;
    if (depth == 1 && scopes_.empty()) {
      where = "module";
    } else if (!scopes_.empty() && scopes_.back().is_class && scopes_.back().depth == depth - 2) {
      where = "class " + scopes_.back().qualified;
      if (Text(Field(def, "name")) == "__init__" && !ts_node_is_null(scopes_.back().node)) {
        where += '\0' + Docstring(scopes_.back().node, src_).value_or("");
      }
    } else {
      return "";
    }
    if (ts_node_has_error(node) || !ts_node_is_null(decorated_)) return "";
    where += '\0' + std::to_string(depth) + '\0';
    XXH3_state_t state;
    XXH3_128bits_reset(&state);
    XXH3_128bits_update(&state, where.data(), where.size());
    std::string_view text = Text(node);
    XXH3_128bits_update(&state, text.data(), text.size());
    XXH128_hash_t h = XXH3_128bits_digest(&state);
    return DigestKey(h.low64, h.high64);
  }

  // True when `node`'s facts were taken from the memo (the walk then skips
  // it); on a miss, starts reading it for the memo.
  bool FromMemo(TSNode node, int depth) {
    if (memo_ == nullptr) return false;
    std::string key = MemoKey(node, depth);
    if (key.empty()) return false;
    int line = StartLine(node);
    if (std::shared_ptr<const ModuleFacts> hit = memo_->Find(key)) {
      Append(*hit, line);
      return true;
    }
    if (!memo_->Keeping()) return false;
    reading_.push_back({std::move(key), depth, line, facts_.functions.size(), facts_.classes.size(),
                        facts_.calls.size(), facts_.imports.size(), facts_.aliases.size(),
                        facts_.variables.size(), facts_.registrations.size(),
                        facts_.imported.size(),
                        facts_.all ? std::optional<size_t>(facts_.all->size()) : std::nullopt});
    return false;
  }

  // The definition being left was read whole: its facts go to the memo.
  void Keep() {
    Reading r = std::move(reading_.back());
    reading_.pop_back();
    if (std::shared_ptr<const ModuleFacts> delta = Delta(r)) memo_->Put(r.key, std::move(delta));
  }

  // What one definition added, relative to its first line and function;
  // null when it reached past itself (module names, or a function before
  // it), which a function read as MemoKey places it does not: never kept.
  std::shared_ptr<const ModuleFacts> Delta(const Reading& m) const {
    int line = m.line;
    bool module_level =
        facts_.aliases.size() != m.aliases || facts_.variables.size() != m.variables ||
        (facts_.all ? std::optional<size_t>(facts_.all->size()) : std::nullopt) != m.all;
    if (module_level) return nullptr;
    int first = static_cast<int>(m.functions);
    auto index = [&](int& i) {
      if (i < 0) return true;
      if (i < first) return false;
      i -= first;
      return true;
    };
    auto d = std::make_shared<ModuleFacts>();
    d->functions.assign(facts_.functions.begin() + static_cast<long>(m.functions),
                        facts_.functions.end());
    for (DefinedFunction& f : d->functions) f.line -= line;
    d->classes.assign(facts_.classes.begin() + static_cast<long>(m.classes), facts_.classes.end());
    for (DefinedClass& c : d->classes) c.line -= line;
    d->calls.assign(facts_.calls.begin() + static_cast<long>(m.calls), facts_.calls.end());
    for (CallFact& c : d->calls) {
      if (!index(c.caller) || !index(c.local)) return nullptr;
      c.line -= line;
    }
    d->imports.assign(facts_.imports.begin() + static_cast<long>(m.imports), facts_.imports.end());
    d->registrations.assign(facts_.registrations.begin() + static_cast<long>(m.registrations),
                            facts_.registrations.end());
    for (Registration& r : d->registrations) {
      if (!index(r.local)) return nullptr;
      r.line -= line;
    }
    d->imported.assign(facts_.imported.begin() + static_cast<long>(m.imported),
                       facts_.imported.end());
    for (ImportedModule& i : d->imported) i.line -= line;
    return d;
  }

  // A kept definition's facts, placed at `line`.
  void Append(const ModuleFacts& d, int line) {
    int first = static_cast<int>(facts_.functions.size());
    auto index = [&](int i) { return i < 0 ? i : i + first; };
    for (DefinedFunction f : d.functions) {
      f.line += line;
      facts_.functions.push_back(std::move(f));
    }
    for (DefinedClass c : d.classes) {
      c.line += line;
      facts_.classes.push_back(std::move(c));
    }
    for (CallFact c : d.calls) {
      c.caller = index(c.caller);
      c.local = index(c.local);
      c.line += line;
      facts_.calls.push_back(std::move(c));
    }
    facts_.imports.insert(facts_.imports.end(), d.imports.begin(), d.imports.end());
    for (Registration r : d.registrations) {
      r.local = index(r.local);
      r.line += line;
      facts_.registrations.push_back(std::move(r));
    }
    for (ImportedModule i : d.imported) {
      i.line += line;
      facts_.imported.push_back(std::move(i));
    }
  }

  struct Scope {
    bool is_class = false;
    std::string qualified;
    int function = -1;
    // `jitted = jit(_impl)` in the function: a call of `jitted` calls _impl.
    std::map<std::string, std::string, std::less<>> wrapped;
    std::map<std::string, int, std::less<>> locals;  // functions defined in it
    int depth = 0;  // of the definition that opened it
    TSNode node{};  // a class's definition, for its docstring
  };

  std::string_view Text(TSNode n) const { return NodeText(n, src_); }

  // Whether anything below `node` can be a fact. Below an expression, only
  // a call is (an assignment or a definition is a statement), and a call
  // has a parenthesis: an expression whose text holds none -- a name, an
  // attribute chain, a table of literals -- is not walked. Statements,
  // assignments and damaged trees always are.
  bool MayHoldFacts(TSNode node) const {
    switch (K(node)) {
      case kAssignment:
      case kAugmentedAssignment:
      case kCall:
        return true;
      default:
        break;
    }
    if (HoldsStatements(node) || ts_node_has_error(node)) return true;
    std::string_view text = Text(node);
    return text.find('(') != std::string_view::npos;
  }

  std::string Qualify(std::string_view name) const {
    if (scopes_.empty()) return std::string(name);
    const Scope& parent = scopes_.back();
    return parent.qualified + (parent.is_class ? "." : ".<locals>.") + std::string(name);
  }

  // Reads what `node` declares, imports or calls; whether to go inside it.
  bool Enter(TSNode node, int depth) {
    switch (K(node)) {
      case kFunctionDefinition:
        return OnFunction(node, depth);
      case kDecoratedDefinition:
        decorated_ = node;
        decorated_depth_ = depth;
        return true;
      case kClassDefinition:
        return OnClass(node, depth);
      case kCall:
        OnCall(node);
        return true;
      case kImport:
      case kImportFrom:
        OnImport(node);
        return false;
      case kString:
      case kComment:
        return false;  // text: what an f-string calls is left out
      case kAssignment:
      case kAugmentedAssignment:
        if (K(node) == kAssignment) OnTableAssignment(node);
        if (scopes_.empty()) {
          OnModuleAssignment(node);
        } else if (!scopes_.back().is_class && K(node) == kAssignment) {
          OnLocalAssignment(node);
        }
        return true;
      default:
        return true;
    }
  }

  // Defaults and decorators run in the enclosing scope, but their calls are
  // rare and cheap to attribute to the function itself.
  bool OnFunction(TSNode node, int depth) {
    TSNode name = Field(node, "name");
    if (ts_node_is_null(name)) return false;
    DefinedFunction f;
    f.qualified = Qualify(Text(name));
    if (!scopes_.empty() && scopes_.back().is_class) f.owner = scopes_.back().qualified;
    f.line = StartLine(node);
    f.params = ReadParameters(node, src_);
    ReadParameterDocs(node, f);
    facts_.functions.push_back(std::move(f));
    int index = static_cast<int>(facts_.functions.size()) - 1;
    if (const Scope* outer = FunctionScope()) {
      CallFact c;
      c.caller = outer->function;
      c.callee = std::string(Text(name));
      c.local = index;
      c.line = StartLine(node);
      facts_.calls.push_back(std::move(c));
      scopes_.back().locals[std::string(Text(name))] = index;
    }
    if (!ts_node_is_null(decorated_) && decorated_depth_ == depth - 1) {
      for (TSNode d : NamedChildren(decorated_)) {
        if (NodeType(d) == "decorator") OnDecorator(d, index);
      }
    }
    decorated_ = TSNode{};
    scopes_.push_back({false, facts_.functions.back().qualified, index, {}, {}, depth});
    return true;
  }

  // What an entry point's docstring says of the parameters it passes down:
  // the function's own, else (for `__init__`) its class's, as numpydoc and
  // Google document constructors.
  void ReadParameterDocs(TSNode node, DefinedFunction& f) const {
    if (f.params.empty()) return;
    std::map<std::string, std::string, std::less<>> docs;
    if (std::optional<std::string> doc = Docstring(node, src_)) docs = ParameterDocs(*doc);
    if (LastPart(f.qualified) == "__init__" && !scopes_.empty() && scopes_.back().is_class &&
        !ts_node_is_null(scopes_.back().node)) {
      if (std::optional<std::string> doc = Docstring(scopes_.back().node, src_)) {
        for (auto& [name, text] : ParameterDocs(*doc)) docs.emplace(name, text);
      }
    }
    for (SigParam& p : f.params) {
      if (auto it = docs.find(p.name); it != docs.end()) p.doc = it->second;
    }
  }

  // `@register_rule(prim, ...)` or `@prim.def_impl` over the function `index`.
  void OnDecorator(TSNode decorator, int index) {
    TSNode e = ts_node_named_child_count(decorator) > 0 ? ts_node_named_child(decorator, 0)
                                                        : TSNode{};
    if (K(e) == kCall) {
      std::string callee = DottedName(Field(e, "function"), src_);
      std::vector<TSNode> args = PositionalArgs(e);
      std::string key = args.empty() ? "" : DottedName(args[0], src_);
      if (IsRegisterName(LastPart(callee)) && !key.empty()) {
        facts_.registrations.push_back({key, "", index, StartLine(decorator)});
      }
      return;
    }
    std::string dotted = DottedName(e, src_);
    size_t dot = dotted.rfind('.');
    if (dot != std::string::npos && IsDefineMethod(dotted.substr(dot + 1))) {
      facts_.registrations.push_back({dotted.substr(0, dot), "", index, StartLine(decorator)});
    }
  }

  static std::string_view LastPart(std::string_view dotted) {
    size_t dot = dotted.rfind('.');
    return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
  }

  // register, register_lowering, _register_rule, registerHandler.
  static bool IsRegisterName(std::string_view name) {
    auto contains = [&](std::string_view word) {
      for (size_t at = 0; at + word.size() <= name.size(); ++at) {
        size_t i = 0;
        while (i < word.size() &&
               std::tolower(static_cast<unsigned char>(name[at + i])) == word[i]) {
          ++i;
        }
        if (i == word.size()) return true;
      }
      return false;
    };
    return contains("register") && !contains("unregister");
  }

  // jax's Primitive.def_impl, def_abstract_eval, ...
  static bool IsDefineMethod(std::string_view name) {
    return name.size() > 4 && name.substr(0, 4) == "def_";
  }

  std::vector<TSNode> PositionalArgs(TSNode call) const {
    std::vector<TSNode> out;
    TSNode args = Field(call, "arguments");
    if (K(args) != kArgumentList) return out;
    for (TSNode a : NamedChildren(args)) {
      uint16_t k = K(a);
      if (k == kComment) continue;
      if (k == kKeywordArgument || k == kListSplat || k == kDictionarySplat) break;
      out.push_back(a);
    }
    return out;
  }

  // A function named in a registration: `rule`, `partial(rule, ...)`, or a
  // function defined in an enclosing function.
  void AddRegistration(std::string key, TSNode function, int line) {
    std::string target = WrappedFunction(function);
    if (key.empty() || target.empty()) return;
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      if (auto l = s->locals.find(target); l != s->locals.end()) {
        facts_.registrations.push_back({std::move(key), "", l->second, line});
        return;
      }
    }
    facts_.registrations.push_back({std::move(key), std::move(target), -1, line});
  }

  // `register_lowering(prim, rule, ...)`, `prim.def_impl(rule)`.
  // Runs on every call of every file: the callee's name is looked at before
  // any argument is read.
  void OnRegistrationCall(TSNode call, const std::string& callee) {
    size_t dot = callee.rfind('.');
    if (dot != std::string::npos && IsDefineMethod(std::string_view(callee).substr(dot + 1))) {
      std::vector<TSNode> args = PositionalArgs(call);
      if (args.size() == 1) AddRegistration(callee.substr(0, dot), args[0], StartLine(call));
      return;
    }
    if (!IsRegisterName(LastPart(callee))) return;
    std::vector<TSNode> args = PositionalArgs(call);
    if (args.size() < 2) return;
    std::string key = DottedName(args[0], src_);
    for (size_t i = 1; i < args.size(); ++i) AddRegistration(key, args[i], StartLine(call));
  }

  // `table[prim] = rule`.
  void OnTableAssignment(TSNode node) {
    TSNode left = Field(node, "left");
    TSNode right = Field(node, "right");
    if (K(left) != kSubscript || ts_node_is_null(right)) return;
    TSNode index = Field(left, "subscript");
    std::string key = DottedName(index, src_);
    if (!key.empty()) AddRegistration(std::move(key), right, StartLine(node));
  }

  bool OnClass(TSNode node, int depth) {
    TSNode name = Field(node, "name");
    if (ts_node_is_null(name)) return false;
    DefinedClass c;
    c.qualified = Qualify(Text(name));
    c.line = StartLine(node);
    TSNode bases = Field(node, "superclasses");
    if (!ts_node_is_null(bases)) {
      for (TSNode b : NamedChildren(bases)) {
        if (K(b) == kSubscript) b = Field(b, "value");  // a generic: `Base[T]` is Base
        std::string dotted = DottedName(b, src_);
        if (!dotted.empty()) c.bases.push_back(std::move(dotted));
      }
    }
    facts_.classes.push_back(c);
    decorated_ = TSNode{};
    scopes_.push_back({true, c.qualified, -1, {}, {}, depth, node});
    return true;
  }

  const Scope* FunctionScope() const {
    return scopes_.empty() || scopes_.back().is_class ? nullptr : &scopes_.back();
  }

  bool IsParam(int function, std::string_view name) const {
    const std::vector<SigParam>& params = facts_.functions[static_cast<size_t>(function)].params;
    return std::any_of(params.begin(), params.end(),
                       [&](const SigParam& p) { return p.name == name; });
  }

  void OnCall(TSNode call) {
    std::string callee = DottedName(Field(call, "function"), src_);
    if (callee.empty()) return;
    OnRegistrationCall(call, callee);
    const Scope* scope = FunctionScope();
    if (scope == nullptr) return;
    if (auto w = scope->wrapped.find(callee); w != scope->wrapped.end()) callee = w->second;
    CallFact c;
    c.caller = scope->function;
    for (auto s = scopes_.rbegin(); s != scopes_.rend() && c.local < 0; ++s) {
      if (auto l = s->locals.find(callee); l != s->locals.end()) c.local = l->second;
    }
    c.callee = std::move(callee);
    c.line = StartLine(call);
    TSNode args = Field(call, "arguments");
    if (K(args) == kArgumentList) {
      int position = 0;
      bool positions_known = true;
      for (TSNode a : NamedChildren(args)) {
        uint16_t k = K(a);
        if (k == kComment) continue;
        if (k == kListSplat || k == kDictionarySplat) {
          // After *xs the positions of what follows are unknown.
          if (k == kListSplat) positions_known = false;
          continue;
        }
        if (k == kKeywordArgument) {
          TSNode v = Field(a, "value");
          if (K(v) == kIdentifier && IsParam(c.caller, Text(v))) {
            c.passed.push_back({-1, std::string(Text(Field(a, "name"))), std::string(Text(v))});
          }
          continue;
        }
        if (positions_known && k == kIdentifier && IsParam(c.caller, Text(a))) {
          c.passed.push_back({position, "", std::string(Text(a))});
        }
        ++position;
      }
    }
    facts_.calls.push_back(std::move(c));
  }

  void OnImport(TSNode stmt) {
    bool from = K(stmt) == kImportFrom;
    TSNode module_node = Field(stmt, "module_name");
    auto [module, level] = from ? FromModule(stmt, src_) : std::pair<std::string, int>{"", 0};
    int line = StartLine(stmt);
    if (from) facts_.imported.push_back({module, level, line});
    for (TSNode n : NamedChildren(stmt)) {
      if (from && SameNode(n, module_node)) continue;
      if (K(n) == kAliasedImport || K(n) == kDottedName) {
        std::string dotted(Text(K(n) == kAliasedImport ? Field(n, "name") : n));
        facts_.imported.push_back(
            {from && !module.empty() ? module + "." + dotted : dotted, from ? level : 0, line});
      }
      std::string original;
      std::string local;
      if (K(n) == kAliasedImport) {
        original = std::string(Text(Field(n, "name")));
        local = std::string(Text(Field(n, "alias")));
      } else if (K(n) == kDottedName) {
        original = std::string(Text(n));
        // `import a.b` binds `a`, the top package.
        local = from ? original : original.substr(0, original.find('.'));
        if (!from) original = local;
      } else {
        continue;
      }
      if (from) {
        facts_.imports.push_back({local, module, original, level, local == original &&
                                                                      K(n) == kAliasedImport});
      } else {
        facts_.imports.push_back({local, original, "", 0});
      }
    }
  }

  void OnModuleAssignment(TSNode node) {
    TSNode left = Field(node, "left");
    TSNode right = Field(node, "right");
    if (K(left) != kIdentifier || ts_node_is_null(right)) return;
    std::string_view name = Text(left);
    facts_.variables.emplace_back(name);
    if (name == "__all__") {
      std::vector<std::string> names;
      if (K(right) != kList && K(right) != kTuple) return;
      for (TSNode e : NamedChildren(right)) {
        if (std::optional<std::string> s = StringValue(e, src_)) names.push_back(*s);
      }
      if (K(node) == kAssignment || !facts_.all) facts_.all.emplace();
      facts_.all->insert(facts_.all->end(), names.begin(), names.end());
      return;
    }
    if (K(node) != kAssignment) return;
    std::string target = WrappedFunction(right);
    if (!target.empty()) facts_.aliases.emplace_back(std::string(name), std::move(target));
  }

  // `f`, or `wrapper(f, ...)`: functools.partial, jit, vmap, lru_cache and
  // their kind return a callable that calls f. What else a wrapper does is
  // not known, but calling the result reaches f.
  std::string WrappedFunction(TSNode right) const {
    std::string target = DottedName(right, src_);
    if (!target.empty() || K(right) != kCall) return target;
    TSNode args = Field(right, "arguments");
    if (K(args) != kArgumentList || ts_node_named_child_count(args) == 0) return "";
    TSNode first = ts_node_named_child(args, 0);
    return K(first) == kIdentifier || K(first) == kAttribute ? DottedName(first, src_) : "";
  }

  void OnLocalAssignment(TSNode node) {
    TSNode left = Field(node, "left");
    TSNode right = Field(node, "right");
    if (K(left) != kIdentifier || ts_node_is_null(right) || K(right) != kCall) return;
    std::string target = WrappedFunction(right);
    if (!target.empty()) scopes_.back().wrapped[std::string(Text(left))] = std::move(target);
  }

  std::string_view src_;
  bool every_node_;
  ModuleFacts facts_;
  std::vector<Scope> scopes_;
  TSNode decorated_{};  // the decorated definition whose function comes next
  int decorated_depth_ = -1;
  DefinitionFactsMemo* memo_ = nullptr;
  std::vector<Reading> reading_;  // definitions being read for the memo, outermost first
};

}  // namespace

std::vector<SigParam> ReadParameters(TSNode function, std::string_view src) {
  std::vector<SigParam> out;
  std::vector<TSNode> params = NamedChildren(Field(function, "parameters"));
  // Before a `/` every parameter is positional only; after `*` or *args,
  // keyword only.
  bool positional_only = std::any_of(
      params.begin(), params.end(), [](TSNode p) { return NodeType(p) == "positional_separator"; });
  bool keyword_only = false;
  for (TSNode p : params) {
    std::string_view type = NodeType(p);
    if (type == "positional_separator") {
      positional_only = false;
      continue;
    }
    if (type == "keyword_separator") {
      keyword_only = true;
      continue;
    }
    TSNode name = p;
    if (K(p) == kDefaultParameter || K(p) == kTypedDefaultParameter) name = Field(p, "name");
    if (K(p) == kTypedParameter) name = ts_node_named_child(p, 0);
    std::string kind = positional_only ? "pos" : keyword_only ? "kw" : "any";
    if (K(name) == kListSplatPattern || K(name) == kDictionarySplatPattern) {
      bool star = K(name) == kListSplatPattern;
      kind = star ? "*" : "**";
      if (star) keyword_only = true;
      name = ts_node_named_child(name, 0);
    }
    if (K(name) != kIdentifier) continue;  // a tuple pattern (Python 2)
    out.push_back({std::string(NodeText(name, src)), kind, ""});
  }
  return out;
}

std::string FactsText(const ModuleFacts& f) {
  std::ostringstream out;
  for (const DefinedFunction& d : f.functions) {
    out << "def " << d.qualified << " owner=" << d.owner << " line=" << d.line << " (";
    for (const SigParam& p : d.params) out << p.name << ":" << p.kind << ":" << p.doc << ",";
    out << ")\n";
  }
  for (const DefinedClass& c : f.classes) {
    out << "class " << c.qualified << " line=" << c.line << " bases=";
    for (const std::string& b : c.bases) out << b << ",";
    out << "\n";
  }
  for (const CallFact& c : f.calls) {
    out << "call " << c.caller << " -> " << c.callee << " local=" << c.local << " line=" << c.line
        << " passed=";
    for (const CallFact::Passed& p : c.passed) {
      out << p.position << "/" << p.keyword << "/" << p.param << ",";
    }
    out << "\n";
  }
  for (const ImportFact& i : f.imports) {
    out << "import " << i.local << " " << i.module << " " << i.name << " " << i.level << " "
        << i.reexport << "\n";
  }
  for (const auto& [a, b] : f.aliases) out << "alias " << a << "=" << b << "\n";
  if (f.all) {
    out << "__all__";
    for (const std::string& n : *f.all) out << " " << n;
    out << "\n";
  }
  for (const std::string& v : f.variables) out << "var " << v << "\n";
  for (const Registration& r : f.registrations) {
    out << "reg " << r.key << " " << r.function << " " << r.local << " " << r.line << "\n";
  }
  for (const ImportedModule& i : f.imported) {
    out << "imported " << i.level << " " << i.module << " " << i.line << "\n";
  }
  for (const TopImport& t : f.top_imports) {
    out << "top-import " << t.level << " " << t.module << " " << t.star << " " << t.line << " "
        << t.instead_of << " " << t.code << " :";
    for (const std::string& n : t.names) out << " " << n;
    out << " del";
    for (const std::string& n : t.deletes) out << " " << n;
    out << "\n";
  }
  for (const TopReference& r : f.top_references) {
    out << "top-reference " << r.line;
    for (const std::string& h : r.holders) out << " " << h;
    out << " :";
    for (const std::string& n : r.names) out << " " << n;
    out << "\n";
  }
  return out.str();
}

namespace {

// Whether an `except` clause catches a failed import: bare, or naming
// ImportError, ModuleNotFoundError or a base of them.
bool CatchesImportError(TSNode clause, std::string_view src) {
  TSNode value = Field(clause, "value");
  if (ts_node_is_null(value)) return true;
  std::string_view text = NodeText(value, src);
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
      ++j;
    if (j == i) {
      ++i;
      continue;
    }
    std::string_view word = text.substr(i, j - i);
    if (word == "ImportError" || word == "ModuleNotFoundError" || word == "Exception" ||
        word == "BaseException") {
      return true;
    }
    i = j;
  }
  return false;
}

// `stmt` as a TopImport, when it is a `from` import.
std::optional<TopImport> ReadTopImport(TSNode stmt, std::string_view src) {
  if (K(stmt) != kImportFrom) return std::nullopt;
  TopImport t;
  TSNode module_node = Field(stmt, "module_name");
  if (ts_node_is_null(module_node)) return std::nullopt;
  std::tie(t.module, t.level) = FromModule(stmt, src);
  for (TSNode n : NamedChildren(stmt)) {
    if (SameNode(n, module_node)) continue;
    if (K(n) == kWildcardImport) {
      t.star = true;
    } else if (K(n) == kAliasedImport) {
      t.names.emplace_back(NodeText(Field(n, "alias"), src));
    } else if (K(n) == kDottedName) {
      t.names.emplace_back(NodeText(n, src));
    }
  }
  if (!t.star && t.names.empty()) return std::nullopt;
  t.line = StartLine(stmt);
  // As a guard's code is (py_guards.cc): a generated import of a thousand
  // names is not copied to every site it rebinds.
  t.code = std::string(TruncateUtf8(CollapseWhitespace(NodeText(stmt, src)), 300));
  return t;
}

// The names `del` statements of `block` delete (`del (a, b)`, `del a, b`).
std::vector<std::string> Deleted(TSNode block, std::string_view src) {
  std::vector<std::string> out;
  for (TSNode s : NamedChildren(block)) {
    if (NodeType(s) != "delete_statement") continue;
    std::vector<TSNode> pending = NamedChildren(s);
    while (!pending.empty()) {
      TSNode n = pending.back();
      pending.pop_back();
      if (K(n) == kIdentifier) {
        out.emplace_back(NodeText(n, src));
      } else if (K(n) == kTuple || K(n) == kList || K(n) == kParenthesized ||
                 NodeType(n) == "expression_list") {
        for (TSNode c : NamedChildren(n)) pending.push_back(c);
      }
    }
  }
  return out;
}

// The module's top-level `from` imports, and those of its top-level tries'
// bodies and ImportError handlers, in order.
std::vector<TopImport> ReadTopImports(TSNode root, std::string_view src) {
  std::vector<TopImport> out;
  for (TSNode stmt : NamedChildren(root)) {
    if (K(stmt) == kImportFrom) {
      if (auto t = ReadTopImport(stmt, src)) out.push_back(std::move(*t));
      continue;
    }
    if (K(stmt) != kTry) continue;
    bool catches = false;
    for (TSNode c : NamedChildren(stmt))
      catches = catches || (K(c) == kExcept && CatchesImportError(c, src));
    if (!catches) continue;
    int tried = -1;
    for (TSNode s : NamedChildren(Field(stmt, "body"))) {
      if (auto t = ReadTopImport(s, src)) {
        if (tried < 0) tried = static_cast<int>(out.size());
        out.push_back(std::move(*t));
      }
    }
    if (tried < 0) continue;
    for (TSNode c : NamedChildren(stmt)) {
      if (K(c) != kElse) continue;
      for (TSNode block : NamedChildren(c)) {
        if (K(block) != kBlock) continue;
        for (std::string& name : Deleted(block, src)) {
          out[static_cast<size_t>(tried)].deletes.push_back(std::move(name));
        }
      }
    }
    for (TSNode c : NamedChildren(stmt)) {
      if (K(c) != kExcept || !CatchesImportError(c, src)) continue;
      for (TSNode block : NamedChildren(c)) {
        if (K(block) != kBlock) continue;
        for (TSNode s : NamedChildren(block)) {
          if (auto t = ReadTopImport(s, src)) {
            t->instead_of = tried;
            out.push_back(std::move(*t));
          }
        }
      }
    }
  }
  return out;
}

// The names of `defined` that `stmt` names as the module runs it: not in a
// function's or a lambda's body, nor as the target of a plain assignment.
std::vector<std::string> NamesRun(TSNode stmt, std::string_view src,
                                  const std::set<std::string, std::less<>>& defined) {
  std::vector<std::string> out;
  TSTreeCursor c = ts_tree_cursor_new(stmt);
  int depth = 0;
  // The kind of each node above the cursor: asking a node for its parent
  // walks down from the root.
  std::vector<uint16_t> above;
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&c);
    bool descend = ts_node_is_named(n);
    if (descend && depth > 0) {
      const char* f = ts_tree_cursor_current_field_name(&c);
      std::string_view field = f != nullptr ? f : "";
      uint16_t pk = above.back();
      if (field == "body" && (pk == kFunctionDefinition || pk == kLambda)) descend = false;
      // `V = ...` binds V; `X.a = ...` is held by X (the caller's holder).
      if (field == "left" && pk == kAssignment) descend = false;
      if (field == "name" && (pk == kFunctionDefinition || pk == kClassDefinition)) {
        descend = false;
      }
    }
    if (descend && K(n) == kIdentifier) {
      std::string_view name = NodeText(n, src);
      if (defined.count(name) && std::find(out.begin(), out.end(), name) == out.end()) {
        out.emplace_back(name);
      }
      descend = false;
    }
    if (descend && depth < kMaxDepth && ts_tree_cursor_goto_first_child(&c)) {
      ++depth;
      above.push_back(K(n));
      continue;
    }
    bool more = depth > 0;
    while (more && !ts_tree_cursor_goto_next_sibling(&c)) {
      if (!ts_tree_cursor_goto_parent(&c)) {
        more = false;
        break;
      }
      above.pop_back();
      more = --depth > 0;
    }
    if (!more) break;
  }
  ts_tree_cursor_delete(&c);
  return out;
}

// What holds what a module-level statement names (TopReference::holders).
std::vector<std::string> Holders(TSNode stmt, std::string_view src) {
  if (K(stmt) == kDecoratedDefinition) stmt = Field(stmt, "definition");
  if (K(stmt) == kFunctionDefinition || K(stmt) == kClassDefinition) {
    return {std::string(NodeText(Field(stmt, "name"), src))};
  }
  if (K(stmt) != kExpressionStatement || ts_node_named_child_count(stmt) != 1) return {};
  std::vector<std::string> out;
  // `V = X.a = value`: an assignment whose right side is the next one.
  for (TSNode a = ts_node_named_child(stmt, 0); K(a) == kAssignment; a = Field(a, "right")) {
    TSNode left = Field(a, "left");
    while (K(left) == kAttribute || K(left) == kSubscript) {
      left = Field(left, K(left) == kAttribute ? "object" : "value");
    }
    if (K(left) != kIdentifier) return {};
    out.emplace_back(NodeText(left, src));
  }
  return out;
}

// The module-level statements' references to the module's definitions
// (TopReference), each compound statement's arms read as statements.
void ReadTopReferences(TSNode block, std::string_view src,
                       const std::set<std::string, std::less<>>& defined, int depth,
                       std::vector<TopReference>& out) {
  for (TSNode stmt : NamedChildren(block)) {
    uint16_t k = K(stmt);
    if (k == kImport || k == kImportFrom || k == kComment) continue;
    if ((k == kIf || k == kTry || k == kWith || k == kFor || k == kWhile) && depth < 16) {
      // Their own test or items are read whole; their blocks, statement by
      // statement (`if c: default = C()`).
      for (TSNode part : NamedChildren(stmt)) {
        if (K(part) == kBlock) {
          ReadTopReferences(part, src, defined, depth + 1, out);
        } else if (std::vector<TSNode> kids = NamedChildren(part);
                   std::any_of(kids.begin(), kids.end(), [](TSNode c) { return K(c) == kBlock; })) {
          // elif, else, except, finally: their blocks (an elif's test holds
          // nothing after it ran)
          for (TSNode b : kids) {
            if (K(b) == kBlock) ReadTopReferences(b, src, defined, depth + 1, out);
          }
        } else if (std::vector<std::string> names = NamesRun(part, src, defined); !names.empty()) {
          out.push_back({StartLine(part), {}, std::move(names)});
        }
      }
      continue;
    }
    std::vector<std::string> names = NamesRun(stmt, src, defined);
    if (names.empty()) continue;
    out.push_back({StartLine(stmt), Holders(stmt, src), std::move(names)});
  }
}

}  // namespace

ModuleFacts ReadModuleFacts(TSNode root, std::string_view source, bool every_node,
                            DefinitionFactsMemo* memo) {
  ModuleFacts facts = Reader(source, every_node).Run(root, memo);
  facts.top_imports = ReadTopImports(root, source);
  bool may_rebind = std::any_of(facts.top_imports.begin(), facts.top_imports.end(),
                                [](const TopImport& t) { return t.instead_of < 0; });
  if (may_rebind) {
    std::set<std::string, std::less<>> defined;
    for (const DefinedFunction& f : facts.functions) {
      if (f.qualified.find('.') == std::string::npos) defined.insert(f.qualified);
    }
    for (const DefinedClass& c : facts.classes) {
      if (c.qualified.find('.') == std::string::npos) defined.insert(c.qualified);
    }
    ReadTopReferences(root, source, defined, 0, facts.top_references);
  }
  return facts;
}

}  // namespace errdex::extract::python
