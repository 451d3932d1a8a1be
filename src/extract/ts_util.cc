#include "extract/ts_util.h"

#include <cstring>

namespace errdex::extract {

uint64_t ParseBudget::RemainingMicros() const {
  if (budget_micros_ == 0) return UINT64_MAX;
  auto spent = std::chrono::duration_cast<std::chrono::microseconds>(
                   std::chrono::steady_clock::now() - start_)
                   .count();
  return spent < 0 || static_cast<uint64_t>(spent) >= budget_micros_
             ? 0
             : budget_micros_ - static_cast<uint64_t>(spent);
}

TreePtr ParseBudget::Parse(TSParser* parser, std::string_view text, uint64_t cap_micros) {
  uint64_t left = RemainingMicros();
  if (left == 0) return nullptr;
  uint64_t allowed = cap_micros != 0 && cap_micros < left ? cap_micros : left;
  // 0 would mean "no timeout" to tree-sitter.
  ts_parser_set_timeout_micros(parser, allowed == UINT64_MAX ? 0 : allowed);
  TreePtr tree(
      ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size())));
  if (!tree) ts_parser_reset(parser);
  return tree;
}

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

TSFieldId FieldId(const TSLanguage* language, std::string_view name) {
  // Direct-mapped by the name's first and last characters and length: the
  // few dozen names a front end asks for rarely share a slot, and a slot
  // is checked by content, so a collision costs a lookup, never a wrong id.
  struct Slot {
    const TSLanguage* language = nullptr;
    char name[24] = {};
    uint8_t size = 0;
    TSFieldId id = 0;
  };
  thread_local Slot slots[256];
  if (name.empty() || name.size() >= sizeof(Slot::name)) {
    return ts_language_field_id_for_name(language, name.data(), static_cast<uint32_t>(name.size()));
  }
  size_t h = (static_cast<unsigned char>(name.front()) * 31u +
              static_cast<unsigned char>(name.back()) * 7u + name.size() * 131u +
              static_cast<size_t>(reinterpret_cast<uintptr_t>(language) >> 4)) &
             255u;
  Slot& slot = slots[h];
  if (slot.language == language && slot.size == name.size() &&
      std::memcmp(slot.name, name.data(), name.size()) == 0) {
    return slot.id;
  }
  TSFieldId id =
      ts_language_field_id_for_name(language, name.data(), static_cast<uint32_t>(name.size()));
  slot.language = language;
  slot.size = static_cast<uint8_t>(name.size());
  std::memcpy(slot.name, name.data(), name.size());
  slot.id = id;
  return id;
}

namespace {

// ts_node_child(i) walks from the first child each time; a cursor is linear.
std::vector<TSNode> CollectChildren(TSNode node, bool named_only) {
  std::vector<TSNode> out;
  if (ts_node_is_null(node)) return out;
  out.reserve(named_only ? ts_node_named_child_count(node) : ts_node_child_count(node));
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
