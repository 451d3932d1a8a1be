// The docstring line of each parameter: Google, numpydoc and Sphinx entries,
// and the inputs that must give nothing rather than a wrong sentence.
#include "extract/python/py_docstring.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <string>

#include "extract/extractor.h"

namespace errdex::extract {
namespace {

using Docs = std::map<std::string, std::string, std::less<>>;

Docs Parse(std::string_view doc) { return python::ParameterDocs(doc); }

TEST(ParameterDocs, GoogleArgsWithTypesAndContinuations) {
  Docs d = Parse(
      "Runs the pipeline.\n"
      "\n"
      "Args:\n"
      "    mode (str): How to run: ``\"fast\"`` or ``\"slow\"``. Defaults\n"
      "        to fast.\n"
      "    level: Verbosity, from 0\n"
      "        to 3\n"
      "    x (:obj:`int`, optional): The x coordinate.\n"
      "    callback:\n"
      "        Called once per stage.\n"
      "    *args: Passed on.\n"
      "    **kwargs: Options for the backend.\n"
      "\n"
      "Returns:\n"
      "    result: not a parameter.\n");
  EXPECT_EQ(d["mode"], "How to run: `\"fast\"` or `\"slow\"`.");
  EXPECT_EQ(d["level"], "Verbosity, from 0 to 3");
  EXPECT_EQ(d["x"], "The x coordinate.");
  EXPECT_EQ(d["callback"], "Called once per stage.");
  EXPECT_EQ(d["args"], "Passed on.");
  EXPECT_EQ(d["kwargs"], "Options for the backend.");
  EXPECT_EQ(d.count("result"), 0u);
  EXPECT_EQ(d.size(), 6u);
}

TEST(ParameterDocs, GoogleSectionNames) {
  for (const char* header : {"Args:", "Arguments:", "Parameters:", "Keyword Args:",
                             "Keyword Arguments:", "Other Parameters:"}) {
    Docs d = Parse(std::string("Summary.\n\n") + header + "\n  axis: The axis to reduce.\n");
    EXPECT_EQ(d["axis"], "The axis to reduce.") << header;
  }
  // Entries must be indented under the header: a flush line is prose.
  EXPECT_TRUE(Parse("Args:\naxis: The axis.\n").empty());
  // Not a header: "Args" in a sentence.
  EXPECT_TRUE(Parse("These Args: axis: the axis.\n").empty());
}

TEST(ParameterDocs, NumpydocParameters) {
  Docs d = Parse(
      "Compute it.\n"
      "\n"
      "Parameters\n"
      "----------\n"
      "a : array_like\n"
      "    Input data. More about it.\n"
      "x1, x2 : int\n"
      "    The two bounds, i.e. the range\n"
      "    of valid values.\n"
      "kind : {'quicksort', 'mergesort'}, optional\n"
      "*args\n"
      "    Extra positional arguments.\n"
      "order\n"
      "\n"
      "    Described after a blank line.\n"
      "\n"
      "Returns\n"
      "-------\n"
      "out : ndarray\n"
      "    The result.\n");
  EXPECT_EQ(d["a"], "Input data.");
  EXPECT_EQ(d["x1"], "The two bounds, i.e. the range of valid values.");
  EXPECT_EQ(d["x2"], d["x1"]);
  // A type and no description: nothing to show.
  EXPECT_EQ(d.count("kind"), 0u);
  EXPECT_EQ(d["args"], "Extra positional arguments.");
  EXPECT_EQ(d["order"], "Described after a blank line.");
  EXPECT_EQ(d.count("out"), 0u);
}

TEST(ParameterDocs, NumpydocSectionEndsAtProse) {
  Docs d = Parse(
      "Parameters\n"
      "----------\n"
      "axis : int\n"
      "    The axis.\n"
      "See the user guide for more: this line is prose.\n"
      "dtype : dtype\n"
      "    Not in the section any more.\n");
  EXPECT_EQ(d["axis"], "The axis.");
  EXPECT_EQ(d.count("dtype"), 0u);
  EXPECT_EQ(d.count("See"), 0u);
}

TEST(ParameterDocs, SphinxFields) {
  Docs d = Parse(
      "Open a connection.\n"
      "\n"
      ":param host: The host to connect to,\n"
      "    as a name or an address.\n"
      ":param int port: The port.\n"
      ":param Dict[str, int] opts: Socket options.\n"
      ":parameter timeout: Seconds to wait.\n"
      ":keyword retries: How often to retry.\n"
      ":type host: str\n"
      ":raises ValueError: when the host is empty.\n"
      ":returns: the connection.\n"
      ":param empty:\n");
  EXPECT_EQ(d["host"], "The host to connect to, as a name or an address.");
  EXPECT_EQ(d["port"], "The port.");
  EXPECT_EQ(d["opts"], "Socket options.");
  EXPECT_EQ(d["timeout"], "Seconds to wait.");
  EXPECT_EQ(d["retries"], "How often to retry.");
  EXPECT_EQ(d.count("ValueError"), 0u);
  EXPECT_EQ(d.count("empty"), 0u);
  EXPECT_EQ(d.size(), 5u);
}

TEST(ParameterDocs, RolesAndDoubleBackquotesReadAsCode) {
  Docs d = Parse(":param kind: A :class:`~jax.numpy.dtype` or :py:func:`len`, or ``None``.\n");
  EXPECT_EQ(d["kind"], "A `jax.numpy.dtype` or `len`, or `None`.");
  EXPECT_EQ(Parse(":param refs: The ``Ref``\\s to use, as in C:\\dir.\n")["refs"],
            "The `Ref`s to use, as in C:\\dir.");
}
// Hostile inputs: each must give nothing, or exactly the entry's sentence.

TEST(ParameterDocs, ProseMentionsAreNoEntries) {
  EXPECT_TRUE(Parse("Set mode to 'fast' to go fast.\n\nmode: the mode, as a string.\n").empty());
  EXPECT_TRUE(Parse("The mode parameter selects the algorithm.").empty());
  EXPECT_TRUE(Parse("").empty());
  EXPECT_TRUE(Parse("Args:").empty());
  EXPECT_TRUE(Parse("Args:\n\n\n").empty());
  // A URL at an entry's indentation is not an entry named http.
  EXPECT_TRUE(Parse("Args:\n  http://example.com/docs\n").empty());
  // An example's `>>>` lines and a Returns section are not parameters.
  EXPECT_TRUE(Parse("Returns:\n  mode: the mode used.\n\n>>> f(mode='x')\n").empty());
}

TEST(ParameterDocs, NestedIndentationStaysInItsEntry) {
  Docs d = Parse(
      "Args:\n"
      "  fn: A callback taking:\n"
      "\n"
      "    Args:\n"
      "      value: what the callback is given.\n"
      "  mode: The mode.\n"
      "    - fast: skips checks.\n"
      "    - slow: checks everything.\n");
  EXPECT_EQ(d["fn"], "A callback taking:");
  EXPECT_EQ(d.count("value"), 0u);
  EXPECT_EQ(d["mode"], "The mode.");
  EXPECT_EQ(d.count("fast"), 0u);
  EXPECT_EQ(d.count("slow"), 0u);
  Docs sphinx = Parse(
      ":param fn: A callback, called as\n"
      "    :param value: what it is given.\n"
      ":param mode: The mode.\n");
  EXPECT_EQ(sphinx["fn"], "A callback, called as :param value: what it is given.");
  EXPECT_EQ(sphinx.count("value"), 0u);
  EXPECT_EQ(sphinx["mode"], "The mode.");
}

TEST(ParameterDocs, TabsIndentLikePython) {
  // A tab is eight columns: the entry is under the header, its continuation
  // deeper still.
  Docs d = Parse("Args:\n\tmode: How it\n\t    runs.\n\tlevel: How loud.\n");
  EXPECT_EQ(d["mode"], "How it runs.");
  EXPECT_EQ(d["level"], "How loud.");
  EXPECT_EQ(Parse(":param\tint\tx: Tabbed field.\n")["x"], "Tabbed field.");
}

TEST(ParameterDocs, LongDescriptionsAreCutAtAWord) {
  std::string words;
  for (int i = 0; i < 2000; ++i) words += "word" + std::to_string(i) + " ";
  Docs d = Parse("Args:\n  mode: " + words + "\n");
  std::string doc = d["mode"];
  ASSERT_TRUE(doc.ends_with("…"));
  EXPECT_LE(doc.size(), python::kMaxParameterDocChars + 2);  // "…" is 3 bytes, 1 character
  std::string kept = doc.substr(0, doc.size() - std::string("…").size());
  EXPECT_EQ(words.substr(0, kept.size() + 1), kept + " ");  // whole words only
  // One word longer than the bound is cut inside it.
  std::string one(5000, 'x');
  EXPECT_EQ(Parse("Args:\n  mode: " + one + "\n")["mode"],
            std::string(python::kMaxParameterDocChars - 1, 'x') + "…");
}

TEST(ParameterDocs, FirstSentenceOnly) {
  Docs d = Parse(
      "Args:\n"
      "  a: One, e.g. `x.y`. Two.\n"
      "  b: Ends with a number 1.5 and goes on. Second sentence!\n"
      "  c: No full stop at all\n"
      "  d: Is it? Yes.\n"
      "  e: Version 2. then lower case goes on.\n"
      "  f: str. Only `\"propagate\"` is supported. Other text.\n"
      "  g: Optional. The axis. Other text.\n"
      "  h: The axis. Other text.\n");
  EXPECT_EQ(d["a"], "One, e.g. `x.y`.");
  EXPECT_EQ(d["b"], "Ends with a number 1.5 and goes on.");
  EXPECT_EQ(d["c"], "No full stop at all");
  EXPECT_EQ(d["d"], "Is it?");
  EXPECT_EQ(d["e"], "Version 2. then lower case goes on.");
  // A first sentence of one word (a type) takes the next one too.
  EXPECT_EQ(d["f"], "str. Only `\"propagate\"` is supported.");
  EXPECT_EQ(d["g"], "Optional. The axis.");
  EXPECT_EQ(d["h"], "The axis.");
}

TEST(ParameterDocs, Unicode) {
  Docs d = Parse("Args:\n  größe: Die Größe des Puffers — in Bytes. Mehr.\n  ß: ✓.\n");
  EXPECT_EQ(d["größe"], "Die Größe des Puffers — in Bytes.");
  EXPECT_EQ(d["ß"], "✓.");
  // The bound counts characters, and never splits one.
  std::string wide;
  for (int i = 0; i < 300; ++i) wide += "é";
  std::string doc = Parse("Args:\n  x: " + wide + "\n")["x"];
  EXPECT_EQ(doc, std::string(wide, 0, 2 * (python::kMaxParameterDocChars - 1)) + "…");
}

TEST(ParameterDocs, HostileShapesStayLinear) {
  // Headers and fields each deeper than the last, past the bytes read: every
  // line is read a bounded number of times.
  std::string nested;
  for (int i = 0; i < 3000; ++i) {
    std::string indent(static_cast<size_t>(i % 700), ' ');
    nested += indent + "Args:\n" + indent + ":param x: y\n" + indent + "Parameters\n" + indent +
              "----------\n";
  }
  // A line of colons, none of them a role's, and of abbreviations.
  std::string colons = "Args:\n  x: " + std::string(200000, ':') + " e.g." + "\n";
  for (const std::string& doc : {nested, colons}) {
    auto start = std::chrono::steady_clock::now();
    Parse(doc);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  }
}
// Through the front end: the docstring of the raising function reaches its
// site's signature as each parameter's third element.

std::string SignatureOf(const std::string& code) {
  Extraction x = ExtractPythonSource("m.py", code);
  EXPECT_EQ(x.sites.size(), 1u) << code;
  return x.sites.empty() ? "" : x.sites[0].signature;
}

TEST(DocstringSignature, ReachesTheSite) {
  EXPECT_EQ(SignatureOf("def run(mode, *, level=0, **kw):\n"
                        "    \"\"\"Run.\n"
                        "\n"
                        "    Args:\n"
                        "        mode: How to run; \"fast\" or 'slow' \\\\ not \\\\d.\n"
                        "    \"\"\"\n"
                        "    if mode not in ('fast', 'slow'):\n"
                        "        raise ValueError('bad mode')\n"),
            R"([["mode","any","How to run; \"fast\" or 'slow' \\ not \\d."],)"
            R"(["level","kw"],["kw","**"]])");
  // What the catalog reads back is JSON.
  std::string sig = SignatureOf("def f(x):\n  ':param x: A \\u00e9 \\N{BULLET} \\t tab.'\n"
                                "  raise ValueError('x')\n");
  nlohmann::json j = nlohmann::json::parse(sig, nullptr, false);
  ASSERT_TRUE(j.is_array()) << sig;
  EXPECT_EQ(j[0][2], "A é \\N{BULLET} tab.");
}

TEST(DocstringSignature, OnlyPlainStringLiteralsAreDocstrings) {
  for (const char* body : {
           "  f':param x: The x.'\n",          // an f-string is evaluated, not __doc__
           "  b':param x: The x.'\n",          // bytes
           "  doc = ':param x: The x.'\n",     // an assignment
           "  ':param x: ' + 'The x.'\n",      // an expression
           "  pass\n  ':param x: The x.'\n",  // not the first statement
           "  (':param x: The x.', 1)\n",      // a tuple
       }) {
    EXPECT_EQ(SignatureOf(std::string("def f(x):\n") + body + "  raise ValueError('x')\n"),
              R"([["x","any"]])")
        << body;
  }
  // Raw, concatenated, after a comment, and with CRLF line ends: all __doc__.
  for (const char* body : {
           "  r':param x: The \\d x.'\n",
           "  # why\n  ':param x: ' 'The \\\\d x.'\n",
           "  \"\"\"Summary.\r\n\r\n  :param x: The \\\\d\r\n      x.\r\n  \"\"\"\r\n",
       }) {
    EXPECT_EQ(SignatureOf(std::string("def f(x):\n") + body + "  raise ValueError('x')\n"),
              R"([["x","any","The \\d x."]])")
        << body;
  }
}

TEST(DocstringSignature, InitFallsBackOnTheClassDocstring) {
  std::string numpy_class =
      "class Buffer:\n"
      "    \"\"\"A buffer.\n"
      "\n"
      "    Parameters\n"
      "    ----------\n"
      "    size : int\n"
      "        Bytes to hold.\n"
      "    mode : str\n"
      "        From the class.\n"
      "    \"\"\"\n";
  EXPECT_EQ(SignatureOf(numpy_class +
                        "    def __init__(self, size, mode):\n"
                        "        \"\"\"Makes one.\n"
                        "\n"
                        "        Args:\n"
                        "            mode: From __init__.\n"
                        "        \"\"\"\n"
                        "        raise ValueError('x')\n"),
            R"([["self","any"],["size","any","Bytes to hold."],)"
            R"(["mode","any","From __init__."]])");
  // Only __init__: another method's parameters are its own.
  EXPECT_EQ(SignatureOf(numpy_class +
                        "    def resize(self, size):\n"
                        "        raise ValueError('x')\n"),
            R"([["self","any"],["size","any"]])");
  // A nested function does not take its outer function's docstring.
  EXPECT_EQ(SignatureOf("def outer(mode):\n"
                        "    ':param mode: The outer mode.'\n"
                        "    def inner(mode):\n"
                        "        raise ValueError('x')\n"
                        "    return inner\n"),
            R"([["mode","any"]])");
}

}  // namespace
}  // namespace errdex::extract
