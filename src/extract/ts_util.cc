#include "extract/ts_util.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>

#include "core/text.h"

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

namespace {

// A text cut into lines, each with its '\n'; the last may have none.
struct LineIndex {
  explicit LineIndex(std::string_view source) : text(source) {
    size_t at = 0;
    while (at < text.size()) {
      starts.push_back(static_cast<uint32_t>(at));
      size_t nl = text.find('\n', at);
      at = nl == std::string_view::npos ? text.size() : nl + 1;
    }
    starts.push_back(static_cast<uint32_t>(text.size()));
    hashes.resize(Count());
    for (size_t i = 0; i < Count(); ++i) {
      std::string_view l = Line(i);
      hashes[i] = XXH3_64bits(l.data(), l.size());
    }
  }
  size_t Count() const { return starts.size() - 1; }
  std::string_view Line(size_t i) const {
    return text.substr(starts[i], starts[i + 1] - starts[i]);
  }
  // Where line `i` starts; for i == Count(), the end of the text.
  TSPoint PointAt(size_t i) const {
    if (i < Count() || text.empty() || text.back() == '\n') {
      return TSPoint{static_cast<uint32_t>(i), 0};
    }
    return TSPoint{static_cast<uint32_t>(i - 1), starts[i] - starts[i - 1]};
  }
  std::string_view text;
  std::vector<uint32_t> starts;
  std::vector<uint64_t> hashes;
};

bool SameLine(const LineIndex& a, size_t i, const LineIndex& b, size_t j) {
  return a.hashes[i] == b.hashes[j] && a.Line(i) == b.Line(j);
}

// Which lines of a[lo_a, hi_a) and b[lo_b, hi_b) a shortest edit script
// (Myers' greedy algorithm) keeps; false when it needs more than `max_d`
// deletions and insertions.
bool KeptLines(const LineIndex& a, size_t lo_a, size_t hi_a, const LineIndex& b, size_t lo_b,
               size_t hi_b, size_t max_d, std::vector<bool>& kept_a, std::vector<bool>& kept_b) {
  auto n = static_cast<int64_t>(hi_a - lo_a);
  auto m = static_cast<int64_t>(hi_b - lo_b);
  auto limit = static_cast<int64_t>(std::min<size_t>(max_d, static_cast<size_t>(n + m)));
  int64_t offset = limit + 1;
  std::vector<int64_t> v(static_cast<size_t>(2 * limit + 3), 0);
  // The furthest x on each diagonal k in [-d, d] before round d, for the
  // way back: (d + 1)^2 values in all, not a whole row per round.
  std::vector<int64_t> trace;
  auto before = [&](int64_t d, int64_t k) {
    return trace[static_cast<size_t>(d * d + (k + d))];  // rounds 0..d-1 hold d^2 values
  };
  int64_t found = -1;
  for (int64_t d = 0; d <= limit && found < 0; ++d) {
    for (int64_t k = -d; k <= d; ++k) trace.push_back(v[static_cast<size_t>(offset + k)]);
    for (int64_t k = -d; k <= d; k += 2) {
      int64_t x = k == -d || (k != d && v[static_cast<size_t>(offset + k - 1)] <
                                            v[static_cast<size_t>(offset + k + 1)])
                      ? v[static_cast<size_t>(offset + k + 1)]
                      : v[static_cast<size_t>(offset + k - 1)] + 1;
      int64_t y = x - k;
      while (x < n && y < m &&
             SameLine(a, lo_a + static_cast<size_t>(x), b, lo_b + static_cast<size_t>(y))) {
        ++x;
        ++y;
      }
      v[static_cast<size_t>(offset + k)] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return false;
  kept_a.assign(static_cast<size_t>(n), true);
  kept_b.assign(static_cast<size_t>(m), true);
  int64_t x = n;
  int64_t y = m;
  for (int64_t d = found; d > 0; --d) {
    int64_t k = x - y;
    int64_t prev_k = k == -d || (k != d && before(d, k - 1) < before(d, k + 1)) ? k + 1 : k - 1;
    int64_t prev_x = before(d, prev_k);
    int64_t prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) {
      --x;
      --y;
    }
    if (x == prev_x) {
      kept_b[static_cast<size_t>(prev_y)] = false;  // an insertion
    } else {
      kept_a[static_cast<size_t>(prev_x)] = false;  // a deletion
    }
    x = prev_x;
    y = prev_y;
  }
  return true;
}

TSPoint Advance(TSPoint from, std::string_view text) {
  for (char c : text) {
    if (c == '\n') {
      ++from.row;
      from.column = 0;
    } else {
      ++from.column;
    }
  }
  return from;
}

}  // namespace

std::vector<TSInputEdit> LineEdits(std::string_view before, std::string_view after,
                                   size_t max_changes) {
  LineIndex a(before);
  LineIndex b(after);
  // Common lines at both ends cost the diff nothing.
  size_t head = 0;
  while (head < a.Count() && head < b.Count() && SameLine(a, head, b, head)) ++head;
  size_t tail = 0;
  while (tail < a.Count() - head && tail < b.Count() - head &&
         SameLine(a, a.Count() - 1 - tail, b, b.Count() - 1 - tail)) {
    ++tail;
  }
  size_t end_a = a.Count() - tail;
  size_t end_b = b.Count() - tail;
  // Hunks as line ranges [i1, i2) of `before` replaced by [j1, j2) of `after`.
  struct Hunk {
    size_t i1, i2, j1, j2;
  };
  std::vector<Hunk> hunks;
  std::vector<bool> kept_a;
  std::vector<bool> kept_b;
  if (head == end_a && head == end_b) {
    // Equal texts.
  } else if (!KeptLines(a, head, end_a, b, head, end_b, max_changes, kept_a, kept_b)) {
    hunks.push_back({head, end_a, head, end_b});
  } else {
    size_t i = 0;
    size_t j = 0;
    while (i < kept_a.size() || j < kept_b.size()) {
      if (i < kept_a.size() && j < kept_b.size() && kept_a[i] && kept_b[j]) {
        ++i;
        ++j;
        continue;
      }
      Hunk h{head + i, head + i, head + j, head + j};
      while (i < kept_a.size() && !kept_a[i]) ++i;
      while (j < kept_b.size() && !kept_b[j]) ++j;
      h.i2 = head + i;
      h.j2 = head + j;
      hunks.push_back(h);
    }
  }
  // Last first: each edit then leaves the positions of those before it, in
  // `before`'s terms, where they were.
  // Each edit covers the bytes its lines differ in, not the lines whole:
  // an edit that takes in a line's end takes in Python's newline and
  // indentation tokens, and tree-sitter then reused far less of the old
  // tree (one byte of a string changed in jax's tests/pjit_test.py: 89 ms
  // from the old tree with the whole line as the edit, 0.2 ms with the one
  // byte, 110 ms from scratch).
  std::vector<TSInputEdit> edits;
  for (auto it = hunks.rbegin(); it != hunks.rend(); ++it) {
    std::string_view old_text =
        before.substr(a.starts[it->i1], a.starts[it->i2] - a.starts[it->i1]);
    std::string_view new_text = after.substr(b.starts[it->j1], b.starts[it->j2] - b.starts[it->j1]);
    size_t prefix = CommonPrefix(old_text, new_text);
    size_t suffix = CommonSuffix(old_text.substr(prefix), new_text.substr(prefix));
    size_t old_start = a.starts[it->i1] + prefix;
    size_t new_start = b.starts[it->j1] + prefix;
    size_t old_size = old_text.size() - prefix - suffix;
    size_t new_size = new_text.size() - prefix - suffix;
    // Lines inserted or deleted whole are described as far right as the
    // text allows (the inserted "  @skip(...)\n  " before "@jit" is
    // "@skip(...)\n  @" after "  "): an edit starting where a statement
    // starts cost tree-sitter more of the old tree. Over 4,312 Python files
    // of 16 jax releases, each parsed from its last version's tree, the
    // parses took 10% less time than without this, each tree the same as
    // from scratch. A step right is allowed while the byte the text starts
    // with is also the one after it, in the text that holds it (`before`
    // for a deletion, `after` for an insertion); the edit stays short of
    // the next one (edits.back(), later in the file).
    if ((old_size == 0) != (new_size == 0)) {
      std::string_view holder = old_size > 0 ? before : after;
      size_t at = old_size > 0 ? old_start : new_start;
      size_t size = old_size + new_size;
      size_t limit = edits.empty() ? before.size() : edits.back().start_byte;
      size_t steps = 0;
      while (old_start + old_size + steps < limit && at + size + steps < holder.size() &&
             holder[at + steps] == holder[at + size + steps]) {
        ++steps;
      }
      old_start += steps;
      new_start += steps;
    }
    TSInputEdit e{};
    e.start_byte = static_cast<uint32_t>(old_start);
    e.old_end_byte = static_cast<uint32_t>(old_start + old_size);
    e.new_end_byte = static_cast<uint32_t>(old_start + new_size);
    e.start_point =
        Advance(a.PointAt(it->i1), before.substr(a.starts[it->i1], old_start - a.starts[it->i1]));
    e.old_end_point = Advance(e.start_point, before.substr(old_start, old_size));
    e.new_end_point = Advance(e.start_point, after.substr(new_start, new_size));
    edits.push_back(e);
  }
  return edits;
}

std::string TreeText(TSTree* tree) {
  std::string out;
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
  int depth = 0;
  while (true) {
    TSNode n = ts_tree_cursor_current_node(&cursor);
    const char* field = ts_tree_cursor_current_field_name(&cursor);
    TSPoint s = ts_node_start_point(n);
    TSPoint e = ts_node_end_point(n);
    out += std::string(static_cast<size_t>(depth), ' ') + ts_node_type(n) + " " +
           (field != nullptr ? field : "") + " " + std::to_string(ts_node_start_byte(n)) + "-" +
           std::to_string(ts_node_end_byte(n)) + " " + std::to_string(s.row) + ":" +
           std::to_string(s.column) + "-" + std::to_string(e.row) + ":" + std::to_string(e.column) +
           (ts_node_is_missing(n) ? " missing" : "") + "\n";
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      ++depth;
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        ts_tree_cursor_delete(&cursor);
        return out;
      }
      --depth;
    }
  }
}

bool WorthReparsing(size_t before_size, size_t after_size, const std::vector<TSInputEdit>& edits) {
  size_t written = 0;
  for (const TSInputEdit& e : edits) written += e.new_end_byte - e.start_byte;
  return before_size <= 2 * after_size + 4096 && 2 * written <= after_size;
}

TreePtr ParseBudget::Reparse(std::string_view text, ParsedText last) {
  if (!last.tree || ts_node_has_error(ts_tree_root_node(last.tree.get()))) return nullptr;
  // The sizes alone rule out a file cut down to a stub, before the diff.
  if (!WorthReparsing(last.text.size(), text.size(), {})) return nullptr;
  std::vector<TSInputEdit> edits = LineEdits(last.text, text);
  if (!WorthReparsing(last.text.size(), text.size(), edits)) return nullptr;
  for (const TSInputEdit& e : edits) ts_tree_edit(last.tree.get(), &e);
  uint64_t left = RemainingMicros();
  if (left == 0) return nullptr;
  // A parser of its own, dropped after: with tree-sitter 0.20.7 and
  // tree-sitter-python 0.23.6, a parser that has parsed from an old tree
  // can parse the next file from scratch wrongly, even after
  // ts_parser_reset (seen on jax: jax/_src/errors.py reparsed, then
  // tests/sparsify_test.py read with its methods inside a function). A
  // parser costs microseconds; a wrong tree moves sites.
  ParserPtr own(ts_parser_new());
  ts_parser_set_language(own.get(), ts_parser_language(parser_));
  ts_parser_set_timeout_micros(own.get(), left == UINT64_MAX ? 0 : left);
  TreePtr tree(ts_parser_parse_string(own.get(), last.tree.get(), text.data(),
                                      static_cast<uint32_t>(text.size())));
  if (!tree || ts_node_has_error(ts_tree_root_node(tree.get()))) return nullptr;
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

std::string CodeText(TSNode node, std::string_view source) {
  std::string_view text = NodeText(node, source);
  // Comments and continuations are extras of every grammar read here, and
  // each starts with one of these; most code has none of them.
  if (text.find_first_of("#/\\") == std::string_view::npos) return CollapseWhitespace(text);
  if (ts_node_is_extra(node)) return "";
  std::string kept;
  uint32_t base = ts_node_start_byte(node);
  uint32_t from = base;
  TSTreeCursor cursor = ts_tree_cursor_new(node);
  // Preorder over the node's subtree; an extra's bytes are left out, and
  // nothing below an extra is visited.
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&cursor);
    bool skip = ts_node_is_extra(n) && !ts_node_eq(n, node);
    if (skip) {
      uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
      if (b >= from && e >= b) {
        kept += text.substr(from - base, b - from);
        kept += ' ';
        from = e;
      }
    }
    if (!skip && ts_tree_cursor_goto_first_child(&cursor)) continue;
    if (ts_tree_cursor_goto_next_sibling(&cursor)) continue;
    bool up = false;
    while (ts_tree_cursor_goto_parent(&cursor)) {
      if (ts_tree_cursor_goto_next_sibling(&cursor)) {
        up = true;
        break;
      }
    }
    if (!up) break;
  }
  ts_tree_cursor_delete(&cursor);
  uint32_t end = ts_node_end_byte(node);
  if (from < end) kept += text.substr(from - base, end - from);
  // C's line splices are no node of the tree: a backslash before a line
  // break joins the lines.
  for (size_t at = kept.find('\\'); at != std::string::npos; at = kept.find('\\', at + 1)) {
    size_t next = at + 1 < kept.size() && kept[at + 1] == '\r' ? at + 2 : at + 1;
    if (next < kept.size() && kept[next] == '\n') kept.replace(at, next + 1 - at, " ");
  }
  return CollapseWhitespace(kept);
}

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
