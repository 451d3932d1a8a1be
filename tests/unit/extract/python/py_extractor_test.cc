// The Python front end, idiom by idiom, on in-memory sources.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "extract/extractor.h"

namespace errdex::extract {
namespace {

Extraction Extract(const std::string& code) { return ExtractPythonSource("m.py", code); }

// "Exception: template" for every site, in order.
std::vector<std::string> Messages(const std::string& code) {
  std::vector<std::string> out;
  for (const Site& s : Extract(code).sites) out.push_back(s.exception + ": " + s.message.Display());
  return out;
}

std::string One(const std::string& code) {
  std::vector<std::string> m = Messages(code);
  EXPECT_EQ(m.size(), 1u) << code;
  return m.empty() ? "" : m[0];
}

// "Exception: template" for every site of an extraction, in order.
std::vector<std::string> SiteMessages(const Extraction& x) {
  std::vector<std::string> out;
  for (const Site& s : x.sites) out.push_back(s.exception + ": " + s.message.Display());
  return out;
}

// The lines of the raises of what a call returns that are no new error.
std::vector<int> RaiseReturnedLines(const Extraction& x) {
  std::vector<int> out;
  for (const NonSite& n : x.non_sites) {
    if (n.reason == "raise-returned") out.push_back(n.line);
  }
  return out;
}

TEST(PythonExtractor, SiteLocationAndQualifiedFunction) {
  Extraction x = Extract(
      "class TMEMLayout:\n"
      "  def to_mgpu(self):\n"
      "    def inner():\n"
      "      pass\n"
      "    raise ValueError(\n"
      "        f\"Invalid TMEMLayout: {self}\")\n"
      "def outer():\n"
      "  def inner():\n"
      "    raise KeyError('k')\n"
      "raise SystemExit(1)\n");
  ASSERT_EQ(x.sites.size(), 3u);
  const Site& s = x.sites[0];
  EXPECT_EQ(s.exception, "ValueError");
  EXPECT_EQ(s.message.Display(), "Invalid TMEMLayout: {self}");
  EXPECT_EQ(s.line, 5);
  EXPECT_EQ(s.column, 5);
  EXPECT_EQ(s.end_line, 6);
  EXPECT_EQ(s.function, "TMEMLayout.to_mgpu");
  EXPECT_EQ(s.path, "m.py");
  EXPECT_EQ(s.kind, SiteKind::kRaise);
  EXPECT_EQ(s.statement, "raise ValueError(\n        f\"Invalid TMEMLayout: {self}\")");
  EXPECT_EQ(s.excerpt_line, 1);
  EXPECT_NE(s.excerpt.find("def to_mgpu"), std::string::npos);
  EXPECT_EQ(x.sites[1].function, "outer.<locals>.inner");
  EXPECT_EQ(x.sites[2].function, "<module>");
  EXPECT_EQ(x.sites[2].message.Display(), "1");
}

TEST(PythonExtractor, Literals) {
  EXPECT_EQ(One("raise ValueError(\"index can't be negative\")"),
            "ValueError: index can't be negative");
  EXPECT_EQ(One("raise ValueError('a ' \"b \" 'c')"), "ValueError: a b c");
  EXPECT_EQ(One("raise ValueError('tab\\there')"), "ValueError: tab\there");
  EXPECT_EQ(One("raise ValueError(r'raw \\n')"), "ValueError: raw \\n");
  EXPECT_EQ(One("raise ValueError('''multi\nline''')"), "ValueError: multi\nline");
  EXPECT_EQ(One("raise ValueError(('parenthesized'))"), "ValueError: parenthesized");
}

TEST(PythonExtractor, BracesInPlainStringsStayText) {
  Extraction x = Extract("raise ValueError('Invalid constraint: {e1} == {e2}')");
  ASSERT_EQ(x.sites.size(), 1u);
  ASSERT_EQ(x.sites[0].message.pieces().size(), 1u);
  EXPECT_EQ(x.sites[0].message.pieces()[0].text, "Invalid constraint: {e1} == {e2}");
}

TEST(PythonExtractor, FStrings) {
  EXPECT_EQ(One("raise TypeError(f'got {type(mesh)}')"), "TypeError: got {type(mesh)}");
  EXPECT_EQ(One("raise TypeError(f'{x!r} {x!s} {x!a}')"), "TypeError: {x!r} {x!s} {x!a}");
  EXPECT_EQ(One("raise TypeError(f'{r:.3f} {n:d} {h:#x} {v:>{w}}')"),
            "TypeError: {r:.3f} {n:d} {h:#x} {v:>{w}}");
  EXPECT_EQ(One("raise TypeError(f'{a=} {b = }')"), "TypeError: a={a!r} b = {b!r}");
  EXPECT_EQ(One("raise TypeError(f'{a=:>4}')"), "TypeError: a={a:>4}");
  EXPECT_EQ(One("raise TypeError(f'{{literal}} {x}')"), "TypeError: {{literal}} {x}");
  EXPECT_EQ(One("raise TypeError(f\"{d[\"key\"]}\")"), "TypeError: {d[\"key\"]}");
  EXPECT_EQ(One("raise TypeError('plain ' f'{x} ' 'end')"), "TypeError: plain {x} end");
}

TEST(PythonExtractor, FStringValueKinds) {
  Extraction x = Extract("raise E(f'{a} {b!r} {c:d} {d:.2f} {e:x} {f=}')");
  ASSERT_EQ(x.sites.size(), 1u);
  std::vector<ValueKind> kinds;
  std::vector<std::string> names;
  for (const Piece& p : x.sites[0].message.pieces()) {
    if (!p.is_value) continue;
    kinds.push_back(p.kind);
    names.push_back(p.name);
  }
  EXPECT_EQ(kinds, (std::vector<ValueKind>{ValueKind::kStr, ValueKind::kRepr, ValueKind::kInt,
                                           ValueKind::kFloat, ValueKind::kHex, ValueKind::kRepr}));
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "d", "e", "f"}));
}

TEST(PythonExtractor, PercentFormatting) {
  EXPECT_EQ(One("raise ValueError('got: %s' % mode)"), "ValueError: got: {mode}");
  EXPECT_EQ(One("raise ValueError('%s and %d' % (a, b))"), "ValueError: {a} and {b}");
  EXPECT_EQ(One("raise ValueError('%(k)s!' % {'k': v})"), "ValueError: {v}!");
  EXPECT_EQ(One("raise ValueError('%s' % 'inline')"), "ValueError: inline");
}

TEST(PythonExtractor, StrFormat) {
  EXPECT_EQ(One("raise ValueError('{} vs {}'.format(a, b))"), "ValueError: {a} vs {b}");
  EXPECT_EQ(One("raise ValueError('{1} {0}'.format(a, b))"), "ValueError: {b} {a}");
  EXPECT_EQ(One("raise ValueError('{k} {k.x}'.format(k=v))"), "ValueError: {v} {v.x}");
  EXPECT_EQ(One("raise ValueError('{}!'.format('inline'))"), "ValueError: inline!");
}

TEST(PythonExtractor, PlusConcatenation) {
  EXPECT_EQ(One("raise ValueError('a ' + s + ' b')"), "ValueError: a {s} b");
  EXPECT_EQ(One("raise ValueError('a ' + str(n) + repr(o))"), "ValueError: a {n}{o}");
}

TEST(PythonExtractor, OneTemplatePerReachingAssignment) {
  std::vector<std::string> m = Messages(
      "def f(c):\n"
      "  if c:\n"
      "    msg = 'first'\n"
      "  elif c is None:\n"
      "    msg = f'second {c}'\n"
      "  else:\n"
      "    msg = 'third'\n"
      "  raise ValueError(msg)\n");
  EXPECT_EQ(m, (std::vector<std::string>{"ValueError: first", "ValueError: second {c}",
                                         "ValueError: third"}));
}

TEST(PythonExtractor, ReassignmentKillsEarlierDefinition) {
  EXPECT_EQ(One("def f():\n  msg = 'old'\n  msg = 'new'\n  raise ValueError(msg)\n"),
            "ValueError: new");
}

TEST(PythonExtractor, EarlyReturnHidesDefinitions) {
  EXPECT_EQ(One("def f(ok):\n"
                "  if ok:\n"
                "    msg = 'not this'\n"
                "    return\n"
                "  else:\n"
                "    msg = 'this'\n"
                "  raise ValueError(msg)\n"),
            "ValueError: this");
}

TEST(PythonExtractor, TemplateVariableAndModuleConstant) {
  EXPECT_EQ(
      One("def f(a, b):\n  msg = ('x {} '\n    'y {}')\n  raise TypeError(msg.format(a, b))\n"),
      "TypeError: x {a} y {b}");
  EXPECT_EQ(One("MSG = 'bad {}'\ndef f(v):\n  raise TypeError(MSG.format(v))\n"),
            "TypeError: bad {v}");
  EXPECT_EQ(One("def f():\n  raise TypeError(LATER)\nLATER = 'defined after'\n"),
            "TypeError: defined after");
}

TEST(PythonExtractor, AppendedMessages) {
  EXPECT_EQ(One("def f(x):\n  msg = 'a: '\n  msg += f'{x}'\n  raise ValueError(msg)\n"),
            "ValueError: a: {x}");
  std::vector<std::string> m =
      Messages("def f(xs):\n  msg = 'a:'\n  for x in xs:\n    msg += x\n  raise ValueError(msg)\n");
  EXPECT_EQ(m, (std::vector<std::string>{"ValueError: a:", "ValueError: a:{x}{msg...}"}));
}

// A definition a `continue` or `break` follows still leaves the loop: for
// the next pass (the raise above it) and for the code after the loop.
TEST(PythonExtractor, DefinitionsBeforeContinueAndBreakLeaveTheLoop) {
  EXPECT_EQ(Messages("def f(tok):\n"
                     "  cur = 'a:'\n"
                     "  while True:\n"
                     "    c = tok.next()\n"
                     "    if c == ' ':\n"
                     "      raise ValueError('%s is no keyword' % cur)\n"
                     "    else:\n"
                     "      cur += c\n"
                     "      continue\n"),
            (std::vector<std::string>{"ValueError: a: is no keyword",
                                      "ValueError: a:{tok.next()}{cur...} is no keyword"}));
  EXPECT_EQ(Messages("def f(xs):\n"
                     "  msg = 'none'\n"
                     "  for x in xs:\n"
                     "    if x:\n"
                     "      msg = 'found'\n"
                     "      break\n"
                     "  raise ValueError(msg)\n"),
            (std::vector<std::string>{"ValueError: none", "ValueError: found"}));
  // A break skips the loop's `else`: only what no break left reaches it.
  EXPECT_EQ(Messages("def f(xs):\n"
                     "  msg = 'none'\n"
                     "  for x in xs:\n"
                     "    if x:\n"
                     "      msg = 'found'\n"
                     "      break\n"
                     "  else:\n"
                     "    raise ValueError(msg)\n"),
            (std::vector<std::string>{"ValueError: none"}));
}

// Bytes joined by + or += are one bytes object, printed in one pair of
// quotes: errdex does not join the printed parts.
TEST(PythonExtractor, BytesJoinedAreNotTheirPrintedPartsJoined) {
  EXPECT_EQ(Messages("def f(x):\n  raise ValueError(b'ab')\n"),
            (std::vector<std::string>{"ValueError: b'ab'"}));
  EXPECT_EQ(Messages("def f(x):\n  raise ValueError('got %r' % (b'a' + x,))\n"),
            (std::vector<std::string>{"ValueError: got {b'a' + x}"}));
  EXPECT_EQ(Messages("def f(x):\n  m = b'a'\n  m += b'b'\n  raise ValueError('got %r' % (m,))\n"),
            (std::vector<std::string>{"ValueError: got {m}"}));
}

TEST(PythonExtractor, UnresolvedMessageIsKeptAndDynamic) {
  Extraction x = Extract("def f(msg):\n  raise ValueError(msg)\n");
  ASSERT_EQ(x.sites.size(), 1u);
  EXPECT_TRUE(x.sites[0].message.IsDynamic());
  EXPECT_EQ(x.sites[0].message.pieces()[0].kind, ValueKind::kAny);
}

TEST(PythonExtractor, MultiArgumentIsTupleRepr) {
  EXPECT_EQ(One("raise ValueError('Non-divisible unfold:', shape, 3)"),
            "ValueError: ('Non-divisible unfold:', {shape}, 3)");
  EXPECT_EQ(One("raise KeyError('key')"), "KeyError: 'key'");
  EXPECT_EQ(One("raise KeyError(f'it\\'s {k}')"), "KeyError: \"it's {k}\"");
  EXPECT_EQ(One("raise OSError(errno.ENOENT, 'No such file', path)"),
            "OSError: [Errno {errno.ENOENT}] No such file: {path}");
}

// A class compiled into an extension has no body to read: pydantic_core's
// PydanticCustomError prints its template argument, its fields filled from
// the context, not the tuple of its arguments.
TEST(PythonExtractor, ACompiledClassPrintsItsTemplateArgument) {
  std::vector<std::string> m = Messages(
      "from pydantic_core import PydanticCustomError\n"
      "raise PydanticCustomError('card_digits', 'Card number is not all digits')\n"
      "raise PydanticCustomError('too_long', 'At most {max_length} items', {'max_length': n})\n"
      "raise pydantic_core.PydanticCustomError('x', message_template='Bad {v!r}')\n"
      "raise PydanticCustomError(kind, text)\n"
      "raise OtherCustomError('kind', 'text')\n"
      "def made():\n"
      "    return PydanticCustomError('k', 'Made by a helper: {x}')\n"
      "raise made()\n");
  EXPECT_EQ(m, (std::vector<std::string>{
                   "PydanticCustomError: Card number is not all digits",
                   "PydanticCustomError: At most {max_length} items",
                   "PydanticCustomError: Bad {v!r}",
                   "PydanticCustomError: {text}",
                   "OtherCustomError: ('kind', 'text')",
                   // The helper's return and the raise of what it returns.
                   "PydanticCustomError: Made by a helper: {x}",
                   "PydanticCustomError: Made by a helper: {x}",
               }));
}

// A property of the raising method's class that returns the message
// (jinja2's Undefined): each message it returns is an error of its own.
TEST(PythonExtractor, APropertyOfTheRaisingClassGivesEachOfItsMessages) {
  std::vector<std::string> m = Messages(
      "class Undefined:\n"
      "    @property\n"
      "    def _message(self):\n"
      "        if self._obj is None:\n"
      "            return f'{self._name!r} is undefined'\n"
      "        return f'{self._obj!r} has no attribute {self._name!r}'\n"
      "    def fail(self):\n"
      "        raise UndefinedError(self._message)\n"
      "    def other(self):\n"
      "        raise UndefinedError(self._elsewhere)\n");
  EXPECT_EQ(m, (std::vector<std::string>{"UndefinedError: {self._name!r} is undefined",
                                         "UndefinedError: {self._obj!r} has no attribute "
                                         "{self._name!r}",
                                         "UndefinedError: {self._elsewhere}"}));
}

// A helper returning what another method returns (docutils' Directive.error
// returns self.directive_error(3, message)), a class whose str() is empty
// and keeps its text in self.msg, and a function returning the exception
// being handled (jinja2's rewrite_traceback_stack): the first two give the
// caller's text, the last is no error of a type named after the function.
TEST(PythonExtractor, ReturnedChainsAndFunctionsThatNameNoType) {
  Extraction x = Extract(
      "import sys\n"
      "class DirectiveError(Exception):\n"
      "    def __init__(self, level, message):\n"
      "        Exception.__init__(self)\n"
      "        self.level = level\n"
      "        self.msg = message\n"
      "class Directive:\n"
      "    def directive_error(self, level, message):\n"
      "        return DirectiveError(level, message)\n"
      "    def error(self, message):\n"
      "        return self.directive_error(3, message)\n"
      "class Include(Directive):\n"
      "    def run(self):\n"
      "        raise self.error(f'Problems with \"{self.name}\" directive path.')\n"
      "def rewrite():\n"
      "    _, exc, tb = sys.exc_info()\n"
      "    return exc.with_traceback(tb)\n"
      "def render():\n"
      "    try:\n"
      "        pass\n"
      "    except Exception:\n"
      "        raise rewrite()\n");
  std::vector<std::string> m;
  for (const Site& s : x.sites) {
    m.push_back(s.exception + ": " + s.message.Display() + " @" + std::to_string(s.line));
  }
  EXPECT_EQ(m, (std::vector<std::string>{
                   "DirectiveError: {message} @9",
                   "DirectiveError: Problems with \"{self.name}\" directive path. @14",
               }));
  ASSERT_EQ(x.non_sites.size(), 1u);
  EXPECT_EQ(x.non_sites[0].reason, "raise-returned");
  EXPECT_EQ(x.non_sites[0].line, 22);
}

// Extracts the files of `files` (path -> text) as one library's tree.
Extraction ExtractTree(const std::map<std::string, std::string>& files) {
  std::vector<source::SourceFile> sources;
  for (const auto& [path, text] : files) sources.push_back({path, {}, text.size(), ""});
  Options options;
  options.read = [&](const source::SourceFile& f, uint64_t) -> Result<std::string> {
    return files.at(f.path);
  };
  return ExtractFiles(sources, options);
}

// The sites of `files` made at calls into the sink `via`, as "path
// message", sorted.
std::vector<std::string> SitesVia(const std::map<std::string, std::string>& files,
                                  std::string_view via) {
  std::vector<std::string> out;
  for (const Site& s : ExtractTree(files).sites) {
    if (s.via == via) out.push_back(s.path + " " + s.message.Display());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// `error = exceptions.best_match(errors)` then `raise error` (jsonschema's
// validate): a function of the library module imported as `exceptions`,
// returning one of the errors it is given. No error typed `best_match`; a
// class reached the same way is still one.
TEST(PythonExtractor, AFunctionOfAnImportedLibraryModuleNamesNoType) {
  std::map<std::string, std::string> files = {
      {"pkg/exceptions.py",
       "class ValidationError(Exception):\n    pass\n"
       "def best_match(errors):\n    return max(errors, key=len, default=None)\n"},
      {"pkg/validators.py",
       "from pkg import exceptions\n"
       "from . import exceptions as exc\n"
       "def validate(errors):\n"
       "    error = exceptions.best_match(errors)\n"
       "    if error is not None:\n"
       "        raise error\n"
       "def check(errors):\n"
       "    raise exc.best_match(errors)\n"
       "def strict(n):\n"
       "    raise exceptions.ValidationError(f'{n} is not valid')\n"}};
  Extraction x = ExtractTree(files);
  EXPECT_EQ(SiteMessages(x), (std::vector<std::string>{"ValidationError: {n} is not valid"}));
  EXPECT_EQ(RaiseReturnedLines(x), (std::vector<int>{6, 8}));
}

// A generic base (`ParamType[int]`, click's number types) is the class
// subscripted: its helper `fail` is a sink for the subclass's calls.
TEST(PythonExtractor, AGenericBaseIsTheClassItSubscripts) {
  std::vector<std::string> m = Messages(
      "import typing as t\n"
      "T = t.TypeVar('T')\n"
      "class BadParameter(Exception):\n"
      "    pass\n"
      "class ParamType(t.Generic[T]):\n"
      "    def fail(self, message, param=None):\n"
      "        raise BadParameter(message)\n"
      "class IntType(ParamType[int]):\n"
      "    def convert(self, value):\n"
      "        self.fail(f'{value!r} is not a valid integer.')\n");
  EXPECT_EQ(m, (std::vector<std::string>{"BadParameter: {message}",
                                         "BadParameter: {value!r} is not a valid integer."}));
}

// A raise of what `pop`, `get`, `next` or a future's `exception()` hands
// back is an object stored earlier: no error typed "pop". A class of the
// library that is so named is still raised as a class, and an attribute
// holding a class (`self.exception(value)`) still builds an error.
TEST(PythonExtractor, ARaiseOfAStoredObjectIsNoErrorTypedAfterTheCall) {
  Extraction x = Extract(
      "def first(my_exceptions, cache, key, effects, fut):\n"
      "    raise my_exceptions.pop()\n"
      "def second(cache, key):\n"
      "    value = cache.get(key)\n"
      "    if isinstance(value, Exception):\n"
      "        raise value\n"
      "def third(effects, fut):\n"
      "    if effects:\n"
      "        raise next(effects)\n"
      "    raise fut.exception()\n"
      "class result(Exception):\n"
      "    pass\n"
      "def fourth():\n"
      "    raise result('no result yet')\n"
      "class Filter:\n"
      "    def filter(self, value):\n"
      "        raise self.exception(value)\n");
  EXPECT_EQ(SiteMessages(x),
            (std::vector<std::string>{"result: no result yet", "exception: {value}"}));
  EXPECT_EQ(RaiseReturnedLines(x), (std::vector<int>{2, 6, 9, 10}));
}

// The text kept in self.msg is the message only when __init__ sets it: a
// class-body default is nothing str() or the library need ever show. Two
// branches returning the same exception are one site.
TEST(PythonExtractor, MessageAttributesAndRepeatedReturns) {
  std::vector<std::string> m = Messages(
      "class Quiet(Exception):\n"
      "    message = 'Resource not found'\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "class E(Exception):\n"
      "    pass\n"
      "class C:\n"
      "    def error(self, m):\n"
      "        if self.strict:\n"
      "            return E(m)\n"
      "        return E(m)\n"
      "    def run(self):\n"
      "        raise self.error('bad')\n"
      "    def quiet(self):\n"
      "        raise Quiet()\n");
  EXPECT_EQ(m, (std::vector<std::string>{"E: {m}", "E: {m}", "E: bad", "Quiet: "}));
}

// typing.cast(T, x) is x at run time, as the value and inside an f-string.
TEST(PythonExtractor, ACastIsItsValue) {
  std::vector<std::string> m = Messages(
      "import typing as t\n"
      "from typing import cast\n"
      "def f(x):\n"
      "    msg = 'no such option'\n"
      "    if x:\n"
      "        raise ValueError(t.cast(str, msg))\n"
      "    raise KeyError(f'{cast(int, x)} is missing')\n"
      "def g(ptr):\n"
      "    raise TypeError(f'bad pointer: {ctypes.cast(ptr, ctypes.c_char_p)}')\n");
  EXPECT_EQ(
      m, (std::vector<std::string>{"ValueError: no such option", "KeyError: '{x} is missing'",
                                   "TypeError: bad pointer: {ctypes.cast(ptr, ctypes.c_char_p)}"}));
}

// A __str__ that prints a property returning self.args[0] (jinja2's
// TemplateError.message), alone in one branch and with a location in the
// other: the raise's text is each; a helper taking the message (`fail`)
// makes its callers' text the error, in both forms.
TEST(PythonExtractor, APropertyOfTheArgsAndABranchTheRaiseGivesWords) {
  std::vector<std::string> m = Messages(
      "class TemplateError(Exception):\n"
      "    def __init__(self, message=None):\n"
      "        super().__init__(message)\n"
      "    @property\n"
      "    def message(self):\n"
      "        return self.args[0] if self.args else None\n"
      "class TemplateSyntaxError(TemplateError):\n"
      "    def __init__(self, message, lineno):\n"
      "        super().__init__(message)\n"
      "        self.lineno = lineno\n"
      "        self.translated = False\n"
      "    def __str__(self):\n"
      "        if self.translated:\n"
      "            return self.message\n"
      "        return f'{self.message}, line {self.lineno}'\n"
      "class Parser:\n"
      "    def fail(self, msg, lineno):\n"
      "        raise TemplateSyntaxError(msg, lineno)\n"
      "    def statement(self, token):\n"
      "        if token:\n"
      "            self.fail('tag name expected', token.lineno)\n"
      "        raise TemplateSyntaxError(f'unexpected {token!r}', 3)\n");
  EXPECT_EQ(m, (std::vector<std::string>{
                   "TemplateSyntaxError: {msg}, line {lineno}",
                   "TemplateSyntaxError: unexpected {token!r}",
                   "TemplateSyntaxError: unexpected {token!r}, line 3",
                   "TemplateSyntaxError: tag name expected",
                   "TemplateSyntaxError: tag name expected, line {token.lineno}",
               }));
}

// A __str__ joining a list that __init__'s attributes are appended to, each
// unless None (yaml's MarkedYAMLError): each raise prints the parts it
// gives a value, passed or defaulted None leaving theirs out.
TEST(PythonExtractor, AJoinedListOfPartsTheRaiseGives) {
  std::vector<std::string> m = Messages(
      "class MarkedError(Exception):\n"
      "    def __init__(self, context=None, context_mark=None, problem=None,\n"
      "                 problem_mark=None, note=None):\n"
      "        self.context = context\n"
      "        self.context_mark = context_mark\n"
      "        self.problem = problem\n"
      "        self.problem_mark = problem_mark\n"
      "        self.note = note\n"
      "    def __str__(self):\n"
      "        lines = []\n"
      "        if self.context is not None:\n"
      "            lines.append(self.context)\n"
      "        if self.context_mark is not None and (self.problem is None or\n"
      "                self.problem_mark is None):\n"
      "            lines.append(str(self.context_mark))\n"
      "        if self.problem is not None:\n"
      "            lines.append(self.problem)\n"
      "        if self.problem_mark is not None:\n"
      "            lines.append(str(self.problem_mark))\n"
      "        if self.note:\n"
      "            lines.append(self.note)\n"
      "        return '\\n'.join(lines)\n"
      "class ScannerError(MarkedError):\n"
      "    pass\n"
      "def scan(key, mark, ch):\n"
      "    if ch:\n"
      "        raise ScannerError('while scanning a simple key', key.mark,\n"
      "                           \"could not find expected ':'\", mark)\n"
      "    raise ScannerError(None, None, 'mapping values are not allowed here', mark)\n"
      "class Indent(MarkedError):\n"
      "    def __init__(self, problem, mark):\n"
      "        super().__init__(None, None, problem, mark)\n"
      "def indent(mark, kw):\n"
      "    if mark:\n"
      "        raise Indent('bad indentation', mark)\n"
      "    raise MarkedError(**kw)\n");
  EXPECT_EQ(m, (std::vector<std::string>{
                   // context_mark's test has more than `is not None`: both ways.
                   "ScannerError: while scanning a simple key\n{key.mark}\ncould not find "
                   "expected ':'\n{mark}",
                   "ScannerError: while scanning a simple key\ncould not find expected ':'\n{mark}",
                   "ScannerError: mapping values are not allowed here\n{mark}",
                   // None passed by a subclass's __init__ leaves its parts out.
                   "Indent: bad indentation\n{mark}",
                   // **kw may fill anything: every part, as a value.
                   "MarkedError: {self.context}\n{self.context_mark}\n{self.problem}\n"
                   "{self.problem_mark}\n{self.note}",
                   "MarkedError: {self.context}\n{self.problem}\n{self.problem_mark}\n{self.note}",
               }));
}

// "line: Type: message" of every site, sorted.
std::vector<std::string> LinedMessages(const std::string& code) {
  std::vector<std::string> out;
  for (const Site& s : Extract(code).sites) {
    out.push_back(std::to_string(s.line) + ": " + s.exception + ": " + s.message.Display());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The caught exception re-raised with a text written in the handler: an
// error of its own at the assignment (flask's Config.from_pyfile).
TEST(PythonReraise, ACaughtExceptionGivenNewTextIsAnError) {
  EXPECT_EQ(
      LinedMessages("def from_pyfile(filename, silent=False):\n"
                    "    try:\n"
                    "        open(filename)\n"
                    "    except OSError as e:\n"
                    "        if silent:\n"
                    "            return False\n"
                    "        e.strerror = f'Unable to load configuration file ({e.strerror})'\n"
                    "        raise\n"),
      (std::vector<std::string>{
          "7: OSError: [Errno {e.errno}] Unable to load configuration file ({e.strerror})",
          "7: OSError: [Errno {e.errno}] Unable to load configuration file ({e.strerror}): "
          "{e.filename}",
      }));
  EXPECT_EQ(LinedMessages("def read(rows):\n"
                          "    for i, row in enumerate(rows):\n"
                          "        try:\n"
                          "            int(row)\n"
                          "        except (KeyError, ValueError) as err:\n"
                          "            err.args = (f'bad row {i}: {err}',) + err.args[1:]\n"
                          "            raise err\n"),
            (std::vector<std::string>{"6: KeyError: 'bad row {i}: {err}'",
                                      "6: ValueError: bad row {i}: {err}"}));
}

TEST(PythonReraise, WhatNamesNoClassOrChangesNothingStaysAReraise) {
  for (const char* code : {
           // Exception names no class the user sees.
           "try:\n  f()\nexcept Exception as e:\n  e.args = ('while f',)\n  raise\n",
           // A library class may print attributes, not args.
           "class MyError(Exception):\n  pass\n"
           "try:\n  f()\nexcept MyError as e:\n  e.args = ('while f',)\n  raise\n",
           // Nothing assigned before the raise; strerror means nothing to ValueError.
           "try:\n  f()\nexcept OSError as e:\n  raise\n",
           "try:\n  f()\nexcept OSError as e:\n  if g():\n    raise\n  e.args = ('x',)\n",
           "try:\n  f()\nexcept ValueError as e:\n  e.strerror = 'x'\n  raise\n",
           // Another object re-raised.
           "try:\n  f()\nexcept OSError as e:\n  e.strerror = 'x'\n  raise other\n",
       }) {
    Extraction x = Extract(code);
    EXPECT_TRUE(x.sites.empty()) << code << SiteMessages(x).front();
    EXPECT_FALSE(x.non_sites.empty()) << code;
  }
}

// A text built under a test of a parameter (`"A" if name else "B"`, an
// assignment under `if name is None:`) is not raised by a call whose
// argument, or default, fails that test.
TEST(PythonBranches, ABranchTheArgumentsRuleOutIsNotRaised) {
  std::vector<std::string> m = LinedMessages(
      "class ClusterNotFound(Exception):\n"
      "    def __init__(self, name=None):\n"
      "        msg = f'Cluster {name} not found.' if name else 'Cluster not found.'\n"
      "        super().__init__(msg)\n"
      "class UnknownFunction(Exception):\n"
      "    def __init__(self, arn):\n"
      "        super().__init__(f'Function not found: {arn}')\n"
      "class PatternError(Exception):\n"
      "    def __init__(self, message, pattern=None, pos=None):\n"
      "        if pattern is not None and pos is not None:\n"
      "            message = '{} at position {}'.format(message, pos)\n"
      "        Exception.__init__(self, message)\n"
      "def describe(name):\n"
      "    if not name:\n"
      "        raise ClusterNotFound()\n"  // 15
      "    raise ClusterNotFound(name)\n"  // 16
      "class Store:\n"
      "    def unknown(self, name, qualifier=None):\n"
      "        arn = 'arn:' + name\n"
      "        if qualifier and ':' not in name:\n"
      "            arn = f'{arn}:{qualifier}'\n"
      "        return UnknownFunction(arn)\n"  // 22
      "    def get(self, name):\n"
      "        raise self.unknown(name)\n"  // 24
      "    def get_version(self, name, version):\n"
      "        raise self.unknown(name, version)\n"  // 26
      "def compile_pattern(pattern, pos):\n"
      "    if pos < 0:\n"
      "        raise PatternError('missing named list')\n"    // 29
      "    raise PatternError('bad escape', pattern, pos)\n"  // 30
      "class Parser:\n"
      "    def fail(self, msg):\n"
      "        raise SyntaxError(msg)\n"  // 33
      "    def fail_tag(self, name):\n"
      "        if name is None:\n"
      "            message = 'Unexpected end of template.'\n"
      "        else:\n"
      "            message = f'Encountered unknown tag {name!r}.'\n"
      "        self.fail(message)\n"  // 39
      "    def fail_eof(self):\n"
      "        self.fail_tag(None)\n"  // 41
      "    def fail_unknown(self):\n"
      "        self.fail_tag('endfor')\n"  // 43
      "    def expect(self, kind, given):\n"
      "        label = 'end of input' if given is None else repr(given)\n"
      "        self.fail('expected %s, got %s' % (kind, label))\n"  // 46
      "    def expect_end(self, kind):\n"
      "        self.expect(kind, None)\n");  // 48
  EXPECT_EQ(m, (std::vector<std::string>{
                   // Left at None: only the other branch.
                   "15: ClusterNotFound: Cluster not found.",
                   "16: ClusterNotFound: Cluster not found.",
                   "16: ClusterNotFound: Cluster {name} not found.",
                   "22: UnknownFunction: Function not found: arn:{name}",
                   "22: UnknownFunction: Function not found: arn:{name}:{qualifier}",
                   // qualifier left None: no `:None` suffix.
                   "24: UnknownFunction: Function not found: arn:{name}",
                   "26: UnknownFunction: Function not found: arn:{name}",
                   // The caller's own parameter decides nothing here.
                   "26: UnknownFunction: Function not found: arn:{name}:{version}",
                   "29: PatternError: missing named list",
                   "30: PatternError: bad escape",
                   "30: PatternError: bad escape at position {pos}",
                   "33: SyntaxError: {msg}",
                   "39: SyntaxError: Encountered unknown tag {name!r}.",
                   "39: SyntaxError: Unexpected end of template.",
                   // fail_eof's None takes the sink's own text (line 39), never
                   // "unknown tag None"; a tag name gives its own text.
                   "43: SyntaxError: Encountered unknown tag 'endfor'.",
                   "46: SyntaxError: expected {kind}, got end of input",
                   "46: SyntaxError: expected {kind}, got {given}",
               }));
}

// Texts of one function built under tests that cannot both hold are never
// joined: four messages of the eight combinations, the same text reached
// by two branches keeping what both say (`kwargs` truthy for 'use a class').
TEST(PythonBranches, PartsFromContradictoryBranchesAreNotJoined) {
  std::vector<std::string> m = LinedMessages(
      "def named(fields, kwargs):\n"
      "    if fields is None:\n"
      "        if kwargs:\n"
      "            thing, advice = 'Keywords', 'use a class'\n"
      "        else:\n"
      "            thing = 'None'\n"
      "            advice = 'pass a list'\n"
      "    elif kwargs:\n"
      "        thing = 'Both'\n"
      "        advice = 'use a class'\n"
      "    else:\n"
      "        thing = 'Fields'\n"
      "        advice = 'pass a list'\n"
      "    raise ValueError(thing + ': ' + advice)\n");
  EXPECT_EQ(m, (std::vector<std::string>{
                   "14: ValueError: Both: use a class",
                   "14: ValueError: Fields: pass a list",
                   "14: ValueError: Keywords: use a class",
                   "14: ValueError: None: pass a list",
               }));
}

// A text that reaches the raise past an `if` that would have replaced it
// (`if detail: msg += ...`) reaches it only when the test failed -- when
// that if stands between the two in one block; inside a loop it may never
// run, and says nothing.
TEST(PythonBranches, ATextThatGetsPastAnIfThatWouldReplaceIt) {
  std::vector<std::string> m = LinedMessages(
      "class Detailed(Exception):\n"
      "    def __init__(self, detail=None):\n"
      "        msg = 'Request failed'\n"
      "        if detail:\n"
      "            msg += f': {detail}'\n"
      "        super().__init__(msg)\n"
      "class Looped(Exception):\n"
      "    def __init__(self, items, detail=None):\n"
      "        msg = 'base'\n"
      "        for item in items:\n"
      "            if detail:\n"
      "                msg += '!'\n"
      "        super().__init__(msg)\n"
      "def f(d):\n"
      "    raise Detailed()\n"  // 15
      "def g(d):\n"
      "    raise Detailed('timeout')\n"  // 17
      "def h(d):\n"
      "    raise Detailed(d)\n"  // 19
      "def i():\n"
      "    raise Looped([], 'x')\n");  // 21
  EXPECT_EQ(m, (std::vector<std::string>{
                   "15: Detailed: Request failed",
                   "17: Detailed: Request failed: timeout",
                   "19: Detailed: Request failed",
                   "19: Detailed: Request failed: {d}",
                   // No loop iteration: no test, the text as it was.
                   "21: Looped: base",
                   "21: Looped: base!{msg...}",
               }));
}

// Only a parameter's value on entry decides a test: one reassigned before
// it (`if name is None: name = lookup()`) decides nothing.
TEST(PythonBranches, AReassignedParameterDecidesNothing) {
  std::vector<std::string> m = LinedMessages(
      "class Named(Exception):\n"
      "    def __init__(self, name=None):\n"
      "        if name is None:\n"
      "            name = lookup()\n"
      "        msg = f'Named {name}' if name else 'Unnamed'\n"
      "        super().__init__(msg)\n"
      "def f():\n"
      "    raise Named()\n");
  ASSERT_EQ(m.size(), 2u) << ::testing::PrintToString(m);
  EXPECT_EQ(m[0].rfind("8: Named: Named ", 0), 0u) << m[0];
  EXPECT_EQ(m[1], "8: Named: Unnamed");
}

TEST(PythonExtractor, NoMessage) {
  std::vector<std::string> m = Messages("raise ValueError\nraise ValueError()\nraise errors.Bad\n");
  EXPECT_EQ(m, (std::vector<std::string>{"ValueError: ", "ValueError: ", "Bad: "}));
}

TEST(PythonExtractor, ReraisesAreNotSites) {
  Extraction x = Extract(
      "def f(exc):\n"
      "  try:\n"
      "    pass\n"
      "  except KeyError:\n"
      "    raise\n"
      "  except ValueError as e:\n"
      "    raise e\n"
      "  except TypeError as e:\n"
      "    raise RuntimeError('wrapped') from e\n"
      "  raise exc\n");
  ASSERT_EQ(x.sites.size(), 1u);
  EXPECT_EQ(x.sites[0].message.Display(), "wrapped");
  EXPECT_EQ(x.sites[0].cause, "e");
  ASSERT_EQ(x.non_sites.size(), 3u);
  EXPECT_EQ(x.non_sites[0].reason, "reraise");
  EXPECT_EQ(x.non_sites[0].line, 5);
  EXPECT_EQ(x.non_sites[1].reason, "reraise-caught");
  EXPECT_EQ(x.non_sites[2].reason, "reraise-variable");
}

TEST(PythonExtractor, ExceptionBuiltFirstRaisedLater) {
  Extraction x = Extract("def f():\n  err = ValueError('made here')\n  raise err\n");
  ASSERT_EQ(x.sites.size(), 1u);
  EXPECT_EQ(x.sites[0].message.Display(), "made here");
  EXPECT_EQ(x.sites[0].line, 3);
}

TEST(PythonExtractor, ConditionalAndWithTraceback) {
  EXPECT_EQ(Messages("raise (A('a') if c else B('b'))"),
            (std::vector<std::string>{"A: a", "B: b"}));
  EXPECT_EQ(One("raise ValueError('t').with_traceback(tb)"), "ValueError: t");
}

TEST(PythonExtractor, AssertIsInternal) {
  Extraction x = Extract("assert x, f'bad {x}'\nassert y\n");
  ASSERT_EQ(x.sites.size(), 2u);
  EXPECT_EQ(x.sites[0].exception, "AssertionError");
  EXPECT_EQ(x.sites[0].kind, SiteKind::kAssert);
  EXPECT_TRUE(x.sites[0].internal);
  EXPECT_EQ(x.sites[0].message.Display(), "bad {x}");
  EXPECT_TRUE(x.sites[1].message.empty());
}

TEST(PythonExtractor, Warnings) {
  std::vector<std::string> m = Messages(
      "import warnings\n"
      "import warnings as w\n"
      "from warnings import warn\n"
      "warnings.warn('a', DeprecationWarning)\n"
      "w.warn('b', category=FutureWarning)\n"
      "warn('c')\n"
      "warnings.warn(RuntimeWarning('d'))\n"
      "other.warn('not a warning call')\n");
  EXPECT_EQ(m, (std::vector<std::string>{"DeprecationWarning: a", "FutureWarning: b",
                                         "UserWarning: c", "RuntimeWarning: d"}));
  EXPECT_EQ(Extract("import warnings\nwarnings.warn('a')\n").sites[0].kind, SiteKind::kWarning);
}

TEST(PythonExtractor, FactoriesAreSitesAndRaisesLinkToThem) {
  Extraction x = Extract(
      "def _err(impl):\n"
      "  return ValueError(f'Can only join keys. Got impl={impl}')\n"
      "def use():\n"
      "  raise _err('threefry')\n");
  ASSERT_EQ(x.sites.size(), 2u);
  EXPECT_EQ(x.sites[0].kind, SiteKind::kReturn);
  EXPECT_EQ(x.sites[0].message.Display(), "Can only join keys. Got impl={impl}");
  EXPECT_EQ(x.sites[1].kind, SiteKind::kRaise);
  EXPECT_EQ(x.sites[1].exception, "ValueError");
  EXPECT_EQ(x.sites[1].message.Display(), "Can only join keys. Got impl=threefry");
  EXPECT_EQ(x.sites[1].via, "_err");
}

TEST(PythonExtractor, MessageHelperIsInlined) {
  EXPECT_EQ(One("def _msg(p):\n  return f'Providing {p!r} is not supported'\n"
                "raise ValueError(_msg('workers'))\n"),
            "ValueError: Providing 'workers' is not supported");
}

TEST(PythonExtractor, AnAlternativeConstructorRaisesItsClass) {
  EXPECT_EQ(One("from . import exceptions\n"
                "raise exceptions.SchemaError.create_from(error)\n"),
            "SchemaError: {exceptions.SchemaError.create_from(error)}");
  EXPECT_EQ(One("raise ValidationError.from_exception_data('Model', errors)\n"),
            "ValidationError: {ValidationError.from_exception_data('Model', errors)}");
  // Not a method of an exception class: the call is a factory as before.
  EXPECT_EQ(One("raise registry.lookup(code)\n"), "lookup: {code}");
}

TEST(PythonExtractor, ReindentingAndRewrappingCallsKeepTheirArgumentsWords) {
  EXPECT_EQ(
      One("import textwrap\n"
          "raise ValueError(textwrap.dedent(f\"\"\"\\\n    too big: {x}\n    really\"\"\"))\n"),
      "ValueError: too big: {x} really");
  EXPECT_EQ(
      One("from textwrap import dedent\nraise TypeError(dedent('five is %d' % x).strip('\\n'))\n"),
      "TypeError: five is {x}");
  // A helper wrapping its parameter in them: each caller's words, re-flowed.
  EXPECT_EQ(
      One("from textwrap import fill, dedent\n"
          "def filldedent(s, w=70):\n"
          "    return fill(dedent(str(s)).strip('\\n'), width=w)\n"
          "raise ValueError(filldedent(\"\"\"\n    The value %s is\n    negative.\"\"\" % x))\n"),
      "ValueError: The value {x} is negative.");
  // The module's own function of that name is not textwrap's.
  EXPECT_EQ(One("def fill(s):\n    return s + ' and more'\nraise ValueError(fill('a'))\n"),
            "ValueError: a and more");
}

TEST(PythonExtractor, ExceptionClassesComposeTheirMessage) {
  std::vector<std::string> m = Messages(
      "class Mixin:\n"
      "  def __init__(self, message):\n"
      "    super().__init__(f'{message}\\nSee docs#{type(self).__name__}')\n"
      "class MyTypeError(Mixin, TypeError):\n"
      "  pass\n"
      "class Concrete(MyTypeError):\n"
      "  def __init__(self, tracer, context=''):\n"
      "    super().__init__(f'Abstract value: {tracer}\\n{context}')\n"
      "class Named(LookupError):\n"
      "  def __init__(self, name):\n"
      "    self.name = name\n"
      "  def __str__(self):\n"
      "    return f'no loop named {self.name!r}'\n"
      "raise Concrete(t, 'It arose here')\n"
      "raise Concrete(t)\n"
      "raise Named('add')\n");
  EXPECT_EQ(
      m, (std::vector<std::string>{
             "Concrete: Abstract value: {t}\nIt arose here\nSee docs#Concrete",
             "Concrete: Abstract value: {t}\n\nSee docs#Concrete", "Named: no loop named 'add'"}));
}

// `cls.__name__` in the raise's own arguments is the raising code's class,
// not the exception's (pyasn1's `BitString.fromHexString() error: ...`); in
// the exception class's code it is the exception's.
TEST(PythonExtractor, ClassNamesOfTheRaiseSiteAreNotTheExceptions) {
  std::vector<std::string> m = Messages(
      "class PyAsn1Error(Exception):\n"
      "  def __init__(self, *args):\n"
      "    super().__init__(*args)\n"
      "class Tagged(Exception):\n"
      "  def __init__(self, what):\n"
      "    super().__init__(f'{type(self).__name__}: {what}')\n"
      "class BitString:\n"
      "  @classmethod\n"
      "  def fromHexString(cls, value):\n"
      "    raise PyAsn1Error(f'{cls.__name__}.fromHexString() error: {value}')\n"
      "  @classmethod\n"
      "  def tagged(cls, value):\n"
      "    raise Tagged(f'{cls.__name__} took {value}')\n");
  EXPECT_EQ(m,
            (std::vector<std::string>{"PyAsn1Error: {cls.__name__}.fromHexString() error: {value}",
                                      "Tagged: Tagged: {cls.__name__} took {value}"}));
}

TEST(PythonExtractor, ImportAliasesResolveTheExceptionName) {
  Extraction x = Extract("from errors import LongError as E\nraise E('x')\n");
  ASSERT_EQ(x.sites.size(), 1u);
  EXPECT_EQ(x.sites[0].exception, "LongError");
  EXPECT_EQ(x.sites[0].exception_written, "E");
}

TEST(PythonExtractor, SyntaxErrorsAreRecovered) {
  Extraction x = Extract("def broken(:\n  pass\nraise ValueError('still found')\n");
  ASSERT_EQ(x.issues.size(), 1u);
  EXPECT_EQ(x.issues[0].reason, "syntax-error");
  EXPECT_FALSE(x.issues[0].skipped);
  bool found = false;
  for (const Site& s : x.sites) found = found || s.message.Display() == "still found";
  EXPECT_TRUE(found);
}

TEST(PythonExtractor, PathologicalInputsAreBounded) {
  // Deep nesting, long chains and self-referencing definitions: no crash,
  // no hang, a bounded number of alternatives.
  std::string deep =
      "raise ValueError(" + std::string(5000, '(') + "'x'" + std::string(5000, ')') + ")\n";
  Extract(deep);
  std::string chain = "raise ValueError('a'";
  for (int i = 0; i < 3000; ++i) chain += " + 'b'";
  chain += ")\n";
  Extract(chain);
  std::string branches = "def f(c):\n  msg = ''\n";
  for (int i = 0; i < 200; ++i) {
    branches +=
        "  if c == " + std::to_string(i) + ":\n    msg = msg + 'x" + std::to_string(i) + "'\n";
  }
  branches += "  raise ValueError(msg)\n";
  EXPECT_LE(Extract(branches).sites.size(), 8u);
  Extract("def f():\n  msg = msg\n  raise ValueError(msg)\n");
  Extract("a = b\nb = a\nraise ValueError(a)\n");
  std::string nested_ifs;
  for (int i = 0; i < 400; ++i) nested_ifs += std::string(i, ' ') + "if x:\n";
  nested_ifs += std::string(400, ' ') + "raise ValueError(m)\n";
  Extract(nested_ifs);
}

// The sites made at calls into helpers that raise with what they are given.
std::vector<std::string> SinkSites(const std::string& code) {
  std::vector<std::string> out;
  for (const Site& s : Extract(code).sites) {
    if (s.via.empty() || s.statement.rfind("raise", 0) == 0) continue;
    out.push_back(std::to_string(s.line) + " " + s.exception + ": " + s.message.Display() +
                  " via " + s.via);
  }
  return out;
}

TEST(PythonSinks, CallerTextThroughAMethodOfTheClassHierarchy) {
  std::vector<std::string> sites = SinkSites(
      "class Base:\n"
      "  def fail(self, message, param=None):\n"
      "    raise ValueError(message)\n"
      "class Choice(Base):\n"
      "  def convert(self, value):\n"
      "    self.fail(f'{value!r} is not a choice')\n"
      "class Other:\n"
      "  def fail(self, message):\n"
      "    raise TypeError(message)\n");
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0], "6 ValueError: {value!r} is not a choice via Base.fail");
}

TEST(PythonSinks, SelfMethodsComeFromTheRaisingClassesOwnHierarchy) {
  // A tokenizer's error() returns an error composed "at position ...";
  // imaplib's `raise self.error(...)` is IMAP4's nested class, not that.
  std::vector<std::string> m = Messages(
      "class ParseError(Exception):\n"
      "  def __init__(self, msg, pos):\n"
      "    super().__init__('%s at position %d' % (msg, pos))\n"
      "class Tokenizer:\n"
      "  def error(self, msg, offset=0):\n"
      "    return ParseError(msg, offset)\n"
      "  def get(self):\n"
      "    raise self.error('bad escape')\n"
      "class IMAP4:\n"
      "  class error(Exception): pass\n"
      "  def close(self, typ):\n"
      "    raise self.error('CLOSE failed: %s' % typ)\n"
      "  def enable(self):\n"
      "    raise IMAP4.error('Server does not support ENABLE')\n");
  EXPECT_NE(std::find(m.begin(), m.end(), "ParseError: bad escape at position 0"), m.end())
      << testing::PrintToString(m);
  EXPECT_NE(std::find(m.begin(), m.end(), "error: CLOSE failed: {typ}"), m.end())
      << testing::PrintToString(m);
  EXPECT_NE(std::find(m.begin(), m.end(), "error: Server does not support ENABLE"), m.end())
      << testing::PrintToString(m);
}

TEST(PythonSinks, TypePassedAsArgumentAndChainsOfHelpers) {
  std::vector<std::string> sites = SinkSites(
      "def _raise_error(cls, explanation):\n"
      "  raise cls(explanation)\n"
      "def error(msg):\n"
      "  _raise_error(TypeError, 'error: ' + msg)\n"
      "def f(x):\n"
      "  _raise_error(ValueError, 'x must be positive')\n"
      "  error('bad input')\n");
  EXPECT_EQ(sites, (std::vector<std::string>{
                       "4 TypeError: error: {msg} via _raise_error",
                       "6 ValueError: x must be positive via _raise_error",
                       "7 TypeError: error: bad input via error",
                   }));
}

// _pydecimal's Context._raise_error: the class passed is raised, or what
// a dict maps it to. The page had named the helper's local `error`.
TEST(PythonSinks, APassedClassIsRaisedAsADictMapsIt) {
  std::vector<std::string> sites = SinkSites(
      "class InvalidOperation(ArithmeticError): pass\n"
      "class ConversionSyntax(InvalidOperation): pass\n"
      "class DivisionByZero(ArithmeticError): pass\n"
      "_condition_map = {ConversionSyntax: InvalidOperation}\n"
      "def _raise_error(condition, explanation):\n"
      "  error = _condition_map.get(condition, condition)\n"
      "  raise error(explanation)\n"
      "def f(x):\n"
      "  if x:\n"
      "    _raise_error(ConversionSyntax, 'bad syntax')\n"
      "  _raise_error(DivisionByZero, 'x / 0')\n");
  EXPECT_EQ(sites, (std::vector<std::string>{
                       "10 InvalidOperation: bad syntax via _raise_error",
                       "11 DivisionByZero: x / 0 via _raise_error",
                   }));
}

TEST(PythonSinks, AMethodsReceiverIsNotAParameterWhateverItsName) {
  // mpmath names the receiver `ctx`: `ctx.bad_domain("...")` passes the text
  // as `msg`. A static method has no receiver.
  std::vector<std::string> sites = SinkSites(
      "class Context:\n"
      "  def bad_domain(ctx, msg):\n"
      "    raise ValueError(msg)\n"
      "  @staticmethod\n"
      "  def bad_type(msg):\n"
      "    raise TypeError(msg)\n"
      "def stieltjes(ctx, n):\n"
      "  if n < 0:\n"
      "    return ctx.bad_domain('Stieltjes constants defined for n >= 0')\n"
      "  ctx.bad_type('n must be an integer')\n");
  EXPECT_EQ(sites, (std::vector<std::string>{
                       "9 ValueError: Stieltjes constants defined for n >= 0 via "
                       "Context.bad_domain",
                       "10 TypeError: n must be an integer via Context.bad_type",
                   }));
}

// `obj.add_header(...)` with nothing known of `obj`: the library's one sink
// of that name is taken for it only when no other class defines the name,
// or the caller knows the sink's module (its own file, a sibling, an
// import). CPython's email tests call a Message's add_header, and were read
// as calls of wsgiref's Headers.add_header, which asserts.
TEST(PythonSinks, AMethodNamedLikeASinkOfAnotherModuleIsNotThatSink) {
  std::map<std::string, std::string> files = {
      {"wsgi/headers.py",
       "class Headers:\n"
       "    def add_header(self, name, value):\n"
       "        if type(value) is not str:\n"
       "            raise AssertionError('values must be str (got %r)' % value)\n"},
      {"mail/message.py",
       "class Message:\n"
       "    def add_header(self, name, value):\n"
       "        self.items.append((name, value))\n"},
      {"tests/test_mail.py",
       "from mail.message import Message\n"
       "def test(msg):\n"
       "    msg.add_header('First', 'One')\n"},
      {"tests/test_wsgi.py",
       "from wsgi.headers import Headers\n"
       "def test(h):\n"
       "    h.add_header('First', 'Two')\n"},
      {"wsgi/server.py",
       "def start(h):\n"
       "    h.add_header('Server', 'Three')\n"},
      {"other/app.py",
       "import wsgi\n"
       "def start(h):\n"
       "    h.add_header('Server', 'Four')\n"},
      // A package above the sink, imported from: no evidence.
      {"tests/test_pkg.py",
       "from wsgi import server\n"
       "def test(h):\n"
       "    h.add_header('First', 'Five')\n"},
      // The sink's class, wherever it is imported from.
      {"app/facade.py",
       "from api import Headers\n"
       "def start(h):\n"
       "    h.add_header('Server', 'Six')\n"}};
  // The email test's Message is not Headers, nor is what test_pkg passes;
  // the others import the module, a package above it or the class, or sit
  // beside it.
  EXPECT_EQ(SitesVia(files, "Headers.add_header"),
            (std::vector<std::string>{
                "app/facade.py values must be str (got 'Six')",
                "other/app.py values must be str (got 'Four')",
                "tests/test_wsgi.py values must be str (got 'Two')",
                "wsgi/server.py values must be str (got 'Three')",
            }));
}

// Evidence for a method sink is evidence for its class: another class of
// its module, or another definition in the caller's own file, is no link
// (httplib2's `auth.request(method, ...)` made Http.request's uri "GET").
TEST(PythonSinks, EvidenceForAMethodSinkIsEvidenceForItsClass) {
  std::map<std::string, std::string> files = {
      {"client/http.py",
       "class Auth:\n"
       "    def request(self, method, request_uri):\n"
       "        self.sent = (method, request_uri)\n"
       "class Http:\n"
       "    def request(self, uri, method='GET'):\n"
       "        if not uri.startswith('http'):\n"
       "            raise ValueError('Only absolute URIs are allowed. uri = %s' % uri)\n"
       "    def _follow(self, auth):\n"
       "        auth.request('POST', '/x')\n"
       "class Cache:\n"
       "    def request(self, key):\n"
       "        return key\n"},
      {"tests/test_cache.py",
       "from client.http import Cache\n"
       "def test(cache):\n"
       "    cache.request('key')\n"},
      {"tests/test_http.py",
       "from client.http import Http\n"
       "def test(conn):\n"
       "    conn.request('relative/path')\n"},
      {"tests/test_module.py",
       "from client import http\n"
       "def test(conn):\n"
       "    conn.request('other/path')\n"}};
  EXPECT_EQ(SitesVia(files, "Http.request"),
            (std::vector<std::string>{
                "tests/test_http.py Only absolute URIs are allowed. uri = relative/path",
                "tests/test_module.py Only absolute URIs are allowed. uri = other/path",
            }));
}

TEST(PythonSinks, NoSiteForALoggerOrACallWithoutText) {
  // A logger's error() is not the library's sink named error, and a call
  // passing on its own parameter (`p.error(m)`) writes no text itself.
  EXPECT_TRUE(SinkSites("class P:\n"
                        "  def error(self, message):\n"
                        "    raise ValueError(message)\n"
                        "def g(log, e):\n"
                        "  log.error('could not parse %s' % e)\n"
                        "def h(p, m):\n"
                        "  p.error(m)\n")
                  .empty());
}

TEST(PythonSinks, DefaultsAreNotBoundAndGuardedSinksSaySo) {
  Extraction x = Extract(
      "def check(cond, message, where=None):\n"
      "  if not cond:\n"
      "    raise ValueError(f'{message} at {where}')\n"
      "def f(n):\n"
      "  check(n > 0, 'n must be positive')\n");
  const Site* call = nullptr;
  for (const Site& s : x.sites) {
    if (s.line == 5) call = &s;
  }
  ASSERT_NE(call, nullptr);
  // `where` keeps its placeholder: check may replace a default before raising.
  EXPECT_EQ(call->message.Display(), "n must be positive at {where}");
  EXPECT_NE(call->trigger.find("a condition inside `check` also holds"), std::string::npos)
      << call->trigger;
  EXPECT_NE(call->excerpt.find("check(n > 0"), std::string::npos);
}

TEST(PythonSinks, WithTracebackRaisesTheObjectItIsCalledOn) {
  EXPECT_EQ(One("def f():\n"
                "  exc = ValueError('stored and raised later')\n"
                "  raise exc.with_traceback(None)\n"),
            "ValueError: stored and raised later");
}

TEST(PythonComposed, EveryWayThroughInitIsATemplate) {
  // The message parameter reassigned under a condition: the default text
  // when the caller leaves it out, the caller's text when it passes one.
  const std::string classes =
      "class NoSuchOption(Exception):\n"
      "  def __init__(self, name, message=None):\n"
      "    if message is None:\n"
      "      message = 'No such option {!r}.'.format(name)\n"
      "    super().__init__(message)\n";
  EXPECT_EQ(Messages(classes + "raise NoSuchOption(opt)\n"),
            (std::vector<std::string>{"NoSuchOption: No such option {opt!r}."}));
  // The default text sits under `message is None`, which 'not here' fails.
  EXPECT_EQ(Messages(classes + "raise NoSuchOption(opt, message='not here')\n"),
            (std::vector<std::string>{"NoSuchOption: not here"}));
  // A message not known at the raise may be None: the default text stays.
  EXPECT_EQ(Messages(classes + "raise NoSuchOption(opt, message=m)\n"),
            (std::vector<std::string>{"NoSuchOption: No such option {opt!r}."}));
}

TEST(PythonComposed, LazyPercentInStrAndClassAttributes) {
  EXPECT_EQ(One("class ParserError(ValueError):\n"
                "  def __str__(self):\n"
                "    try:\n"
                "      return self.args[0] % self.args[1:]\n"
                "    except TypeError:\n"
                "      return super().__str__()\n"
                "raise ParserError('Unknown string format: %s', s)\n"),
            "ParserError: Unknown string format: {s}");
  EXPECT_EQ(One("class HTTPError(Exception):\n"
                "  code = None\n"
                "  description = None\n"
                "  def __init__(self, description=None):\n"
                "    if description is not None:\n"
                "      self.description = description\n"
                "  def __str__(self):\n"
                "    return f'{self.code}: {self.description}'\n"
                "class Gone(HTTPError):\n"
                "  code = 410\n"
                "  description = 'The resource is gone.'\n"
                "raise Gone()\n"),
            "Gone: 410: The resource is gone.");
}

TEST(PythonComposed, LowercaseClassOfTheLibraryIsAClass) {
  EXPECT_EQ(Messages("class error(Exception):\n"
                     "  def __init__(self, msg, pos=None):\n"
                     "    if pos is not None:\n"
                     "      msg = '%s at position %d' % (msg, pos)\n"
                     "    super().__init__(msg)\n"
                     "raise error('nothing to repeat', 0)\n"),
            (std::vector<std::string>{"error: nothing to repeat at position 0",
                                      "error: nothing to repeat"}));
}

TEST(PythonExtractor, PlusOfTwoValuesIsArithmeticNotConcatenation) {
  EXPECT_EQ(One("def f(label):\n"
                "  for pos, cp in enumerate(label):\n"
                "    raise ValueError('bad at position {}'.format(pos + 1))\n"),
            "ValueError: bad at position {pos + 1}");
  EXPECT_EQ(One("def f(name):\n"
                "  raise ValueError(name + ' < 0')\n"),
            "ValueError: {name} < 0");
}

TEST(PythonComposed, ClassAttributeTemplateFormattedWithTheRaisesKeywords) {
  EXPECT_EQ(One("class BaseError(Exception):\n"
                "  fmt = 'An unspecified error occurred'\n"
                "  def __init__(self, **kwargs):\n"
                "    msg = self.fmt.format(**kwargs)\n"
                "    Exception.__init__(self, msg)\n"
                "class UnknownService(BaseError):\n"
                "  fmt = 'Unknown service: {service_name!r}'\n"
                "raise UnknownService(service_name=name)\n"),
            "UnknownService: Unknown service: {name!r}");
}

TEST(PythonComposed, TypeHeldInAClassAttribute) {
  std::vector<std::string> m = Messages(
      "class TestCase:\n"
      "  failureException = AssertionError\n"
      "  def fail(self, msg=None):\n"
      "    raise self.failureException(msg)\n"
      "class Mine(TestCase):\n"
      "  def test(self):\n"
      "    self.fail('values differ')\n");
  EXPECT_EQ(m,
            (std::vector<std::string>{"AssertionError: {msg}", "AssertionError: values differ"}));
  // A capitalized attribute looks like a class by its name (botocore).
  EXPECT_EQ(One("class _RetriesExceededError(Exception):\n"
                "  pass\n"
                "class Fetcher:\n"
                "  _RETRIES_EXCEEDED_ERROR_CLS = _RetriesExceededError\n"
                "  def get(self):\n"
                "    raise self._RETRIES_EXCEEDED_ERROR_CLS('retries exceeded')\n"),
            "_RetriesExceededError: retries exceeded");
}

TEST(PythonComposed, TypeStoredByInitFromAParameterDefault) {
  // jinja2's Undefined: the class raised unless a caller passes another.
  std::vector<std::string> m = Messages(
      "class UndefinedError(Exception):\n"
      "  pass\n"
      "class Undefined:\n"
      "  def __init__(self, hint=None, exc=UndefinedError):\n"
      "    self._undefined_hint = hint\n"
      "    self._undefined_exception = exc\n"
      "  def _fail_with_undefined_error(self):\n"
      "    raise self._undefined_exception('undefined value')\n");
  EXPECT_EQ(m, (std::vector<std::string>{"UndefinedError: undefined value"}));
  // Stored from a parameter with no default, or from something else: the
  // raise keeps the name it was written with.
  EXPECT_EQ(One("class Holder:\n"
                "  def __init__(self, exc, other=None):\n"
                "    self._exc = exc\n"
                "    self._other = make_error()\n"
                "  def f(self):\n"
                "    raise self._exc('no class known')\n"),
            "_exc: no class known");
  // A default that is no exception class is no type either.
  EXPECT_EQ(One("class Holder:\n"
                "  def __init__(self, exc=None):\n"
                "    self._exc = exc\n"
                "  def f(self):\n"
                "    raise self._exc('no class known')\n"),
            "_exc: no class known");
}

TEST(PythonFactories, ATypeHeldInALocalOrAParameterDefault) {
  EXPECT_EQ(Messages("def f(x, error_class=KeyError):\n"
                     "  raise error_class(f'no entry {x}')\n"),
            (std::vector<std::string>{"KeyError: 'no entry {x}'"}));
  EXPECT_EQ(Messages("def f(x):\n"
                     "  error_class = TypeError if x else ValueError\n"
                     "  raise error_class(f'bad {x}')\n"),
            (std::vector<std::string>{"TypeError: bad {x}", "ValueError: bad {x}"}));
  // Nothing says which class: the raise keeps the name it was written with.
  EXPECT_EQ(One("def f(x, error_class):\n  raise error_class(f'bad {x}')\n"),
            "error_class: bad {x}");
}

TEST(PythonFactories, ACallerPassingNoClassRaisesTheDefault) {
  std::vector<std::string> sites = SinkSites(
      "def fail(msg, error_class=ValueError):\n"
      "  raise error_class(msg)\n"
      "def f(x):\n"
      "  fail('x must be positive')\n"
      "  fail('x must be finite', error_class=ArithmeticError)\n");
  EXPECT_EQ(sites, (std::vector<std::string>{
                       "4 ValueError: x must be positive via fail",
                       "5 ArithmeticError: x must be finite via fail",
                   }));
}

TEST(PythonFactories, AClassLookedUpInADictOfClasses) {
  EXPECT_EQ(Messages("class Missing(LookupError):\n  pass\n"
                     "ERRORS = {404: Missing, 400: ValueError}\n"
                     "def abort(code, text):\n"
                     "  raise ERRORS[code](f'failed: {text}')\n"),
            (std::vector<std::string>{"Missing: failed: {text}", "ValueError: failed: {text}"}));
  EXPECT_EQ(Messages("class Aborter:\n"
                     "  mapping = {1: TypeError}\n"
                     "  def __call__(self, code):\n"
                     "    raise self.mapping[code]('aborted')\n"),
            (std::vector<std::string>{"TypeError: aborted"}));
  // A dict errdex cannot read: the raise is as written.
  EXPECT_EQ(One("def f(table, code):\n  raise table[code]('aborted')\n"), "table[code]: aborted");
}

TEST(PythonFactories, TheClassOfACaughtException) {
  // `type(e)(...)` re-raises the caught class, whose __init__ composes.
  EXPECT_EQ(Messages("class ConstraintError(ValueError):\n"
                     "  def __init__(self, what):\n"
                     "    super().__init__(f'constraint failed: {what}')\n"
                     "def check(v):\n"
                     "  try:\n    v.check()\n"
                     "  except ConstraintError as exc:\n"
                     "    raise type(exc)('%s at %s' % (exc, v))\n"),
            (std::vector<std::string>{"ConstraintError: constraint failed: {exc} at {v}"}));
  EXPECT_EQ(One("def check(v):\n"
                "  try:\n    v.check()\n"
                "  except (KeyError) as exc:\n"
                "    raise exc.__class__(f'{exc} in {v}')\n"),
            "KeyError: '{exc} in {v}'");
}

TEST(PythonFactories, TheClassOfACaughtExceptionMayBeAnySubclass) {
  Extraction x = Extract(
      "class AsnError(Exception):\n  pass\n"
      "class ConstraintError(AsnError):\n  pass\n"
      "def verify(v):\n"
      "  try:\n    v.check()\n"
      "  except AsnError as exc:\n"
      "    raise type(exc)('%s at %s' % (exc, v))\n");
  std::vector<std::string> got;
  for (const Site& s : x.sites) {
    got.push_back(s.exception + " " + s.exception_written + ": " + s.message.Display());
  }
  EXPECT_EQ(got, (std::vector<std::string>{"ConstraintError type(exc): {exc} at {v}",
                                           "AsnError type(exc): {exc} at {v}"}));
}

TEST(PythonFactories, AnExceptionHeldInAVariableAndReturned) {
  std::vector<std::string> m = Messages(
      "class ParsingError(Exception):\n"
      "  def __init__(self, source):\n"
      "    super().__init__(f'Source contains parsing errors: {source!r}')\n"
      "  def append(self, line):\n"
      "    pass\n"
      "def handle(exc, fpname, line):\n"
      "  if not exc:\n"
      "    exc = ParsingError(fpname)\n"
      "  exc.append(line)\n"
      "  return exc\n"
      "def read(fpname, lines):\n"
      "  e = None\n"
      "  for line in lines:\n"
      "    e = handle(e, fpname, line)\n"
      "  if e:\n"
      "    raise e\n");
  const std::string composed = "ParsingError: Source contains parsing errors: {fpname!r}";
  EXPECT_EQ(m, (std::vector<std::string>{composed, composed}));
  Extraction x = Extract(
      "def handle(x):\n  result = compute(x)\n  return result\n"
      "def make(x):\n  obj = Widget(x)\n  return obj\n");
  // A variable holding something else returns no exception.
  EXPECT_TRUE(x.sites.empty());
}

TEST(PythonFactories, AnAlternativeConstructorReturningCls) {
  std::vector<std::string> m = Messages(
      "class UndefinedAnnotation(Exception):\n"
      "  def __init__(self, name, message):\n"
      "    self.name = name\n"
      "    super().__init__(message)\n"
      "  @classmethod\n"
      "  def from_name_error(cls, name_error):\n"
      "    return cls(name=name_error.name, message=f'undefined: {name_error}')\n"
      "class Shape:\n"
      "  @classmethod\n"
      "  def square(cls, side):\n"
      "    return cls(side, side)\n"
      "def f(e):\n"
      "  raise UndefinedAnnotation.from_name_error(e) from e\n");
  EXPECT_EQ(m, (std::vector<std::string>{"UndefinedAnnotation: undefined: {name_error}",
                                         "UndefinedAnnotation: undefined: {e}"}));
}

TEST(PythonComposed, StrReturningAMethodsMessage) {
  std::vector<std::string> m = Messages(
      "class ParseBase(Exception):\n"
      "  def __init__(self, pstr, loc=0, msg=None):\n"
      "    self.loc = loc\n"
      "    self.msg = msg\n"
      "  def formatted_message(self):\n"
      "    return f'{self.msg}  (at char {self.loc})'\n"
      "  def __str__(self):\n"
      "    try:\n"
      "      return self.formatted_message()\n"
      "    except Exception as ex:\n"
      "      return f'{type(self).__name__}: {self.msg} ({ex} while formatting message)'\n"
      "class ParseException(ParseBase):\n"
      "  pass\n"
      "raise ParseException(s, 3, 'Expected end of text')\n");
  EXPECT_EQ(m, (std::vector<std::string>{
                   "ParseException: Expected end of text  (at char 3)",
                   "ParseException: ParseException: Expected end of text ({ex} while formatting "
                   "message)"}));
}

TEST(PythonExtractor, AssertWhoseMessageIsAnException) {
  EXPECT_EQ(One("def f(p, n):\n"
                "  assert p <= n, AssertionError(f'cursor_position={p!r}, len_text={n!r}')\n"),
            "AssertionError: cursor_position={p!r}, len_text={n!r}");
  // str() of a KeyError is its argument's repr, as `raise KeyError(p)` prints it.
  EXPECT_EQ(One("def f(p):\n  assert p, KeyError(p)\n").substr(16),
            One("raise KeyError(p)\n").substr(10));
}

// Twenty conditional appends make a million ways; each append is evaluated
// once per look-up, so the file's evaluation budget is left for the
// function after it.
TEST(PythonExtractor, ConditionalAppendsAreEvaluatedOnceEach) {
  std::string code = "def f(c):\n    msg = 'bad flags:'\n";
  for (int i = 0; i < 20; ++i) {
    code += "    if c & " + std::to_string(1 << i) + ":\n        msg += ' F" + std::to_string(i) +
            "'\n";
  }
  code +=
      "    raise ValueError(msg)\n\ndef g():\n    s = 'later message'\n    raise ValueError(s)\n";
  std::vector<std::string> m = Messages(code);
  EXPECT_NE(std::find(m.begin(), m.end(), "ValueError: later message"), m.end());
  EXPECT_NE(std::find(m.begin(), m.end(),
                      "ValueError: bad flags: F0 F1 F2 F3 F4 F5 F6 F7 F8 F9 F10 F11 F12 F13 F14 "
                      "F15 F16 F17 F18 F19"),
            m.end());
}

// `:=` rebinds a name inside a condition or an expression: the text it
// held before is not what the raise after it sees.
TEST(PythonExtractor, AWalrusReplacesWhatTheNameHeld) {
  std::vector<std::string> m = Messages(
      "def f(x):\n"
      "    msg = 'a default that is never raised'\n"
      "    if (msg := lookup(x)) is None:\n"
      "        raise ValueError(msg)\n"
      "def g(x):\n"
      "    why = 'no reason given'\n"
      "    if x and (why := 'x is set'):\n"
      "        pass\n"
      "    raise KeyError(why)\n"
      "def h(items):\n"
      "    while (part := 'scanning items') and items.pop():\n"
      "        part = 'inside the loop'\n"
      "    raise IndexError(part)\n");
  auto has = [&](const std::string& s) { return std::find(m.begin(), m.end(), s) != m.end(); };
  EXPECT_FALSE(has("ValueError: a default that is never raised"));
  EXPECT_TRUE(has("KeyError: 'no reason given'"));  // `x` false: the walrus did not run
  EXPECT_TRUE(has("KeyError: 'x is set'"));
  EXPECT_TRUE(has("IndexError: scanning items"));  // the condition ran last
  EXPECT_FALSE(has("IndexError: inside the loop"));
}

}  // namespace
}  // namespace errdex::extract

namespace errdex::extract {
namespace {

// `T[k]` is each of T's texts; `T["a"]` is the one under "a", never the
// others, and `{**BASE, ...}` holds BASE's texts too, which are not read.
TEST(PythonExtractor, ATableLookedUpByAWrittenKeyOrWithASplatIsNoListOfItsTexts) {
  std::string tables =
      "BASE = {'x': 'base text one', 'y': 'base text two'}\n"
      "T = {'a': 'first text here', 'b': 'second text here'}\n"
      "U = {**BASE, 'c': 'third text here'}\n";
  std::vector<std::string> any = Messages(tables + "def f(k):\n    raise ValueError(T[k])\n");
  EXPECT_EQ(any.size(), 2u);
  EXPECT_EQ(Messages(tables + "def f():\n    raise ValueError(T['a'])\n"),
            std::vector<std::string>{"ValueError: first text here"});
  EXPECT_EQ(Messages(tables + "def f():\n    raise ValueError(T[\"b\"])\n"),
            std::vector<std::string>{"ValueError: second text here"});
  for (const std::string& m : Messages(tables + "def f(k):\n    raise ValueError(U[k])\n")) {
    EXPECT_EQ(m.find("third text"), std::string::npos) << m;  // BASE's are as likely
  }
}

}  // namespace
}  // namespace errdex::extract
