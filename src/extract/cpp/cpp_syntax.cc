#include "extract/cpp/cpp_syntax.h"

#include <string_view>
#include <utility>
#include <vector>

extern "C" const TSLanguage* tree_sitter_c(void);
extern "C" const TSLanguage* tree_sitter_cpp(void);

namespace errdex::extract::cpp {
namespace {

const std::vector<std::pair<std::string_view, uint16_t>>& Names() {
  static const std::vector<std::pair<std::string_view, uint16_t>> names = {
      {"translation_unit", kTranslationUnit},
      {"function_definition", kFunctionDefinition},
      {"function_declarator", kFunctionDeclarator},
      {"declaration", kDeclaration},
      {"init_declarator", kInitDeclarator},
      {"call_expression", kCall},
      {"argument_list", kArgumentList},
      {"identifier", kIdentifier},
      {"qualified_identifier", kQualifiedIdentifier},
      {"namespace_identifier", kNamespaceIdentifier},
      {"type_identifier", kTypeIdentifier},
      {"field_expression", kFieldExpression},
      {"field_identifier", kFieldIdentifier},
      {"template_function", kTemplateFunction},
      {"template_type", kTemplateType},
      {"string_literal", kStringLiteral},
      {"string_content", kStringContent},
      {"escape_sequence", kEscapeSequence},
      {"raw_string_literal", kRawStringLiteral},
      {"raw_string_content", kRawStringContent},
      {"concatenated_string", kConcatenatedString},
      {"char_literal", kCharLiteral},
      {"number_literal", kNumberLiteral},
      {"binary_expression", kBinaryExpression},
      {"parenthesized_expression", kParenthesized},
      {"conditional_expression", kConditional},
      {"throw_statement", kThrow},
      {"return_statement", kReturn},
      {"expression_statement", kExpressionStatement},
      {"compound_statement", kCompoundStatement},
      {"class_specifier", kClassSpecifier},
      {"struct_specifier", kStructSpecifier},
      {"namespace_definition", kNamespaceDefinition},
      {"lambda_expression", kLambda},
      {"preproc_def", kPreprocDef},
      {"preproc_function_def", kPreprocFunctionDef},
      {"preproc_params", kPreprocParams},
      {"preproc_arg", kPreprocArg},
      {"pointer_declarator", kPointerDeclarator},
      {"reference_declarator", kReferenceDeclarator},
      {"destructor_name", kDestructorName},
      {"operator_name", kOperatorName},
      {"assignment_expression", kAssignment},
      {"initializer_list", kInitializerList},
      {"compound_literal_expression", kCompoundLiteral},
      {"user_defined_literal", kUserDefinedLiteral},
      {"parameter_list", kParameterList},
      {"parameter_declaration", kParameterDeclaration},
      {"optional_parameter_declaration", kOptionalParameterDeclaration},
      {"variadic_parameter_declaration", kVariadicParameterDeclaration},
      {"template_declaration", kTemplateDeclaration},
      {"array_declarator", kArrayDeclarator},
      {"unary_expression", kUnaryExpression},
      {"pointer_expression", kPointerExpression},
      {"cast_expression", kCastExpression},
      {"field_declaration_list", kFieldDeclarationList},
      {"declaration_list", kDeclarationList},
      {"true", kTrue},
      {"false", kFalse},
      {"null", kNull},
      {"this", kThis},
      {"comment", kComment},
      {"if_statement", kIfStatement},
      {"else_clause", kElseClause},
      {"condition_clause", kConditionClause},
      {"switch_statement", kSwitch},
      {"case_statement", kCaseStatement},
      {"while_statement", kWhileStatement},
      {"for_statement", kForStatement},
      {"for_range_loop", kForRange},
      {"try_statement", kTryStatement},
      {"catch_clause", kCatchClause},
      {"break_statement", kBreak},
      {"continue_statement", kContinue},
      {"do_statement", kDoStatement},
      {"labeled_statement", kLabeledStatement},
      {"goto_statement", kGoto},
      {"preproc_if", kPreprocIf},
      {"preproc_ifdef", kPreprocIfdef},
      {"preproc_else", kPreprocElse},
      {"preproc_elif", kPreprocElif},
      {"preproc_elifdef", kPreprocElifdef},
      {"attributed_statement", kAttributedStatement},
      {"linkage_specification", kLinkage},
  };
  return names;
}

}  // namespace

const TSLanguage* CLanguage() { return tree_sitter_c(); }
const TSLanguage* CppLanguage() { return tree_sitter_cpp(); }

const SymbolTable& Symbols(bool is_c) {
  static const SymbolTable c_table(tree_sitter_c(), Names());
  static const SymbolTable cpp_table(tree_sitter_cpp(), Names());
  return is_c ? c_table : cpp_table;
}

}  // namespace errdex::extract::cpp
