// What a call makes of a Rust helper that panics with what it is passed is
// what the compiled program prints. Random helpers panic the ways crates
// write them: the message as passed, inside a format with words around it
// (positional, inline capture, named, Debug), with a number the caller
// passes, through a conversion (`msg.to_string()`, `String::from`), through
// `.expect(msg)`, through a local (assigned, appended to with `push_str`
// and `write!`, lent as `&mut` to a function that appends to it), a helper
// calling a helper with a format
// of its parameter, and a method called as `Type::method(&x, ...)`. Random
// calls pass literals, `format!`s and locals. rustc builds the program and
// runs every call under catch_unwind: the site errdex lists at the call
// must be a panic, every template listed there must fit the text printed,
// and one must be listed.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "extract/extractor.h"
#include "template_fits.h"
#include "test_util.h"

namespace errdex::extract {
namespace {

class Generator : public RandomSource {
 public:
  using RandomSource::RandomSource;

  std::string Text() { return "\"" + Word() + " " + Word() + "\""; }

  // A text argument as a call writes it; `locals` gets a `let` it needs.
  std::string TextArg(std::string& locals) {
    switch (Pick(4)) {
      case 0:
        return "&format!(\"" + Word() + " {}\", " + std::to_string(Pick(100)) + ")";
      case 1: {
        std::string name = "m" + std::to_string(locals.size());
        locals += "let " + name + " = " + Text() + "; ";
        return name;
      }
      default:
        return Text();
    }
  }

  // One helper (or two) and the calls that panic through it.
  void Shape(int k, std::string& code, std::vector<std::string>& calls) {
    std::string f = "fail" + std::to_string(k);
    std::string locals;
    auto call = [&](const std::string& args) {
      calls.push_back(locals + f + "(" + args + ");");
      locals.clear();
    };
    switch (Pick(10)) {
      case 0:
        code += "fn " + f + "(msg: &str) -> ! {\n    panic!(\"{}\", msg)\n}\n";
        call(TextArg(locals));
        break;
      case 1:
        code += "fn " + f + "(msg: &str) -> ! {\n    panic!(\"" + Word() + " {msg} in " + Word() +
                "\")\n}\n";
        call(TextArg(locals));
        call(TextArg(locals));
        break;
      case 2:
        code += "fn " + f + "(what: &str, got: i32) -> ! {\n    panic!(\"" + Word() +
                " {} got {}\", what, got)\n}\n";
        call(TextArg(locals) + ", " + std::to_string(Pick(50)));
        break;
      case 3:
        code += "fn " + f + "(msg: &str) -> ! {\n    panic!(\"" + Word() + " {:?}\", msg)\n}\n";
        call(Text());
        break;
      case 4:
        code += "fn " + f + "(msg: &str) -> ! {\n    let text = msg.to_string();\n    panic!(\"" +
                Word() + ": {}\", text)\n}\n";
        call(TextArg(locals));
        break;
      case 5:
        code += "fn " + f + "(o: Option<i32>, msg: &str) -> i32 {\n    o.expect(msg)\n}\n";
        call("None, " + TextArg(locals));
        break;
      case 6:
        code += "fn " + f + "_inner(m: String) -> ! {\n    panic!(\"" + Word() + " {}\", m)\n}\n";
        code += "fn " + f + "(m: &str) -> ! {\n    " + f + "_inner(format!(\"" + Word() +
                " {}\", m))\n}\n";
        call(TextArg(locals));
        break;
      case 7: {
        std::string s = "S" + std::to_string(k);
        code += "struct " + s + " {\n    n: i32,\n}\nimpl " + s +
                " {\n    fn fail(&self, msg: &str) -> ! {\n" +
                "        panic!(\"{} at {}\", msg, self.n)\n    }\n}\n";
        calls.push_back(s + "::fail(&" + s + " { n: " + std::to_string(Pick(9)) + " }, " + Text() +
                        ");");
        break;
      }
      case 8:
        // Built up in a local: appended to, written to, lent to a function
        // that appends what errdex cannot see.
        code += "fn " + f + "(msg: &str, n: i32) -> ! {\n    let mut m = String::from(\"" + Word() +
                " \");\n    m.push_str(msg);\n    write!(m, \" " + Word() +
                " {}\", n).unwrap();\n    add_tail(&mut m);\n    panic!(\"{}\", m)\n}\n";
        call(TextArg(locals) + ", " + std::to_string(Pick(50)));
        break;
      default:
        code += "fn " + f + "(msg: String) -> ! {\n    panic!(\"" + Word() + " {}\", msg)\n}\n";
        calls.push_back(f + "(String::from(" + Text() + "));");
        calls.push_back(f + "(" + Text() + ".to_string());");
        break;
    }
  }
};

// Each call its own function on one line; `main` runs them all and prints
// each one's panic message, hex-encoded, or `-` when it returned.
std::string Harness(const std::vector<std::string>& calls, std::string& code,
                    std::map<int, size_t>& at) {
  int line = 1;
  for (char c : code) line += c == '\n';
  std::string table = "fn main() {\n    std::panic::set_hook(Box::new(|_| {}));\n" +
                      std::string("    let calls: Vec<fn()> = vec![");
  for (size_t i = 0; i < calls.size(); ++i) {
    code += "#[allow(unused)]\nfn call" + std::to_string(i) + "() { " + calls[i] + " }\n";
    at[line + 1] = i;
    line += 2;
    table += "call" + std::to_string(i) + ", ";
  }
  table += R"(];
    for f in calls {
        match std::panic::catch_unwind(f) {
            Ok(_) => println!("-"),
            Err(e) => {
                let s = if let Some(s) = e.downcast_ref::<String>() {
                    s.clone()
                } else if let Some(s) = e.downcast_ref::<&str>() {
                    s.to_string()
                } else {
                    String::new()
                };
                println!("{}", s.bytes().map(|b| format!("{:02x}", b)).collect::<String>());
            }
        }
    }
}
)";
  return code + table;
}

std::string Unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

TEST(RustHelperProperty, WhatACallPassesToAHelperIsListedAtTheCall) {
  ASSERT_EQ(testing::RunCommand("command -v rustc").exit_code, 0)
      << "rustc is needed (./dev setup installs Debian's)";
  constexpr int kHelpers = 60;
  Generator gen(testing::PropertySeed(20261206u));
  std::string code =
      "use std::fmt::Write;\nfn add_tail(m: &mut String) {\n    m.push_str(\" (tail)\");\n}\n";
  std::vector<std::string> calls;
  for (int k = 0; k < kHelpers; ++k) gen.Shape(k, code, calls);
  std::map<int, size_t> at;
  std::string program = Harness(calls, code, at);

  std::map<size_t, std::vector<const Site*>> listed;
  Extraction extraction = ExtractRustSource("gen.rs", program);
  for (const Site& s : extraction.sites) {
    auto it = at.find(s.line);
    if (it != at.end()) listed[it->second].push_back(&s);
  }

  testing::TempDir dir;
  std::filesystem::path source = dir.Write("gen.rs", program);
  std::filesystem::path binary = dir.path() / "gen";
  testing::CommandResult built = testing::RunCommand("rustc --edition 2021 -A warnings -o " +
                                                     binary.string() + " " + source.string());
  ASSERT_EQ(built.exit_code, 0) << built.err << "\n" << program;
  testing::CommandResult ran = testing::RunCommand(binary.string());
  ASSERT_EQ(ran.exit_code, 0) << ran.err;

  std::vector<std::string> printed;
  size_t start = 0;
  for (size_t nl = ran.out.find('\n'); nl != std::string::npos; nl = ran.out.find('\n', start)) {
    printed.push_back(ran.out.substr(start, nl - start));
    start = nl + 1;
  }
  ASSERT_EQ(printed.size(), calls.size()) << ran.out;

  int exact = 0, unfit = 0, missed = 0, mistyped = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    ASSERT_NE(printed[i], "-") << calls[i] << " did not panic";
    std::string text = Unhex(printed[i]);
    const std::vector<const Site*>& have = listed[i];
    if (have.empty()) {
      ++missed;
      ADD_FAILURE() << calls[i] << " panicked with " << text
                    << ", errdex lists nothing at the call";
      continue;
    }
    bool any_exact = false;
    for (const Site* s : have) {
      if (s->exception != "panic") {
        ++mistyped;
        ADD_FAILURE() << calls[i] << " panicked, errdex lists " << s->exception;
      }
      if (!Fits(s->message, text)) {
        ++unfit;
        ADD_FAILURE() << calls[i] << " printed \"" << text << "\", errdex lists \""
                      << s->message.Display() << "\"";
        continue;
      }
      bool literal = !s->message.IsDynamic();
      for (const Piece& p : s->message.pieces()) literal = literal && !p.is_value;
      any_exact = any_exact || literal;
    }
    exact += any_exact ? 1 : 0;
  }
  EXPECT_EQ(unfit, 0);
  EXPECT_EQ(missed, 0);
  EXPECT_EQ(mistyped, 0);
  std::printf("calls of helpers %zu: listed as text %d, unfit %d, mistyped %d, missed %d\n",
              calls.size(), exact, unfit, mistyped, missed);
}

}  // namespace
}  // namespace errdex::extract
