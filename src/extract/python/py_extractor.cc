#include "extract/python/py_extractor.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t on the stack
#include <xxhash.h>

#include "core/text.h"
#include "extract/cpp/cpp_extractor.h"
#include "extract/python/py_calls.h"
#include "extract/python/py_conditions.h"
#include "extract/python/py_docstring.h"
#include "extract/python/py_flow.h"
#include "extract/python/py_guards.h"
#include "extract/python/py_syntax.h"
#include "extract/source_lines.h"
#include "extract/ts_util.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace errdex::extract::python {

// Lines are the file's where the entry was made (`line`: the definition's
// first), site indexes count from the definition's first site and function
// indexes from its first function; sites keep no excerpt, which is read
// again where the definition now is.
struct DefinitionSites {
  // A question about the rest of the file, asked while the definition was
  // walked, and its answer: the entry holds where every answer is the same.
  struct Asked {
    enum class What : uint8_t {
      kLocalExceptionClass,  // answer: 1 or 0
      kHelperText,           // answer: a digest of the module function's text, 0 if none
      kTableChanged,         // answer: 1 or 0 (TableChanged)
    };
    What what;
    std::string name;
    uint64_t answer = 0;
  };
  int line = 0;
  // The names the walk read at module level (digests, sorted), and what the
  // top-level statements that mention them were, around the definition.
  std::vector<uint64_t> names;
  XXH128_hash_t surroundings{};
  std::vector<Asked> asked;
  std::vector<ProtoSite> sites;
  std::vector<NonSite> non_sites;
  std::vector<ClassInfo> classes;
  std::vector<FunctionInfo> functions;
  std::vector<SinkCall> calls;
  int cut_line = 0;  // GuardCache::first_cut_line, if the walk set it
  // The file's budgets the walk spent, spent again when the entry is used.
  int64_t eval_steps = 0;
  int64_t flow_statements = 0;
};

namespace {

constexpr std::string_view kBuiltinExceptions[] = {
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BaseExceptionGroup",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "EncodingWarning",
    "EnvironmentError",
    "Exception",
    "ExceptionGroup",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "NotADirectoryError",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "PythonFinalizationError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "ZeroDivisionError",
    "WindowsError",
    "IncompleteInputError",
};

// Exception classes compiled into an extension, so without a Python body to
// read, whose printed text is one of their arguments as a str.format
// template (its fields filled from another argument, a dict): not the tuple
// of their arguments that a Python class without __str__ prints.
struct CompiledMessageClass {
  std::string_view name;
  size_t position;           // the template's positional index
  std::string_view keyword;  // or its keyword
};
constexpr CompiledMessageClass kCompiledMessageClasses[] = {
    // pydantic_core: PydanticCustomError(error_type, message_template, context=None).
    {"PydanticCustomError", 1, "message_template"},
};

// The text a compiled class of kCompiledMessageClasses prints for `args`;
// nullopt for another class.
std::optional<Template> CompiledClassMessage(std::string_view callee,
                                             const std::vector<CallArg>& args) {
  std::string_view name = callee.substr(callee.rfind('.') + 1);
  for (const CompiledMessageClass& c : kCompiledMessageClasses) {
    if (c.name != name) continue;
    size_t position = 0;
    for (const CallArg& a : args) {
      if (a.splat) return std::nullopt;
      bool is_it = a.keyword.empty() ? position++ == c.position : a.keyword == c.keyword;
      if (!is_it) continue;
      // Fields stay placeholders named by their keys: the context's values
      // are not spelled out here.
      if (a.arg.value) return flow::ApplyFormat(flow::Format::kStrFormat, *a.arg.value, {});
      return Template::Value(a.arg.expression, ValueKind::kAny);
    }
    return std::nullopt;
  }
  return std::nullopt;
}

// OSError(errno, strerror[, filename]) prints "[Errno 2] strerror: 'filename'".
constexpr std::string_view kOsErrors[] = {
    "OSError",
    "IOError",
    "EnvironmentError",
    "BlockingIOError",
    "ChildProcessError",
    "ConnectionError",
    "BrokenPipeError",
    "ConnectionAbortedError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "FileExistsError",
    "FileNotFoundError",
    "InterruptedError",
    "IsADirectoryError",
    "NotADirectoryError",
    "PermissionError",
    "ProcessLookupError",
    "TimeoutError",
    "WindowsError",
};

// Builtin classes whose str() reads attributes the constructor set, so that
// assigning `args` later leaves what is printed as it was.
constexpr std::string_view kAttributePrinted[] = {
    "ImportError",
    "ModuleNotFoundError",
    "SyntaxError",
    "IndentationError",
    "TabError",
    "UnicodeError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeTranslateError",
    "ExceptionGroup",
    "BaseExceptionGroup",
};

// Callees that take text but never raise with it (containers, logging,
// string methods, builtins): calls to them are not kept as sink candidates,
// which keeps the light call records few. A name missing here only costs a
// record the linker drops.
constexpr std::string_view kNotSinks[] = {
    "__init__", "add",       "append",    "compile",   "critical", "debug",    "decode",
    "encode",   "endswith",  "exception", "extend",    "find",     "format",   "get",
    "getattr",  "hasattr",   "index",     "info",      "insert",   "isinstance", "join",
    "len",      "log",       "lstrip",    "match",     "open",     "pop",      "print",
    "remove",   "replace",   "rfind",     "rsplit",    "rstrip",   "search",   "setattr",
    "setdefault", "split",   "startswith", "strip",    "sub",      "update",   "warning",
    "write",    "writelines",
};

// Calls whose result is their first argument's text up to whitespace, which
// a message is matched up to: re-indented or re-wrapped (`dedent`, `fill`,
// `cleandoc`, and those spelled with their module). sympy raises 182 of its
// errors through `filldedent("""...""")`, which is `fill(dedent(str(s)))`.
struct TextPreserving {
  std::string_view module;  // "" for the bare name, as `from textwrap import dedent` binds it
  std::string_view name;
};
constexpr TextPreserving kTextPreserving[] = {
    {"", "dedent"},         {"", "fill"},           {"", "cleandoc"},
    {"textwrap", "dedent"}, {"textwrap", "fill"},   {"inspect", "cleandoc"},
};

bool IsTextPreserving(std::string_view module, std::string_view name) {
  return std::any_of(std::begin(kTextPreserving), std::end(kTextPreserving),
                     [&](const TextPreserving& t) { return t.module == module && t.name == name; });
}

// Variables that usually hold a message: a call passing one may hand text
// to a sink (`msg = "..."; self.fail(msg)`).
constexpr std::string_view kMessageNames[] = {
    "description", "detail", "err", "errmsg", "error_message", "explanation",
    "message",     "msg",    "reason", "text",
};

constexpr int kMaxAlternatives = 8;
constexpr int64_t kMaxEvalStepsPerFile = 2'000'000;
// Nodes one `raise self.x` may visit looking for where x was stored.
constexpr int64_t kMaxStoreScan = 200'000;
constexpr int64_t kMaxFlowStatementsPerFile = 5'000'000;
constexpr int kMaxEvalDepth = 48;
constexpr size_t kMaxStatementBytes = 4096;

bool IsCapitalized(std::string_view name) {
  size_t i = name.find_first_not_of('_');
  return i != std::string_view::npos && std::isupper(static_cast<unsigned char>(name[i]));
}

struct Scope {
  TSNode node{};
  bool is_class = false;
  std::string name;
  std::string qualname;
  int class_info = -1;     // index into FileResult::classes
  int function_info = -1;  // index into FileResult::functions, created on demand
  std::string signature;   // Site::signature, made on the first site in it
  size_t sites_from = 0;   // FileResult::sites made before it was entered
};

// Where an expression is evaluated: the function scopes around it (innermost
// last; empty at module level) and the statement it is in.
struct EvalContext {
  std::vector<TSNode> functions;
  TSNode at{};
  const std::map<std::string, flow::Arg, std::less<>>* bindings = nullptr;
  int inline_depth = 0;
};

using Alternatives = std::vector<Template>;

void AddAlternative(Alternatives& alts, Template t);

// A template that is one unresolved value: evaluation reached an expression
// errdex cannot follow (a call, a parameter), not a string.
bool IsOpaque(const Template& t) {
  return t.pieces().size() == 1 && t.pieces()[0].is_value && t.pieces()[0].kind == ValueKind::kAny;
}

// Every a + b (+ tail), at most kMaxAlternatives.
Alternatives Concat(const Alternatives& left, const Alternatives& right,
                    const std::optional<Template>& tail) {
  Alternatives out;
  for (const Template& a : left) {
    for (const Template& b : right) {
      Template t = a;
      t.Append(b);
      if (tail) t.Append(*tail);
      AddAlternative(out, std::move(t));
    }
  }
  return out;
}

// Whether some alternative is a bytes object's printed form: `+` and `+=`
// join bytes into one object printed in one pair of quotes, which joining
// the printed parts does not give.
bool HoldsBytes(const Alternatives& alts) {
  return std::any_of(alts.begin(), alts.end(), [](const Template& t) { return t.repr_is_text(); });
}

void AddAlternative(Alternatives& alts, Template t) {
  if (alts.size() >= static_cast<size_t>(kMaxAlternatives)) return;
  if (t.AssumesTheImpossible()) return;  // branches that never run together
  std::string display = t.Display();
  for (Template& a : alts) {
    if (a.Display() != display) continue;
    // The same text under other conditions: what both say still holds.
    a.KeepCommonAssumptions(t);
    return;
  }
  alts.push_back(std::move(t));
}

// Adds `alts` to `out`, each assuming `assumed` as well.
void AddAssuming(Alternatives& out, Alternatives alts, const std::vector<Assumption>& assumed) {
  for (Template& t : alts) {
    for (const Assumption& a : assumed) t.Assume(a);
    AddAlternative(out, std::move(t));
  }
}

class FileExtractor {
 public:
  FileExtractor(std::string_view path, std::string_view source, TSTree* tree,
                const PythonOptions& options)
      : src_(source), root_(ts_tree_root_node(tree)), options_(options) {
    guards_.note_module_names = options_.sites_memo != nullptr;
    result_.path = std::string(path);
  }

  FileResult Run() {
    ScanModule();
    Walk();
    result_.facts = ReadModuleFacts(root_, src_, false, options_.facts_memo);
    if (guards_.first_cut_line > 0) {
      result_.issues.push_back(
          FileIssue{result_.path, "work-budget",
                    "conditions of raises cut to the nearest " + std::to_string(kMaxGuardsPerStep) +
                        " early exits or elifs, " + std::to_string(kMaxGuards) +
                        " in all (first at line " + std::to_string(guards_.first_cut_line) + ")",
                    false});
    }
    return std::move(result_);
  }

 private:
  const SymbolTable& sym() const { return Symbols(); }
  std::string_view Text(TSNode n) const { return NodeText(n, src_); }

  // tree-sitter finds a node's parent by walking down from the root past
  // the siblings on the way, so a statement in a module of 2,000 functions
  // costs a scan of them; asked for the same nodes again and again (the
  // branches around each definition), parents are kept.
  TSNode Parent(TSNode n) const {
    if (ts_node_is_null(n)) return n;
    auto key = std::make_pair(n.id, ts_node_start_byte(n));
    if (auto it = parents_.find(key); it != parents_.end()) return it->second;
    TSNode parent = ts_node_parent(n);
    parents_.emplace(key, parent);
    return parent;
  }

  uint16_t K(TSNode n) const {
    return ts_node_is_null(n) ? static_cast<uint16_t>(kOther) : sym().Kind(n);
  }

  // Module-level imports and function definitions.
  void ScanModule() {
    for (TSNode stmt : NamedChildren(root_)) {
      uint16_t k = K(stmt);
      if (k == kImport || k == kImportFrom) {
        ScanImport(stmt);
      } else if (k == kFunctionDefinition || k == kDecoratedDefinition) {
        TSNode def = k == kDecoratedDefinition ? Field(stmt, "definition") : stmt;
        if (K(def) != kFunctionDefinition) continue;
        TSNode name = Field(def, "name");
        if (!ts_node_is_null(name)) module_functions_[std::string(Text(name))] = def;
      } else if (k == kClassDefinition) {
        TSNode name = Field(stmt, "name");
        if (!ts_node_is_null(name)) module_classes_.insert(std::string(Text(name)));
      }
    }
  }

  void ScanImport(TSNode stmt) {
    bool from_warnings = false;
    if (K(stmt) == kImportFrom) {
      TSNode module = Field(stmt, "module_name");
      from_warnings = !ts_node_is_null(module) && Text(module) == "warnings";
    }
    for (TSNode n : NamedChildren(stmt)) {
      if (K(stmt) == kImportFrom && SameNode(n, Field(stmt, "module_name"))) continue;
      std::string original;
      std::string local;
      if (K(n) == kAliasedImport) {
        original = std::string(Text(Field(n, "name")));
        local = std::string(Text(Field(n, "alias")));
      } else if (K(n) == kDottedName) {
        original = std::string(Text(n));
        local = original;
      } else {
        continue;
      }
      if (K(stmt) == kImport) {
        if (original == "warnings") warnings_modules_.insert(local);
        continue;
      }
      if (from_warnings && (original == "warn" || original == "warn_explicit")) {
        warn_functions_.insert(local);
      }
      if (local != original) aliases_[local] = std::string(LastComponent(original));
      imported_.insert(local);
    }
    if (K(stmt) == kImportFrom) {
      for (TSNode c : Children(stmt)) {
        if (K(c) == kWildcardImport) star_import_ = true;
      }
    }
  }

  // The short exception name `written` stands for, through import aliases.
  std::string ShortName(std::string_view written) const {
    std::string_view last = LastComponent(written);
    if (written.find('.') == std::string_view::npos) {
      Mention(written);
      auto it = aliases_.find(std::string(written));
      if (it != aliases_.end()) return it->second;
    }
    return std::string(last);
  }

  // ------------------------------------------------------------------ walk

  // The module, one top-level statement after another: a function or class
  // the memo has, in a module that gives it the same answers, is taken from
  // there; the others are walked (and put there).
  void Walk() {
    DefinitionSitesMemo* memo = options_.sites_memo;
    if (memo == nullptr || K(root_) != kModule) return WalkFrom(root_);
    top_ = TopStatements();
    size_t index = 0;
    TSTreeCursor c = ts_tree_cursor_new(root_);
    for (bool more = ts_tree_cursor_goto_first_child(&c); more;
         more = ts_tree_cursor_goto_next_sibling(&c)) {
      TSNode stmt = ts_tree_cursor_current_node(&c);
      if (!ts_node_is_named(stmt) || K(stmt) == kComment) {
        WalkFrom(stmt);
        continue;
      }
      size_t at = index++;
      if (!top_[at].unit) {
        WalkFrom(stmt);
        continue;
      }
      std::string key = UnitKey(stmt);
      if (std::shared_ptr<const DefinitionSites> hit = memo->Find(key)) {
        if (Replay(*hit, stmt, at)) continue;
      }
      unit_ = K(stmt) == kDecoratedDefinition ? Field(stmt, "definition") : stmt;
      unit_index_ = at;
      if (!memo->Keeping()) {
        WalkFrom(stmt);
      } else {
        StartRecording(stmt, std::move(key), /*member=*/false);
        WalkFrom(stmt);
        FinishRecording();
      }
      unit_ = TSNode{};
    }
    ts_tree_cursor_delete(&c);
  }

  void WalkFrom(TSNode top) {
    TSTreeCursor c = ts_tree_cursor_new(top);
    bool descend = EnterOrReplay(top);
    while (true) {
      if (descend && ts_tree_cursor_goto_first_child(&c)) {
        descend = EnterOrReplay(ts_tree_cursor_current_node(&c));
        continue;
      }
      bool done = true;
      while (true) {
        LeaveAndKeep(ts_tree_cursor_current_node(&c));
        if (ts_tree_cursor_goto_next_sibling(&c)) {
          descend = EnterOrReplay(ts_tree_cursor_current_node(&c));
          done = false;
          break;
        }
        if (!ts_tree_cursor_goto_parent(&c)) break;
      }
      if (done) break;
    }
    ts_tree_cursor_delete(&c);
  }

  // A method of the top-level class being walked is taken from the memo, or
  // walked and kept, as a top-level definition is: a class changes with any
  // of its methods, most of which stay the same.
  bool EnterOrReplay(TSNode node) {
    DefinitionSitesMemo* memo = options_.sites_memo;
    if (memo == nullptr || !IsMemberUnit(node)) return Enter(node);
    std::string key = MemberKey(node);
    if (std::shared_ptr<const DefinitionSites> hit = memo->Find(key)) {
      if (Replay(*hit, node, unit_index_)) return false;
    }
    if (memo->Keeping()) StartRecording(node, std::move(key), /*member=*/true);
    return Enter(node);
  }

  void LeaveAndKeep(TSNode node) {
    Leave(node);
    if (!recordings_.empty() && recordings_.back().member &&
        ts_node_eq(recordings_.back().node, node)) {
      FinishRecording();
    }
  }

  // A method (decorated or not) directly in the body of the top-level class
  // being walked, read without error. Not `__init__` or `__str__`, whose
  // walks fill in their class's ClassInfo.
  bool IsMemberUnit(TSNode node) const {
    if (ts_node_is_null(unit_) || scopes_.size() != 1 || !scopes_[0].is_class ||
        !ts_node_eq(scopes_[0].node, unit_)) {
      return false;
    }
    TSNode def = K(node) == kDecoratedDefinition ? Field(node, "definition") : node;
    if (K(def) != kFunctionDefinition || ts_node_has_error(node)) return false;
    TSNode body = Parent(node);
    if (K(body) != kBlock || !ts_node_eq(Parent(body), unit_)) return false;
    std::string_view name = Text(Field(def, "name"));
    return name != "__init__" && name != "__str__";
  }

  // ------------------------------------------------- definitions from the memo
  //
  // A top-level definition's walk reads the rest of its module only by name:
  // module-level definitions of the names it looks up (ResolveName), the
  // imports and definitions it asks about (ShortName, IsModuleFunction, ...),
  // each noted by Mention. What it made holds wherever the top-level
  // statements that mention those names are the same, in the same order
  // around it. Besides: a statement that raises or asserts at module level,
  // or imports `*`, may change what any look-up finds, and is always
  // counted; what the walk asks of the file's classes and of its helpers'
  // bodies is recorded as DefinitionSites::Asked; and a walk that reads the
  // module's own flow (the guards of a raise at class level) is not kept.

  // A top-level function or class, read without error: what the memo keeps.
  bool IsDefinitionUnit(TSNode stmt) const {
    TSNode def = K(stmt) == kDecoratedDefinition ? Field(stmt, "definition") : stmt;
    return (K(def) == kFunctionDefinition || K(def) == kClassDefinition) &&
           !ts_node_has_error(stmt);
  }

  // A top-level statement (comments aside) as the memo sees it.
  struct TopStatement {
    bool unit = false;            // a function or class the memo keeps
    bool always = false;          // counted in every definition's context
    std::vector<uint64_t> names;  // digests of the identifiers in it, sorted
    uint64_t digest = 0;          // of its text; of a definition its kind and name
  };

  static uint64_t NameDigest(std::string_view name) {
    return XXH3_64bits(name.data(), name.size());
  }

  std::vector<TopStatement> TopStatements() const {
    std::vector<TopStatement> out;
    for (TSNode stmt : NamedChildren(root_)) {
      if (K(stmt) == kComment) continue;
      TopStatement& t = out.emplace_back();
      TSNode def = K(stmt) == kDecoratedDefinition ? Field(stmt, "definition") : stmt;
      if (IsDefinitionUnit(stmt)) {
        t.unit = true;
        std::string_view name = Text(Field(def, "name"));
        t.names = {NameDigest(name)};
        // ScanModule tells a decorated class from a class.
        std::string marker = std::string(K(stmt) == kDecoratedDefinition ? "@" : "") +
                             (K(def) == kClassDefinition ? "class " : "def ") + std::string(name);
        t.digest = NameDigest(marker);
        continue;
      }
      std::string_view text = Text(stmt);
      t.digest = XXH3_64bits(text.data(), text.size());
      static const uint64_t kRaise = NameDigest("raise");
      static const uint64_t kAssert = NameDigest("assert");
      for (size_t i = 0; i < text.size();) {
        auto word = [](unsigned char ch) { return ch == '_' || ch >= 0x80 || std::isalnum(ch); };
        if (!word(static_cast<unsigned char>(text[i]))) {
          ++i;
          continue;
        }
        size_t j = i;
        while (j < text.size() && word(static_cast<unsigned char>(text[j]))) ++j;
        t.names.push_back(NameDigest(text.substr(i, j - i)));
        i = j;
      }
      std::sort(t.names.begin(), t.names.end());
      t.names.erase(std::unique(t.names.begin(), t.names.end()), t.names.end());
      bool star = false;
      if (K(stmt) == kImportFrom) {
        for (TSNode c : NamedChildren(stmt)) star = star || K(c) == kWildcardImport;
      }
      t.always = star || std::binary_search(t.names.begin(), t.names.end(), kRaise) ||
                 std::binary_search(t.names.begin(), t.names.end(), kAssert);
    }
    return out;
  }

  // The top-level statements that mention `names` (sorted digests), in
  // order, with the place of the definition `self` among them.
  XXH128_hash_t Surroundings(const std::vector<uint64_t>& names, size_t self) const {
    XXH3_state_t state;
    XXH3_128bits_reset(&state);
    for (size_t i = 0; i < top_.size(); ++i) {
      const TopStatement& t = top_[i];
      bool counted = i == self || t.always;
      for (size_t k = 0; k < t.names.size() && !counted; ++k) {
        counted = std::binary_search(names.begin(), names.end(), t.names[k]);
      }
      if (!counted) continue;
      uint64_t digest = i == self ? 0 : t.digest;
      XXH3_128bits_update(&state, &digest, sizeof digest);
    }
    return XXH3_128bits_digest(&state);
  }

  // A definition is found by its text in its file (and the file's options),
  // a method by its class's qualified name too; DefinitionSites::
  // surroundings then says whether it may be used.
  std::string UnitKey(TSNode stmt) const { return Key("", Text(stmt)); }
  std::string MemberKey(TSNode node) const {
    // The text starts at its first line's indentation, which columns count.
    return Key(
        "member of " + scopes_[0].qualname + " at column " + std::to_string(StartColumn(node)),
        Text(node));
  }

  std::string Key(std::string_view owner, std::string_view text) const {
    XXH3_state_t state;
    XXH3_128bits_reset(&state);
    for (std::string_view part :
         {std::string_view(result_.path), std::string_view(options_.cython ? "c" : "p"), owner}) {
      XXH3_128bits_update(&state, part.data(), part.size());
      XXH3_128bits_update(&state, "", 1);
    }
    XXH3_128bits_update(&state, text.data(), text.size());
    XXH128_hash_t h = XXH3_128bits_digest(&state);
    return DigestKey(h.low64, h.high64);
  }

  // What ScanModule found of a name, which a definition's walk then read.
  template <typename Names>
  bool Lists(const Names& names, std::string_view name) const {
    Mention(name);
    return names.count(std::string(name)) > 0;
  }
  bool IsModuleFunction(std::string_view name) const { return Lists(module_functions_, name); }
  bool IsModuleClass(std::string_view name) const { return Lists(module_classes_, name); }
  bool IsImported(std::string_view name) const { return Lists(imported_, name); }
  bool IsWarningsModule(std::string_view name) const { return Lists(warnings_modules_, name); }
  bool IsWarnFunction(std::string_view name) const { return Lists(warn_functions_, name); }

  // The function a statement's guards are read within; the module's own
  // flow, read past the definition being walked, where it is in none.
  TSNode GuardScope(const Scope* function) {
    if (function != nullptr) return function->node;
    if (!recordings_.empty()) recordings_.back().module_flow_read = true;
    return root_;
  }

  // A walk read its class's whole body: a method's entry would not hold
  // beside other methods.
  void NoteClassRead() {
    if (!recordings_.empty()) recordings_.back().class_read = true;
  }

  // Notes a name whose module-level meaning a definition's walk reads.
  void Mention(std::string_view name) const {
    if (options_.sites_memo != nullptr) read_names_.push_back(NameDigest(name));
  }

  using Asked = DefinitionSites::Asked;

  uint64_t Answer(Asked::What what, const std::string& name) const {
    if (what == Asked::What::kLocalExceptionClass) return DefinesExceptionClass(name) ? 1 : 0;
    if (what == Asked::What::kTableChanged) return TableChanged(name) ? 1 : 0;
    auto it = module_functions_.find(name);
    if (it == module_functions_.end()) return 0;
    std::string_view text = Text(it->second);
    return XXH3_64bits(text.data(), text.size()) | 1;
  }

  // Notes a question a definition's walk asks of the rest of its file.
  void Ask(Asked::What what, const std::string& name, uint64_t answer) const {
    if (options_.sites_memo != nullptr) read_asked_.push_back(Asked{what, name, answer});
  }

  static void Note(std::vector<Asked>& asked, const Asked& a) {
    for (const Asked& b : asked) {
      if (b.what == a.what && b.name == a.name) return;
    }
    asked.push_back(a);
  }

  // A definition being walked for the memo: what the file held before it,
  // and what it has read of the rest of its file so far.
  struct Recording {
    TSNode node{};
    std::string key;
    bool member = false;
    int line = 0;
    size_t sites = 0, non_sites = 0, classes = 0, functions = 0, calls = 0, issues = 0, budgets = 0;
    int64_t eval_steps = 0;
    int64_t flow_budget = 0;
    bool cut = false;
    size_t names_from = 0;  // where its reads start in read_names_ and read_asked_
    size_t asked_from = 0;
    bool module_flow_read = false;
    bool class_read = false;  // a member's walk read its class's body
  };

  // The names PythonGuards read at module level, for the walk they were
  // read in.
  void DrainGuardNames() {
    for (const std::string& name : guards_.module_names) Mention(name);
    guards_.module_names.clear();
  }

  void StartRecording(TSNode node, std::string key, bool member) {
    DrainGuardNames();
    Recording& r = recordings_.emplace_back();
    r.node = node;
    r.key = std::move(key);
    r.member = member;
    r.line = StartLine(node);
    r.sites = result_.sites.size();
    r.non_sites = result_.non_sites.size();
    r.classes = result_.classes.size();
    r.functions = result_.functions.size();
    r.calls = result_.calls.size();
    r.issues = result_.issues.size();
    r.budgets = budget_noted_.size();
    r.eval_steps = eval_steps_;
    r.flow_budget = flow_budget_;
    r.cut = guards_.first_cut_line > 0;
    r.names_from = read_names_.size();
    r.asked_from = read_asked_.size();
  }

  // Ends the innermost recording: what it read is read by the one around it
  // too, and what it made goes to the memo.
  void FinishRecording() {
    DrainGuardNames();
    Recording r = std::move(recordings_.back());
    recordings_.pop_back();
    if (!recordings_.empty()) {
      Recording& outer = recordings_.back();
      outer.module_flow_read = outer.module_flow_read || r.module_flow_read;
      outer.class_read = outer.class_read || r.class_read;
    }
    if (std::shared_ptr<const DefinitionSites> kept = StopRecording(r)) {
      options_.sites_memo->Put(r.key, std::move(kept));
    }
  }

  // What a definition taken from the memo, or a look-up taken from
  // name_memo_, read when it was worked out: read again now.
  void Reread(const std::vector<uint64_t>& names, const std::vector<Asked>& asked) const {
    if (options_.sites_memo == nullptr) return;
    read_names_.insert(read_names_.end(), names.begin(), names.end());
    read_asked_.insert(read_asked_.end(), asked.begin(), asked.end());
  }

  // The names and questions read since `names_from` and `asked_from`, each
  // once.
  std::pair<std::vector<uint64_t>, std::vector<Asked>> ReadSince(size_t names_from,
                                                                 size_t asked_from) const {
    std::vector<uint64_t> names(read_names_.begin() + static_cast<long>(names_from),
                                read_names_.end());
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::vector<Asked> asked;
    for (size_t i = asked_from; i < read_asked_.size(); ++i) Note(asked, read_asked_[i]);
    return {std::move(names), std::move(asked)};
  }

  // What the walk since `r` added, for the memo; null when it ran out of a
  // budget (what it made then depends on what came before it) or reached
  // past its own definition.
  std::shared_ptr<const DefinitionSites> StopRecording(Recording& r) {
    // A budget spent before the walk cuts it silently (its kind is noted
    // once per file): what it made then is no walk of the definition.
    bool spent = !budget_noted_.empty() || eval_steps_ > kMaxEvalStepsPerFile || flow_budget_ < 0;
    if (result_.issues.size() != r.issues || spent || r.cut || r.module_flow_read ||
        (r.member && r.class_read)) {
      return nullptr;
    }
    auto d = std::make_shared<DefinitionSites>();
    d->line = r.line;
    std::tie(d->names, d->asked) = ReadSince(r.names_from, r.asked_from);
    d->surroundings = Surroundings(d->names, unit_index_);
    auto tail = [](const auto& all, size_t from) {
      return std::vector<typename std::decay_t<decltype(all)>::value_type>(
          all.begin() + static_cast<long>(from), all.end());
    };
    // A trigger sentence names lines: it is written again where the entry
    // is used, and must be what it was written from.
    auto rewritable = [](const Site& s) {
      return s.trigger.empty() || s.trigger == TriggerSentence(s.guards);
    };
    d->sites = tail(result_.sites, r.sites);
    for (ProtoSite& p : d->sites) {
      if (!rewritable(p.site)) return nullptr;
      p.site.excerpt.clear();  // excerpt_line says there was one
    }
    d->non_sites = tail(result_.non_sites, r.non_sites);
    d->classes = tail(result_.classes, r.classes);
    d->functions = tail(result_.functions, r.functions);
    for (FunctionInfo& f : d->functions) {
      for (std::vector<size_t>* indexes : {&f.returned_sites, &f.sink_sites}) {
        for (size_t& i : *indexes) {
          if (i < r.sites) return nullptr;
          i -= r.sites;
        }
      }
    }
    d->calls = tail(result_.calls, r.calls);
    for (SinkCall& c : d->calls) {
      if (!rewritable(c.site)) return nullptr;
      if (c.function < 0) continue;
      if (static_cast<size_t>(c.function) < r.functions) return nullptr;
      c.function -= static_cast<int>(r.functions);
    }
    d->cut_line = guards_.first_cut_line;
    d->eval_steps = eval_steps_ - r.eval_steps;
    d->flow_statements = r.flow_budget - flow_budget_;
    return d;
  }

  // Adds what the memo kept for the definition `stmt`, moved to where it
  // is; false, adding nothing, when the rest of the file answers one of its
  // questions otherwise, or when the file's budgets would not have covered
  // its walk.
  bool Replay(const DefinitionSites& d, TSNode stmt, size_t self) {
    if (eval_steps_ + d.eval_steps > kMaxEvalStepsPerFile || flow_budget_ < d.flow_statements) {
      return false;
    }
    if (!XXH128_isEqual(Surroundings(d.names, self), d.surroundings)) return false;
    for (const Asked& a : d.asked) {
      if (Answer(a.what, a.name) != a.answer) return false;
    }
    Reread(d.names, d.asked);
    int shift = StartLine(stmt) - d.line;
    auto move = [shift](int& line) {
      if (line > 0) line += shift;
    };
    auto move_site = [&](Site& s) {
      move(s.line);
      move(s.end_line);
      for (Guard& g : s.guards) move(g.line);
      if (!s.trigger.empty()) s.trigger = TriggerSentence(s.guards);
      if (s.excerpt_line > 0) {
        lines_.FillExcerpt(s, options_.excerpt_before, options_.excerpt_after,
                           options_.max_excerpt_bytes);
      }
    };
    size_t first_site = result_.sites.size();
    size_t first_function = result_.functions.size();
    for (ProtoSite p : d.sites) {
      move_site(p.site);
      result_.sites.push_back(std::move(p));
    }
    for (NonSite n : d.non_sites) {
      move(n.line);
      result_.non_sites.push_back(std::move(n));
    }
    for (ClassInfo c : d.classes) {
      move(c.line);
      result_.classes.push_back(std::move(c));
    }
    for (FunctionInfo f : d.functions) {
      for (size_t& i : f.returned_sites) i += first_site;
      for (size_t& i : f.sink_sites) i += first_site;
      result_.functions.push_back(std::move(f));
    }
    for (SinkCall c : d.calls) {
      move_site(c.site);
      if (c.function >= 0) c.function += static_cast<int>(first_function);
      result_.calls.push_back(std::move(c));
    }
    if (d.cut_line > 0 && guards_.first_cut_line == 0) guards_.first_cut_line = d.cut_line + shift;
    eval_steps_ += d.eval_steps;
    flow_budget_ -= d.flow_statements;
    return true;
  }

  // Returns whether to descend into the node's children: only into nodes
  // that hold statements (and ERROR nodes, which may hide some), so the walk
  // never enters expressions, which are most of a tree (data literals).
  bool Enter(TSNode node) {
    if (!ts_node_is_named(node)) return false;
    switch (K(node)) {
      case kFunctionDefinition:
        EnterFunction(node);
        return true;
      case kClassDefinition:
        EnterClass(node);
        return true;
      case kRaise:
        OnRaise(node);
        return false;
      case kAssert:
        OnAssert(node);
        return false;
      case kReturn:
        OnReturn(node);
        return false;
      case kExpressionStatement:
        for (TSNode child : NamedChildren(node)) {
          if (K(child) == kCall) OnCall(child);
          if (K(child) == kAssignment) {
            OnAssignment(child);
            // `out = disc(..., lam, 'lam', CONS_POISSON)`: a helper that
            // raises is as often called for its result as for its effect.
            TSNode right = Field(child, "right");
            if (!ts_node_is_null(right) && K(right) == kCall) OnSinkCall(right, node);
          }
        }
        return false;
      case kModule:
      case kBlock:
      case kIf:
      case kElif:
      case kElse:
      case kFor:
      case kWhile:
      case kTry:
      case kExcept:
      case kExceptGroup:
      case kFinally:
      case kWith:
      case kMatch:
      case kCase:
      case kDecoratedDefinition:
        return true;
      default:
        return ts_node_symbol(node) == static_cast<TSSymbol>(-1);  // ERROR
    }
  }

  void Leave(TSNode node) {
    if (scopes_.empty() || !ts_node_eq(scopes_.back().node, node)) return;
    if (!scopes_.back().is_class) {
      for (size_t i = scopes_.back().sites_from; i < result_.sites.size(); ++i) {
        SayTestsOfTheMessage(result_.sites[i].site, node);
      }
    }
    scopes_.pop_back();
  }

  // The tests that chose a site's message among the texts its raise can
  // have (`msg += ...` under an `if`, the arm of `"A" if c else "B"`), made
  // conditions of the site: the raise with that text runs only when they
  // held. Tests of `fn`, the innermost function of the site; a test of a
  // function around it ran when the inner one was made, not when it raised.
  // A test that is already a guard of the raise is not said twice. They
  // come first, in the order of their lines: the last guard stays the
  // raise's own test, which the analysis reads.
  void SayTestsOfTheMessage(Site& s, TSNode fn) {
    const std::vector<Assumption>& assumed = s.message.assumptions();
    if (std::none_of(assumed.begin(), assumed.end(),
                     [](const Assumption& a) { return a.OfATest(); })) {
      return;
    }
    std::vector<Guard> tests;
    uint32_t from = ts_node_start_byte(fn);
    uint32_t hash = TextHash(fn);
    for (const Assumption& a : assumed) {
      if (!a.OfATest() || a.scope != hash || a.end > ts_node_end_byte(fn) - from) continue;
      uint32_t start = from + a.start;
      uint32_t end = from + a.end;
      TSNode test = ts_node_descendant_for_byte_range(fn, start, end);
      while (!ts_node_is_null(test) && !SameNode(test, fn) &&
             ts_node_end_byte(Parent(test)) == end && ts_node_start_byte(Parent(test)) == start) {
        test = Parent(test);  // the outermost node of those bytes: the test as a whole
      }
      if (ts_node_is_null(test) || ts_node_start_byte(test) != start ||
          ts_node_end_byte(test) != end) {
        continue;
      }
      Guard g = PythonTestGuard(test, a.test == Assumption::Test::kFails, src_, &guards_);
      auto same = [&](const Guard& h) {
        return h.line == g.line && h.code == g.code && h.negated == g.negated;
      };
      if (std::none_of(s.guards.begin(), s.guards.end(), same) &&
          std::none_of(tests.begin(), tests.end(), same)) {
        tests.push_back(std::move(g));
      }
    }
    s.message.ForgetAssumptions([](const Assumption& a) { return a.OfATest(); });
    if (tests.empty()) return;
    std::stable_sort(tests.begin(), tests.end(),
                     [](const Guard& a, const Guard& b) { return a.line < b.line; });
    s.guards.insert(s.guards.begin(), std::make_move_iterator(tests.begin()),
                    std::make_move_iterator(tests.end()));
    s.trigger = TriggerSentence(s.guards);
  }

  void EnterFunction(TSNode node) {
    Scope s;
    s.node = node;
    s.name = std::string(Text(Field(node, "name")));
    s.qualname = Qualify(s.name);
    s.sites_from = result_.sites.size();
    scopes_.push_back(std::move(s));
    Scope& scope = scopes_.back();
    const Scope* owner = ScopeAbove(scopes_.size() - 1);
    if (owner != nullptr && owner->is_class && owner->class_info >= 0) {
      ClassInfo& info = result_.classes[static_cast<size_t>(owner->class_info)];
      if (scope.name == "__init__") {
        info.has_init = true;
        info.init_params = Params(node, true);
      }
    }
  }

  void EnterClass(TSNode node) {
    Scope s;
    s.node = node;
    s.is_class = true;
    s.name = std::string(Text(Field(node, "name")));
    s.qualname = Qualify(s.name);
    ClassInfo info;
    info.name = s.name;
    info.path = result_.path;
    info.line = StartLine(node);
    TSNode supers = Field(node, "superclasses");
    if (!ts_node_is_null(supers)) {
      for (TSNode b : NamedChildren(supers)) {
        // `ParamType[int]`: the generic class is the base (click's
        // `_NumberParamTypeBase(ParamType[...])` inherits its `fail`).
        if (K(b) == kSubscript) b = Field(b, "value");
        uint16_t k = K(b);
        if (k == kIdentifier || k == kAttribute) info.bases.push_back(ShortName(Text(b)));
      }
    }
    s.class_info = static_cast<int>(result_.classes.size());
    result_.classes.push_back(std::move(info));
    scopes_.push_back(std::move(s));
  }

  const Scope* ScopeAbove(size_t index) const { return index == 0 ? nullptr : &scopes_[index - 1]; }

  std::string Qualify(const std::string& name) const {
    if (scopes_.empty()) return name;
    const Scope& parent = scopes_.back();
    return parent.qualname + (parent.is_class ? "." : ".<locals>.") + name;
  }

  // Innermost function scope, or null at module or class level.
  Scope* FunctionScope() {
    return !scopes_.empty() && !scopes_.back().is_class ? &scopes_.back() : nullptr;
  }

  std::string CurrentQualname() const {
    return scopes_.empty() ? "<module>" : scopes_.back().qualname;
  }

  EvalContext ContextAt(TSNode at) const {
    EvalContext ctx;
    ctx.at = at;
    for (const Scope& s : scopes_) {
      if (!s.is_class) ctx.functions.push_back(s.node);
    }
    return ctx;
  }

  // The class whose method we are directly in, with the method's name.
  ClassInfo* MethodClass(std::string_view method) {
    if (scopes_.size() < 2) return nullptr;
    const Scope& fn = scopes_.back();
    const Scope& owner = scopes_[scopes_.size() - 2];
    if (fn.is_class || !owner.is_class || fn.name != method || owner.class_info < 0) return nullptr;
    return &result_.classes[static_cast<size_t>(owner.class_info)];
  }

  // ------------------------------------------------------------ parameters

  std::vector<Param> Params(TSNode function, bool drop_receiver) {
    std::vector<Param> out;
    TSNode params = Field(function, "parameters");
    if (ts_node_is_null(params)) return out;
    EvalContext ctx;  // defaults are evaluated where the function is defined
    ctx.at = function;
    for (TSNode p : NamedChildren(params)) {
      Param param;
      switch (K(p)) {
        case kIdentifier:
          param.name = std::string(Text(p));
          break;
        case kDefaultParameter:
        case kTypedDefaultParameter: {
          param.name = std::string(Text(Field(p, "name")));
          TSNode value = Field(p, "value");
          if (!ts_node_is_null(value)) param.default_value = Arg(value, ctx);
          break;
        }
        case kTypedParameter: {
          for (TSNode c : NamedChildren(p)) {
            if (K(c) == kIdentifier) {
              param.name = std::string(Text(c));
              break;
            }
            if (K(c) == kListSplatPattern || K(c) == kDictionarySplatPattern) {
              param.variadic = true;
              param.name = std::string(Text(c));
              break;
            }
          }
          break;
        }
        case kListSplatPattern:
        case kDictionarySplatPattern:
          param.variadic = true;
          param.name = std::string(Text(p));
          break;
        default:
          continue;  // the bare * and / separators
      }
      if (param.name.empty()) continue;
      out.push_back(std::move(param));
    }
    // A method's receiver, whatever its name (mpmath's `def bad_domain(ctx,
    // msg)`), but a static method has none.
    if (drop_receiver && !out.empty() && !out[0].variadic && !IsStaticMethod(function)) {
      out.erase(out.begin());
    }
    return out;
  }

  bool IsStaticMethod(TSNode function) const {
    TSNode parent = Parent(function);
    if (ts_node_is_null(parent) || K(parent) != kDecoratedDefinition) return false;
    for (TSNode d : NamedChildren(parent)) {
      if (K(d) == kDecorator && CollapseWhitespace(Text(d)) == "@staticmethod") return true;
    }
    return false;
  }

  bool IsParam(TSNode function, std::string_view name) {
    TSNode params = Field(function, "parameters");
    if (ts_node_is_null(params)) return false;
    for (TSNode p : NamedChildren(params)) {
      TSNode n = p;
      uint16_t k = K(p);
      if (k == kDefaultParameter || k == kTypedDefaultParameter) n = Field(p, "name");
      if (k == kTypedParameter) n = ts_node_named_child(p, 0);
      std::string_view text = Text(n);
      while (!text.empty() && text.front() == '*') text.remove_prefix(1);
      if (text == name) return true;
    }
    return false;
  }

  // ------------------------------------------------------------ evaluation

  // The definitions of `name` that reach ctx.at, innermost scope first.
  // Returns false when the name is unknown (a builtin, an import, a global
  // assigned elsewhere): then it is a value, not a resolvable string.
  // `param_reaches`, when given, is set when `name` is a parameter that some
  // path leaves as the caller passed it.
  bool ResolveName(std::string_view name, const EvalContext& ctx, DefList& defs,
                   std::vector<EvalContext>& where, bool* param_reaches = nullptr) {
    for (size_t i = ctx.functions.size(); i-- > 0;) {
      TSNode fn = ctx.functions[i];
      TSNode body = Field(fn, "body");
      if (ts_node_is_null(body)) continue;
      bool from_entry = false;
      DefList found = Reaching(name, body, ctx.at, &from_entry);
      if (!found.empty()) {
        if (param_reaches != nullptr && from_entry && IsParam(fn, name)) *param_reaches = true;
        EvalContext inner = ctx;
        inner.functions.resize(i + 1);
        for (size_t k = 0; k < found.size(); ++k) where.push_back(inner);
        defs.insert(defs.end(), found.begin(), found.end());
        return true;
      }
      if (IsParam(fn, name)) return false;
    }
    // Module level: before the statement when we are at module level,
    // everything assigned at module level when we are in a function.
    DefList found;
    Mention(name);
    if (ctx.functions.empty()) {
      found = Reaching(name, root_, ctx.at);
    } else {
      std::string key(name);
      auto it = module_defs_.find(key);
      if (it == module_defs_.end()) {
        it = module_defs_.emplace(key, Reaching(name, root_, TSNode{})).first;
      }
      found = it->second;
    }
    if (found.empty()) return false;
    EvalContext module_ctx = ctx;
    module_ctx.functions.clear();
    for (size_t k = 0; k < found.size(); ++k) where.push_back(module_ctx);
    defs.insert(defs.end(), found.begin(), found.end());
    return true;
  }

  // ReachingDefinitions, skipped when nothing in `body` binds `name`: the
  // flow walk covers the whole scope, once per name per raise, which made a
  // module or function of thousands of raises quadratic. Within the file's
  // flow budget; past it, names are no longer followed (they stay values).
  DefList Reaching(std::string_view name, TSNode body, TSNode target,
                   bool* from_entry = nullptr) {
    if (flow_budget_ < 0 || !BoundIn(name, body)) return {};
    // The same name is looked up at the same statement again and again (a
    // raise's arguments for its site, then for each sink call around it).
    ReachingKey key{std::string(name), ts_node_start_byte(body), ts_node_end_byte(body),
                    ts_node_is_null(target) ? UINT32_MAX : ts_node_start_byte(target),
                    ts_node_is_null(target) ? UINT32_MAX : ts_node_end_byte(target)};
    if (auto memo = reaching_.find(key); memo != reaching_.end()) {
      if (from_entry != nullptr) *from_entry = memo->second.second;
      return memo->second.first;
    }
    bool entry = false;
    const flow::FlowBody& lowered =
        flow_bodies_.Get(body, [&](TSNode b) { return LowerFlow(src_, b); });
    DefList found = flow::ReachingDefinitions(lowered, name, target, &flow_budget_, &entry);
    if (flow_budget_ < 0) {
      Budget("name-resolution", target);
      return {};
    }
    if (from_entry != nullptr) *from_entry = entry;
    reaching_.emplace(std::move(key), std::make_pair(found, entry));
    return found;
  }

  // Whether some statement in `body` may bind `name`: an identifier with that
  // text in an assignment target, a for/with/except target, a def or class
  // name, or an import. Every definition ReachingDefinitions can find has one
  // (but the opaque one it gives past kMaxFlowDepth nested blocks, which only
  // adversarial code reaches).
  bool BoundIn(std::string_view name, TSNode body) {
    if (!bindings_built_) CollectBindings();
    auto it = bindings_.find(name);
    if (it == bindings_.end()) return false;
    auto lo = std::lower_bound(it->second.begin(), it->second.end(), ts_node_start_byte(body));
    return lo != it->second.end() && *lo < ts_node_end_byte(body);
  }

  // Whether some statement may bind `name` at a byte in [from, to).
  bool BoundBetween(std::string_view name, uint32_t from, uint32_t to) {
    if (!bindings_built_) CollectBindings();
    auto it = bindings_.find(name);
    if (it == bindings_.end()) return false;
    auto lo = std::lower_bound(it->second.begin(), it->second.end(), from);
    return lo != it->second.end() && *lo < to;
  }

  // One walk over the statements (never into expressions but binding targets).
  void CollectBindings() {
    bindings_built_ = true;
    struct Item {
      TSNode node;
      bool collect;  // every identifier below is a binding candidate
    };
    std::vector<Item> stack{{root_, false}};
    auto collect = [&](TSNode n) {
      if (!ts_node_is_null(n)) stack.push_back({n, true});
    };
    // Children by one cursor, not NamedChildren's vector per node: this walk
    // visits every statement of the file and its direct children.
    TSTreeCursor cursor = ts_tree_cursor_new(root_);
    auto each_named_child = [&](TSNode n, auto&& visit) {
      ts_tree_cursor_reset(&cursor, n);
      if (!ts_tree_cursor_goto_first_child(&cursor)) return;
      do {
        TSNode c = ts_tree_cursor_current_node(&cursor);
        if (ts_node_is_named(c)) visit(c);
      } while (ts_tree_cursor_goto_next_sibling(&cursor));
    };
    while (!stack.empty()) {
      Item item = stack.back();
      stack.pop_back();
      TSNode n = item.node;
      uint16_t k = K(n);
      if (item.collect) {
        if (k == kIdentifier) bindings_[Text(n)].push_back(ts_node_start_byte(n));
        each_named_child(n, [&](TSNode c) { stack.push_back({c, true}); });
        continue;
      }
      switch (k) {
        case kExpressionStatement:
          each_named_child(n, [&](TSNode e) {
            while (K(e) == kAssignment) {
              collect(Field(e, "left"));
              e = Field(e, "right");
            }
            if (K(e) == kAugmentedAssignment) collect(Field(e, "left"));
          });
          continue;
        case kImport:
        case kImportFrom:
          collect(n);
          continue;
        case kFunctionDefinition:
        case kClassDefinition:
        case kFor:
          collect(Field(n, k == kFor ? "left" : "name"));
          break;
        case kExcept:
        case kExceptGroup:
          collect(Field(n, "alias"));
          break;
        case kWithClause:
          each_named_child(n, [&](TSNode item_node) {
            TSNode value = Field(item_node, "value");
            if (K(value) == kAsPattern) collect(Field(value, "alias"));
          });
          continue;
        case kAsPattern:
          collect(Field(n, "alias"));
          continue;
        default:
          break;
      }
      each_named_child(n, [&](TSNode c) {
        if (HoldsStatements(c)) stack.push_back({c, false});
      });
    }
    ts_tree_cursor_delete(&cursor);
    for (auto& [name, offsets] : bindings_) std::sort(offsets.begin(), offsets.end());
  }

  // A per-file budget ran out at `at`: what follows in the file is extracted
  // with less (noted once per file, as a recovered file).
  void Budget(std::string_view what, TSNode at) {
    if (!budget_noted_.insert(std::string(what)).second) return;
    std::string line = ts_node_is_null(at) ? "" : " at line " + std::to_string(StartLine(at));
    result_.issues.push_back(FileIssue{
        result_.path, "work-budget",
        std::string(what) + " budget spent" + line + "; later messages resolved less", false});
  }

  // `typing.cast(str, x)` (also `t.cast`, `cast`) is `x` at run time
  // (jinja2's `t.cast(str, self.message)`): its second argument, else null.
  TSNode CastValue(std::string_view f, TSNode args) const {
    // typing's, not ctypes.cast(obj, type) or SQLAlchemy's cast(expr, type).
    bool typing = (f == "cast" && IsImported("cast")) || f == "typing.cast" || f == "t.cast" ||
                  f == "typing_extensions.cast";
    if (!typing || ts_node_is_null(args) ||
        ts_node_named_child_count(args) != 2) {
      return TSNode{};
    }
    TSNode value = ts_node_named_child(args, 1);
    return K(value) == kKeywordArgument || K(value) == kListSplat ? TSNode{} : value;
  }

  // The expression as a placeholder: str(x) is x, repr(x) is x as a repr.
  Template AsValue(TSNode node, ValueKind kind) {
    if (K(node) == kCall) {
      TSNode fn = Field(node, "function");
      TSNode args = Field(node, "arguments");
      std::string_view f = Text(fn);
      if (TSNode cast = CastValue(f, args); !ts_node_is_null(cast)) return AsValue(cast, kind);
      if ((f == "str" || f == "repr") && !ts_node_is_null(args) &&
          ts_node_named_child_count(args) == 1) {
        TSNode inner = ts_node_named_child(args, 0);
        if (K(inner) != kKeywordArgument && K(inner) != kListSplat) {
          return Template::Value(CollapseWhitespace(Text(inner)),
                                 f == "repr" ? ValueKind::kRepr : kind);
        }
      }
    }
    return Template::Value(CollapseWhitespace(Text(node)), kind);
  }

  Alternatives EvalOrValue(TSNode node, const EvalContext& ctx, int depth, ValueKind kind) {
    Alternatives alts = Eval(node, ctx, depth);
    if (alts.empty()) alts.push_back(AsValue(node, kind));
    return alts;
  }

  // The string templates `node` can evaluate to; empty when it is not a
  // string errdex can follow.
  Alternatives Eval(TSNode node, const EvalContext& ctx, int depth) {
    Alternatives out;
    if (ts_node_is_null(node) || depth > kMaxEvalDepth) return out;
    // A hard cap on the work one file may spend evaluating messages, so
    // adversarial sources cannot make extraction slow.
    if (++eval_steps_ > kMaxEvalStepsPerFile) {
      Budget("message-evaluation", ctx.at);
      return out;
    }
    switch (K(node)) {
      case kString:
        return DecodeString(node, &ctx, depth);
      case kConcatenatedString:
        out.push_back(ConcatenatedText(node));
        return out;
      case kParenthesized: {
        TSNode inner = ts_node_named_child(node, 0);
        if (ts_node_named_child_count(node) == 1) return Eval(inner, ctx, depth + 1);
        return out;
      }
      case kBinaryOperator:
        return EvalBinary(node, ctx, depth);
      case kCall:
        return EvalCall(node, ctx, depth);
      case kIdentifier:
        return EvalName(node, ctx, depth);
      case kSubscript:
        return EvalSlice(node, ctx, depth);
      case kConditional: {
        std::vector<TSNode> parts = NamedChildren(node);
        if (parts.size() != 3) return out;
        Alternatives a = Eval(parts[0], ctx, depth + 1);
        Alternatives b = Eval(parts[2], ctx, depth + 1);
        if (a.empty() && b.empty()) return out;
        if (a.empty()) a.push_back(AsValue(parts[0], ValueKind::kAny));
        if (b.empty()) b.push_back(AsValue(parts[2], ValueKind::kAny));
        AddAssuming(out, std::move(a), TestAssumptions(parts[1], true, ctx, ctx.at));
        AddAssuming(out, std::move(b), TestAssumptions(parts[1], false, ctx, ctx.at));
        return out;
      }
      default:
        return out;
    }
  }

  // `msg[:-2]`, the idiom that drops the separator a loop left after the
  // last item: the template loses its last k characters. Other subscripts are
  // not followed.
  Alternatives EvalSlice(TSNode node, const EvalContext& ctx, int depth) {
    Alternatives out;
    TSNode slice = Field(node, "subscript");
    if (ts_node_named_child_count(node) != 2) return out;
    if (K(slice) != kSlice) return EvalLookup(Field(node, "value"), slice, ctx, depth);
    std::string bounds;
    for (char c : Text(slice)) {
      if (c != ' ' && c != '\t') bounds.push_back(c);
    }
    if (bounds.size() < 3 || bounds.size() > 6 || bounds.compare(0, 2, ":-") != 0) return out;
    size_t drop = 0;
    for (size_t i = 2; i < bounds.size(); ++i) {
      if (bounds[i] < '0' || bounds[i] > '9') return out;
      drop = drop * 10 + static_cast<size_t>(bounds[i] - '0');
    }
    for (Template& t : Eval(Field(node, "value"), ctx, depth + 1)) {
      DropLastCharacters(t, drop);
      if (!t.empty()) AddAlternative(out, std::move(t));
    }
    return out;
  }

  // `MESSAGES[code]`, numpy's `__former_attrs__[attr]`: a text looked up in
  // a table by a key only the run knows. Each value of the table is an
  // alternative when every definition of the name that reaches here is a
  // dict display or comprehension, none of the file's code adds to it and
  // every value is text; a larger table stays one value, so that `f"no
  // {NAMES[k]} here"` keeps the template that fits every key.
  // A key written out (`T["a"]`, `T[0]`) picks the values written under
  // it, not each.
  Alternatives EvalLookup(TSNode container, TSNode key, const EvalContext& ctx, int depth) {
    Alternatives out;
    bool written = K(key) == kString || K(key) == kConcatenatedString || K(key) == kInteger;
    if (K(container) != kIdentifier) return out;
    std::string_view name = Text(container);
    DefList defs;
    std::vector<EvalContext> where;
    if (!ResolveName(name, ctx, defs, where) || defs.empty()) return out;
    for (const DefPtr& d : defs) {
      if (d->type != Def::Type::kValue ||
          (K(d->value) != kDictionary && K(d->value) != kDictionaryComprehension)) {
        return out;
      }
      // `{**BASE, "k": "v"}`: BASE's values are the table's too.
      if (K(d->value) == kDictionary) {
        for (TSNode entry : NamedChildren(d->value)) {
          if (K(entry) != kPair && K(entry) != kComment) return out;
        }
      }
    }
    // Read from the whole file's text, a function's body or a comment
    // among them, which the memo's surroundings do not cover: asked.
    bool changed = TableChanged(name);
    Ask(Asked::What::kTableChanged, std::string(name), changed ? 1 : 0);
    if (changed) return out;
    std::vector<std::pair<TSNode, EvalContext>> values;
    // A comprehension's one value is each key's, with the key a value.
    bool displays = std::all_of(defs.begin(), defs.end(),
                                [&](const DefPtr& d) { return K(d->value) == kDictionary; });
    if (!written || !displays) {
      values = DictValues(container, ctx, true);
    } else {
      std::string wanted = KeyText(key);
      for (size_t i = 0; i < defs.size(); ++i) {
        EvalContext at = where[i];
        at.at = defs[i]->stmt;
        TSNode last{};  // a later entry of the same key replaces an earlier one
        for (TSNode pair : NamedChildren(defs[i]->value)) {
          if (K(pair) == kPair && KeyText(Field(pair, "key")) == wanted) last = Field(pair, "value");
        }
        if (ts_node_is_null(last)) return out;
        values.emplace_back(last, at);
      }
    }
    if (values.empty() || values.size() > static_cast<size_t>(kMaxAlternatives)) return out;
    for (const auto& [value, at] : values) {
      Alternatives alts = Eval(value, at, depth + 1);
      if (alts.empty()) return {};
      for (Template& t : alts) AddAlternative(out, std::move(t));
    }
    return out;
  }

  // A written key as the table compares it: a plain string's text
  // whichever its quotes, else the key's code.
  std::string KeyText(TSNode key) const {
    std::string_view text = Text(key);
    if (K(key) == kString && text.size() >= 2 && (text[0] == '\'' || text[0] == '"') &&
        text.back() == text[0] && text.find('\\') == std::string_view::npos) {
      return "s:" + std::string(text.substr(1, text.size() - 2));
    }
    return "c:" + std::string(text);
  }

  // Whether code of the file may put entries into a table named `name`:
  // `name[k] = v` (or `+=`, `|=`), `name |= ...`, `name.update(...)`,
  // `name.setdefault(...)`. Read from the file's text, wherever it is (a
  // function of the module may register entries). A definition's walk
  // asks it as DefinitionSites::Asked: the top-level statements the memo
  // compares leave function bodies and comments out.
  bool TableChanged(std::string_view name) const {
    auto [it, added] = table_changed_.try_emplace(std::string(name), false);
    if (!added) return it->second;
    auto ident = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' ||
             static_cast<unsigned char>(c) >= 0x80;
    };
    size_t scanned = 0;
    for (size_t at = src_.find(name); at != std::string_view::npos; at = src_.find(name, at + 1)) {
      size_t end = at + name.size();
      if ((at > 0 && (ident(src_[at - 1]) || src_[at - 1] == '.')) ||
          (end < src_.size() && ident(src_[end]))) {
        continue;
      }
      size_t i = end;
      while (i < src_.size() && (src_[i] == ' ' || src_[i] == '\t')) ++i;
      std::string_view rest = src_.substr(i, 16);
      if (rest.starts_with(".update(") || rest.starts_with(".setdefault(") ||
          rest.starts_with("|=")) {
        return it->second = true;
      }
      if (rest.empty() || rest[0] != '[') continue;
      int nesting = 0;
      size_t j = i;
      for (; j < src_.size() && j - i < 4096; ++j) {
        if (src_[j] == '[') ++nesting;
        if (src_[j] == ']' && --nesting == 0) break;
      }
      // `T[T[T[...` unclosed, megabytes of it, reads 4 KiB at each: past
      // twice the file's text read, the table is taken as added to.
      scanned += j - i;
      if (scanned > 2 * src_.size() + 65536) return it->second = true;
      if (nesting != 0) continue;
      for (++j; j < src_.size() && (src_[j] == ' ' || src_[j] == '\t');) ++j;
      char a = j < src_.size() ? src_[j] : '\0';
      char b = j + 1 < src_.size() ? src_[j + 1] : '\0';
      if ((a == '=' && b != '=') || ((a == '+' || a == '|') && b == '=')) return it->second = true;
    }
    return false;
  }

  // Python slices count code points. When a value ends the template the
  // characters come off text errdex cannot see, so the template stays.
  static void DropLastCharacters(Template& t, size_t count) {
    std::vector<Piece>& pieces = t.mutable_pieces();
    while (count > 0 && !pieces.empty() && !pieces.back().is_value) {
      std::string& text = pieces.back().text;
      while (count > 0 && !text.empty()) {
        size_t cut = text.size() - 1;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
        text.resize(cut);
        --count;
      }
      if (text.empty()) pieces.pop_back();
    }
  }

  // ------------------------------------------------------- branch assumptions

  // Whether `name` read at `at` still holds what the caller passed: a
  // parameter of the innermost function that no assignment before `at`
  // replaced. Only of such a name does a binding at a call decide a test.
  bool EntryValue(std::string_view name, const EvalContext& ctx, TSNode at) {
    if (ctx.functions.empty() || ctx.bindings != nullptr || ts_node_is_null(at)) return false;
    TSNode fn = ctx.functions.back();
    if (!IsParam(fn, name)) return false;
    TSNode body = Field(fn, "body");
    if (ts_node_is_null(body) || flow_budget_ < 0) return false;
    if (!BoundIn(name, body)) return true;
    bool entry = false;
    return Reaching(name, body, at, &entry).empty() && entry && flow_budget_ >= 0;
  }

  // What `test` holding (`holds`), or failing, says of parameters read at
  // `at` with their entry value: `p`, `not p`, `p is None`, `p is not
  // None` (or `==`/`!=`), through `and` when it holds and `or` when it
  // fails. A test it cannot read says nothing.
  std::vector<Assumption> TestAssumptions(TSNode test, bool holds, const EvalContext& ctx,
                                          TSNode at) {
    std::vector<Assumption> out;
    AssumeTest(test, holds, ctx, at, 0, out);
    return out;
  }

  void AssumeTest(TSNode test, bool holds, const EvalContext& ctx, TSNode at, int depth,
                  std::vector<Assumption>& out) {
    using Test = Assumption::Test;
    if (ts_node_is_null(test) || depth > 8) return;
    if (depth == 0 && TestedOnce(test, ctx)) {
      TSNode fn = ctx.functions.back();
      uint32_t from = ts_node_start_byte(fn);
      Assumption a{"", holds ? Test::kHolds : Test::kFails, ts_node_start_byte(test) - from,
                   ts_node_end_byte(test) - from, TextHash(fn)};
      a.name = "@" + std::to_string(a.scope) + ":" + std::to_string(a.start) + "-" +
               std::to_string(a.end);
      out.push_back(std::move(a));
    }
    switch (K(test)) {
      case kParenthesized:
        if (ts_node_named_child_count(test) == 1) {
          AssumeTest(ts_node_named_child(test, 0), holds, ctx, at, depth + 1, out);
        }
        return;
      case kNotOperator:
        AssumeTest(Field(test, "argument"), !holds, ctx, at, depth + 1, out);
        return;
      case kBooleanOperator: {
        std::string_view op = Text(Field(test, "operator"));
        if ((op == "and" && holds) || (op == "or" && !holds)) {
          AssumeTest(Field(test, "left"), holds, ctx, at, depth + 1, out);
          AssumeTest(Field(test, "right"), holds, ctx, at, depth + 1, out);
        }
        return;
      }
      case kIdentifier:
        if (EntryValue(Text(test), ctx, at)) {
          out.push_back({std::string(Text(test)), holds ? Test::kTruthy : Test::kFalsy});
        }
        return;
      case kComparisonOperator: {
        if (ts_node_named_child_count(test) != 2) return;  // chained: a is b is c
        TSNode left = ts_node_named_child(test, 0);
        TSNode right = ts_node_named_child(test, 1);
        if (K(left) == kNone) std::swap(left, right);
        if (K(right) != kNone || K(left) != kIdentifier) return;
        std::string op = Operator(test, src_);
        bool is = op == "is" || op == "==";
        if (!is && op != "is not" && op != "!=") return;
        if (EntryValue(Text(left), ctx, at)) {
          out.push_back({std::string(Text(left)), is == holds ? Test::kNone : Test::kNotNone});
        }
        return;
      }
      default:
        return;
    }
  }

  // A function's text, hashed once per function: what a test's place is
  // counted from (Assumption::scope).
  uint32_t TextHash(TSNode fn) {
    auto [it, fresh] = text_hashes_.try_emplace(ts_node_start_byte(fn), 0);
    if (fresh) it->second = static_cast<uint32_t>(std::hash<std::string_view>()(Text(fn)));
    return it->second;
  }

  // Whether `test`, in the innermost function of `ctx`, runs at most once
  // per call: not in a loop, comprehension or lambda of that function,
  // where what it held on one pass says nothing of the pass that raised.
  // Only then is what it held a condition of the message it chose.
  bool TestedOnce(TSNode test, const EvalContext& ctx) const {
    if (ctx.functions.empty() || ctx.bindings != nullptr || ctx.inline_depth > 0) return false;
    TSNode fn = ctx.functions.back();
    if (!extract::Contains(fn, test)) return false;
    for (TSNode n = Parent(test); !ts_node_is_null(n) && !SameNode(n, fn); n = Parent(n)) {
      uint16_t k = K(n);
      if (k == kFor || k == kWhile || k == kLambda || k == kGeneratorExpression ||
          k == kFunctionDefinition || k == kClassDefinition ||
          NodeType(n).ends_with("comprehension")) {
        return false;
      }
    }
    return true;
  }

  // What the branches `stmt` sits in within its function say: the test of
  // each if or elif whose body holds it, and of an elif or else the tests
  // before it failing.
  std::vector<Assumption> BranchAssumptions(TSNode stmt, const EvalContext& ctx) {
    std::vector<Assumption> out;
    if (ctx.functions.empty() || ctx.bindings != nullptr) return out;
    TSNode fn = ctx.functions.back();
    TSNode child = stmt;
    for (TSNode n = Parent(stmt); !ts_node_is_null(n) && !SameNode(n, fn);
         child = n, n = Parent(n)) {
      uint16_t k = K(n);
      if (k == kFunctionDefinition || k == kClassDefinition || k == kLambda) break;
      if (k != kIf) continue;
      TSNode condition = Field(n, "condition");
      if (SameNode(child, Field(n, "consequence"))) {
        AssumeTest(condition, true, ctx, n, 0, out);
        continue;
      }
      uint16_t ck = K(child);
      if (ck != kElif && ck != kElse) continue;
      AssumeTest(condition, false, ctx, n, 0, out);
      for (TSNode clause : NamedChildren(n)) {
        if (SameNode(clause, child)) break;
        if (K(clause) == kElif) AssumeTest(Field(clause, "condition"), false, ctx, n, 0, out);
      }
      if (ck == kElif) AssumeTest(Field(child, "condition"), true, ctx, n, 0, out);
    }
    return out;
  }

  // What a definition reaching `use` past an `if` that would have replaced
  // it says: `msg = "base"`, then `if detail: msg += ...`, then the use --
  // "base" reaches it only when `detail` failed. The if must stand, as a
  // statement of its own, in the block that holds both the definition
  // (before it) and the use (after it), so that every path between them
  // runs its test; the replacing definition must be a statement of the
  // arm's body that nothing before it in that body can jump past. Of an
  // if/elif chain, the tests of the arms from the first that each replace
  // it all failed (an arm that does not replace it lets it through whatever
  // the tests after it say).
  std::vector<Assumption> Bypassed(const Def& d, const DefList& all, const EvalContext& ctx,
                                   TSNode use) {
    std::vector<Assumption> out;
    if (ts_node_is_null(use) || ts_node_is_null(d.stmt) || ctx.functions.empty() ||
        ctx.bindings != nullptr) {
      return out;
    }
    // The ifs passed, by their first byte, and the arms of each that replace it.
    std::map<uint32_t, std::pair<TSNode, std::set<uint32_t>>> replaced;
    for (const DefPtr& other : all) {
      if (other.get() == &d || ts_node_is_null(other->stmt)) continue;
      TSNode stmt = other->stmt;
      while (K(Parent(stmt)) == kExpressionStatement) stmt = Parent(stmt);
      TSNode body = Parent(stmt);
      TSNode arm = Parent(body);
      if (K(body) != kBlock || !SameNode(Field(arm, "consequence"), body)) continue;
      TSNode s = K(arm) == kIf ? arm : K(arm) == kElif ? Parent(arm) : TSNode{};
      if (K(s) != kIf) continue;
      TSNode outer = Parent(s);
      if (!extract::Contains(outer, d.stmt) || !extract::Contains(outer, use) ||
          extract::Contains(s, d.stmt) || extract::Contains(s, use) ||
          ts_node_end_byte(d.stmt) > ts_node_start_byte(s) ||
          ts_node_end_byte(s) > ts_node_start_byte(use)) {
        continue;
      }
      bool straight = true;
      for (TSNode c : NamedChildren(body)) {
        if (SameNode(c, stmt)) break;
        uint16_t k = K(c);
        straight &= k == kExpressionStatement || k == kAssignment || k == kAugmentedAssignment ||
                    k == kReturn;
      }
      if (!straight) continue;
      auto& entry = replaced[ts_node_start_byte(s)];
      entry.first = s;
      entry.second.insert(ts_node_start_byte(arm));
    }
    for (const auto& [at, entry] : replaced) {
      const auto& [s, arms] = entry;
      if (arms.count(ts_node_start_byte(s)) == 0) continue;
      AssumeTest(Field(s, "condition"), false, ctx, s, 0, out);
      for (TSNode clause : NamedChildren(s)) {
        if (K(clause) != kElif) continue;
        if (arms.count(ts_node_start_byte(clause)) == 0) break;
        AssumeTest(Field(clause, "condition"), false, ctx, s, 0, out);
      }
    }
    return out;
  }

  Alternatives EvalName(TSNode node, const EvalContext& ctx, int depth) {
    Alternatives out;
    std::string_view name = Text(node);
    if (ctx.bindings != nullptr) {
      auto it = ctx.bindings->find(name);
      if (it != ctx.bindings->end()) {
        if (it->second.value) out.push_back(*it->second.value);
        return out;
      }
    }
    // The same name at the same statement evaluates alike: memoise, which
    // also cuts cycles (an entry in progress reads as unresolved) and keeps
    // chains of `msg = msg + ...` over many branches polynomial.
    std::pair<uint32_t, std::string> key;
    bool memo = ctx.bindings == nullptr && !ts_node_is_null(ctx.at);
    if (memo) {
      // Bytes read as C strings in a C-API call evaluate apart.
      key = {ts_node_start_byte(ctx.at),
             bytes_are_c_strings_ ? std::string(name) + "\x01c" : std::string(name)};
      auto it = name_memo_.find(key);
      if (it != name_memo_.end()) {
        if (evaluating_.count(key) > 0) cycle_cut_ = true;
        Reread(it->second.names, it->second.asked);
        return it->second.out;
      }
      name_memo_[key] = {};
      evaluating_.insert(key);
    }
    bool cut_before = cycle_cut_;
    cycle_cut_ = false;
    size_t names_from = read_names_.size();
    size_t asked_from = read_asked_.size();
    DefList defs;
    std::vector<EvalContext> where;
    bool param_reaches = false;
    if (ResolveName(name, ctx, defs, where, &param_reaches)) {
      // The definitions of one look-up share their appends' bases: each
      // is evaluated once (conditional appends, `if c: msg += ...` twenty
      // times, were evaluated a million times). A look-up of another
      // name on the way has its own: its definitions die with it.
      DefMemo defs_memo;
      DefMemo* outer = def_memo_;
      def_memo_ = &defs_memo;
      for (size_t i = 0; i < defs.size(); ++i) {
        AddAssuming(out, EvalDef(*defs[i], name, where[i], depth + 1),
                    Bypassed(*defs[i], defs, where[i], ctx.at));
      }
      def_memo_ = outer;
      // `if message is None: message = "..."`: what the caller passed is the
      // other alternative.
      if (param_reaches && !out.empty()) AddAlternative(out, AsValue(node, ValueKind::kAny));
    }
    bool cut = cycle_cut_;
    cycle_cut_ = cut_before || cut;
    if (memo) {
      evaluating_.erase(key);
      // Names defined from each other in a loop at module level: where the
      // cycle is cut depends on which of them was asked first, so on which
      // function of the file asked before. Not kept, every function's walk
      // reads them alike, whatever was walked before it (as the walks kept
      // across revisions need).
      if (cut && ctx.functions.empty()) {
        name_memo_.erase(key);
      } else {
        // What the look-up read goes with it: a definition that takes it
        // from here reads it too.
        // Only a look-up at module level is found from another definition's
        // walk: one inside a function is that function's.
        NameLookUp& kept = name_memo_[key];
        kept.out = out;
        if (options_.sites_memo != nullptr && ctx.functions.empty()) {
          std::tie(kept.names, kept.asked) = ReadSince(names_from, asked_from);
        }
      }
    }
    return out;
  }

  Alternatives EvalDef(const Def& def, std::string_view name, EvalContext ctx, int depth) {
    // Bound parameters (a sink's call) make the same definition read
    // otherwise: only unbound look-ups are shared.
    if (def_memo_ == nullptr || ctx.bindings != nullptr) {
      return EvalDefUncached(def, name, std::move(ctx), depth);
    }
    DefMemo* memo = def_memo_;
    auto key = std::make_pair(&def, ctx.inline_depth);
    if (auto it = memo->find(key); it != memo->end()) return it->second;
    Alternatives out = EvalDefUncached(def, name, std::move(ctx), depth);
    memo->emplace(key, out);
    return out;
  }

  Alternatives EvalDefUncached(const Def& def, std::string_view name, EvalContext ctx, int depth) {
    Alternatives out;
    if (depth > kMaxEvalDepth) return out;
    ctx.at = def.stmt;
    switch (def.type) {
      case Def::Type::kValue: {
        Alternatives alts = Eval(def.value, ctx, depth + 1);
        if (alts.empty()) alts.push_back(AsValue(def.value, ValueKind::kAny));
        AddAssuming(out, std::move(alts), BranchAssumptions(def.stmt, ctx));
        return out;
      }
      case Def::Type::kAppend: {
        Alternatives bases;
        for (const DefPtr& b : def.base) {
          AddAssuming(bases, EvalDef(*b, name, ctx, depth + 1),
                      Bypassed(*b, def.base, ctx, def.stmt));
        }
        if (bases.empty()) bases.push_back(Template::Value(name, ValueKind::kAny));
        Alternatives tails = EvalOrValue(def.value, ctx, depth + 1, ValueKind::kStr);
        if (HoldsBytes(bases) || HoldsBytes(tails)) {
          AddAssuming(out, {Template::Value(name, ValueKind::kAny)},
                      BranchAssumptions(def.stmt, ctx));
          return out;
        }
        // Appended an unknown number of times: what follows is not known.
        std::optional<Template> tail;
        if (def.in_loop) tail = Template::Value(std::string(name) + "...", ValueKind::kAny);
        AddAssuming(out, Concat(bases, tails, tail), BranchAssumptions(def.stmt, ctx));
        return out;
      }
      case Def::Type::kCaught:
      case Def::Type::kOpaque:
        out.push_back(Template::Value(name, ValueKind::kAny));
        return out;
    }
    return out;
  }

  Alternatives EvalBinary(TSNode node, const EvalContext& ctx, int depth) {
    Alternatives out;
    TSNode op = Field(node, "operator");
    TSNode left = Field(node, "left");
    TSNode right = Field(node, "right");
    if (ts_node_is_null(op) || ts_node_is_null(left) || ts_node_is_null(right)) return out;
    std::string_view o = Text(op);
    if (o == "+") {
      Alternatives l = Eval(left, ctx, depth + 1);
      Alternatives r = Eval(right, ctx, depth + 1);
      // Only a string on one side makes `+` a concatenation: `pos + 1` of
      // two values is arithmetic, one value `{pos + 1}`, not `{pos}{1}`.
      auto text = [](const Alternatives& a) {
        return std::any_of(a.begin(), a.end(), [](const Template& t) { return !IsOpaque(t); });
      };
      if (!text(l) && !text(r)) return out;
      if (HoldsBytes(l) || HoldsBytes(r)) return {AsValue(node, ValueKind::kAny)};
      if (l.empty()) l.push_back(AsValue(left, ValueKind::kStr));
      if (r.empty()) r.push_back(AsValue(right, ValueKind::kStr));
      return Concat(l, r, std::nullopt);
    }
    if (o == "%") {
      Alternatives formats = Eval(left, ctx, depth + 1);
      if (formats.empty()) return out;
      flow::FormatArgs args;
      args.expression = CollapseWhitespace(Text(right));
      TSNode rhs = right;
      std::vector<std::vector<flow::Arg>> choices;
      if (K(rhs) == kTuple) {
        args.is_tuple = true;
        for (TSNode e : NamedChildren(rhs)) choices.push_back(ArgOptions(e, ctx, depth + 1));
      } else if (K(rhs) == kDictionary) {
        for (TSNode pair : NamedChildren(rhs)) {
          if (K(pair) != kPair) continue;
          Alternatives key = Eval(Field(pair, "key"), ctx, depth + 1);
          if (key.size() != 1 || key[0].pieces().size() != 1 || key[0].pieces()[0].is_value) {
            continue;
          }
          args.named[key[0].pieces()[0].text] = Arg(Field(pair, "value"), ctx, depth + 1);
        }
      } else {
        choices.push_back(ArgOptions(rhs, ctx, depth + 1));
      }
      for (std::vector<flow::Arg>& positional : Product(choices)) {
        args.positional = std::move(positional);
        for (const Template& f : formats)
          AddAlternative(out, flow::ApplyFormat(flow::Format::kPercent, f, args));
      }
      return out;
    }
    return out;
  }

  Alternatives EvalReflowed(TSNode text, const EvalContext& ctx, int depth) {
    Alternatives out = EvalOrValue(text, ctx, depth + 1, ValueKind::kStr);
    for (Template& t : out) {
      t = Reflowed(t);
      for (Piece& p : t.mutable_pieces()) p.reflow = p.reflow || p.is_value;
    }
    return out;
  }

  // `.strip("\n")`, `.rstrip(" \t")`: a literal argument of whitespace only.
  bool StripsOnlyWhitespace(TSNode args) const {
    if (ts_node_named_child_count(args) != 1) return false;
    TSNode a = ts_node_named_child(args, 0);
    if (K(a) != kString) return false;
    std::string_view t = Text(a);
    // The quotes and escapes of whitespace: \n \t \r and spaces.
    for (size_t i = 0; i < t.size(); ++i) {
      char c = t[i];
      if (c == '"' || c == '\'' || c == ' ') continue;
      if (c == '\\' && i + 1 < t.size() && (t[i + 1] == 'n' || t[i + 1] == 't' || t[i + 1] == 'r')) {
        ++i;
        continue;
      }
      return false;
    }
    return true;
  }

  Alternatives EvalCall(TSNode node, const EvalContext& ctx, int depth) {
    Alternatives out;
    TSNode fn = Field(node, "function");
    TSNode args = Field(node, "arguments");
    if (ts_node_is_null(fn) || ts_node_is_null(args) || K(args) != kArgumentList) return out;
    if (TSNode cast = CastValue(Text(fn), args); !ts_node_is_null(cast)) {
      return EvalOrValue(cast, ctx, depth + 1, ValueKind::kStr);
    }
    if (K(fn) == kAttribute) {
      std::string_view attr = Text(Field(fn, "attribute"));
      TSNode object = Field(fn, "object");
      if (attr == "format") {
        Alternatives formats = Eval(object, ctx, depth + 1);
        if (!formats.empty()) {
          ApplyFormatCall(formats, args, ctx, depth, out);
        } else if (K(object) == kAttribute && Text(Field(object, "object")) == "self") {
          // self.fmt.format(**kwargs): fmt is a class attribute, the
          // subclass's own; the linker formats it with the raise's keywords.
          out.push_back(Template::Value(CollapseWhitespace(Text(node)), ValueKind::kStr));
        }
        return out;
      }
      if (attr == "join" && ts_node_named_child_count(args) == 1) {
        return EvalJoin(object, ts_node_named_child(args, 0), ctx, depth);
      }
      if ((attr == "strip" || attr == "rstrip" || attr == "lstrip") &&
          (ts_node_named_child_count(args) == 0 || StripsOnlyWhitespace(args))) {
        // Trimming only removes whitespace at the ends; the template still matches.
        return Eval(object, ctx, depth + 1);
      }
      if (IsTextPreserving(Text(object), attr) && ts_node_named_child_count(args) >= 1) {
        return EvalReflowed(ts_node_named_child(args, 0), ctx, depth);
      }
      return out;
    }
    if (K(fn) != kIdentifier) return out;
    std::string_view f = Text(fn);
    // gettext wrappers (`_("...")`) return a translation of their argument;
    // the untranslated text is what errdex can know.
    if ((f == "_" || f == "gettext" || f == "N_") && ts_node_named_child_count(args) == 1) {
      return Eval(ts_node_named_child(args, 0), ctx, depth + 1);
    }
    if (f == "ngettext" && ts_node_named_child_count(args) == 3) {
      Alternatives singular = Eval(ts_node_named_child(args, 0), ctx, depth + 1);
      for (Template& t : Eval(ts_node_named_child(args, 1), ctx, depth + 1)) {
        AddAlternative(singular, std::move(t));
      }
      return singular;
    }
    if (IsTextPreserving("", f) && !IsModuleFunction(f) && ts_node_named_child_count(args) >= 1 &&
        K(ts_node_named_child(args, 0)) != kKeywordArgument) {
      return EvalReflowed(ts_node_named_child(args, 0), ctx, depth);
    }
    if ((f == "str" || f == "repr") && ts_node_named_child_count(args) == 1) {
      TSNode inner = ts_node_named_child(args, 0);
      if (f == "str") return EvalOrValue(inner, ctx, depth + 1, ValueKind::kStr);
      out.push_back(Template::Value(CollapseWhitespace(Text(inner)), ValueKind::kRepr));
      return out;
    }
    // fmt = "... {} ...".format; fmt(args): a bound str.format.
    if (Alternatives bound = EvalBoundFormat(fn, args, ctx, depth); !bound.empty()) return bound;
    // A helper of this module that returns a message: inline it, one level deep.
    std::string name(f);
    Mention(name);
    auto it = module_functions_.find(name);
    if (it == module_functions_.end() || ctx.inline_depth > 0) return out;
    Ask(Asked::What::kHelperText, name, Answer(Asked::What::kHelperText, name));
    return InlineHelper(it->second, args, ctx, depth);
  }

  // "sep".join(parts): a list literal joins its elements; a list variable
  // built with .append() joins what it starts with and the first append,
  // the rest being unknown (usually appended in a loop).
  Alternatives EvalJoin(TSNode separator, TSNode parts, const EvalContext& ctx, int depth) {
    Alternatives out;
    Alternatives sep = Eval(separator, ctx, depth + 1);
    if (sep.size() != 1) return out;
    auto join = [&](const std::vector<TSNode>& items, const EvalContext& at, bool open_tail,
                    std::string_view name) {
      Template t;
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) t.Append(sep[0]);
        Alternatives item = Eval(items[i], at, depth + 1);
        t.Append(item.empty() ? AsValue(items[i], ValueKind::kStr) : item.front());
      }
      if (open_tail) {
        if (!items.empty()) t.Append(sep[0]);
        t.AppendValue(std::string(name) + "...", ValueKind::kAny);
      }
      return t;
    };
    if (K(parts) == kList) {
      AddAlternative(out, join(NamedChildren(parts), ctx, false, ""));
      return out;
    }
    if (K(parts) != kIdentifier) return out;
    std::string_view name = Text(parts);
    DefList defs;
    std::vector<EvalContext> where;
    if (!ResolveName(name, ctx, defs, where)) return out;
    for (size_t i = 0; i < defs.size(); ++i) {
      const Def& d = *defs[i];
      if (d.type != Def::Type::kValue || K(d.value) != kList) continue;
      EvalContext at = where[i];
      at.at = d.stmt;
      std::vector<TSNode> items = NamedChildren(d.value);
      std::vector<TSNode> appended = Appends(name, d.stmt, ctx);
      bool more = appended.size() > 1;
      if (items.empty() && !appended.empty())
        items.push_back(appended.front());
      else if (!appended.empty())
        more = true;
      AddAlternative(out, join(items, at, more, name));
    }
    return out;
  }

  // The arguments of `name.append(x)` statements after `def` and before
  // ctx.at, in the innermost function, in source order.
  std::vector<TSNode> Appends(std::string_view name, TSNode def, const EvalContext& ctx) {
    std::vector<TSNode> out;
    TSNode scope = ctx.functions.empty() ? root_ : Field(ctx.functions.back(), "body");
    if (ts_node_is_null(scope)) return out;
    if (ctx.functions.empty()) Mention(name);
    uint32_t from = ts_node_end_byte(def);
    uint32_t to = ts_node_is_null(ctx.at) ? UINT32_MAX : ts_node_start_byte(ctx.at);
    std::vector<std::pair<TSNode, int>> stack = {{scope, 0}};
    while (!stack.empty() && out.size() < 4) {
      auto [n, d] = stack.back();
      stack.pop_back();
      if (ts_node_end_byte(n) <= from || ts_node_start_byte(n) >= to || d > kMaxFlowDepth) continue;
      uint16_t k = K(n);
      if (k == kFunctionDefinition || k == kClassDefinition) continue;
      if (k == kExpressionStatement) {
        TSNode call = ts_node_named_child(n, 0);
        TSNode fn = Field(call, "function");
        TSNode args = Field(call, "arguments");
        if (K(call) == kCall && K(fn) == kAttribute && Text(Field(fn, "attribute")) == "append" &&
            Text(Field(fn, "object")) == name && ts_node_named_child_count(args) == 1 &&
            ts_node_start_byte(n) >= from) {
          out.push_back(ts_node_named_child(args, 0));
        }
        continue;
      }
      std::vector<TSNode> children = NamedChildren(n);
      for (auto c = children.rbegin(); c != children.rend(); ++c) stack.push_back({*c, d + 1});
    }
    return out;
  }

  Alternatives EvalBoundFormat(TSNode name, TSNode args, const EvalContext& ctx, int depth) {
    Alternatives out;
    Alternatives formats;
    DefList defs;
    std::vector<EvalContext> where;
    if (!ResolveName(Text(name), ctx, defs, where)) return out;
    for (size_t i = 0; i < defs.size(); ++i) {
      const Def& d = *defs[i];
      if (d.type != Def::Type::kValue || K(d.value) != kAttribute ||
          Text(Field(d.value, "attribute")) != "format") {
        continue;
      }
      EvalContext at = where[i];
      at.at = d.stmt;
      for (Template& f : Eval(Field(d.value, "object"), at, depth + 1)) {
        AddAlternative(formats, std::move(f));
      }
    }
    if (!formats.empty()) ApplyFormatCall(formats, args, ctx, depth, out);
    return out;
  }

  // `fmt.format(args)` for each template `fmt` can be: the arguments are
  // evaluated once, where the call is.
  void ApplyFormatCall(const Alternatives& formats, TSNode args, const EvalContext& ctx, int depth,
                       Alternatives& out) {
    // Positional arguments first, then keywords, one slot each.
    std::vector<std::vector<flow::Arg>> choices;
    std::vector<std::string> names;
    for (TSNode a : NamedChildren(args)) {
      if (K(a) != kKeywordArgument && K(a) != kListSplat && K(a) != kDictionarySplat &&
          K(a) != kComment) {
        choices.push_back(ArgOptions(a, ctx, depth + 1));
      }
    }
    size_t n_positional = choices.size();
    for (TSNode a : NamedChildren(args)) {
      if (K(a) != kKeywordArgument) continue;
      names.emplace_back(Text(Field(a, "name")));
      choices.push_back(ArgOptions(Field(a, "value"), ctx, depth + 1));
    }
    for (std::vector<flow::Arg>& choice : Product(choices)) {
      flow::FormatArgs call;
      call.positional.assign(choice.begin(),
                             choice.begin() + static_cast<std::ptrdiff_t>(n_positional));
      for (size_t k = 0; k < names.size(); ++k) call.named[names[k]] = choice[n_positional + k];
      for (const Template& f : formats) {
        AddAlternative(out, flow::ApplyFormat(flow::Format::kStrFormat, f, call));
      }
    }
  }

  Alternatives InlineHelper(TSNode function, TSNode args, const EvalContext& ctx, int depth) {
    Alternatives out;
    std::vector<Param> params = Params(function, false);
    std::map<std::string, flow::Arg, std::less<>> bindings;
    std::vector<CallArg> call_args = CallArgs(args, ctx, depth + 1);
    BindArguments(params, call_args, bindings);
    EvalContext inner;
    inner.functions = {function};
    inner.bindings = &bindings;
    inner.inline_depth = ctx.inline_depth + 1;
    for (TSNode ret : ReturnExpressions(function)) {
      inner.at = Parent(ret);
      Alternatives alts = Eval(ret, inner, depth + 1);
      if (alts.empty()) return {};  // one opaque return makes the helper opaque
      // f-string fields naming a parameter take the argument.
      for (Template& t : alts) AddAlternative(out, Substitute(t, bindings));
    }
    return out;
  }

  // The expressions returned by `function`'s own return statements.
  std::vector<TSNode> ReturnExpressions(TSNode function) {
    std::vector<TSNode> out;
    TSNode body = Field(function, "body");
    if (ts_node_is_null(body)) return out;
    std::vector<std::pair<TSNode, int>> stack = {{body, 0}};
    while (!stack.empty() && out.size() < 16) {
      auto [n, d] = stack.back();
      stack.pop_back();
      uint16_t k = K(n);
      if (k == kFunctionDefinition || k == kClassDefinition || d > kMaxFlowDepth) continue;
      if (k == kReturn) {
        if (ts_node_named_child_count(n) > 0) out.push_back(ts_node_named_child(n, 0));
        continue;
      }
      std::vector<TSNode> children = NamedChildren(n);
      for (auto c = children.rbegin(); c != children.rend(); ++c) stack.push_back({*c, d + 1});
    }
    return out;
  }

  // Every string `node` can be (`"many" if a else "few"` is two), or the
  // expression alone when it is none errdex can follow.
  std::vector<flow::Arg> ArgOptions(TSNode node, const EvalContext& ctx, int depth) {
    std::vector<flow::Arg> out;
    std::string expression = CollapseWhitespace(Text(node));
    bool opaque = false;
    for (Template& t : Eval(node, ctx, depth + 1)) {
      if (IsOpaque(t)) {
        opaque = true;
        continue;
      }
      out.push_back(flow::Arg{expression, std::move(t)});
      if (out.size() >= static_cast<size_t>(kMaxAlternatives)) break;
    }
    // A path where it stays unknown (a parameter that `if method == 'auto':
    // method = 'J'` may leave as passed) is a value, not one of the others.
    if (out.empty() || (opaque && out.size() < static_cast<size_t>(kMaxAlternatives))) {
      out.push_back(flow::Arg{expression, std::nullopt});
    }
    return out;
  }

  // Every choice of one option per slot, at most kMaxAlternatives of them.
  static std::vector<std::vector<flow::Arg>> Product(
      const std::vector<std::vector<flow::Arg>>& slots) {
    std::vector<std::vector<flow::Arg>> combos(1);
    for (const std::vector<flow::Arg>& options : slots) {
      std::vector<std::vector<flow::Arg>> next;
      for (const auto& combo : combos) {
        for (const flow::Arg& o : options) {
          if (next.size() >= static_cast<size_t>(kMaxAlternatives)) break;
          next.push_back(combo);
          next.back().push_back(o);
        }
      }
      combos = std::move(next);
    }
    return combos;
  }

  flow::Arg Arg(TSNode node, const EvalContext& ctx, int depth = 0) {
    flow::Arg arg;
    arg.expression = CollapseWhitespace(Text(node));
    for (Template& t : Eval(node, ctx, depth + 1)) {
      if (IsOpaque(t)) continue;
      arg.value = std::move(t);
      break;
    }
    return arg;
  }

  // A call's arguments, evaluated. `literals_only`: as a helper passes them
  // on (`return self.directive_error(3, message)`), literals evaluated and
  // the rest as written, which the linker binds when it names a parameter;
  // reaching definitions for every name would cost more than the rest of
  // the file's extraction.
  std::vector<CallArg> CallArgs(TSNode args, const EvalContext& ctx, int depth,
                                bool literals_only = false) {
    std::vector<CallArg> out;
    if (ts_node_is_null(args) || K(args) != kArgumentList) return out;
    auto arg = [&](TSNode value) {
      bool literal = K(value) == kInteger || K(value) == kFloat ||
                     ((K(value) == kString || K(value) == kConcatenatedString) &&
                      Text(value).find('{') == std::string_view::npos);
      if (!literals_only || literal) return Arg(value, ctx, depth);
      return flow::Arg{CollapseWhitespace(Text(value)), std::nullopt};
    };
    for (TSNode a : NamedChildren(args)) {
      CallArg ca;
      switch (K(a)) {
        case kComment:
          continue;
        case kKeywordArgument:
          ca.keyword = std::string(Text(Field(a, "name")));
          ca.arg = arg(Field(a, "value"));
          break;
        case kListSplat:
        case kDictionarySplat:
          ca.splat = true;
          ca.arg.expression = CollapseWhitespace(Text(a));
          break;
        default:
          ca.arg = arg(a);
          if (!ca.arg.value && K(a) == kCall && !literals_only) ca.call = Pending(a, ctx, depth);
      }
      out.push_back(std::move(ca));
    }
    return out;
  }

  // A call to a lowercase helper the linker may find in another file.
  std::optional<PendingCall> Pending(TSNode call, const EvalContext& ctx, int depth) {
    TSNode fn = Field(call, "function");
    std::string_view name = LastComponent(Text(fn));
    if (name.empty() || IsCapitalized(name) || depth > 2) return std::nullopt;
    if (name == "str" || name == "repr" || name == "join" || name == "format") return std::nullopt;
    PendingCall p;
    p.callee = std::string(name);
    p.args = CallArgs(Field(call, "arguments"), ctx, depth + 1);
    return p;
  }

  // The string's template; with `ctx`, one per branch of a conditional
  // written inside an f-string (`{'many' if n > 1 else 'one'}`), whose
  // words are as literal as the rest.
  // A bytes literal's text as str() and repr() print it (`b'\\x93NUMPY'`)
  // unless `as_printed` is false (a part of an implicit concatenation).
  Alternatives DecodeString(TSNode node, const EvalContext* ctx, int depth,
                            bool as_printed = true) {
    Alternatives all(1);
    std::vector<TSNode> children = Children(node);
    if (children.empty()) return all;
    std::string_view prefix = StringPrefix(node);
    // A template string (PEP 750, parsed as the f-string it reads like) is a
    // Template object: what str() prints of it is no text of the source.
    if (prefix.find_first_of("tT") != std::string_view::npos) {
      return {AsValue(node, ValueKind::kAny)};
    }
    bool raw = prefix.find_first_of("rR") != std::string_view::npos;
    bool fstring = prefix.find_first_of("fF") != std::string_view::npos;
    bool bytes = prefix.find_first_of("bB") != std::string_view::npos;
    uint32_t pos = ts_node_end_byte(children.front());
    uint32_t end = ts_node_end_byte(node);
    if (children.size() > 1 && K(children.back()) == kStringEnd) {
      end = ts_node_start_byte(children.back());
    }
    for (size_t i = 1; i < children.size(); ++i) {
      TSNode c = children[i];
      if (K(c) != kInterpolation) continue;
      uint32_t b = ts_node_start_byte(c);
      if (b > pos) {
        for (Template& t : all)
          AppendStringSegment(src_.substr(pos, b - pos), raw, fstring, t, bytes);
      }
      Alternatives branches = ctx != nullptr ? ConditionalBranches(c, *ctx, depth) : Alternatives{};
      if (branches.empty() && ctx != nullptr) branches = ResolvedField(c, *ctx, depth);
      if (branches.empty()) {
        for (Template& t : all) AppendInterpolation(c, t);
      } else {
        all = Concat(all, branches, std::nullopt);
      }
      pos = ts_node_end_byte(c);
    }
    if (end > pos) {
      for (Template& t : all)
        AppendStringSegment(src_.substr(pos, end - pos), raw, fstring, t, bytes);
    }
    if (as_printed && bytes && !bytes_are_c_strings_) {
      return {PrintedBytes(all.front())};
    }
    return all;
  }

  // A string literal's prefix: `rb`, `f`, or nothing.
  std::string_view StringPrefix(TSNode string) const {
    TSNode start = ts_node_child(string, 0);
    if (ts_node_is_null(start)) return {};
    std::string_view text = Text(start);
    return text.substr(0, text.find_first_of("'\""));
  }

  bool IsBytesLiteral(TSNode string) const {
    return StringPrefix(string).find_first_of("bB") != std::string_view::npos;
  }

  // What Python prints of a bytes object whose decoded literal is `decoded`
  // (each character one byte; a bytes literal has no values): its repr, b'...'.
  static Template PrintedBytes(const Template& decoded) {
    std::string text;
    for (const Piece& p : decoded.pieces()) text += p.text;
    Template printed = Template::Literal(PythonBytesRepr(Latin1Bytes(text)));
    printed.set_repr_is_text(true);
    return printed;
  }

  // The strings `{a if c else b}` can print, when both branches are strings
  // errdex can follow and nothing converts them; empty otherwise.
  Alternatives ConditionalBranches(TSNode interpolation, const EvalContext& ctx, int depth) {
    TSNode expr = Field(interpolation, "expression");
    if (ts_node_is_null(expr) || K(expr) != kConditional) return {};
    if (!ts_node_is_null(Field(interpolation, "type_conversion")) ||
        !ts_node_is_null(Field(interpolation, "format_specifier"))) {
      return {};
    }
    std::vector<TSNode> parts = NamedChildren(expr);
    if (parts.size() != 3) return {};
    Alternatives out;
    for (TSNode branch : {parts[0], parts[2]}) {
      Alternatives alts = Eval(branch, ctx, depth + 1);
      if (alts.empty()) return {};
      std::vector<Assumption> assumed =
          TestAssumptions(parts[1], SameNode(branch, parts[0]), ctx, ctx.at);
      for (Template& t : alts) {
        if (IsOpaque(t)) return {};
        for (const Assumption& a : assumed) t.Assume(a);
        AddAlternative(out, std::move(t));
      }
    }
    return out;
  }

  // `{name}` where the name always holds text errdex can follow (a local
  // constant, a choice of literals): the field printed for each text it may
  // hold, as `%` and str.format print their arguments. Empty when some path
  // leaves it unknown: one value then stands for all, rather than an error
  // for each literal beside it.
  Alternatives ResolvedField(TSNode interpolation, const EvalContext& ctx, int depth) {
    TSNode expr = Field(interpolation, "expression");
    if (ts_node_is_null(expr) || K(expr) != kIdentifier) return {};
    std::vector<flow::Arg> options = ArgOptions(expr, ctx, depth + 1);
    if (!std::all_of(options.begin(), options.end(), [](const flow::Arg& a) {
          return a.value.has_value() && !a.value->IsDynamic();
        })) {
      return {};
    }
    // A name printed twice prints one text twice (`argument{s} ...
    // argument{s}`), which choosing per field would not keep.
    if (options.size() > 1) {
      std::string_view name = Text(expr);
      int uses = 0;
      for (TSNode c : NamedChildren(Parent(interpolation))) {
        TSNode e = K(c) == kInterpolation ? Field(c, "expression") : TSNode{};
        uses += !ts_node_is_null(e) && K(e) == kIdentifier && Text(e) == name;
      }
      if (uses > 1) return {};
    }
    Alternatives out;
    for (const flow::Arg& a : options) {
      Template t;
      AppendInterpolation(interpolation, t, &a);
      AddAlternative(out, std::move(t));
    }
    return out;
  }

  // `resolved`, when given, is what the field's expression holds.
  void AppendInterpolation(TSNode node, Template& t, const flow::Arg* resolved = nullptr) {
    TSNode expr = Field(node, "expression");
    TSNode conversion = Field(node, "type_conversion");
    TSNode spec = Field(node, "format_specifier");
    std::string conv(ts_node_is_null(conversion) ? "" : Text(conversion));
    std::string spec_text(ts_node_is_null(spec) ? "" : Text(spec));
    if (!spec_text.empty() && spec_text.front() == ':') spec_text.erase(0, 1);
    // {x=} prints the source text up to and including '=' (and the spaces
    // after it), then repr(x) unless a conversion or spec says otherwise.
    bool self_documenting = false;
    uint32_t literal_end = 0;
    for (TSNode c : Children(node)) {
      if (IsToken(c, "=")) {
        self_documenting = true;
        literal_end = ts_node_end_byte(c);
      }
    }
    if (self_documenting) {
      uint32_t b = ts_node_start_byte(node) + 1;
      uint32_t stop = ts_node_end_byte(node) - 1;
      if (!ts_node_is_null(conversion))
        stop = ts_node_start_byte(conversion);
      else if (!ts_node_is_null(spec))
        stop = ts_node_start_byte(spec);
      if (stop < literal_end) stop = literal_end;
      t.AppendText(src_.substr(b, stop - b));
      if (conv.empty() && spec_text.empty()) conv = "!r";
    }
    ValueKind kind = flow::KindFromFormatSpec(spec_text);
    if (conv == "!r" || conv == "!a") kind = ValueKind::kRepr;
    std::string written = conv;
    if (!spec_text.empty()) written += ":" + spec_text;
    if (K(expr) == kCall) {
      TSNode cast = CastValue(Text(Field(expr, "function")), Field(expr, "arguments"));
      if (!ts_node_is_null(cast)) expr = cast;
    }
    // A literal prints as Python prints it (`{'x'!r}`, `{3}`, `{None}`).
    flow::Arg arg = resolved != nullptr
                        ? *resolved
                        : flow::Arg{CollapseWhitespace(Text(expr)), LiteralText(expr)};
    if (arg.value || flow::IsPlainConstant(arg.expression)) {
      flow::AppendArg(flow::Printing::kPython, arg, kind, written, -1, t);
      return;
    }
    t.AppendValue(arg.expression, kind, written);
  }

  // The text of a string or bytes literal with no interpolation in it.
  std::optional<Template> LiteralText(TSNode node) {
    if (K(node) == kConcatenatedString) return ConcatenatedText(node);
    if (K(node) != kString) return std::nullopt;
    for (TSNode c : Children(node)) {
      if (K(c) == kInterpolation) return std::nullopt;
    }
    return DecodeString(node, nullptr, 0).front();
  }

  // Implicitly concatenated literals: one bytes part makes them all bytes.
  Template ConcatenatedText(TSNode node) {
    Template t;
    bool bytes = false;
    for (TSNode part : NamedChildren(node)) {
      if (K(part) != kString) continue;
      bytes = bytes || IsBytesLiteral(part);
      t.Append(DecodeString(part, nullptr, 0, /*as_printed=*/false).front());
    }
    return bytes && !bytes_are_c_strings_ ? PrintedBytes(t) : t;
  }

  // ------------------------------------------------------ site construction

  // Where the site is and its statement; no excerpt, no guards.
  // The parameters of a function definition as Site::signature's JSON, each
  // with its docstring line where the docstring has an entry for it. An
  // `__init__` falls back on its class's docstring, where numpydoc and
  // Google's guide document a constructor's parameters.
  std::string Signature(TSNode function, TSNode owner_class) const {
    std::map<std::string, std::string, std::less<>> docs;
    if (std::optional<std::string> doc = Docstring(function, src_)) docs = ParameterDocs(*doc);
    if (!ts_node_is_null(owner_class) && Text(Field(function, "name")) == "__init__") {
      if (std::optional<std::string> doc = Docstring(owner_class, src_)) {
        docs.merge(ParameterDocs(*doc));  // keeps __init__'s own entries
      }
    }
    std::string out;
    for (const SigParam& p : ReadParameters(function, src_)) {
      // Identifiers need no JSON escaping.
      out += std::string(out.empty() ? "" : ",") + "[\"" + p.name + "\",\"" + p.kind + "\"";
      if (auto d = docs.find(p.name); d != docs.end()) {
        out += "," + nlohmann::json(ToValidUtf8(d->second)).dump();
      }
      out += "]";
    }
    return "[" + out + "]";
  }

  Site LightSite(TSNode stmt, SiteKind kind) {
    Site s;
    s.kind = kind;
    s.language = "python";
    s.path = result_.path;
    s.line = StartLine(stmt);
    s.column = StartColumn(stmt);
    s.end_line = EndLine(stmt);
    s.function = CurrentQualname();
    if (!scopes_.empty() && !scopes_.back().is_class) {
      Scope& scope = scopes_.back();
      if (scope.signature.empty()) {
        const Scope* owner = ScopeAbove(scopes_.size() - 1);
        scope.signature = Signature(scope.node, owner != nullptr && owner->is_class
                                                    ? owner->node
                                                    : TSNode{});
      }
      s.signature = scope.signature;
    }
    // The source is valid UTF-8 and lines end at character boundaries; only
    // a cut needs care.
    s.statement = std::string(TruncateUtf8(Text(stmt), kMaxStatementBytes));
    return s;
  }

  Site BaseSite(TSNode stmt, SiteKind kind) {
    Site s = LightSite(stmt, kind);
    lines_.FillExcerpt(s, options_.excerpt_before, options_.excerpt_after,
                       options_.max_excerpt_bytes);
    const Scope* function = FunctionScope();
    s.guards = PythonGuards(GuardScope(function), stmt, src_, &guards_);
    s.trigger = TriggerSentence(s.guards);
    s.internal = LooksUnreachable(s.guards) || IsAbstractMethodRaise(stmt);
    s.rebound = ReboundParameters(stmt);
    return s;
  }

  // The parameters of the function around `stmt` that an assignment before
  // it may have replaced with a value not made from the caller's, or whose
  // flow the budget no longer follows: jinja2's `if log_function is None:
  // log_function = default` before an assert on it. A conversion of the
  // value itself (wsgiref's `status = self._convert_string_type(status,
  // ...)`, `fds = list(fds) + [MAXFD]`, an append) still carries what the
  // caller passed.
  std::vector<std::string> ReboundParameters(TSNode stmt) {
    std::vector<std::string> out;
    if (scopes_.empty() || scopes_.back().is_class) return out;
    TSNode fn = scopes_.back().node;
    TSNode body = Field(fn, "body");
    if (ts_node_is_null(body)) return out;
    // Outside a loop only a binding above the site can reach it: most
    // sites' parameters need no flow walk.
    bool in_loop = false;
    for (TSNode n = Parent(stmt); !ts_node_is_null(n) && !ts_node_eq(n, fn); n = Parent(n)) {
      in_loop = in_loop || K(n) == kFor || K(n) == kWhile;
    }
    for (const SigParam& p : ReadParameters(fn, src_)) {
      if (!BoundIn(p.name, body)) continue;
      if (!in_loop && !BoundBetween(p.name, ts_node_start_byte(body), ts_node_start_byte(stmt))) {
        continue;
      }
      bool entry = false;
      DefList defs = Reaching(p.name, body, stmt, &entry);
      bool replaced = flow_budget_ < 0 || (defs.empty() && !entry) ||
                      std::any_of(defs.begin(), defs.end(), [&](const flow::DefPtr& d) {
                        if (d->type == flow::Def::Type::kAppend) return false;
                        return d->type != flow::Def::Type::kValue || !ReadsName(d->value, p.name);
                      });
      if (replaced) out.push_back(p.name);
    }
    return out;
  }

  // Whether `expr` reads the variable `name` (not an attribute or a
  // keyword of that name).
  bool ReadsName(TSNode expr, std::string_view name) {
    if (ts_node_is_null(expr)) return false;
    std::vector<TSNode> stack{expr};
    while (!stack.empty()) {
      TSNode n = stack.back();
      stack.pop_back();
      if (K(n) == kIdentifier) {
        if (Text(n) != name) continue;
        TSNode parent = Parent(n);
        bool attribute = !ts_node_is_null(parent) && K(parent) == kAttribute &&
                         !ts_node_eq(Field(parent, "object"), n);
        bool keyword = !ts_node_is_null(parent) && K(parent) == kKeywordArgument &&
                       ts_node_eq(Field(parent, "name"), n);
        if (!attribute && !keyword) return true;
        continue;
      }
      for (TSNode c : NamedChildren(n)) stack.push_back(c);
    }
    return false;
  }

  // `raise NotImplementedError` as the whole body of a method (a docstring
  // aside): a base class's placeholder that every subclass must override, so
  // reaching it is a bug in the library, not in the caller. Not when its
  // words refuse the call for the caller to change (sortedcontainers'
  // `reverse`: "use ``reversed(sl)`` instead"): only a bare one, one whose
  // text is names alone, or words that ask a subclass for the method.
  bool IsAbstractMethodRaise(TSNode stmt) const {
    if (K(stmt) != kRaise) return false;
    std::string_view text = Text(stmt);
    text.remove_prefix(std::min<size_t>(text.size(), 5));
    text = Trim(text);
    if (!StartsWith(text, "NotImplementedError")) return false;
    if (!AsksASubclass(text.substr(std::string_view("NotImplementedError").size()))) return false;
    TSNode body = Parent(stmt);
    if (ts_node_is_null(body) || K(body) != kBlock) return false;
    TSNode def = Parent(body);
    if (ts_node_is_null(def) || K(def) != kFunctionDefinition) return false;
    TSNode owner = Parent(def);
    if (!ts_node_is_null(owner) && K(owner) == kDecoratedDefinition) owner = Parent(owner);
    if (ts_node_is_null(owner) || K(owner) != kBlock) return false;
    owner = Parent(owner);
    if (ts_node_is_null(owner) || K(owner) != kClassDefinition) return false;
    for (TSNode child : NamedChildren(body)) {
      if (ts_node_eq(child, stmt) || K(child) == kComment) continue;
      bool docstring = K(child) == kExpressionStatement && ts_node_named_child_count(child) == 1 &&
                       K(ts_node_named_child(child, 0)) == kString;
      if (!docstring && Text(child) != "pass") return false;
    }
    return true;
  }

  // Whether the arguments of a `raise NotImplementedError` (as written)
  // say that a subclass is to provide the method.
  static bool AsksASubclass(std::string_view args) {
    args = Trim(args);
    if (args.empty() || args == "()") return true;
    // Names alone: no text (`NotImplementedError(type(self).__name__)`), or
    // text of one word (`NotImplementedError('name')`, the method's name).
    size_t quote = args.find_first_of("'\"");
    if (quote == std::string_view::npos ||
        args.find_first_of(" \t", quote) == std::string_view::npos) {
      return true;
    }
    std::string lower = AsciiLower(args);
    static constexpr std::string_view kWords[] = {
        "subclass",         "overrid",         "abstract",      "must implement",
        "should implement", "implement this",  "implement the", "implemented by",
        "implemented in",   "be implemented",  "must provide",  "written yet",
        "haven't written",  "haven't figured", "derived class", "child class",
        "base class",       "implement me",    "todo"};
    if (std::any_of(std::begin(kWords), std::end(kWords),
                    [&](std::string_view w) { return lower.find(w) != std::string::npos; })) {
      return true;
    }
    // `NotImplementedError("Not implemented")`: words that name nothing.
    std::string words;
    for (char c : lower) {
      if (std::isalpha(static_cast<unsigned char>(c)) || c == ' ') words += c;
    }
    return Trim(words) == "not implemented" || Trim(words) == "not implemented yet";
  }

  // A parameter of the function around the walk that nothing in its body
  // assigns: everywhere in it, what the caller passed.
  bool UnassignedParameter(std::string_view name) {
    Scope* scope = FunctionScope();
    if (scope == nullptr || !IsParam(scope->node, name)) return false;
    TSNode body = Field(scope->node, "body");
    // BoundIn, not the reaching definitions, whose budget may run out.
    return !ts_node_is_null(body) && !BoundIn(name, body) && !ParamTested(body, name);
  }

  // Whether a condition anywhere in `body` (an if, elif, while or `a if c
  // else b`) names `name`: a parameter the function tests may take a
  // branch (`if isinstance(formatstr, str): b = formatstr.encode()`) that
  // a caller's argument rules out, which binding does not check.
  bool ParamTested(TSNode body, std::string_view name) {
    std::pair<uint32_t, std::string> key{ts_node_start_byte(body), std::string(name)};
    auto memo = param_tested_.find(key);
    if (memo != param_tested_.end()) return memo->second;
    bool tested = false;
    std::vector<TSNode> stack{body};
    for (size_t steps = 0; !stack.empty() && !tested; ++steps) {
      if (steps > 100000) {
        tested = true;  // too large to tell: assume it does
        break;
      }
      TSNode n = stack.back();
      stack.pop_back();
      TSNode cond{};
      if (K(n) == kIf || K(n) == kElif || K(n) == kWhile) cond = Field(n, "condition");
      if (K(n) == kConditional && ts_node_named_child_count(n) == 3)
        cond = ts_node_named_child(n, 1);
      if (!ts_node_is_null(cond)) tested = MentionsName(Text(cond), name);
      for (uint32_t i = ts_node_named_child_count(n); i-- > 0;) {
        stack.push_back(ts_node_named_child(n, i));
      }
    }
    param_tested_.emplace(std::move(key), tested);
    return tested;
  }

  static bool MentionsName(std::string_view code, std::string_view name) {
    for (size_t at = code.find(name); at != std::string_view::npos; at = code.find(name, at + 1)) {
      size_t end = at + name.size();
      if ((at == 0 || !IsIdentChar(code[at - 1])) &&
          (end == code.size() || !IsIdentChar(code[end]))) {
        return true;
      }
    }
    return false;
  }

  // Whether a condition on the way to `stmt` (an if it is in, an early exit
  // before it) tests one of `names`: then which value reaches it depends on
  // what the test decides (`path_type = optimize` ... `elif path_type ==
  // "greedy"`), which binding a caller's argument does not check.
  bool TestedOnTheWay(TSNode stmt, std::initializer_list<std::string_view> names) {
    Scope* scope = FunctionScope();
    if (scope == nullptr || ts_node_is_null(stmt)) return true;
    for (const Guard& g : PythonGuards(scope->node, stmt, src_, &guards_)) {
      for (std::string_view name : names) {
        if (MentionsName(g.code, name)) return true;
      }
    }
    return false;
  }

  // Cartesian product of the arguments' alternatives, at most kMaxAlternatives.
  std::vector<std::vector<CallArg>> ArgAlternatives(TSNode args, const EvalContext& ctx) {
    std::vector<std::vector<CallArg>> combos(1);
    if (ts_node_is_null(args) || K(args) != kArgumentList) return combos;
    for (TSNode a : NamedChildren(args)) {
      if (K(a) == kComment) continue;
      std::vector<CallArg> options;
      CallArg ca;
      TSNode value = a;
      if (K(a) == kKeywordArgument) {
        ca.keyword = std::string(Text(Field(a, "name")));
        value = Field(a, "value");
      }
      if (K(a) == kListSplat || K(a) == kDictionarySplat) {
        ca.splat = true;
        ca.arg.expression = CollapseWhitespace(Text(a));
        options.push_back(ca);
      } else {
        ca.arg.expression = CollapseWhitespace(Text(value));
        Alternatives alts = Eval(value, ctx, 0);
        bool unresolved = alts.empty();
        for (Template& t : alts) {
          // A variable holding something errdex cannot follow is the value
          // as written here (`{encoding!r}`), not what it was assigned from
          // -- unless that is a parameter the function never assigns
          // (`text = msg` when `detail is None`): the caller's argument,
          // which a sink's caller fills.
          if (IsOpaque(t) && UnassignedParameter(t.pieces()[0].text) &&
              !TestedOnTheWay(ctx.at, {ca.arg.expression, t.pieces()[0].text})) {
            CallArg o = ca;
            o.arg.expression = t.pieces()[0].text;
            o.arg.value = std::move(t);
            options.push_back(std::move(o));
            continue;
          }
          if (IsOpaque(t)) {
            unresolved = true;
            continue;
          }
          CallArg o = ca;
          o.arg.value = std::move(t);
          options.push_back(std::move(o));
        }
        if (unresolved) {
          if (K(value) == kCall) ca.call = Pending(value, ctx, 0);
          options.push_back(ca);
        }
      }
      std::vector<std::vector<CallArg>> next;
      for (const auto& combo : combos) {
        for (const CallArg& o : options) {
          if (next.size() >= static_cast<size_t>(kMaxAlternatives)) break;
          auto c = combo;
          c.push_back(o);
          next.push_back(std::move(c));
        }
      }
      combos = std::move(next);
    }
    return combos;
  }

  // Sites for the exception object `expr` raised (or returned) at `stmt`.
  // Returns false with a reason when `expr` re-raises an existing exception.
  bool RaisedValue(TSNode expr, TSNode stmt, SiteKind kind, const std::string& cause,
                   const EvalContext& ctx, int depth, std::vector<ProtoSite>& out,
                   std::string& reason) {
    if (depth > 4) {
      reason = "reraise-variable";
      return false;
    }
    switch (K(expr)) {
      case kParenthesized:
        if (ts_node_named_child_count(expr) == 1) {
          return RaisedValue(ts_node_named_child(expr, 0), stmt, kind, cause, ctx, depth + 1, out,
                             reason);
        }
        break;
      case kConditional: {
        std::vector<TSNode> parts = NamedChildren(expr);
        if (parts.size() != 3) break;
        bool a = RaisedValue(parts[0], stmt, kind, cause, ctx, depth + 1, out, reason);
        bool b = RaisedValue(parts[2], stmt, kind, cause, ctx, depth + 1, out, reason);
        return a || b;
      }
      case kCall: {
        TSNode fn = Field(expr, "function");
        // raise X(...).with_traceback(tb)
        if (K(fn) == kAttribute && Text(Field(fn, "attribute")) == "with_traceback") {
          return RaisedValue(Field(fn, "object"), stmt, kind, cause, ctx, depth + 1, out, reason);
        }
        std::string written = CollapseWhitespace(Text(fn));
        std::string short_name = ShortName(written);
        bool is_class = IsCapitalized(LastComponent(short_name)) ||
                        IsBuiltinException(short_name) || IsModuleClass(short_name);
        // `SchemaError.create_from(e)`, `ValidationError.from_exception_data(...)`:
        // a class's alternative constructor returns one of its instances,
        // its arguments are not the message.
        if (std::string owner = AlternativeConstructorClass(fn); !owner.empty()) {
          ProtoSite p;
          p.site = BaseSite(stmt, kind);
          p.site.exception_written = CollapseWhitespace(Text(Field(fn, "object")));
          p.site.exception = owner;
          p.site.cause = cause;
          p.site.message = Template::Value(CollapseWhitespace(Text(expr)), ValueKind::kStr);
          p.callee = short_name;
          p.callee_written = written;
          // The linker reads the method's `return cls(...)` when it finds it.
          std::vector<std::vector<CallArg>> alternatives =
              ArgAlternatives(Field(expr, "arguments"), ctx);
          if (!alternatives.empty()) p.args = std::move(alternatives.front());
          p.has_call = true;
          out.push_back(std::move(p));
          return true;
        }
        // `raise error_class(...)`, `raise ERRORS[code](...)`, `raise type(e)(...)`:
        // the classes the callee can hold, each raised with these arguments.
        std::vector<std::string> types;
        std::string type_param;
        std::vector<std::pair<std::string, std::string>> type_map;
        if (!is_class || K(fn) == kSubscript || K(fn) == kCall) {
          types = CalleeClasses(fn, ctx, &type_param);
          if (types.empty()) is_class = is_class && K(fn) != kSubscript && K(fn) != kCall;
          if (types.empty() && K(fn) == kIdentifier)
            MappedClassParam(fn, ctx, type_param, type_map);
        }
        if (types.empty()) types.push_back(written);
        for (const std::string& type : types) {
          bool resolved = type != written;
          std::string type_name = resolved ? ShortName(type) : short_name;
          for (std::vector<CallArg>& args : ArgAlternatives(Field(expr, "arguments"), ctx)) {
            ProtoSite p;
            p.site = BaseSite(stmt, kind);
            p.site.exception_written = written;  // what the raise names: `type(e)`
            p.site.exception = type_name;
            p.site.cause = cause;
            p.site.message = BuiltinMessage(type_name, args);
            p.callee = type_name;
            p.callee_is_class = resolved || is_class;
            p.type_param = type_param;
            p.type_map = type_map;
            p.has_call = true;
            p.args = std::move(args);
            out.push_back(std::move(p));
          }
        }
        return true;
      }
      case kIdentifier: {
        std::string_view name = Text(expr);
        bool classy = IsCapitalized(ShortName(name)) || IsBuiltinException(ShortName(name)) ||
                      IsModuleClass(std::string(name));
        DefList defs;
        std::vector<EvalContext> where;
        if (!ResolveName(name, ctx, defs, where)) {
          if (classy) return ClassRaise(expr, stmt, kind, cause, out);
          reason = "reraise-variable";
          return false;
        }
        bool any = false;
        bool class_raised = false;
        for (size_t i = 0; i < defs.size(); ++i) {
          const Def& d = *defs[i];
          if (d.type == Def::Type::kValue) {
            EvalContext at = where[i];
            at.at = d.stmt;
            std::vector<ProtoSite> found;
            if (RaisedValue(d.value, stmt, kind, cause, at, depth + 1, found, reason)) {
              for (ProtoSite& p : found) {
                // Built elsewhere, raised here: the site is the raise.
                p.site = RelocateSite(std::move(p.site), stmt, kind);
                out.push_back(std::move(p));
              }
              any = true;
            }
          } else if (d.type == Def::Type::kCaught) {
            reason = "reraise-caught";
          } else if (classy && !class_raised) {
            // A class defined or imported under this name.
            class_raised = ClassRaise(expr, stmt, kind, cause, out);
            any = true;
          } else if (!classy) {
            reason = "reraise-variable";
          }
        }
        return any;
      }
      case kAttribute: {
        std::string short_name = ShortName(Text(expr));
        if (IsCapitalized(short_name)) return ClassRaise(expr, stmt, kind, cause, out);
        if (RaiseStored(expr, stmt, kind, cause, depth, out, reason)) return true;
        reason = "reraise-variable";
        return false;
      }
      case kSubscript: {
        TSNode value = Field(expr, "value");
        if (!ts_node_is_null(value) && (K(value) == kAttribute || K(value) == kIdentifier) &&
            RaiseStored(value, stmt, kind, cause, depth, out, reason)) {
          return true;
        }
        break;
      }
      default:
        break;
    }
    reason = "reraise-variable";
    return false;
  }

  // The exception class `fn` is a method of, when it is `Class.method` with
  // a lowercase method of a class named like an exception; else "".
  std::string AlternativeConstructorClass(TSNode fn) const {
    if (K(fn) != kAttribute) return "";
    std::string_view method = Text(Field(fn, "attribute"));
    std::string owner = ShortName(CollapseWhitespace(Text(Field(fn, "object"))));
    if (method.empty() || IsCapitalized(method) || StartsWith(method, "_") ||
        method == "with_traceback") {
      return "";
    }
    return LooksLikeExceptionClass(owner) ? owner : "";
  }

  // Whether `text` names a class by the way it is written: capitalised, a
  // builtin exception, or a class this module defines.
  bool NamesClass(std::string_view text) const {
    std::string short_name = ShortName(text);
    return IsCapitalized(short_name) || IsBuiltinException(short_name) || IsModuleClass(short_name);
  }

  // The classes, as written, a callee that is not itself a class name can
  // hold where `ctx` is: a local or parameter assigned classes (`cls = A if c
  // else B`, `error_class=ValueError` as a default), a dict of classes
  // subscripted (`ERRORS[code]`, `self.mapping[code]`), the class of a
  // caught exception (`type(e)`, `e.__class__`). `type_param` is set to the
  // parameter the class comes from, if any: callers passing another class
  // make errors of their own. Empty when nothing says.
  std::vector<std::string> CalleeClasses(TSNode fn, const EvalContext& ctx,
                                         std::string* type_param) {
    std::vector<std::string> out;
    switch (K(fn)) {
      case kIdentifier:
      case kAttribute:
      case kConditional:
      case kParenthesized:
        ClassesOf(fn, ctx, 0, out, type_param);
        break;
      case kSubscript: {
        TSNode container = Field(fn, "value");
        for (const auto& [value, at] : DictValues(container, ctx)) {
          ClassesOf(value, at, 1, out, nullptr);
        }
        break;
      }
      case kCall: {
        // type(e)(...)
        TSNode args = Field(fn, "arguments");
        if (Text(Field(fn, "function")) == "type" && ts_node_named_child_count(args) == 1) {
          CaughtClasses(ts_node_named_child(args, 0), ctx, out);
        }
        break;
      }
      default:
        break;
    }
    return out;
  }

  // `error = _condition_map.get(condition, condition)`, then `raise
  // error(...)`: the class raised is the parameter `condition` as the caller
  // passed it, or what the dict maps it to. Sets `param` and `map` (class
  // names as written, of a dict literal the name is bound to once).
  void MappedClassParam(TSNode callee, const EvalContext& ctx, std::string& param,
                        std::vector<std::pair<std::string, std::string>>& map) {
    DefList defs;
    std::vector<EvalContext> where;
    if (ctx.functions.empty() || !ResolveName(Text(callee), ctx, defs, where) || defs.size() != 1 ||
        defs[0]->type != Def::Type::kValue || K(defs[0]->value) != kCall) {
      return;
    }
    TSNode call = defs[0]->value;
    TSNode get = Field(call, "function");
    std::vector<TSNode> args = NamedChildren(Field(call, "arguments"));
    if (K(get) != kAttribute || Text(Field(get, "attribute")) != "get" || args.size() != 2 ||
        K(args[0]) != kIdentifier || Text(args[0]) != Text(args[1]) ||
        !EntryValue(Text(args[0]), where[0], defs[0]->stmt)) {
      return;
    }
    TSNode dict = Field(get, "object");
    if (K(dict) == kIdentifier) {
      DefList dicts;
      std::vector<EvalContext> at;
      if (!ResolveName(Text(dict), where[0], dicts, at) || dicts.size() != 1 ||
          dicts[0]->type != Def::Type::kValue) {
        return;
      }
      dict = dicts[0]->value;
    }
    if (K(dict) != kDictionary) return;
    for (TSNode pair : NamedChildren(dict)) {
      if (K(pair) != kPair) continue;
      std::string key = CollapseWhitespace(Text(Field(pair, "key")));
      std::string value = CollapseWhitespace(Text(Field(pair, "value")));
      if (!NamesClass(LastComponent(key)) || !NamesClass(LastComponent(value))) return;
      map.emplace_back(std::move(key), std::move(value));
    }
    param = std::string(Text(args[0]));
  }

  void AddClass(std::vector<std::string>& out, std::string text) {
    if (out.size() >= static_cast<size_t>(kMaxAlternatives)) return;
    if (std::find(out.begin(), out.end(), text) == out.end()) out.push_back(std::move(text));
  }

  // The classes `node` evaluates to, as written; nothing when it is no
  // class errdex can name.
  void ClassesOf(TSNode node, const EvalContext& ctx, int depth, std::vector<std::string>& out,
                 std::string* type_param) {
    if (depth > 4 || ts_node_is_null(node)) return;
    switch (K(node)) {
      case kParenthesized:
        if (ts_node_named_child_count(node) == 1) {
          ClassesOf(ts_node_named_child(node, 0), ctx, depth + 1, out, type_param);
        }
        return;
      case kConditional: {
        std::vector<TSNode> parts = NamedChildren(node);
        if (parts.size() != 3) return;
        ClassesOf(parts[0], ctx, depth + 1, out, nullptr);
        ClassesOf(parts[2], ctx, depth + 1, out, nullptr);
        return;
      }
      case kAttribute: {
        std::string text = CollapseWhitespace(Text(node));
        if (Text(Field(node, "attribute")) == "__class__") {
          CaughtClasses(Field(node, "object"), ctx, out);
        } else if (NamesClass(LastComponent(text))) {
          AddClass(out, std::move(text));
        }
        return;
      }
      case kIdentifier:
        break;
      default:
        return;
    }
    std::string_view name = Text(node);
    if (NamesClass(name)) {
      AddClass(out, std::string(name));
      return;
    }
    DefList defs;
    std::vector<EvalContext> where;
    bool param_reaches = false;
    bool found = ResolveName(name, ctx, defs, where, &param_reaches);
    for (size_t i = 0; found && i < defs.size(); ++i) {
      if (defs[i]->type != Def::Type::kValue) continue;
      EvalContext at = where[i];
      at.at = defs[i]->stmt;
      ClassesOf(defs[i]->value, at, depth + 1, out, nullptr);
    }
    // A parameter as the caller passed it: its default, unless callers pass one.
    if (!ctx.functions.empty() && (!found || param_reaches) &&
        IsParam(ctx.functions.back(), name)) {
      TSNode value = ParamDefault(ctx.functions.back(), name);
      EvalContext at;
      at.at = ctx.functions.back();
      at.functions.assign(ctx.functions.begin(), ctx.functions.end() - 1);
      size_t before = out.size();
      if (!ts_node_is_null(value)) ClassesOf(value, at, depth + 1, out, nullptr);
      if (type_param != nullptr && out.size() > before) *type_param = std::string(name);
    }
  }

  // The default value of parameter `name` of `function`; null when none.
  TSNode ParamDefault(TSNode function, std::string_view name) {
    TSNode params = Field(function, "parameters");
    if (ts_node_is_null(params)) return TSNode{};
    for (TSNode p : NamedChildren(params)) {
      uint16_t k = K(p);
      if ((k == kDefaultParameter || k == kTypedDefaultParameter) &&
          Text(Field(p, "name")) == name) {
        return Field(p, "value");
      }
    }
    return TSNode{};
  }

  // The values of the dict literal `container` names (a module or local
  // name, or `self.x` set in the class body), each with where it is
  // evaluated; with `comprehensions`, also the value of a dict
  // comprehension a name is bound to.
  std::vector<std::pair<TSNode, EvalContext>> DictValues(TSNode container, const EvalContext& ctx,
                                                          bool comprehensions = false) {
    std::vector<std::pair<TSNode, EvalContext>> dicts;
    std::vector<std::pair<TSNode, EvalContext>> comprehended;
    if (K(container) == kDictionary) {
      dicts.emplace_back(container, ctx);
    } else if (K(container) == kIdentifier) {
      DefList defs;
      std::vector<EvalContext> where;
      if (ResolveName(Text(container), ctx, defs, where)) {
        for (size_t i = 0; i < defs.size(); ++i) {
          if (defs[i]->type != Def::Type::kValue) continue;
          EvalContext at = where[i];
          at.at = defs[i]->stmt;
          if (K(defs[i]->value) == kDictionary) {
            dicts.emplace_back(defs[i]->value, at);
          } else if (comprehensions && K(defs[i]->value) == kDictionaryComprehension &&
                     at.bindings == nullptr) {
            // `{n: msg.format(n=n) for n in names}`: one value, in which
            // the names the loop binds are values of the run.
            TSNode pair = Field(defs[i]->value, "body");
            if (K(pair) != kPair) continue;
            at.bindings = &ComprehensionNames(defs[i]->value);
            comprehended.emplace_back(Field(pair, "value"), at);
          }
        }
      }
    } else if (K(container) == kAttribute && Text(Field(container, "object")) == "self") {
      std::string_view attr = Text(Field(container, "attribute"));
      for (size_t i = scopes_.size(); i-- > 0;) {
        if (!scopes_[i].is_class) continue;
        NoteClassRead();
        TSNode body = Field(scopes_[i].node, "body");
        for (TSNode st : NamedChildren(body)) {
          TSNode a = K(st) == kExpressionStatement && ts_node_named_child_count(st) == 1
                         ? ts_node_named_child(st, 0)
                         : TSNode{};
          if (ts_node_is_null(a) || K(a) != kAssignment || Text(Field(a, "left")) != attr) continue;
          TSNode right = Field(a, "right");
          if (!ts_node_is_null(right) && K(right) == kDictionary) {
            EvalContext at;
            at.at = st;
            dicts.emplace_back(right, at);
          }
        }
        break;
      }
    }
    std::vector<std::pair<TSNode, EvalContext>> out = std::move(comprehended);
    for (const auto& [dict, at] : dicts) {
      for (TSNode pair : NamedChildren(dict)) {
        if (K(pair) == kPair) out.emplace_back(Field(pair, "value"), at);
      }
    }
    return out;
  }

  // The names a comprehension's `for` clauses bind, each standing for
  // itself: bound, they are not looked up among the module's names.
  const std::map<std::string, flow::Arg, std::less<>>& ComprehensionNames(TSNode comprehension) {
    auto [it, added] = comprehension_names_.try_emplace(ts_node_start_byte(comprehension));
    if (!added) return it->second;
    std::vector<std::string_view> names;
    for (TSNode clause : NamedChildren(comprehension)) {
      if (K(clause) == kForInClause) PatternNames(Field(clause, "left"), src_, names);
    }
    for (std::string_view n : names) {
      std::string name(n);
      it->second[name] = flow::Arg{name, Template::Value(name, ValueKind::kAny)};
    }
    return it->second;
  }

  // The classes an `except` clause binding `name` catches.
  void CaughtClasses(TSNode name, const EvalContext& ctx, std::vector<std::string>& out) {
    if (ts_node_is_null(name) || K(name) != kIdentifier) return;
    DefList defs;
    std::vector<EvalContext> where;
    if (!ResolveName(Text(name), ctx, defs, where)) return;
    for (size_t i = 0; i < defs.size(); ++i) {
      if (defs[i]->type != Def::Type::kCaught) continue;
      TSNode caught = Field(defs[i]->stmt, "value");
      if (!ts_node_is_null(caught) && K(caught) == kAsPattern) {
        caught = ts_node_named_child(caught, 0);
      }
      if (ts_node_is_null(caught)) continue;
      std::vector<TSNode> types = K(caught) == kTuple || K(caught) == kParenthesized
                                      ? NamedChildren(caught)
                                      : std::vector<TSNode>{caught};
      for (TSNode t : types) {
        if (K(t) == kIdentifier || K(t) == kAttribute) {
          std::string text = CollapseWhitespace(Text(t));
          if (NamesClass(LastComponent(text))) AddClass(out, std::move(text));
        }
      }
    }
  }

  // `raise self._error`, `raise self.errors[0]`, `raise errors[-1]`: the
  // exceptions built where the attribute is assigned or the list appended
  // to (in the class for self.x, in the function for a local), raised here.
  bool RaiseStored(TSNode target, TSNode stmt, SiteKind kind, const std::string& cause, int depth,
                   std::vector<ProtoSite>& out, std::string& reason) {
    std::string text = CollapseWhitespace(Text(target));
    TSNode scope{};
    if (K(target) == kAttribute && Text(Field(target, "object")) == "self") {
      for (size_t i = scopes_.size(); i-- > 0;) {
        if (scopes_[i].is_class) {
          scope = scopes_[i].node;
          NoteClassRead();
          break;
        }
      }
    } else if (K(target) == kIdentifier) {
      if (const Scope* f = FunctionScope()) scope = f->node;
    }
    if (ts_node_is_null(scope)) return false;
    bool any = false;
    for (TSNode call : StoredExceptions(scope, text)) {
      std::vector<ProtoSite> found;
      if (!RaisedValue(call, stmt, kind, cause, ContextOf(call), depth + 1, found, reason)) continue;
      for (ProtoSite& p : found) out.push_back(std::move(p));
      any = true;
    }
    return any;
  }

  // Exception constructors stored into `target` within `scope`: `target =
  // X(...)`, `target.append(X(...))`, `target = [X(...)]`. A bounded walk.
  std::vector<TSNode> StoredExceptions(TSNode scope, std::string_view target) {
    std::vector<TSNode> out;
    if (eval_steps_ > kMaxEvalStepsPerFile) return out;
    // Most stored exceptions are never stored where errdex can see: a text
    // search for the target rules the walk out at a fraction of its cost.
    std::string_view text = Text(scope);
    bool mentioned = false;
    for (size_t at = text.find(target); at != std::string_view::npos && !mentioned;
         at = text.find(target, at + 1)) {
      std::string_view rest = text.substr(at + target.size());
      mentioned = StartsWith(rest, " =") || StartsWith(rest, "=") || StartsWith(rest, ".append(") ||
                  StartsWith(rest, ".add(");
    }
    if (!mentioned) return out;
    auto consider = [&](TSNode value) {
      if (ts_node_is_null(value)) return;
      if (K(value) == kList) {
        for (TSNode e : NamedChildren(value)) {
          if (K(e) == kCall) out.push_back(e);
        }
        return;
      }
      if (K(value) != kCall) return;
      std::string_view callee = LastComponent(Text(Field(value, "function")));
      std::string short_name = ShortName(callee);
      if (LooksLikeExceptionClass(short_name) || IsModuleClass(short_name)) {
        out.push_back(value);
      }
    };
    TSTreeCursor c = ts_tree_cursor_new(scope);
    int64_t visited = 0;
    bool descend = true;
    while (out.size() < static_cast<size_t>(kMaxAlternatives) && ++visited < kMaxStoreScan) {
      TSNode n = ts_tree_cursor_current_node(&c);
      if (K(n) == kAssignment && CollapseWhitespace(Text(Field(n, "left"))) == target) {
        consider(Field(n, "right"));
      } else if (K(n) == kCall) {
        TSNode fn = Field(n, "function");
        if (K(fn) == kAttribute && CollapseWhitespace(Text(Field(fn, "object"))) == target) {
          std::string_view method = Text(Field(fn, "attribute"));
          TSNode args = Field(n, "arguments");
          if ((method == "append" || method == "add") && ts_node_named_child_count(args) == 1) {
            consider(ts_node_named_child(args, 0));
          }
        }
      }
      if (descend && ts_tree_cursor_goto_first_child(&c)) continue;
      descend = true;
      if (ts_tree_cursor_goto_next_sibling(&c)) continue;
      bool more = false;
      while (ts_tree_cursor_goto_parent(&c)) {
        if (ts_node_eq(ts_tree_cursor_current_node(&c), scope)) break;
        if (ts_tree_cursor_goto_next_sibling(&c)) {
          more = true;
          break;
        }
      }
      if (!more) break;
    }
    ts_tree_cursor_delete(&c);
    eval_steps_ += visited;  // shares the file's evaluation budget
    return out;
  }

  // Where `node` is evaluated: the functions around it and its statement.
  EvalContext ContextOf(TSNode node) const {
    EvalContext ctx;
    std::vector<TSNode> functions;
    TSNode stmt{};
    for (TSNode n = node; !ts_node_is_null(n); n = Parent(n)) {
      TSNode parent = Parent(n);
      if (ts_node_is_null(stmt) && !ts_node_is_null(parent) &&
          (K(parent) == kBlock || K(parent) == kModule)) {
        stmt = n;
      }
      if (K(n) == kFunctionDefinition && !ts_node_eq(n, node)) functions.push_back(n);
    }
    ctx.functions.assign(functions.rbegin(), functions.rend());
    ctx.at = ts_node_is_null(stmt) ? node : stmt;
    return ctx;
  }

  Site RelocateSite(Site s, TSNode stmt, SiteKind kind) {
    Site fresh = BaseSite(stmt, kind);
    fresh.exception = std::move(s.exception);
    fresh.exception_written = std::move(s.exception_written);
    fresh.message = std::move(s.message);
    fresh.cause = std::move(s.cause);
    return fresh;
  }

  // raise ValueError: the class itself, instantiated with no arguments.
  bool ClassRaise(TSNode expr, TSNode stmt, SiteKind kind, const std::string& cause,
                  std::vector<ProtoSite>& out) {
    ProtoSite p;
    p.site = BaseSite(stmt, kind);
    p.site.exception_written = CollapseWhitespace(Text(expr));
    p.site.exception = ShortName(p.site.exception_written);
    p.site.cause = cause;
    p.callee = p.site.exception;
    p.callee_is_class = true;
    out.push_back(std::move(p));
    return true;
  }

  void OnRaise(TSNode stmt) {
    TSNode cause_node = Field(stmt, "cause");
    TSNode expr{};
    for (TSNode c : NamedChildren(stmt)) {
      if (K(c) == kComment || SameNode(c, cause_node)) continue;
      expr = c;
      break;
    }
    std::vector<ProtoSite> sites;
    if (ts_node_is_null(expr)) {
      if (!MutatedCaught(stmt, "", sites)) {
        result_.non_sites.push_back(NonSite{result_.path, StartLine(stmt), "reraise"});
        return;
      }
    } else {
      std::string cause = ts_node_is_null(cause_node) ? "" : CollapseWhitespace(Text(cause_node));
      EvalContext ctx = ContextAt(stmt);
      std::string reason;
      if (!RaisedValue(expr, stmt, SiteKind::kRaise, cause, ctx, 0, sites, reason) &&
          !(reason == "reraise-caught" && K(expr) == kIdentifier &&
            MutatedCaught(stmt, Text(expr), sites))) {
        result_.non_sites.push_back(NonSite{result_.path, StartLine(stmt), reason});
        return;
      }
    }
    std::erase_if(sites, [&](const ProtoSite& p) { return CaughtHere(stmt, p.site.exception); });
    if (sites.empty()) {
      result_.non_sites.push_back(NonSite{result_.path, StartLine(stmt), "caught-here"});
      return;
    }
    Scope* scope = FunctionScope();
    for (ProtoSite& p : sites) {
      if (scope != nullptr && UsesParameter(p, scope->node)) {
        CurrentFunctionInfo(*scope).sink_sites.push_back(result_.sites.size());
      }
      result_.sites.push_back(std::move(p));
    }
  }

  // Whether a raise of `exception` in the body of a try of its own
  // function is caught by one of that try's handlers, which raises nothing:
  // pydantic's `raise AttributeError('__pydantic_config__ not found')` under
  // `try: ... except AttributeError: config = None` never reaches a caller.
  // Handlers are matched by name: the class itself, a bare `except:`, or
  // Exception and BaseException (not for the exits that skip Exception).
  bool CaughtHere(TSNode stmt, std::string_view exception) {
    if (exception.empty()) return false;
    std::string_view last = exception.substr(exception.rfind('.') + 1);
    bool exits = last == "SystemExit" || last == "KeyboardInterrupt" || last == "GeneratorExit";
    TSNode child = stmt;
    for (TSNode n = Parent(stmt); !ts_node_is_null(n); child = n, n = Parent(n)) {
      uint16_t k = K(n);
      if (k == kFunctionDefinition || k == kClassDefinition || k == kLambda) return false;
      if (k != kTry || !SameNode(child, Field(n, "body"))) continue;
      for (TSNode clause : NamedChildren(n)) {
        if (K(clause) != kExcept) continue;
        TSNode value = Field(clause, "value");
        if (!ts_node_is_null(value) && K(value) == kAsPattern)
          value = ts_node_named_child(value, 0);
        bool matches = ts_node_is_null(value);
        std::vector<TSNode> names;
        if (!matches)
          names = K(value) == kTuple ? NamedChildren(value) : std::vector<TSNode>{value};
        for (TSNode t : names) {
          std::string_view caught = Text(t);
          caught = caught.substr(caught.rfind('.') + 1);
          matches = matches || caught == last || caught == "BaseException" ||
                    (caught == "Exception" && !exits);
        }
        if (matches) return !HoldsRaise(clause);
      }
    }
    return false;
  }

  // Whether a raise statement stands anywhere under `node`, outside nested
  // definitions.
  bool HoldsRaise(TSNode node) const {
    std::vector<TSNode> stack = {node};
    while (!stack.empty()) {
      TSNode n = stack.back();
      stack.pop_back();
      uint16_t k = K(n);
      if (k == kRaise) return true;
      if (k == kFunctionDefinition || k == kClassDefinition || k == kLambda) continue;
      for (TSNode c : NamedChildren(n)) stack.push_back(c);
    }
    return false;
  }

  // `except OSError as e: e.strerror = f"Unable to load ({e.strerror})";
  // raise` (flask's from_pyfile), `e.args = (msg,) + e.args[1:]; raise e`:
  // the caught exception goes on with a text written here, an error of its
  // own, sited at the assignment. Only builtin classes, whose printed text
  // is known from what is assigned (a library class's __str__ may read
  // attributes its __init__ set, not args), and not Exception or
  // BaseException, which name no class the user will see. `name` is the
  // name re-raised; empty for a bare `raise`.
  bool MutatedCaught(TSNode stmt, std::string_view name, std::vector<ProtoSite>& out) {
    TSNode clause = stmt;
    while (!ts_node_is_null(clause) && K(clause) != kExcept) {
      uint16_t k = K(clause);
      if (k == kFunctionDefinition || k == kClassDefinition) return false;
      clause = Parent(clause);
    }
    if (ts_node_is_null(clause)) return false;
    TSNode alias = Field(clause, "alias");
    if (TSNode caught = Field(clause, "value"); K(caught) == kAsPattern) {
      alias = Field(caught, "alias");
    }
    if (!ts_node_is_null(alias) && K(alias) != kIdentifier) alias = ts_node_named_child(alias, 0);
    if (ts_node_is_null(alias) || K(alias) != kIdentifier) return false;
    std::string_view bound = Text(alias);
    if (!name.empty() && name != bound) return false;
    std::vector<std::string> caught;
    CaughtClasses(alias, ContextAt(stmt), caught);
    std::vector<std::string> types;
    for (std::string& type : caught) {
      if (IsBuiltinException(type) && type != "Exception" && type != "BaseException") {
        types.push_back(std::move(type));
      }
    }
    if (types.empty()) return false;
    // Assignments to the caught object before the raise, outside nested definitions.
    std::vector<TSNode> assignments;
    std::vector<TSNode> stack = {clause};
    uint32_t raise_at = ts_node_start_byte(stmt);
    while (!stack.empty()) {
      TSNode n = stack.back();
      stack.pop_back();
      if (ts_node_start_byte(n) >= raise_at) continue;
      uint16_t k = K(n);
      if (k == kFunctionDefinition || k == kClassDefinition || k == kLambda) continue;
      if (k == kAssignment) {
        TSNode left = Field(n, "left");
        if (K(left) == kAttribute && Text(Field(left, "object")) == bound) {
          std::string_view attr = Text(Field(left, "attribute"));
          if (attr == "strerror" || attr == "args") assignments.push_back(n);
        }
        continue;
      }
      for (TSNode c : NamedChildren(n)) stack.push_back(c);
    }
    size_t before = out.size();
    for (TSNode assignment : assignments) {
      TSNode right = Field(assignment, "right");
      if (ts_node_is_null(right)) continue;
      TSNode statement = Parent(assignment);
      EvalContext ctx = ContextAt(statement);
      bool strerror = Text(Field(Field(assignment, "left"), "attribute")) == "strerror";
      std::vector<std::vector<CallArg>> alternatives;
      if (strerror) {
        // str(OSError) with errno and strerror set: the filename when there is one.
        auto value = [&](std::string expression) {
          CallArg a;
          a.arg.expression = std::move(expression);
          return a;
        };
        CallArg text;
        text.arg = Arg(right, ctx);
        alternatives.push_back(
            {value(std::string(bound) + ".errno"), text, value(std::string(bound) + ".filename")});
        alternatives.push_back({value(std::string(bound) + ".errno"), text});
      } else {
        // `(msg,)` or `(msg,) + e.args[1:]`: the tuple written out.
        TSNode tuple = right;
        if (K(tuple) == kBinaryOperator) tuple = Field(tuple, "left");
        if (K(tuple) != kTuple) continue;
        std::vector<CallArg> args;
        for (TSNode e : NamedChildren(tuple)) {
          if (K(e) == kComment) continue;
          CallArg a;
          a.arg = Arg(e, ctx);
          args.push_back(std::move(a));
        }
        if (args.empty()) continue;
        alternatives.push_back(std::move(args));
      }
      for (const std::string& type : types) {
        // strerror is OSError's; args is what str() prints except where
        // the class prints attributes its constructor set from them (an
        // OSError with an errno, SyntaxError's msg, a codec's reason).
        if (strerror ? !Contains(type, kOsErrors)
                     : Contains(type, kOsErrors) || Contains(type, kAttributePrinted)) {
          continue;
        }
        // What is caught as LookupError may be a KeyError, which quotes.
        std::vector<std::string> printers = {ShortName(type)};
        if (printers[0] == "LookupError") printers.push_back("KeyError");
        for (const std::vector<CallArg>& args : alternatives) {
          for (const std::string& printer : printers) {
            ProtoSite p;
            p.site = BaseSite(statement, SiteKind::kRaise);
            p.site.exception_written = type;
            p.site.exception = ShortName(type);
            p.site.message = BuiltinMessage(printer, args);
            p.callee = p.site.exception;
            p.callee_is_class = true;
            out.push_back(std::move(p));
          }
        }
      }
    }
    return out.size() > before;
  }

  // Whether the exception raised at `p` takes its type or some text from a
  // parameter of `function`: then callers decide what the error says.
  bool UsesParameter(const ProtoSite& p, TSNode function) {
    if (!p.callee.empty() && IsParam(function, p.callee)) return true;
    if (!p.type_param.empty()) return true;
    // A parameter, or `fmt % args` with the format passed in (the linker's
    // FormatOfVariadic).
    auto names_param = [&](std::string_view e) {
      size_t op = e.find(" % ");
      return IsParam(function, e) ||
             (op != std::string_view::npos && IsParam(function, Trim(e.substr(0, op))));
    };
    for (const CallArg& a : p.args) {
      if (a.splat) continue;
      if (!a.arg.value) {
        if (names_param(a.arg.expression)) return true;
        continue;
      }
      for (const Piece& piece : a.arg.value->pieces()) {
        if (piece.is_value && names_param(piece.text)) return true;
      }
    }
    return false;
  }

  // Text written at the call: a string, a translated or formatted string.
  bool CarriesText(TSNode node) const {
    if (IsStringExpression(node)) return true;
    if (K(node) != kCall) return false;
    TSNode fn = Field(node, "function");
    if (K(fn) == kIdentifier) {
      std::string_view f = Text(fn);
      if (f != "_" && f != "gettext" && f != "ngettext" && f != "N_") return false;
      TSNode args = Field(node, "arguments");
      return ts_node_named_child_count(args) > 0 && CarriesText(ts_node_named_child(args, 0));
    }
    return K(fn) == kAttribute && Text(Field(fn, "attribute")) == "format" &&
           CarriesText(Field(fn, "object"));
  }

  // A call that passes text (or the caller's own parameter) to a function
  // that may raise with it: kept for the linker, which knows the sinks.
  void OnSinkCall(TSNode call, TSNode stmt) {
    TSNode fn = Field(call, "function");
    TSNode args = Field(call, "arguments");
    if (ts_node_is_null(args) || K(args) != kArgumentList) return;
    std::string_view name;
    std::string receiver;
    if (K(fn) == kIdentifier) {
      name = Text(fn);
    } else if (K(fn) == kAttribute) {
      name = Text(Field(fn, "attribute"));
      receiver = std::string(LastComponent(CollapseWhitespace(Text(Field(fn, "object")))));
    } else {
      return;
    }
    if (name.empty() || IsCapitalized(name) || Contains(name, kNotSinks)) return;
    Scope* scope = FunctionScope();
    bool text = false;
    bool forwards = false;
    for (TSNode a : NamedChildren(args)) {
      TSNode v = K(a) == kKeywordArgument ? Field(a, "value") : a;
      if (ts_node_is_null(v)) continue;
      if (CarriesText(v)) text = true;
      // A class passed to a helper that raises the class it is given.
      if ((K(v) == kIdentifier || K(v) == kAttribute) &&
          LooksLikeExceptionClass(LastComponent(Text(v)))) {
        text = true;
      }
      if (K(v) != kIdentifier) continue;
      if (scope != nullptr && IsParam(scope->node, Text(v))) {
        forwards = true;
      } else if (Contains(Text(v), kMessageNames)) {
        text = true;  // msg = "..." above, passed on here
      }
    }
    if (!text && !forwards) return;
    SinkCall c;
    c.site = LightSite(stmt, SiteKind::kRaise);
    c.site.guards = PythonGuards(GuardScope(scope), stmt, src_, &guards_);
    c.site.trigger = TriggerSentence(c.site.guards);
    c.site.internal = LooksUnreachable(c.site.guards);
    c.callee = std::string(name);
    c.receiver = std::move(receiver);
    if (scope != nullptr) {
      const Scope* owner = ScopeAbove(static_cast<size_t>(scope - scopes_.data()));
      if (owner != nullptr && owner->is_class) c.owner = owner->name;
      // Any caller may be a sink in turn, when its own parameter is in the
      // text it passes (`self.fail("error: " + msg)`).
      CurrentFunctionInfo(*scope);
      c.function = scope->function_info;
    }
    c.arg_alternatives = ArgAlternatives(args, ContextAt(stmt));
    result_.calls.push_back(std::move(c));
  }

  void OnAssert(TSNode stmt) {
    std::vector<TSNode> parts;
    for (TSNode c : NamedChildren(stmt)) {
      if (K(c) != kComment) parts.push_back(c);
    }
    EvalContext ctx = ContextAt(stmt);
    Alternatives messages;
    if (parts.size() >= 2) {
      // `assert c, AssertionError(f"...")`: the message is an exception, whose
      // str() a builtin class prints from its arguments.
      TSNode call = parts[1];
      std::string callee = K(call) == kCall ? std::string(Text(Field(call, "function"))) : "";
      if (IsBuiltinException(callee)) {
        for (const std::vector<CallArg>& args : ArgAlternatives(Field(call, "arguments"), ctx)) {
          AddAlternative(messages, BuiltinMessage(callee, args));
        }
      } else {
        messages = Eval(parts[1], ctx, 0);
      }
      if (messages.empty()) messages.push_back(AsValue(parts[1], ValueKind::kAny));
    } else {
      messages.emplace_back();
    }
    for (Template& m : messages) {
      ProtoSite p;
      p.site = BaseSite(stmt, SiteKind::kAssert);
      p.site.exception = "AssertionError";
      p.site.exception_written = "assert";
      p.site.message = std::move(m);
      p.site.internal = true;
      if (!parts.empty()) {
        AddAssertGuard(p.site, CollapseWhitespace(Text(parts[0])), Negative(parts[0], src_).text);
      }
      result_.sites.push_back(std::move(p));
    }
  }

  bool IsWarnCall(TSNode fn) const {
    if (K(fn) == kAttribute) {
      std::string_view attr = Text(Field(fn, "attribute"));
      TSNode object = Field(fn, "object");
      return (attr == "warn" || attr == "warn_explicit") && K(object) == kIdentifier &&
             (Text(object) == "warnings" || IsWarningsModule(Text(object)));
    }
    return K(fn) == kIdentifier && IsWarnFunction(Text(fn));
  }

  void OnCall(TSNode call) {
    TSNode fn = Field(call, "function");
    if (IsWarnCall(fn)) {
      OnWarn(call);
      return;
    }
    if (options_.cython && K(fn) == kIdentifier) {
      if (std::optional<cpp::CApiCall> capi = cpp::PythonCApiCall(Text(fn))) {
        OnCApiCall(call, *capi);
        return;
      }
    }
    // super().__init__(...) / Base.__init__(self, ...) inside an exception's __init__.
    if (K(fn) != kAttribute || Text(Field(fn, "attribute")) != "__init__") {
      OnSinkCall(call, Parent(call));
      return;
    }
    ClassInfo* cls = MethodClass("__init__");
    if (cls == nullptr || cls->super_args) return;
    TSNode object = Field(fn, "object");
    bool via_super = K(object) == kCall && Text(Field(object, "function")) == "super";
    EvalContext ctx = ContextAt(call);
    std::vector<std::vector<CallArg>> alternatives = ArgAlternatives(Field(call, "arguments"), ctx);
    if (!via_super) {
      for (std::vector<CallArg>& args : alternatives) {
        if (args.empty() || args[0].arg.expression != "self") return;
        args.erase(args.begin());
      }
      cls->super_target = ShortName(Text(object));
    }
    cls->super_args = std::move(alternatives);
  }

  void OnAssignment(TSNode node) {
    if (!scopes_.empty() && scopes_.back().is_class && scopes_.back().class_info >= 0) {
      // code = 404 / description = "..." in a class body: what self.code
      // reads unless __init__ sets it.
      TSNode left = Field(node, "left");
      TSNode right = Field(node, "right");
      if (K(left) != kIdentifier || ts_node_is_null(right)) return;
      ClassInfo& info = result_.classes[static_cast<size_t>(scopes_.back().class_info)];
      info.class_attrs.emplace_back(std::string(Text(left)),
                                    Arg(right, ContextAt(Parent(node))));
      return;
    }
    ClassInfo* cls = MethodClass("__init__");
    if (cls == nullptr) return;
    TSNode left = Field(node, "left");
    TSNode right = Field(node, "right");
    if (K(left) != kAttribute || ts_node_is_null(right)) return;
    if (Text(Field(left, "object")) != "self") return;
    EvalContext ctx = ContextAt(Parent(node));
    std::string attr(Text(Field(left, "attribute")));
    TSNode block = Parent(Parent(node));
    TSNode owner = ts_node_is_null(block) ? TSNode{} : Parent(block);
    if (ts_node_is_null(owner) || K(owner) != kFunctionDefinition) cls->conditional_attrs.insert(attr);
    cls->self_attrs.emplace_back(std::move(attr), Arg(right, ctx));
  }

  // `PyErr_Format(PyExc_ValueError, b"bad %d", n)` in Cython: the C
  // front end's reading of the same call, the format in C's dialect.
  void OnCApiCall(TSNode call, const cpp::CApiCall& capi) {
    std::vector<TSNode> args;
    for (TSNode a : NamedChildren(Field(call, "arguments"))) {
      if (K(a) != kComment && K(a) != kKeywordArgument) args.push_back(a);
    }
    std::string exception = capi.exception;
    std::string written = exception;
    if (exception.empty()) {
      if (args.empty()) return;
      written = CollapseWhitespace(Text(args[0]));
      exception = cpp::PythonTypeOf(written);
    }
    EvalContext ctx = ContextAt(call);
    // Cython passes a bytes literal to C as a char *: its bytes are the text.
    bool saved = bytes_are_c_strings_;
    bytes_are_c_strings_ = true;
    Alternatives messages;
    if (capi.message_at < 0) {
      messages.emplace_back();
    } else if (static_cast<size_t>(capi.message_at) < args.size()) {
      messages = EvalOrValue(args[static_cast<size_t>(capi.message_at)], ctx, 0, ValueKind::kAny);
    } else {
      bytes_are_c_strings_ = saved;
      return;
    }
    if (capi.printf) {
      flow::FormatArgs values;
      for (size_t i = static_cast<size_t>(capi.message_at) + 1; i < args.size(); ++i) {
        flow::Arg a{CollapseWhitespace(Text(args[i])), std::nullopt};
        Alternatives v = Eval(args[i], ctx, 0);
        if (v.size() == 1) a.value = std::move(v.front());
        values.positional.push_back(std::move(a));
      }
      for (Template& m : messages) m = flow::ApplyFormat(flow::Format::kPyPrintf, m, values);
    }
    bytes_are_c_strings_ = saved;
    for (Template& m : messages) {
      ProtoSite p;
      p.site = BaseSite(call, capi.kind);
      p.site.exception = exception;
      p.site.exception_written = written;
      p.site.internal = p.site.internal || capi.internal;
      p.site.message = std::move(m);
      p.site.message.AssignNames();
      result_.sites.push_back(std::move(p));
    }
  }

  void OnWarn(TSNode call) {
    EvalContext ctx = ContextAt(call);
    TSNode args = Field(call, "arguments");
    TSNode message{};
    TSNode category{};
    int positional = 0;
    for (TSNode a : NamedChildren(args)) {
      if (K(a) == kComment) continue;
      if (K(a) == kKeywordArgument) {
        std::string_view key = Text(Field(a, "name"));
        if (key == "message") message = Field(a, "value");
        if (key == "category") category = Field(a, "value");
        continue;
      }
      if (positional == 0) message = a;
      if (positional == 1) category = a;
      ++positional;
    }
    if (ts_node_is_null(message)) return;
    TSNode stmt = call;
    // warnings.warn(DeprecationWarning("...")): the instance is the message.
    if (K(message) == kCall) {
      std::string_view callee = LastComponent(Text(Field(message, "function")));
      if (LooksLikeExceptionClass(ShortName(callee))) {
        std::vector<ProtoSite> sites;
        std::string reason;
        RaisedValue(message, stmt, SiteKind::kWarning, "", ctx, 0, sites, reason);
        for (ProtoSite& p : sites) {
          p.site = RelocateSite(std::move(p.site), stmt, SiteKind::kWarning);
          result_.sites.push_back(std::move(p));
        }
        return;
      }
    }
    std::string written =
        ts_node_is_null(category) ? "UserWarning" : CollapseWhitespace(Text(category));
    for (Template& m : EvalOrValue(message, ctx, 0, ValueKind::kAny)) {
      ProtoSite p;
      p.site = BaseSite(stmt, SiteKind::kWarning);
      p.site.exception_written = written;
      p.site.exception = ShortName(written);
      p.site.message = std::move(m);
      result_.sites.push_back(std::move(p));
    }
  }

  FunctionInfo& CurrentFunctionInfo(Scope& scope) {
    if (scope.function_info < 0) {
      FunctionInfo info;
      info.name = scope.name;
      info.qualified = scope.qualname;
      info.path = result_.path;
      const Scope* owner = ScopeAbove(static_cast<size_t>(&scope - scopes_.data()));
      info.params = Params(scope.node, owner != nullptr && owner->is_class);
      scope.function_info = static_cast<int>(result_.functions.size());
      result_.functions.push_back(std::move(info));
    }
    return result_.functions[static_cast<size_t>(scope.function_info)];
  }

  bool IsStringExpression(TSNode node) const {
    switch (K(node)) {
      case kString:
      case kConcatenatedString:
        return true;
      case kParenthesized:
        return ts_node_named_child_count(node) == 1 &&
               IsStringExpression(ts_node_named_child(node, 0));
      case kBinaryOperator:
        return IsStringExpression(Field(node, "left"));
      case kCall: {
        TSNode fn = Field(node, "function");
        return K(fn) == kAttribute && Text(Field(fn, "attribute")) == "format" &&
               IsStringExpression(Field(fn, "object"));
      }
      default:
        return false;
    }
  }

  void OnReturn(TSNode stmt) {
    Scope* scope = FunctionScope();
    if (scope == nullptr || ts_node_named_child_count(stmt) == 0) return;
    TSNode value = ts_node_named_child(stmt, 0);
    EvalContext ctx = ContextAt(stmt);
    if (ClassInfo* cls = MethodClass("__str__")) {
      if (!cls->str_joined) cls->str_joined = JoinedParts(scope->node, value, ctx);
      Alternatives alts = EvalOrValue(value, ctx, 0, ValueKind::kAny);
      for (Template& t : alts) {
        if (cls->str_templates.size() >= static_cast<size_t>(kMaxAlternatives)) break;
        cls->str_templates.push_back(std::move(t));
      }
      return;
    }
    // `return cls(...)` in a method (an alternative constructor,
    // `@classmethod def from_x(cls, ...)`): the class itself, if the linker
    // finds it to be an exception class.
    if (K(value) == kCall && Text(Field(value, "function")) == "cls") {
      const Scope* owner = scopes_.size() >= 2 ? &scopes_[scopes_.size() - 2] : nullptr;
      if (owner == nullptr || !owner->is_class) return;
      std::vector<ProtoSite> sites;
      std::string reason;
      RaisedValue(value, stmt, SiteKind::kReturn, "", ctx, 0, sites, reason);
      AddReturned(*scope, sites, [&](ProtoSite& p) {
        p.callee = owner->name;
        p.callee_is_class = true;
        p.site.exception = owner->name;
        p.site.exception_written = "cls";
        p.tentative = true;
        return true;
      });
      return;
    }
    // `return exc` where exc holds an exception built in this function
    // (`if not exc: exc = ParsingError(...)`; `exc.append(...)`; `return exc`).
    if (K(value) == kIdentifier) {
      std::vector<ProtoSite> sites;
      std::string reason;
      RaisedValue(value, stmt, SiteKind::kReturn, "", ctx, 0, sites, reason);
      AddReturned(*scope, sites, [&](ProtoSite& p) {
        if (!p.callee_is_class) return false;
        p.tentative = !LooksLikeExceptionClass(p.callee) && !IsLocalExceptionClass(p.callee);
        return true;
      });
      return;
    }
    if (K(value) == kCall) {
      std::string_view callee = LastComponent(Text(Field(value, "function")));
      std::string short_name = ShortName(callee);
      bool tentative = false;
      if (!LooksLikeExceptionClass(short_name) && !IsLocalExceptionClass(short_name)) {
        OnSinkCall(value, stmt);
        TSNode fn = Field(value, "function");
        // `return error(msg, pos)` with `error` imported, or a class named
        // like one (`return errors.InvalidVersion(...)`, docker's factories):
        // maybe an exception class, which only the linker can tell.
        bool maybe_class = !IsModuleFunction(short_name) &&
                           (IsCapitalized(short_name) ||
                            (K(fn) == kIdentifier && (IsImported(short_name) || star_import_)));
        // `return self.directive_error(3, message)` (docutils' Directive.error),
        // `return _make(...)` with `_make` of this module: a function that
        // may return an exception in turn, which the linker follows.
        std::string_view object = K(fn) == kAttribute ? Text(Field(fn, "object")) : "";
        bool chained = (K(fn) == kIdentifier && IsModuleFunction(short_name)) || object == "self" ||
                       object == "cls";
        if (!maybe_class && !chained) return;
        if (!maybe_class) {
          // Read by the linker only for what it calls and with what: no
          // excerpt or guards, which cost more than the whole call.
          std::string written = CollapseWhitespace(Text(fn));
          ProtoSite p;
          p.site = LightSite(stmt, SiteKind::kReturn);
          p.site.exception_written = written;
          p.site.exception = short_name;
          p.callee = short_name;
          p.has_call = true;
          p.tentative = true;
          p.chained = true;
          p.args = CallArgs(Field(value, "arguments"), ctx, 0, /*literals_only=*/true);
          FunctionInfo& info = CurrentFunctionInfo(*scope);
          info.returned_sites.push_back(result_.sites.size());
          p.site.via = info.qualified;
          result_.sites.push_back(std::move(p));
          return;
        }
        tentative = true;
      }
      std::vector<ProtoSite> sites;
      std::string reason;
      RaisedValue(value, stmt, SiteKind::kReturn, "", ctx, 0, sites, reason);
      FunctionInfo& info = CurrentFunctionInfo(*scope);
      for (ProtoSite& p : sites) {
        info.returned_sites.push_back(result_.sites.size());
        p.tentative = tentative;
        p.site.via = info.qualified;
        result_.sites.push_back(std::move(p));
      }
      return;
    }
    if (IsStringExpression(value)) {
      Alternatives alts = Eval(value, ctx, 0);
      if (alts.empty()) return;
      FunctionInfo& info = CurrentFunctionInfo(*scope);
      for (Template& t : alts) info.returned_messages.push_back(std::move(t));
      return;
    }
    // `return self.args[0] if self.args else None` (jinja2's
    // TemplateError.message property): the argument the exception was
    // built with, which the linker binds at each raise.
    TSNode taken = value;
    if (K(taken) == kConditional && ts_node_named_child_count(taken) == 3 &&
        K(ts_node_named_child(taken, 2)) == kNone) {
      taken = ts_node_named_child(taken, 0);
    }
    std::string written = CollapseWhitespace(Text(taken));
    bool in_method = scopes_.size() >= 2 && !scopes_.back().is_class &&
                     scopes_[scopes_.size() - 2].is_class;
    if (in_method && K(taken) == kSubscript && StartsWith(written, "self.args[") &&
        EndsWith(written, "]") && CountReturns(scope->node) == 1) {
      CurrentFunctionInfo(*scope).returned_messages.push_back(
          Template::Value(written, ValueKind::kStr));
    }
  }

  // The return statements of `function`, not of the functions it defines;
  // stops counting past 2. The linker substitutes a property's one returned
  // value for it, which is wrong when another return gives something else.
  int CountReturns(TSNode function) const {
    int n = 0;
    std::vector<TSNode> stack = {Field(function, "body")};
    while (!stack.empty() && n < 2) {
      TSNode node = stack.back();
      stack.pop_back();
      if (ts_node_is_null(node)) continue;
      uint16_t k = K(node);
      if (k == kReturn) {
        ++n;
        continue;
      }
      if (k == kFunctionDefinition || k == kClassDefinition || k == kDecoratedDefinition) continue;
      for (TSNode c : NamedChildren(node)) stack.push_back(c);
    }
    return n;
  }

  // `return sep.join(lines)` closing a body that is only `lines = [...]` and
  // appends, each plain or alone under `if self.x is not None` (also `if
  // self.x`, or such a test `and` more): the separator and the parts, each
  // with the attribute whose None leaves it out. nullopt for any other shape.
  std::optional<std::pair<Template, std::vector<ClassInfo::JoinedPart>>> JoinedParts(
      TSNode function, TSNode value, const EvalContext& ctx) {
    if (K(value) != kCall) return std::nullopt;
    TSNode fn = Field(value, "function");
    TSNode args = Field(value, "arguments");
    if (K(fn) != kAttribute || Text(Field(fn, "attribute")) != "join" ||
        ts_node_named_child_count(args) != 1 || K(ts_node_named_child(args, 0)) != kIdentifier) {
      return std::nullopt;
    }
    std::string_view list = Text(ts_node_named_child(args, 0));
    Alternatives sep = Eval(Field(fn, "object"), ctx, 0);
    TSNode body = Field(function, "body");
    if (sep.size() != 1 || ts_node_is_null(body)) return std::nullopt;
    struct Test {
      std::string attr;
      bool truthy = false;
      bool more = false;
    };
    std::vector<ClassInfo::JoinedPart> parts;
    auto part = [&](TSNode item, Test test) {
      // str(self.mark) prints the object: a value, as the item itself.
      Alternatives alts = Eval(item, ctx, 0);
      Template t = alts.size() == 1 && !IsOpaque(alts.front()) ? alts.front()
                                                                 : AsValue(item, ValueKind::kStr);
      parts.push_back({std::move(t), std::move(test.attr), test.truthy, test.more});
    };
    // `lines.append(x)` as a statement: x, else null.
    auto appended = [&](TSNode stmt) -> TSNode {
      if (K(stmt) != kExpressionStatement || ts_node_named_child_count(stmt) != 1) return TSNode{};
      TSNode call = ts_node_named_child(stmt, 0);
      if (K(call) != kCall) return TSNode{};
      TSNode f = Field(call, "function");
      TSNode a = Field(call, "arguments");
      if (K(f) != kAttribute || Text(Field(f, "object")) != list ||
          Text(Field(f, "attribute")) != "append" || ts_node_named_child_count(a) != 1) {
        return TSNode{};
      }
      return ts_node_named_child(a, 0);
    };
    // The attribute a test requires not to be None: `self.x is not None`,
    // `self.x` (truthy), either as the first operand of an `and` (`more`).
    auto tested = [&](TSNode test) -> Test {
      Test out;
      while (K(test) == kBooleanOperator && Text(Field(test, "operator")) == "and") {
        test = Field(test, "left");
        out.more = true;
      }
      std::string text = CollapseWhitespace(Text(test));
      if (K(test) == kAttribute && StartsWith(text, "self.")) {
        out.attr = text;
        out.truthy = true;
        return out;
      }
      const std::string suffix = " is not None";
      if (K(test) == kComparisonOperator && EndsWith(text, suffix)) {
        std::string attr = text.substr(0, text.size() - suffix.size());
        if (StartsWith(attr, "self.") && attr.find_first_of(" ()[]") == std::string::npos) {
          out.attr = attr;
        }
      }
      return out;
    };
    bool started = false;
    for (TSNode stmt : NamedChildren(body)) {
      uint16_t k = K(stmt);
      if (k == kComment) continue;
      if (k == kExpressionStatement && !started && K(ts_node_named_child(stmt, 0)) == kString) {
        continue;  // the docstring
      }
      if (k == kReturn) return started && !parts.empty() ? std::make_optional(std::make_pair(sep[0], parts))
                                                        : std::nullopt;
      if (k == kExpressionStatement && K(ts_node_named_child(stmt, 0)) == kAssignment && !started) {
        TSNode assign = ts_node_named_child(stmt, 0);
        TSNode right = Field(assign, "right");
        if (Text(Field(assign, "left")) != list || K(right) != kList) return std::nullopt;
        for (TSNode item : NamedChildren(right)) part(item, Test{});
        started = true;
        continue;
      }
      if (!started) return std::nullopt;
      if (TSNode item = appended(stmt); !ts_node_is_null(item)) {
        part(item, Test{});
        continue;
      }
      if (k != kIf || !ts_node_is_null(Field(stmt, "alternative"))) return std::nullopt;
      Test test = tested(Field(stmt, "condition"));
      TSNode block = Field(stmt, "consequence");
      std::vector<TSNode> inner = NamedChildren(block);
      if (test.attr.empty() || inner.size() != 1) return std::nullopt;
      TSNode item = appended(inner[0]);
      if (ts_node_is_null(item)) return std::nullopt;
      part(item, std::move(test));
    }
    return std::nullopt;
  }

  // Records `sites` as exceptions the function of `scope` returns, those
  // `keep` accepts (and adjusts).
  template <typename Keep>
  void AddReturned(Scope& scope, std::vector<ProtoSite>& sites, Keep keep) {
    std::erase_if(sites, [&](ProtoSite& p) { return !keep(p); });
    if (sites.empty()) return;
    FunctionInfo& info = CurrentFunctionInfo(scope);
    for (ProtoSite& p : sites) {
      info.returned_sites.push_back(result_.sites.size());
      p.site.via = info.qualified;
      result_.sites.push_back(std::move(p));
    }
  }

  // Whether the file has defined `name` as an exception class so far.
  bool IsLocalExceptionClass(const std::string& name) const {
    bool yes = DefinesExceptionClass(name);
    Ask(Asked::What::kLocalExceptionClass, name, yes ? 1 : 0);
    return yes;
  }

  bool DefinesExceptionClass(const std::string& name) const {
    for (const ClassInfo& c : result_.classes) {
      if (c.name != name) continue;
      for (const std::string& b : c.bases) {
        if (LooksLikeExceptionClass(b)) return true;
      }
    }
    return false;
  }

 private:
  std::string_view src_;
  TSNode root_;
  const PythonOptions& options_;
  FileResult result_;
  std::vector<Scope> scopes_;
  std::unordered_map<std::string, std::string> aliases_;
  std::set<std::string> warnings_modules_;
  std::set<std::string> warn_functions_;
  std::unordered_map<std::string, TSNode> module_functions_;
  std::set<std::string> module_classes_;
  std::set<std::string> imported_;  // names bound by `from m import name`
  bool star_import_ = false;        // `from m import *`: any name may be imported
  std::unordered_map<std::string, DefList> module_defs_;
  using ReachingKey = std::tuple<std::string, uint32_t, uint32_t, uint32_t, uint32_t>;
  std::map<ReachingKey, std::pair<DefList, bool>> reaching_;
  std::unordered_map<uint32_t, uint32_t> text_hashes_;  // by a function's first byte
  struct ParentKeyHash {
    size_t operator()(const std::pair<const void*, uint32_t>& k) const {
      return std::hash<const void*>()(k.first) ^ (static_cast<size_t>(k.second) << 1);
    }
  };
  mutable std::unordered_map<std::pair<const void*, uint32_t>, TSNode, ParentKeyHash> parents_;
  using DefMemo = std::map<std::pair<const Def*, int>, Alternatives>;
  DefMemo* def_memo_ = nullptr;  // the look-up under way's, see EvalName
  flow::FlowBodies flow_bodies_;
  struct NameLookUp {
    Alternatives out;
    std::vector<uint64_t> names;  // what it read (with the sites memo on)
    std::vector<DefinitionSites::Asked> asked;
  };
  std::map<std::pair<uint32_t, std::string>, NameLookUp> name_memo_;
  // By the comprehension's start byte; pointers into it live in contexts.
  std::map<uint32_t, std::map<std::string, flow::Arg, std::less<>>> comprehension_names_;
  mutable std::map<std::string, bool, std::less<>> table_changed_;  // TableChanged's answers
  std::set<std::pair<uint32_t, std::string>> evaluating_;  // EvalName's look-ups under way
  bool cycle_cut_ = false;  // the look-up under way read one of those
  SourceLines lines_{src_};
  int64_t eval_steps_ = 0;
  // Inside a Python C-API call from Cython, where bytes literals are C strings.
  bool bytes_are_c_strings_ = false;
  // Statements the flow walks may visit in one file: 200 times what any file
  // of the Python 3.11 stdlib (10,003) or its site-packages (25,305) needs.
  int64_t flow_budget_ = kMaxFlowStatementsPerFile;
  bool bindings_built_ = false;
  std::unordered_map<std::string_view, std::vector<uint32_t>> bindings_;
  std::set<std::string> budget_noted_;
  GuardCache guards_;
  std::map<std::pair<uint32_t, std::string>, bool> param_tested_;  // ParamTested
  // The definitions being walked for the memo, innermost last (a class,
  // then one of its methods).
  std::vector<Recording> recordings_;
  // What walks have read of the rest of the file, in order, with the sites
  // memo on: a recording's reads are what was added while it ran.
  mutable std::vector<uint64_t> read_names_;
  mutable std::vector<DefinitionSites::Asked> read_asked_;
  std::vector<TopStatement> top_;
  TSNode unit_{};          // the top-level function or class being walked, if any
  size_t unit_index_ = 0;  // its place in top_
};

}  // namespace

// What str(exception) prints when the class adds nothing of its own:
// nothing, the single argument, or the tuple of arguments.
Template BuiltinMessage(std::string_view exception, const std::vector<CallArg>& args) {
  if (std::optional<Template> compiled = CompiledClassMessage(exception, args)) return *compiled;
  std::vector<const CallArg*> positional;
  for (const CallArg& a : args) {
    if (a.splat) {
      return Template::Value(a.arg.expression, ValueKind::kAny);
    }
    if (a.keyword.empty()) positional.push_back(&a);
  }
  Template t;
  if (positional.empty()) return t;
  auto value_of = [](const CallArg& a, ValueKind kind) {
    if (a.arg.value && kind == ValueKind::kStr) return *a.arg.value;
    Template v;
    flow::AppendArg(flow::Printing::kPython, a.arg, kind, "", -1, v);
    return v;
  };
  if (positional.size() == 1) {
    const CallArg& a = *positional[0];
    if (exception == "KeyError") return value_of(a, ValueKind::kRepr);
    if (a.arg.value) return *a.arg.value;
    if (flow::IsPlainConstant(a.arg.expression)) return Template::Literal(a.arg.expression);
    return Template::Value(a.arg.expression, ValueKind::kAny);
  }
  if (Contains(exception, kOsErrors) && positional.size() <= 3) {
    t.AppendText("[Errno ");
    t.Append(value_of(*positional[0], ValueKind::kInt));  // `OSError(2, ...)`: 2
    t.AppendText("] ");
    t.Append(value_of(*positional[1], ValueKind::kStr));
    if (positional.size() == 3) {
      t.AppendText(": ");
      t.Append(value_of(*positional[2], ValueKind::kRepr));
    }
    return t;
  }
  t.AppendText("(");
  for (size_t i = 0; i < positional.size(); ++i) {
    if (i > 0) t.AppendText(", ");
    t.Append(value_of(*positional[i], ValueKind::kRepr));
  }
  t.AppendText(")");
  return t;
}

const TSLanguage* PythonLanguage() { return tree_sitter_python(); }

bool IsBuiltinException(std::string_view name) { return Contains(name, kBuiltinExceptions); }

bool LooksLikeExceptionClass(std::string_view name) {
  if (IsBuiltinException(name)) return true;
  if (!IsCapitalized(name)) return false;
  for (std::string_view suffix :
       {"Error", "Exception", "Warning", "Exit", "Interrupt", "Failure"}) {
    if (EndsWith(name, suffix)) return true;
  }
  return false;
}

FileResult ExtractPythonFile(std::string_view path, std::string_view source, TSTree* tree,
                             const PythonOptions& options) {
  return FileExtractor(path, source, tree, options).Run();
}

namespace {

void Write(std::ostream& out, const Template& t) {
  for (const Piece& p : t.pieces()) {
    out << (p.is_value ? "{" : "[") << p.text << "|" << p.name << "|" << static_cast<int>(p.kind)
        << "|" << p.spec << "|" << p.max_length << "|" << p.reflow << (p.is_value ? "}" : "]");
  }
  for (const Assumption& a : t.assumptions())
    out << " assume " << a.name << static_cast<int>(a.test);
  out << (t.repr_is_text() ? " repr-is-text" : "");
}

void Write(std::ostream& out, const flow::Arg& a) {
  out << "(" << a.expression;
  if (a.value) Write(out << " = ", *a.value);
  out << ")";
}

void Write(std::ostream& out, const std::vector<CallArg>& args) {
  for (const CallArg& a : args) {
    out << " arg " << a.keyword << (a.splat ? " splat " : " ");
    Write(out, a.arg);
    if (a.call) {
      out << " call " << a.call->callee << " <";
      Write(out, a.call->args);
      out << ">";
    }
  }
}

void Write(std::ostream& out, const Site& s) {
  out << s.exception << "|" << s.exception_written << "|" << static_cast<int>(s.kind) << "|";
  Write(out, s.message);
  out << "|" << s.language << "|" << s.path << "|" << s.line << ":" << s.column << "-" << s.end_line
      << "|" << s.function << "|" << s.signature << "|" << s.entries << "|" << s.statement << "|"
      << s.excerpt_line << "|" << s.excerpt << "|" << s.cause << "|" << s.via << "|" << s.internal
      << "|" << s.trigger << "\n";
  for (const Guard& g : s.guards) {
    out << "  guard " << g.kind << "|" << g.code << "|" << g.negated << "|" << g.when << "|"
        << g.line << "|" << g.subject;
    for (const std::string& v : g.values) out << "|v " << v;
    for (const std::string& m : g.meanings) out << "|m " << m;
    out << "\n";
  }
}

void Write(std::ostream& out, const Param& p) {
  out << " " << p.name << (p.variadic ? "*" : "");
  if (p.default_value) Write(out << "=", *p.default_value);
}

}  // namespace

std::string FileResultText(const FileResult& r) {
  std::ostringstream out;
  out << "path " << r.path << "\n";
  for (const ProtoSite& p : r.sites) {
    out << "site ";
    Write(out, p.site);
    out << "  proto " << p.callee << "|" << p.callee_is_class << p.has_call << p.tentative
        << p.chained << "|" << p.type_param << "|" << p.callee_written;
    for (const auto& [key, value] : p.type_map) out << "|map " << key << "->" << value;
    Write(out, p.args);
    out << "\n";
  }
  for (const NonSite& n : r.non_sites)
    out << "non-site " << n.path << ":" << n.line << " " << n.reason << "\n";
  for (const ClassInfo& c : r.classes) {
    out << "class " << c.name << "|" << c.path << ":" << c.line << "|init " << c.has_init;
    for (const std::string& b : c.bases) out << " base " << b;
    for (const Param& p : c.init_params) Write(out, p);
    if (c.super_args) {
      for (const auto& args : *c.super_args) {
        out << " super <";
        Write(out, args);
        out << ">";
      }
    }
    out << " target " << c.super_target;
    for (const auto& [name, arg] : c.self_attrs) Write(out << " self." << name << "=", arg);
    for (const auto& [name, arg] : c.class_attrs) Write(out << " attr " << name << "=", arg);
    for (const std::string& a : c.conditional_attrs) out << " conditional " << a;
    for (const Template& t : c.str_templates) Write(out << " str ", t);
    if (c.str_joined) {
      Write(out << " joined ", c.str_joined->first);
      for (const ClassInfo::JoinedPart& part : c.str_joined->second) {
        Write(out << " part ", part.text);
        out << "/" << part.unless_none << part.truthy << part.more;
      }
    }
    out << "\n";
  }
  for (const FunctionInfo& f : r.functions) {
    out << "function " << f.name << "|" << f.qualified << "|" << f.path;
    for (const Param& p : f.params) Write(out, p);
    for (size_t i : f.returned_sites) out << " returns-site " << i;
    for (const Template& t : f.returned_messages) Write(out << " returns ", t);
    for (size_t i : f.sink_sites) out << " sink-site " << i;
    out << "\n";
  }
  for (const SinkCall& c : r.calls) {
    out << "call " << c.callee << "|" << c.receiver << "|" << c.owner << "|" << c.function << " ";
    Write(out, c.site);
    for (const auto& args : c.arg_alternatives) {
      out << "  args <";
      Write(out, args);
      out << ">\n";
    }
  }
  for (const FileIssue& i : r.issues) out << "issue " << i.reason << " " << i.detail << "\n";
  return out.str();
}

}  // namespace errdex::extract::python
