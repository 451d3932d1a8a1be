// Valid Python the pinned grammar rejects: the same-length rewrite before
// parsing, and the front end reading such files without a syntax error.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "extract/extractor.h"
#include "unit/extract/python/prepass_testing.h"
#include "extract/python/py_prepass.h"

namespace errdex::extract {
namespace {

std::string Rewritten(std::string text) {
  python::RewriteForGrammar(text);
  return text;
}

void ParsesAndFindsTheRaise(const std::string& code, int line) {
  testing::ParsesAndFindsTheRaise("m.py", code, line);
}

TEST(PythonPrepass, StarredSubscriptsLoseTheirStar) {
  EXPECT_EQ(Rewritten("y = x[*(a for a in b)]\n"), "y = x[ (a for a in b)]\n");
  EXPECT_EQ(Rewritten("x.at[*((0,) * n)]\n"), "x.at[ ((0,) * n)]\n");
  EXPECT_EQ(Rewritten("x[a, *(b), *c]\n"), "x[a,  (b),  c]\n");
  EXPECT_EQ(Rewritten("f(x)[*idx]\nx[i][*j]\n"), "f(x)[ idx]\nx[i][ j]\n");
  EXPECT_EQ(Rewritten("x[\n  *idx,\n]\n"), "x[\n   idx,\n]\n");
}

TEST(PythonPrepass, OtherStarsAndBracketsAreKept) {
  for (const char* code : {
           "y = [*a, *b]\n",            // a list display
           "return [*a]\n",             // after a keyword
           "x = 1\n[*a] = b\n",         // a new statement
           "f(*a, **k)\n",              // call arguments
           "x[a * b]\nx[a, b ** 2]\n",  // operators
           "x[f(*a)]\n",                // inside a call in a subscript
           "match p:\n  case [*rest]:\n    pass\n",
           "s = 'x[*(a)]'  # x[*(b)]\n",  // a string and a comment
           "class C[*Ts]: pass\n",        // a type parameter list
       }) {
    EXPECT_EQ(Rewritten(code), code);
  }
}

TEST(PythonPrepass, TypeParameterDefaultsAreBlanked) {
  EXPECT_EQ(Rewritten("def f[T = int](x: T): pass\n"), "def f[T      ](x: T): pass\n");
  EXPECT_EQ(Rewritten("class C[T: int = bool, *Ts = *tuple[int, str]]: pass\n"),
            "class C[T: int       , *Ts" + std::string(19, ' ') + "]: pass\n");
  EXPECT_EQ(Rewritten("type A[K = str,\n  V = dict[str, 'x,]']] = dict[K, V]\n"),
            "type A[K      ,\n  V" + std::string(19, ' ') + "] = dict[K, V]\n");
  // A subscript after `def` is no type parameter list.
  EXPECT_EQ(Rewritten("x = types[a == b]\n"), "x = types[a == b]\n");
}

TEST(PythonPrepass, TemplateStringsReadAsFStrings) {
  EXPECT_EQ(Rewritten("x = t'{a}' + Tr\"{b}\" + rt'''{c}'''\n"),
            "x = f'{a}' + Fr\"{b}\" + rf'''{c}'''\n");
  EXPECT_EQ(Rewritten("t = at'x'\n"), "t = at'x'\n");  // no prefix: a word
}

TEST(PythonPrepass, FStringFieldsAreCode) {
  // PEP 701: the field is code even when it repeats the string's quote.
  EXPECT_EQ(Rewritten("f\"{x[*(a)]}\" f'{d[\"k\"]:{w}}' f\"{x!r:>{x[*(i)]}}\"\n"),
            "f\"{x[ (a)]}\" f'{d[\"k\"]:{w}}' f\"{x!r:>{x[ (i)]}}\"\n");
  EXPECT_EQ(Rewritten("f'{{x[*(a)]}}'\n"), "f'{{x[*(a)]}}'\n");  // escaped braces: text
}

TEST(PythonPrepass, StringsAndCommentsAreText) {
  for (const char* code : {
           "# x[*(a)] def f[T = int]() t'{x}'\n",
           "s = '''\nx[*(a)]\ndef f[T = int](): pass\nt'{x}'\n'''\n",
           "s = \"t'{x}' x[*(a)]\" + b'x[*(a)]' + r'\\\\' + 'def f[T = 1]'\n",
           "s = f'x[*(a)] t\"{b}\" {{x[*(c)]}}' + rb\"t'x'\"\n",
           "s = f'{x!r:>10} x[*(a)]' f'''\n{y}\nclass C[T = int]: pass'''\n",
           "s = 'x[*(a)]\\\nx[*(b)]'\n",  // a backslash-newline inside a string
       }) {
    EXPECT_EQ(Rewritten(code), code);
  }
}

// Every byte is the source's, a space where a star or default was, or the
// `f` of a `t` prefix; line breaks are never touched.
void ExpectOnlyBlanksAndPrefixes(const std::string& code) {
  std::string out = Rewritten(code);
  ASSERT_EQ(out.size(), code.size()) << code;
  for (size_t i = 0; i < code.size(); ++i) {
    char a = code[i];
    char b = out[i];
    bool ok = a == b || (b == ' ' && a != '\n' && a != '\r') || (a == 't' && b == 'f') ||
              (a == 'T' && b == 'F');
    ASSERT_TRUE(ok) << "byte " << i << " of:\n" << code << "\nbecame:\n" << out;
  }
}

TEST(PythonPrepass, HostileInputsKeepLengthAndLineBreaks) {
  // Short texts of the bytes the rewrite reacts to, from a fixed seed so a
  // failure reproduces.
  const std::string alphabet = "[]{}()*=,:!'\"\\#\n\r tfTrb_xdefclasyp";
  uint32_t state = 12345;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  for (int n = 0; n < 20000; ++n) {
    std::string code(next() % 64, ' ');
    for (char& c : code) c = alphabet[next() % alphabet.size()];
    ExpectOnlyBlanksAndPrefixes(code);
  }
  for (std::string code :
       {std::string("f'{"), std::string("x[*"), std::string("def f[T ="), std::string("'''\n"),
        std::string("f'{f'{f'{'"), std::string("\\"), std::string("t"), std::string("t'"),
        std::string(200, '{') + "f'" + std::string(100, '{')}) {
    ExpectOnlyBlanksAndPrefixes(code);
  }
}

TEST(PythonPrepass, LargeHostileInputsEndQuickly) {
  auto repeat = [](std::string_view unit, size_t times) {
    std::string s;
    s.reserve(unit.size() * times);
    for (size_t i = 0; i < times; ++i) s.append(unit);
    return s;
  };
  // Deep brackets, deep f-string fields, endless defaults and prefixes: each
  // a megabyte or so, each read once.
  for (const std::string& code : {
           repeat("x[", 500000),
           repeat("f'{", 300000),
           repeat("f\"{x:{", 200000),
           "def f[T = " + repeat("[", 500000),
           repeat("x[*(", 250000),
           repeat("t'", 500000),
           repeat("class C[T = int, ", 60000),
       }) {
    ExpectOnlyBlanksAndPrefixes(code);
  }
}

TEST(PythonPrepass, TheFrontEndReadsTheConstructs) {
  ParsesAndFindsTheRaise("def g(filt):\n  return filt[*(h(filt, ax) for ax in r)]\n", 3);
  ParsesAndFindsTheRaise("k = key.at[*((0,) * len(shape))]\n", 2);
  ParsesAndFindsTheRaise("y = x[a, *(b)]\n", 2);
  ParsesAndFindsTheRaise("def f[T = int](x: T) -> T:\n  return x\n", 3);
  ParsesAndFindsTheRaise("type A[T = int] = list[T]\n", 2);
  ParsesAndFindsTheRaise("s = t'{x}'\n", 2);
  // Constructs the grammar already reads, kept read.
  ParsesAndFindsTheRaise("try:\n  pass\nexcept* ValueError as e:\n  pass\n", 5);
  ParsesAndFindsTheRaise("def f[T: int, *Ts, **P](x: T) -> T:\n  return x\n", 3);
  ParsesAndFindsTheRaise("class C[T](Base):\n  pass\n", 3);
  ParsesAndFindsTheRaise("type X = list[int]\n", 2);
  ParsesAndFindsTheRaise("s = f\"{a[\"b\"]}{f\"{c}\"}\"\n", 2);
  ParsesAndFindsTheRaise("y = x[*idx]\nz: tuple[*Ts]\n", 3);
}

TEST(PythonPrepass, SitesQuoteTheSourceNotTheRewrite) {
  Extraction x =
      ExtractPythonSource("m.py", "def f(x, i):\n  raise ValueError(t'bad {x[*(i)]}')\n");
  ASSERT_EQ(x.sites.size(), 1u);
  EXPECT_TRUE(x.issues.empty());
  EXPECT_NE(x.sites[0].statement.find("t'bad {x[*(i)]}'"), std::string::npos)
      << x.sites[0].statement;
}

TEST(PythonPrepass, LinesAndColumnsAreTheSources) {
  Extraction x = ExtractPythonSource(
      "m.py",
      "class C[K = str,\n        V = dict[str, 'x']]:\n  def f[T = int](self, a):\n"
      "    y = a[*(b for b in a)]; raise KeyError(f'{y} {t\"z\"}')\n");
  EXPECT_TRUE(x.issues.empty());
  ASSERT_EQ(x.sites.size(), 1u);
  EXPECT_EQ(x.sites[0].line, 4);
  EXPECT_EQ(x.sites[0].column, 29);
  EXPECT_EQ(x.sites[0].end_line, 4);
  EXPECT_EQ(x.sites[0].statement, "raise KeyError(f'{y} {t\"z\"}')");
}

TEST(PythonPrepass, TemplateStringMessagesAreValues) {
  // str() of a Template is its repr, never the text between the quotes.
  Extraction x = ExtractPythonSource("m.py", "raise ValueError(t'bad {x}')\n");
  EXPECT_TRUE(x.issues.empty());
  ASSERT_EQ(x.sites.size(), 1u);
  const auto& pieces = x.sites[0].message.pieces();
  ASSERT_EQ(pieces.size(), 1u) << x.sites[0].message.Display();
  EXPECT_TRUE(pieces[0].is_value);
}

TEST(PythonPrepass, RealSyntaxErrorsAreStillNoted) {
  // The rewrite runs (the file has a starred subscript) and leaves the
  // real error, reported at its own line; the raise before it is found.
  Extraction x =
      ExtractPythonSource("m.py", "y = x[*(a)]\nraise ValueError('before')\ndef (:\n  pass\n");
  ASSERT_EQ(x.issues.size(), 1u);
  EXPECT_EQ(x.issues[0].reason, "syntax-error");
  EXPECT_NE(x.issues[0].detail.find("line 3"), std::string::npos) << x.issues[0].detail;
  ASSERT_EQ(x.sites.size(), 1u);
  EXPECT_EQ(x.sites[0].message.Display(), "before");
}

}  // namespace
}  // namespace errdex::extract
