// Feeds arbitrary bytes to the Python extractor, then to analysis:
// decoding, parsing, evaluation, linking, families, related errors and
// prose must neither crash nor hang on any input. And the call graph's
// facts read with the memo of functions that indexing revisions keeps must
// be those read without it: from an empty memo, from one filled by the same
// text, and for the text moved down two lines; so must the sites of the
// memo of top-level definitions' walks, for the text moved down and back
// up. And the input's tree,
// edited into an edited copy's (a line dropped, one added) and parsed
// again from there, must be the copy's tree parsed from scratch.
#include <tree_sitter/api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analyze.h"
#include "analyze/related.h"
#include "catalog/json.h"
#include "extract/extractor.h"
#include "extract/python/py_calls.h"
#include "extract/python/py_extractor.h"
#include "extract/ts_util.h"
#include "fuzz_limits.h"

namespace {

namespace python = errdex::extract::python;

template <typename T>
class Memo final : public errdex::extract::DefinitionMemo<T> {
 public:
  std::shared_ptr<const T> Find(const std::string& key) override {
    auto it = kept_.find(key);
    return it == kept_.end() ? nullptr : it->second;
  }
  void Put(const std::string& key, std::shared_ptr<const T> value) override {
    kept_[key] = std::move(value);
  }

 private:
  std::map<std::string, std::shared_ptr<const T>> kept_;
};

// Facts of `text` read whole, then twice with `memo`: all three the same.
void CheckMemo(TSParser* parser, const std::string& text, Memo<python::ModuleFacts>& memo) {
  ts_parser_set_timeout_micros(parser, errdex::fuzz::kParseMicros);
  TSTree* tree =
      ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
  if (tree == nullptr) return;
  TSNode root = ts_tree_root_node(tree);
  std::string whole = python::FactsText(python::ReadModuleFacts(root, text));
  for (int pass = 0; pass < 2; ++pass) {
    if (python::FactsText(python::ReadModuleFacts(root, text, false, &memo)) != whole) {
      __builtin_trap();
    }
  }
  ts_tree_delete(tree);
}

// Sites of `text` extracted whole, then with `memo` twice: all three the
// same, unless a work budget ran out (what is cut then depends on what was
// spent before, which the memo changes). As the index, only for a text
// read without syntax errors.
void CheckSitesMemo(TSParser* parser, const std::string& text,
                    Memo<python::DefinitionSites>& memo) {
  ts_parser_set_timeout_micros(parser, errdex::fuzz::kParseMicros);
  errdex::extract::TreePtr tree(
      ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size())));
  if (!tree || ts_node_has_error(ts_tree_root_node(tree.get()))) return;
  python::PythonOptions options;
  python::FileResult result = python::ExtractPythonFile("fuzz.py", text, tree.get(), options);
  for (const errdex::FileIssue& issue : result.issues) {
    if (issue.reason == "work-budget") return;
  }
  std::string whole = python::FileResultText(result);
  options.sites_memo = &memo;
  for (int pass = 0; pass < 2; ++pass) {
    if (python::FileResultText(python::ExtractPythonFile("fuzz.py", text, tree.get(), options)) !=
        whole) {
      __builtin_trap();
    }
  }
}

// `text` parsed, then a copy with its k-th line dropped and a statement
// added mid-way parsed from that tree: the same tree as the copy's alone.
void CheckReparse(TSParser* parser, const std::string& text) {
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts.push_back(i + 1);
  }
  size_t k = starts[text.size() % starts.size()];
  size_t end = text.find('\n', k);
  std::string after = text.substr(0, k) + (end == std::string::npos ? "" : text.substr(end + 1));
  after.insert(starts[starts.size() / 2] <= after.size() ? starts[starts.size() / 2] : 0,
               "x = 1\n");
  ts_parser_set_timeout_micros(parser, errdex::fuzz::kParseMicros);
  errdex::extract::TreePtr before(
      ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size())));
  errdex::extract::TreePtr alone(
      ts_parser_parse_string(parser, nullptr, after.data(), static_cast<uint32_t>(after.size())));
  if (!before || !alone) return;
  errdex::extract::ParseBudget budget(parser);
  errdex::extract::TreePtr reparsed = budget.Reparse(after, {text, std::move(before)});
  if (reparsed &&
      errdex::extract::TreeText(reparsed.get()) != errdex::extract::TreeText(alone.get())) {
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  errdex::Extraction x =
      errdex::extract::ExtractPythonSource("fuzz.py", text, errdex::fuzz::kParseMicros);
  std::vector<errdex::analyze::RelatedInput> related;
  for (const errdex::Site& s : x.sites) {
    // What the catalog would store, read back as analysis reads it.
    errdex::catalog::ErrorRecord e;
    e.id = std::to_string(related.size());
    e.library = "fuzz/fuzz";
    e.exception = s.exception;
    e.kind = std::string(errdex::SiteKindName(s.kind));
    e.template_text = s.message.Display();
    e.message = s.message;
    e.internal = s.internal;
    e.dynamic = s.message.IsDynamic();
    errdex::catalog::SiteRecord r;
    r.path = s.path;
    r.line = s.line;
    r.function = s.function;
    r.excerpt = s.excerpt;
    r.excerpt_line = s.excerpt_line;
    r.internal = s.internal;
    r.trigger = s.trigger;
    r.guards_json = errdex::catalog::GuardsToJson(s.guards).dump();
    e.sites.push_back(r);
    errdex::Analysis a = errdex::analyze::AnalyzeError(e, {});
    related.push_back({e.id,
                       e.exception,
                       e.template_text,
                       e.template_text,
                       a.family.slug,
                       {{s.path, s.function}}});
  }
  (void)errdex::analyze::FindRelated(related);

  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, python::PythonLanguage());
  Memo<python::ModuleFacts> memo;
  CheckMemo(parser, std::string(text), memo);
  CheckMemo(parser, "import os\n\n" + std::string(text), memo);
  Memo<python::DefinitionSites> sites_memo;
  CheckSitesMemo(parser, std::string(text), sites_memo);
  CheckSitesMemo(parser, "import os\n\n" + std::string(text), sites_memo);
  CheckSitesMemo(parser, std::string(text), sites_memo);
  CheckReparse(parser, std::string(text));
  ts_parser_delete(parser);
  return 0;
}
