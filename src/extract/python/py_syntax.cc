#include "extract/python/py_syntax.h"

#include <algorithm>

#include <string_view>
#include <vector>

#include "core/text.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace errdex::extract::python {

const SymbolTable& Symbols() {
  static const SymbolTable table(tree_sitter_python(),
                                 {
                                     {"module", kModule},
                                     {"raise_statement", kRaise},
                                     {"assert_statement", kAssert},
                                     {"call", kCall},
                                     {"identifier", kIdentifier},
                                     {"attribute", kAttribute},
                                     {"string", kString},
                                     {"concatenated_string", kConcatenatedString},
                                     {"interpolation", kInterpolation},
                                     {"binary_operator", kBinaryOperator},
                                     {"argument_list", kArgumentList},
                                     {"keyword_argument", kKeywordArgument},
                                     {"list_splat", kListSplat},
                                     {"dictionary_splat", kDictionarySplat},
                                     {"parenthesized_expression", kParenthesized},
                                     {"tuple", kTuple},
                                     {"expression_list", kExpressionList},
                                     {"dictionary", kDictionary},
                                     {"list", kList},
                                     {"pair", kPair},
                                     {"conditional_expression", kConditional},
                                     {"function_definition", kFunctionDefinition},
                                     {"class_definition", kClassDefinition},
                                     {"decorated_definition", kDecoratedDefinition},
                                     {"block", kBlock},
                                     {"expression_statement", kExpressionStatement},
                                     {"assignment", kAssignment},
                                     {"augmented_assignment", kAugmentedAssignment},
                                     {"if_statement", kIf},
                                     {"elif_clause", kElif},
                                     {"else_clause", kElse},
                                     {"for_statement", kFor},
                                     {"while_statement", kWhile},
                                     {"try_statement", kTry},
                                     {"except_clause", kExcept},
                                     {"except_group_clause", kExceptGroup},
                                     {"finally_clause", kFinally},
                                     {"with_statement", kWith},
                                     {"match_statement", kMatch},
                                     {"case_clause", kCase},
                                     {"return_statement", kReturn},
                                     {"import_statement", kImport},
                                     {"import_from_statement", kImportFrom},
                                     {"aliased_import", kAliasedImport},
                                     {"wildcard_import", kWildcardImport},
                                     {"dotted_name", kDottedName},
                                     {"pattern_list", kPatternList},
                                     {"tuple_pattern", kTuplePattern},
                                     {"integer", kInteger},
                                     {"float", kFloat},
                                     {"true", kTrue},
                                     {"false", kFalse},
                                     {"none", kNone},
                                     {"comment", kComment},
                                     {"parameters", kParameters},
                                     {"default_parameter", kDefaultParameter},
                                     {"typed_parameter", kTypedParameter},
                                     {"typed_default_parameter", kTypedDefaultParameter},
                                     {"list_splat_pattern", kListSplatPattern},
                                     {"dictionary_splat_pattern", kDictionarySplatPattern},
                                     {"break_statement", kBreak},
                                     {"continue_statement", kContinue},
                                     {"string_start", kStringStart},
                                     {"string_end", kStringEnd},
                                     {"type_conversion", kTypeConversion},
                                     {"format_specifier", kFormatSpecifier},
                                     {"with_clause", kWithClause},
                                     {"with_item", kWithItem},
                                     {"as_pattern", kAsPattern},
                                     {"as_pattern_target", kAsPatternTarget},
                                     {"unary_operator", kUnaryOperator},
                                     {"subscript", kSubscript},
                                     {"slice", kSlice},
                                     {"not_operator", kNotOperator},
                                     {"comparison_operator", kComparisonOperator},
                                     {"boolean_operator", kBooleanOperator},
                                     {"case_pattern", kCasePattern},
                                     {"generator_expression", kGeneratorExpression},
                                     {"lambda", kLambda},
                                     {"named_expression", kNamedExpression},
                                     {"decorator", kDecorator},
                                     {"dictionary_comprehension", kDictionaryComprehension},
                                     {"for_in_clause", kForInClause},
                                 });
  return table;
}

void PatternNames(TSNode pattern, std::string_view source, std::vector<std::string_view>& out) {
  if (ts_node_is_null(pattern)) return;
  uint16_t k = KindOf(pattern);
  if (k == kIdentifier) {
    std::string_view name = NodeText(pattern, source);
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    return;
  }
  if (k == kPatternList || k == kTuplePattern || k == kListSplatPattern || k == kParenthesized ||
      k == kTuple || k == kExpressionList) {
    for (TSNode child : NamedChildren(pattern)) PatternNames(child, source, out);
  }
}

bool HoldsStatements(TSNode n) {
  static const std::vector<bool> table = [] {
    const TSLanguage* language = tree_sitter_python();
    std::vector<bool> t(ts_language_symbol_count(language), false);
    for (TSSymbol s = 0; s < t.size(); ++s) {
      std::string_view type = ts_language_symbol_name(language, s);
      t[s] = type == "module" || type == "block" || type == "as_pattern" ||
             EndsWith(type, "_statement") || EndsWith(type, "_clause") ||
             EndsWith(type, "_definition");
    }
    return t;
  }();
  TSSymbol s = ts_node_symbol(n);
  if (s == static_cast<TSSymbol>(-1)) return true;  // ERROR
  return s < table.size() && table[s];
}

}  // namespace errdex::extract::python
