#include "extract/rust/rust_extractor.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/guards.h"
#include "core/text.h"
#include "extract/cpp/cpp_format.h"
#include "extract/flow/dataflow.h"
#include "extract/flow/format.h"
#include "extract/rust/rust_flow.h"
#include "extract/rust/rust_guards.h"
#include "extract/rust/rust_sinks.h"
#include "extract/rust/rust_syntax.h"
#include "extract/source_lines.h"
#include "extract/ts_util.h"

namespace errdex::extract::rust {
namespace {

// Deeper syntax is not walked: recursion stays far from the stack's end on
// generated or hostile input (a file is reported as recovered).
constexpr int kMaxDepth = 400;
// `let m = ...; let n = m;` is followed this many steps.
constexpr int kMaxEvalDepth = 8;
// Texts one message can have (branches, match arms) and appends followed
// back from one use.
constexpr size_t kMaxAlternatives = 16;
constexpr int kMaxAppendChain = 512;
// Statements the data flow may visit in one file.
constexpr int64_t kMaxFlowStatementsPerFile = 4'000'000;
// Calls kept per file that may pass text to a helper; a helper's callers
// are followed this many helpers deep.
constexpr size_t kMaxHelperCallsPerFile = 20000;
constexpr int kMaxHelperDepth = 3;

// One comma-separated argument of a macro's token tree.
struct TokenArg {
  std::vector<TSNode> tokens;
  std::string name;  // `name = expr`: the name; the tokens are the expression's
};

// What an arm of a message table (`Self::IntParsing { .. } => "text"`)
// gives: the variant's type path and name.
struct Variant {
  std::string type;
  std::string name;
};

// Composed texts: the fields, variants and methods each file may declare,
// and the slots one text may have.
constexpr size_t kMaxDeclaredPerFile = 20000;
constexpr size_t kMaxComposedPerFile = 20000;
constexpr size_t kMaxSlots = 8;

// `macro_rules!` bodies a file may have read again as Rust: bytes of the
// definitions, and definitions. The one parse shares the file's parse budget.
constexpr size_t kMaxMacroBodyBytes = 1 << 20;
constexpr size_t kMaxMacroBodies = 2000;

class Extractor {
 public:
  // `parsed`: the text the tree was parsed from, `src` at the same offsets
  // (ParseableRust); empty when it is `src`.
  Extractor(std::string_view path, std::string_view src, std::string_view parsed = {})
      : path_(path),
        src_(src),
        parsed_(parsed.empty() ? src : parsed),
        lines_(src),
        symbols_(Symbols()) {}

  // `budget`: the file's, for reading its `macro_rules!` bodies again as
  // Rust (ReadMacroBodies); null leaves them unread.
  FileResult Run(TSNode root, ParseBudget* budget = nullptr) {
    result_.helpers.path = path_;
    // A method sink's name the file defines a method of (a parser's own
    // `fn expect(&mut self, tok: &str)`): its calls here may be that one.
    for (const Sink& s : Sinks()) {
      if (s.form != SinkForm::kMethod) continue;
      std::string def = "fn " + std::string(s.name);
      for (size_t at = src_.find(def); at != std::string_view::npos; at = src_.find(def, at + 1)) {
        size_t open = src_.find('(', at + def.size());
        size_t close = open == std::string_view::npos ? open : src_.find(')', open);
        char next = at + def.size() < src_.size() ? src_[at + def.size()] : ' ';
        if (close == std::string_view::npos || std::isalnum(static_cast<unsigned char>(next)) ||
            next == '_') {
          continue;
        }
        // Only one that takes an argument (`fn expect(&mut self, tok: &str)`)
        // can be the method a call with a message calls; a getter `fn
        // context(&self)` cannot.
        std::string_view params = src_.substr(open + 1, close - open - 1);
        size_t self = params.find("self");
        if (self != std::string_view::npos) params.remove_prefix(self + 4);
        if (params.find(':') != std::string_view::npos) {
          own_methods_.insert(s.name);
          break;
        }
      }
    }
    ReadImports(root);
    ReadTypePaths(root);
    Visit(root, 0, {});
    if (budget != nullptr) ReadMacroBodies(*budget);
    // An error type's Display is written out by the post-pass, which
    // composes what its values print.
    result_.error_types.assign(error_types_.begin(), error_types_.end());
    return std::move(result_);
  }

 private:
  uint16_t K(TSNode n) const { return symbols_.Kind(n); }
  std::string_view Text(TSNode n) const { return NodeText(n, src_); }
  std::string Collapsed(TSNode n) const { return CollapseWhitespace(Text(n)); }

  // ------------------------------------------------------------------ walk

  // `attributes`: the attribute items written just before `n`, its
  // siblings (looking back with ts_node_prev_named_sibling walks from the
  // parent's first child, quadratic over a long list).
  void Visit(TSNode n, int depth, const std::vector<TSNode>& attributes) {
    if (depth > kMaxDepth) {
      if (!too_deep_) {
        too_deep_ = true;
        result_.issues.push_back(
            FileIssue{path_, "too-deep",
                      "syntax nested deeper than " + std::to_string(kMaxDepth) +
                          " levels not read (line " + std::to_string(StartLine(n)) + ")",
                      false});
      }
      return;
    }
    uint16_t k = K(n);
    // A macro body's `$x` is no Rust yet: ReadMacroBodies reads the bodies
    // after the walk, from a copy the grammar can parse.
    if (k == kMacroDefinition) {
      // A macro that writes functions may define any name a call here uses.
      if (Text(n).find("fn ") != std::string_view::npos) result_.helpers.closed = true;
      if (!in_macro_bodies_) {
        MacroDefinition(n);
        macro_definitions_.push_back(n);
      }
      return;
    }
    if ((k == kModItem || k == kFunctionItem) && IsTestItem(attributes)) return;

    size_t functions = functions_.size();
    size_t items = items_.size();
    size_t impls = impls_.size();
    size_t modules = modules_.size();
    size_t bodies = bodies_.size();
    if (k == kImplItem) {
      impls_.push_back(ImplOf(n));
    } else if (k == kTraitItem) {
      impls_.push_back({std::string(Text(Field(n, "name"))), "", true});
    } else if (k == kModItem) {
      modules_.push_back(std::string(Text(Field(n, "name"))));
    } else if (k == kFunctionItem) {
      std::string name(Text(Field(n, "name")));
      functions_.push_back(impls_.empty() ? name : impls_.back().type + "::" + name);
      // A function inside another is its own: `outer::{fn}::f`.
      std::string key = !items_.empty() ? items_.back().name + "::{fn}::" + name
                                        : InModule(impls_.empty() ? name : functions_.back());
      items_.push_back(ItemOf(n, key));
      result_.helpers.defined.push_back(items_.back().name);
      bodies_.push_back({Field(n, "body"), TSNode{}});
      if (!impls_.empty() && !impls_.back().is_trait) {
        Declare(impls_.back().type + "::" + name + "()", TypeRef(Field(n, "return_type")));
        if (impls_.back().trait.empty()) ComposingMethod(n, name);
      }
    } else if (k == kClosure) {
      bodies_.push_back({Field(n, "body"), n});
    } else if (k == kEnumItem || k == kStructItem) {
      ErrorAttributes(n, attributes);
      DeclareFields(n);
    } else if (k == kMacroInvocation) {
      MacroSink(n);
    } else if (k == kCall) {
      CallSink(n);
    } else if (k == kMatchExpression) {
      MessageTable(n);
    } else if (k == kAssignment) {
      ExceptionAlias(n);
    } else if (k == kTokenTree) {
      TokenSinks(n);
    }

    // Tokens, most of the nodes, have no children: no cursor to allocate.
    if (ts_node_child_count(n) > 0) {
      ancestors_.push_back(n);
      std::vector<TSNode> pending;
      for (TSNode c : Children(n)) {  // a cursor: ts_node_child(i) is linear in i
        Visit(c, depth + 1, pending);
        uint16_t ck = K(c);
        if (ck == kAttributeItem) {
          pending.push_back(c);
        } else if (ck != kLineComment && ck != kBlockComment && ts_node_is_named(c)) {
          pending.clear();
        }
      }
      ancestors_.pop_back();
    }

    functions_.resize(functions);
    items_.resize(items);
    bodies_.resize(bodies);
    impls_.resize(impls);
    modules_.resize(modules);
  }

  // What a plain call of `name` reaches: a function defined in the body of
  // one around the call, else an import's (`use util::boom as fail` makes
  // `fail` `util::boom`), else the module's own.
  std::string Callee(std::string_view name) const {
    for (size_t i = items_.size(); i-- > 0;) {
      const std::vector<std::string>& nested = items_[i].nested;
      if (std::find(nested.begin(), nested.end(), name) != nested.end())
        return items_[i].name + "::{fn}::" + std::string(name);
    }
    if (auto it = imports_.find(name); it != imports_.end()) return it->second;
    return InModule(name);
  }

  // `use a::b::c;` and `use a::b::c as d;` anywhere in the file: `c` (or
  // `d`) is `b::c`, the function `c` of module `b`. Imports of `self`,
  // `super` or `crate` alone, and lists, leave the name as it is.
  void ReadImports(TSNode root) {
    std::vector<TSNode> stack{root};
    while (!stack.empty()) {
      TSNode x = stack.back();
      stack.pop_back();
      if (NodeType(x) != "use_declaration") {
        for (TSNode c : NamedChildren(x)) stack.push_back(c);
        continue;
      }
      TSNode arg = Field(x, "argument");
      TSNode alias{};
      if (NodeType(arg) == "use_as_clause") {
        alias = Field(arg, "alias");
        arg = Field(arg, "path");
      }
      if (K(arg) != kScopedIdentifier) continue;
      std::string_view item = Text(Field(arg, "name"));
      std::string module(BaseTypeName(Field(arg, "path")));
      if (module.empty() || module == "self" || module == "super" || module == "crate") continue;
      std::string_view as = ts_node_is_null(alias) ? item : Text(alias);
      imports_[std::string(as)] = module + "::" + std::string(item);
    }
  }

  // `name` as a function of the inline module around the walk (`b::fail`
  // in `mod b { fn fail() }`): a call there reaches that one.
  std::string InModule(std::string_view name) const {
    std::string out;
    for (const std::string& m : modules_) out += m + "::";
    return out.append(name);
  }

  struct Impl {
    std::string type;
    std::string trait;
    bool is_trait = false;  // a trait's own items: a default an impl may override
  };

  Impl ImplOf(TSNode impl) {
    Impl out{BaseTypeName(Field(impl, "type")), BaseTypeName(Field(impl, "trait"))};
    std::string_view trait = out.trait;
    if (trait == "Error" || trait == "Exception") error_types_.insert(out.type);
    return out;
  }

  // A function item as its callers and its helpers' linking see it.
  struct Item {
    std::string name;  // `f`, or `Type::f` for a method
    // By position, `self` first for a method taking it (`x.f(a)` is
    // `T::f(x, a)`); `_` for a pattern.
    std::vector<std::string> params;
    std::vector<std::string> param_types;  // as TypeRef reads them, by position
    bool file_local = true;  // no `pub`: its module's calls alone reach it
    std::vector<std::string> nested;  // functions defined in its body
  };

  Item ItemOf(TSNode fn, const std::string& name) const {
    Item item;
    item.name = name;
    for (TSNode c : NamedChildren(fn)) {
      if (K(c) == kVisibilityModifier) item.file_local = false;
    }
    for (TSNode c : NamedChildren(Field(fn, "body"))) {
      if (K(c) == kFunctionItem) item.nested.emplace_back(Text(Field(c, "name")));
    }
    for (TSNode p : NamedChildren(Field(fn, "parameters"))) {
      if (K(p) == kSelfParameter) {
        item.params.emplace_back("self");
        item.param_types.push_back(impls_.empty() ? "" : impls_.back().type);
      } else if (K(p) == kVariadicParameter) {
        item.params.emplace_back("...");
        item.param_types.emplace_back();
      } else if (K(p) == kParameter) {
        TSNode pattern = Field(p, "pattern");
        if (K(pattern) == kMutPattern) {
          pattern = ts_node_named_child(pattern, ts_node_named_child_count(pattern) - 1);
        }
        item.params.emplace_back(K(pattern) == kIdentifier ? Text(pattern) : "_");
        item.param_types.push_back(TypeRef(Field(p, "type")));
      }
    }
    return item;
  }

  // `fmt::Display` -> `Display`, `Foo<'a, T>` -> `Foo`.
  std::string BaseTypeName(TSNode type) const {
    if (ts_node_is_null(type)) return "";
    if (K(type) == kGenericType) type = Field(type, "type");
    std::string_view t = Text(type);
    size_t cut = t.rfind("::");
    return std::string(cut == std::string_view::npos ? t : t.substr(cut + 2));
  }

  bool IsTestItem(const std::vector<TSNode>& attributes) const {
    for (TSNode a : attributes) {
      std::string text = Collapsed(a);
      text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
      if (text == "#[test]" || text == "#[cfg(test)]" || EndsWith(text, "::test]")) return true;
    }
    return false;
  }

  std::string FunctionName() const {
    // The function ReadMacroBodies wraps a macro's rules in is the macro.
    if (in_macro_bodies_ && functions_.size() == 1) return functions_.back() + "!";
    if (!functions_.empty()) return functions_.back();
    return "<module>";
  }

  // --------------------------------------------------------------- strings

  // The text a string literal stands for, escapes applied.
  std::string StringValue(TSNode lit) const {
    std::string out;
    if (K(lit) == kRawStringLiteral) {
      for (TSNode c : NamedChildren(lit)) {
        if (K(c) == kStringContent) out.append(Text(c));
      }
      return out;
    }
    bool continued = false;
    for (TSNode c : NamedChildren(lit)) {
      if (K(c) == kStringContent) {
        std::string_view t = Text(c);
        // `\` at a line's end drops the newline and the next line's indent.
        if (continued) t.remove_prefix(std::min(t.size(), t.find_first_not_of(" \t\n\r")));
        out.append(t);
        continued = false;
      } else if (K(c) == kEscapeSequence) {
        std::string_view e = Text(c);
        continued = e.size() >= 2 && (e[1] == '\n' || e[1] == '\r');
        AppendRustEscape(e, out);
      }
    }
    return out;
  }

  static void AppendRustEscape(std::string_view e, std::string& out) {
    if (e.size() >= 2 && e[1] == '\n') return;  // a line continuation: the newline and indent go
    if (e.size() >= 2 && e[1] == '\r') return;
    if (e.size() >= 4 && e[1] == 'u' && e[2] == '{') {
      uint32_t cp = 0;
      for (size_t i = 3; i < e.size() && e[i] != '}'; ++i) {
        int d = HexDigitValue(e[i]);
        if (d < 0 || cp > 0x10FFFF) return;
        cp = cp * 16 + static_cast<uint32_t>(d);
      }
      if (cp <= 0x10FFFF) AppendUtf8(cp, out);
      return;
    }
    cpp::AppendEscape(e, out);
  }

  bool IsString(TSNode n) const { return K(n) == kStringLiteral || K(n) == kRawStringLiteral; }

  // The comma-separated arguments of a macro's token tree; `;` ends the
  // first group when `split_type` (py_err!(Type; ...)), whose tokens are
  // returned in `type`.
  std::vector<TokenArg> MacroArgs(TSNode tree, std::vector<TSNode>* type = nullptr) const {
    std::vector<TokenArg> args(1);
    std::vector<TSNode> children = Children(tree);
    size_t count = children.size();
    for (size_t i = 0; i < count; ++i) {
      TSNode c = children[i];
      if (!ts_node_is_named(c)) {
        std::string_view t = Text(c);
        if ((i == 0 || i + 1 == count) &&
            (t == "(" || t == ")" || t == "[" || t == "]" || t == "{" || t == "}")) {
          continue;
        }
        if (t == ",") {
          args.emplace_back();
          continue;
        }
        if (t == ";" && type != nullptr && type->empty()) {
          *type = std::move(args.back().tokens);
          args.assign(1, TokenArg{});
          continue;
        }
        if (t == "=" && args.back().tokens.size() == 1 && K(args.back().tokens[0]) == kIdentifier &&
            args.back().name.empty()) {
          args.back().name = std::string(Text(args.back().tokens[0]));
          args.back().tokens.clear();
          continue;
        }
      }
      if (K(c) == kLineComment || K(c) == kBlockComment) continue;
      args.back().tokens.push_back(c);
    }
    if (args.back().tokens.empty() && args.back().name.empty()) args.pop_back();  // trailing comma
    return args;
  }

  std::string TokensText(const std::vector<TSNode>& tokens) const {
    if (tokens.empty()) return "";
    uint32_t b = ts_node_start_byte(tokens.front());
    uint32_t e = ts_node_end_byte(tokens.back());
    if (e < b || e > src_.size()) return "";
    return CollapseWhitespace(src_.substr(b, e - b));
  }

  // A macro argument's template: a literal, a nested format!, else none.
  std::optional<Template> EvalTokens(const std::vector<TSNode>& tokens, int depth) const {
    if (tokens.size() == 1 && IsString(tokens[0])) return Template::Literal(StringValue(tokens[0]));
    if (tokens.size() == 1) {
      if (std::optional<Template> n = DecimalLiteral(tokens[0])) return n;
    }
    if (tokens.size() == 3 && K(tokens[0]) == kIdentifier && Text(tokens[1]) == "!" &&
        K(tokens[2]) == kTokenTree) {
      std::string_view name = Text(tokens[0]);
      if (name == "concat") return Concat(MacroArgs(tokens[2]), depth);
      if (name == "stringify") return Stringify(tokens[2]);
      if (IsFormatMacro(name)) return FormatTemplate(MacroArgs(tokens[2]), 0, depth + 1);
      return std::nullopt;
    }
    if (tokens.size() == 1 && IsMetavariable(tokens[0])) {
      return Template::Value(Text(tokens[0]), ValueKind::kAny);
    }
    if (tokens.size() == 1 && K(tokens[0]) == kIdentifier) return One(Names(tokens[0], depth));
    return std::nullopt;
  }

  // A `$name` of a macro body (ReadMacroBodies): what the macro's caller
  // passes.
  bool IsMetavariable(TSNode n) const {
    return in_macro_bodies_ && K(n) == kIdentifier && Text(n).starts_with('$');
  }

  // `concat!(..)` as a macro's argument: its text is the format the macro reads.
  bool IsConcatCall(const std::vector<TSNode>& tokens) const {
    return tokens.size() == 3 && K(tokens[0]) == kIdentifier && Text(tokens[0]) == "concat" &&
           Text(tokens[1]) == "!" && K(tokens[2]) == kTokenTree;
  }

  // `stringify!(tokens)`: their text, or what the macro's caller passes for
  // a `$name` among them.
  std::optional<Template> Stringify(TSNode tree) const {
    std::vector<TSNode> c = Children(tree);
    if (c.size() < 2) return std::nullopt;
    std::vector<TSNode> inner(c.begin() + 1, c.end() - 1);
    std::string text = TokensText(inner);
    if (in_macro_bodies_ && text.find('$') != std::string::npos) {
      return Template::Value(text, ValueKind::kAny);
    }
    return Template::Literal(text);
  }

  static bool IsFormatMacro(std::string_view name) {
    return name == "format" || name == "format_args" || name == "concat";
  }

  // `concat!("a", 1, "b")`: its literals joined, none of them a format. In
  // a macro body, a `$name` is a literal its caller passes.
  std::optional<Template> Concat(const std::vector<TokenArg>& args, int depth) const {
    Template out;
    for (const TokenArg& a : args) {
      std::optional<Template> t = EvalTokens(a.tokens, depth + 1);
      if (!t || (t->IsDynamic() &&
                 !(in_macro_bodies_ && TokensText(a.tokens).find('$') != std::string::npos))) {
        return std::nullopt;
      }
      out.Append(*t);
    }
    return out;
  }

  // `format!(fmt, args...)` from argument `at`: positional arguments fill
  // `{}`/`{0}`, named ones and inline captures fill `{name}`; `chosen`
  // gives some arguments' texts (one alternative each of a variable
  // assigned in branches).
  std::optional<Template> FormatTemplate(const std::vector<TokenArg>& args, size_t at, int depth,
                                         const std::map<size_t, Template>* chosen = nullptr) const {
    if (at >= args.size() || depth > kMaxEvalDepth) return std::nullopt;
    const TokenArg& format = args[at];
    std::optional<Template> pattern;
    if (format.tokens.size() == 1 && IsString(format.tokens[0])) {
      pattern = Template::Literal(StringValue(format.tokens[0]));
    } else if (IsConcatCall(format.tokens)) {
      // `concat!("Invalid ", stringify!($name), ": `{}`")` is the format.
      pattern = Concat(MacroArgs(format.tokens[2]), depth);
      if (!pattern) return std::nullopt;
    } else {
      return EvalTokens(format.tokens, depth);
    }
    flow::FormatArgs call = RustFormatArgs();
    for (size_t i = at + 1; i < args.size(); ++i) {
      auto it = chosen != nullptr ? chosen->find(i) : std::map<size_t, Template>::const_iterator{};
      flow::Arg a{TokensText(args[i].tokens), chosen != nullptr && it != chosen->end()
                                                  ? std::optional<Template>(it->second)
                                                  : EvalTokens(args[i].tokens, depth + 1)};
      if (args[i].name.empty()) {
        call.positional.push_back(std::move(a));
      } else {
        call.named.emplace(args[i].name, std::move(a));
      }
    }
    return flow::ApplyFormat(flow::Format::kBraces, *pattern, call);
  }

  // format!'s arguments: a named field no argument gives is an inline
  // capture, the variable of that name.
  static flow::FormatArgs RustFormatArgs() {
    flow::FormatArgs call;
    call.capture_names = true;
    return call;
  }

  // What a name can hold where it is used: the definitions of it that reach
  // `use` in the enclosing function (flow/dataflow.h), each evaluated; none
  // (empty) when it is not a local the function defines (a parameter alone).
  std::vector<Template> Names(TSNode use, int depth) const {
    if (depth > kMaxEvalDepth) return {};
    uint32_t key = ts_node_start_byte(use);
    if (auto it = resolved_.find(key); it != resolved_.end()) return it->second;
    std::vector<Template> out;
    bool unread = false;  // a definition whose value errdex cannot read
    std::string_view name = Text(use);
    // A closure's own definitions, then what it captures from around it
    // (a `let` before the closure's statement), unless a parameter of the
    // closure is the name.
    for (size_t i = bodies_.size(); i-- > 0;) {
      const Body& b = bodies_[i];
      if (ts_node_is_null(b.node)) break;
      bool from_entry = false;
      const flow::FlowBody& body =
          flow_bodies_.Get(b.node, [&](TSNode x) { return LowerFlow(src_, x); });
      flow::DefList defs = flow::ReachingDefinitions(body, name, use, &flow_budget_, &from_entry);
      if (flow_budget_ < 0) return {};
      DefMemo memo;
      for (const flow::DefPtr& d : defs) {
        std::vector<Template> ts = EvalDef(*d, name, depth, memo);
        unread = unread || ts.empty();
        for (Template& t : ts) AddAlternative(out, std::move(t));
      }
      if (!from_entry) break;
      if (ts_node_is_null(b.closure) || ClosureParameter(b.closure, name)) {
        // A parameter that some path leaves as the caller passed it.
        if (!out.empty()) AddAlternative(out, Template::Value(name, ValueKind::kAny));
        break;
      }
    }
    // Where some definitions are text, one that is not stands as a value;
    // where none is, the name is unknown to the caller, as a parameter is.
    if (unread && !out.empty()) AddAlternative(out, Template::Value(name, ValueKind::kAny));
    resolved_.emplace(key, out);
    return out;
  }

  bool ClosureParameter(TSNode closure, std::string_view name) const {
    std::vector<TSNode> stack{Field(closure, "parameters")};
    while (!stack.empty()) {
      TSNode x = stack.back();
      stack.pop_back();
      if (ts_node_is_null(x)) continue;
      if (K(x) == kIdentifier && Text(x) == name) return true;
      for (TSNode c : NamedChildren(x)) stack.push_back(c);
    }
    return false;
  }

  static void AddAlternative(std::vector<Template>& out, Template t) {
    if (out.size() >= kMaxAlternatives) return;
    for (const Template& o : out) {
      if (o.Display() == t.Display()) return;
    }
    out.push_back(std::move(t));
  }

  // A decimal number and nothing else.
  static bool IsNumber(const Template& t) {
    const std::vector<Piece>& p = t.pieces();
    return p.size() == 1 && !p[0].is_value && !p[0].text.empty() &&
           std::all_of(p[0].text.begin(), p[0].text.end(),
                       [](char c) { return c >= '0' && c <= '9'; });
  }

  // One template for all of `ts`: none when they differ (the caller writes
  // the expression as a value).
  static std::optional<Template> One(const std::vector<Template>& ts) {
    if (ts.size() != 1) return std::nullopt;
    return ts.front();
  }

  // One definition's alternatives, none when errdex cannot read its value;
  // appends evaluated once per look-up.
  using DefMemo = std::unordered_map<const flow::Def*, std::vector<Template>>;
  std::vector<Template> EvalDef(const flow::Def& d, std::string_view name, int depth,
                                DefMemo& memo) const {
    using Texts = std::vector<Template>;
    auto settled = [&](const flow::Def& def, int chain) -> std::optional<Texts> {
      if (auto it = memo.find(&def); it != memo.end()) return it->second;
      if (def.type == flow::Def::Type::kAppend && chain < kMaxAppendChain) return std::nullopt;
      Texts out;
      if (def.type == flow::Def::Type::kValue) out = Alternatives(def.value, depth + 1);
      memo.emplace(&def, out);
      return out;
    };
    auto combine = [&](const flow::Def& def, std::vector<Texts> base_values) {
      Texts bases;
      if (def.base.empty()) bases.push_back(Template::Value(name, ValueKind::kAny));
      for (Texts& ts : base_values) {
        for (Template& t : ts) AddAlternative(bases, std::move(t));
      }
      std::optional<Template> tail = Eval(def.value, depth + 1);
      Texts out;
      // `n += 1` adds numbers: no text errdex can spell.
      if ((tail && IsNumber(*tail)) || std::any_of(bases.begin(), bases.end(), IsNumber)) {
        out.push_back(Template::Value(name, ValueKind::kAny));
        memo.emplace(&def, out);
        return out;
      }
      // An append a loop repeats adds its text any number of times.
      if (def.in_loop) tail = Template::Value(std::string(name) + "...", ValueKind::kAny);
      for (Template& t : bases) {
        t.Append(tail ? *tail : Template::Value(Collapsed(def.value), ValueKind::kAny));
        AddAlternative(out, std::move(t));
      }
      memo.emplace(&def, out);
      return out;
    };
    return flow::EvalDefChain<Texts>(d, settled, combine);
  }

  // Every text an expression can give: a name's definitions, each arm of an
  // `if` or a `match`, a block's value; empty when errdex cannot read it.
  std::vector<Template> Alternatives(TSNode e, int depth) const {
    if (ts_node_is_null(e) || depth > kMaxEvalDepth) return {};
    switch (K(e)) {
      case kIdentifier: {
        std::vector<Template> ts = Names(e, depth);
        if (auto it = constants_.find(Text(e));
            ts.empty() && it != constants_.end() && it->second && !IsLocal(Text(e), e)) {
          ts.push_back(Template::Literal(*it->second));
        }
        return ts;
      }
      case kReferenceExpression:
        return Alternatives(Field(e, "value"), depth + 1);
      case kParenthesized:
        return ts_node_named_child_count(e) == 1
                   ? Alternatives(ts_node_named_child(e, 0), depth + 1)
                   : std::vector<Template>{};
      case kBlock:
        return Alternatives(Tail(e), depth + 1);
      case kIfExpression: {
        std::vector<Template> out;
        ArmAlternatives(Field(e, "consequence"), depth, out);
        TSNode alternative = Field(e, "alternative");
        TSNode inner{};
        for (TSNode c : NamedChildren(alternative)) {
          if (K(c) != kLineComment && K(c) != kBlockComment) inner = c;
        }
        // No else: the if gives `()`, no text.
        if (!ts_node_is_null(inner)) ArmAlternatives(inner, depth, out);
        return out;
      }
      case kMatchExpression: {
        std::vector<Template> out;
        for (TSNode arm : NamedChildren(Field(e, "body"))) {
          if (K(arm) == kMatchArm) ArmAlternatives(Field(arm, "value"), depth, out);
        }
        return out;
      }
      default:
        break;
    }
    if (std::optional<Template> t = Eval(e, depth)) return {*t};
    return {};
  }

  // An arm's texts, or the arm written as a value; an arm that leaves
  // (`return`, `panic!`) gives the if or match no text.
  void ArmAlternatives(TSNode arm, int depth, std::vector<Template>& out) const {
    TSNode value = K(arm) == kBlock ? Tail(arm) : arm;
    if (ts_node_is_null(value) || Diverges(value)) return;
    std::vector<Template> ts = Alternatives(value, depth + 1);
    if (ts.empty()) ts.push_back(Template::Value(Collapsed(value), ValueKind::kAny));
    for (Template& t : ts) AddAlternative(out, std::move(t));
  }

  bool Diverges(TSNode e) const {
    if (K(e) == kReturn || K(e) == kBreak || K(e) == kContinue) return true;
    return K(e) == kMacroInvocation && DivergingMacro(MacroName(e, src_));
  }

  // A block's value: its last expression when no `;` ends it.
  TSNode Tail(TSNode block) const {
    TSNode last{};
    for (TSNode c : NamedChildren(block)) {
      if (K(c) != kLineComment && K(c) != kBlockComment) last = c;
    }
    if (ts_node_is_null(last) || K(last) == kExpressionStatement || K(last) == kLetDeclaration ||
        NodeType(last).ends_with("_item")) {
      return TSNode{};
    }
    return last;
  }

  // An expression's template where it is text errdex can read.
  std::optional<Template> Eval(TSNode e, int depth) const {
    if (ts_node_is_null(e) || depth > kMaxEvalDepth) return std::nullopt;
    switch (K(e)) {
      case kStringLiteral:
      case kRawStringLiteral:
        return Template::Literal(StringValue(e));
      case kMacroInvocation: {
        TSNode tree = ts_node_named_child(e, ts_node_named_child_count(e) - 1);
        std::string_view name = Text(Field(e, "macro"));
        if (K(tree) != kTokenTree) return std::nullopt;
        if (name == "concat") return Concat(MacroArgs(tree), depth);
        if (IsFormatMacro(name)) return FormatTemplate(MacroArgs(tree), 0, depth + 1);
        if (name == "write" || name == "writeln") {
          // What `write!(m, ...)` appends to `m` (a definition the data
          // flow makes of it).
          std::vector<TokenArg> args = MacroArgs(tree);
          std::optional<Template> t =
              args.size() == 1 ? Template() : FormatTemplate(args, 1, depth + 1);
          if (t && name == "writeln") t->AppendText("\n");
          return t;
        }
        return std::nullopt;
      }
      case kReferenceExpression:
        return Eval(Field(e, "value"), depth + 1);
      case kClosure:  // `|| format!(...)`: the text it gives when called
        return Eval(Field(e, "body"), depth + 1);
      case kParenthesized:
        return ts_node_named_child_count(e) == 1 ? Eval(ts_node_named_child(e, 0), depth + 1)
                                                 : std::nullopt;
      case kIdentifier:
        // A parameter is what the caller passes: a value its helpers'
        // linking fills (`let text = msg.to_string();` holds `msg`).
        if (std::vector<Template> ts = Alternatives(e, depth); !ts.empty()) {
          return One(ts);
        } else if (ParamReaches(Text(e), e)) {
          return Template::Value(Text(e), ValueKind::kAny);
        }
        return std::nullopt;
      case kIfExpression:
      case kMatchExpression:
      case kBlock:
        return One(Alternatives(e, depth));
      case kCall: {
        // `"x".to_string()`, `msg.into()`, `String::from("x")`: the same text.
        TSNode f = Field(e, "function");
        TSNode args = Field(e, "arguments");
        if (K(f) == kFieldExpression) {
          std::string_view m = Text(Field(f, "field"));
          if ((m == "to_string" || m == "to_owned" || m == "into" || m == "as_str" ||
               m == "to_str") &&
              ts_node_named_child_count(args) == 0) {
            return Eval(Field(f, "value"), depth + 1);
          }
        } else if (K(f) == kScopedIdentifier && Text(Field(f, "name")) == "from" &&
                   ts_node_named_child_count(args) == 1) {
          return Eval(ts_node_named_child(args, 0), depth + 1);
        }
        std::string_view callee = K(f) == kScopedIdentifier ? Text(Field(f, "name"))
                                  : K(f) == kIdentifier     ? Text(f)
                                                            : "";
        // `Cow::Borrowed("x")`; CPython's `PyUnicode_FromStringAndSize(
        // msg.as_ptr() as *const c_char, msg.len() as isize)` is msg's text.
        if ((((callee == "Borrowed" || callee == "Owned") &&
              BaseTypeName(Field(f, "path")) == "Cow") ||
             callee == "PyUnicode_FromStringAndSize" || callee == "PyUnicode_FromString") &&
            ts_node_named_child_count(args) >= 1) {
          return Eval(Pointed(ts_node_named_child(args, 0)), depth + 1);
        }
        return std::nullopt;
      }
      default:
        return DecimalLiteral(e);
    }
  }

  // The string a pointer passed to CPython points into: `msg` of
  // `msg.as_ptr() as *const c_char`, `msg.as_ptr().cast::<c_char>()`.
  TSNode Pointed(TSNode x) const {
    for (int hops = 0; hops < 6 && !ts_node_is_null(x); ++hops) {
      if (NodeType(x) == "type_cast_expression") {
        x = Field(x, "value");
        continue;
      }
      if (K(x) != kCall || ts_node_named_child_count(Field(x, "arguments")) != 0) break;
      TSNode f = Field(x, "function");
      if (K(f) == kGenericFunction) f = Field(f, "function");
      std::string_view method = K(f) == kFieldExpression ? Text(Field(f, "field")) : "";
      if (method != "as_ptr" && method != "cast") break;
      x = Field(f, "value");
    }
    return x;
  }

  // A number written in decimal digits prints as written (a type suffix,
  // `1u8`, or another base does not).
  std::optional<Template> DecimalLiteral(TSNode e) const {
    if (NodeType(e) != "integer_literal") return std::nullopt;
    std::string_view t = Text(e);
    if (t.empty() ||
        !std::all_of(t.begin(), t.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      return std::nullopt;
    t.remove_prefix(std::min(t.find_first_not_of('0'), t.size() - 1));  // `007` prints 7
    return Template::Literal(t);
  }

  // The texts a message argument can have: each branch's where it was
  // chosen in branches, else the argument written as a value.
  std::vector<Template> Messages(TSNode e) const {
    if (ts_node_is_null(e) || Text(e) == "()") return {Template()};
    std::vector<Template> out = Alternatives(e, 0);
    if (out.empty()) out.push_back(Template::Value(Collapsed(e), ValueKind::kAny));
    return out;
  }

  void EmitEach(const Site& site, std::vector<Template> messages) {
    for (Template& m : messages) Emit(site, std::move(m));
  }

  // ----------------------------------------------------------------- sinks

  void MacroSink(TSNode n) {
    std::string_view name = MacroName(n, src_);
    TSNode tree = ts_node_named_child(n, ts_node_named_child_count(n) - 1);
    if (K(tree) != kTokenTree) return;
    if ((name == "write" || name == "writeln") && InDisplayImpl()) {
      DisplaySink(n, tree);
      return;
    }
    if (name == "create_exception") {
      // create_exception!(module, ShapeError, PyValueError): a ValueError
      // to Python, which subclass-aware matching needs to know.
      std::vector<TokenArg> args = MacroArgs(tree);
      if (args.size() >= 3 && args[1].tokens.size() == 1) {
        result_.classes.push_back(ExceptionClass{std::string(Text(args[1].tokens[0])),
                                                 {PythonExceptionName(TokensText(args[2].tokens))},
                                                 path_,
                                                 StartLine(n)});
      }
      return;
    }
    MacroSinkAt(n, name, tree);
  }

  // The arguments of a macro that is no sink are tokens, not syntax (a test
  // harness's `rgtest!(name, |dir| { assert!(...) })`): sinks in them are
  // found by their tokens, `name ! (...)` and `. name (...)`.
  void TokenSinks(TSNode tree) {
    std::vector<TSNode> c = Children(tree);
    for (size_t i = 2; i + 1 < c.size(); ++i) {
      // `exceptions::PyTypeError::new_err(...)`
      if (K(c[i]) != kIdentifier || K(c[i + 1]) != kTokenTree || Text(c[i - 1]) != "::") continue;
      const Sink* sink = FindSink(SinkForm::kNewErr, Text(c[i]));
      if (sink == nullptr) continue;
      size_t first = i - 2;
      while (first >= 2 && Text(c[first - 1]) == "::" && K(c[first - 2]) == kIdentifier) first -= 2;
      if (K(c[first]) != kIdentifier) continue;
      std::vector<TokenArg> args = MacroArgs(c[i + 1]);
      Site site = BaseSite(c[first], sink->kind);
      site.exception_written = TokensText({c[first], c[i - 2]});
      site.exception = PythonExceptionName(site.exception_written);
      Template message;
      if (static_cast<size_t>(sink->message_arg) < args.size()) {
        const std::vector<TSNode>& tokens = args[static_cast<size_t>(sink->message_arg)].tokens;
        std::optional<Template> t = EvalTokens(tokens, 0);
        message = t ? *t : Template::Value(TokensText(tokens), ValueKind::kAny);
      }
      Emit(std::move(site), std::move(message));
    }
    for (size_t i = 0; i + 2 < c.size(); ++i) {
      if (K(c[i]) == kIdentifier && Text(c[i + 1]) == "!" && K(c[i + 2]) == kTokenTree) {
        MacroSinkAt(c[i], Text(c[i]), c[i + 2]);
      } else if (Text(c[i]) == "." && K(c[i + 1]) == kIdentifier && K(c[i + 2]) == kTokenTree) {
        const Sink* sink = FindSink(SinkForm::kMethod, Text(c[i + 1]));
        if (sink == nullptr) continue;
        std::vector<TokenArg> args = MacroArgs(c[i + 2]);
        if (static_cast<size_t>(sink->message_arg) >= args.size()) continue;
        std::optional<Template> t =
            EvalTokens(args[static_cast<size_t>(sink->message_arg)].tokens, 0);
        if (!t || t->IsDynamic() || t->empty()) continue;
        Site site = BaseSite(c[i + 1], sink->kind);
        site.exception = site.exception_written = std::string(sink->exception);
        Emit(std::move(site), std::move(*t));
      }
    }
  }

  // The condition an assertion macro checks: `assert!(c)` c, `assert_eq!(a,
  // b)` that the two are equal (not that `a` holds), `assert_ne!` the
  // reverse. An operand whose own operator binds more loosely than `==`
  // (`x || y`, `a..b`) is written in parentheses: `x || y != z` reads `x ||
  // (y != z)`.
  void AssertGuard(std::string_view name, const std::vector<TokenArg>& args, Site& site) const {
    bool eq = name.ends_with("assert_eq"), ne = name.ends_with("assert_ne");
    if (!eq && !ne) {
      if (!args.empty()) AddAssertGuard(site, TokensText(args[0].tokens));
      return;
    }
    if (args.size() < 2) return;
    auto operand = [&](const std::vector<TSNode>& tokens) {
      static const std::set<std::string_view> kLooser = {"||", "&&", "==", "!=",  "<", ">",
                                                         "<=", ">=", "..", "..=", "=", "|"};
      std::string text = TokensText(tokens);
      bool loose = std::any_of(tokens.begin(), tokens.end(),
                               [&](TSNode t) { return kLooser.count(Text(t)) > 0; });
      return loose ? "(" + text + ")" : text;
    };
    std::string a = operand(args[0].tokens), b = operand(args[1].tokens);
    AddAssertGuard(site, a + (eq ? " == " : " != ") + b, a + (eq ? " != " : " == ") + b);
  }

  void MacroSinkAt(TSNode n, std::string_view name, TSNode tree) {
    if (const Sink* sink = FindSink(SinkForm::kMacro, name)) {
      std::vector<TokenArg> args = MacroArgs(tree);
      Site site = BaseSite(n, sink->kind);
      site.exception = site.exception_written = std::string(sink->exception);
      std::vector<Template> messages{Template()};
      if (static_cast<size_t>(sink->message_arg) < args.size()) {
        messages = FormatAlternatives(args, static_cast<size_t>(sink->message_arg));
      }
      if (sink->kind == SiteKind::kAssert) AssertGuard(name, args, site);
      site.internal =
          site.internal || name == "unreachable" || name == "todo" || name == "unimplemented";
      for (Template& m : messages) PanicText(name, args, m);
      NoteHelper(site, messages, n);
      for (Template& m : messages) Emit(site, std::move(m));
      return;
    }
    if (const Sink* sink = FindSink(SinkForm::kTypedMacro, name)) {
      std::vector<TSNode> type;
      std::vector<TokenArg> args = MacroArgs(tree, &type);
      if (type.empty()) return;
      Site site = BaseSite(n, sink->kind);
      site.exception_written = TokensText(type);
      site.exception = PythonExceptionName(site.exception_written);
      std::vector<Template> messages =
          args.empty() ? std::vector<Template>{Template()} : FormatAlternatives(args, 0);
      NoteHelper(site, messages, n);
      EmitEach(site, std::move(messages));
      return;
    }
    // Any other macro given a format: the crate may define it to raise
    // (MacroAlias), which the post-pass decides. The standard library's
    // formatting and printing macros are not such.
    static const std::set<std::string_view> kFormatting = {
        "format", "format_args", "print",  "println",   "eprint",      "eprintln",
        "write",  "writeln",     "concat", "stringify", "include_str", "include_bytes",
        "env",    "option_env",  "vec",    "matches",   "dbg",         "trace",
        "debug",  "info",        "warn",   "error",     "log",         "compile_error"};
    if (kFormatting.count(name) > 0) return;
    std::vector<TokenArg> args = MacroArgs(tree);
    if (args.empty()) return;
    if (!(args[0].tokens.size() == 1 && IsString(args[0].tokens[0])) &&
        !(IsConcatCall(args[0].tokens) && Concat(MacroArgs(args[0].tokens[2]), 0))) {
      return;
    }
    Site site = BaseSite(n, SiteKind::kRaise);
    result_.macro_uses.push_back({std::string(name), std::move(site), FormatAlternatives(args, 0)});
  }

  // `macro_rules! name { ($( $a:expr ),+) => { other!(Type; $( $a ),+) }; }`:
  // a macro each of whose rules hands every argument on to one raising
  // macro, with the type fixed, is an alias of it.
  void MacroDefinition(TSNode n) {
    TSNode name = Field(n, "name");
    if (ts_node_is_null(name)) return;
    std::optional<MacroAlias> alias;
    bool agree = true;
    for (TSNode rule : NamedChildren(n)) {
      TSNode right = Field(rule, "right");
      if (ts_node_is_null(right)) continue;
      std::optional<MacroAlias> found = ForwardIn(right, 0);
      if (!found) continue;
      // Every parameter handed on, in order: a rule that drops one or
      // reorders them (`($code:literal, $($arg:tt)*) => py_err!(T;
      // $($arg)*)`) makes its caller's first text no message.
      std::vector<std::string_view> taken, handed;
      Metavariables(Field(rule, "left"), taken, 0);
      for (TSNode t : found->handed) Metavariables(t, handed, 0);
      if (taken.empty() || taken != handed) {
        agree = false;
        continue;
      }
      if (alias && (alias->forwards != found->forwards ||
                    alias->exception_written != found->exception_written)) {
        agree = false;
      }
      alias = std::move(found);
    }
    if (!alias || !agree) return;
    alias->name = std::string(Text(name));
    alias->handed.clear();  // nodes of this file's tree
    result_.macro_aliases.push_back(std::move(*alias));
  }

  // The `$name`s under `n`, in order.
  void Metavariables(TSNode n, std::vector<std::string_view>& out, int depth) const {
    if (ts_node_is_null(n) || depth > 16) return;
    std::string_view text = Text(n);
    if (ts_node_child_count(n) == 0) {
      if (text.size() > 1 && text[0] == '$') out.push_back(text);
      return;
    }
    for (TSNode c : Children(n)) Metavariables(c, out, depth + 1);
  }

  // The raising macro a rule's body hands all its arguments to.
  std::optional<MacroAlias> ForwardIn(TSNode tree, int depth) const {
    if (depth > 8) return std::nullopt;
    std::vector<TSNode> c = Children(tree);
    for (size_t i = 0; i < c.size(); ++i) {
      if (i + 2 < c.size() && K(c[i]) == kIdentifier && Text(c[i + 1]) == "!" &&
          K(c[i + 2]) == kTokenTree) {
        std::vector<TSNode> type;
        bool typed = FindSink(SinkForm::kTypedMacro, Text(c[i])) != nullptr;
        std::vector<TokenArg> args = MacroArgs(c[i + 2], typed ? &type : nullptr);
        // Every argument one of the rule's metavariables (`$msg`, `$( $a ),+`).
        bool forwarded =
            !args.empty() && std::all_of(args.begin(), args.end(), [&](const TokenArg& a) {
              return !a.tokens.empty() && Text(a.tokens[0]).substr(0, 1) == "$";
            });
        if (!forwarded) continue;
        MacroAlias alias;
        for (const TokenArg& a : args)
          alias.handed.insert(alias.handed.end(), a.tokens.begin(), a.tokens.end());
        if (typed) {
          std::string written = TokensText(type);
          if (type.empty() || written.find('$') != std::string::npos) continue;
          alias.exception_written = std::move(written);
        } else {
          alias.forwards = std::string(Text(c[i]));
        }
        return alias;
      }
      if (K(c[i]) == kTokenTree) {
        if (auto inner = ForwardIn(c[i], depth + 1)) return inner;
      }
    }
    return std::nullopt;
  }

  // ---------------------------------------------------------- macro bodies

  // The sinks written inside `macro_rules!` bodies, where the grammar sees
  // only tokens (pydantic-core's `_ => py_schema_err!("Unknown serialization
  // schema type: `{lookup_type}`")` in the rules of `combined_serializer!`).
  // The definitions are parsed again from a copy of the file with
  // everything else blanked, at the same offsets and lines, each made a
  // function named after the macro that holds its rules' bodies as blocks:
  // a `$name` is the identifier `_name` there (read from the source, it is
  // `$name`, a value the caller fills), and a repetition `$( .. ),*` its
  // tokens once. What a rule hands on whole is not the macro's own text: a
  // message of values alone (`py_error_type!($t; $msg)`, which
  // MacroDefinition links to the calls) or a type the caller chooses raises
  // nothing here.
  void ReadMacroBodies(ParseBudget& budget) {
    if (macro_definitions_.empty()) return;
    uint32_t end = 0;
    for (TSNode d : macro_definitions_) end = std::max(end, ts_node_end_byte(d));
    if (end > parsed_.size()) return;
    std::string copy(end, ' ');
    for (uint32_t i = 0; i < end; ++i) {
      if (parsed_[i] == '\n' || parsed_[i] == '\r') copy[i] = parsed_[i];
    }
    size_t bytes = 0;
    size_t written = 0;
    for (size_t i = 0; i < macro_definitions_.size(); ++i) {
      TSNode d = macro_definitions_[i];
      bytes += ts_node_end_byte(d) - ts_node_start_byte(d);
      if (i >= kMaxMacroBodies || bytes > kMaxMacroBodyBytes) {
        result_.issues.push_back(
            FileIssue{path_, "work-budget",
                      "macro_rules! bodies from line " + std::to_string(StartLine(d)) +
                          " not read (past " + std::to_string(kMaxMacroBodies) +
                          " definitions or " + std::to_string(kMaxMacroBodyBytes) + " bytes)",
                      false});
        break;
      }
      if (MacroAsFunction(d, copy)) ++written;
    }
    if (written == 0) return;
    TreePtr tree = budget.Parse(copy);
    if (!tree) return;
    Extractor bodies(path_, src_, copy);
    bodies.in_macro_bodies_ = true;
    bodies.result_.helpers.path = path_;
    bodies.own_methods_ = own_methods_;
    bodies.imports_ = imports_;
    bodies.type_paths_ = type_paths_;
    bodies.constants_ = constants_;
    bodies.error_types_ = error_types_;
    bodies.flow_budget_ = flow_budget_;
    bodies.Visit(ts_tree_root_node(tree.get()), 0, {});
    flow_budget_ = bodies.flow_budget_;
    auto own_text = [](const Template& m) { return !m.empty() && !m.IsDynamic(); };
    for (Site& s : bodies.result_.sites) {
      if (own_text(s.message) && s.exception_written.find('$') == std::string::npos) {
        CallersValues(s.message);
        // The cases a `match` lists before its default are not known where
        // the caller writes some (`$($value => ..,)*`): none is listed.
        for (Guard& g : s.guards) {
          if (std::any_of(g.values.begin(), g.values.end(),
                          [](const std::string& v) { return v.find('$') != std::string::npos; })) {
            g.values.clear();
            g.meanings.clear();
          }
        }
        s.trigger = TriggerSentence(s.guards);
        Add(std::move(s));
      }
    }
    for (MacroUse& u : bodies.result_.macro_uses) {
      std::erase_if(u.messages, [&](const Template& m) { return !own_text(m); });
      for (Template& m : u.messages) CallersValues(m);
      if (!u.messages.empty()) result_.macro_uses.push_back(std::move(u));
    }
  }

  // A value the macro's caller passes reads as the parameter's name, `{name}`
  // for `$name`, as a function's parameter does.
  static void CallersValues(Template& message) {
    bool changed = false;
    for (Piece& p : message.mutable_pieces()) {
      if (!p.is_value || p.text.find('$') == std::string::npos) continue;
      std::erase(p.text, '$');
      changed = true;
    }
    if (changed) message.AssignNames();
  }

  // Writes definition `d` into `copy` (blank where it stands) as `fn name()
  // { {rule body} {rule body} }`, at the same offsets; false when its text
  // leaves no room for that (it always does when the grammar read it whole).
  bool MacroAsFunction(TSNode d, std::string& copy) const {
    TSNode name = Field(d, "name");
    if (ts_node_is_null(name)) return false;
    std::vector<TSNode> bodies;
    for (TSNode rule : NamedChildren(d)) {
      TSNode right = K(rule) == kMacroRule ? Field(rule, "right") : TSNode{};
      if (!ts_node_is_null(right) && K(right) == kTokenTree &&
          ts_node_end_byte(right) - ts_node_start_byte(right) >= 2) {
        bodies.push_back(right);
      }
    }
    if (bodies.empty()) return false;
    uint32_t start = ts_node_start_byte(d);
    uint32_t name_end = ts_node_end_byte(name);
    uint32_t close = ts_node_end_byte(d) - 1;
    if (parsed_.substr(start, 12) != "macro_rules!" || close < ts_node_end_byte(bodies.back()) ||
        close >= copy.size()) {
      return false;
    }
    // `(){` after the name, on the bytes up to the first body that are no
    // line break (the delimiter, the first rule's pattern and `=>`).
    std::vector<uint32_t> room;
    for (uint32_t i = name_end; i < ts_node_start_byte(bodies.front()) && room.size() < 3; ++i) {
      if (parsed_[i] != '\n' && parsed_[i] != '\r') room.push_back(i);
    }
    if (room.size() < 3) return false;
    copy.replace(start, 2, "fn");
    uint32_t name_start = ts_node_start_byte(name);
    copy.replace(name_start, name_end - name_start,
                 parsed_.substr(name_start, name_end - name_start));
    copy[room[0]] = '(';
    copy[room[1]] = ')';
    copy[room[2]] = '{';
    for (TSNode body : bodies) {
      uint32_t b = ts_node_start_byte(body);
      uint32_t e = ts_node_end_byte(body);
      copy.replace(b, e - b, parsed_.substr(b, e - b));
      copy[b] = '{';
      copy[e - 1] = '}';
      // No recursion: a hostile file nests token trees without end.
      std::vector<TSNode> stack{body};
      while (!stack.empty()) {
        TSNode x = stack.back();
        stack.pop_back();
        if (K(x) == kMetavariable) {
          copy[ts_node_start_byte(x)] = '_';
          continue;
        }
        if (K(x) == kTokenRepetition) {
          // `$(` and `) sep op` go; what is between stays, once.
          std::vector<TSNode> c = Children(x);
          size_t last = c.size();
          while (last > 2 && (ts_node_is_named(c[last - 1]) || Text(c[last - 1]) != ")")) --last;
          if (c.size() < 3 || last <= 2) continue;
          BlankRange(copy, ts_node_start_byte(x), ts_node_end_byte(c[1]));
          BlankRange(copy, ts_node_start_byte(c[last - 1]), ts_node_end_byte(x));
          for (size_t i = 2; i + 1 < last; ++i) stack.push_back(c[i]);
          continue;
        }
        for (TSNode c : NamedChildren(x)) stack.push_back(c);
      }
    }
    copy[close] = '}';
    return true;
  }

  static void BlankRange(std::string& text, uint32_t b, uint32_t e) {
    for (uint32_t i = b; i < e && i < text.size(); ++i) {
      if (text[i] != '\n' && text[i] != '\r') text[i] = ' ';
    }
  }

  // A macro's message from argument `at`: a format and its arguments, or a
  // variable (`bail!(msg)`) with every text it can hold.
  std::vector<Template> FormatAlternatives(const std::vector<TokenArg>& args, size_t at) const {
    const std::vector<TSNode>& tokens = args[at].tokens;
    if (tokens.size() == 1 && K(tokens[0]) == kIdentifier) {
      std::vector<Template> names = Names(tokens[0], 0);
      if (!names.empty()) return names;
    }
    // A variable with several texts among the arguments (a message built
    // in branches, or in a loop that may not run): one message per text,
    // the same at each of its places (`format!("{} {}", k, k)` prints one
    // text twice). With two such variables, which texts go together is not
    // known (`let k2 = k;`), and none is chosen.
    std::string_view var;
    std::vector<Template> texts;
    for (size_t i = at + 1; i < args.size() && tokens.size() == 1 && IsString(tokens[0]); ++i) {
      if (args[i].tokens.size() != 1 || K(args[i].tokens[0]) != kIdentifier) continue;
      std::string_view name = Text(args[i].tokens[0]);
      if (name == var) continue;
      std::vector<Template> ts = Names(args[i].tokens[0], 0);
      if (ts.size() < 2 || ts.size() > kMaxAlternatives ||
          std::any_of(ts.begin(), ts.end(), [](const Template& t) { return t.IsDynamic(); }))
        continue;
      if (!var.empty()) {
        texts.clear();
        break;
      }
      var = name;
      texts = std::move(ts);
    }
    std::vector<Template> out;
    for (const Template& t : texts) {
      std::map<size_t, Template> chosen;
      for (size_t j = at + 1; j < args.size(); ++j) {
        if (args[j].tokens.size() == 1 && Text(args[j].tokens[0]) == var) chosen.emplace(j, t);
      }
      if (std::optional<Template> f = FormatTemplate(args, at, 0, &chosen)) {
        AddAlternative(out, std::move(*f));
      }
    }
    if (texts.empty()) {
      if (std::optional<Template> f = FormatTemplate(args, at, 0)) out.push_back(std::move(*f));
    }
    if (!out.empty()) return out;
    return {Template::Value(TokensText(tokens), ValueKind::kAny)};
  }

  // What the standard library prints around a panic macro's message
  // (library/core/src/panicking.rs): `unreachable!()` alone reads "internal
  // error: entered unreachable code", `assert!(x)` "assertion failed: x".
  void PanicText(std::string_view name, const std::vector<TokenArg>& args,
                 Template& message) const {
    struct Wrap {
      std::string_view macro;
      std::string_view bare;    // no message
      std::string_view prefix;  // before a message
    };
    static constexpr Wrap kWraps[] = {
        {"panic", "explicit panic", ""},
        {"unreachable", "internal error: entered unreachable code",
         "internal error: entered unreachable code: "},
        {"todo", "not yet implemented", "not yet implemented: "},
        {"unimplemented", "not implemented", "not implemented: "},
        {"assert_eq", "assertion `left == right` failed", "assertion `left == right` failed: "},
        {"debug_assert_eq", "assertion `left == right` failed",
         "assertion `left == right` failed: "},
        {"assert_ne", "assertion `left != right` failed", "assertion `left != right` failed: "},
        {"debug_assert_ne", "assertion `left != right` failed",
         "assertion `left != right` failed: "},
    };
    for (const Wrap& w : kWraps) {
      if (w.macro != name) continue;
      if (message.empty()) {
        message = Template::Literal(w.bare);
      } else if (!w.prefix.empty()) {
        Template t = Template::Literal(w.prefix);
        t.Append(message);
        message = std::move(t);
      }
      return;
    }
    if ((name == "assert" || name == "debug_assert") && message.empty() && !args.empty()) {
      std::string condition = TokensText(args[0].tokens);
      message = Template::Literal("assertion failed: ");
      // In a macro body the condition prints as the caller's tokens make it.
      if (in_macro_bodies_ && condition.find('$') != std::string::npos) {
        message.Append(Template::Value(condition, ValueKind::kAny));
      } else {
        message.AppendText(condition);
      }
    }
  }

  void CallSink(TSNode n) {
    TSNode f = Field(n, "function");
    TSNode args = Field(n, "arguments");
    if (ts_node_is_null(args)) return;
    auto arg = [&](int i) {
      return i < static_cast<int>(ts_node_named_child_count(args))
                 ? ts_node_named_child(args, static_cast<uint32_t>(i))
                 : TSNode{};
    };
    if (K(f) == kFieldExpression) {
      std::string_view method = Text(Field(f, "field"));
      if (const Sink* sink = FindSink(SinkForm::kMethod, method);
          sink != nullptr && own_methods_.count(method) == 0) {
        // A method of that name on anything: only text makes it an error.
        Site site = BaseSite(Field(f, "field"), sink->kind);
        site.exception = site.exception_written = std::string(sink->exception);
        std::vector<Template> messages = Messages(arg(sink->message_arg));
        NoteHelper(site, messages, n);
        for (Template& t : messages) {
          if (!t.IsDynamic() && !t.empty()) Emit(site, std::move(t));
        }
      } else if (method == "write_str" && InDisplayImpl()) {
        if (std::optional<Template> t = Eval(arg(0), 0)) AddDisplayText(n, std::move(*t));
      } else if (K(Field(f, "value")) == kSelf && !impls_.empty()) {
        RecordCall(n, InModule(impls_.back().type + "::" + std::string(method)),
                   /*receiver=*/true);
      }
      return;
    }
    if (K(f) == kScopedIdentifier) {
      std::string_view name = Text(Field(f, "name"));
      const Sink* sink = FindSink(SinkForm::kNewErr, name);
      TSNode path = Field(f, "path");
      if (const Sink* set = FindSink(SinkForm::kFfiSetError, name);
          set != nullptr && EndsWith(Text(path), "ffi")) {
        FfiSetErrorSink(n, *set, arg(0), arg(set->message_arg));
        return;
      }
      if (const Sink* warn = FindSink(SinkForm::kPyErrWarn, name);
          warn != nullptr && (Text(path) == "PyErr" || EndsWith(Text(path), "::PyErr"))) {
        WarnSink(n, *warn, arg(1), arg(warn->message_arg));
        return;
      }
      if (sink == nullptr && !ts_node_is_null(path)) {
        // `Self::f`, `Type::f`, `module::f`: a method of that type, or a
        // function by its name.
        std::string type = BaseTypeName(path);
        if (type == "Self") type = impls_.empty() ? "" : impls_.back().type;
        bool is_type = !type.empty() && std::isupper(static_cast<unsigned char>(type[0])) != 0;
        if (is_type) {
          RecordCall(n, InModule(type + "::" + std::string(name)));
        } else if (type == "self" || type == "crate" || type == "super") {
          RecordCall(n, Callee(name));
        } else {
          // `util::warn(..)`: the function of module `util` (its file
          // `util.rs`, or `mod util` here), not any `warn`.
          RecordCall(n, type + "::" + std::string(name));
        }
        return;
      }
      if (sink == nullptr || ts_node_is_null(path)) return;
      Site site = BaseSite(n, sink->kind);
      site.exception_written = Collapsed(path);
      // `Self::new_err` in the impl of a `create_exception!` type's helper.
      if (site.exception_written == "Self" && !impls_.empty())
        site.exception_written = impls_.back().type;
      site.exception = PythonExceptionName(site.exception_written);
      std::vector<Template> messages = Messages(arg(sink->message_arg));
      NoteHelper(site, messages, n);
      EmitEach(site, std::move(messages));
      return;
    }
    if (K(f) == kIdentifier) {
      if (const Sink* set = FindSink(SinkForm::kFfiSetError, Text(f))) {
        FfiSetErrorSink(n, *set, arg(0), arg(set->message_arg));
        return;
      }
      // A closure in a local or a parameter (`check: impl Fn(&str)`) is no
      // function of that name.
      if (!IsLocal(Text(f), f)) RecordCall(n, Callee(Text(f)));
      return;
    }
    if (K(f) == kGenericFunction) {
      TSNode g = Field(f, "function");
      TSNode types = Field(f, "type_arguments");
      if (K(g) != kScopedIdentifier || ts_node_named_child_count(types) == 0) return;
      const Sink* sink = FindSink(SinkForm::kPyErrNew, Text(Field(g, "name")));
      std::string_view owner = Text(Field(g, "path"));
      if (sink == nullptr || !(owner == "PyErr" || EndsWith(owner, "::PyErr"))) return;
      Site site = BaseSite(n, sink->kind);
      site.exception_written = Collapsed(ts_node_named_child(types, 0));
      site.exception = PythonExceptionName(site.exception_written);
      std::vector<Template> messages = Messages(arg(sink->message_arg));
      NoteHelper(site, messages, n);
      EmitEach(site, std::move(messages));
    }
  }

  // `PyErr_SetObject(typeref::JsonEncodeError, err_msg)` with `let err_msg
  // = PyUnicode_FromStringAndSize(msg.as_ptr() as *const c_char, ..)`:
  // CPython's call through the ffi, its text a string's (Eval reads the
  // conversions).
  void FfiSetErrorSink(TSNode n, const Sink& sink, TSNode type, TSNode message) {
    // A type computed at run time (`ptype.as_ptr()`) is none errdex can name.
    if (K(type) != kIdentifier && K(type) != kScopedIdentifier) return;
    Site site = BaseSite(n, sink.kind);
    site.exception_written = Collapsed(type);
    site.exception = PythonExceptionName(site.exception_written);
    std::vector<Template> messages = Messages(Pointed(message));
    // PyErr_SetString's C string ends at its NUL.
    for (Template& m : messages) {
      std::vector<Piece>& pieces = m.mutable_pieces();
      if (!pieces.empty() && !pieces.back().is_value &&
          EndsWith(pieces.back().text, std::string_view("\0", 1)))
        pieces.back().text.pop_back();
    }
    NoteHelper(site, messages, n);
    EmitEach(site, std::move(messages));
  }

  // `JsonEncodeError = pyo3_ffi::PyExc_TypeError;`: a static the crate sets
  // to one of CPython's exceptions raises that one.
  void ExceptionAlias(TSNode assignment) {
    TSNode left = Field(assignment, "left");
    TSNode right = Field(assignment, "right");
    if (K(left) != kIdentifier && K(left) != kScopedIdentifier) return;
    if (K(right) != kIdentifier && K(right) != kScopedIdentifier) return;
    std::string_view value =
        K(right) == kScopedIdentifier ? Text(Field(right, "name")) : Text(right);
    if (value.substr(0, 6) != "PyExc_") return;
    std::string name(K(left) == kScopedIdentifier ? Text(Field(left, "name")) : Text(left));
    if (K(left) == kIdentifier && IsLocal(name, assignment)) return;
    result_.exception_aliases.emplace_back(std::move(name), PythonExceptionName(value));
  }

  // `PyErr::warn(py, &category, &CString::new(message)?, 0)`, the category
  // a type object (`PyUserWarning::type_object(py)`,
  // `py.get_type::<PyDeprecationWarning>()`) written there or in a `let`.
  void WarnSink(TSNode n, const Sink& sink, TSNode category, TSNode message) {
    Site site = BaseSite(n, sink.kind);
    site.exception_written = WarningCategory(category);
    if (site.exception_written.empty()) site.exception_written = std::string(sink.exception);
    site.exception = PythonExceptionName(site.exception_written);
    // The text a C string is made of: `&CString::new(m)?`, `c_str!("..")`.
    for (int hops = 0; hops < 4 && !ts_node_is_null(message); ++hops) {
      if (K(message) == kReferenceExpression) {
        message = Field(message, "value");
      } else if (K(message) == kTryExpression) {
        message = ts_node_named_child(message, 0);
      } else if (K(message) == kCall && K(Field(message, "function")) == kScopedIdentifier &&
                 Text(Field(Field(message, "function"), "name")) == "new" &&
                 BaseTypeName(Field(Field(message, "function"), "path")) == "CString" &&
                 ts_node_named_child_count(Field(message, "arguments")) == 1) {
        message = ts_node_named_child(Field(message, "arguments"), 0);
      } else if (K(message) == kMacroInvocation && MacroName(message, src_) == "c_str") {
        std::vector<TokenArg> args =
            MacroArgs(ts_node_named_child(message, ts_node_named_child_count(message) - 1));
        if (args.size() != 1) break;
        std::optional<Template> t = EvalTokens(args[0].tokens, 0);
        if (!t) break;
        EmitEach(site, {std::move(*t)});
        return;
      } else {
        break;
      }
    }
    std::vector<Template> messages = Messages(message);
    NoteHelper(site, messages, n);
    EmitEach(site, std::move(messages));
  }

  // The class a warning category's type object is: `PyUserWarning::
  // type_object(py)`, `py.get_type::<PyUserWarning>()`, or a local holding
  // one; empty when errdex cannot tell.
  std::string WarningCategory(TSNode e) const {
    for (int hops = 0; hops < 4 && !ts_node_is_null(e); ++hops) {
      if (K(e) == kReferenceExpression) {
        e = Field(e, "value");
        continue;
      }
      if (K(e) == kTryExpression) {
        e = ts_node_named_child(e, 0);
        continue;
      }
      if (K(e) == kIdentifier) {
        e = LetValue(Text(e), e);
        continue;
      }
      if (K(e) != kCall) return "";
      TSNode f = Field(e, "function");
      TSNode args = Field(e, "arguments");
      // `builtins.getattr("DeprecationWarning")?`: a warning class by its name.
      if (K(f) == kFieldExpression && Text(Field(f, "field")) == "getattr" &&
          ts_node_named_child_count(args) == 1 && IsString(ts_node_named_child(args, 0))) {
        std::string name = StringValue(ts_node_named_child(args, 0));
        return EndsWith(name, "Warning") && IsIdentifier(name) ? name : "";
      }
      if (K(f) == kScopedIdentifier) {
        std::string_view name = Text(Field(f, "name"));
        if (name == "type_object" || name == "type_object_bound")
          return std::string(Text(Field(f, "path")));
        return "";
      }
      if (K(f) == kGenericFunction) {
        TSNode g = Field(f, "function");
        std::string_view name = K(g) == kFieldExpression ? Text(Field(g, "field")) : "";
        TSNode types = Field(f, "type_arguments");
        if ((name == "get_type" || name == "get_type_bound") &&
            ts_node_named_child_count(types) == 1)
          return std::string(Text(ts_node_named_child(types, 0)));
      }
      return "";
    }
    return "";
  }

  // ---------------------------------------------------------------- helpers

  // A sink raising with what the function around it was passed: its
  // callers raise each message with their text in it (LinkHelpers).
  // A parameter counts where it still holds what the caller passed: no
  // definition (`let msg = msg.trim()`, `if let Err(msg)`), closure
  // parameter or binding of that name reaches `at`.
  void NoteHelper(const Site& site, const std::vector<Template>& messages, TSNode at) {
    if (items_.empty() || items_.back().params.empty() || !RaisesWhenCalled(at) ||
        NeverRaised(site.guards) || LooksUnreachable(site.guards)) {
      return;
    }
    const Item& fn = items_.back();
    for (const Template& m : messages) {
      Template t = m;
      bool mentions = false;
      for (Piece& p : t.mutable_pieces()) {
        if (!p.is_value) continue;
        std::string passed = PassedName(p.text);
        // A parameter the function tests (`if m.is_empty()`) decides whether
        // it raises, and a caller's literal most likely passes: only one it
        // merely prints makes its callers' sites.
        if (!ParamReaches(passed, at) || TestedNames().count(passed) != 0) continue;
        p.text = std::move(passed);
        mentions = true;
      }
      if (!mentions) continue;
      flow::HelperSink h;
      h.name = fn.name;
      h.path = path_;
      h.file_local = fn.file_local;
      h.params = fn.params;
      h.exception = site.exception;
      h.kind = site.kind;
      h.guarded = !site.guards.empty();
      h.message = std::move(t);
      // A function of file module `util` (util.rs, util/mod.rs) is also
      // `util::f` to the calls other files make through its module.
      std::string module = FileModule();
      bool free = impls_.empty() && modules_.empty() && items_.size() == 1;
      if (free && !module.empty()) {
        flow::HelperSink alias = h;
        alias.name = module + "::" + h.name;
        alias.file_local = false;
        result_.helpers.sinks.push_back(std::move(alias));
      }
      result_.helpers.sinks.push_back(std::move(h));
    }
  }

  // The module a file is: `util` for `src/util.rs` and `src/util/mod.rs`;
  // none for a crate's root (lib.rs, main.rs).
  std::string FileModule() const {
    std::string_view p = path_;
    size_t slash = p.rfind('/');
    std::string_view file = slash == std::string_view::npos ? p : p.substr(slash + 1);
    std::string_view dir = slash == std::string_view::npos ? "" : p.substr(0, slash);
    if (EndsWith(file, ".rs")) file.remove_suffix(3);
    if (file == "mod") {
      size_t up = dir.rfind('/');
      file = up == std::string_view::npos ? dir : dir.substr(up + 1);
    }
    if (file == "lib" || file == "main" || file.empty()) return "";
    return std::string(file);
  }

  // The names some condition of the function item around the walk tests
  // (if, while, a match's value), kept for the function last asked.
  const std::unordered_set<std::string>& TestedNames() {
    TSNode fn{};
    for (size_t i = bodies_.size(); i-- > 0;) {
      if (ts_node_is_null(bodies_[i].closure)) {
        fn = bodies_[i].node;
        break;
      }
    }
    return tested_.Of(
        fn, src_,
        [&](TSNode x) {
          uint16_t k = K(x);
          return k == kIfExpression || k == kWhileExpression ? Field(x, "condition")
                 : k == kMatchExpression                     ? Field(x, "value")
                                                             : TSNode{};
        },
        [&](TSNode x) { return K(x) == kIdentifier; });
  }

  // Whether a raise at `at` happens while the function around it runs: not
  // in a trait's default (an impl may override it), nor in a closure it
  // returns, stores or hands to a thread; a closure passed to a method of
  // a value (`.ok_or_else(|| ..)`, `.map_err(|e| ..)`) runs there.
  bool RaisesWhenCalled(TSNode at) const {
    if (!impls_.empty() && impls_.back().is_trait) return false;
    for (size_t i = bodies_.size(); i-- > 0;) {
      const Body& b = bodies_[i];
      if (ts_node_is_null(b.closure)) return true;
      if (!Contains(b.closure, at)) continue;
      TSNode args = ts_node_parent(b.closure);
      TSNode call = ts_node_parent(args);
      if (K(args) != kArguments || K(call) != kCall) return false;
      TSNode f = Field(call, "function");
      if (K(f) != kFieldExpression || Text(Field(f, "field")) == "spawn") return false;
    }
    return true;
  }

  // Whether `name` is a parameter of the function around the walk that
  // reaches `at` as the caller passed it (see NoteHelper).
  bool ParamReaches(std::string_view name, TSNode at) const {
    return !items_.empty() && IsParam(items_.back(), name) && OriginOf(name, at) == Origin::kEntry;
  }

  // Where what `name` holds at `at` comes from: a definition or a closure
  // parameter in the bodies around the walk, the function item's entry (a
  // parameter, or a name from outside), or not known (the data flow's
  // budget spent, `at` not reached).
  enum class Origin { kBound, kEntry, kUnknown };
  Origin OriginOf(std::string_view name, TSNode at) const {
    for (size_t i = bodies_.size(); i-- > 0;) {
      const Body& b = bodies_[i];
      if (ts_node_is_null(b.node)) return Origin::kUnknown;
      const flow::FlowBody& body =
          flow_bodies_.Get(b.node, [&](TSNode x) { return LowerFlow(src_, x); });
      if (Binds(body, name)) {
        bool from_entry = false;
        flow::DefList defs = flow::ReachingDefinitions(body, name, at, &flow_budget_, &from_entry);
        if (flow_budget_ < 0) return Origin::kUnknown;
        if (!defs.empty()) return Origin::kBound;
        if (!from_entry) return Origin::kUnknown;
      }
      if (ts_node_is_null(b.closure)) return Origin::kEntry;
      if (ClosureParameter(b.closure, name)) return Origin::kBound;
    }
    return Origin::kUnknown;
  }

  // A parameter that may carry text: `self` does not, as far as its
  // callers can tell.
  static bool IsParam(const Item& fn, std::string_view name) {
    return name != "self" && std::find(fn.params.begin(), fn.params.end(), name) != fn.params.end();
  }

  // What a value written as `msg.to_string()`, `&msg` or `msg.into()`
  // prints: `msg`'s text.
  static std::string PassedName(std::string_view e) {
    for (bool more = true; more;) {
      more = false;
      while (!e.empty() && (e.front() == '&' || e.front() == '*')) {
        e.remove_prefix(1);
        more = true;
      }
      for (std::string_view suffix : {".to_string()", ".to_owned()", ".into()", ".as_str()",
                                      ".as_ref()", ".clone()", ".borrow()"}) {
        if (e.size() > suffix.size() && EndsWith(e, suffix)) {
          e.remove_suffix(suffix.size());
          more = true;
        }
      }
    }
    return std::string(e);
  }

  // A call `callee` (a function's name, `Type::method` for a method of a
  // type) passing text, or a parameter of the function around it (a helper
  // calling a helper): a site of its own if the callee is a helper.
  void RecordCall(TSNode call, std::string callee, bool receiver = false) {
    if (items_.empty() || result_.helpers.calls.size() >= kMaxHelperCallsPerFile) return;
    TSNode args = Field(call, "arguments");
    uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
    if (count == 0) return;
    const Item& fn = items_.back();
    flow::HelperCall c;
    if (receiver) {
      c.args.emplace_back("self");
      c.values.emplace_back();
    }
    bool useful = false;
    bool text = false;  // else only a parameter passed on: a chain, never a site
    for (uint32_t i = 0; i < count; ++i) {
      TSNode a = ts_node_named_child(args, i);
      if (K(a) == kLineComment || K(a) == kBlockComment || K(a) == kAttributeItem) continue;
      c.args.push_back(Collapsed(a));
      c.values.emplace_back();
      if (!MayBeText(a)) continue;
      std::string passed = PassedName(Text(a));
      if (ParamReaches(passed, call)) {
        c.args.back() = std::move(passed);
        useful = true;
        continue;
      }
      std::vector<Template> values = Alternatives(a, 0);
      if (std::any_of(values.begin(), values.end(),
                      [](const Template& t) { return t.LiteralSize() > 0; })) {
        c.values.back() = std::move(values);
        text = useful = true;
      }
    }
    if (!useful) return;
    c.callee = std::move(callee);
    c.caller = fn.name;
    c.caller_file_local = fn.file_local;
    c.caller_params = fn.params;
    if (text) {
      c.site = BaseSite(call, SiteKind::kRaise);
    } else {
      c.site.path = path_;  // where LinkHelpers looks the callee up
    }
    result_.helpers.calls.push_back(std::move(c));
  }

  // Whether anything in `body` binds `name`: where nothing does, no
  // definition of it can reach anywhere, and the walk is not run (a call
  // per statement in a long function made it quadratic).
  bool Binds(const flow::FlowBody& body, std::string_view name) const {
    auto [it, fresh] = bound_names_.try_emplace(&body);
    if (fresh) {
      for (const flow::FlowNode& n : body.nodes) {
        for (const flow::Binding& b : n.binds) it->second.insert(b.name);
      }
    }
    return it->second.count(name) != 0;
  }

  // Whether `name` at `at` is a parameter or a local of the function.
  bool IsLocal(std::string_view name, TSNode at) const {
    if (items_.empty()) return false;
    const std::vector<std::string>& params = items_.back().params;
    return std::find(params.begin(), params.end(), name) != params.end() ||
           OriginOf(name, at) == Origin::kBound;
  }

  // Whether an argument can be text: a literal, `format!`, a name, a
  // reference to or a conversion of one, a branch.
  bool MayBeText(TSNode a) const {
    switch (K(a)) {
      case kStringLiteral:
      case kRawStringLiteral:
      case kIdentifier:
      case kReferenceExpression:
      case kIfExpression:
      case kMatchExpression:
      case kBlock:
      case kParenthesized:
        return true;
      case kMacroInvocation:
        return IsFormatMacro(Text(Field(a, "macro")));
      case kCall:
        return K(Field(a, "function")) == kFieldExpression ||
               K(Field(a, "function")) == kScopedIdentifier;
      default:
        return false;
    }
  }

  bool InDisplayImpl() const {
    return !impls_.empty() && impls_.back().trait == "Display" && !functions_.empty();
  }

  void DisplaySink(TSNode n, TSNode tree) {
    std::vector<TokenArg> args = MacroArgs(tree);
    if (std::optional<Template> t = FormatTemplate(args, 1, 0)) AddDisplayText(n, std::move(*t));
  }

  // One text `impl Display for T` writes: a site of T where T is an error
  // type, and what T prints wherever the crate prints it. A value alone
  // (`write!(f, "{}", self.kind)`) is text only through its type.
  void AddDisplayText(TSNode n, Template t) {
    if (t.empty()) return;
    std::vector<ComposedSlot> slots = Slots(t, n);
    if (t.IsDynamic() && slots.empty()) return;
    Site site = BaseSite(n, SiteKind::kRaise);
    site.exception = site.exception_written = impls_.back().type;
    site.message = std::move(t);
    site.message.AssignNames();
    AddComposed(impls_.back().type + "::fmt", std::move(site), std::move(slots));
  }

  void AddComposed(std::string owner, Site site, std::vector<ComposedSlot> slots,
                   bool keeps_value = false) {
    // Past the cap, an error type's own Display is still its message: only
    // the texts other texts may print are dropped.
    std::string type = owner.substr(0, owner.rfind("::"));
    bool own_error =
        EndsWith(owner, "::fmt") && (EndsWith(type, "Error") || error_types_.count(type) > 0);
    if (result_.composed.size() >= kMaxComposedPerFile && !own_error) return;
    result_.composed.push_back({std::move(owner), std::move(site), std::move(slots), keeps_value});
  }

  // `fn description(&self, data: &[u8]) -> String { let position = ..;
  // format!("{} at {}", self.error_type, position) }`: a method of a type
  // whose value is a format, the text a raise calling it prints.
  void ComposingMethod(TSNode fn, const std::string& name) {
    TSNode tail = Tail(Field(fn, "body"));
    if (ts_node_is_null(tail) || K(tail) != kMacroInvocation ||
        !IsFormatMacro(MacroName(tail, src_))) {
      return;
    }
    std::optional<Template> t = Eval(tail, 0);
    if (!t || t->empty()) return;
    Site site = BaseSite(tail, SiteKind::kRaise);
    site.message = std::move(*t);
    site.message.AssignNames();
    std::vector<ComposedSlot> slots = Slots(site.message, tail);
    AddComposed(impls_.back().type + "::" + name, std::move(site), std::move(slots));
  }

  // ------------------------------------------------------ composed types

  // `use a::b::{C, D as E};`: the path each imported name stands for, so
  // that a type named by it is known to be the crate's (`crate::errors::C`)
  // or another crate's (`std::io::Error`).
  void ReadTypePaths(TSNode root) {
    std::vector<TSNode> stack{root};
    while (!stack.empty()) {
      TSNode x = stack.back();
      stack.pop_back();
      std::string_view kind = NodeType(x);
      if (kind == "use_declaration") {
        UsePaths(Field(x, "argument"), "", 0);
        continue;
      }
      if (kind == "const_item" || kind == "static_item") {
        // `const PARTIAL_ERROR: &str = "..";`: a name two items give stands for neither.
        TSNode value = Field(x, "value");
        std::string name(Text(Field(x, "name")));
        if (kind == "static_item") result_.statics.push_back(name);
        auto [it, fresh] = constants_.try_emplace(name);
        if (fresh && !ts_node_is_null(value) && IsString(value)) {
          it->second = StringValue(value);
        } else {
          it->second.reset();
        }
        continue;
      }
      for (TSNode c : NamedChildren(x)) stack.push_back(c);
    }
  }

  void UsePaths(TSNode n, const std::string& prefix, int depth) {
    if (ts_node_is_null(n) || depth > 8) return;
    std::string_view kind = NodeType(n);
    auto join = [&](std::string_view rest) {
      std::string out = prefix;
      if (!out.empty()) out += "::";
      std::string r(rest);
      r.erase(std::remove(r.begin(), r.end(), ' '), r.end());
      return out + r;
    };
    if (kind == "scoped_use_list") {
      std::string inner = join(Text(Field(n, "path")));
      UsePaths(Field(n, "list"), inner, depth + 1);
    } else if (kind == "use_list") {
      for (TSNode c : NamedChildren(n)) UsePaths(c, prefix, depth + 1);
    } else if (kind == "use_as_clause") {
      type_paths_[std::string(Text(Field(n, "alias")))] = join(Text(Field(n, "path")));
    } else if (K(n) == kScopedIdentifier) {
      type_paths_[std::string(Text(Field(n, "name")))] = join(Text(n));
    } else if (K(n) == kIdentifier && !prefix.empty()) {
      type_paths_[std::string(Text(n))] = join(Text(n));
    }
  }

  // The type a written type names, as the post-pass resolves it: `&E`,
  // `Box<E>`, `Arc<E>` and `E<'a>` are `E`; an imported name or a path
  // keeps its path (`crate::errors::E`, `std::io::Error`), which names the
  // library's own type only when it starts in the library. Empty for
  // anything else (`&str`, a tuple, a slice).
  std::string TypeRef(TSNode type, int depth = 0) const {
    if (ts_node_is_null(type) || depth > 8) return "";
    if (NodeType(type) == "reference_type") return TypeRef(Field(type, "type"), depth + 1);
    if (K(type) == kGenericType) {
      std::string_view base = Text(Field(type, "type"));
      if (base == "Box" || base == "Rc" || base == "Arc") {
        for (TSNode a : NamedChildren(Field(type, "type_arguments"))) {
          if (NodeType(a) != "lifetime") return TypeRef(a, depth + 1);
        }
        return "";
      }
      return TypeRef(Field(type, "type"), depth + 1);
    }
    if (K(type) == kTypeIdentifier) {
      std::string name(Text(type));
      if (auto it = type_paths_.find(name); it != type_paths_.end()) return it->second;
      return name;
    }
    if (K(type) == kScopedTypeIdentifier) {
      std::string t(Text(type));
      t.erase(std::remove_if(t.begin(), t.end(), [](char c) { return std::isspace(c) != 0; }),
              t.end());
      // `io::Error` after `use std::io;` is `std::io::Error`.
      size_t cut = t.find("::");
      if (auto it = type_paths_.find(t.substr(0, cut)); it != type_paths_.end())
        t = it->second + t.substr(cut);
      return t;
    }
    return "";
  }

  void Declare(std::string key, std::string type) {
    if (type.empty() || result_.declared.size() >= kMaxDeclaredPerFile) return;
    result_.declared[std::move(key)] = std::move(type);
  }

  // `struct E { kind: Kind }`, `struct P(Pos)`, `enum E { Io(Inner), Bad {
  // at: Pos } }`: each field's type, as `E.kind`, `P.0`, `E::Io#0`,
  // `E::Bad.at`.
  void DeclareFields(TSNode item) {
    std::string type(Text(Field(item, "name")));
    if (type.empty()) return;
    if (K(item) == kStructItem) {
      DeclareFieldList(Field(item, "body"), type + ".", type + ".");
      return;
    }
    for (TSNode v : NamedChildren(Field(item, "body"))) {
      if (K(v) != kEnumVariant) continue;
      std::string variant = type + "::" + std::string(Text(Field(v, "name")));
      DeclareFieldList(Field(v, "body"), variant + "#", variant + ".");
    }
  }

  void DeclareFieldList(TSNode body, const std::string& by_position, const std::string& by_name) {
    if (ts_node_is_null(body)) return;
    std::string_view kind = NodeType(body);
    int position = 0;
    for (TSNode c : NamedChildren(body)) {
      uint16_t k = K(c);
      if (k == kAttributeItem || k == kVisibilityModifier || k == kLineComment ||
          k == kBlockComment) {
        continue;
      }
      if (kind == "field_declaration_list") {
        if (NodeType(c) != "field_declaration") continue;
        Declare(by_name + std::string(Text(Field(c, "name"))), TypeRef(Field(c, "type")));
      } else if (kind == "ordered_field_declaration_list") {
        Declare(by_position + std::to_string(position++), TypeRef(c));
      }
    }
  }

  // The values of `t` printed by their Display (no spec: `{}`, `{x}`) or
  // as a method's text, whose type the post-pass may know.
  std::vector<ComposedSlot> Slots(const Template& t, TSNode at) const {
    std::vector<ComposedSlot> out;
    for (const Piece& p : t.pieces()) {
      if (!PrintsDisplay(p) || out.size() >= kMaxSlots) continue;
      if (std::optional<ComposedSlot> s = SlotOf(p.text, at)) out.push_back(std::move(*s));
    }
    return out;
  }

  // A value printed by its Display: no spec (`{:?}` is Debug, `{:>8}` pads).
  static bool PrintsDisplay(const Piece& p) {
    return p.is_value && p.spec.empty() && (p.kind == ValueKind::kStr || p.kind == ValueKind::kAny);
  }

  // `self.kind`, `pos`, `e.to_string()`: a Display; `e.description(data)`
  // a method's text, of a receiver whose type may not be known.
  std::optional<ComposedSlot> SlotOf(const std::string& expression, TSNode at) const {
    std::string_view e = expression;
    while (!e.empty() && (e.front() == '&' || e.front() == '*')) e.remove_prefix(1);
    ComposedSlot slot;
    slot.value = expression;
    slot.method = "fmt";
    std::string_view receiver = e;
    if (!e.empty() && e.back() == ')') {
      size_t open = std::string_view::npos;
      int nesting = 0;
      for (size_t i = e.size(); i-- > 0;) {
        if (e[i] == ')') ++nesting;
        if (e[i] == '(' && --nesting == 0) {
          open = i;
          break;
        }
      }
      size_t dot = open == std::string_view::npos || open == 0 ? open : e.rfind('.', open - 1);
      if (dot == std::string_view::npos) return std::nullopt;
      std::string_view method = e.substr(dot + 1, open - dot - 1);
      if (method.empty() || !std::all_of(method.begin(), method.end(), IsIdentChar)) {
        return std::nullopt;
      }
      receiver = e.substr(0, dot);
      if (method == "to_string") {
        if (open + 2 != e.size()) return std::nullopt;
      } else {
        slot.method = std::string(method);
      }
    }
    slot.type = TypeOfName(receiver, at);
    if (slot.type.empty() && slot.method == "fmt") return std::nullopt;
    return slot;
  }

  // What type `name` (`self`, `self.field`, a binding) has at `at`: a
  // field of the impl's type, a variant's field a match arm binds, a
  // parameter's written type, a `let`'s; empty when not known.
  std::string TypeOfName(std::string_view name, TSNode at) const {
    std::string self_type = impls_.empty() ? "" : impls_.back().type;
    if (name == "self") return self_type;
    if (name.substr(0, 5) == "self.") {
      std::string_view field = name.substr(5);
      bool index = !field.empty() && std::all_of(field.begin(), field.end(),
                                                 [](char c) { return c >= '0' && c <= '9'; });
      if (self_type.empty() || (!index && !IsIdentifier(field))) return "";
      return self_type + "." + std::string(field);
    }
    if (!IsIdentifier(name)) return "";
    for (size_t i = ancestors_.size(); i-- > 0;) {
      uint16_t k = K(ancestors_[i]);
      if (k == kFunctionItem || k == kClosure) break;
      if (k != kMatchArm) continue;
      std::string bound = ArmBinding(Field(ancestors_[i], "pattern"), name);
      if (!bound.empty()) return bound;
    }
    if (items_.empty()) return "";
    const Item& fn = items_.back();
    for (size_t i = 0; i < fn.params.size() && i < fn.param_types.size(); ++i) {
      if (fn.params[i] == name) return fn.param_types[i];
    }
    return LetType(name, at);
  }

  // `Self::Io(e)`, `E::Bad { at, .. }`, `E::Bad { at: p }`: the variant's
  // field `name` binds, as `E::Io#0`, `E::Bad.at`.
  std::string ArmBinding(TSNode pattern, std::string_view name) const {
    if (ts_node_is_null(pattern)) return "";
    if (K(pattern) == kMatchPattern && ts_node_named_child_count(pattern) > 0)
      pattern = ts_node_named_child(pattern, 0);
    std::string_view kind = NodeType(pattern);
    if (kind != "tuple_struct_pattern" && kind != "struct_pattern") return "";
    TSNode type = Field(pattern, "type");
    if (K(type) != kScopedIdentifier && K(type) != kScopedTypeIdentifier) return "";
    std::string owner = BaseTypeName(Field(type, "path"));
    if (owner == "Self") owner = impls_.empty() ? "" : impls_.back().type;
    if (owner.empty()) return "";
    std::string variant = owner + "::" + std::string(Text(Field(type, "name")));
    auto binds = [&](TSNode p) {
      while (!ts_node_is_null(p) && (K(p) == kMutPattern || NodeType(p) == "ref_pattern")) {
        p = ts_node_named_child(p, ts_node_named_child_count(p) - 1);
      }
      return !ts_node_is_null(p) && K(p) == kIdentifier && Text(p) == name;
    };
    int position = 0;
    for (TSNode c : NamedChildren(pattern)) {
      if (ts_node_eq(c, type) || K(c) == kLineComment || K(c) == kBlockComment) continue;
      if (kind == "tuple_struct_pattern") {
        if (binds(c)) return variant + "#" + std::to_string(position);
        ++position;
        continue;
      }
      if (NodeType(c) != "field_pattern") continue;
      TSNode field = Field(c, "name");
      TSNode bound = Field(c, "pattern");
      if (ts_node_is_null(bound) ? Text(field) == name : binds(bound))
        return variant + "." + std::string(Text(field));
    }
    return "";
  }

  // The type of the one `let name` of the function before `at`: written
  // (`let p: Pos = ..`), or what `self.m(..)`, `T::m(..)` return, or `T {
  // .. }`; empty when not known or bound twice.
  std::string LetType(std::string_view name, TSNode at) const {
    TSNode found = OneLet(name, at);
    if (ts_node_is_null(found)) return "";
    if (std::string t = TypeRef(Field(found, "type")); !t.empty()) return t;
    TSNode value = Field(found, "value");
    std::string self_type = impls_.empty() ? "" : impls_.back().type;
    if (K(value) == kCall) {
      TSNode f = Field(value, "function");
      if (K(f) == kFieldExpression && K(Field(f, "value")) == kSelf && !self_type.empty())
        return self_type + "::" + std::string(Text(Field(f, "field"))) + "()";
      if (K(f) == kScopedIdentifier && !ts_node_is_null(Field(f, "path"))) {
        std::string type = BaseTypeName(Field(f, "path"));
        if (type == "Self") type = self_type;
        if (!type.empty() && std::isupper(static_cast<unsigned char>(type[0])) != 0)
          return type + "::" + std::string(Text(Field(f, "name"))) + "()";
      }
    } else if (NodeType(value) == "struct_expression") {
      std::string type = BaseTypeName(Field(value, "name"));
      return type == "Self" ? self_type : type;
    }
    return "";
  }

  // The value of the one `let name = ..` of the function before `at`.
  TSNode LetValue(std::string_view name, TSNode at) const {
    TSNode found = OneLet(name, at);
    return ts_node_is_null(found) ? found : Field(found, "value");
  }

  // The one `let name` of the function around the walk before `at`; none
  // when there are two, or the function is too long to look through.
  TSNode OneLet(std::string_view name, TSNode at) const {
    TSNode body{};
    for (size_t i = bodies_.size(); i-- > 0;) {
      if (ts_node_is_null(bodies_[i].closure)) {
        body = bodies_[i].node;
        break;
      }
    }
    if (ts_node_is_null(body)) return TSNode{};
    // The function's `let`s of plain names, read once per function.
    auto [it, fresh] = lets_.try_emplace(ts_node_start_byte(body));
    if (fresh) {
      size_t visited = 0;
      std::vector<TSNode> stack{body};
      while (!stack.empty()) {
        if (++visited > 20000) {
          it->second.clear();
          it->second.emplace("", std::vector<TSNode>{});  // too long: no name is known
          break;
        }
        TSNode x = stack.back();
        stack.pop_back();
        if (K(x) == kLetDeclaration) {
          TSNode p = Field(x, "pattern");
          if (K(p) == kMutPattern) p = ts_node_named_child(p, ts_node_named_child_count(p) - 1);
          if (K(p) == kIdentifier) it->second[std::string(Text(p))].push_back(x);
        }
        if (K(x) == kFunctionItem && !ts_node_eq(x, body)) continue;
        for (TSNode c : NamedChildren(x)) stack.push_back(c);
      }
    }
    if (it->second.count("") > 0) return TSNode{};
    auto lets = it->second.find(std::string(name));
    if (lets == it->second.end()) return TSNode{};
    TSNode found{};
    int before = 0;
    for (TSNode l : lets->second) {
      if (ts_node_start_byte(l) >= ts_node_start_byte(at)) continue;
      found = l;
      ++before;
    }
    return before == 1 ? found : TSNode{};
  }

  // thiserror: `#[error("text {0}")]` on an enum's variants or on a struct.
  void ErrorAttributes(TSNode item, const std::vector<TSNode>& item_attributes) {
    std::string type(Text(Field(item, "name")));
    bool derives = false;
    for (TSNode a : item_attributes) {
      std::string_view text = Text(a);
      if (text.find("derive") != std::string_view::npos &&
          text.find("Error") != std::string_view::npos) {
        derives = true;
      }
    }
    if (derives) error_types_.insert(type);
    if (K(item) == kStructItem) {
      for (TSNode a : item_attributes) ErrorAttribute(a, type, type, Field(item, "body"));
      return;
    }
    TSNode body = Field(item, "body");
    // Attributes gathered in one pass, as Visit does.
    std::vector<TSNode> attributes;
    for (TSNode v : NamedChildren(body)) {
      if (K(v) == kAttributeItem) {
        attributes.push_back(v);
        continue;
      }
      if (K(v) == kLineComment || K(v) == kBlockComment) continue;
      if (K(v) == kEnumVariant) {
        std::string variant(Text(Field(v, "name")));
        for (TSNode a : attributes)
          ErrorAttribute(a, type, type + "::" + variant, Field(v, "body"));
      }
      attributes.clear();
    }
  }

  void ErrorAttribute(TSNode item, const std::string& type, const std::string& written,
                      TSNode fields) {
    TSNode attr = ts_node_named_child(item, 0);
    if (K(attr) != kAttribute || ts_node_named_child_count(attr) < 2) return;
    if (Text(ts_node_named_child(attr, 0)) != "error") return;
    TSNode tree = Field(attr, "arguments");
    if (K(tree) != kTokenTree) return;
    std::vector<TokenArg> args = MacroArgs(tree);
    if (args.empty() || args[0].tokens.size() != 1 || !IsString(args[0].tokens[0]))
      return;  // transparent
    // `{0}` is the variant's first field; `{}` with no argument too.
    flow::FormatArgs call = RustFormatArgs();
    for (size_t i = 1; i < args.size(); ++i) {
      flow::Arg a{TokensText(args[i].tokens), EvalTokens(args[i].tokens, 1)};
      if (args[i].name.empty()) {
        call.positional.push_back(std::move(a));
      } else {
        call.named.emplace(args[i].name, std::move(a));
      }
    }
    if (call.positional.empty()) {
      uint32_t n = ts_node_is_null(fields) ? 0 : ts_node_named_child_count(fields);
      for (uint32_t i = 0; i < n && i < 10; ++i)
        call.positional.push_back({std::to_string(i), std::nullopt});
    }
    Site site = BaseSite(item, SiteKind::kRaise);
    site.exception = type;
    site.exception_written = written;
    site.function = written;
    site.message = flow::ApplyFormat(flow::Format::kBraces,
                                     Template::Literal(StringValue(args[0].tokens[0])), call);
    site.message.AssignNames();
    // The text is T's Display, written by the post-pass with what the
    // fields it prints compose (`#[error("config: {0}")] Config(ConfigError)`):
    // `{0}` is the variant's first field, `{path}` its field `path`.
    std::vector<ComposedSlot> slots;
    bool variant = written != type;
    for (const Piece& p : site.message.pieces()) {
      if (!PrintsDisplay(p) || slots.size() >= kMaxSlots) continue;
      bool index = !p.text.empty() && std::all_of(p.text.begin(), p.text.end(),
                                                  [](char c) { return c >= '0' && c <= '9'; });
      if (!index && !IsIdentifier(p.text)) continue;
      slots.push_back({p.text, written + (index && variant ? "#" : ".") + p.text, "fmt"});
    }
    error_types_.insert(type);  // `#[error]` is thiserror's: T derives Error
    AddComposed(type + "::fmt", std::move(site), std::move(slots), /*keeps_value=*/true);
  }

  // A `match` whose arms give each variant its text: one error per arm,
  // the variant written as `Type::Variant` (its snake_case name is the key
  // pydantic-core prints as `[type=...]`).
  void MessageTable(TSNode match) {
    TSNode block = Field(match, "body");
    std::vector<std::pair<TSNode, TSNode>> arms;  // arm, text literal
    size_t total = 0;
    for (TSNode arm : NamedChildren(block)) {
      if (K(arm) != kMatchArm) continue;
      ++total;
      TSNode value = Field(arm, "value");
      if (K(value) == kBlock) {
        std::vector<TSNode> inner;
        for (TSNode c : NamedChildren(value)) {
          if (K(c) != kLineComment && K(c) != kBlockComment) inner.push_back(c);
        }
        value = inner.size() == 1 ? inner[0] : TSNode{};
      }
      if (ts_node_is_null(value) || !IsString(value)) continue;
      // A table of names (`Self::IntParsing => "int_parsing"`) is no table of messages.
      std::string text = StringValue(value);
      if (text.find(' ') == std::string::npos) continue;
      arms.emplace_back(arm, value);
    }
    if (arms.size() < 2 || arms.size() * 2 < total) return;
    for (const auto& [arm, value] : arms) {
      TSNode pattern = Field(arm, "pattern");
      for (const Variant& v : Variants(pattern)) {
        // The arm, not the whole match: a page would mark every arm. Its
        // guards end with the arm's pattern.
        Site site = BaseSite(value, SiteKind::kReturn, arm);
        site.exception = v.type;
        site.exception_written = v.type + "::" + v.name;
        // A named field is filled in later by the code that renders the
        // table's text.
        Template message = flow::ApplyFormat(
            flow::Format::kBraces, Template::Literal(StringValue(value)), RustFormatArgs());
        Emit(std::move(site), std::move(message));
      }
    }
  }

  // The enum variants a match pattern names (`A::B`, `Self::B { .. }`,
  // `A::B(..) | A::C`), `Self` resolved to the impl's type.
  std::vector<Variant> Variants(TSNode pattern) const {
    std::vector<Variant> out;
    std::vector<TSNode> stack{pattern};
    while (!stack.empty() && out.size() < 64) {
      TSNode n = stack.back();
      stack.pop_back();
      uint16_t k = K(n);
      if (k == kScopedIdentifier || k == kScopedTypeIdentifier) {
        TSNode path = Field(n, "path");
        std::string type(Text(path));
        size_t cut = type.rfind("::");
        if (cut != std::string::npos) type = type.substr(cut + 2);
        if (type == "Self" && !impls_.empty()) type = impls_.back().type;
        if (!type.empty()) out.push_back({type, std::string(Text(Field(n, "name")))});
        continue;
      }
      std::vector<TSNode> children = NamedChildren(n);
      for (auto it = children.rbegin(); it != children.rend(); ++it) {
        // Only the pattern's head: the fields' own patterns name no variant.
        if (K(*it) == kScopedIdentifier || K(*it) == kScopedTypeIdentifier ||
            NodeType(*it).find("pattern") != std::string_view::npos) {
          stack.push_back(*it);
        }
      }
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

  // ---------------------------------------------------------------- sites

  // `span`: the node the site stands for when the walk did not put it on the
  // ancestor stack (a message table's arm); else the statement around `at`.
  Site BaseSite(TSNode at, SiteKind kind, TSNode span = TSNode{}) {
    TSNode stmt = at;
    for (size_t i = ts_node_is_null(span) ? ancestors_.size() : 0; i-- > 0;) {
      uint16_t k = K(ancestors_[i]);
      if (k == kExpressionStatement || k == kLetDeclaration || k == kMatchArm) {
        stmt = ancestors_[i];
        break;
      }
      if (k == kBlock || k == kFunctionItem) break;
    }
    if (!ts_node_is_null(span)) stmt = span;
    if (!Contains(stmt, at)) stmt = at;
    Site s;
    s.kind = kind;
    s.language = "rust";
    s.path = path_;
    s.line = StartLine(at);
    s.column = StartColumn(at);
    s.end_line = std::max(s.line, EndLine(stmt));
    s.function = FunctionName();
    s.statement = std::string(TruncateUtf8(Text(stmt), kMaxStatementBytes));
    lines_.FillExcerpt(s, kExcerptBefore, kExcerptAfter, kMaxExcerptBytes);
    s.guards = Guards(at);
    s.trigger = TriggerSentence(s.guards);
    s.internal = LooksUnreachable(s.guards);
    return s;
  }

  // The conditions on the way from the function to `at`, outermost first.
  std::vector<Guard> Guards(TSNode at) {
    for (size_t i = ancestors_.size(); i-- > 0;) {
      if (K(ancestors_[i]) == kFunctionItem || K(ancestors_[i]) == kClosure) {
        return RustGuards(ancestors_[i], at, src_, guards_);
      }
    }
    return {};
  }

  void Emit(Site site, Template message) {
    site.message = std::move(message);
    site.message.AssignNames();
    // A raise printing a value of a type the crate declares: the post-pass
    // composes what the type prints.
    if (!ancestors_.empty()) {
      if (std::vector<ComposedSlot> slots = Slots(site.message, ancestors_.back());
          !slots.empty()) {
        AddComposed("", site, std::move(slots));
      }
    }
    Add(std::move(site));
  }

  void Add(Site site) {
    std::string key = std::to_string(site.line) + ":" + std::to_string(site.column) + ":" +
                      site.exception_written + ":" + site.message.Display();
    if (!emitted_.insert(std::move(key)).second) return;
    result_.sites.push_back(std::move(site));
  }

  std::string path_;
  std::string_view src_;
  std::string_view parsed_;  // src_ as the grammar read it
  flow::GuardCache guards_;  // early exits of the blocks, read once per file
  SourceLines lines_;
  const SymbolTable& symbols_;
  FileResult result_;
  std::vector<TSNode> ancestors_;
  std::vector<std::string> functions_;
  std::vector<Item> items_;  // the function items around the walk
  std::vector<std::string> modules_;  // the inline modules around the walk
  std::set<std::string_view> own_methods_;                   // method sinks' names the file defines
  std::map<std::string, std::string, std::less<>> imports_;  // ReadImports
  TestedNameCache tested_;  // the names the function around the walk tests
  std::vector<Impl> impls_;
  // The bodies around the walk, innermost last: a function's, or a
  // closure's (with the closure, whose parameters it binds).
  struct Body {
    TSNode node;
    TSNode closure;
  };
  std::vector<Body> bodies_;
  // The data flow's lowered bodies, the look-ups' results by the use's
  // byte, and the statements the data flow may still visit in this file.
  mutable flow::FlowBodies flow_bodies_;
  // The names each lowered body binds (Binds).
  mutable std::unordered_map<const flow::FlowBody*, std::unordered_set<std::string_view>>
      bound_names_;
  mutable std::unordered_map<uint32_t, std::vector<Template>> resolved_;
  mutable int64_t flow_budget_ = kMaxFlowStatementsPerFile;
  std::set<std::string> error_types_;                           // derive(Error) or impl Error
  std::map<std::string, std::string, std::less<>> type_paths_;  // ReadTypePaths
  // The file's `const`/`static` string items by name; none for a name
  // given twice or to no string.
  std::map<std::string, std::optional<std::string>, std::less<>> constants_;
  // OneLet's `let`s by name, per function body (by its first byte).
  mutable std::unordered_map<uint32_t, std::unordered_map<std::string, std::vector<TSNode>>> lets_;
  std::set<std::string> emitted_;
  bool too_deep_ = false;
  // The walk's `macro_rules!` definitions, none inside another; and whether
  // this walk is over their bodies (ReadMacroBodies).
  std::vector<TSNode> macro_definitions_;
  bool in_macro_bodies_ = false;
};

}  // namespace

bool IsRustSourcePath(std::string_view path) { return EndsWith(path, ".rs"); }

namespace {

// Calls of the macros the crate defines as aliases of raising ones become
// their sites. A name two definitions give different types raises none.
void LinkMacroAliases(std::vector<FileResult>& files) {
  std::map<std::string, std::optional<MacroAlias>> defined;
  for (FileResult& f : files) {
    for (MacroAlias& a : f.macro_aliases) {
      auto [it, fresh] = defined.try_emplace(a.name, a);
      if (!fresh && it->second &&
          (it->second->forwards != a.forwards ||
           it->second->exception_written != a.exception_written)) {
        it->second.reset();
      }
    }
    f.macro_aliases.clear();
  }
  auto type_of = [&](const std::string& name) -> std::optional<std::string> {
    std::string at = name;
    for (int hops = 0; hops < 4; ++hops) {
      auto it = defined.find(at);
      if (it == defined.end() || !it->second) return std::nullopt;
      if (!it->second->exception_written.empty()) return it->second->exception_written;
      at = it->second->forwards;
    }
    return std::nullopt;
  };
  for (FileResult& f : files) {
    for (MacroUse& use : f.macro_uses) {
      std::optional<std::string> written = type_of(use.name);
      if (!written) continue;
      use.site.exception_written = *written;
      use.site.exception = PythonExceptionName(*written);
      for (Template& m : use.messages) {
        Site site = use.site;
        site.message = std::move(m);
        site.message.AssignNames();
        f.sites.push_back(std::move(site));
      }
    }
    f.macro_uses.clear();
  }
}

// Texts a composition may have, types deep it may go, and texts one type
// or method may have to be composed.
constexpr size_t kMaxComposed = 64;
constexpr int kMaxComposeDepth = 4;
// Composed texts beyond those as written, per crate: 64 ways for each of
// thousands of texts would be millions of sites from one generated file.
constexpr size_t kMaxComposedSites = 20000;

// The texts types' Display impls and methods write, composed into the
// errors that print them: an error type's own Display (`write!(f, "{} at
// index {}", self.error_type, self.index)` with each arm of the field
// type's Display), and each raise printing a value of a type the library
// declares (`new_err(e.description(data))`). A composed text's site is the
// place its words are chosen, where one text of several was: the arm.
class Composer {
 public:
  explicit Composer(std::vector<FileResult>& files) : files_(files) {
    std::map<std::string, size_t> owner_file;
    for (size_t i = 0; i < files.size(); ++i) {
      FileResult& f = files[i];
      // The first part of a path naming the library's own item: a file's
      // or a directory's name (`errors::Kind`, a workspace crate's `jiter::`).
      std::string_view path = f.helpers.path;
      for (size_t start = 0; start < path.size();) {
        size_t slash = path.find('/', start);
        std::string_view part = path.substr(start, slash - start);
        if (EndsWith(part, ".rs")) part.remove_suffix(3);
        modules_.emplace(part);
        if (slash == std::string_view::npos) break;
        start = slash + 1;
      }
      for (auto& [key, type] : f.declared) {
        auto [it, fresh] = declared_.emplace(key, type);
        if (!fresh && it->second != type) it->second.clear();  // two types of one name
      }
      for (const std::string& t : f.error_types) error_types_.insert(t);
      for (const std::string& d : f.helpers.defined) {
        size_t cut = d.rfind("::");
        ++defined_[cut == std::string::npos ? d : d.substr(cut + 2)];
      }
      for (const ComposedText& c : f.composed) {
        if (c.owner.empty()) continue;
        auto [it, fresh] = owner_file.emplace(c.owner, i);
        if (!fresh && it->second != i) ambiguous_.insert(c.owner);  // two types of one name
        texts_[c.owner].push_back(&c);
        size_t cut = c.owner.rfind("::");
        methods_[c.owner.substr(cut + 2)].insert(c.owner);
      }
      for (const Site& s : f.sites) file_of_[s.path] = i;
      if (!f.helpers.path.empty()) file_of_[f.helpers.path] = i;
    }
  }

  void Run() {
    std::vector<std::pair<size_t, Site>> out;
    for (size_t i = 0; i < files_.size(); ++i) {
      for (const ComposedText& c : files_[i].composed) {
        std::string type = c.owner.substr(0, c.owner.rfind("::"));
        bool display = !c.owner.empty() && EndsWith(c.owner, "::fmt");
        if (!c.owner.empty() &&
            !(display && (error_types_.count(type) > 0 || EndsWith(type, "Error")))) {
          continue;
        }
        std::set<std::string> visiting;
        if (!c.owner.empty()) visiting.insert(c.owner);
        std::vector<Alt> alts = ExpandText(c, 0, visiting);
        // The text as written stays (a value no type fills, `{self.kind}`
        // where the kind prints a method's value, reads as it did); a raise
        // has its own site already.
        if (!c.owner.empty()) alts.push_back({c.site.message, nullptr, ""});
        for (Alt& a : alts) {
          bool as_written = a.via.empty() && a.message == c.site.message;
          if (a.message.empty() || (a.message.IsDynamic() && !(as_written && c.keeps_value)))
            continue;
          // A composed text that adds no words (`{target}` as `{self.triple}`)
          // says nothing the text as written does not.
          if (!a.via.empty() && a.message.LiteralSize() <= c.site.message.LiteralSize()) continue;
          if (c.owner.empty() && a.via.empty()) continue;
          Site s = a.where != nullptr ? *a.where : c.site;
          if (c.owner.empty()) {
            s.exception = c.site.exception;
            s.exception_written = c.site.exception_written;
            s.kind = c.site.kind;
            s.internal = c.site.internal || s.internal;
            if (a.where != nullptr) {
              std::vector<Guard> guards = c.site.guards;
              guards.insert(guards.end(), a.where->guards.begin(), a.where->guards.end());
              s.guards = std::move(guards);
              s.trigger = TriggerSentence(s.guards);
            }
            s.via = a.via;
          } else {
            s.exception = c.site.exception;
            s.exception_written = c.site.exception_written;
          }
          s.message = std::move(a.message);
          s.message.AssignNames();
          std::string key = s.path + ":" + std::to_string(s.line) + ":" + std::to_string(s.column) +
                            ":" + s.exception_written + ":" + s.message.Display();
          if (!as_written && composed_sites_ >= kMaxComposedSites) continue;
          if (!emitted_.insert(std::move(key)).second) continue;
          if (!as_written) ++composed_sites_;
          auto it = file_of_.find(s.path);
          out.emplace_back(it != file_of_.end() ? it->second : i, std::move(s));
        }
      }
    }
    for (auto& [i, s] : out) files_[i].sites.push_back(std::move(s));
    for (FileResult& f : files_) {
      f.composed.clear();
      f.declared.clear();
      f.error_types.clear();
    }
  }

 private:
  struct Alt {
    Template message;
    const Site* where = nullptr;  // the text chosen among several, if any
    std::string via;              // the first type or method that filled a value
  };

  // The library's type a reference names: `T.field`, `T::Variant#0`,
  // `T::method()` through what the library declares; a path by its last
  // part when it starts in the library.
  std::string Resolve(const std::string& ref, int depth = 0) const {
    if (ref.empty() || depth > 8) return "";
    if (ref.find('.') != std::string::npos || ref.find('#') != std::string::npos ||
        EndsWith(ref, "()")) {
      auto it = declared_.find(ref);
      return it == declared_.end() ? "" : Resolve(it->second, depth + 1);
    }
    size_t first = ref.find("::");
    if (first == std::string::npos) return ref;
    std::string head = ref.substr(0, first);
    if (head != "crate" && head != "self" && head != "super" && modules_.count(head) == 0)
      return "";
    return ref.substr(ref.rfind("::") + 2);
  }

  // The texts a slot's type or method has: `T::fmt`, `T::description`;
  // a method of a receiver of unknown type by its name, when the library
  // defines one function of that name.
  std::string KeyOf(const ComposedSlot& slot) const {
    std::string type = Resolve(slot.type);
    if (!type.empty()) return type + "::" + slot.method;
    if (slot.method == "fmt" || !slot.type.empty()) return "";
    auto it = methods_.find(slot.method);
    auto defined = defined_.find(slot.method);
    if (it == methods_.end() || it->second.size() != 1 || defined == defined_.end() ||
        defined->second != 1) {
      return "";
    }
    return *it->second.begin();
  }

  std::vector<Alt> Expand(const std::string& key, int depth, std::set<std::string>& visiting) {
    if (key.empty() || depth > kMaxComposeDepth || visiting.count(key) > 0 ||
        ambiguous_.count(key) > 0) {
      return {};
    }
    auto texts = texts_.find(key);
    if (texts == texts_.end() || texts->second.size() > kMaxComposed) return {};
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    visiting.insert(key);
    std::vector<Alt> out;
    for (const ComposedText* c : texts->second) {
      std::vector<Alt> alts = ExpandText(*c, depth, visiting);
      if (out.size() + alts.size() > kMaxComposed) {
        out.clear();  // too many to spell: the value stays a value
        break;
      }
      for (Alt& a : alts) {
        // Each text is one of the type's: its own site, unless it chose among others.
        if (a.where == nullptr && texts->second.size() > 1) a.where = &c->site;
        a.via = key;
        out.push_back(std::move(a));
      }
    }
    visiting.erase(key);
    memo_.emplace(key, out);
    return out;
  }

  std::vector<Alt> ExpandText(const ComposedText& c, int depth, std::set<std::string>& visiting) {
    std::vector<Alt> alts(1);
    for (const Piece& p : c.site.message.pieces()) {
      std::vector<Alt> subs;
      if (p.is_value && p.spec.empty() && p.kind != ValueKind::kRepr) {
        for (const ComposedSlot& slot : c.slots) {
          if (slot.value == p.text) {
            subs = Expand(KeyOf(slot), depth + 1, visiting);
            break;
          }
        }
      }
      if (subs.empty() || alts.size() * subs.size() > kMaxComposed) {
        for (Alt& a : alts) a.message.AppendPiece(p);
        continue;
      }
      std::vector<Alt> next;
      for (const Alt& a : alts) {
        for (const Alt& sub : subs) {
          Alt n = a;
          n.message.Append(sub.message);
          if (n.where == nullptr && subs.size() > 1) n.where = sub.where;
          if (n.via.empty()) n.via = sub.via;
          next.push_back(std::move(n));
        }
      }
      alts = std::move(next);
    }
    return alts;
  }

  std::vector<FileResult>& files_;
  std::set<std::string, std::less<>> modules_{"crate", "self", "super"};
  std::map<std::string, std::string> declared_;
  std::set<std::string> error_types_;
  std::map<std::string, int> defined_;  // functions by their last name
  std::map<std::string, std::vector<const ComposedText*>> texts_;
  std::map<std::string, std::set<std::string>> methods_;  // composing methods by name
  std::set<std::string> ambiguous_;
  std::map<std::string, size_t> file_of_;
  std::map<std::string, std::vector<Alt>> memo_;
  std::set<std::string> emitted_;
  size_t composed_sites_ = 0;  // alternatives emitted beyond the texts as written
};

}  // namespace

// Sites raising a static the crate sets to a CPython exception
// (`JsonEncodeError = PyExc_TypeError`) raise that exception; a static set
// to two is left as written.
void ResolveExceptionAliases(std::vector<FileResult>& files) {
  // Only a static of the crate is one name everywhere: a local or a
  // parameter of that name in another function is another value.
  std::set<std::string> statics;
  for (FileResult& f : files) {
    statics.insert(f.statics.begin(), f.statics.end());
    f.statics.clear();
  }
  std::map<std::string, std::string> aliases;
  for (FileResult& f : files) {
    for (auto& [name, exception] : f.exception_aliases) {
      if (statics.count(name) == 0) continue;
      auto [it, fresh] = aliases.emplace(name, exception);
      if (!fresh && it->second != exception) it->second.clear();
    }
    f.exception_aliases.clear();
  }
  if (aliases.empty()) return;
  for (FileResult& f : files) {
    for (Site& s : f.sites) {
      auto it = aliases.find(s.exception);
      if (it != aliases.end() && !it->second.empty()) s.exception = it->second;
    }
  }
}

void LinkHelpers(std::vector<FileResult>& files) {
  Composer(files).Run();
  LinkMacroAliases(files);
  flow::HelperLanguage rust;
  rust.printing = flow::Printing::kRust;
  // A type passed as a value is no Rust idiom: PyO3 takes it as a type argument.
  rust.type_named = [](std::string_view, int) -> std::optional<std::string> {
    return std::nullopt;
  };
  rust.max_depth = kMaxHelperDepth;
  rust.ambiguous_reaches_none = true;
  flow::LinkHelpers(files, rust);
  ResolveExceptionAliases(files);
}

std::string ParseableRust(std::string_view bytes) {
  // tree-sitter-rust lexes a primitive type's name as a type even before `!`,
  // so a macro named like one (`str![...]`, snapbox's, all over cargo's
  // tests) is a syntax error that swallows the statement around it. The
  // parser reads a copy with the name's first letter turned into `_` (`_tr!`,
  // an identifier of the same length: every offset stays); the extractor reads
  // the text as written.
  static constexpr std::string_view kPrimitives[] = {
      "str",  "bool", "char", "u8",  "u16",  "u32", "u64",   "u128", "usize",
      "i8",   "i16",  "i32",  "i64", "i128", "isize", "f32", "f64"};
  std::string out;
  for (size_t bang = bytes.find('!'); bang != std::string_view::npos;
       bang = bytes.find('!', bang + 1)) {
    size_t end = bang;
    while (end > 0 && (bytes[end - 1] == ' ' || bytes[end - 1] == '\t')) --end;
    size_t start = end;
    while (start > 0 && IsIdentChar(bytes[start - 1])) --start;
    if (start == end || (start > 0 && bytes[start - 1] == '#')) continue;  // r#str is an identifier
    size_t open = bang + 1;
    while (open < bytes.size() && (bytes[open] == ' ' || bytes[open] == '\t')) ++open;
    if (open >= bytes.size() || (bytes[open] != '[' && bytes[open] != '(' && bytes[open] != '{'))
      continue;
    std::string_view name = bytes.substr(start, end - start);
    if (std::find(std::begin(kPrimitives), std::end(kPrimitives), name) == std::end(kPrimitives))
      continue;
    if (out.empty()) out.assign(bytes);
    out[start] = '_';
  }
  return out;
}

FileResult ExtractRustBytes(TSParser* parser, std::string_view path, std::string bytes) {
  FileResult result;
  if (bytes.size() >= 3 && bytes.compare(0, 3, "\xEF\xBB\xBF") == 0) bytes.erase(0, 3);
  if (!IsValidUtf8(bytes)) {
    // Rust source is UTF-8 by definition; anything else is no Rust file.
    result.issues.push_back(FileIssue{std::string(path), "not-utf8", "invalid UTF-8", true});
    return result;
  }
  ts_parser_set_language(parser, RustLanguage());
  std::string parseable = ParseableRust(bytes);
  const std::string& parsed = parseable.empty() ? bytes : parseable;
  ParseBudget budget(parser);
  TreePtr tree = budget.Parse(parsed);
  if (!tree) {
    result.issues.push_back(
        FileIssue{std::string(path), "parse-timeout", "parsing took too long", true});
    return result;
  }
  TSNode root = ts_tree_root_node(tree.get());
  result = Extractor(path, bytes, parseable).Run(root, &budget);
  if (ts_node_has_error(root)) {
    result.issues.push_back(
        FileIssue{std::string(path), "syntax-error", FirstErrorLine(root), false});
  }
  return result;
}

}  // namespace errdex::extract::rust
