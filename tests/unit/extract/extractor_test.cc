// ExtractFiles on trees with every kind of bad input: each is skipped or
// recovered, counted with its reason, and nothing else is lost.
#include "extract/extractor.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "extract/python/py_guards.h"
#include "source/walk.h"
#include "test_util.h"

namespace errdex::extract {
namespace {

using errdex::testing::TempDir;

struct TreeRun {
  Extraction extraction;
  std::map<std::string, std::string> reason_by_path;
};

TreeRun ExtractTree(const TempDir& dir, uint64_t max_size = 5u << 20) {
  source::WalkOptions walk;
  walk.want = IsSourcePath;
  walk.max_file_size = max_size;
  Result<source::WalkResult> files = source::Walk(dir.path(), walk);
  EXPECT_TRUE(files.has_value());
  Options options;
  options.max_file_size = max_size;
  options.jobs = 2;
  TreeRun run;
  run.extraction = ExtractFiles(files->files, options);
  for (const FileIssue& i : files->issues) run.extraction.issues.push_back(i);
  for (const FileIssue& i : run.extraction.issues) run.reason_by_path[i.path] = i.reason;
  return run;
}

bool HasMessage(const Extraction& x, const std::string& display) {
  for (const Site& s : x.sites) {
    if (s.message.Display() == display) return true;
  }
  return false;
}

TEST(ExtractFiles, BadInputsAreSkippedOrRecoveredAndCounted) {
  TempDir dir;
  dir.Write("good.py", "raise ValueError('good file')\n");
  dir.Write("binary.py", "raise ValueError('x')\n\xff\xfe\x81 garbage");
  // Valid UTF-8 but a NUL in it, in each language: not source text.
  const std::string nul("\0", 1);
  dir.Write("nul.py", "raise ValueError('nul " + nul + " in a literal')\n");
  dir.Write("nul.cc", "void f() { throw std::runtime_error(\"nul " + nul + " c\"); }\n");
  dir.Write("nul.rs", "fn f() { panic!(\"nul " + nul + " rust\"); }\n");
  dir.Write("latin1.py", "# -*- coding: latin-1 -*-\nraise ValueError('caf\xe9')\n");
  dir.Write("unknown_codec.py", "# coding: no-such-codec\nraise ValueError('\xe9')\n");
  dir.Write("syntax.py", "def broken(:\nraise ValueError('after the error')\n");
  dir.Write("empty.py", "");
  dir.Write("big.py", "raise ValueError('big')\n" + std::string(2000, '#') + "\n");
  dir.Write("bom.py", "\xEF\xBB\xBFraise ValueError('with bom')\n");
  dir.Write("crlf.py", "def f():\r\n    raise ValueError('crlf')\r\n");
  dir.Write("notes.txt", "raise ValueError('not python')\n");
  ASSERT_EQ(mkfifo((dir.path() / "fifo.py").c_str(), 0600), 0);
  std::filesystem::create_symlink("missing-target.py", dir.path() / "dangling.py");
  std::filesystem::create_directories(dir.path() / "loop");
  std::filesystem::create_directory_symlink("..", dir.path() / "loop" / "up");
  std::filesystem::create_symlink("/etc/hostname", dir.path() / "outside.py");

  TreeRun run = ExtractTree(dir, 1000);
  const Extraction& x = run.extraction;
  EXPECT_TRUE(HasMessage(x, "good file"));
  EXPECT_TRUE(HasMessage(x, "café"));
  EXPECT_TRUE(HasMessage(x, "after the error"));
  EXPECT_TRUE(HasMessage(x, "with bom"));
  EXPECT_TRUE(HasMessage(x, "crlf"));
  EXPECT_FALSE(HasMessage(x, "big"));
  EXPECT_FALSE(HasMessage(x, "not python"));
  EXPECT_EQ(run.reason_by_path["binary.py"], "not-utf8");
  for (const char* nul_file : {"nul.py", "nul.cc", "nul.rs"}) {
    EXPECT_EQ(run.reason_by_path[nul_file], "nul-byte") << nul_file;
  }
  for (const Site& s : x.sites) EXPECT_EQ(s.path.rfind("nul.", 0), std::string::npos) << s.path;
  EXPECT_EQ(run.reason_by_path["unknown_codec.py"], "encoding");
  EXPECT_EQ(run.reason_by_path["syntax.py"], "syntax-error");
  EXPECT_EQ(run.reason_by_path["empty.py"], "empty");
  EXPECT_EQ(run.reason_by_path["big.py"], "too-large");
  EXPECT_EQ(run.reason_by_path["fifo.py"], "not-regular-file");
  EXPECT_EQ(run.reason_by_path["dangling.py"], "unreadable");
  EXPECT_EQ(run.reason_by_path["loop/up"], "symlink-loop");
  EXPECT_EQ(run.reason_by_path["outside.py"], "symlink-outside-root");
  EXPECT_EQ(run.reason_by_path.count("good.py"), 0u);
}

// Generated code: a 20,000-character literal, a format of 2,000
// placeholders, 2,000 raises in one block (each after every earlier one's
// early exit), and names used thousands of times that nothing binds.
TEST(ExtractFiles, HostileFilesAreCutWithANoteNotDropped) {
  TempDir dir;
  dir.Write("normal.py", "def f(m):\n    raise ValueError(f'unknown mode {m!r}')\n");
  std::string literal;
  for (int i = 0; literal.size() < 20'000; ++i) literal += "word" + std::to_string(i) + " ";
  std::string placeholders;
  std::string names;
  for (int i = 0; i < 2000; ++i) {
    placeholders += "%s,";
    names += (i ? ", a" : "a") + std::to_string(i);
  }
  std::string many = "def g(x):\n";
  for (int i = 0; i < 2000; ++i) {
    many += "    if x == " + std::to_string(i) + ":\n        raise KeyError('case " +
            std::to_string(i) + " of %s' % y" + std::to_string(i) + ")\n";
  }
  dir.Write("long.py", "def f(x):\n    raise ValueError('" + literal + "%s' % x)\n");
  dir.Write("chain.py",
            "def f():\n    raise ValueError('" + placeholders + "' % (" + names + "))\n");
  dir.Write("many.py", many);
  TreeRun run = ExtractTree(dir);
  EXPECT_TRUE(HasMessage(run.extraction, "unknown mode {m!r}"));

  std::map<std::string, const Site*> by_path;
  int many_sites = 0;
  size_t most_guards = 0;
  for (const Site& s : run.extraction.sites) {
    by_path[s.path] = &s;
    if (s.path == "many.py") {
      ++many_sites;
      most_guards = std::max(most_guards, s.guards.size());
    }
  }
  ASSERT_TRUE(by_path.count("long.py"));
  EXPECT_EQ(by_path["long.py"]->message.LiteralSize(), literal.size()) << "kept whole";
  EXPECT_FALSE(run.reason_by_path.count("long.py"));

  ASSERT_TRUE(by_path.count("chain.py"));
  const Template& chain = by_path["chain.py"]->message;
  EXPECT_LE(chain.pieces().size(), 256u);
  EXPECT_EQ(chain.pieces().front().text, "a0");
  EXPECT_EQ(chain.pieces().back().kind, ValueKind::kAny) << "the cut end stays open";
  EXPECT_EQ(run.reason_by_path["chain.py"], "long-message");

  EXPECT_EQ(many_sites, 2000) << "every raise kept";
  // A mark that conditions were cut, the nearest early exits, and the
  // raise's own condition; the sentence says the path holds more.
  EXPECT_EQ(most_guards, python::kMaxGuardsPerStep + 2);
  const Site* last = by_path["many.py"];
  ASSERT_GE(last->guards.size(), 2u);
  EXPECT_EQ(last->guards.back().code, "x == 1999");
  EXPECT_EQ(last->guards.front().kind, "cut");
  EXPECT_EQ(last->guards[1].code, "x == " + std::to_string(1999 - python::kMaxGuardsPerStep));
  EXPECT_NE(last->trigger.find("more than"), std::string::npos) << last->trigger;
  EXPECT_EQ(run.reason_by_path["many.py"], "work-budget");
  for (const FileIssue& i : run.extraction.issues) {
    EXPECT_FALSE(i.skipped) << i.path << ": " << i.reason;
    EXPECT_NE(i.path, "normal.py");
  }
}

TEST(ExtractFiles, DirectoryWithoutPythonIsEmptyNotAnError) {
  TempDir dir;
  dir.Write("README.md", "# nothing to see\n");
  dir.Write("src/main.go", "package main\nfunc main() {}\n");  // no front end reads Go yet
  TreeRun run = ExtractTree(dir);
  EXPECT_EQ(run.extraction.files_scanned, 0);
  EXPECT_TRUE(run.extraction.sites.empty());
  EXPECT_TRUE(run.extraction.issues.empty());
}

TEST(ExtractFiles, UnreadableFileIsCounted) {
  TempDir dir;
  dir.Write("secret.py", "raise ValueError('x')\n");
  dir.Write("open.py", "raise ValueError('y')\n");
  std::filesystem::permissions(dir.path() / "secret.py", std::filesystem::perms::none);
  if (geteuid() != 0) {
    TreeRun run = ExtractTree(dir);
    EXPECT_EQ(run.reason_by_path["secret.py"], "unreadable");
    return;
  }
  // root reads any file: check from a child that gave up root.
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
    TreeRun run = ExtractTree(dir);
    bool ok = run.reason_by_path["secret.py"] == "unreadable" && HasMessage(run.extraction, "y") &&
              !HasMessage(run.extraction, "x");
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "exit 1: wrong result, exit 3: could not drop root";
}

TEST(ExtractFiles, ResultsDoNotDependOnThreadCount) {
  TempDir dir;
  for (int i = 0; i < 40; ++i) {
    dir.Write("pkg/m" + std::to_string(i) + ".py",
              "def f(x):\n    raise ValueError(f'module " + std::to_string(i) + " {x}')\n");
  }
  source::WalkOptions walk;
  walk.want = IsSourcePath;
  Result<source::WalkResult> files = source::Walk(dir.path(), walk);
  ASSERT_TRUE(files.has_value());
  auto run = [&](int jobs) {
    Options o;
    o.jobs = jobs;
    std::vector<std::string> out;
    for (const Site& s : ExtractFiles(files->files, o).sites) {
      out.push_back(s.path + ":" + std::to_string(s.line) + " " + s.message.Display());
    }
    return out;
  };
  std::vector<std::string> one = run(1);
  EXPECT_EQ(one.size(), 40u);
  EXPECT_EQ(one, run(4));
}

TEST(ExtractFiles, CRaisingAPythonClassByNameTakesItsStr) {
  TempDir dir;
  dir.Write("core/_exceptions.py",
            "class _NoLoopError(TypeError):\n"
            "    def __init__(self, ufunc, dtypes):\n"
            "        self.ufunc = ufunc\n"
            "        self.dtypes = dtypes\n"
            "    def __str__(self):\n"
            "        return 'ufunc {!r} has no loop for {}'.format(self.ufunc.__name__, self.dtypes)\n");
  dir.Write("core/resolve.c",
            "static int no_loop(PyObject *ufunc, PyObject *dtypes) {\n"
            "    static PyObject *exc_type = NULL;\n"
            "    npy_cache_import(\"numpy.core._exceptions\", \"_NoLoopError\", &exc_type);\n"
            "    PyErr_SetObject(exc_type, PyTuple_Pack(2, ufunc, dtypes));\n"
            "    return -1;\n"
            "}\n");
  TreeRun run = ExtractTree(dir);
  const Site* c = nullptr;
  for (const Site& s : run.extraction.sites) {
    if (s.language == "c") c = &s;
  }
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->exception, "_NoLoopError");
  EXPECT_EQ(c->message.Display(), "ufunc {self.ufunc.__name__!r} has no loop for {dtypes}");
  EXPECT_EQ(c->via, "_NoLoopError");
  EXPECT_EQ(c->line, 4);
}

TEST(ExtractFiles, CrossFileHelpersAndClassesLink) {
  TempDir dir;
  dir.Write("pkg/errors.py",
            "class ShapeError(ValueError):\n"
            "    def __init__(self, shape):\n"
            "        super().__init__(f'bad shape {shape}')\n"
            "def make_error(name):\n"
            "    return TypeError(f'bad name {name}')\n");
  dir.Write("pkg/use.py",
            "from .errors import ShapeError, make_error\n"
            "def f():\n"
            "    raise ShapeError((2, 3))\n"
            "def g():\n"
            "    raise make_error('x')\n");
  TreeRun run = ExtractTree(dir);
  EXPECT_TRUE(HasMessage(run.extraction, "bad shape {(2, 3)}"));
  EXPECT_TRUE(HasMessage(run.extraction, "bad name x"));
  ASSERT_EQ(run.extraction.classes.size(), 1u);
  EXPECT_EQ(run.extraction.classes[0].name, "ShapeError");
  EXPECT_EQ(run.extraction.classes[0].bases, std::vector<std::string>{"ValueError"});
}

// Which function a call reaches: the caller's file's own function of the
// name, sink or not; of an imported module, a module function, never a
// method of some class that happens to share the name.
TEST(ExtractFiles, ACallReachesTheFunctionItNames) {
  TempDir dir;
  dir.Write("pkg/lowering.py",
            "def _load(ptr, what):\n"
            "    raise ValueError(f'cannot load {what} from {ptr}')\n"
            "class Packer:\n"
            "    def pack(self, fmt):\n"
            "        raise ValueError(f'Cannot serialize {fmt!r}')\n");
  dir.Write("pkg/plugins.py",
            "import struct\n"
            "def _load(module, libraries):\n"
            "    return module\n"
            "def setup(packer):\n"
            "    _load('cuda_runtime', ['libcudart.so'])\n"
            "    struct.pack('Q', 1)\n"
            "    packer.pack('<L')\n");
  TreeRun run = ExtractTree(dir);
  EXPECT_FALSE(HasMessage(run.extraction, "cannot load {['libcudart.so']} from cuda_runtime"));
  EXPECT_FALSE(HasMessage(run.extraction, "Cannot serialize 'Q'"));
  // Not a module: the one sink of that name is still the guess.
  EXPECT_TRUE(HasMessage(run.extraction, "Cannot serialize '<L'"));
}

// Rust helpers link across a crate's files as C's do: a `pub` function
// from any file, a private one from its own file only.
TEST(ExtractFiles, RustHelpersLinkAcrossFilesByVisibility) {
  TempDir dir;
  dir.Write("src/errors.rs",
            "pub fn invalid(what: &str) -> PyErr {\n"
            "    PyValueError::new_err(format!(\"invalid {what}\"))\n"
            "}\n"
            "fn private_fail(msg: &str) -> PyErr {\n"
            "    PyTypeError::new_err(format!(\"private: {}\", msg))\n"
            "}\n");
  dir.Write("src/lib.rs",
            "fn api(w: i32) -> PyResult<()> {\n"
            "    if w < 0 { return Err(invalid(\"width\")); }\n"
            "    Err(private_fail(\"from another file\"))\n"
            "}\n");
  TreeRun run = ExtractTree(dir);
  EXPECT_TRUE(HasMessage(run.extraction, "invalid width"));
  EXPECT_FALSE(HasMessage(run.extraction, "private: from another file"));
  for (const Site& s : run.extraction.sites) {
    if (s.message.Display() != "invalid width") continue;
    EXPECT_EQ(s.path, "src/lib.rs");
    EXPECT_EQ(s.line, 2);
    EXPECT_EQ(s.exception, "ValueError");
    EXPECT_EQ(s.via, "invalid");
  }
}

// A crate's own macros that hand a format on to a raising macro (PyO3
// crates' `py_schema_err!` over `py_error_type!(SchemaError; ...)`) raise
// at each call, in whatever file, with the type at the end of the chain;
// a macro that only formats, or one two definitions give different types,
// raises nothing.
TEST(ExtractFiles, RustMacrosThatForwardToARaisingMacroRaiseAtTheirCalls) {
  TempDir dir;
  dir.Write("src/tools.rs",
            "macro_rules! py_error_type {\n"
            "    ($error_type:ty; $( $msg_args:expr ),+ ) => {\n"
            "        $crate::tools::fmt_py_err::<$error_type>(format_args!($( $msg_args ),+))\n"
            "    };\n"
            "}\n"
            "macro_rules! schema_error_type {\n"
            "    ($( $msg_args:expr ),+ ) => {\n"
            "        crate::tools::py_error_type!(crate::build::SchemaError; $( $msg_args ),+)\n"
            "    };\n"
            "}\n"
            "macro_rules! schema_err {\n"
            "    ($( $msg_args:expr ),+ ) => { Err(crate::tools::schema_error_type!($( $msg_args "
            "),+)) };\n"
            "}\n"
            "macro_rules! just_text { ($( $a:expr ),+) => { format!($( $a ),+) }; }\n"
            "macro_rules! twice { ($m:expr) => { py_error_type!(PyValueError; $m) }; }\n");
  dir.Write("src/other.rs",
            "macro_rules! twice { ($m:expr) => { py_error_type!(PyTypeError; $m) }; }\n");
  dir.Write("src/build.rs",
            "fn build(kind: &str) -> PyResult<()> {\n"
            "    if kind.is_empty() { return schema_err!(\"Invalid now_op {}\", kind); }\n"
            "    let e = schema_error_type!(\"Duplicate ref: `{kind}`\");\n"
            "    let t = just_text!(\"not raised {}\", kind);\n"
            "    Err(twice!(\"which type\"))\n"
            "}\n");
  TreeRun run = ExtractTree(dir);
  int found = 0;
  for (const Site& s : run.extraction.sites) {
    std::string m = s.message.Display();
    EXPECT_EQ(m.find("not raised"), std::string::npos) << m;
    EXPECT_NE(m, "which type");
    if (m.rfind("Invalid now_op ", 0) == 0 || m.rfind("Duplicate ref: `", 0) == 0) {
      ++found;
      EXPECT_EQ(s.path, "src/build.rs");
      EXPECT_EQ(s.exception, "SchemaError");
      EXPECT_EQ(s.exception_written, "crate::build::SchemaError");
      EXPECT_EQ(s.line, m[0] == 'I' ? 2 : 3);
    }
  }
  EXPECT_EQ(found, 2);
}

// What a type's Display writes reaches the raise that prints it from
// another file: the type of a field, a method's text found by its
// receiver's written type or, on a receiver of no known type, by the one
// method of that name the crate defines; a type another crate declares
// (`io::Error` after `use std::io`) is not the crate's own type of that
// name.
TEST(ExtractFiles, RustRaisesPrintWhatTheirTypesDisplayComposes) {
  TempDir dir;
  dir.Write("src/errors.rs",
            "use std::{fmt, io};\n"
            "pub enum Kind { Eof, Trailing }\n"
            "impl fmt::Display for Kind {\n"
            "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
            "        match self {\n"
            "            Kind::Eof => f.write_str(\"input ends early\"),\n"
            "            Kind::Trailing => f.write_str(\"trailing bytes\"),\n"
            "        }\n"
            "    }\n"
            "}\n"
            "pub struct DecodeError { pub kind: Kind, pub offset: usize }\n"
            "impl DecodeError {\n"
            "    pub fn explain(&self) -> String { format!(\"{} (offset {})\", self.kind, "
            "self.offset) }\n"
            "}\n"
            "pub enum AppError { Io(io::Error), Decode(DecodeError) }\n"
            "impl fmt::Display for AppError {\n"
            "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
            "        match self {\n"
            "            AppError::Io(e) => write!(f, \"io: {}\", e),\n"
            "            AppError::Decode(d) => write!(f, \"decode: {}\", d.explain()),\n"
            "        }\n"
            "    }\n"
            "}\n");
  dir.Write("src/io.rs",
            "pub struct Error;\n"
            "impl std::fmt::Display for Error {\n"
            "    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {\n"
            "        f.write_str(\"the crate's own io error\")\n"
            "    }\n"
            "}\n");
  dir.Write("src/python.rs",
            "use crate::errors::DecodeError;\n"
            "pub fn raise(e: &DecodeError) -> PyErr { PyValueError::new_err(e.explain()) }\n"
            "pub fn later(r: Result<(), DecodeError>) -> PyResult<()> {\n"
            "    r.map_err(|err| PyTypeError::new_err(err.explain()))\n"
            "}\n");
  TreeRun run = ExtractTree(dir);
  int found = 0;
  for (const Site& s : run.extraction.sites) {
    std::string m = s.message.Display();
    EXPECT_EQ(m.find("io: the crate's"), std::string::npos) << m;
    if (m == "input ends early (offset {self.offset})" && s.exception == "ValueError") {
      ++found;
      EXPECT_EQ(s.path, "src/errors.rs");
      EXPECT_EQ(s.line, 6);
    }
    if (m == "trailing bytes (offset {self.offset})" && s.exception == "TypeError") ++found;
    if (m == "decode: trailing bytes (offset {self.offset})" && s.exception == "AppError") ++found;
  }
  EXPECT_EQ(found, 3);
  EXPECT_TRUE(HasMessage(run.extraction, "io: {e}"));
}

// Only a static is one name across the crate: a local set to a PyExc_*
// says nothing of a parameter of that name elsewhere.
TEST(ExtractFiles, RustFfiLocalsAndParametersAreNoStatics) {
  TempDir dir;
  dir.Write(
      "src/lib.rs",
      "unsafe fn maybe(c: bool) {\n"
      "    let mut exc = ffi::PyExc_KeyError;\n"
      "    if c { exc = ffi::PyExc_RuntimeError; }\n"
      "    ffi::PyErr_SetString(exc, \"the lookup could not be completed\\0\".as_ptr().cast());\n"
      "}\n"
      "unsafe fn passed_in(exc: *mut ffi::PyObject) {\n"
      "    ffi::PyErr_SetString(exc, \"a caller chose this exception\\0\".as_ptr().cast());\n"
      "}\n");
  TreeRun run = ExtractTree(dir);
  for (const Site& s : run.extraction.sites) {
    EXPECT_NE(s.exception, "RuntimeError") << s.message.Display();
  }
}

// A file of more Display texts than a file keeps for composing (generated
// code's large enums) still has its error type's own message.
TEST(ExtractFiles, RustAnErrorTypesDisplayOutlastsTheTextsOfLargeEnums) {
  TempDir dir;
  std::string code = "pub enum Kind {";
  for (int i = 0; i < 20010; ++i) code += " K" + std::to_string(i) + ",";
  code +=
      " }\nimpl fmt::Display for Kind {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result "
      "{\n"
      "        match self {\n";
  for (int i = 0; i < 20010; ++i) {
    code += "            Kind::K" + std::to_string(i) + " => f.write_str(\"kind number " +
            std::to_string(i) + "\"),\n";
  }
  code +=
      "        }\n    }\n}\n"
      "pub struct MyError { pos: usize }\n"
      "impl fmt::Display for MyError {\n"
      "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
      "        write!(f, \"the parser failed badly at position {}\", self.pos)\n"
      "    }\n}\n";
  dir.Write("src/lib.rs", code);
  TreeRun run = ExtractTree(dir);
  EXPECT_TRUE(HasMessage(run.extraction, "the parser failed badly at position {self.pos}"));
}

// CPython's own calls through PyO3's ffi raise: the type a `PyExc_*` or a
// static another file sets to one, the text the string a pointer points
// into, and a function passing its parameter on is a helper.
TEST(ExtractFiles, RustFfiSetErrorRaisesThroughStaticsAndHelpers) {
  TempDir dir;
  dir.Write("src/typeref.rs",
            "pub static mut EncodeError: *mut PyObject = 0 as *mut PyObject;\n"
            "pub static mut DecodeErr: *mut PyObject = 0 as *mut PyObject;\n"
            "pub unsafe fn init() {\n"
            "    EncodeError = pyo3_ffi::PyExc_TypeError;\n"
            "    DecodeErr = make_exception();\n"
            "}\n");
  dir.Write(
      "src/lib.rs",
      "fn raise_encode(msg: Cow<str>) -> *mut PyObject {\n"
      "    unsafe {\n"
      "        let err_msg =\n"
      "            PyUnicode_FromStringAndSize(msg.as_ptr() as *const c_char, msg.len() as "
      "isize);\n"
      "        PyErr_SetObject(typeref::EncodeError, err_msg);\n"
      "    };\n"
      "    null_mut()\n"
      "}\n"
      "pub unsafe extern \"C\" fn dumps(n: isize, args: *mut PyObject) -> *mut PyObject {\n"
      "    if n == 0 { return raise_encode(Cow::Borrowed(\"missing argument\")); }\n"
      "    ffi::PyErr_SetString(ffi::PyExc_ValueError, \"bad value\\0\".as_ptr() as *const "
      "c_char);\n"
      "    PyErr_SetObject(typeref::DecodeErr, args);\n"
      "    PyErr_SetObject(ptype.as_ptr(), \"a type of no name\".as_ptr().cast::<c_char>());\n"
      "    ffi::PyErr_SetString(ffi::PyExc_KeyError, \"no key\\0\".as_ptr().cast::<c_char>());\n"
      "    null_mut()\n"
      "}\n");
  TreeRun run = ExtractTree(dir);
  int found = 0;
  for (const Site& s : run.extraction.sites) {
    std::string m = s.message.Display();
    if (m == "missing argument") {
      ++found;
      EXPECT_EQ(s.exception, "TypeError");
      EXPECT_EQ(s.path, "src/lib.rs");
      EXPECT_EQ(s.line, 10);
    } else if (m == "bad value") {
      ++found;
      EXPECT_EQ(s.exception, "ValueError");
    } else if (s.exception_written == "typeref::DecodeErr") {
      ++found;
      EXPECT_EQ(s.exception, "DecodeErr");
    }
  }
  EXPECT_EQ(found, 3);
  EXPECT_FALSE(HasMessage(run.extraction, "a type of no name"));
  EXPECT_TRUE(HasMessage(run.extraction, "no key"));
}

// Which Rust function a call reaches, as a second review found it misread:
// a module path names its module's function, an import renames one, a
// function nested in the caller's body is its own, a file that writes
// functions with a macro reaches no other file's by a bare name, and two
// methods of one name on one type (generics, a trait's and the type's own)
// are told apart by types errdex does not read, so a call reaches neither.
TEST(ExtractFiles, RustCallsReachTheFunctionTheirPathNames) {
  TempDir dir;
  dir.Write("src/util.rs",
            "pub fn fail(m: &str) { panic!(\"util-fail: {}\", m) }\n"
            "pub fn boom(m: &str) { panic!(\"util-boom: {}\", m) }\n"
            "pub fn warn(m: &str) { panic!(\"util-warn: {}\", m) }\n");
  dir.Write("src/main.rs",
            "mod util;\n"
            "fn warn(m: &str) { println!(\"{}\", m) }\n"
            "fn a() { util::warn(\"module-path\") }\n"
            "fn b() { use util::boom as fail; fail(\"renamed\") }\n"
            "fn c() { fn fail(m: &str) { println!(\"{}\", m) } fail(\"nested\") }\n"
            "fn d() { warn(\"own\") }\n"
            "struct W<T>(T);\n"
            "impl W<u8> { fn k(&self, m: &str) { panic!(\"u8: {}\", m) } }\n"
            "impl W<u16> { fn k(&self, m: &str) { println!(\"{}\", m) } fn r(&self) { "
            "self.k(\"spec\") } }\n");
  dir.Write("src/gen.rs",
            "macro_rules! quiet { ($n:ident) => { fn $n(m: &str) { println!(\"{}\", m) } } }\n"
            "quiet!(fail);\n"
            "pub fn g() { fail(\"generated\") }\n");
  TreeRun run = ExtractTree(dir);
  EXPECT_TRUE(HasMessage(run.extraction, "util-warn: module-path"));
  EXPECT_TRUE(HasMessage(run.extraction, "util-boom: renamed"));
  for (const char* wrong : {"util-fail: renamed", "util-fail: nested", "util-warn: own", "u8: spec",
                            "util-fail: generated"}) {
    EXPECT_FALSE(HasMessage(run.extraction, wrong)) << wrong;
  }
}

}  // namespace
}  // namespace errdex::extract
