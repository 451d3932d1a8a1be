// The node types of tree-sitter-rust the Rust front end reads, as integers.
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>

#include "extract/ts_util.h"

namespace errdex::extract::rust {

enum Kind : uint16_t {
  kOther = 0,
  kSourceFile,
  kFunctionItem,
  kImplItem,
  kTraitItem,
  kModItem,
  kEnumItem,
  kStructItem,
  kEnumVariant,
  kEnumVariantList,
  kAttributeItem,
  kAttribute,
  kTokenTree,
  kMacroInvocation,
  kMacroDefinition,
  kCall,
  kArguments,
  kGenericFunction,
  kScopedIdentifier,
  kIdentifier,
  kTypeIdentifier,
  kScopedTypeIdentifier,
  kGenericType,
  kFieldExpression,
  kFieldIdentifier,
  kStringLiteral,
  kRawStringLiteral,
  kStringContent,
  kEscapeSequence,
  kIfExpression,
  kElseClause,
  kMatchExpression,
  kMatchBlock,
  kMatchArm,
  kMatchPattern,
  kWhileExpression,
  kBlock,
  kLetDeclaration,
  kReferenceExpression,
  kParenthesized,
  kClosure,
  kTryExpression,
  kSelf,
  kLineComment,
  kBlockComment,
  kTypeArguments,
  kExpressionStatement,
  kReturn,
  kAssignment,
  kCompoundAssignment,
  kLoopExpression,
  kForExpression,
  kBreak,
  kContinue,
  kLetCondition,
  kLetChain,
  kLabel,
  kUnsafeBlock,
  kAsyncBlock,
  kConstBlock,
  kTryBlock,
  kParameters,
  kParameter,
  kSelfParameter,
  kVariadicParameter,
  kVisibilityModifier,
  kMutPattern,
  kMacroRule,
  kMetavariable,
  kTokenRepetition,
};

const SymbolTable& Symbols();
const TSLanguage* RustLanguage();

}  // namespace errdex::extract::rust
