#include "extract/python/py_guards.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "core/text.h"
#include "extract/python/py_calls.h"
#include "extract/python/py_conditions.h"
#include "extract/python/py_syntax.h"

namespace errdex::extract::python {
namespace {

using flow::GuardNode;

// Python's syntax to the guard reader (extract/flow/guards.h).
class PythonGuardSyntax : public flow::GuardSyntax {
 public:
  PythonGuardSyntax(std::string_view source, GuardCache& cache)
      : GuardSyntax(source), writer_(source), cache_(cache) {}

  Expr Positive(TSNode cond) const override { return writer_.Positive(cond); }
  Expr Negative(TSNode cond) const override { return writer_.Negative(cond); }
  const Words& Connectives() const override { return writer_.Connectives(); }

  GuardNode Kind(TSNode n) const override {
    switch (KindOf(n)) {
      case kComment:
        return GuardNode::kComment;
      case kFunctionDefinition:
        return GuardNode::kScope;
      case kBlock:
        return GuardNode::kBlock;
      case kIf:
        return GuardNode::kIf;
      case kElif:
        return GuardNode::kElif;
      case kElse:
        return GuardNode::kElse;
      case kWhile:
        return GuardNode::kWhile;
      case kFor:
        return GuardNode::kFor;
      case kWith:
        return GuardNode::kWith;
      case kTry:
        return GuardNode::kTry;
      case kExcept:
        return GuardNode::kHandler;
      case kExceptGroup:
        return GuardNode::kHandlerGroup;
      case kFinally:
        return GuardNode::kFinally;
      case kMatch:
        return GuardNode::kMatch;
      case kCase:
        return GuardNode::kCase;
      case kReturn:
        return GuardNode::kReturn;
      case kRaise:
        return GuardNode::kRaise;
      case kBreak:
        return GuardNode::kBreak;
      case kContinue:
        return GuardNode::kContinue;
      case kAssert:
        return GuardNode::kAssert;
      default:
        return GuardNode::kOther;
    }
  }

  TSNode Condition(TSNode n) const override { return Field(n, "condition"); }

  TSNode Body(TSNode n) const override {
    switch (KindOf(n)) {
      case kIf:
      case kElif:
        return Field(n, "consequence");
      case kExcept: {
        for (TSNode c : NamedChildren(n)) {
          if (KindOf(c) == kBlock) return c;
        }
        return {};
      }
      default:
        return Field(n, "body");
    }
  }

  bool AlwaysTrue(TSNode cond) const override { return KindOf(cond) == kTrue; }
  TSNode Asserted(TSNode s) const override { return ts_node_named_child(s, 0); }

  bool LoopGuard(TSNode loop, Guard& g) const override {
    g.kind = "for";
    g.code = Code(Field(loop, "left")) + " in " + Code(Field(loop, "right"));
    g.line = StartLine(loop);
    return true;
  }

  Guard HandlerGuard(TSNode try_statement, TSNode handler) const override {
    Guard g;
    g.kind = "except";
    TSNode value = Handled(handler);
    g.code = ts_node_is_null(value) ? "" : Code(value);
    g.subject = Tried(try_statement);
    g.line = StartLine(handler);
    return g;
  }

  std::string HandledTypes(TSNode handler) const override {
    TSNode value = Handled(handler);
    return ts_node_is_null(value) ? "" : Code(value);
  }

  bool MatchFallThrough(TSNode match, const FallsOut& /*falls_out*/, Guard& g) const override {
    std::vector<Guard> one;
    MatchCases(match, one);
    if (one.empty()) return false;
    g = std::move(one[0]);
    return true;
  }

  bool WritesWhen() const override { return true; }
  bool MatchOwnsBreak() const override { return false; }
  bool HasLabels() const override { return false; }

 private:
  // What an except clause names: the types, without `as e`; null for a
  // bare `except:`.
  static TSNode Handled(TSNode handler) {
    TSNode value{};
    for (TSNode c : NamedChildren(handler)) {
      if (KindOf(c) != kBlock && KindOf(c) != kComment) {
        value = c;
        break;
      }
    }
    if (KindOf(value) == kAsPattern) value = ts_node_named_child(value, 0);
    return value;
  }

  // What the subject should have been, when the condition says so: raised
  // when `x not in (a, b)` (valid: a, b), or when `not isinstance(x, T)`
  // (valid: T).
  void ValidValues(TSNode cond, bool negated, Guard& g) const override {
    while (KindOf(cond) == kNotOperator) {
      cond = Field(cond, "argument");
      negated = !negated;
    }
    if (KindOf(cond) == kComparisonOperator && ts_node_named_child_count(cond) == 2) {
      std::string op;
      for (TSNode c : Children(cond)) {
        if (!ts_node_is_named(c))
          op += (op.empty() ? "" : " ") + std::string(NodeText(c, source()));
      }
      // The raise needs the subject outside the set.
      bool outside = (op == "not in" && !negated) || (op == "in" && negated);
      TSNode set = ts_node_named_child(cond, 1);
      // Or other than one literal (`elif v == 'yield': return` before the
      // raise, `if mode != 'r': raise`): a set of one.
      bool other_than = (op == "!=" && !negated) || (op == "==" && negated);
      uint16_t lit = KindOf(set);
      uint16_t subject = KindOf(ts_node_named_child(cond, 0));
      // Of a name a caller can pass (`v`, `self.mode`), not of what is
      // computed from one (`y % 2 == 0`).
      if (other_than && (subject == kIdentifier || subject == kAttribute) &&
          (lit == kString || lit == kInteger || lit == kFloat || lit == kTrue || lit == kFalse ||
           lit == kNone)) {
        // An f-string is no literal.
        if (lit == kString && NodeText(set, source()).find_first_of("fF") <
                                  NodeText(set, source()).find_first_of("'\"")) {
          return;
        }
        if (Rebound(cond, ts_node_named_child(cond, 0), /*normalised_ok=*/true)) return;
        g.subject = Code(ts_node_named_child(cond, 0));
        g.values = {Code(set)};
        return;
      }
      if (outside && KindOf(set) == kIdentifier)
        set = ModuleConstant(cond, NodeText(set, source()));
      uint16_t k = KindOf(set);
      if (outside && (k == kTuple || k == kList || k == kOther)) {
        std::vector<std::string> values;
        for (TSNode v : NamedChildren(set)) {
          if (KindOf(v) != kComment) values.push_back(Code(v));
        }
        // A set literal is kOther to this front end: accept `{...}` only.
        if (k == kOther && !StartsWith(NodeText(set, source()), "{")) return;
        if (values.empty()) return;
        if (Rebound(cond, ts_node_named_child(cond, 0), /*normalised_ok=*/true)) return;
        g.subject = Code(ts_node_named_child(cond, 0));
        g.values = std::move(values);
      }
      return;
    }
    if (KindOf(cond) == kCall && negated &&
        NodeText(Field(cond, "function"), source()) == "isinstance") {
      std::vector<TSNode> args = NamedChildren(Field(cond, "arguments"));
      if (args.size() != 2) return;
      if (Rebound(cond, args[0], /*normalised_ok=*/false)) return;
      g.subject = Code(args[0]);
      if (KindOf(args[1]) == kTuple) {
        for (TSNode t : NamedChildren(args[1])) g.values.push_back(Code(t));
      } else {
        g.values.push_back(Code(args[1]));
      }
    }
  }

  std::optional<bool> TestHolds(TSNode test, std::string_view subject, std::string_view value,
                                bool fresh, const Assumptions& assumed) const override {
    return Holds(test, subject, value, fresh, assumed, 0);
  }

  // TestHolds to a bounded depth of `not`/`and`/`or`/parentheses (a chain of
  // 10,000 `and`s is a tree that deep): below it, not known.
  std::optional<bool> Holds(TSNode test, std::string_view subject, std::string_view value,
                            bool fresh, const Assumptions& assumed, int depth) const {
    if (depth > kMaxTestDepth || (assumed.budget != nullptr && *assumed.budget == 0)) {
      return std::nullopt;
    }
    std::optional<bool> out;
    switch (KindOf(test)) {
      case kParenthesized:
        if (ts_node_named_child_count(test) == 1) {
          return Holds(ts_node_named_child(test, 0), subject, value, fresh, assumed, depth + 1);
        }
        break;
      case kNotOperator: {
        std::optional<bool> inner =
            Holds(Field(test, "argument"), subject, value, fresh, assumed, depth + 1);
        return inner ? std::optional<bool>(!*inner) : std::nullopt;
      }
      case kBooleanOperator: {
        std::optional<bool> left =
            Holds(Field(test, "left"), subject, value, fresh, assumed, depth + 1);
        std::optional<bool> right =
            Holds(Field(test, "right"), subject, value, fresh, assumed, depth + 1);
        bool both = NodeText(Field(test, "operator"), source()) == "and";
        if (left == !both || right == !both) return !both;  // `or` with a true side...
        if (left && right) return both;                     // ...both sides decided
        return std::nullopt;
      }
      case kComparisonOperator:
        out = CompareHolds(test, subject, value, fresh, assumed.budget);
        break;
      case kCall:
        out = IsinstanceHolds(test, subject, value, fresh);
        break;
      default:
        break;
    }
    if (out) return out;
    // A test it cannot decide: one truth for every place it is written.
    std::string code = Code(test);
    if (assumed.atoms != nullptr) {
      if (auto at = assumed.atoms->find(code); at != assumed.atoms->end()) return at->second;
    }
    if (assumed.unknown != nullptr) assumed.unknown->insert(std::move(code));
    return std::nullopt;
  }

  // The literals of `test` (and of a module constant it tests membership
  // in) that a value of `type` can equal, as values of it: `1` is the bool
  // True and the float 1.0 too.
  std::vector<std::string> InstancesIn(TSNode test, std::string_view type) const override {
    std::vector<std::string> out;
    auto add = [&](std::string text) {
      if (std::find(out.begin(), out.end(), text) == out.end()) out.push_back(std::move(text));
    };
    std::vector<TSNode> pending = {test};
    int constants = 0;
    while (!pending.empty() && out.size() < 16) {
      TSNode n = pending.back();
      pending.pop_back();
      std::string_view text = NodeText(n, source());
      if (auto key = LiteralKey(text)) {
        std::string_view kind = LiteralClass(text, *key);
        if (type == kind || type == "object" || (kind == "bool" && type == "int") ||
            (IsNoneType(type) && kind == "NoneType")) {
          add(std::string(text));
        } else if (key->first == 'i' && (type == "float" || type == "complex")) {
          add(key->second + ".0");  // a float no test decides, equal to the int
        } else if (key->first == 'i' && type == "bool" &&
                   (key->second == "0" || key->second == "1")) {
          add(key->second == "1" ? "True" : "False");
        }
        continue;
      }
      if (KindOf(n) == kComparisonOperator && ts_node_named_child_count(n) == 2 &&
          KindOf(ts_node_named_child(n, 1)) == kIdentifier && constants++ < 4) {
        TSNode set = ModuleConstant(n, NodeText(ts_node_named_child(n, 1), source()));
        if (!ts_node_is_null(set)) pending.push_back(set);
      }
      for (TSNode c : NamedChildren(n)) pending.push_back(c);
    }
    return out;
  }

  // A literal as its kind and value: 'a' and "a" are one string, True is 1.
  static std::optional<std::pair<char, std::string>> LiteralKey(std::string_view text) {
    if (text.size() >= 2 && (text[0] == '\'' || text[0] == '"') && text.back() == text[0] &&
        text.find('\\') == std::string_view::npos) {
      std::string_view inner = text.substr(1, text.size() - 2);
      if (inner.find(text[0]) != std::string_view::npos) return std::nullopt;  // a triple quote
      return std::pair<char, std::string>{'s', std::string(inner)};
    }
    if (text == "None") return std::pair<char, std::string>{'n', ""};
    if (text == "True") return std::pair<char, std::string>{'i', "1"};
    if (text == "False") return std::pair<char, std::string>{'i', "0"};
    std::string_view digits = text.substr(!text.empty() && text[0] == '-' ? 1 : 0);
    if (digits.empty() || digits.size() > 18 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    long long n = std::stoll(std::string(text));
    return std::pair<char, std::string>{'i', std::to_string(n)};
  }

  // The class of a literal LiteralKey read from `text`.
  static std::string_view LiteralClass(std::string_view text,
                                       const std::pair<char, std::string>& key) {
    if (key.first == 's') return "str";
    if (key.first == 'n') return "NoneType";
    return text == "True" || text == "False" ? "bool" : "int";
  }

  static std::optional<bool> LiteralEquals(std::string_view a, std::string_view b) {
    auto x = LiteralKey(a), y = LiteralKey(b);
    if (!x || !y) return std::nullopt;
    return *x == *y;
  }

  static constexpr int kMaxTestDepth = 64;

  std::optional<bool> CompareHolds(TSNode test, std::string_view subject, std::string_view value,
                                   bool fresh, size_t* budget) const {
    if (ts_node_named_child_count(test) != 2 || Code(ts_node_named_child(test, 0)) != subject) {
      return std::nullopt;
    }
    std::string op;
    for (TSNode c : Children(test)) {
      if (!ts_node_is_named(c)) op += (op.empty() ? "" : " ") + std::string(NodeText(c, source()));
    }
    TSNode right = ts_node_named_child(test, 1);
    bool negate = op == "!=" || op == "not in" || op == "is not";
    // Whether the value equals the literal `text`. A fresh value of a
    // builtin class equals no literal (None is the one value of its class;
    // the values of it a literal equals are tried apart, InstancesIn); one
    // of any other class may (numpy's scalars equal ints).
    auto equals = [&](std::string_view text) -> std::optional<bool> {
      if (!fresh) return LiteralEquals(value, text);
      auto key = LiteralKey(text);
      if (!key || !KnownClass(value)) return std::nullopt;
      return IsNoneType(value) && key->first == 'n';
    };
    std::optional<bool> holds;
    if (op == "is" || op == "is not") {
      if (KindOf(right) != kNone) return std::nullopt;
      if (fresh) {
        if (KnownClass(value)) holds = IsNoneType(value);
      } else if (auto key = LiteralKey(value)) {
        holds = key->first == 'n';
      }
    } else if (op == "==" || op == "!=") {
      holds = equals(NodeText(right, source()));
    } else if (op == "in" || op == "not in") {
      if (KindOf(right) == kIdentifier) right = ModuleConstant(test, NodeText(right, source()));
      uint16_t k = KindOf(right);
      bool literal_set = k == kOther && StartsWith(NodeText(right, source()), "{");
      if (k != kTuple && k != kList && !literal_set) return std::nullopt;
      bool found = false, unknown = false;
      for (TSNode e : NamedChildren(right)) {
        if (KindOf(e) == kComment) continue;
        if (budget != nullptr) {
          if (*budget == 0) return std::nullopt;
          --*budget;
        }
        std::optional<bool> eq = equals(NodeText(e, source()));
        found = found || eq == true;
        unknown = unknown || !eq;
      }
      if (found || !unknown) holds = found;
    }
    if (holds && negate) return !*holds;
    return holds;
  }

  static bool IsNoneType(std::string_view t) { return t == "NoneType" || t == "type(None)"; }

  // A builtin class whose values errdex can tell apart from literals.
  static bool KnownClass(std::string_view t) {
    return kDisjointTypes.count(std::string(t)) > 0 || t == "int" || t == "bool" ||
           t == "type(None)";
  }

  // Builtin classes no value is an instance of two of (bool is an int).
  inline static const std::set<std::string, std::less<>> kDisjointTypes = {
      "str", "bytes", "float", "complex", "list", "tuple", "dict", "set", "frozenset", "NoneType"};

  std::optional<bool> IsinstanceHolds(TSNode call, std::string_view subject, std::string_view value,
                                      bool fresh) const {
    if (NodeText(Field(call, "function"), source()) != "isinstance") return std::nullopt;
    std::vector<TSNode> args = NamedChildren(Field(call, "arguments"));
    if (args.size() != 2 || Code(args[0]) != subject) return std::nullopt;
    std::string type;
    if (fresh) {
      type = IsNoneType(value) ? "NoneType" : std::string(value);
    } else if (auto key = LiteralKey(value)) {
      type = LiteralClass(value, *key);
    } else {
      return std::nullopt;
    }
    std::vector<std::string> names;
    if (KindOf(args[1]) == kTuple) {
      for (TSNode t : NamedChildren(args[1])) names.push_back(Code(t));
    } else {
      names.push_back(Code(args[1]));
    }
    for (std::string& n : names) {
      if (IsNoneType(n)) n = "NoneType";
    }
    bool all_disjoint = kDisjointTypes.count(type) || type == "int" || type == "bool";
    for (const std::string& n : names) {
      if (n == type || n == "object" || (type == "bool" && n == "int")) return true;
      // An int may be a bool; anything else may be an instance of an
      // unknown class.
      bool apart =
          (kDisjointTypes.count(n) || n == "int" || n == "bool") && !(type == "int" && n == "bool");
      all_disjoint = all_disjoint && apart;
    }
    if (all_disjoint) return false;
    return std::nullopt;
  }

  // Whether the parameter `subject` is converted in its function before the
  // test `at` (bound again to something made of it): then what the test
  // accepts is not what a caller may pass. sympy's `expr = sympify(expr)`
  // takes ints and strings before `isinstance(expr, Basic)` is tested.
  // With `normalised_ok`, `name = name.lower()` (a method of the name
  // itself, of its own value) is no conversion: the set still says what
  // is taken.
  bool Rebound(TSNode at, TSNode subject, bool normalised_ok) const {
    if (KindOf(subject) != kIdentifier) return false;
    std::string_view name = NodeText(subject, source());
    TSNode function{};
    for (TSNode up = ts_node_parent(at); !ts_node_is_null(up); up = ts_node_parent(up)) {
      if (KindOf(up) == kFunctionDefinition) {
        function = up;
        break;
      }
    }
    if (ts_node_is_null(function)) return false;
    // A local's first binding is what it is: only a parameter is rebound.
    std::vector<SigParam> params = ReadParameters(function, source());
    if (std::none_of(params.begin(), params.end(),
                     [&](const SigParam& p) { return p.name == name; })) {
      return false;
    }
    uint32_t before = ts_node_start_byte(at);
    std::vector<TSNode> stack{Field(function, "body")};
    int steps = 0;
    while (!stack.empty() && ++steps < 100000) {
      TSNode n = stack.back();
      stack.pop_back();
      if (ts_node_is_null(n) || ts_node_start_byte(n) >= before) continue;
      uint16_t k = KindOf(n);
      if (k == kFunctionDefinition || k == kClassDefinition || k == kLambda) continue;
      if (k == kAssignment || k == kAugmentedAssignment) {
        TSNode left = Field(n, "left");
        if (KindOf(left) == kIdentifier && NodeText(left, source()) == name && OnTheWayTo(n, at) &&
            !FillsInADefault(n, name)) {
          TSNode right = Field(n, "right");
          bool normalised = k == kAssignment && KindOf(right) == kCall &&
                            KindOf(Field(right, "function")) == kAttribute &&
                            NodeText(Field(Field(right, "function"), "object"), source()) == name;
          // Only what is made of the caller's value converts it: a literal
          // put in its place (`dir = "-"`, an alias's canonical name) or a
          // default (`x = x or ()`) leaves what a caller may pass as it is.
          bool defaulted = k == kAssignment && KindOf(right) == kBooleanOperator &&
                           NodeText(ts_node_named_child(right, 0), source()) == name &&
                           NodeText(right, source()).find(" or ") != std::string_view::npos;
          if (Mentions(right, name) && !defaulted && !(normalised_ok && normalised)) return true;
        }
      }
      for (TSNode c : NamedChildren(n)) stack.push_back(c);
    }
    return false;
  }

  // Whether the identifier `name` occurs in `n` (bounded).
  bool Mentions(TSNode n, std::string_view name) const {
    std::vector<TSNode> stack{n};
    for (int steps = 0; !stack.empty() && steps < 10000; ++steps) {
      TSNode c = stack.back();
      stack.pop_back();
      if (KindOf(c) == kIdentifier && NodeText(c, source()) == name) return true;
      for (TSNode child : NamedChildren(c)) stack.push_back(child);
    }
    return false;
  }

  // Whether `binding` gives `name` a value only when none was passed:
  // networkx's `if walk_type is None: walk_type = "random"` leaves every
  // value a caller passes as it is.
  bool FillsInADefault(TSNode binding, std::string_view name) const {
    for (TSNode n = ts_node_parent(binding); !ts_node_is_null(n); n = ts_node_parent(n)) {
      uint16_t k = KindOf(n);
      if (k == kFunctionDefinition) return false;
      if (k != kIf && k != kElif) continue;
      std::string test = CollapseWhitespace(NodeText(Field(n, "condition"), source()));
      if (test == std::string(name) + " is None" || test == "not " + std::string(name)) {
        return true;
      }
    }
    return false;
  }

  // Whether control can go from `binding` on to `at`, as far as the if
  // statements around it say: not from an arm that leaves (`if ax is None:
  // ax = frames[0].x; return ax`), nor from another arm of the if statement
  // `at` is in (`if d is None: d = {}` / `elif not isinstance(d, dict)`).
  bool OnTheWayTo(TSNode binding, TSNode at) const {
    uint32_t at_start = ts_node_start_byte(at);
    auto holds_at = [&](TSNode n) {
      return ts_node_start_byte(n) <= at_start && at_start < ts_node_end_byte(n);
    };
    TSNode n = ts_node_parent(binding);
    for (; !ts_node_is_null(n) && !holds_at(n); n = ts_node_parent(n)) {
      if (KindOf(n) != kBlock) continue;
      uint32_t count = ts_node_named_child_count(n);
      uint16_t last = count == 0 ? 0 : KindOf(ts_node_named_child(n, count - 1));
      if (last == kReturn || last == kRaise || last == kContinue || last == kBreak) return false;
    }
    // Met in the if statement itself: the binding and the test are in two
    // of its arms.
    return ts_node_is_null(n) || KindOf(n) != kIf;
  }

  // The collection a module-level `NAME = (...)` / `[...]` / `{...}` /
  // `frozenset({...})` binds, when NAME is assigned once at module level;
  // a null node otherwise.
  TSNode ModuleConstant(TSNode from, std::string_view name) const {
    if (cache_.note_module_names) cache_.module_names.emplace_back(name);
    TSNode module = from;
    for (TSNode up = ts_node_parent(module); !ts_node_is_null(up); up = ts_node_parent(up)) {
      module = up;
    }
    TSNode found{};
    int assignments = 0;
    for (TSNode stmt : NamedChildren(module)) {
      if (KindOf(stmt) != kExpressionStatement || ts_node_named_child_count(stmt) != 1) continue;
      TSNode a = ts_node_named_child(stmt, 0);
      if (KindOf(a) != kAssignment || NodeText(Field(a, "left"), source()) != name) continue;
      ++assignments;
      TSNode right = Field(a, "right");
      // frozenset({...}) / set([...]) / tuple(...): the one literal inside.
      if (KindOf(right) == kCall) {
        std::string_view fn = NodeText(Field(right, "function"), source());
        std::vector<TSNode> args = NamedChildren(Field(right, "arguments"));
        if ((fn != "frozenset" && fn != "set" && fn != "tuple") || args.size() != 1) return {};
        right = args[0];
      }
      found = right;
    }
    return assignments == 1 ? found : TSNode{};
  }

  // What a try statement tries, when it is one simple statement, `return`
  // dropped (`return call()` raised E is about `call()`); else "" (the
  // `try` block): naming the first of several statements would say that
  // one raised when a later one may have.
  std::string Tried(TSNode try_statement) const override {
    TSNode only = LoneSimpleStatement(Field(try_statement, "body"));
    if (ts_node_is_null(only) || KindOf(only) == kDecoratedDefinition) return "";
    if (KindOf(only) == kReturn && ts_node_named_child_count(only) == 1) {
      only = ts_node_named_child(only, 0);
    }
    return Code(only);
  }

  // `case` clauses sit in the match statement's block.
  void CaseGuards(TSNode match, TSNode block, TSNode clause, const FallsOut& /*falls_out*/,
                  std::vector<Guard>& out) const override {
    if (KindOf(match) != kMatch) return;
    std::string subject = Code(Field(match, "subject"));
    TSNode pattern{};
    for (TSNode c : NamedChildren(clause)) {
      if (KindOf(c) == kCasePattern) {
        pattern = c;
        break;
      }
    }
    Guard g;
    g.subject = subject;
    g.line = StartLine(clause);
    bool wildcard = !ts_node_is_null(pattern) && ts_node_named_child_count(pattern) == 0 &&
                    Trim(NodeText(pattern, source())) == "_";
    if (wildcard) {
      g.kind = "default-case";
      for (TSNode c : NamedChildren(block)) {
        if (SameNode(c, clause)) break;
        if (KindOf(c) != kCase) continue;
        // An earlier `case X if cond:` lets X reach the wildcard: the
        // patterns are no list of what is refused, but "no case matched"
        // stays exactly true.
        if (!ts_node_is_null(Field(c, "guard"))) {
          g.values.clear();
          g.meanings.clear();
          break;
        }
        for (TSNode p : NamedChildren(c)) {
          if (KindOf(p) == kCasePattern) AddCase(g, Code(p), c);
        }
      }
    } else {
      g.kind = "case";
      g.code = ts_node_is_null(pattern) ? "" : Code(pattern);
    }
    out.push_back(std::move(g));
    TSNode guard = Field(clause, "guard");
    if (!ts_node_is_null(guard) && ts_node_named_child_count(guard) > 0) {
      out.push_back(Make("if", ts_node_named_child(guard, 0), false));
    }
  }

  // A `match` before the raise whose every case leaves (return/raise): the
  // raise runs only when the subject matched none of them.
  void MatchCases(TSNode match, std::vector<Guard>& out) const {
    Guard g;
    g.kind = "default-case";
    g.subject = Code(Field(match, "subject"));
    g.line = StartLine(match);
    TSNode body = Field(match, "body");
    for (TSNode c : NamedChildren(body)) {
      if (KindOf(c) != kCase) continue;
      // `case X if cond:` lets X through when cond is false.
      if (!ts_node_is_null(Field(c, "guard"))) return;
      TSNode consequence = Field(c, "consequence");
      uint32_t n = ts_node_named_child_count(consequence);
      uint16_t last =
          n == 0 ? static_cast<uint16_t>(kOther) : KindOf(ts_node_named_child(consequence, n - 1));
      if (last != kReturn && last != kRaise) return;
      for (TSNode p : NamedChildren(c)) {
        if (KindOf(p) == kCasePattern) {
          // A wildcard catches everything: nothing falls through.
          if (ts_node_named_child_count(p) == 0 && Trim(NodeText(p, source())) == "_") return;
          AddCase(g, Code(p), c);
        }
      }
    }
    if (!g.values.empty()) out.push_back(std::move(g));
  }

  // A case's value, and what its body maps it to when its first statement
  // says so at once (`return Op.MIN`, `op = Op.MIN`): the name's last part.
  void AddCase(Guard& g, std::string value, TSNode clause) const {
    std::string meaning;
    for (TSNode s : NamedChildren(Field(clause, "consequence"))) {
      if (KindOf(s) == kComment) continue;
      TSNode named{};
      if (KindOf(s) == kReturn && ts_node_named_child_count(s) > 0) {
        named = ts_node_named_child(s, 0);
      } else if (KindOf(s) == kExpressionStatement && ts_node_named_child_count(s) > 0 &&
                 KindOf(ts_node_named_child(s, 0)) == kAssignment) {
        named = Field(ts_node_named_child(s, 0), "right");
      }
      if (KindOf(named) == kIdentifier || KindOf(named) == kAttribute) {
        std::string text = Code(named);
        meaning = text.substr(text.rfind('.') == std::string::npos ? 0 : text.rfind('.') + 1);
      }
      break;
    }
    g.meanings.resize(g.values.size());
    g.values.push_back(std::move(value));
    g.meanings.push_back(std::move(meaning));
    // Kept only when some case says what it means.
    if (std::all_of(g.meanings.begin(), g.meanings.end(),
                    [](const std::string& m) { return m.empty(); })) {
      g.meanings.clear();
    }
  }

  PythonConditions writer_;
  GuardCache& cache_;
};

}  // namespace

std::vector<Guard> PythonGuards(TSNode scope, TSNode target, std::string_view source,
                                GuardCache* cache) {
  GuardCache local;
  GuardCache& c = cache != nullptr ? *cache : local;
  return flow::ReadGuards(scope, target, PythonGuardSyntax(source, c), c);
}

Guard PythonTestGuard(TSNode cond, bool negated, std::string_view source, GuardCache* cache) {
  GuardCache local;
  GuardCache& c = cache != nullptr ? *cache : local;
  Guard g = PythonGuardSyntax(source, c).Make("message", cond, negated);
  // The other texts are raised where it fails: nothing it tests is refused.
  g.values.clear();
  g.meanings.clear();
  g.subject.clear();
  return g;
}

}  // namespace errdex::extract::python
