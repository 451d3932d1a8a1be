#include "extract/ts_util.h"

#include <cstring>

namespace errdex::extract {

SymbolTable::SymbolTable(const TSLanguage* language,
                         const std::vector<std::pair<std::string_view, uint16_t>>& named) {
  uint32_t count = ts_language_symbol_count(language);
  kinds_.assign(count, 0);
  for (uint32_t s = 0; s < count; ++s) {
    auto symbol = static_cast<TSSymbol>(s);
    if (ts_language_symbol_type(language, symbol) != TSSymbolTypeRegular) continue;
    const char* name = ts_language_symbol_name(language, symbol);
    if (name == nullptr) continue;
    for (const auto& [type, kind] : named) {
      if (type == name) {
        kinds_[s] = kind;
        break;
      }
    }
  }
}

namespace {

// ts_node_child(i) walks from the first child each time; a cursor is linear.
std::vector<TSNode> CollectChildren(TSNode node, bool named_only) {
  std::vector<TSNode> out;
  if (ts_node_is_null(node)) return out;
  TSTreeCursor cursor = ts_tree_cursor_new(node);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode child = ts_tree_cursor_current_node(&cursor);
      if (!named_only || ts_node_is_named(child)) out.push_back(child);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

}  // namespace

std::vector<TSNode> NamedChildren(TSNode node) { return CollectChildren(node, true); }

std::vector<TSNode> Children(TSNode node) { return CollectChildren(node, false); }

bool IsToken(TSNode node, std::string_view type) {
  return !ts_node_is_named(node) && type == ts_node_type(node);
}

std::string FirstErrorLine(TSNode root) {
  TSNode n = root;
  for (int guard = 0; guard < 100000; ++guard) {
    if (ts_node_is_missing(n)) break;
    TSNode next{};
    for (TSNode c : Children(n)) {
      if (ts_node_has_error(c) || ts_node_is_missing(c) ||
          ts_node_symbol(c) == static_cast<TSSymbol>(-1)) {
        next = c;
        break;
      }
    }
    if (ts_node_is_null(next)) break;
    n = next;
  }
  return "syntax error at line " + std::to_string(StartLine(n));
}

}  // namespace errdex::extract
