// The node types of tree-sitter-c and tree-sitter-cpp the C/C++ front end
// reads, as integers; the two grammars share these names.
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>

#include "extract/ts_util.h"

namespace errdex::extract::cpp {

enum Kind : uint16_t {
  kOther = 0,
  kTranslationUnit,
  kFunctionDefinition,
  kFunctionDeclarator,
  kDeclaration,
  kInitDeclarator,
  kCall,
  kArgumentList,
  kIdentifier,
  kQualifiedIdentifier,
  kNamespaceIdentifier,
  kTypeIdentifier,
  kFieldExpression,
  kFieldIdentifier,
  kTemplateFunction,
  kTemplateType,
  kStringLiteral,
  kStringContent,
  kEscapeSequence,
  kRawStringLiteral,
  kRawStringContent,
  kConcatenatedString,
  kCharLiteral,
  kNumberLiteral,
  kBinaryExpression,
  kParenthesized,
  kConditional,
  kThrow,
  kReturn,
  kExpressionStatement,
  kCompoundStatement,
  kClassSpecifier,
  kStructSpecifier,
  kNamespaceDefinition,
  kLambda,
  kPreprocDef,
  kPreprocFunctionDef,
  kPreprocParams,
  kPreprocArg,
  kPointerDeclarator,
  kReferenceDeclarator,
  kDestructorName,
  kOperatorName,
  kAssignment,
  kInitializerList,
  kCompoundLiteral,
  kUserDefinedLiteral,
  kParameterList,
  kParameterDeclaration,
  kOptionalParameterDeclaration,
  kVariadicParameterDeclaration,
  kTemplateDeclaration,
  kArrayDeclarator,
  kUnaryExpression,
  kPointerExpression,
  kCastExpression,
  kFieldDeclarationList,
  kDeclarationList,
  kTrue,
  kFalse,
  kNull,
  kThis,
  kComment,
  kIfStatement,
  kElseClause,
  kConditionClause,
  kSwitch,
  kCaseStatement,
  kWhileStatement,
  kForStatement,
  kForRange,
  kTryStatement,
  kCatchClause,
  kBreak,
  kContinue,
  kDoStatement,
  kLabeledStatement,
  kGoto,
  kPreprocIf,
  kPreprocIfdef,
  kPreprocElse,
  kPreprocElif,
  kPreprocElifdef,
  kLinkage,
  kAttributedStatement,
};

// The table for the grammar of `language` (C or C++); built once, thread-safe.
const SymbolTable& Symbols(bool is_c);

const TSLanguage* CLanguage();
const TSLanguage* CppLanguage();

}  // namespace errdex::extract::cpp
