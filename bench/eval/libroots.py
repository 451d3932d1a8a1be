"""The libraries of the local interpreter, each with its source root and the
name the catalog knows it by: the standard library (python/cpython), and
every top-level package or module of site-packages as its own library
(pypi/<top-level name>; its root is the package directory, or the module
file for a single-module package). Shared by build_catalog.py,
exec_cases.py and run_eval.py so the three agree on names and roots."""
import os
import sys
import sysconfig

STDLIB_NAME = "python/cpython"
# Never indexed, never a case: tests (not raised for users) and caches.
EXCLUDE = ("site-packages", "dist-packages", "test", "tests", "idle_test", "__pycache__")
SKIP_TOP = {"__pycache__", "_distutils_hack"}


def stdlib_root():
    return os.path.realpath(sysconfig.get_paths()["stdlib"])


def site_root():
    return os.path.realpath(sysconfig.get_paths()["purelib"])


def libraries():
    """[(name, root, kind)] sorted by name; kind is "dir" or "file"."""
    libs = [(STDLIB_NAME, stdlib_root(), "dir")]
    site = site_root()
    for entry in sorted(os.listdir(site)):
        path = os.path.join(site, entry)
        if entry in SKIP_TOP or entry.endswith((".dist-info", ".egg-info", ".pth")):
            continue
        if os.path.isdir(path) and os.path.isfile(os.path.join(path, "__init__.py")):
            libs.append(("pypi/" + entry, os.path.realpath(path), "dir"))
        elif entry.endswith(".py") and os.path.isfile(path):
            libs.append(("pypi/" + entry[:-3], os.path.realpath(path), "file"))
    return sorted(libs)


class Locator:
    """Which library a source path belongs to: (name, path relative to the
    library's root) or None. A single-module library's relative path is its
    file name (as `errdex index FILE` stores it)."""

    def __init__(self, libs=None):
        self.libs = libs if libs is not None else libraries()
        self.files = {root: name for name, root, kind in self.libs if kind == "file"}
        self.dirs = sorted(((root, name) for name, root, kind in self.libs if kind == "dir"),
                           key=lambda x: -len(x[0]))
        self.cache = {}

    def abspath(self, path):
        """The file behind a traceback path (a frozen stdlib module's
        source, `<frozen posixpath>`, is the stdlib's posixpath.py)."""
        if path.startswith("<frozen ") and path.endswith(">"):
            name = path[len("<frozen "):-1].replace(".", os.sep)
            root = stdlib_root()
            for candidate in (name + ".py", os.path.join(name, "__init__.py")):
                if os.path.isfile(os.path.join(root, candidate)):
                    return os.path.join(root, candidate)
            return path
        return os.path.realpath(path) if path and not path.startswith("<") else path

    def locate(self, path):
        if path in self.cache:
            return self.cache[path]
        result = None
        real = self.abspath(path) if path else None
        if real and real.startswith("<"):
            real = None
        if real and real.endswith(".py"):
            if real in self.files:
                result = (self.files[real], os.path.basename(real))
            else:
                for root, name in self.dirs:
                    if real.startswith(root + os.sep):
                        rel = os.path.relpath(real, root)
                        parts = rel.split(os.sep)
                        if not any(p in EXCLUDE for p in parts[:-1]):
                            result = (name, rel)
                        break
        self.cache[path] = result
        return result


if __name__ == "__main__":
    for name, root, kind in libraries():
        print(name, root, kind, file=sys.stdout)
