#include "extract/rust/rust_syntax.h"

extern "C" const TSLanguage* tree_sitter_rust();

namespace errdex::extract::rust {

const TSLanguage* RustLanguage() { return tree_sitter_rust(); }

const SymbolTable& Symbols() {
  static const SymbolTable table(RustLanguage(),
                                 {
                                     {"source_file", kSourceFile},
                                     {"function_item", kFunctionItem},
                                     {"impl_item", kImplItem},
                                     {"trait_item", kTraitItem},
                                     {"mod_item", kModItem},
                                     {"enum_item", kEnumItem},
                                     {"struct_item", kStructItem},
                                     {"enum_variant", kEnumVariant},
                                     {"enum_variant_list", kEnumVariantList},
                                     {"attribute_item", kAttributeItem},
                                     {"attribute", kAttribute},
                                     {"token_tree", kTokenTree},
                                     {"macro_invocation", kMacroInvocation},
                                     {"macro_definition", kMacroDefinition},
                                     {"call_expression", kCall},
                                     {"arguments", kArguments},
                                     {"generic_function", kGenericFunction},
                                     {"scoped_identifier", kScopedIdentifier},
                                     {"identifier", kIdentifier},
                                     {"type_identifier", kTypeIdentifier},
                                     {"scoped_type_identifier", kScopedTypeIdentifier},
                                     {"generic_type", kGenericType},
                                     {"field_expression", kFieldExpression},
                                     {"field_identifier", kFieldIdentifier},
                                     {"string_literal", kStringLiteral},
                                     {"raw_string_literal", kRawStringLiteral},
                                     {"string_content", kStringContent},
                                     {"escape_sequence", kEscapeSequence},
                                     {"if_expression", kIfExpression},
                                     {"else_clause", kElseClause},
                                     {"match_expression", kMatchExpression},
                                     {"match_block", kMatchBlock},
                                     {"match_arm", kMatchArm},
                                     {"match_pattern", kMatchPattern},
                                     {"while_expression", kWhileExpression},
                                     {"block", kBlock},
                                     {"let_declaration", kLetDeclaration},
                                     {"reference_expression", kReferenceExpression},
                                     {"parenthesized_expression", kParenthesized},
                                     {"closure_expression", kClosure},
                                     {"try_expression", kTryExpression},
                                     {"self", kSelf},
                                     {"line_comment", kLineComment},
                                     {"block_comment", kBlockComment},
                                     {"type_arguments", kTypeArguments},
                                     {"expression_statement", kExpressionStatement},
                                     {"return_expression", kReturn},
                                     {"assignment_expression", kAssignment},
                                     {"compound_assignment_expr", kCompoundAssignment},
                                     {"loop_expression", kLoopExpression},
                                     {"for_expression", kForExpression},
                                     {"break_expression", kBreak},
                                     {"continue_expression", kContinue},
                                     {"let_condition", kLetCondition},
                                     {"let_chain", kLetChain},
                                     {"label", kLabel},
                                     {"unsafe_block", kUnsafeBlock},
                                     {"async_block", kAsyncBlock},
                                     {"const_block", kConstBlock},
                                     {"try_block", kTryBlock},
                                 });
  return table;
}

}  // namespace errdex::extract::rust
