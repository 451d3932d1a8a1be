#include "extract/flow/bind.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace errdex::extract::flow {

void BindArguments(const std::vector<Param>& params, const std::vector<CallArg>& args,
                   Bindings& bindings, std::vector<Arg>* rest) {
  size_t next = 0;
  for (const CallArg& a : args) {
    if (a.splat) break;
    if (!a.keyword.empty()) {
      bindings[a.keyword] = a.arg;
      continue;
    }
    if (next >= params.size() || params[next].variadic) {
      if (rest != nullptr && next < params.size()) rest->push_back(a.arg);
      continue;
    }
    bindings[params[next++].name] = a.arg;
  }
  for (const Param& p : params) {
    if (!p.variadic && p.default_value && !bindings.count(p.name)) {
      bindings[p.name] = *p.default_value;
    }
  }
}

namespace {

// `text` with each whole-word use of a bound name whose argument is a
// plain name (`obj`, `self.path`) written as that argument: a value built
// from a parameter (`Py_TYPE(object)->tp_name`, `path.display()`) is named
// at the call with the caller's words, not the helper's.
std::string Renamed(std::string_view text, const Bindings& bindings) {
  auto plain = [&](std::string_view e) {
    if (e.empty() || std::isdigit(static_cast<unsigned char>(e.front())) != 0) return false;
    return std::all_of(e.begin(), e.end(), [&](char c) { return IsIdentChar(c) || c == '.'; });
  };
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (!IsIdentChar(text[i]) || (i > 0 && (IsIdentChar(text[i - 1]) || text[i - 1] == '.'))) {
      out.push_back(text[i++]);
      continue;
    }
    size_t j = i;
    while (j < text.size() && IsIdentChar(text[j])) ++j;
    std::string_view word = text.substr(i, j - i);
    auto it = bindings.find(word);
    out.append(it != bindings.end() && plain(it->second.expression)
                   ? std::string_view(it->second.expression)
                   : word);
    i = j;
  }
  return out;
}

}  // namespace

Template Substitute(const Template& t, const Bindings& bindings, Printing printing) {
  Template out;
  for (const Piece& p : t.pieces()) {
    auto it = p.is_value ? bindings.find(p.text) : bindings.end();
    if (it == bindings.end()) {
      if (!p.is_value) {
        out.AppendPiece(p);
        continue;
      }
      Piece renamed = p;
      renamed.text = Renamed(p.text, bindings);
      out.AppendPiece(std::move(renamed));
      continue;
    }
    if (p.reflow && it->second.value) {
      Arg reflowed = it->second;
      reflowed.value = Reflowed(*reflowed.value);
      AppendArg(printing, reflowed, p.kind, p.spec, p.max_length, out);
      continue;
    }
    if (it->second.value && p.kind == ValueKind::kAny) {
      out.Append(*it->second.value);
      continue;
    }
    AppendArg(printing, it->second, p.kind, p.spec, p.max_length, out);
  }
  return out;
}

Template Reflowed(const Template& t) {
  Template out;
  for (const Piece& p : t.pieces()) {
    if (p.is_value) {
      out.AppendPiece(p);
      continue;
    }
    std::string text;
    bool space = false;
    for (char c : p.text) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        space = true;
        continue;
      }
      if (space && !(text.empty() && out.empty())) text.push_back(' ');
      space = false;
      text.push_back(c);
    }
    if (space && !(text.empty() && out.empty())) text.push_back(' ');
    if (!text.empty()) out.AppendText(text);
  }
  std::vector<Piece>& pieces = out.mutable_pieces();
  if (!pieces.empty() && !pieces.back().is_value && !pieces.back().text.empty() &&
      pieces.back().text.back() == ' ') {
    pieces.back().text.pop_back();
    if (pieces.back().text.empty()) pieces.pop_back();
  }
  return out;
}

}  // namespace errdex::extract::flow
