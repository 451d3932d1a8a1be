// Thin RAII and lookup helpers over the tree-sitter C API, shared by the
// language front ends.
#pragma once

#include <tree_sitter/api.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace errdex::extract {

struct ParserDeleter {
  void operator()(TSParser* p) const { ts_parser_delete(p); }
};
struct TreeDeleter {
  void operator()(TSTree* t) const { ts_tree_delete(t); }
};
using ParserPtr = std::unique_ptr<TSParser, ParserDeleter>;
using TreePtr = std::unique_ptr<TSTree, TreeDeleter>;

// A file's text and the tree parsed from it, kept for the next version of
// the file (ParseBudget::Reparse).
struct ParsedText {
  std::string text;
  TreePtr tree;
};

// The edits that turn `before` into `after`, as tree-sitter's ts_tree_edit
// takes them, last first. They come from a shortest diff of the lines; when
// that needs more than `max_changes` lines deleted and inserted, one hunk
// covers everything from the first differing line to the last. Each edit
// is a hunk cut down to the bytes its two sides differ in, and lines
// inserted or deleted whole are placed as far right as the text allows.
// Applied in order to `before` they give `after` exactly.
std::vector<TSInputEdit> LineEdits(std::string_view before, std::string_view after,
                                   size_t max_changes = 2000);

// Whether a text of `after_size` bytes made from one of `before_size` by
// `edits` (LineEdits) is worth parsing from the old tree. Tree-sitter walks
// the old tree to reuse it, and frees what it does not reuse: for a file cut
// down to a stub, or mostly written anew, that costs more than a parse from
// scratch (seen on jax: a 200 KB module moved away, leaving 1 KB, took
// 27 ms from its old tree against 0.1 ms alone).
bool WorthReparsing(size_t before_size, size_t after_size, const std::vector<TSInputEdit>& edits);

// Every node of `tree`, one per line, indented by depth: its type, field,
// bytes and points. Two trees of one text are the same tree when their
// texts are equal.
std::string TreeText(TSTree* tree);

// One file's parse time, however many times the file is parsed. tree-sitter's
// timeout is per call: a second parse after a rewrite, and each macro
// expansion's, would otherwise get the whole allowance again, and one file
// could hold a worker for several times what a caller allowed. The budget is
// the parser's timeout when the file starts (0: none); the parser gets it
// back when the file is done, since workers reuse their parser.
class ParseBudget {
 public:
  explicit ParseBudget(TSParser* parser)
      : parser_(parser),
        budget_micros_(ts_parser_timeout_micros(parser)),
        start_(std::chrono::steady_clock::now()) {}
  ~ParseBudget() { ts_parser_set_timeout_micros(parser_, budget_micros_); }
  ParseBudget(const ParseBudget&) = delete;
  ParseBudget& operator=(const ParseBudget&) = delete;

  // Parses `text` with the budget's parser in what is left of the budget;
  // null when it is spent or runs out (the parser is then reset).
  TreePtr Parse(std::string_view text) { return Parse(parser_, text, 0); }
  // The same with another parser, allowed at most `cap_micros` (0: no cap)
  // of what is left; its own timeout is overwritten.
  TreePtr Parse(TSParser* parser, std::string_view text, uint64_t cap_micros);

  // Parses `text`, a later version of the file `last` was parsed from,
  // starting from `last`'s tree (consumed): tree-sitter reuses the subtrees
  // the edits between the two texts (LineEdits) leave alone. Null, as for
  // Parse, when out of time; also when either tree has a syntax error, since
  // error recovery may then differ from a parse from scratch, and when the
  // old tree is not worth starting from (WorthReparsing). The parse runs
  // on a parser of its own: the budget's parser never parses from an old
  // tree, which with tree-sitter 0.20.7 could spoil its next parse.
  TreePtr Reparse(std::string_view text, struct ParsedText last);

  // Microseconds left; UINT64_MAX for no budget, 0 when spent.
  uint64_t RemainingMicros() const;

 private:
  TSParser* parser_;
  uint64_t budget_micros_;
  std::chrono::steady_clock::time_point start_;
};

// Maps a language's node symbols to a front end's own enum of the node types
// it cares about, so that hot loops compare integers, not strings. Types not
// listed map to 0. Aliased symbols with the same name map alike.
class SymbolTable {
 public:
  SymbolTable(const TSLanguage* language,
              const std::vector<std::pair<std::string_view, uint16_t>>& named);
  // A null node (an absent field) is kind 0: tree-sitter reads through it.
  uint16_t Kind(TSNode node) const {
    if (ts_node_is_null(node)) return 0;
    TSSymbol s = ts_node_symbol(node);
    return s < kinds_.size() ? kinds_[s] : 0;
  }

 private:
  std::vector<uint16_t> kinds_;
};

// The grammar's name of the node's type; empty for a null node, which
// tree-sitter would read through.
inline std::string_view NodeType(TSNode node) {
  return ts_node_is_null(node) ? std::string_view() : std::string_view(ts_node_type(node));
}

inline std::string_view NodeText(TSNode node, std::string_view source) {
  if (ts_node_is_null(node)) return {};
  uint32_t b = ts_node_start_byte(node);
  uint32_t e = ts_node_end_byte(node);
  if (b > source.size() || e > source.size() || e < b) return {};
  return source.substr(b, e - b);
}

// A language's id for a field name. ts_node_child_by_field_name compares
// the name with every field's by strncmp on each call, a few percent of a
// front end's time; the ids are remembered per thread.
TSFieldId FieldId(const TSLanguage* language, std::string_view name);

// Null for a null node (libtree-sitter 0.20 crashes on one).
inline TSNode Field(TSNode node, std::string_view name) {
  if (ts_node_is_null(node)) return node;
  TSFieldId id = FieldId(ts_tree_language(node.tree), name);
  return id == 0 ? TSNode{} : ts_node_child_by_field_id(node, id);
}

inline int StartLine(TSNode node) { return static_cast<int>(ts_node_start_point(node).row) + 1; }
inline int EndLine(TSNode node) { return static_cast<int>(ts_node_end_point(node).row) + 1; }
inline int StartColumn(TSNode node) {
  return static_cast<int>(ts_node_start_point(node).column) + 1;
}

inline bool Contains(TSNode outer, TSNode inner) {
  return ts_node_start_byte(outer) <= ts_node_start_byte(inner) &&
         ts_node_end_byte(inner) <= ts_node_end_byte(outer);
}

inline bool SameNode(TSNode a, TSNode b) {
  return !ts_node_is_null(a) && !ts_node_is_null(b) && ts_node_eq(a, b);
}

// The named children of `node`, in order.
std::vector<TSNode> NamedChildren(TSNode node);

// A node's source text on one line, without the comments and line
// continuations inside it: what a sentence quotes as code. A condition
// written over lines with a `# why` between its operands reads as the
// condition, not as the comment.
std::string CodeText(TSNode node, std::string_view source);

// The children of `node`, named or not, in order.
std::vector<TSNode> Children(TSNode node);

// "syntax error at line N": where the first MISSING node or innermost ERROR
// node is, in source order (an ERROR node can span most of a file).
std::string FirstErrorLine(TSNode root);

// True when `node` is an anonymous token with exactly this text.
bool IsToken(TSNode node, std::string_view type);

// Whether `stop` holds for some named node below `node` (not `node`
// itself), in source order, entering only the nodes `into` accepts and at
// most `max_depth` levels down: a cursor walk, cheaper than child lists on
// the paths that run it for every statement before a raise.
template <class Into, class Stop>
bool AnyBelow(TSNode node, Into into, Stop stop, int max_depth) {
  TSTreeCursor c = ts_tree_cursor_new(node);
  bool hit = false;
  int depth = 0;
  if (ts_tree_cursor_goto_first_child(&c)) {
    depth = 1;
    for (;;) {
      TSNode cur = ts_tree_cursor_current_node(&c);
      bool named = ts_node_is_named(cur);
      if (named && stop(cur, depth)) {
        hit = true;
        break;
      }
      if (named && depth < max_depth && into(cur) && ts_tree_cursor_goto_first_child(&c)) {
        ++depth;
        continue;
      }
      bool more = true;
      while (more && !ts_tree_cursor_goto_next_sibling(&c)) {
        more = ts_tree_cursor_goto_parent(&c) && --depth > 0;
      }
      if (!more) break;
    }
  }
  ts_tree_cursor_delete(&c);
  return hit;
}

// The names tested in function `fn`: for each node below it that
// `tested_of` gives a condition of (an if's, a while's, a match's value),
// the text of every node inside that condition `is_name` accepts. A
// helper's parameter found here decides whether the helper raises.
template <class TestedOf, class IsName>
void TestedNamesIn(TSNode fn, std::string_view src, TestedOf tested_of, IsName is_name,
                   std::unordered_set<std::string>& out) {
  std::vector<TSNode> stack;
  if (!ts_node_is_null(fn)) stack.push_back(fn);
  while (!stack.empty()) {
    TSNode x = stack.back();
    stack.pop_back();
    std::vector<TSNode> names;
    if (TSNode tested = tested_of(x); !ts_node_is_null(tested)) names.push_back(tested);
    while (!names.empty()) {
      TSNode c = names.back();
      names.pop_back();
      if (is_name(c)) out.emplace(NodeText(c, src));
      for (TSNode d : NamedChildren(c)) names.push_back(d);
    }
    for (TSNode c : NamedChildren(x)) stack.push_back(c);
  }
}

// TestedNamesIn for the function last asked, kept while the walk is in it.
class TestedNameCache {
 public:
  template <class TestedOf, class IsName>
  const std::unordered_set<std::string>& Of(TSNode fn, std::string_view src, TestedOf tested_of,
                                            IsName is_name) {
    uint32_t key = ts_node_is_null(fn) ? 0 : ts_node_start_byte(fn) + 1;
    if (key != key_) {
      key_ = key;
      names_.clear();
      TestedNamesIn(fn, src, tested_of, is_name, names_);
    }
    return names_;
  }

 private:
  uint32_t key_ = 0;  // the function's start byte + 1
  std::unordered_set<std::string> names_;
};

}  // namespace errdex::extract
