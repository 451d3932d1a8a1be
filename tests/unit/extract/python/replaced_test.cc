// Python code another module replaces where it imports: definitions a
// later module-level import rebinds (datetime.py's classes, rebound by
// `from _datetime import *`), and modules that run only in place of one
// that failed to import (`except ImportError: from _pydecimal import *`).
// tests/cli/replaced_test.cc holds the same against CPython's own library.
#include "extract/python/py_replaced.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/guards.h"
#include "test_util.h"

namespace errdex::extract::python {
namespace {

using testing::TempDir;

// Each site's message, with the kind and subject of its first guard when
// that says another module replaces it ("" otherwise), and its trigger.
struct Marked {
  std::string kind;
  std::string subject;
  std::string trigger;
};

std::map<std::string, Marked> MarksByMessage(const TempDir& dir) {
  Extraction x = testing::ExtractTree(dir.path());
  std::map<std::string, Marked> out;
  for (const Site& s : x.sites) {
    Marked m;
    m.trigger = s.trigger;
    for (const Guard& g : s.guards) {
      if (g.kind == "replaced" || g.kind == "replaced-if-defined" || g.kind == "stands-in") {
        m.kind = g.kind;
        m.subject = g.subject;
      }
    }
    out[s.message.Display()] = m;
  }
  return out;
}

TEST(Replaced, AnImportAfterADefinitionRebindsIt) {
  TempDir dir;
  dir.Write("pkg/__init__.py", "");
  dir.Write("pkg/fast.py", R"py(
def check(x):
    if x < 0:
        raise ValueError("check: negative")

class Box:
    def __init__(self, v):
        raise TypeError("Box: no value")

def keep(v):
    raise LookupError("keep: not imported")

def _private(v):
    raise LookupError("private: star imports skip it")

class Sub(Box):
    pass

def later(v):
    raise ValueError("later: defined again after the import")

try:
    from _fast import check, Box, later
except ImportError:
    pass

try:
    from _other import *
except ImportError:
    pass

def later(v):
    raise ValueError("later: the definition that stays")
)py");
  std::map<std::string, Marked> m = MarksByMessage(dir);
  ASSERT_EQ(m.size(), 6u);
  ASSERT_EQ(m.count("keep: not imported"), 1u);
  ASSERT_EQ(m.count("private: star imports skip it"), 1u);
  EXPECT_EQ(m["check: negative"].kind, "replaced");
  EXPECT_EQ(m["check: negative"].subject, "check");
  EXPECT_EQ(m["check: negative"].trigger,
            "raised only when `from _fast import check, Box, later` at line 23 fails, and then "
            "when `x < 0`");
  // Sub keeps the Python Box as its base, so Box's methods still run.
  EXPECT_EQ(m["Box: no value"].kind, "");
  EXPECT_EQ(m["later: defined again after the import"].kind, "replaced");
  EXPECT_EQ(m["later: the definition that stays"].kind, "");
  // A star import of a module errdex knows nothing of may rebind any
  // public definition, and is said so.
  EXPECT_EQ(m["keep: not imported"].kind, "replaced-if-defined");
  EXPECT_EQ(m["keep: not imported"].trigger,
            "raised only when `from _other import *` at line 28 fails or does not define `keep`");
  EXPECT_EQ(m["private: star imports skip it"].kind, "");
}

TEST(Replaced, AKnownAcceleratorsStarImportRebindsWhatItDefines) {
  TempDir dir;
  dir.Write("heapq.py", R"py(
def heappush(heap, item):
    raise TypeError("heappush: not a list")

def merge(*iterables):
    raise TypeError("merge: the accelerator has no merge")

try:
    from _heapq import *
except ImportError:
    pass
)py");
  std::map<std::string, Marked> m = MarksByMessage(dir);
  EXPECT_EQ(m["heappush: not a list"].kind, "replaced");
  EXPECT_EQ(m["merge: the accelerator has no merge"].kind, "");
}

TEST(Replaced, ASubclassThatRunsKeepsEveryBaseBelowItRunning) {
  TempDir dir;
  dir.Write("shapes.py", R"py(
class A:
    def area(self):
        raise ValueError("A: no area")

class B(A):
    def scale(self):
        raise ValueError("B: no scale")

class C(B):
    pass

class D:
    def name(self):
        raise ValueError("D: replaced, nothing subclasses it")

try:
    from _shapes import A, B, D
except ImportError:
    pass
)py");
  std::map<std::string, Marked> m = MarksByMessage(dir);
  EXPECT_EQ(m["A: no area"].kind, "");
  EXPECT_EQ(m["B: no scale"].kind, "");
  EXPECT_EQ(m["D: replaced, nothing subclasses it"].kind, "replaced");
}

TEST(Replaced, EachStarImportTakesTheDefinitionsAboveItThatNoneTook) {
  // Definitions and star imports of an unknown module in turn, as a
  // generated module might have thousands: each definition is said to be
  // rebound by the first import after it.
  TempDir dir;
  std::string code;
  int line = 1;
  std::map<std::string, int> import_line;
  for (int i = 0; i < 200; ++i) {
    std::string name = "f" + std::to_string(i);
    code += "def " + name + "():\n    raise ValueError('" + name + "')\n";
    line += 2;
    if (i % 3 == 2) {
      code += "from _gen" + std::to_string(i) + " import *\n";
      for (int j = i - 2; j <= i; ++j) import_line["f" + std::to_string(j)] = line;
      ++line;
    }
  }
  dir.Write("gen.py", code);
  Extraction x = testing::ExtractTree(dir.path());
  ASSERT_EQ(x.sites.size(), 200u);
  for (const Site& s : x.sites) {
    std::string name = s.message.Display();
    auto want = import_line.find(name);
    if (want == import_line.end()) {  // after the last import
      EXPECT_TRUE(s.guards.empty()) << name;
      continue;
    }
    ASSERT_FALSE(s.guards.empty()) << name;
    EXPECT_EQ(s.guards[0].kind, "replaced-if-defined") << name;
    EXPECT_EQ(s.guards[0].line, want->second) << name;
  }
}

TEST(Replaced, AReferenceTakenBeforeTheImportKeepsTheDefinitionRunning) {
  TempDir dir;
  dir.Write("mod.py", R"py(
def aliased():
    raise ValueError("aliased: _py_aliased keeps it")

class Made:
    def go(self):
        raise ValueError("Made: an instance is kept")

def registered():
    raise ValueError("registered: the decorator's table keeps it")

def defaulted():
    raise ValueError("defaulted: a default argument keeps it")

class Clock:
    def tick(self):
        raise ValueError("Clock: only its own attribute holds it")

def helper():
    raise ValueError("helper: the else deletes what held it")

def inner():
    raise ValueError("inner: called in a function body, found rebound")

def user():
    return inner()

_table = []
def register(f):
    _table.append(f)
    return f

@register
def registered2():
    pass

_py_aliased = aliased
default = Made()
decorated = register(registered)
def caller(fn=defaulted):
    return fn()
Clock.zero = Clock()
_held = helper
UTC = Clock.utc = Clock()

try:
    from _mod import aliased, Made, registered, defaulted, Clock, helper, inner, UTC
except ImportError:
    pass
else:
    del _held
)py");
  std::map<std::string, Marked> m = MarksByMessage(dir);
  EXPECT_EQ(m["aliased: _py_aliased keeps it"].kind, "");
  EXPECT_EQ(m["Made: an instance is kept"].kind, "");
  EXPECT_EQ(m["registered: the decorator's table keeps it"].kind, "");
  EXPECT_EQ(m["defaulted: a default argument keeps it"].kind, "");
  EXPECT_EQ(m["Clock: only its own attribute holds it"].kind, "replaced");
  EXPECT_EQ(m["helper: the else deletes what held it"].kind, "replaced");
  EXPECT_EQ(m["inner: called in a function body, found rebound"].kind, "replaced");
}

TEST(Replaced, WhatATrysElseDeletesIsReplacedToo) {
  TempDir dir;
  dir.Write("dt.py", R"py(
def _check(y):
    raise ValueError("check: year out of range")

class date:
    pass

try:
    from _dt import *
except ImportError:
    pass
else:
    del (_check,)
)py");
  std::map<std::string, Marked> m = MarksByMessage(dir);
  EXPECT_EQ(m["check: year out of range"].kind, "replaced");
  EXPECT_EQ(m["check: year out of range"].subject, "_check");
}

TEST(Replaced, ARelativeImportAboveTheRootReplacesNothing) {
  TempDir dir;
  dir.Write("flat.py", R"py(
def f():
    raise ValueError("flat: CPython fails the import")

try:
    from . import f
except ImportError:
    pass
)py");
  EXPECT_EQ(MarksByMessage(dir)["flat: CPython fails the import"].kind, "");
}

TEST(Replaced, AModuleOfTheLibraryReplacesNothing) {
  TempDir dir;
  dir.Write("pkg/__init__.py", "");
  dir.Write("pkg/impl.py", "def check(x):\n    raise ValueError('impl: own')\n");
  dir.Write("pkg/api.py", R"py(
def check(x):
    raise ValueError("api: rebound by a module errdex reads")

from pkg.impl import check
)py");
  std::map<std::string, Marked> m = MarksByMessage(dir);
  EXPECT_EQ(m["api: rebound by a module errdex reads"].kind, "");
}

// `module`, which imports everything of `accelerator` or, where that fails,
// of `fallback` (decimal.py's `_decimal` and `_pydecimal`); the import that
// may fail is at line 3.
void WriteFallback(const TempDir& dir, const std::string& module, const std::string& accelerator,
                   const std::string& fallback) {
  dir.Write(module, "\ntry:\n    from " + accelerator +
                        " import *\nexcept ImportError:\n    from " + fallback + " import *\n");
}

TEST(Replaced, AFallbackModuleStandsInForTheImportThatFailed) {
  TempDir dir;
  WriteFallback(dir, "num.py", "_cnum", "_pynum");
  dir.Write("_pynum.py", "def add(a, b):\n    raise OverflowError('pynum: too big')\n");
  // Imported in a handler, but also by other code: a module of its own.
  dir.Write("threads.py", R"py(
try:
    from _collections import deque
except ImportError:
    from shared import deque
)py");
  dir.Write("shared.py", "def deque():\n    raise ValueError('shared: used everywhere')\n");
  dir.Write("user.py", "from shared import deque\n");
  // Its tests importing it directly do not count.
  dir.Write("tests/test_pynum.py", "import _pynum\n");
  // A handler binding other names is no fallback of the same code.
  dir.Write("hashes.py", R"py(
try:
    from _hash import pbkdf2
except ImportError:
    from warn import warn
)py");
  dir.Write("warn.py", "def warn(m):\n    raise RuntimeError('warn: a helper')\n");
  std::map<std::string, Marked> m = MarksByMessage(dir);
  EXPECT_EQ(m["pynum: too big"].kind, "stands-in");
  EXPECT_EQ(m["pynum: too big"].subject, "num.py");
  EXPECT_EQ(m["pynum: too big"].trigger,
            "raised only when `from _cnum import *` at line 3 of `num.py` fails (this module "
            "stands in for it), or the module is imported by its own name");
  EXPECT_EQ(m["shared: used everywhere"].kind, "");
  EXPECT_EQ(m["warn: a helper"].kind, "");
}

// A call into a helper that raises under a test of its own: the sentence
// still says the helper decides once the module is said to stand in.
TEST(Replaced, AStandInsSentenceKeepsWhatAHelperDecides) {
  TempDir dir;
  WriteFallback(dir, "dec.py", "_cdec", "_pydec");
  dir.Write("_pydec.py", R"py(
def _raise_error(trap, explanation):
    if trap:
        raise ValueError(explanation)
    return None

def power(x, trap):
    if x == 0:
        _raise_error(trap, "0 ** 0")
)py");
  std::map<std::string, Marked> m = MarksByMessage(dir);
  EXPECT_EQ(m["0 ** 0"].kind, "stands-in");
  EXPECT_EQ(m["0 ** 0"].trigger,
            "raised only when `from _cdec import *` at line 3 of `dec.py` fails (this module "
            "stands in for it), or the module is imported by its own name, and then when `x == "
            "0`, and only when a condition inside `_raise_error` also holds");
}

TEST(Replaced, AModuleImportedAnyOtherWayDoesNotStandIn) {
  TempDir dir;
  auto fallback = [&](const std::string& importer, const std::string& module,
                      const std::string& text) {
    dir.Write(importer, "try:\n    from _c" + module + " import *\nexcept ImportError:\n" +
                            "    from " + module + " import *\n");
    dir.Write(module + ".py", "def f():\n    raise ValueError('" + text + "')\n");
  };
  fallback("a.py", "_pya", "pya: a star import elsewhere");
  dir.Write("b.py", "from _pya import *\n");
  fallback("c.py", "_pyc", "pyc: a dotted import elsewhere");
  dir.Write("d.py", "import _pyc.sub\n");
  fallback("e.py", "_pye", "pye: only in the handler");
  // `from . import impl` in the handler imports pkg.impl, not pkg.
  dir.Write("pkg/__init__.py",
            "def helper():\n    raise ValueError('pkg: runs with any module')\n");
  dir.Write("pkg/api.py", R"py(
try:
    from _cimpl import impl
except ImportError:
    from . import impl
)py");
  dir.Write("pkg/impl.py", "def impl():\n    raise ValueError('impl: the fallback')\n");
  std::map<std::string, Marked> m = MarksByMessage(dir);
  EXPECT_EQ(m["pya: a star import elsewhere"].kind, "");
  EXPECT_EQ(m["pyc: a dotted import elsewhere"].kind, "");
  EXPECT_EQ(m["pye: only in the handler"].kind, "stands-in");
  EXPECT_EQ(m["pkg: runs with any module"].kind, "");
  EXPECT_EQ(m["impl: the fallback"].kind, "stands-in");
}

TEST(Replaced, TheTriggerSaysItFirstWhateverTheFoldLeavesOut) {
  std::vector<Guard> guards(6);
  for (size_t i = 0; i < guards.size(); ++i) {
    guards[i].kind = "if";
    guards[i].code = "c" + std::to_string(i);
  }
  guards[0].kind = "replaced";
  guards[0].code = "from _m import f";
  guards[0].subject = "f";
  guards[0].line = 9;
  EXPECT_EQ(TriggerSentence(guards),
            "raised only when `from _m import f` at line 9 fails, and then when `c5`, and 4 "
            "more conditions on the path");
}

}  // namespace
}  // namespace errdex::extract::python
