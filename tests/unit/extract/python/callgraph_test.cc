// Entry points: the public functions of a library whose calls reach a raise,
// through imports (absolute, relative, module attributes), aliases and
// functools.partial, self and inherited methods, constructors.
#include "extract/python/py_callgraph.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace errdex::extract::python {
namespace {

using nlohmann::json;
using testing::TempDir;

std::map<std::string, json> EntriesByMessage(const TempDir& dir) {
  Extraction x = testing::ExtractTree(dir.path());
  std::map<std::string, json> out;
  for (const Site& s : x.sites) {
    out[s.message.Display()] = s.entries.empty() ? json::array() : json::parse(s.entries);
  }
  return out;
}

void WritePackage(const TempDir& dir) {
  dir.Write("pkg/_impl.py", R"py(
def _check(mode):
    if mode not in ("a", "b"):
        raise ValueError("bad mode")

def helper(x, mode="a"):
    return _check(mode)

class Base:
    def validate(self, level):
        if level > 3:
            raise ValueError("level too high")

class Spec(Base):
    def __init__(self, level, name=None):
        self.validate(level)

class P(tuple):
    def __new__(cls, *parts, reduced=()):
        return _canonical(reduced)

PartitionSpec = P

def _canonical(reduced):
    if not isinstance(reduced, tuple):
        raise TypeError("reduced must be a tuple")

def unreached():
    raise RuntimeError("nobody calls me")

def _by_object(obj):
    obj.validate(5)
)py");
  dir.Write("pkg/api.py", R"py(
import functools
from . import _impl
from ._impl import helper as helper, Spec
# Imported for its own use, not exported: a module is no package __init__.
from ._impl import Base

def run(data, *, mode):
    _private(data, mode=mode)
    return _impl.helper(data, mode)

fast = functools.partial(run, mode="a")

def _private(data, mode):
    return _deeper(mode)

def _deeper(mode):
    if mode == "deep":
        raise ValueError("deep mode")

def jitted_check(mode):
    checked = jit(_impl._check, static_argnums=0)
    return checked(mode)
)py");
  dir.Write("pkg/__init__.py", R"py(
from .api import run as run, fast
from ._impl import Spec, PartitionSpec
__all__ = ["run", "Spec", "fast", "PartitionSpec"]
)py");
  dir.Write("tests/test_api.py", R"py(
from pkg._impl import unreached

def test_unreached():
    unreached()
)py");
  // jax-style primitives: rules registered under a key object run when a
  // method of the key is called.
  dir.Write("pkg/_prims.py", R"py(
from functools import partial
from ._registry import register_lowering, register_rule, batchers

class Primitive:
    def __init__(self, name):
        self.name = name

foo_p = Primitive("foo")
bar_p = Primitive("bar")
unused_p = Primitive("unused")

def _foo_lowering(ctx, x):
    if x < 0:
        raise ValueError("negative foo")

register_lowering(foo_p, _foo_lowering)

@register_rule(bar_p, "tpu")
def _bar_rule(x):
    raise ValueError("bar rule")

def _bar_impl(x):
    raise ValueError("bar impl")

bar_p.def_impl(_bar_impl)

def _bar_batch(axis, x):
    raise ValueError("bar batch")

batchers[bar_p] = partial(_bar_batch, 0)

def _never(x):
    raise ValueError("never registered")

def _rules():
    def local_rule(x):
        raise ValueError("local rule")
    register_lowering(unused_p, local_rule)
)py");
  dir.Write("pkg/prims.py", R"py(
from . import _prims
from ._prims import bar_p

def foo(x):
    return _prims.foo_p.bind(x)

def bar(x):
    return bar_p.bind(x)

def unused(x):
    # A method of a key nothing is registered under, and a name that is
    # no key at all: no edges.
    return _prims.unused_p.name, x.bind(1)

def make(n):
    def inner(x):
        if x > n:
            raise ValueError("inner too big")
    return inner
)py");
  dir.Write("pkg/_cycle.py", R"py(
from ._cycle import a as b
a = b
x = y
y = x

def f():
    x()
    b()
    raise ValueError("cycle")
)py");
}

TEST(CallGraph, PublicFunctionsReachingARaiseShortestFirst) {
  TempDir dir;
  WritePackage(dir);
  std::map<std::string, json> entries = EntriesByMessage(dir);

  const json& mode = entries["bad mode"];
  ASSERT_EQ(mode.size(), 2u) << mode.dump(1);
  EXPECT_EQ(mode[0]["name"], "pkg.api.helper");
  EXPECT_EQ(mode[0]["kind"], "function");
  EXPECT_EQ(mode[0]["via"], json::array());
  EXPECT_EQ(mode[0]["args"], json({{"mode", "mode"}}));
  EXPECT_EQ(mode[0]["path"], "pkg/_impl.py");
  EXPECT_EQ(mode[0]["line"], 6);
  // A local `checked = jit(f, ...)`: calling it calls f.
  EXPECT_EQ(mode[1]["name"], "pkg.api.jitted_check");
  EXPECT_EQ(mode[1]["args"], json({{"mode", "mode"}}));
  // pkg.run calls pkg.api.helper, shown already: no entry of its own.

  // Exported by the package under its own name, not the partial's; the
  // value passed down unchanged through a private chain.
  const json& deep = entries["deep mode"];
  ASSERT_EQ(deep.size(), 1u) << deep.dump(1);
  EXPECT_EQ(deep[0]["name"], "pkg.run");
  EXPECT_EQ(deep[0]["via"], json::array({"_private"}));
  EXPECT_EQ(deep[0]["args"], json({{"mode", "mode"}}));

  // An inherited method through self, from the constructor of a public
  // class; Base, imported by pkg.api for its own use, is not public.
  const json& level = entries["level too high"];
  ASSERT_EQ(level.size(), 1u) << level.dump(1);
  EXPECT_EQ(level[0]["name"], "pkg.Spec");
  EXPECT_EQ(level[0]["kind"], "class");
  EXPECT_EQ(level[0]["args"], json({{"level", "level"}}));

  // A class whose constructor is __new__, exported under an alias.
  const json& reduced = entries["reduced must be a tuple"];
  ASSERT_EQ(reduced.size(), 1u) << reduced.dump(1);
  EXPECT_EQ(reduced[0]["name"], "pkg.PartitionSpec");
  EXPECT_EQ(reduced[0]["kind"], "class");
  EXPECT_EQ(reduced[0]["args"], json({{"reduced", "reduced"}}));

  // Rules registered under a key, by call, decorator, def_ method and
  // table, run by whoever calls a method of the key.
  for (const char* m : {"negative foo", "bar rule", "bar impl", "bar batch"}) {
    const json& e = entries[m];
    ASSERT_EQ(e.size(), 1u) << m << e.dump(1);
    EXPECT_EQ(e[0]["name"], std::string(m).find("foo") != std::string::npos ? "pkg.prims.foo"
                                                                             : "pkg.prims.bar")
        << m;
    EXPECT_EQ(e[0]["via"], json::array()) << m;
  }
  // A function defined in another runs only after its definer did; its
  // registration under a key whose methods nobody calls is no edge.
  EXPECT_EQ(entries["never registered"], json::array());
  EXPECT_EQ(entries["local rule"], json::array());
  const json& inner = entries["inner too big"];
  ASSERT_EQ(inner.size(), 1u) << inner.dump(1);
  EXPECT_EQ(inner[0]["name"], "pkg.prims.make");

  // Called from tests only, or through cycles of names: no entry point.
  EXPECT_EQ(entries["nobody calls me"], json::array());
  EXPECT_EQ(entries["cycle"], json::array());
}

// C++ under Python: a binding's lambda or bound function, the C++ it calls
// by an unambiguous name, helper functions that make bindings on a module
// they are handed, and the Python that imports the extension module.
// "args" are the parameters passed down all the way: one the site's
// function replaces before the site with a value not made from it
// (jinja2's `if log_function is None: log_function = default`) is not
// what the entry's caller passed, though the entry still reaches the site.
// A conversion of the value itself (wsgiref's `status =
// self._convert_string_type(status, ...)`) carries it, and so does a
// replacement after the site.
TEST(CallGraph, AParameterReplacedBeforeTheSiteIsNotPassedDown) {
  TempDir dir;
  dir.Write("pkg/__init__.py", R"py(
def log(fn=None, level=0):
    if fn is None:
        fn = print
    if level > 3:
        raise ValueError("level too high")
    assert callable(fn), "fn must be callable"

def close(fds):
    fds = list(fds) + [9]
    if not fds:
        raise ValueError("no fds")
    if fds[0] < 0:
        raise ValueError("negative fd")

def pick(name, default=None):
    if default is None:
        default = name
    default = "x"
    if not default:
        raise ValueError("no default")

def later(x):
    if x < 0:
        raise ValueError("x is negative")
    x = abs(x)
    return x
)py");
  std::map<std::string, json> entries = EntriesByMessage(dir);
  for (const char* text : {"level too high", "fn must be callable"}) {
    ASSERT_EQ(entries[text].size(), 1u) << text;
    EXPECT_EQ(entries[text][0]["name"], "pkg.log") << text;
    EXPECT_EQ(entries[text][0]["args"], json({{"level", "level"}})) << text;
  }
  for (const char* text : {"no fds", "negative fd"}) {
    ASSERT_EQ(entries[text].size(), 1u) << text;
    EXPECT_EQ(entries[text][0]["args"], json({{"fds", "fds"}})) << text;
  }
  ASSERT_EQ(entries["no default"].size(), 1u);
  EXPECT_EQ(entries["no default"][0]["args"], json({{"name", "name"}}));
  ASSERT_EQ(entries["x is negative"].size(), 1u);
  EXPECT_EQ(entries["x is negative"][0]["args"], json({{"x", "x"}}));
}

TEST(CallGraph, NativeBindingsAndCalls) {
  TempDir dir;
  dir.Write("lib/_ext.cc", R"cc(
#include <stdexcept>
namespace lib {
static void CheckStage(int stage) {
  if (stage > 1) throw std::runtime_error("stage too high");
}
void Compile(int level) {
  if (level < 0) throw std::invalid_argument("negative level");
}
void Overloaded(int) { throw std::runtime_error("overload int"); }
void Overloaded(double) { throw std::runtime_error("overload double"); }
struct Client {
  void Run() { Prepare(); }
  void Prepare() { throw std::runtime_error("prepare failed"); }
};
void BuildSub(nb::module_& m) {
  m.def("compile", &Compile, nb::arg("level"));
  m.def("overloaded", [](int x) { Overloaded(x); });
  m.def("run", []() { Client c; c.Run(); });
}
}  // namespace lib
NB_MODULE(_ext, m) {
  m.def("set_stage", [](int stage) {
    lib::CheckStage(stage);
    switch (stage) { default: throw std::runtime_error("bad stage"); }
  }, nb::arg("stage"));
  lib::BuildSub(m);
}
)cc");
  dir.Write("lib/__init__.py", R"py(
from lib import _ext

def set_stage(stage):
    _ext.set_stage(stage)

def compile(level):
    return _ext.compile(level)

def overloaded(x):
    return _ext.overloaded(x)
)py");
  std::map<std::string, json> entries = EntriesByMessage(dir);
  const json& bad = entries["bad stage"];
  ASSERT_EQ(bad.size(), 1u) << bad.dump(1);
  EXPECT_EQ(bad[0]["name"], "lib.set_stage");
  EXPECT_EQ(bad[0]["via"], json::array());
  EXPECT_EQ(bad[0]["args"], json({{"stage", "stage"}}));
  // A static function called by its qualified name from the bound lambda.
  const json& high = entries["stage too high"];
  ASSERT_EQ(high.size(), 1u) << high.dump(1);
  EXPECT_EQ(high[0]["name"], "lib.set_stage");
  // Bound by reference in a helper handed the module by NB_MODULE.
  const json& level = entries["negative level"];
  ASSERT_EQ(level.size(), 1u) << level.dump(1);
  EXPECT_EQ(level[0]["name"], "lib.compile");
  EXPECT_EQ(level[0]["via"], json::array());
  // Two functions of one name: no edge. A method called on an object of a
  // type the graph does not follow: no edge.
  EXPECT_EQ(entries["overload int"], json::array());
  EXPECT_EQ(entries["overload double"], json::array());
  EXPECT_EQ(entries["prepare failed"], json::array());
}

TEST(CallGraph, ModuleNames) {
  EXPECT_EQ(ModuleName("pkg/sub/__init__.py"), "pkg.sub");
  EXPECT_EQ(ModuleName("src/pkg/mod.py"), "pkg.mod");
  EXPECT_EQ(ModuleName("json/decoder.py"), "json.decoder");
  EXPECT_EQ(ModuleName("__init__.py"), "");
}

}  // namespace
}  // namespace errdex::extract::python
