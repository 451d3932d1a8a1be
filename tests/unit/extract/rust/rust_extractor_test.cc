// The Rust front end on in-memory sources: each sink form of the table,
// formats, message tables, guards, and input no compiler would accept.
#include "extract/rust/rust_extractor.h"

#include <gtest/gtest.h>

#include <map>

#include <algorithm>
#include <string>
#include <vector>

#include "extract/extractor.h"
#include "extract/rust/rust_sinks.h"

namespace errdex::extract {
namespace {

std::vector<std::string> Messages(const std::string& code) {
  std::vector<std::string> out;
  for (const Site& s : ExtractRustSource("src/lib.rs", code).sites) {
    out.push_back(s.exception + ": " + s.message.Display());
  }
  return out;
}

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(RustExtractor, PyO3ExceptionsReadAsTheirPythonNames) {
  std::vector<std::string> m = Messages(
      "fn f(x: i32) -> PyResult<()> {\n"
      "    if x < 0 { return Err(PyValueError::new_err(\"x must be >= 0\")); }\n"
      "    Err(exceptions::PyTypeError::new_err(format!(\"bad {x:>5} and {}\", y)))?;\n"
      "    Err(PyErr::new::<pyo3::exceptions::PyKeyError, _>(\"no key\"))?;\n"
      "    py_err!(PyOverflowError; \"too big: {}\", n)\n"
      "}\n");
  EXPECT_TRUE(Has(m, "ValueError: x must be >= 0"));
  EXPECT_TRUE(Has(m, "TypeError: bad {x:>5} and {y}"));
  EXPECT_TRUE(Has(m, "KeyError: no key"));
  EXPECT_TRUE(Has(m, "OverflowError: too big: {n}"));
  EXPECT_EQ(m.size(), 4u);
}

TEST(RustExtractor, PanicsCarryWhatTheStandardLibraryPrintsAroundThem) {
  std::vector<std::string> m = Messages(
      "fn f(a: u8, b: u8, o: Option<u8>) {\n"
      "    panic!(\"boom {}\", a);\n"
      "    unreachable!();\n"
      "    todo!(\"later\");\n"
      "    assert!(a < b);\n"
      "    assert!(a < b, \"a={a} not below\");\n"
      "    assert_eq!(a, b, \"differ: {:?}\", a);\n"
      "    o.expect(\"o must be set\");\n"
      "}\n");
  EXPECT_TRUE(Has(m, "panic: boom {a}"));
  EXPECT_TRUE(Has(m, "panic: internal error: entered unreachable code"));
  EXPECT_TRUE(Has(m, "panic: not yet implemented: later"));
  EXPECT_TRUE(Has(m, "panic: assertion failed: a < b"));
  EXPECT_TRUE(Has(m, "panic: a={a} not below"));
  EXPECT_TRUE(Has(m, "panic: assertion `left == right` failed: differ: {a}"));
  EXPECT_TRUE(Has(m, "panic: o must be set"));
}

// The trigger sentence of each site of `code`, by line.
std::map<int, std::string> TriggersByLine(const std::string& code) {
  std::map<int, std::string> when;
  for (const Site& s : ExtractRustSource("src/lib.rs", code).sites) when[s.line] = s.trigger;
  return when;
}

TEST(RustExtractor, AnAssertOfTwoValuesPanicsWhenTheyDifferOrAgree) {
  std::map<int, std::string> when = TriggersByLine(
      "fn f(a: u8, b: u8) {\n"
      "    assert!(a < b);\n"
      "    assert_eq!(a, b + 1, \"differ\");\n"
      "    debug_assert_ne!(a, 0);\n"
      "}\n");
  EXPECT_EQ(when[2], "panics when not `a < b`");
  EXPECT_EQ(when[3], "panics when `a != b + 1`");
  EXPECT_EQ(when[4], "panics when `a == 0`");
}

TEST(RustExtractor, AnAssertOfTwoValuesBracketsAnOperandLooserThanTheComparison) {
  std::map<int, std::string> when = TriggersByLine(
      "fn f(x: bool, y: bool, z: bool) {\n"
      "    assert_eq!(x || y, z, \"flags\");\n"
      "    assert_ne!(x, y && z);\n"
      "}\n");
  EXPECT_EQ(when[2], "panics when `(x || y) != z`");
  EXPECT_EQ(when[3], "panics when `x == (y && z)`");
}

TEST(RustExtractor, AnyhowAndThiserror) {
  Extraction x = ExtractRustSource("src/err.rs",
                                   "#[derive(Debug, thiserror::Error)]\n"
                                   "pub enum ConfigError {\n"
                                   "    #[error(\"missing key {0}\")]\n"
                                   "    Missing(String),\n"
                                   "    #[error(\"bad value for {key}: {value:?}\")]\n"
                                   "    Bad { key: String, value: String },\n"
                                   "    #[error(transparent)]\n"
                                   "    Io(#[from] std::io::Error),\n"
                                   "}\n"
                                   "fn load(p: &str) -> anyhow::Result<()> {\n"
                                   "    let s = read(p).context(\"reading config\")?;\n"
                                   "    anyhow::bail!(\"cannot parse {p}\");\n"
                                   "}\n");
  std::vector<std::string> m;
  for (const Site& s : x.sites) m.push_back(s.exception_written + ": " + s.message.Display());
  EXPECT_TRUE(Has(m, "ConfigError::Missing: missing key {0}"));
  EXPECT_TRUE(Has(m, "ConfigError::Bad: bad value for {key}: {value}"));
  EXPECT_TRUE(Has(m, "anyhow::Error: reading config"));
  EXPECT_TRUE(Has(m, "anyhow::Error: cannot parse {p}"));
  EXPECT_EQ(x.sites.size(), 4u);
}

TEST(RustExtractor, LetBindingsAndConversionsAreFollowed) {
  std::vector<std::string> m = Messages(
      "fn f(n: usize) -> PyResult<()> {\n"
      "    let msg = format!(\"need {} items\", n);\n"
      "    Err(PyValueError::new_err(msg))\n"
      "}\n"
      "fn g() -> PyResult<()> { Err(PyRuntimeError::new_err(\"plain\".to_string())) }\n"
      "fn h(m: String) -> PyResult<()> { Err(PyRuntimeError::new_err(m)) }\n");
  EXPECT_TRUE(Has(m, "ValueError: need {n} items"));
  EXPECT_TRUE(Has(m, "RuntimeError: plain"));
  EXPECT_TRUE(Has(m, "RuntimeError: {m}"));  // kept, and flagged dynamic by the catalog
}

// The names a message is built in, on the shared data flow: each text that
// reaches the sink, and none that does not.
TEST(RustExtractor, EveryDefinitionThatReachesTheSinkIsAMessage) {
  std::vector<std::string> m = Messages(
      "fn branches(c: bool) -> PyResult<()> {\n"
      "    let msg;\n"
      "    if c { msg = \"first reason\"; } else { msg = \"second reason\"; }\n"
      "    Err(PyValueError::new_err(msg))\n"
      "}\n"
      "fn inner_block() -> PyResult<()> {\n"
      "    let note = \"outer text\";\n"
      "    { let note = \"inner text\"; log(note); }\n"
      "    Err(PyKeyError::new_err(note))\n"
      "}\n"
      "fn if_value(n: usize) -> PyResult<()> {\n"
      "    let what = if n == 0 { \"no items\" } else { \"too many items\" };\n"
      "    Err(PyTypeError::new_err(what))\n"
      "}\n"
      "fn arms(k: Kind) -> PyResult<()> {\n"
      "    let text = match k { Kind::A => \"kind a is wrong\", Kind::B => { \"kind b is wrong\" } "
      "Kind::C => return Ok(()) };\n"
      "    Err(PyOSError::new_err(text))\n"
      "}\n"
      "fn appended(n: usize) -> PyResult<()> {\n"
      "    let mut s = String::from(\"found \");\n"
      "    s.push_str(\"nothing\");\n"
      "    if n > 1 { s += \" at all\"; }\n"
      "    Err(PyIndexError::new_err(s))\n"
      "}\n"
      "fn killed() -> PyResult<()> {\n"
      "    let mut m = \"never raised\";\n"
      "    m = \"the one raised\";\n"
      "    Err(PyRuntimeError::new_err(m))\n"
      "}\n");
  EXPECT_TRUE(Has(m, "ValueError: first reason"));
  EXPECT_TRUE(Has(m, "ValueError: second reason"));
  EXPECT_TRUE(Has(m, "KeyError: outer text"));
  EXPECT_FALSE(Has(m, "KeyError: inner text"));  // the inner `let` ends with its block
  EXPECT_TRUE(Has(m, "TypeError: no items"));
  EXPECT_TRUE(Has(m, "TypeError: too many items"));
  EXPECT_TRUE(Has(m, "OSError: kind a is wrong"));
  EXPECT_TRUE(Has(m, "OSError: kind b is wrong"));
  EXPECT_TRUE(Has(m, "IndexError: found nothing"));
  EXPECT_TRUE(Has(m, "IndexError: found nothing at all"));
  EXPECT_TRUE(Has(m, "RuntimeError: the one raised"));
  EXPECT_FALSE(Has(m, "RuntimeError: never raised"));
  EXPECT_EQ(std::count_if(m.begin(), m.end(),
                          [](const std::string& x) { return x.rfind("OSError", 0) == 0; }),
            2);  // the arm that returns gives no text
}

TEST(RustExtractor, ClosuresLoopsAndLabelledBreaks) {
  std::vector<std::string> m = Messages(
      "fn captured(r: Result<(), E>) {\n"
      "    let module = \"tokenizers\";\n"
      "    r.unwrap_or_else(|_| panic!(\"failed to load {}\", module));\n"
      "}\n"
      "fn shadowed(v: Vec<String>) {\n"
      "    let name = \"outer\";\n"
      "    v.iter().for_each(|name| panic!(\"bad entry {}\", name));\n"
      "}\n"
      "fn from_a_loop(items: &[u8]) -> anyhow::Result<()> {\n"
      "    let mut why = \"empty input\";\n"
      "    'scan: for b in items {\n"
      "        loop {\n"
      "            if *b == 0 { why = \"a zero byte\"; break 'scan; }\n"
      "            break;\n"
      "        }\n"
      "        why = \"no zero byte\";\n"
      "    }\n"
      "    anyhow::bail!(why)\n"
      "}\n"
      "fn left_by_break() -> anyhow::Result<()> {\n"
      "    let reason = \"the outer reason\";\n"
      "    loop { let reason = \"an inner reason\"; if ok(reason) { break; } }\n"
      "    anyhow::bail!(reason)\n"
      "}\n"
      "fn context(p: &Path) -> anyhow::Result<()> {\n"
      "    std::fs::create_dir(p).with_context(|| { format!(\"cannot create {}\", p.display()) })\n"
      "}\n");
  EXPECT_TRUE(Has(m, "panic: failed to load tokenizers"));
  EXPECT_TRUE(Has(m, "panic: bad entry {name}"));  // the closure's parameter, not the outer let
  EXPECT_TRUE(Has(m, "anyhow::Error: empty input"));
  EXPECT_TRUE(Has(m, "anyhow::Error: a zero byte"));  // past the rest of the outer loop's body
  EXPECT_TRUE(Has(m, "anyhow::Error: no zero byte"));
  EXPECT_TRUE(Has(m, "anyhow::Error: cannot create {p.display()}"));
  EXPECT_TRUE(Has(m, "anyhow::Error: the outer reason"));
  EXPECT_FALSE(Has(m, "anyhow::Error: an inner reason"));  // a break leaves the let's block
}

TEST(RustExtractor, MessageTableIsOneErrorPerArmWrittenAsTheVariant) {
  Extraction x =
      ExtractRustSource("src/errors/types.rs",
                        "impl ErrorType {\n"
                        "    pub fn message_template_python(&self) -> &'static str {\n"
                        "        match self {\n"
                        "            Self::IntParsing { .. } => \"Input should be a valid integer, "
                        "unable to parse\",\n"
                        "            Self::TooLong { .. } => {\n"
                        "                \"{field_type} should have at most {max_length} items\"\n"
                        "            }\n"
                        "            Self::CustomError { .. } => \"\",\n"
                        "        }\n"
                        "    }\n"
                        "    pub fn name(&self) -> &'static str {\n"
                        "        match self { Self::IntParsing { .. } => \"int_parsing\", "
                        "Self::TooLong { .. } => \"too_long\" }\n"
                        "    }\n"
                        "}\n");
  ASSERT_EQ(x.sites.size(), 2u);
  EXPECT_EQ(x.sites[0].exception, "ErrorType");
  EXPECT_EQ(x.sites[0].exception_written, "ErrorType::IntParsing");
  EXPECT_EQ(x.sites[0].kind, SiteKind::kReturn);
  EXPECT_EQ(x.sites[0].function, "ErrorType::message_template_python");
  EXPECT_EQ(x.sites[0].line, 4);
  ASSERT_EQ(x.sites[0].guards.size(), 1u);
  EXPECT_EQ(x.sites[0].guards[0].kind, "case");
  EXPECT_EQ(x.sites[0].guards[0].subject, "self");
  EXPECT_EQ(x.sites[1].message.Display(), "{field_type} should have at most {max_length} items");
}

TEST(RustExtractor, GuardsFromIfAndMatchArms) {
  Extraction x = ExtractRustSource("src/lib.rs",
                                   "fn f(x: i32, k: Kind) {\n"
                                   "    if x > 3 && k.ok() {\n"
                                   "        match k {\n"
                                   "            Kind::A => {}\n"
                                   "            _ => panic!(\"bad kind\"),\n"
                                   "        }\n"
                                   "    } else {\n"
                                   "        panic!(\"small\");\n"
                                   "    }\n"
                                   "}\n");
  ASSERT_EQ(x.sites.size(), 2u);
  ASSERT_EQ(x.sites[0].guards.size(), 2u);
  EXPECT_EQ(x.sites[0].guards[0].code, "x > 3 && k.ok()");
  EXPECT_FALSE(x.sites[0].guards[0].negated);
  EXPECT_EQ(x.sites[0].guards[1].kind, "default-case");
  EXPECT_EQ(x.sites[0].guards[1].code, "_");
  EXPECT_EQ(x.sites[0].guards[1].values, std::vector<std::string>{"Kind::A"});
  ASSERT_EQ(x.sites[1].guards.size(), 1u);
  EXPECT_TRUE(x.sites[1].guards[0].negated);
  EXPECT_FALSE(x.sites[1].trigger.empty());
}

TEST(RustExtractor, DisplayImplsOfErrorTypesOnly) {
  std::vector<std::string> m = Messages(
      "impl fmt::Display for ParseError {\n"
      "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
      "        write!(f, \"parse error at {}\", self.pos)\n"
      "    }\n"
      "}\n"
      "impl fmt::Display for Point {\n"
      "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, \"({}, {})\", self.x, "
      "self.y) }\n"
      "}\n");
  EXPECT_TRUE(Has(m, "ParseError: parse error at {self.pos}"));
  EXPECT_EQ(m.size(), 1u);
}

// A type no error is named after (`Kind`) prints its words through the
// error that holds it: each arm of its Display is one text of the error's
// own Display and of a method formatting its fields, and a raise printing
// that method's text raises each of them, at the arm that wrote its words.
TEST(RustExtractor, DisplayOfAFieldsTypeComposesTheErrorsText) {
  Extraction x = ExtractRustSource(
      "src/lib.rs",
      "pub enum Kind { Eof, BadEscape, Dup(String) }\n"
      "impl fmt::Display for Kind {\n"
      "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
      "        match self {\n"
      "            Self::Eof => f.write_str(\"unexpected end\"),\n"
      "            Self::BadEscape => f.write_str(\"bad escape\"),\n"
      "            Self::Dup(s) => write!(f, \"duplicate {s:?}\"),\n"
      "        }\n"
      "    }\n"
      "}\n"
      "pub struct Position { line: usize, col: usize }\n"
      "impl fmt::Display for Position {\n"
      "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
      "        write!(f, \"line {} col {}\", self.line, self.col)\n"
      "    }\n"
      "}\n"
      "pub struct ParseError { kind: Kind, at: usize }\n"
      "impl ParseError {\n"
      "    fn position(&self, data: &[u8]) -> Position { Position { line: 1, col: self.at } }\n"
      "    pub fn describe(&self, data: &[u8]) -> String {\n"
      "        let pos = self.position(data);\n"
      "        format!(\"{} at {}\", self.kind, pos)\n"
      "    }\n"
      "}\n"
      "impl fmt::Display for ParseError {\n"
      "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
      "        write!(f, \"{} at byte {}\", self.kind, self.at)\n"
      "    }\n"
      "}\n"
      "impl std::error::Error for ParseError {}\n"
      "pub fn to_py(data: &[u8], e: &ParseError) -> PyErr {\n"
      "    PyValueError::new_err(e.describe(data))\n"
      "}\n"
      "pub fn shown(e: ParseError) -> PyErr { PyTypeError::new_err(e.to_string()) }\n"
      "pub fn debug(kind: Kind) -> PyErr { PyRuntimeError::new_err(format!(\"kind {:?}\", "
      "kind)) }\n"
      "pub struct Name(String);\n"
      "impl fmt::Display for Name {\n"
      "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, \"{}\", self.0) }\n"
      "}\n"
      "pub fn named(n: &Name) -> PyErr { PyKeyError::new_err(format!(\"no key {}\", n)) }\n");
  std::vector<std::string> m;
  for (const Site& s : x.sites) m.push_back(s.exception + ": " + s.message.Display());
  EXPECT_TRUE(Has(m, "ValueError: unexpected end at line {self.line} col {self.col}"));
  EXPECT_TRUE(Has(m, "ValueError: bad escape at line {self.line} col {self.col}"));
  EXPECT_TRUE(Has(m, "ValueError: duplicate {s} at line {self.line} col {self.col}"))
      << ::testing::PrintToString(m);
  // Debug prints no Display.
  EXPECT_TRUE(Has(m, "RuntimeError: kind {kind}"));
  EXPECT_FALSE(Has(m, "RuntimeError: kind unexpected end"));
  // A type printing a value alone adds no words to the raise.
  EXPECT_TRUE(Has(m, "KeyError: no key {n}"));
  EXPECT_FALSE(Has(m, "KeyError: no key {self.0}"));
  EXPECT_TRUE(Has(m, "ParseError: unexpected end at byte {self.at}"));
  EXPECT_TRUE(Has(m, "TypeError: bad escape at byte {self.at}"));
  // Kind and Position are no errors: their words alone are raised nowhere.
  EXPECT_FALSE(Has(m, "Kind: unexpected end"));
  EXPECT_FALSE(std::any_of(m.begin(), m.end(),
                           [](const std::string& t) { return t.rfind("Position: ", 0) == 0; }));
  for (const Site& s : x.sites) {
    std::string t = s.message.Display();
    if (t.rfind("unexpected end at", 0) == 0) {
      EXPECT_EQ(s.line, 5) << t;  // the arm, where the words are chosen
    } else if (t.rfind("duplicate", 0) == 0) {
      EXPECT_EQ(s.line, 7) << t;
    }
    if (s.exception == "ValueError" && t.rfind("bad escape", 0) == 0) {
      EXPECT_EQ(s.via, "ParseError::describe");
      EXPECT_EQ(s.function, "Kind::fmt");
    }
  }
}

// thiserror's `#[error("config: {0}")]` is its type's Display: a field it
// prints whose type the crate declares composes that type's texts, at the
// attribute that chose them, raised as the outer variant.
TEST(RustExtractor, ThiserrorTextsComposeTheErrorsTheyWrap) {
  Extraction x = ExtractRustSource("src/lib.rs",
                                   "#[derive(Debug, thiserror::Error)]\n"
                                   "pub enum ConfigError {\n"
                                   "    #[error(\"missing key {0}\")]\n"
                                   "    Missing(String),\n"
                                   "    #[error(\"bad value\")]\n"
                                   "    Bad,\n"
                                   "}\n"
                                   "#[derive(Debug, thiserror::Error)]\n"
                                   "pub enum AppError {\n"
                                   "    #[error(\"config: {0}\")]\n"
                                   "    Config(#[from] ConfigError),\n"
                                   "    #[error(\"at {path}: {source}\")]\n"
                                   "    Io { path: String, source: std::io::Error },\n"
                                   "    #[error(\"{0}\")]\n"
                                   "    Other(String),\n"
                                   "}\n");
  std::vector<std::string> m;
  for (const Site& s : x.sites) m.push_back(s.exception_written + ": " + s.message.Display());
  EXPECT_TRUE(Has(m, "AppError::Config: config: bad value")) << ::testing::PrintToString(m);
  EXPECT_TRUE(Has(m, "AppError::Config: config: missing key {0}"));
  EXPECT_TRUE(Has(m, "AppError::Config: config: {0}"));
  EXPECT_TRUE(Has(m, "AppError::Io: at {path}: {source}"));
  EXPECT_TRUE(Has(m, "ConfigError::Bad: bad value"));
  EXPECT_TRUE(Has(m, "AppError::Other: {0}"));  // a value alone, as thiserror writes it
  EXPECT_EQ(m.size(), 7u);
  for (const Site& s : x.sites) {
    if (s.message.Display() == "config: bad value") {
      EXPECT_EQ(s.line, 5);
    }
  }
}

// Composition is bounded: a Display that prints itself, a type nested in
// itself, and a type of more arms than a composition may have end, and
// leave the value a value.
TEST(RustExtractor, ComposedDisplaysOfHostileTypesEnd) {
  std::string many = "pub enum Many {";
  std::string arms;
  for (int i = 0; i < 300; ++i) {
    many += " V" + std::to_string(i) + ",";
    arms += "Self::V" + std::to_string(i) + " => f.write_str(\"many text " + std::to_string(i) +
            "\"),\n";
  }
  many += " }\n";
  Extraction x = ExtractRustSource(
      "src/lib.rs",
      many +
          "impl fmt::Display for Many {\n"
          "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { match self {\n" +
          arms +
          "    } }\n"
          "}\n"
          "pub enum Expr { Neg(Box<Expr>), Lit }\n"
          "impl fmt::Display for Expr {\n"
          "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
          "        match self { Self::Neg(e) => write!(f, \"-{}\", e), Self::Lit => "
          "f.write_str(\"lit\") }\n"
          "    }\n"
          "}\n"
          "pub struct LoopError;\n"
          "impl fmt::Display for LoopError {\n"
          "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, \"loop {}\", self) "
          "}\n"
          "}\n"
          "pub struct ExprError { e: Expr, m: Many }\n"
          "impl fmt::Display for ExprError {\n"
          "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
          "        write!(f, \"bad {} in {}\", self.e, self.m)\n"
          "    }\n"
          "}\n");
  std::vector<std::string> m;
  for (const Site& s : x.sites) m.push_back(s.exception + ": " + s.message.Display());
  EXPECT_TRUE(Has(m, "ExprError: bad lit in {self.m}"));
  EXPECT_TRUE(Has(m, "LoopError: loop {self}"));
  EXPECT_LT(m.size(), 40u);
  for (const std::string& t : m) EXPECT_EQ(t.find("many text"), std::string::npos) << t;
}

TEST(RustExtractor, SinksInsideAnotherMacrosTokens) {
  std::vector<std::string> m = Messages(
      "rgtest!(case, |dir: Dir| {\n"
      "    assert!(got.contains(\"x\"), \"missing x in:\\n{}\", got);\n"
      "    let v = w.expect(\"w set\");\n"
      "    setter!(self_, Trainer, tokens, Err(exceptions::PyTypeError::new_err(\"bad "
      "tokens\")));\n"
      "});\n");
  EXPECT_TRUE(Has(m, "panic: missing x in:\n{got}"));
  EXPECT_TRUE(Has(m, "panic: w set"));
  EXPECT_TRUE(Has(m, "TypeError: bad tokens"));
}

// `concat!` given to a macro as its format is the format its pieces make,
// and `stringify!` the text of its tokens.
TEST(RustExtractor, ConcatIsTheFormatOfTheMacroGivenIt) {
  std::vector<std::string> m = Messages(
      "fn f(v: &str) -> PyResult<()> {\n"
      "    if v.is_empty() { panic!(concat!(\"bad \", stringify!(Mode), \": `{}`\"), v); }\n"
      "    Err(PyValueError::new_err(format!(concat!(\"no \", \"{}\"), v)))\n"
      "}\n");
  EXPECT_TRUE(Has(m, "panic: bad Mode: `{v}`")) << ::testing::PrintToString(m);
  EXPECT_TRUE(Has(m, "ValueError: no {v}"));
}

TEST(RustExtractor, TestsAreNotTheLibrarys) {
  std::vector<std::string> m = Messages(
      "#[cfg(test)]\n"
      "mod tests {\n"
      "    #[test]\n"
      "    fn t() { panic!(\"in a test\"); }\n"
      "}\n"
      "#[test]\n"
      "fn u() { panic!(\"also a test\"); }\n");
  EXPECT_TRUE(m.empty());
}

// A `macro_rules!` body is tokens to the grammar; its sinks are read from
// a copy parsed as Rust, at their lines in the body, with what the caller
// passes (`$name`, a repetition) as values. What a rule only hands on (a
// message or a type its caller writes) raises nothing there.
TEST(RustExtractor, SinksInsideMacroRulesBodiesAreReadAtTheirLines) {
  Extraction x = ExtractRustSource(
      "src/serializers/config.rs",
      "macro_rules! serialization_mode {\n"
      "    ($name:ident, $($variant:ident => $value:expr),* $(,)?) => {\n"
      "        impl FromStr for $name {\n"
      "            fn from_str(s: &str) -> Result<Self, PyErr> {\n"
      "                match s {\n"
      "                    $($value => Ok(Self::$variant),)*\n"
      "                    s => Err(PyValueError::new_err(format!(\n"
      "                        concat!(\"Invalid \", stringify!($name), \" mode: `{}`, expected "
      "\", "
      "$($value, \" or \"),*),\n"
      "                        s\n"
      "                    ))),\n"
      "                }\n"
      "            }\n"
      "        }\n"
      "    };\n"
      "}\n"
      "macro_rules! combined {\n"
      "    ($($b:path;)*) => {\n"
      "        fn find(lookup_type: &str) -> PyResult<()> {\n"
      "            match lookup_type {\n"
      "                $(<$b>::EXPECTED => match <$b>::build() {\n"
      "                    Ok(s) => Ok(s),\n"
      "                    Err(err) => Err(PyTypeError::new_err(format!(\"Error building "
      "`{lookup_type}`: {err}\"))),\n"
      "                },)*\n"
      "                _ => panic!(\"Unknown type: `{}`\", lookup_type),\n"
      "            }\n"
      "        }\n"
      "    };\n"
      "}\n"
      "macro_rules! check {\n"
      "    ($x:expr) => { if $x < 0 { panic!(\"negative: {}\", $x) } };\n"
      "    ($x:expr, $y:expr) => ( assert!($x < $y, \"{} not below {}\", $x, $y) );\n"
      "}\n"
      "macro_rules! forward { ($t:ty; $msg:expr) => { Err(PyErr::new::<$t, _>($msg)) }; }\n"
      "macro_rules! typed_by_caller { ($t:ty) => { PyErr::new::<$t, _>(\"bad value\") }; }\n"
      "macro_rules! just_formats { ($($a:tt)*) => { println!(\"not an error {}\", 1); "
      "format!($($a)*) }; }\n"
      "macro_rules! assert_eq_py { ($v:expr, $e:expr) => { assert!($v.eq($e).unwrap()); }; }\n");
  std::vector<std::string> m;
  for (const Site& s : x.sites) {
    m.push_back(s.exception + ": " + s.message.Display() + " @" + std::to_string(s.line) + " " +
                s.function);
  }
  EXPECT_TRUE(Has(m,
                  "ValueError: Invalid {name} mode: `{s}`, expected {value} or  @7 "
                  "$name::from_str"))
      << ::testing::PrintToString(m);
  EXPECT_TRUE(Has(m, "TypeError: Error building `{lookup_type}`: {err} @22 find"));
  EXPECT_TRUE(Has(m, "panic: Unknown type: `{lookup_type}` @24 find"));
  EXPECT_TRUE(Has(m, "panic: negative: {x} @30 check!"));
  EXPECT_TRUE(Has(m, "panic: {x} not below {y} @31 check!"));
  EXPECT_TRUE(Has(m, "panic: assertion failed: {v.eq(e).unwrap()} @36 assert_eq_py!"));
  EXPECT_EQ(m.size(), 6u) << ::testing::PrintToString(m);
  for (const Site& s : x.sites) {
    if (s.line == 24) {
      ASSERT_EQ(s.guards.size(), 1u);
      EXPECT_EQ(s.guards[0].kind, "default-case");
      EXPECT_TRUE(s.guards[0].values.empty());  // the caller's `<$b>::EXPECTED`s
    }
    if (s.line == 30) {
      ASSERT_EQ(s.guards.size(), 1u);
      EXPECT_EQ(s.guards[0].code, "$x < 0");
      EXPECT_NE(s.statement.find("$x"), std::string::npos) << s.statement;
    }
  }
}

// A crate's raising macro called inside another macro's body raises there
// (pydantic-core's `py_schema_err!` in the rules of `combined_serializer!`).
TEST(RustExtractor, ACratesRaisingMacroInsideAMacroBodyRaises) {
  std::vector<std::string> m = Messages(
      "macro_rules! schema_err {\n"
      "    ($( $msg_args:expr ),+ ) => { Err(py_error_type!(SchemaError; $( $msg_args ),+)) };\n"
      "}\n"
      "macro_rules! modes {\n"
      "    ($name:ident) => {\n"
      "        fn parse(s: &str) -> PyResult<$name> {\n"
      "            schema_err!(concat!(\"Invalid \", stringify!($name), \": `{}`\"), s)\n"
      "        }\n"
      "    };\n"
      "}\n");
  EXPECT_TRUE(Has(m, "SchemaError: Invalid {name}: `{s}`")) << ::testing::PrintToString(m);
  EXPECT_EQ(m.size(), 1u) << ::testing::PrintToString(m);
}

TEST(RustExtractor, EscapesAndRawStrings) {
  std::vector<std::string> m = Messages(
      "fn f() {\n"
      "    panic!(\"tab\\there \\u{e9} {{literal}} \\\n"
      "            continued\");\n"
      "    panic!(r#\"raw \"quoted\" {}\"#, 1);\n"
      "}\n");
  EXPECT_TRUE(Has(m, "panic: tab\there \xC3\xA9 {{literal}} continued"));
  EXPECT_TRUE(Has(m, "panic: raw \"quoted\" 1"));
}

TEST(RustExtractor, HostileMacroBodiesEnd) {
  // Token trees nested far deeper than the walk goes, repetitions inside
  // repetitions, a definition cut short: read without a stack overflow.
  std::string deep = "macro_rules! m { ($a:expr) => { " + std::string(20000, '(') + "$a" +
                     std::string(20000, ')') + " }; }\n";
  std::string reps = "macro_rules! r { ($($a:tt)*) => { ";
  for (int i = 0; i < 5000; ++i) reps += "$( ";
  reps += "panic!(\"deep {}\", $a)";
  for (int i = 0; i < 5000; ++i) reps += " )*";
  reps += " }; }\n";
  for (const std::string& code :
       {deep, reps, std::string("macro_rules! cut { ($a:expr) => { panic!(\"cut {}\", $a)"),
        std::string("macro_rules!{()=>{}}"), std::string("macro_rules! e {}"),
        std::string("macro_rules! x { () => {} ; () => ( panic!(\"two\") ) }")}) {
    Extraction x = ExtractRustSource("src/m.rs", code);
    for (const Site& s : x.sites) EXPECT_FALSE(s.message.empty());
  }
}

TEST(RustExtractor, HostileInputIsReportedNotCrashedOn) {
  // Not UTF-8: skipped with a reason.
  Extraction bad = ExtractRustSource("src/a.rs", std::string("fn f() { panic!(\"\xff\"); }"));
  ASSERT_EQ(bad.issues.size(), 1u);
  EXPECT_EQ(bad.issues[0].reason, "not-utf8");
  // Nesting far deeper than the walk goes: recovered, not a stack overflow.
  std::string deep = "fn f() { let x = " + std::string(20000, '(') + "1" + std::string(20000, ')') +
                     "; panic!(\"after\"); }";
  Extraction d = ExtractRustSource("src/b.rs", deep);
  EXPECT_FALSE(d.issues.empty());
  // Broken syntax: what parses is still read.
  Extraction broken = ExtractRustSource("src/c.rs", "fn f( { panic!(\"still here\"); ");
  EXPECT_FALSE(broken.sites.empty());
}

// A macro named like a primitive type (snapbox's `str!`, in every cargo
// test) parses as a macro: no syntax error, and the sinks after it are read
// with their text as written.
TEST(RustExtractor, MacrosNamedLikePrimitiveTypesParse) {
  std::string code =
      "fn f(p: P) {\n"
      "    let v = str![\"1.43.0-beta.1\"];\n"
      "    p.with(snapbox::str![[r#\"\nout\n\"#]]);\n"
      "    let s = \"str![\";\n"
      "    panic!(\"after {}\", v);\n"
      "}\n";
  Extraction x = ExtractRustSource("tests/a.rs", code);
  EXPECT_TRUE(x.issues.empty()) << x.issues[0].detail;
  ASSERT_EQ(x.sites.size(), 1u);
  EXPECT_EQ(x.sites[0].message.Display(), "after {v}");
  EXPECT_NE(x.sites[0].excerpt.find("str![\"1.43.0-beta.1\"]"), std::string::npos);
  std::string parsed = rust::ParseableRust(code);
  ASSERT_EQ(parsed.size(), code.size());
  EXPECT_NE(parsed.find("_tr![\"1.43"), std::string::npos);
  EXPECT_NE(parsed.find("snapbox::_tr![["), std::string::npos);
  // Inside a string the renaming changes no token: harmless, and not worth a lexer.
  EXPECT_NE(parsed.find("\"_tr![\""), std::string::npos);
  EXPECT_EQ(rust::ParseableRust("fn f() { panic!(\"x\"); let r#str = 1; }"), "");
}

// A function raising with what it is passed is a helper: each call passing
// text raises that text where the call is written. Methods are named with
// their type: `self.m(..)`, `Self::m(..)` and `Type::m(x, ..)` reach
// `Type::m`, a method of another type of that name is not reached, and a
// call on a receiver of unknown type reaches nothing.
TEST(RustExtractor, HelpersRaiseTheirCallersText) {
  std::vector<std::string> m = Messages(
      "fn invalid(what: &str) -> PyErr {\n"
      "    PyValueError::new_err(format!(\"invalid {what}\"))\n"
      "}\n"
      "fn fail(msg: String) -> ! {\n"
      "    let text = msg.to_string();\n"
      "    panic!(\"failed: {:?}\", text)\n"
      "}\n"
      "fn again(m: &str) -> PyErr { invalid(m) }\n"
      "struct P { pos: usize }\n"
      "impl P {\n"
      "    fn error(&self, msg: &str) -> PyErr {\n"
      "        PySyntaxError::new_err(format!(\"{} at {}\", msg, self.pos))\n"
      "    }\n"
      "    fn run(&self, q: &Q) -> PyErr {\n"
      "        let e = self.error(\"unexpected end\");\n"
      "        let f = Self::error(self, \"bad token\");\n"
      "        let g = P::error(self, &format!(\"line {}\", 3));\n"
      "        let h = q.error(\"not P's\");\n"
      "        fail(\"quote\\\"d\".to_string());\n"
      "        again(if self.pos > 0 { \"later\" } else { \"first\" })\n"
      "    }\n"
      "}\n"
      "struct Q;\n"
      "impl Q { fn error(&self, other: &str) -> PyErr { PyKeyError::new_err(other.to_owned()) } }\n"
      "fn unrelated() { let r = Regex::new(\"a+b\"); let s = String::from(\"x y\"); }\n");
  EXPECT_TRUE(Has(m, "ValueError: invalid {what}"));
  EXPECT_TRUE(Has(m, "SyntaxError: unexpected end at {self.pos}"));
  EXPECT_TRUE(Has(m, "SyntaxError: bad token at {self.pos}"));
  EXPECT_TRUE(Has(m, "SyntaxError: line 3 at {self.pos}"));
  EXPECT_TRUE(Has(m, "panic: failed: \"quote\\\"d\""));
  EXPECT_TRUE(Has(m, "ValueError: invalid later"));
  EXPECT_TRUE(Has(m, "ValueError: invalid first"));
  for (const std::string& s : m) {
    EXPECT_EQ(s.find("not P's"), std::string::npos) << s;
    EXPECT_EQ(s.find("a+b"), std::string::npos) << s;
    EXPECT_EQ(s.find("x y"), std::string::npos) << s;
  }
}

// A message built up in a local: `write!`/`writeln!` append their text, a
// function the local is lent to (`&mut m`) may append what errdex cannot
// see (the template ends in a value, not cut short); a local assigned in
// branches passed to a format gives one message per branch; a number
// prints as written.
TEST(RustExtractor, MessagesBuiltUpInALocal) {
  std::vector<std::string> m = Messages(
      "use std::fmt::Write;\n"
      "fn f(names: &[&str], wide: bool) -> PyResult<()> {\n"
      "    let mut msg = String::from(\"missing: \");\n"
      "    push_list(&mut msg, names);\n"
      "    if names.is_empty() { return Err(PyTypeError::new_err(msg)); }\n"
      "    let mut w = String::from(\"found:\");\n"
      "    for n in names { write!(&mut w, \" {}\", n).unwrap(); }\n"
      "    writeln!(w, \" end\").unwrap();\n"
      "    if wide { bail!(\"{}\", w); }\n"
      "    let bits = match wide { true => 64, false => 32 };\n"
      "    bail!(\"need {}-bit, not {}\", bits, names.len())\n"
      "}\n");
  EXPECT_TRUE(Has(m, "TypeError: missing: {push_list(&mut msg, names)}"));
  EXPECT_TRUE(Has(m, "anyhow::Error: found: end\n"));
  EXPECT_TRUE(Has(m, "anyhow::Error: found:{w...} end\n"));  // the loop adds any number
  EXPECT_TRUE(Has(m, "anyhow::Error: need 64-bit, not {names.len()}"));
  EXPECT_TRUE(Has(m, "anyhow::Error: need 32-bit, not {names.len()}"));
}

// What a review found listed at calls that print something else, each
// confirmed by running the program: a parameter shadowed or changed before
// the raise, a call of a local closure, a parameter or another module's
// function of the helper's name, a helper that tests the parameter, a raise
// in a closure it returns or in a trait's default, a padded slot, numbers
// added with `+=`, a string lent to `mem::take`, an append in a loop, one
// variable printed twice, Debug of a byte string or a number.
TEST(RustExtractor, WhatACallDoesNotPrintIsNotListedAtIt) {
  std::vector<std::string> m = Messages(
      "fn shadowed(msg: &str, r: Result<(), String>) {\n"
      "    if let Err(msg) = r { panic!(\"e: {}\", msg) }\n"
      "    let msg = msg.trim(); panic!(\"tr: {}\", msg)\n"
      "}\n"
      "fn in_closure(msg: &str) { let g = |msg: &str| panic!(\"c: {}\", msg); g(\"inner\") }\n"
      "fn later(msg: &str) -> impl Fn() + '_ { move || panic!(\"later: {}\", msg) }\n"
      "fn nonempty(m: &str) { if m.is_empty() { panic!(\"empty name: {:?}\", m) } }\n"
      "fn pad(m: &str) { panic!(\"[{:>8}]\", m) }\n"
      "fn bytes(b: &[u8]) { panic!(\"{:?}\", b) }\n"
      "fn oops(m: &str) { panic!(\"oops: {}\", m) }\n"
      "mod a { pub fn fail(m: &str) { panic!(\"a: {}\", m) } }\n"
      "mod b { fn fail(m: &str) { println!(\"{}\", m) } pub fn go() { fail(\"x\") } }\n"
      "trait T { fn helper(&self, m: &str) { panic!(\"T: {}\", m) } fn run(&self) { "
      "self.helper(\"d\") } }\n"
      "fn calls(check: impl Fn(&str)) {\n"
      "    shadowed(\"ctx\", Ok(()));\n"
      "    in_closure(\"outer\");\n"
      "    later(\"x\");\n"
      "    nonempty(\"abc\");\n"
      "    pad(\"ab\");\n"
      "    bytes(b\"ab\");\n"
      "    let oops = |m: &str| println!(\"{}\", m); oops(\"z\");\n"
      "    let check2 = 1; check(\"w\");\n"
      "}\n"
      "fn n1() { let mut n = 1; n += 1; panic!(\"n={}\", n) }\n"
      "fn n2() { let mut s = String::from(\"abc\"); let _ = std::mem::take(&mut s); "
      "panic!(\"[{}]\", s) }\n"
      "fn n3() { let mut l = String::from(\"L\"); for _ in 0..3 { l.push_str(\"y\"); } "
      "panic!(\"<{}>\", l) }\n"
      "fn n4(c: bool) { let k = if c { \"x\" } else { \"y\" }; panic!(\"{} {}\", k, k) }\n"
      "fn n5() { let z = 007; panic!(\"z={}\", z) }\n");
  for (const char* text :
       {"e: ctx", "tr: ctx", "c: outer", "later: x", "empty name: \"abc\"", "[ab]", "\"ab\"",
        "oops: z", "a: x", "T: d", "n=11", "n=2", "[abc", "<Ly>", "x y", "y x", "z=007"}) {
    EXPECT_FALSE(Has(m, std::string("panic: ") + text)) << text;
  }
  EXPECT_TRUE(Has(m, "panic: [{m:>8}]"));
  EXPECT_TRUE(Has(m, "panic: n={n}"));
  EXPECT_TRUE(Has(m, "panic: [{s}]"));
  EXPECT_TRUE(Has(m, "panic: <L>"));
  EXPECT_TRUE(Has(m, "panic: <L{l...}>"));
  EXPECT_TRUE(Has(m, "panic: x x"));
  EXPECT_TRUE(Has(m, "panic: y y"));
  EXPECT_TRUE(Has(m, "panic: z=7"));

  // A second review's: a parameter changed by a method before the raise, a
  // raise after `return`, and a parser's own `expect` taken for Option's.
  m = Messages(
      "fn ins(mut m: String) -> ! { m.insert(0, '>'); panic!(\"in {}\", m) }\n"
      "fn upc(mut m: String) -> ! { m.make_ascii_uppercase(); panic!(\"up {}\", m) }\n"
      "fn ret(m: &str) { return; panic!(\"ret {}\", m) }\n"
      "struct P;\n"
      "impl P { fn expect(&mut self, tok: &str) -> bool { false } }\n"
      "fn want(p: &mut P, what: &str) -> bool { p.expect(what) }\n"
      "fn calls(p: &mut P) {\n"
      "    ins(\"abc\".to_string()); upc(\"abc\".to_string()); ret(\"g\"); want(p, "
      "\"semicolon\");\n"
      "}\n");
  for (const char* text : {"in abc", "up abc", "ret g", "semicolon"}) {
    EXPECT_FALSE(Has(m, std::string("panic: ") + text)) << text;
  }
}

// `PyErr::warn` raises its category where Python's warning filters say
// "error": the class its type object names, written there or in a `let`,
// and the text of the C string it is given.
TEST(RustExtractor, PyErrWarnRaisesItsCategory) {
  Extraction x = ExtractRustSource(
      "src/lib.rs",
      "fn check(py: Python, mode: u8) -> PyResult<()> {\n"
      "    let message = format!(\"serializer warnings: {}\", mode);\n"
      "    let category = PyUserWarning::type_object(py);\n"
      "    PyErr::warn(py, &category, &CString::new(message)?, 0)?;\n"
      "    let _ = PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyDeprecationWarning>(),\n"
      "        c_str!(\"OLD_VAR is deprecated\"), 1);\n"
      "    Logger::warn(py, &category, &CString::new(\"a logger's\")?, 0);\n"
      "    let builtin = py.import(\"builtins\")?.getattr(\"FutureWarning\")?;\n"
      "    PyErr::warn(py, &builtin, &CString::new(\"by name\")?, 0)?;\n"
      "    PyErr::warn(py, &some_category(), &CString::new(\"unknown category\")?, 0)\n"
      "}\n");
  std::vector<std::string> m;
  for (const Site& s : x.sites) {
    m.push_back(s.exception + ": " + s.message.Display());
    EXPECT_EQ(s.kind, SiteKind::kWarning);
  }
  EXPECT_TRUE(Has(m, "UserWarning: serializer warnings: {mode}"));
  EXPECT_TRUE(Has(m, "DeprecationWarning: OLD_VAR is deprecated"));
  EXPECT_TRUE(Has(m, "FutureWarning: by name"));
  EXPECT_TRUE(Has(m, "Warning: unknown category"));
  EXPECT_EQ(m.size(), 4u);
}

// A message written as a `const` or `static` string of the file is its
// text; a name the file gives two items is neither's.
TEST(RustExtractor, StringConstantsOfTheFileAreTheirText) {
  std::vector<std::string> m = Messages(
      "const PARTIAL: &str = \"partial mode must be on or off\";\n"
      "fn f() -> PyErr { PyValueError::new_err(PARTIAL) }\n"
      "fn g() -> PyErr { const TWICE: &str = \"first\"; PyKeyError::new_err(TWICE) }\n"
      "static TWICE: &str = \"second\";\n"
      "trait Typed { const EXPECTED: &'static str; }\n"
      "fn h(PARTIAL: &str) -> PyErr { PyTypeError::new_err(PARTIAL) }\n");
  EXPECT_TRUE(Has(m, "ValueError: partial mode must be on or off"));
  EXPECT_TRUE(Has(m, "KeyError: {TWICE}")) << ::testing::PrintToString(m);
  EXPECT_TRUE(Has(m, "TypeError: {PARTIAL}"));
  EXPECT_EQ(m.size(), 3u);
}

TEST(RustSinks, TableIsUniquePerFormAndNames) {
  for (const rust::Sink& s : rust::Sinks()) {
    EXPECT_EQ(rust::FindSink(s.form, s.name), &s) << s.name;
    EXPECT_GE(s.message_arg, 0);
  }
  EXPECT_EQ(rust::PythonExceptionName("exceptions::PyValueError"), "ValueError");
  EXPECT_EQ(rust::PythonExceptionName("PyErr"), "PyErr");
  EXPECT_EQ(rust::PythonExceptionName("MyError"), "MyError");
  EXPECT_EQ(rust::PythonExceptionName("pyo3::exceptions::PyOSError"), "OSError");
}

TEST(RustExtractor, CreateExceptionDefinesAPythonClass) {
  Extraction x = ExtractRustSource(
      "src/lib.rs", "create_exception!(shapes, ShapeError, pyo3::exceptions::PyValueError);\n");
  ASSERT_EQ(x.classes.size(), 1u);
  EXPECT_EQ(x.classes[0].name, "ShapeError");
  EXPECT_EQ(x.classes[0].bases, std::vector<std::string>{"ValueError"});
  EXPECT_EQ(x.classes[0].line, 1);
}

TEST(RustExtractor, IsSourcePathReadsRust) {
  EXPECT_TRUE(IsSourcePath("src/lib.rs"));
  EXPECT_TRUE(rust::IsRustSourcePath("a/b.rs"));
  EXPECT_FALSE(rust::IsRustSourcePath("a/b.rsx"));
}

}  // namespace
}  // namespace errdex::extract
