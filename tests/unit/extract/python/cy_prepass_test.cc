// Cython read as Python: the same-length rewrite before parsing, and the
// Python front end finding the raises of .pyx/.pxd/.pxi files and Tempita
// templates through it.
#include "extract/python/cy_prepass.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "extract/extractor.h"
#include "unit/extract/python/prepass_testing.h"

namespace errdex::extract {
namespace {

std::string Rewritten(std::string text, bool tempita = false) {
  python::RewriteCython(text, tempita);
  return text;
}

// Same length, every line break where it was.
void ExpectShapeKept(const std::string& before, const std::string& after) {
  ASSERT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size(); ++i) {
    bool was_break = before[i] == '\n' || before[i] == '\r';
    bool is_break = after[i] == '\n' || after[i] == '\r';
    ASSERT_EQ(was_break, is_break) << "at byte " << i;
  }
}

void ParsesAndFindsTheRaise(const std::string& code, int line) {
  testing::ParsesAndFindsTheRaise("m.pyx", code, line);
}

TEST(CythonPrepass, CdefFunctionsBecomeDefWithTheirParameterNames) {
  EXPECT_EQ(Rewritten("cdef int f(double x, object y) except -1 nogil:\n"),
            "def      f(       x,        y)                :\n");
  EXPECT_EQ(
      Rewritten("cpdef inline double g(self, int n=3, np.ndarray[double, ndim=1] a not None):\n"),
      "def                 g(self,     n=3,                            a         ):\n");
  EXPECT_EQ(Rewritten("cdef (double, int) h(double *p, const char* s) noexcept:\n"),
            "def                h(        p,             s)         :\n");
  // def keeps Python's own forms: annotations, *args, keyword-only markers.
  EXPECT_EQ(Rewritten("def f(self, x: int, *, y=None, **kw):\n"),
            "def f(self, x: int, *, y=None, **kw):\n");
  EXPECT_EQ(Rewritten("def f(self, object seed=None, int n=1):\n"),
            "def f(self,        seed=None,     n=1):\n");
}

TEST(CythonPrepass, DeclarationsKeepTheirAssignment) {
  EXPECT_EQ(Rewritten("    cdef Py_ssize_t i = 0\n"), "    0;              i = 0\n");
  EXPECT_EQ(Rewritten("    cdef double *p = <double*>malloc(n)\n"),
            "    0;           p =          malloc(n)\n");
  EXPECT_EQ(Rewritten("    cdef int i, j\n"), "    0            \n");
  EXPECT_EQ(Rewritten("DEF N = 3\n"), "0;  N = 3\n");
  EXPECT_EQ(Rewritten("cdef:\n    int a = 1\n    double[:, ::1] b\n"),
            "if 1:\n    0;  a = 1\n    0               \n");
}

TEST(CythonPrepass, COnlyStatementsAndBlocksBecomeZero) {
  EXPECT_EQ(Rewritten("cimport numpy as np\n"), "0                  \n");
  EXPECT_EQ(Rewritten("from libc.math cimport sqrt, (\n    exp)\n"),
            "0                             \n        \n");
  EXPECT_EQ(Rewritten("include \"x.pxi\"\n"), "0              \n");
  EXPECT_EQ(Rewritten("cdef extern from \"h.h\" nogil:\n    int f(int)\n    ctypedef struct S:\n"
                      "        int a\nx = 1\n"),
            "0                            \n              \n                      \n"
            "             \nx = 1\n");
  EXPECT_EQ(Rewritten("ctypedef fused real:\n    float\n    double\ny = 2\n"),
            "0                   \n         \n          \ny = 2\n");
}

TEST(CythonPrepass, ClassesCastsAndOperators) {
  EXPECT_EQ(Rewritten("cdef class Tree(Base):\n"), "class      Tree(Base):\n");
  EXPECT_EQ(Rewritten("cdef public class A [object AObj, type AType]:\n"),
            "class             A                          :\n");
  EXPECT_EQ(Rewritten("x = <np.ndarray?>f(<double>y, &z, sizeof(double*))\n"),
            "x =              f(        y,  z, sizeof(double ))\n");
  EXPECT_EQ(Rewritten("m = 0xff00UL | 10u\n"), "m = 0xff00   | 10 \n");
  EXPECT_EQ(Rewritten("c = c'a'\n"), "c =  'a'\n");
  EXPECT_EQ(Rewritten("IF X == 1:\n    pass\nELSE:\n    pass\n"),
            "if X == 1:\n    pass\nelse:\n    pass\n");
  EXPECT_EQ(Rewritten("for i from 0 <= i < n by 2:\n"), "for i in   0 <= i < n     :\n");
}

TEST(CythonPrepass, StringsAndCommentsAreNeverRewritten) {
  for (const char* code : {
           "s = 'cdef int x = <double>y'\n",
           "# cdef class X:\n",
           "s = \"\"\"\ncdef extern from *:\n    int f()\n\"\"\"\n",
           "if a < b and c > d:\n    pass\n",  // comparisons, not a cast
           "x = y[0] * z\n",
       }) {
    EXPECT_EQ(Rewritten(code), code);
  }
}

TEST(CythonPrepass, TempitaDirectivesGoSubstitutionsBecomeNames) {
  std::string code =
      "{{py:\nkinds = ['a']\n}}\n{{for k in kinds}}\ndef f_{{k}}(x):\n"
      "    raise ValueError('bad {{k}}')\n{{endfor}}\n";
  std::string out = Rewritten(code, true);
  ExpectShapeKept(code, out);
  EXPECT_EQ(out,
            "     \n             \n  \n                  \ndef f______(x):\n"
            "    raise ValueError('bad {{k}}')\n          \n");
  Extraction x = ExtractPythonSource("m.pyx.in", code);
  ASSERT_EQ(x.sites.size(), 1u);
  EXPECT_EQ(x.sites[0].message.Display(), "bad {k}");
}

TEST(CythonPrepass, EveryConstructParses) {
  for (const char* construct : {
           "cdef int f(double x) except? -1 nogil:\n    return 0\n",
           "cdef class A:\n    cdef public object x\n    cdef readonly double y\n",
           "cdef extern from *:\n    \"\"\"\n    int f(void) { return 0; }\n    \"\"\"\n"
           "    int f()\n",
           "cdef struct P:\n    double x\n",
           "cdef enum:\n    N = 3\n",
           "ctypedef double (*fn)(double) nogil\n",
           "def g(x):\n    cdef int i\n    with nogil:\n        i = 0\n",
           "def g(x):\n    cdef:\n        int i = 0\n        double d\n    return <int>x\n",
           "property n:\n    def __get__(self):\n        return 1\n",
           "cdef inline void h(double* p) noexcept nogil:\n    p[0] = 1\n",
       }) {
    std::string code(construct);
    int lines = static_cast<int>(std::count(code.begin(), code.end(), '\n'));
    ParsesAndFindsTheRaise(code, lines + 1);
  }
}

TEST(CythonPrepass, RaisesAndCApiCallsFromCython) {
  Extraction x =
      ExtractPythonSource("m.pyx",
                          "cdef int check(double v, object name) except -1:\n"
                          "    if v < 0:\n"
                          "        raise ValueError(name + \" < 0\")\n"
                          "def f(double scale, int k):\n"
                          "    check(scale, 'scale')\n"
                          "    if k < 1:\n"
                          "        PyErr_SetString(PyExc_ValueError, b\"k must be positive\")\n"
                          "    PyErr_Format(TypeError, \"bad k %d of %s\", k, \"name\")\n");
  std::vector<std::string> got;
  for (const Site& s : x.sites) got.push_back(s.exception + ": " + s.message.Display());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"TypeError: bad k {k} of name",
                                           "ValueError: k must be positive",
                                           "ValueError: scale < 0", "ValueError: {name} < 0"}));
}

TEST(CythonPrepass, PathsAreCython) {
  EXPECT_TRUE(python::IsCythonPath("a/b.pyx"));
  EXPECT_TRUE(python::IsCythonPath("b.pxd"));
  EXPECT_TRUE(python::IsCythonPath("b.pxi"));
  EXPECT_TRUE(python::IsCythonPath("b.pyx.in"));
  EXPECT_FALSE(python::IsCythonPath("b.py"));
  EXPECT_FALSE(python::IsCythonPath("b.in"));
  EXPECT_TRUE(IsSourcePath("pkg/_mod.pyx"));
  EXPECT_TRUE(python::IsTempitaPath("b.pxi.in"));
  EXPECT_FALSE(python::IsTempitaPath("b.pyx"));
}

TEST(CythonPrepass, HostileInputKeepsItsShapeInLinearTime) {
  std::mt19937 rng(15);
  const std::string alphabet = "cdef ctypedef cimport {{}} <>&*()[]:,='\"\n\\#DEF IF x0UL ";
  for (int round = 0; round < 200; ++round) {
    std::string text;
    size_t n = rng() % 400;
    for (size_t i = 0; i < n; ++i) text.push_back(alphabet[rng() % alphabet.size()]);
    for (bool tempita : {false, true}) {
      std::string out = text;
      python::RewriteCython(out, tempita);
      ExpectShapeKept(text, out);
    }
  }
  // Large adversarial inputs: unclosed brackets, endless casts, a deep
  // block, many unterminated Tempita openings. Linear: well under a second.
  for (std::string unit :
       {std::string("cdef f(<"), std::string("(["), std::string("{{"), std::string("cdef:\n "),
        std::string("<a<b<c"), std::string("'\"\"\"")}) {
    std::string text;
    while (text.size() < (1u << 20)) text += unit;
    std::string out = text;
    auto start = std::chrono::steady_clock::now();
    python::RewriteCython(out, true);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ExpectShapeKept(text, out);
    EXPECT_LT(seconds, 10.0) << unit;  // quadratic on 1 MiB would take hours
  }
}

}  // namespace
}  // namespace errdex::extract
