// The interpreter's own wordings, checked against the interpreter: every
// snippet below fails inside CPython itself (no raise statement of any
// library), and what it prints must be recognised as CPython's wording, so
// that a CPython that words an error differently fails this test instead of
// leaving errdex to point at a library that copied the old wording.
#include "match/interpreter.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "match/pattern.h"
#include "test_util.h"

namespace errdex::match {
namespace {

const char* const kSnippets[] = {
    "None.get('x')",
    "class C: pass\nC().missing",
    "class C: pass\nC.missing",
    "import os\nos.no_such_function",
    "(1).real = 2",
    "undefined_name_xyz + 1",
    "def f():\n    x += 1\nf()",
    "def f():\n    print(y)\n    y = 1\nf()",
    "None[0]",
    "5()",
    "for _ in 5: pass",
    "next([1])",
    "(1, 2)[0] = 3",
    "del (1, 2)[0]",
    "[1, 2][1.5]",
    "'abc'['x']",
    "range(3)['a']",
    "1 + 'a'",
    "[] - []",
    "-'a'",
    "abs('a')",
    "1 < 'a'",
    "'a' + 1",
    "[1] + (2,)",
    "'ab' * 1.5",
    "len(5)",
    "{[]: 1}",
    "def f(a): pass\nf(1, 2)",
    "def f(a, b): pass\nf(1)",
    "def f(a): pass\nf(a=1, b=2)",
    "def f(a): pass\nf(1, a=2)",
    "1 in 5",
    "a, b = None",
    "[][0]",
    "()[0]",
    "''[0]",
    "range(2)[5]",
    "x = []\nx[0] = 1",
    "[].pop()",
    "1 / 0",
    "1 // 0",
    "1.0 / 0",
    "1.0 % 0",
    "1 % 0",
    "1.0 // 0",
    "divmod(1.0, 0)",
    "int('abc')",
    "int('z', 16)",
    "float('abc')",
    "a, b = [1, 2, 3]",
    "a, b, c = [1, 2]",
    "import math\nmath.sqrt(-1)",
    "def f(): f()\nf()",
    "'%d' % 'x' if False else [1][None]",
    "b'abc'.split('a')",
    "str('a', 'utf-8')",
    "str(1, 'utf-8')",
    "int(None)",
    "int(5, 2)",
    "float(None)",
    "complex(None)",
    "bytes(None)",
    "import os\nos.fspath(1)",
    "import re\nre.match('a', 1)",
    "'%d' % (1, 2)",
    "b'%d' % (1, 2)",
    "issubclass(1, int)",
    "isinstance(1, 1)",
    "b'' + {}",
    "1 in 'a'",
    "import math\nmath.floor('a')",
    "b''.join([b'a', 'b'])",
    "''.join([1])",
    "'a'.replace(None, 'b')",
    "str(b'a', 1)",
    "import datetime\ndatetime.timedelta(seconds='a')",
    "[][::0]",
    "range(1, 2, 0)",
    "1 << -1",
    "open(-1)",
    "import datetime\ndatetime.date(-1, 1, 1)",
    "import datetime\ndatetime.date(2020, 13, 1)",
    "import datetime\ndatetime.date(2020, 2, 30)",
    "import datetime\ndatetime.time(25)",
    "(2**70).to_bytes(1, 'big')",
    "import array\narray.array('i', [2**40])",
    "'a'.encode('nosuch')",
    "bytearray()[0]",
    "b''[0]",
    "[].pop()",
    "import collections\ncollections.deque().pop()",
    "{}.popitem()",
    "set().pop()",
    "'abc'.find(None)",
    "memoryview(b'')[0]",
    "open('/nonexistent-errdex-dir/x')",
    "import os\nos.stat('/nonexistent-errdex-dir')",
    "import os\nos.fstat(-1)",
    "len()",
    "[].append()",
    "{}.items(1)",
    "'a'.split(1, 2, 3)",
    "'a'.startswith()",
    "sum()",
    "BaseException().add_note()",
    "{}.fromkeys()",
    "divmod(1)",
    "dict(1, 2)",
    "getattr(1)",
    "int.from_bytes()",
    "import datetime\ndatetime.date(2020)",
    "'a'.encode(x=1)",
    "object(1)",
    "str.upper()",
    "import os\nos.mkdir('/')",
    "open('/')",
    "import os\nos.listdir('/dev/null')",
};

TEST(InterpreterWording, EveryWordingCPythonPrintsIsKnown) {
  // exec compiles `None[0]` with a SyntaxWarning ("perhaps you missed a
  // comma?") on stderr, which the run's output would mix in.
  std::string script =
      "import json, warnings\nwarnings.simplefilter('ignore')\nout = []\nfor src in " +
      nlohmann::json(std::vector<std::string>(std::begin(kSnippets), std::end(kSnippets))).dump() +
      ":\n"
      "    try:\n"
      "        exec(src, {})\n"
      "        out.append(None)\n"
      "    except Exception as e:\n"
      "        out.append([type(e).__name__, str(e)])\n"
      "print(json.dumps(out))\n";
  nlohmann::json printed = testing::RunPythonForJson(script);
  ASSERT_TRUE(printed.is_array());
  ASSERT_EQ(printed.size(), std::size(kSnippets));
  for (size_t i = 0; i < printed.size(); ++i) {
    ASSERT_TRUE(printed[i].is_array()) << kSnippets[i] << " raised nothing";
    std::string type = printed[i][0].get<std::string>();
    std::string message = printed[i][1].get<std::string>();
    EXPECT_TRUE(IsInterpreterWording(type, NormalizeText(message)))
        << kSnippets[i] << " printed " << type << ": " << message;
  }
}

TEST(InterpreterWording, LibraryWordingsAreNotTheInterpreters) {
  // Text added to a copied wording, another type, a library's own words.
  EXPECT_FALSE(IsInterpreterWording(
      "AttributeError", "'DockerClient' object has no attribute 'x' is not a valid client method"));
  EXPECT_FALSE(IsInterpreterWording("ValueError", "'Client' object has no attribute 'x'"));
  EXPECT_FALSE(IsInterpreterWording("ValueError", "Invalid literal for Fraction: '1x'"));
  EXPECT_FALSE(
      IsInterpreterWording("IndexError", "index 5 is out of bounds for axis 0 with size 3"));
  EXPECT_FALSE(IsInterpreterWording("TypeError", "expected str, bytes or os.PathLike object"));
  EXPECT_FALSE(IsInterpreterWording("ValueError", "day is out of range for month: 2020-02-30"));
  EXPECT_FALSE(IsInterpreterWording("FileNotFoundError", "No such file: 'x'"));
  EXPECT_FALSE(IsInterpreterWording("KeyError", "popitem(): dictionary is empty"));
  EXPECT_FALSE(IsInterpreterWording("TypeError", "value must be str, not int"));
  EXPECT_FALSE(IsInterpreterWording("ValueError", "[Errno 2] No such file or directory: 'x'"));
  // The same wordings, as a library that copies them raises them, are: only
  // the traceback can tell these apart.
  EXPECT_TRUE(IsInterpreterWording("AttributeError", "'Client' object has no attribute 'x'"));
}

}  // namespace
}  // namespace errdex::match
