// The node types of tree-sitter-python the front end reads, as integers, and
// the table that maps the grammar's symbols to them.
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "extract/ts_util.h"

namespace errdex::extract::python {

// Node types the front end looks at; everything else is kOther.
enum Kind : uint16_t {
  kOther = 0,
  kModule,
  kRaise,
  kAssert,
  kCall,
  kIdentifier,
  kAttribute,
  kString,
  kConcatenatedString,
  kInterpolation,
  kBinaryOperator,
  kArgumentList,
  kKeywordArgument,
  kListSplat,
  kDictionarySplat,
  kParenthesized,
  kTuple,
  kExpressionList,
  kDictionary,
  kList,
  kPair,
  kConditional,
  kFunctionDefinition,
  kClassDefinition,
  kDecoratedDefinition,
  kBlock,
  kExpressionStatement,
  kAssignment,
  kAugmentedAssignment,
  kIf,
  kElif,
  kElse,
  kFor,
  kWhile,
  kTry,
  kExcept,
  kExceptGroup,
  kFinally,
  kWith,
  kMatch,
  kCase,
  kReturn,
  kImport,
  kImportFrom,
  kAliasedImport,
  kWildcardImport,
  kDottedName,
  kPatternList,
  kTuplePattern,
  kInteger,
  kFloat,
  kTrue,
  kFalse,
  kNone,
  kComment,
  kParameters,
  kDefaultParameter,
  kTypedParameter,
  kTypedDefaultParameter,
  kListSplatPattern,
  kDictionarySplatPattern,
  kBreak,
  kContinue,
  kStringStart,
  kStringEnd,
  kTypeConversion,
  kFormatSpecifier,
  kWithClause,
  kWithItem,
  kAsPattern,
  kAsPatternTarget,
  kUnaryOperator,
  kSubscript,
  kSlice,
  kNotOperator,
  kComparisonOperator,
  kBooleanOperator,
  kCasePattern,
  kGeneratorExpression,
  kLambda,
  kNamedExpression,
  kDecorator,
  kDictionaryComprehension,
  kForInClause,
};

// The table for tree-sitter-python; built once, thread-safe.
const SymbolTable& Symbols();

// Blocks, statements, clauses, definitions, as-patterns, the module and
// ERROR nodes: where statements (and so bindings and definitions) can be.
// By symbol, decided once from the grammar's names: comparing type names
// per node cost more than the walks that ask.
bool HoldsStatements(TSNode n);

// The names a target pattern binds (`a`, `a, (b, *c)`), each once, added
// to `out`; an attribute or subscript target binds none.
void PatternNames(TSNode pattern, std::string_view source, std::vector<std::string_view>& out);

inline uint16_t KindOf(TSNode node) {
  return ts_node_is_null(node) ? static_cast<uint16_t>(kOther) : Symbols().Kind(node);
}

// The last dotted component: "pallas_core.LoweringException" -> "LoweringException".
// Whether `needle` is one of the names in `haystack` (a table of string_views).
inline bool Contains(std::string_view needle, const auto& haystack) {
  for (std::string_view h : haystack) {
    if (h == needle) return true;
  }
  return false;
}

inline std::string_view LastComponent(std::string_view name) {
  size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

}  // namespace errdex::extract::python
