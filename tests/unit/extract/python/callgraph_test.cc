// Entry points: the public functions of a library whose calls reach a raise,
// through imports (absolute, relative, module attributes), aliases and
// functools.partial, self and inherited methods, constructors.
#include "extract/python/py_callgraph.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "extract/extractor.h"
#include "source/walk.h"
#include "test_util.h"

namespace errdex::extract::python {
namespace {

using nlohmann::json;
using testing::TempDir;

std::map<std::string, json> EntriesByMessage(const TempDir& dir) {
  source::WalkOptions walk;
  walk.want = IsSourcePath;
  Result<source::WalkResult> files = source::Walk(dir.path(), walk);
  EXPECT_TRUE(files.has_value());
  Options options;
  options.jobs = 2;
  Extraction x = ExtractFiles(files->files, options);
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
    return _impl.helper(data, mode)

fast = functools.partial(run, mode="a")

def _private(mode):
    return helper(1, mode=mode)

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
  ASSERT_EQ(mode.size(), 3u) << mode.dump(1);
  EXPECT_EQ(mode[0]["name"], "pkg.api.helper");
  EXPECT_EQ(mode[0]["kind"], "function");
  EXPECT_EQ(mode[0]["via"], json::array());
  EXPECT_EQ(mode[0]["args"], json({{"mode", "mode"}}));
  EXPECT_EQ(mode[0]["path"], "pkg/_impl.py");
  EXPECT_EQ(mode[0]["line"], 6);
  // A local `checked = jit(f, ...)`: calling it calls f.
  EXPECT_EQ(mode[1]["name"], "pkg.api.jitted_check");
  EXPECT_EQ(mode[1]["args"], json({{"mode", "mode"}}));
  // Exported by the package under its own name, not the partial's.
  EXPECT_EQ(mode[2]["name"], "pkg.run");
  EXPECT_EQ(mode[2]["via"], json::array({"helper"}));
  EXPECT_EQ(mode[2]["args"], json({{"mode", "mode"}}));

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

  // Called from tests only, or through cycles of names: no entry point.
  EXPECT_EQ(entries["nobody calls me"], json::array());
  EXPECT_EQ(entries["cycle"], json::array());
}

TEST(CallGraph, ModuleNames) {
  EXPECT_EQ(ModuleName("pkg/sub/__init__.py"), "pkg.sub");
  EXPECT_EQ(ModuleName("src/pkg/mod.py"), "pkg.mod");
  EXPECT_EQ(ModuleName("json/decoder.py"), "json.decoder");
  EXPECT_EQ(ModuleName("__init__.py"), "");
}

}  // namespace
}  // namespace errdex::extract::python
