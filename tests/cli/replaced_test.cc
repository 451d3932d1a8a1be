// What errdex says CPython replaces, CPython replaces: the local standard
// library indexed, every site whose guard says a later import rebinds its
// definition (datetime.py's classes, operator.py's functions) must be code
// the imported module no longer holds, by its name or any other global
// (asyncio keeps `_py_get_event_loop = get_event_loop`), and every module
// said to stand in
// for a failed import (_pydecimal for _decimal) must stay unloaded when its
// importer is imported. The reference is the python3 whose library it is.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "test_util.h"

namespace errdex {
namespace {

using nlohmann::json;
using testing::CommandResult;
using testing::RunCommand;
using testing::RunErrdex;
using testing::RunPython;
using testing::TempDir;

// Reads the catalog (argv[1]) of the library at argv[2] and checks each
// claim in the interpreter running it; prints a JSON summary.
constexpr const char* kCheck = R"py(
import importlib, json, os, sqlite3, subprocess, sys, types

db, root = sys.argv[1], os.path.realpath(sys.argv[2])

def module_of(path):
    m = path[:-3].replace("/", ".")
    return m[: -len(".__init__")] if m.endswith(".__init__") else m

def defined_in(obj):
    # The file the Python code of a function, or of a class's methods, is in.
    if isinstance(obj, types.FunctionType):
        return os.path.realpath(obj.__code__.co_filename)
    if isinstance(obj, type):
        for v in vars(obj).values():
            v = getattr(v, "__func__", getattr(v, "fget", v))
            if isinstance(v, types.FunctionType):
                return os.path.realpath(v.__code__.co_filename)
    return None

out = {"replaced": 0, "live": [], "if_defined": 0, "if_defined_live": 0,
       "stands_in": 0, "loaded": [], "unimportable": []}
pairs = set()
for path, guards in sqlite3.connect(db).execute("SELECT path, guards FROM site"):
    for g in json.loads(guards):
        kind = g.get("kind")
        if kind == "stands-in":
            out["stands_in"] += 1
            pairs.add((module_of(g["subject"]), module_of(path)))
        elif kind in ("replaced", "replaced-if-defined"):
            try:
                module = importlib.import_module(module_of(path))
            except Exception:
                out["unimportable"].append(path)
                continue
            here = os.path.join(root, path)
            # The name itself, or any global that still holds the Python
            # definition (`_py_f = f`) or an instance of the class.
            held = [getattr(module, g["subject"], None)]
            for v in list(vars(module).values()):
                held += [v, type(v)]
            live = any(defined_in(v) == here and
                       getattr(v, "__qualname__", "").split(".")[0] == g["subject"]
                       for v in held)
            if kind == "replaced":
                out["replaced"] += 1
                if live:
                    out["live"].append(path + ": " + g["subject"])
            else:
                out["if_defined"] += 1
                out["if_defined_live"] += live
for importer, fallback in sorted(pairs):
    # A fresh interpreter: what this one imported above must not count.
    r = subprocess.run([sys.executable, "-c",
                        f"import sys, {importer}; print({fallback!r} in sys.modules)"],
                       capture_output=True, text=True)
    if r.stdout.strip() != "False":
        out["loaded"].append(f"{fallback} by {importer}: {r.stdout.strip()} {r.stderr[-200:]}")
print(json.dumps(out))
)py";

TEST(ReplacedStdlib, WhatErrdexSaysCPythonReplacesItDoes) {
  CommandResult where =
      RunCommand("python3 -c 'import sysconfig; print(sysconfig.get_paths()[\"stdlib\"])'");
  ASSERT_EQ(where.exit_code, 0) << where.out;
  std::string stdlib = where.out.substr(0, where.out.find('\n'));
  TempDir dir;
  std::string db = (dir.path() / "c.db").string();
  CommandResult index =
      RunErrdex({"index", stdlib, "--name", "python/cpython", "--db", db, "--quiet", "--exclude",
                 "site-packages", "--exclude", "dist-packages", "--exclude", "test"});
  ASSERT_EQ(index.exit_code, 0) << index.out;
  CommandResult check = RunPython(dir.Write("check.py", kCheck), db + " " + stdlib);
  ASSERT_EQ(check.exit_code, 0) << check.out;
  json r = json::parse(check.out);
  // datetime.py's classes alone raise at some seventy sites; _pydecimal.py
  // at over a hundred.
  EXPECT_GT(r["replaced"].get<int>(), 50) << r.dump();
  EXPECT_GT(r["stands_in"].get<int>(), 100) << r.dump();
  EXPECT_EQ(r["live"], json::array()) << r.dump();
  EXPECT_EQ(r["loaded"], json::array()) << r.dump();
  EXPECT_EQ(r["unimportable"], json::array()) << r.dump();
}

}  // namespace
}  // namespace errdex
