// The conditions that lead to each raise, for every shape of control flow.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "extract/extractor.h"

namespace errdex::extract {
namespace {

// The trigger sentence of each site, in order.
std::vector<std::string> Triggers(const std::string& code) {
  std::vector<std::string> out;
  for (const Site& s : ExtractPythonSource("m.py", code).sites) out.push_back(s.trigger);
  return out;
}

TEST(PythonGuards, IfAndIsinstanceNegation) {
  // The seed's shape: a nested isinstance check under a None check.
  EXPECT_EQ(
      Triggers(
          "def lower(pipeline_mode):\n"
          "    if pipeline_mode is not None:\n"
          "        if not isinstance(pipeline_mode, pallas_core.Buffered):\n"
          "            raise LoweringException(f'Unsupported pipeline mode: {pipeline_mode}.')\n"),
      std::vector<std::string>{
          "raised when `pipeline_mode is not None` and `pipeline_mode` is not an instance "
          "of `pallas_core.Buffered`"});
}

TEST(PythonGuards, ElifAndElseNegateWhatCameBefore) {
  EXPECT_EQ(Triggers("def f(x):\n"
                     "    if x == 0:\n"
                     "        pass\n"
                     "    elif x < 5:\n"
                     "        raise ValueError('small')\n"
                     "    else:\n"
                     "        raise ValueError('large')\n"),
            (std::vector<std::string>{"raised when `x != 0` and `x < 5`",
                                      "raised when `x != 0` and not `x < 5`"}));
}

TEST(PythonGuards, EarlyExitsBeforeTheRaise) {
  EXPECT_EQ(Triggers("def f(ok, key, table):\n"
                     "    if ok:\n"
                     "        return 1\n"
                     "    if key in table:\n"
                     "        raise KeyError(key)\n"
                     "    raise ValueError('neither')\n"),
            (std::vector<std::string>{"raised when not `ok` and `key in table`",
                                      "raised when not `ok` and `key not in table`"}));
}

TEST(PythonGuards, LoopsHandlersAndMatch) {
  EXPECT_EQ(Triggers("def f(items, mode):\n"
                     "    for item in items:\n"
                     "        while item.busy:\n"
                     "            raise RuntimeError('busy')\n"
                     "    try:\n"
                     "        g(mode)\n"
                     "    except (KeyError, IndexError) as e:\n"
                     "        raise ValueError('bad mode') from e\n"
                     "    match mode:\n"
                     "        case 0 | 1:\n"
                     "            raise ValueError('low')\n"
                     "        case _:\n"
                     "            raise ValueError(f'Invalid mode: {mode}')\n"),
            (std::vector<std::string>{"raised when iterating `for item in items` and `item.busy`",
                                      // The loop may raise, the handler does: what
                                      // comes after needs both to have let it through.
                                      "raised when the `for` statement at line 2 runs to its end "
                                      "and `g(mode)` raised `(KeyError, IndexError)`",
                                      "raised when the `for` statement at line 2 runs to its end "
                                      "and `g(mode)` raised no `(KeyError, IndexError)` and "
                                      "`mode` matches `0 | 1`",
                                      "raised when the `for` statement at line 2 runs to its end "
                                      "and `g(mode)` raised no `(KeyError, IndexError)` and "
                                      "`mode` matches no case (valid: `0 | 1`)"}));
}

TEST(PythonGuards, ATryOfSeveralStatementsIsNotNamedByItsFirstAndCommentsAreNotCode) {
  EXPECT_EQ(Triggers("def f(path, ok, strict):\n"
                     "    try:\n"
                     "        f = open(path)\n"
                     "        data = parse(f)\n"
                     "    except ValueError:\n"
                     "        raise RuntimeError('unreadable')\n"
                     "    try:\n"
                     "        if ok:\n"
                     "            check(data)\n"
                     "    except KeyError:\n"
                     "        raise RuntimeError('unchecked')\n"
                     "    if (ok  # the caller asked\n"
                     "            and strict):\n"
                     "        raise RuntimeError('strict')\n"),
            (std::vector<std::string>{
                // parse(f) may be the one that raised: the block is named.
                "raised when the `try` block raised `ValueError`",
                // An earlier try is named by its line: two blocks, not one
                // that raised and did not.
                "raised when the `try` block at line 2 raised no `ValueError` and the `try` "
                "block raised `KeyError`",
                "raised when the `try` block at line 2 raised no `ValueError` and the `try` "
                "block at line 7 raised no `KeyError` and `(ok and strict)`"}));
}

// A try whose body always leaves is got past only through a handler that
// falls through: what follows needs the tried code to have raised one of
// those handlers' types, not to have run to its end.
TEST(PythonGuards, PastATryWhoseBodyLeavesOnlyAHandlerLetsControlThrough) {
  EXPECT_EQ(Triggers("def is_fp_closed(obj):\n"
                     "    try:\n"
                     "        return obj.isclosed()\n"
                     "    except AttributeError:\n"
                     "        pass\n"
                     "    try:\n"
                     "        x = obj.fp\n"
                     "        return x is None\n"
                     "    except (KeyError, AttributeError):\n"
                     "        pass\n"
                     "    except TypeError:\n"
                     "        raise\n"
                     "    except:\n"
                     "        pass\n"
                     "    raise ValueError('Unable to determine whether fp is closed.')\n"),
            (std::vector<std::string>{
                "raised when `obj.isclosed()` (line 2) raised `AttributeError` and the `try` "
                "block at line 6 raised an exception"}));
  // A body that may run to its end: nothing is said of the handler.
  EXPECT_EQ(Triggers("def f(x):\n"
                     "    try:\n"
                     "        y = int(x)\n"
                     "    except ValueError:\n"
                     "        pass\n"
                     "    raise KeyError('past a try that may end')\n"),
            (std::vector<std::string>{""}));
}

// An if whose body ends by leaving is got past only when its test fails,
// whatever loop or try comes before the return or continue in it.
TEST(PythonGuards, AnIfWhoseBodyEndsByLeavingIsGotPastWhenItsTestFails) {
  EXPECT_EQ(Triggers("def f(globs, parms):\n"
                     "    if isinstance(globs, list):\n"
                     "        for g in globs:\n"
                     "            use(g)\n"
                     "        return globs\n"
                     "    for parm in parms:\n"
                     "        if parm.startswith('TZID='):\n"
                     "            try:\n"
                     "                tz(parm)\n"
                     "            except KeyError:\n"
                     "                pass\n"
                     "            continue\n"
                     "        raise ValueError('unsupported parm')\n"),
            (std::vector<std::string>{"raised when `globs` is not an instance of `list` and "
                                      "iterating `for parm in parms` and not "
                                      "`parm.startswith('TZID=')`"}));
}

TEST(PythonGuards, ALongConditionIsCutWhereANameEnds) {
  std::string cond = "obj";
  for (int i = 0; i < 30; ++i) cond += ".attribute_number_" + std::to_string(i);
  cond += " is None";
  std::vector<std::string> t =
      Triggers("def f(obj):\n    if " + cond + ":\n        raise ValueError('x')\n");
  ASSERT_EQ(t.size(), 1u);
  const std::string lead = "raised when `";
  ASSERT_EQ(t[0].rfind(lead, 0), 0u) << t[0];
  size_t end = t[0].find(" \u2026`");
  ASSERT_NE(end, std::string::npos) << t[0];
  std::string shown = t[0].substr(lead.size(), end - lead.size());
  ASSERT_EQ(cond.rfind(shown, 0), 0u) << shown;
  EXPECT_NE(std::string(" .,([").find(cond[shown.size()]), std::string::npos) << shown;
}

TEST(PythonGuards, ALongConditionIsNotCutInsideAString) {
  std::string cond = "mode == '";
  for (int i = 0; i < 100; ++i) cond += "word" + std::to_string(i) + " ";
  cond += "'";
  std::vector<std::string> t =
      Triggers("def f(mode):\n    if " + cond + ":\n        raise ValueError('x')\n");
  ASSERT_EQ(t.size(), 1u);
  size_t end = t[0].find(" \u2026`");
  ASSERT_NE(end, std::string::npos) << t[0];
  std::string shown = t[0].substr(0, end);
  EXPECT_EQ(std::count(shown.begin(), shown.end(), '\''),
            2 * (std::count(shown.begin(), shown.end(), '\'') / 2))
      << shown;
}

TEST(PythonGuards, WildcardAfterAGuardedCaseListsNoValues) {
  // A guarded case lets its pattern through to `_`: "add" is refused only
  // with is_signed set, so no list of refused values is true.
  EXPECT_EQ(Triggers("def f(op, is_signed):\n"
                     "    match op:\n"
                     "        case 'min' if is_signed is None:\n"
                     "            return 1\n"
                     "        case 'add':\n"
                     "            return 2\n"
                     "        case _:\n"
                     "            raise ValueError(f'Unsupported op: {op}')\n"),
            (std::vector<std::string>{"raised when `op` matches no case"}));
}

TEST(PythonGuards, CasesSayWhatTheirValueMeans) {
  Extraction x = ExtractPythonSource("m.py",
                                     "def op(name):\n"
                                     "    match name:\n"
                                     "        case 'min':\n"
                                     "            return Reduce.MIN\n"
                                     "        case 'add' | 'sum':\n"
                                     "            kind = ops.Reduce.ADD\n"
                                     "        case 'xor':\n"
                                     "            return 3\n"
                                     "        case _:\n"
                                     "            raise ValueError(f'Unsupported op: {name}')\n");
  ASSERT_EQ(x.sites.size(), 1u);
  EXPECT_EQ(x.sites[0].guards[0].meanings, (std::vector<std::string>{"MIN", "ADD", ""}));
  EXPECT_EQ(x.sites[0].trigger,
            "raised when `name` matches no case (valid: `'min'` → `MIN`, `'add' | 'sum'` → `ADD`, "
            "`'xor'`)");
}

TEST(PythonGuards, RaiseAfterAMatchWhoseCasesAllReturn) {
  // The seed's TMEMLayout.to_mgpu: reached only by a member no case lists.
  Extraction x = ExtractPythonSource("m.py",
                                     "class TMEMLayout(enum.Enum):\n"
                                     "  def to_mgpu(self):\n"
                                     "    match self:\n"
                                     "      case TMEMLayout.D:\n"
                                     "        return 1\n"
                                     "      case TMEMLayout.M | TMEMLayout.N:\n"
                                     "        return 2\n"
                                     "    raise ValueError(f'Invalid TMEMLayout: {self}')\n");
  ASSERT_EQ(x.sites.size(), 1u);
  ASSERT_EQ(x.sites[0].guards.size(), 1u);
  EXPECT_EQ(x.sites[0].guards[0].kind, "default-case");
  EXPECT_EQ(x.sites[0].guards[0].values,
            (std::vector<std::string>{"TMEMLayout.D", "TMEMLayout.M | TMEMLayout.N"}));
  EXPECT_EQ(x.sites[0].trigger,
            "raised when `self` matches no case (valid: `TMEMLayout.D`, `TMEMLayout.M | "
            "TMEMLayout.N`)");
  // Every case names a member of one enum: reaching the raise means a member
  // was added since, or versions are mixed.
  EXPECT_TRUE(x.sites[0].internal);
  // Cases that are plain values say nothing of the kind.
  Extraction plain = ExtractPythonSource("m.py",
                                         "def f(n):\n"
                                         "    match n:\n"
                                         "        case 0:\n"
                                         "            return 'a'\n"
                                         "        case 1:\n"
                                         "            return 'b'\n"
                                         "    raise ValueError(n)\n"
                                         "def g():\n"
                                         "    raise AssertionError('unreachable')\n");
  ASSERT_EQ(plain.sites.size(), 2u);
  EXPECT_FALSE(plain.sites[0].internal);
  EXPECT_TRUE(plain.sites[1].internal) << "raise AssertionError is an assertion";
}

TEST(PythonGuards, ValidValuesFromSetsAndTypes) {
  EXPECT_EQ(Triggers("def f(mode, x):\n"
                     "    if mode not in ('fast', 'exact'):\n"
                     "        raise ValueError(f'Unknown mode {mode}')\n"
                     "    if not isinstance(x, (int, float)):\n"
                     "        raise TypeError('x must be a number')\n"
                     "    if x in {1, 2}:\n"
                     "        pass\n"
                     "    else:\n"
                     "        raise ValueError('x must be 1 or 2')\n"),
            (std::vector<std::string>{
                "raised when `mode not in ('fast', 'exact')` (valid: `'fast'`, `'exact'`)",
                "raised when `mode in ('fast', 'exact')` and `x` is not an instance of "
                "`(int, float)`",
                "raised when `mode in ('fast', 'exact')` and `x` is an instance of `(int, float)` "
                "and `x not in {1, 2}` (valid: `1`, `2`)"}));
}

// A parameter converted before its test is not what the caller passed: no
// list of what it takes. Its own method's result (`m = m.lower()`), a
// literal put in its place (an alias's canonical name) or a default is.
TEST(PythonGuards, NoValidValuesOfANameBoundAgainBeforeItsTest) {
  // A binding in an arm that leaves, or in another arm, is not on the way
  // to the test.
  const std::string elsewhere =
      "def g(ax, d):\n"
      "    if ax is None:\n"
      "        ax = frames[0].x\n"
      "        return ax\n"
      "    if not isinstance(ax, Vector):\n"
      "        raise TypeError('Axis must be a Vector.')\n"
      "    if d is None:\n"
      "        d = {}\n"
      "    elif not isinstance(d, dict):\n"
      "        raise TypeError('expecting d to be a dict')\n";
  EXPECT_EQ(Triggers("def f(expr, method, m):\n"
                     "    expr = sympify(expr)\n"
                     "    if not isinstance(expr, Basic):\n"
                     "        raise TypeError('cannot represent it')\n"
                     "    method = method.lower()\n"
                     "    if method == 'det_lu':\n"
                     "        method = 'lu'\n"
                     "    m = int(m)\n"
                     "    if method not in ('bareiss', 'lu'):\n"
                     "        raise ValueError(f'unknown method {method}')\n"
                     "    if m not in (0, 1):\n"
                     "        raise ValueError(f'unknown mode {m}')\n" +
                     elsewhere),
            (std::vector<std::string>{
                "raised when `expr` is not an instance of `Basic`",
                "raised when `expr` is an instance of `Basic` and `method not in ('bareiss', "
                "'lu')` (valid: `'bareiss'`, `'lu'`)",
                "raised when `expr` is an instance of `Basic` and `method in ('bareiss', 'lu')` "
                "and `m not in (0, 1)`",
                "raised when `ax is not None` and `ax` is not an instance of `Vector`",
                "raised when `ax is not None` and `ax` is an instance of `Vector` and `d is not "
                "None` and `d` is not an instance of `dict`"}));
  Extraction x = ExtractPythonSource("m.py", elsewhere);
  ASSERT_EQ(x.sites.size(), 2u);
  EXPECT_EQ(x.sites[0].guards.back().values, std::vector<std::string>{"Vector"});
  EXPECT_EQ(x.sites[1].guards.back().values, std::vector<std::string>{"dict"});
  // A default filled in for None leaves what a caller passes as it is.
  Extraction filled =
      ExtractPythonSource("m.py",
                          "def h(walk_type=None):\n"
                          "    if walk_type is None:\n"
                          "        walk_type = 'random'\n"
                          "    if walk_type not in ('random', 'lazy'):\n"
                          "        raise ValueError('walk_type must be random or lazy')\n"
                          "def k(mode):\n"
                          "    mode = mode.lower()\n"
                          "    if mode not in ('r', 'w'):\n"
                          "        raise ValueError('bad mode')\n");
  ASSERT_EQ(filled.sites.size(), 2u);
  EXPECT_EQ(filled.sites[0].guards.back().values, (std::vector<std::string>{"'random'", "'lazy'"}));
  // Its own method's result is still the caller's value.
  EXPECT_EQ(filled.sites[1].guards.back().values, (std::vector<std::string>{"'r'", "'w'"}));
}

TEST(PythonGuards, GuardsRecordKindCodeAndLine) {
  Extraction x = ExtractPythonSource("m.py",
                                     "def f(a):\n"
                                     "    if not a:\n"
                                     "        raise ValueError('x')\n"
                                     "    raise TypeError('y')\n");
  ASSERT_EQ(x.sites.size(), 2u);
  ASSERT_EQ(x.sites[0].guards.size(), 1u);
  EXPECT_EQ(x.sites[0].guards[0].kind, "if");
  EXPECT_EQ(x.sites[0].guards[0].code, "not a");
  EXPECT_FALSE(x.sites[0].guards[0].negated);
  EXPECT_EQ(x.sites[0].guards[0].line, 2);
  EXPECT_EQ(x.sites[0].trigger, "raised when not `a`");
  // The first raise is an early exit for the second: it needs `not a` false.
  ASSERT_EQ(x.sites[1].guards.size(), 1u);
  EXPECT_EQ(x.sites[1].guards[0].kind, "early-exit");
  EXPECT_TRUE(x.sites[1].guards[0].negated);
  EXPECT_EQ(x.sites[1].trigger, "raised when `a`");
}

TEST(PythonGuards, AssertsAndModuleLevel) {
  EXPECT_EQ(Triggers("import sys\n"
                     "if sys.version_info < (3, 8):\n"
                     "    raise ImportError('too old')\n"
                     "def f(n):\n"
                     "    assert n > 0 or n is None, 'n must be positive'\n"
                     "def g(kind):\n"
                     "    if kind == 'x':\n"
                     "        assert False, 'Cannot infer the keyword'\n"),
            (std::vector<std::string>{"raised when `sys.version_info < (3, 8)`",
                                      "raised when `not n > 0 and n is not None`",
                                      // An assert of False fails wherever it is reached.
                                      "raised when `kind == 'x'`"}));
}

TEST(PythonGuards, ValidValuesFromAModuleConstant) {
  EXPECT_EQ(Triggers("_MODES = frozenset({'fast', 'exact'})\n"
                     "_KINDS = ('a', 'b')\n"
                     "_TWICE = ('x',)\n"
                     "_TWICE = ('y',)\n"
                     "def f(mode, kind, t):\n"
                     "    if mode not in _MODES:\n"
                     "        raise ValueError(f'Unknown mode {mode}')\n"
                     "    if kind in _KINDS:\n"
                     "        return\n"
                     "    if t not in _TWICE:\n"
                     "        raise ValueError('t')\n"),
            (std::vector<std::string>{
                "raised when `mode not in _MODES` (valid: `'fast'`, `'exact'`)",
                // Assigned twice: which value holds is not known.
                "raised when `mode in _MODES` and `kind not in _KINDS` (valid: `'a'`, `'b'`) and "
                "`t not in _TWICE`"}));
}

// A raise in a for loop's else happens only once the loop has run to its
// end: it was said to be unguarded.
TEST(PythonGuards, AForElseRaisesOnlyAfterTheLoopRanToItsEnd) {
  EXPECT_EQ(Triggers("def load(search_path, target):\n"
                     "    for prefix in search_path:\n"
                     "        try:\n"
                     "            return __import__(prefix + target)\n"
                     "        except ImportError:\n"
                     "            pass\n"
                     "    else:\n"
                     "        raise ImportError('The package is required')\n"),
            (std::vector<std::string>{
                "raised when the loop `for prefix in search_path` ran to its end"}));
}

// A raise its own try catches, in a handler that raises nothing, never
// reaches a caller: no site, and the statement is counted as caught-here.
TEST(PythonGuards, ARaiseItsOwnTryCatchesIsNoSite) {
  Extraction x = ExtractPythonSource("m.py",
                                     "def a(cls):\n"
                                     "    try:\n"
                                     "        if cls is None:\n"
                                     "            raise AttributeError('caught')\n"
                                     "    except AttributeError:\n"
                                     "        return None\n"
                                     "def b(v):\n"
                                     "    try:\n"
                                     "        raise ValueError('broad')\n"
                                     "    except Exception:\n"
                                     "        pass\n"
                                     "def c(v):\n"
                                     "    try:\n"
                                     "        raise ValueError('logged and raised again')\n"
                                     "    except ValueError:\n"
                                     "        log(v)\n"
                                     "        raise\n"
                                     "def d(v):\n"
                                     "    try:\n"
                                     "        raise SystemExit('exits')\n"
                                     "    except Exception:\n"
                                     "        pass\n"
                                     "def e(v):\n"
                                     "    try:\n"
                                     "        raise KeyError('other type')\n"
                                     "    except ValueError:\n"
                                     "        pass\n"
                                     "def f(v):\n"
                                     "    try:\n"
                                     "        def inner():\n"
                                     "            raise ValueError('later, elsewhere')\n"
                                     "        return inner\n"
                                     "    except ValueError:\n"
                                     "        pass\n");
  std::vector<std::string> texts;
  for (const Site& s : x.sites) texts.push_back(s.message.Display());
  EXPECT_EQ(texts, (std::vector<std::string>{"logged and raised again", "exits", "'other type'",
                                             "later, elsewhere"}));
  size_t caught = std::count_if(x.non_sites.begin(), x.non_sites.end(),
                                [](const NonSite& n) { return n.reason == "caught-here"; });
  EXPECT_EQ(caught, 2u);
}

TEST(PythonGuards, NotImplementedInABaseClassIsInternal) {
  Extraction x = ExtractPythonSource(
      "m.py",
      "class Base:\n"
      "    def run(self):\n"
      "        \"\"\"Subclasses say how.\"\"\"\n"
      "        raise NotImplementedError\n"
      "    @property\n"
      "    def name(self):\n"
      "        raise NotImplementedError('name')\n"
      "    def maybe(self, x):\n"
      "        if x:\n"
      "            return 1\n"
      "        raise NotImplementedError('only truthy x')\n"
      "def free():\n"
      "    raise NotImplementedError\n"
      "class Sorted:\n"
      "    def reverse(self):\n"
      "        raise NotImplementedError('use ``reversed(sl)`` instead')\n"
      "    def _represent_XOp(self, basis):\n"
      "        raise NotImplementedError('Position representation "
      "is not implemented')\n"
      "    def step(self):\n"
      "        raise NotImplementedError(f'{type(self).__name__} must "
      "override step')\n"
      "    def size(self):\n"
      "        raise NotImplementedError(type(self).__name__)\n"
      "    def more(self):\n"
      "        raise NotImplementedError('Not implemented.')\n"
      "    def setup(self):\n"
      "        raise NotImplementedError('This method must be implemented!')\n");
  ASSERT_EQ(x.sites.size(), 10u);
  EXPECT_TRUE(x.sites[0].internal);
  EXPECT_TRUE(x.sites[1].internal);
  EXPECT_FALSE(x.sites[2].internal) << "a feature this method leaves out, not a placeholder";
  EXPECT_FALSE(x.sites[3].internal) << "not a method";
  // Words that refuse the call, and tell the caller what to do instead or
  // what is not supported, are the library's answer, not a placeholder.
  EXPECT_FALSE(x.sites[4].internal) << x.sites[4].message.Display();
  EXPECT_FALSE(x.sites[5].internal) << x.sites[5].message.Display();
  // Words that ask a subclass, names alone, or words that name nothing.
  EXPECT_TRUE(x.sites[6].internal);
  EXPECT_TRUE(x.sites[7].internal);
  EXPECT_TRUE(x.sites[8].internal);
  EXPECT_TRUE(x.sites[9].internal);
}

}  // namespace
}  // namespace errdex::extract
