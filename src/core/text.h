// Small text utilities shared by the stages: UTF-8 checks, Python's repr of
// a string, whitespace folding.
#pragma once

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

namespace errdex {

bool IsValidUtf8(std::string_view text);

// Appends code point `cp` as UTF-8; a surrogate or a value past U+10FFFF,
// which UTF-8 cannot hold, becomes U+FFFD.
void AppendUtf8(uint32_t cp, std::string& out);

// The value of a hexadecimal digit, or -1.
int HexDigitValue(char c);

// Replaces invalid UTF-8 sequences with U+FFFD so the text can go into JSON.
std::string ToValidUtf8(std::string_view text);

// What Python's repr() prints for a str with this content: single quotes
// unless the text has a ' and no ", backslash escapes for control characters.
std::string PythonRepr(std::string_view text);

// The part of a repr between the quotes, for a repr quoted with `quote`.
std::string PythonReprBody(std::string_view text, char quote);

// What Python's repr() (and str()) prints for a bytes object: b'...', the
// quotes picked as for str, bytes outside printable ASCII as \xhh.
std::string PythonBytesRepr(std::string_view bytes);

// The bytes a text of characters below U+0100 stands for, one per
// character (a decoded bytes literal); other characters keep their UTF-8.
std::string Latin1Bytes(std::string_view utf8);

// Runs of whitespace (including newlines) become one space; ends trimmed.
std::string CollapseWhitespace(std::string_view text);

std::string_view Trim(std::string_view text);

// The longest prefix of valid UTF-8 `text` of at most `max_bytes` bytes that
// does not split a character.
std::string_view TruncateUtf8(std::string_view text, size_t max_bytes);

bool StartsWith(std::string_view text, std::string_view prefix);

// A name as Python, C and Rust write one: letters, digits and `_`, not
// starting with a digit (ASCII only).
bool IsIdentifier(std::string_view s);
// A letter, digit or underscore: a character of a Python, C or Rust name.
inline bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}
// Whether a function's own name (after the last dot) begins with the word
// "assert": `assertEqual`, `assert_called_with`; not `asserts`,
// `test_assert`, `check_assertions`, nor a private `_assert_valid`. An AssertionError such a
// function raises is a check its caller asked for (a test's, a mock's), not
// the library's own.
bool NamedForAssert(std::string_view qualified);
bool EndsWith(std::string_view text, std::string_view suffix);

// A path of a library's tests ('/'-separated, relative to its root): under
// a test/, tests/, _tests/ or idle_test/ directory, or a test_*.py,
// *_test.py or conftest.py file. Its raises are the tests', not the library's users'.
bool IsTestPath(std::string_view path);

// How many bytes `a` and `b` share at their start, and at their end.
size_t CommonPrefix(std::string_view a, std::string_view b);
size_t CommonSuffix(std::string_view a, std::string_view b);

// `text` with its ASCII letters lowercased (other bytes as they are).
std::string AsciiLower(std::string_view text);

// A CamelCase name as serde/strum's snake_case spells it: `IntParsing` ->
// `int_parsing`, `UrlTooLong` -> `url_too_long`, `HTTPError` -> `http_error`.
std::string SnakeCase(std::string_view camel);

// `n` and a noun that agrees with it, for every count people read: "1
// library", "3 libraries", "0 errors". The plural is the noun with "s"
// ("ies" for a consonant and "y", "es" after s, x, z, ch, sh), or `plural`
// when given ("analysis", "analyses").
std::string Counted(int64_t n, std::string_view singular, std::string_view plural = {});

// The current time as ISO 8601 in UTC: "2026-11-30T08:00:00Z".
std::string NowUtc();

}  // namespace errdex
