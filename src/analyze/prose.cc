#include "analyze/prose.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyze/related.h"
#include "catalog/json.h"
#include "core/guards.h"
#include "core/native_errors.h"
#include "core/text.h"

namespace errdex::analyze {
namespace {

std::string Tick(std::string_view s) { return "`" + std::string(s) + "`"; }

// Words with which a deprecation names what to use instead.
constexpr std::string_view kReplacementWords[] = {
    "instead", "use ",     "replaced by", "in favor of", "in favour of",
    "renamed", "moved to", "switch to",   "migrate to",  "superseded"};

std::string List(const std::vector<std::string>& values, std::string_view last = "or") {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0)
      out += i + 1 == values.size() ? (values.size() > 2 ? ", " : " ") + std::string(last) + " "
                                    : ", ";
    out += Tick(values[i]);
  }
  return out;
}

// The values with what each case maps to, where the code says:
// "`0` (`kPreScheduler`) or `1` (`kPostScheduler`)".
std::string ValueList(const ValidValues& v) {
  if (v.meanings.size() != v.values.size()) return List(v.values);
  std::string out;
  for (size_t i = 0; i < v.values.size(); ++i) {
    if (i > 0) out += i + 1 == v.values.size() ? (v.values.size() > 2 ? ", or " : " or ") : ", ";
    out += Tick(v.values[i]);
    if (!v.meanings[i].empty()) out += " (" + Tick(v.meanings[i]) + ")";
  }
  return out;
}

std::string Capitalized(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

std::string Lowercased(std::string_view s) {
  std::string out(s);
  if (!out.empty()) out[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[0])));
  return out;
}

std::string ShortFunction(const std::string& qualified) {
  size_t dot = qualified.rfind('.');
  size_t colons = qualified.rfind("::");
  size_t cut = std::string::npos;
  if (dot != std::string::npos) cut = dot + 1;
  if (colons != std::string::npos && (cut == std::string::npos || colons + 2 > cut))
    cut = colons + 2;
  return cut == std::string::npos ? qualified : qualified.substr(cut);
}

using catalog::Parameter;

using CallPair = std::optional<std::pair<std::string, std::string>>;

// `callee(...)` passing `param` of `params` (the first `skip` bound), the
// way the signature lets a caller write it; nothing for *args/**kwargs.
CallPair Spelled(const std::string& callee, const std::vector<Parameter>& params, size_t skip,
                 const std::string& param, const std::string& before, const std::string& after) {
  auto at = std::find_if(params.begin(), params.end(),
                         [&](const Parameter& p) { return p.name == param; });
  if (at == params.end() || at->kind == "*" || at->kind == "**") return std::nullopt;
  size_t index = static_cast<size_t>(at - params.begin());
  if (index < skip) return std::nullopt;
  // Positional only: every parameter before it is passed too, by position.
  if (at->kind == "pos") {
    std::string lead;
    for (size_t i = skip; i < index; ++i) lead += params[i].name + ", ";
    return std::make_pair(callee + "(" + lead + before + ")", callee + "(" + lead + after + ")");
  }
  bool others = params.size() - skip > 1;
  std::string lead = others ? "..., " : "";
  return std::make_pair(callee + "(" + lead + param + "=" + before + ")",
                        callee + "(" + lead + param + "=" + after + ")");
}

// A call of the site's function that passes `subject` as `value`, before
// and after the fix, or nothing when the call could not be written right:
// the subject is not a parameter, is only reachable through *args or
// **kwargs, or the function is not one a caller can name (module level, a
// local function, a lambda).
CallPair SiteCall(const catalog::SiteRecord& s, const std::string& subject,
                  const std::string& before, const std::string& after) {
  if (s.function.empty() || s.function == "<module>" ||
      s.function.find('<') != std::string::npos) {
    return std::nullopt;
  }
  std::vector<Parameter> params = catalog::SiteParameters(s);
  // Who is called: a method through an instance, a classmethod through its
  // class, a constructor through the class.
  std::string name = ShortFunction(s.function);
  std::string owner;
  if (size_t dot = s.function.rfind('.'); dot != std::string::npos) {
    owner = ShortFunction(s.function.substr(0, dot));
  }
  // The qualified name goes through ".<locals>." for a function's locals,
  // refused above, so an owner here is a class.
  size_t skip = 0;  // the bound first parameter
  std::string callee = name;
  if (!owner.empty()) {
    bool bound = !params.empty() && (params[0].name == "self" || params[0].name == "cls");
    skip = bound ? 1 : 0;
    if (name == "__init__" || name == "__new__") {
      callee = owner;
    } else if (name.size() > 4 && name.starts_with("__") && name.ends_with("__")) {
      return std::nullopt;  // an operator's method: no call spells it
    } else {
      // A static method, or one whose first parameter has another name, is
      // called through the class with every parameter.
      callee = (bound && params[0].name == "self" ? "obj." : owner + ".") + name;
    }
  }
  return Spelled(callee, params, skip, subject, before, after);
}

// The same through the nearest public entry point that passes the subject
// down unchanged: what a user of the library writes.
CallPair EntryCall(const catalog::SiteRecord& s, const std::string& subject,
                   const std::string& before, const std::string& after) {
  for (const catalog::EntryPoint& e : catalog::EntryPoints(s)) {
    auto carried = std::find_if(e.args.begin(), e.args.end(),
                                [&](const auto& a) { return a.first == subject; });
    if (carried == e.args.end() || (e.parameters.empty() && e.kind != "function")) continue;
    size_t skip = e.kind == "function" ? 0 : 1;  // self of a method or __init__
    std::string callee = e.kind == "method" ? "obj." + ShortFunction(e.name) : e.name;
    if (CallPair call = Spelled(callee, e.parameters, skip, carried->second, before, after)) {
      return call;
    }
  }
  return std::nullopt;
}

// Through a public entry point when the site's own function is private and
// one carries the subject; else the site's function itself.
CallPair ExampleCall(const catalog::SiteRecord& s, const std::string& subject,
                     const std::string& before, const std::string& after) {
  // A C/C++ site has a signature only where a binding names its arguments.
  if (!IsIdentifier(subject) || (s.language != "python" && s.signature.empty())) {
    return std::nullopt;
  }
  bool private_function = ShortFunction(s.function).starts_with("_") &&
                          ShortFunction(s.function) != "__init__";
  if (private_function || s.path.find("/_") != std::string::npos || s.path.starts_with("_")) {
    if (CallPair call = EntryCall(s, subject, before, after)) return call;
  }
  return SiteCall(s, subject, before, after);
}

// Where the first site is, for an error nothing else explains: the header
// shows it too, so it is said only when there is nothing better.
std::string Where(const catalog::ErrorRecord& e) {
  const catalog::SiteRecord& s = e.sites.front();
  std::string where = s.function.empty() || s.function == "<module>"
                          ? "at module level in " + Tick(s.path)
                          : "by " + Tick(s.function) + " in " + Tick(s.path);
  std::string type = e.exception.empty() ? "This error" : Tick(e.exception);
  return type + " is raised " + where + " of " + e.library + ".";
}

// Whether the caller's statement holds the message's words: more than half
// of the words of three letters or more in the template's literal text
// appear in the statement's string literals. `self.fail_tag("endfor")`
// writes one word of "Encountered unknown tag 'endfor'."; `self.error("empty
// input")` writes two of "error: empty input".
bool WordsWrittenAt(const Template& message, std::string_view statement) {
  std::string quoted;
  for (size_t i = 0; i < statement.size(); ++i) {
    char q = statement[i];
    if (q != '"' && q != '\'') continue;
    size_t end = i + 1;
    while (end < statement.size() && statement[end] != q) end += statement[end] == '\\' ? 2 : 1;
    if (end > statement.size()) end = statement.size();
    quoted.append(statement.substr(i + 1, end - i - 1)).push_back(' ');
    i = end;
  }
  std::vector<std::string> words;
  for (const Piece& p : message.pieces()) {
    if (p.is_value) continue;
    for (std::string& w : Words(p.text)) {
      if (w.size() >= 3) words.push_back(std::move(w));
    }
  }
  if (words.empty()) return false;
  std::vector<std::string> in_call = Words(quoted);
  std::set<std::string> written(in_call.begin(), in_call.end());
  size_t found = static_cast<size_t>(std::count_if(
      words.begin(), words.end(), [&](const std::string& w) { return written.count(w) != 0; }));
  return 2 * found > words.size();
}

// The method whose whole body is `raise NotImplementedError` for a
// subclass to override (the front end marks it internal), or "". Reaching
// it is the library's bug when its own subclass lacks the method, and the
// caller's when the caller's subclass does, or the base class is used
// directly: no page can tell which, so it says both.
std::string PlaceholderMethod(const catalog::ErrorRecord& e, const Analysis& a) {
  // The front end marks no other unguarded NotImplementedError internal
  // (a guarded one is internal when its guards look unreachable).
  if (!HasLabel(a, "internal") || !e.internal || e.kind != "raise" ||
      e.exception != "NotImplementedError" || e.sites.empty()) {
    return "";
  }
  const catalog::SiteRecord& s = e.sites.front();
  if (s.language != "python" || s.function.find('.') == std::string::npos || !s.via.empty() ||
      (!s.guards_json.empty() && s.guards_json != "[]")) {
    return "";
  }
  return s.function;
}

// Whether the error is raised by more than one function (bz2's, gzip's
// and lzma's "Invalid mode"): each may take other values.
bool RaisedBySeveralFunctions(const catalog::ErrorRecord& e) {
  return std::any_of(e.sites.begin(), e.sites.end(), [&](const catalog::SiteRecord& o) {
    return o.function != e.sites.front().function || o.path != e.sites.front().path;
  });
}

// The names an assert's test reads, as the site's function calls them and
// as the entry point does, and whether any differ.
struct AssertedNames {
  std::vector<std::string> read;
  std::vector<std::string> given;
  bool renamed = false;
};
AssertedNames NamesOf(const AssertedArgument& input) {
  AssertedNames out;
  for (const auto& [param, entry_param] : input.params) {
    out.read.push_back(param);
    out.given.push_back(entry_param);
    out.renamed = out.renamed || entry_param != param;
  }
  return out;
}

// What kind of failure it is, when the kind changes what it means.
// `input`: what the first site's assert tests of a caller's value, when
// the analysis did not call it internal; `usage`: an assert whose words
// say how the object was used.
std::string Kind(const catalog::ErrorRecord& e, const std::optional<AssertedArgument>& input,
                 bool usage) {
  const catalog::SiteRecord& s = e.sites.front();
  std::string type = e.exception.empty() ? "This error" : Tick(e.exception);
  // A call into a helper that raises with the text it is given (a sink):
  // the raise is in the helper, the words are written at the call. Where
  // the statement is the raise, `via` built the message or the exception
  // (a class's __str__, a function returning the text) and raises nothing;
  // an unknown statement says nothing either way.
  if (e.kind == "raise" && s.language == "python" && !s.via.empty() && !s.statement.empty() &&
      !StartsWith(s.statement, "raise") && !s.function.empty()) {
    if (WordsWrittenAt(e.message, s.statement)) {
      return "The words are written in " + Tick(s.function) + ", which hands them to " +
             Tick(s.via) + " to raise.";
    }
    // `get_bool_opt(options, 'mathescape', False)`: the call fills in one
    // value; the words are the helper's (or a helper's further down).
    // A site of a sink call is made only where the caller wrote some of the
    // text or named the class.
    bool names_class = !e.exception.empty() && s.statement.find(e.exception) != std::string::npos;
    bool quotes = s.statement.find_first_of("\"'") != std::string::npos;
    std::string passes = !names_class ? "some of what the message shows"
                         : quotes     ? "the class raised and some of what the message shows"
                                      : "the class raised";
    return "It is raised inside " + Tick(s.via) + ", called here by " + Tick(s.function) +
           ", which passes " + passes + ".";
  }
  if (e.kind == "warning") {
    return "It is a warning, not an error: the program goes on unless warnings are turned into "
           "errors (" + Tick("-W error") + ").";
  }
  if (e.kind == "assert" && s.language == "rust") {
    // A panic reaches a Python caller through PyO3 as PanicException; a
    // crate built with `panic = "abort"` (orjson) ends the process instead.
    std::string macro = s.statement.substr(0, s.statement.find('!'));
    bool debug = StartsWith(macro, "debug_assert");
    std::string said = IsIdentifier(macro) ? Tick(macro + "!") : "assertion";
    return (debug ? "A " : "An ") + said + " in " + e.library +
           " failed: a condition its authors took for granted did not hold, and the code "
           "panics" +
           (debug ? " (only a debug build checks it: a release build, as published wheels are, "
                    "leaves it out)"
                  : "") +
           ". Called from Python through PyO3, the panic is raised as " +
           Tick("pyo3_runtime.PanicException") + ", unless the crate aborts on panic.";
  }
  if (e.kind == "assert" && s.language == "python" && input) {
    AssertedNames names = NamesOf(*input);
    std::string passed = names.renamed ? " (as " + List(names.given, "and") + ")" : "";
    return "An " + Tick("assert") + " in " + e.library + " failed. Its test reads only " +
           List(names.read, "and") + ", which the public " + Tick(input->entry) +
           " takes from its caller" + passed +
           ": a value passed there that fails the test reaches it, unless the library checks "
           "or changes the value on the way. Python skips the check under " +
           Tick("-O") + ", and the value then goes on unchecked.";
  }
  if (e.kind == "assert" && s.language == "python" && usage) {
    return "An " + Tick("assert") + " in " + e.library +
           " failed: it checks the state of an object or the order of calls, and the message "
           "says what was missed; Python skips the check under " +
           Tick("-O") + ".";
  }
  if (e.kind == "assert" && s.language == "python") {
    return "An " + Tick("assert") + " in " + e.library +
           " failed: a condition its authors took for granted did not hold; Python skips the "
           "check under " + Tick("-O") + ".";
  }
  if (e.kind == "assert") {
    return "An assertion in " + e.library +
           " failed: a condition its authors took for granted did not hold.";
  }
  if (e.kind == "fatal" && s.language == "rust") {
    return "A panic in " + e.library +
           "'s Rust code: called from Python through PyO3, it is raised as " +
           Tick("pyo3_runtime.PanicException") +
           " with the message, unless the crate is built to abort on panic, when the process "
           "ends.";
  }
  if (e.kind == "fatal") {
    return "A fatal check in " + e.library +
           "'s native code failed: the process aborts with the message, and no Python exception "
           "is raised.";
  }
  if (e.kind == "status") {
    std::string code = IsStatusCode(e.exception) ? " " + Tick(e.exception) : "";
    return "An error status" + code + " returned by " + e.library +
           "'s native code; it reaches Python as an exception whose message starts with the "
           "code.";
  }
  if (e.kind == "return") {
    return type + " is built and returned for the caller to raise.";
  }
  return "";
}

// The cause in the terms of the facts: the value the check rejects, and the
// public call a user makes to get there.
std::vector<std::string> Cause(const catalog::ErrorRecord& e, const Analysis& a,
                               const std::vector<Guard>& first_site_guards) {
  std::vector<std::string> out;
  const catalog::SiteRecord& s = e.sites.front();
  // The sentence names the function it speaks of in full, with its file,
  // when others raise the error too: not an `__init__` of them.
  bool several = RaisedBySeveralFunctions(e);
  std::string checker = s.function.empty() || s.function == "<module>" ? "the check"
                        : several ? Tick(s.function) + " in " + Tick(s.path)
                                  : Tick(ShortFunction(s.function));
  // Of the first site's tests only: the sentence names its function as the
  // one that does not accept the value, and another site's `mode` may be
  // another function's parameter.
  auto first_site = [&](const ValidValues& listed) {
    return std::any_of(first_site_guards.begin(), first_site_guards.end(), [&](const Guard& g) {
      return g.line == listed.line && g.subject == listed.subject;
    });
  };
  auto front = std::find_if(a.valid.begin(), a.valid.end(), first_site);
  if (front != a.valid.end() && !HasLabel(a, "version-mismatch")) {
    // The first subject is the one the trigger turns on. "It takes" names
    // every value listed for it: the tests of an if/elif chain list one
    // each (`isinstance(x, A)` / `elif isinstance(x, B)`), and one alone
    // would read as all it takes.
    ValidValues v = *front;
    bool meanings = v.meanings.size() == v.values.size();
    for (auto it = front + 1; it != a.valid.end(); ++it) {
      const ValidValues& more = *it;
      if (more.subject != v.subject || more.source != v.source || !first_site(more)) continue;
      meanings = meanings && more.meanings.size() == more.values.size();
      for (size_t k = 0; k < more.values.size(); ++k) {
        if (std::find(v.values.begin(), v.values.end(), more.values[k]) != v.values.end()) continue;
        v.values.push_back(more.values[k]);
        if (meanings) v.meanings.push_back(more.meanings[k]);
      }
    }
    if (!meanings) v.meanings.clear();
    if (v.source == "types") {
      out.push_back(Tick(v.subject) + " is of a type " + checker + " does not accept; it takes " +
                    List(v.values) + ".");
    } else {
      out.push_back(Tick(v.subject) + " has a value " + checker + " does not accept; it takes " +
                    ValueList(v) + ".");
    }
  }
  std::vector<catalog::EntryPoint> entries = catalog::EntryPoints(s);
  if (!entries.empty()) {
    const catalog::EntryPoint& p = entries.front();
    std::string call = Tick(p.name);
    if (p.here) {
      out.push_back("It comes straight from " + call + ", part of " + e.library +
                    "'s public API.");
    } else {
      std::string carried;
      for (const auto& [site_param, param] : p.args) {
        if (!a.valid.empty() && a.valid.front().subject == site_param) {
          carried = ", which passes its " + Tick(param) + " argument down as " + Tick(site_param);
        }
      }
      std::string through;
      if (!p.via.empty()) {
        through = " through " + Tick(p.via.front());
        if (p.via.size() > 1) through += " and " + Counted(static_cast<int64_t>(p.via.size() - 1), "more call");
      }
      out.push_back("A call to " + call + " reaches it" + through + carried + ".");
    }
  }
  return out;
}

}  // namespace

Prose WriteProse(const catalog::ErrorRecord& e, const Analysis& a,
                 const std::vector<std::vector<Guard>>& site_guards) {
  Prose p;
  if (e.sites.empty()) return p;
  static const std::vector<Guard> kNone;
  const std::vector<Guard>& first_site_guards = site_guards.empty() ? kNone : site_guards.front();
  const Family* family = FindFamily(a.family.slug);

  // What it means.
  std::vector<std::string> meaning = Cause(e, a, first_site_guards);
  std::optional<AssertedArgument> input;
  if (e.kind == "assert" && !HasLabel(a, "internal")) {
    input = AssertsOnCallersInput(e.sites.front(), first_site_guards);
  }
  bool usage = e.kind == "assert" && !HasLabel(a, "internal") && a.family.slug == "invalid-state";
  if (std::string kind = Kind(e, input, usage); !kind.empty()) {
    meaning.insert(meaning.begin(), kind);
  }
  // trio's `_tests/`, sniffio's: code no program using the library runs.
  bool tests_only = std::all_of(e.sites.begin(), e.sites.end(),
                                [](const catalog::SiteRecord& s) { return IsTestPath(s.path); });
  if (tests_only) {
    meaning.insert(meaning.begin(),
                   "It is raised only in " + e.library + "'s own tests (" +
                       Tick(e.sites.front().path) +
                       "): running the library's test suite reaches it, a program that uses "
                       "the library does not.");
  }
  if (family != nullptr && family->slug != "other" && !a.family.weak) {
    meaning.push_back("It is a case of " + Lowercased(family->name) + ": " +
                      Lowercased(family->description));
  }
  if (HasLabel(a, "version-mismatch")) {
    meaning.push_back(
        "The code before it handles every case it was written for, so reaching it means a value "
        "it does not know: typically one from a newer or older version of a component it is used "
        "with, not a mistake in the calling code.");
  } else if (const std::string method = PlaceholderMethod(e, a); !method.empty()) {
    meaning.push_back(Tick(method) +
                      " is a placeholder its subclasses override: it is reached on the base "
                      "class itself, or on a subclass that does not override it.");
  } else if (HasLabel(a, "internal") && tests_only) {
    meaning.push_back("There it means a test of " + e.library +
                      " failed: a bug, or a setting the test was not written for.");
  } else if (HasLabel(a, "internal")) {
    meaning.push_back(
        "The library treats this as an internal error: correct use should never reach "
        "it, so it points to a bug in " +
        e.library + " rather than in the calling code.");
  }
  if (e.dynamic) meaning.push_back("Its whole message is computed at run time.");
  if (meaning.empty()) meaning.push_back(Where(e));
  for (size_t i = 0; i < meaning.size(); ++i) p.meaning += (i ? " " : "") + meaning[i];

  // When it happens: each distinct trigger, then what was valid.
  // Sites with the same trigger share a sentence that lists where.
  std::vector<std::pair<std::string, std::vector<std::string>>> when;
  // Where each sentence is in `when`: an error raised at thousands of sites
  // (a bare assert in every test) made finding it there quadratic.
  std::unordered_map<std::string, size_t> when_index;
  for (size_t i = 0; i < e.sites.size(); ++i) {
    const catalog::SiteRecord& s = e.sites[i];
    // The front ends write triggers in one voice ("raised when"); the
    // site's language and kind say which verb is true of it.
    Voice voice = VoiceOf(s.language, s.kind, s.statement);
    std::string t =
        s.trigger.empty()
            ? ""
            : Capitalized(Revoiced(s.trigger,
                                   i < site_guards.size() ? site_guards[i] : std::vector<Guard>{},
                                   voice));
    if (t.empty()) {
      std::string happens = Capitalized(std::string(voice.happens));
      bool outside = s.function.empty() || s.function == "<module>";
      if (outside && s.language == "python") {
        t = happens + " whenever the module runs line " + std::to_string(s.line) + " of " +
            Tick(s.path) + ": no condition guards it";
      } else if (outside) {
        // Native code outside a function errdex read (a macro's body, a
        // function its parser did not make out) has conditions unknown.
        t = happens + " at line " + std::to_string(s.line) + " of " + Tick(s.path) +
            ", outside any function errdex could read: the conditions that lead there are not "
            "known";
      } else {
        t = happens + " whenever " + Tick(s.function) + " reaches line " + std::to_string(s.line) +
            ": no condition in the function guards it";
      }
    }
    auto [at, fresh] = when_index.try_emplace(t, when.size());
    if (fresh) when.emplace_back(std::move(t), std::vector<std::string>{});
    when[at->second].second.push_back(s.path + ":" + std::to_string(s.line));
  }
  for (const auto& [sentence, places] : when) {
    if (!p.when.empty()) p.when += " ";
    p.when += sentence;
    if (e.sites.size() > 1) {
      p.when += " (";
      for (size_t i = 0; i < places.size(); ++i) p.when += (i ? ", " : "") + places[i];
      p.when += ")";
    }
    p.when += ".";
  }

  // Solutions, from the facts that suggest one.
  // Two lists of one name (two sites, or two tests of one) are each what
  // one test takes: each is said with the line of its test, not as what
  // the code accepts of the name (jedi's three lists for `exprlist.type`).
  std::map<std::string, int> lists_of;
  for (const ValidValues& v : a.valid) ++lists_of[v.subject];
  // An error raised by several functions: one list is one function's, and
  // is said with the file and line of its test (lzma's modes are not
  // gzip's).
  bool several = RaisedBySeveralFunctions(e);
  auto tested_in = [&](const ValidValues& v) -> std::string {
    for (size_t i = 0; i < e.sites.size() && i < site_guards.size(); ++i) {
      for (const Guard& g : site_guards[i]) {
        if (g.line == v.line && g.subject == v.subject && g.values == v.values) {
          return e.sites[i].path;
        }
      }
    }
    return "";
  };
  bool files = std::any_of(e.sites.begin(), e.sites.end(), [&](const catalog::SiteRecord& o) {
    return o.path != e.sites.front().path;
  });
  for (const ValidValues& v : a.valid) {
    std::string path = several && v.line > 0 ? tested_in(v) : "";
    if (v.source == "types") {
      p.solutions.push_back("Pass " + Tick(v.subject) + " as an instance of " + List(v.values) +
                            ".");
    } else if (HasLabel(a, "version-mismatch")) {
      continue;
    } else if (!path.empty() || (lists_of[v.subject] > 1 && v.line > 0)) {
      std::string of = files && !path.empty() ? " of " + Tick(path) : "";
      p.solutions.push_back("Where line " + std::to_string(v.line) + of + " tests " +
                            Tick(v.subject) +
                            ", use one of the values it accepts: " + ValueList(v) + ".");
    } else {
      p.solutions.push_back("Use one of the values the code accepts for " + Tick(v.subject) + ": " +
                            ValueList(v) + ".");
    }
  }
  if (HasLabel(a, "version-mismatch")) {
    p.solutions.push_back("Check that the installed versions of " + e.library +
                          " and the packages built with it match, and reinstall them at one "
                          "version if they do not.");
  } else if (const std::string method = PlaceholderMethod(e, a); !method.empty()) {
    std::string name = method.substr(method.rfind('.') + 1);
    p.solutions.push_back("Call " + Tick(name) +
                          " on a subclass that implements it, or implement it in your own "
                          "subclass; if a class of " +
                          e.library + " lacks it, report that to " + e.library + ".");
  } else if (HasLabel(a, "internal")) {
    p.solutions.push_back("Report it to " + e.library +
                          " with the traceback and the smallest program that reproduces it.");
  }
  // An assertion names what must hold.
  for (const Guard& g : first_site_guards) {
    if (g.kind != "assert" || HasLabel(a, "internal")) continue;
    if (!input) {
      p.solutions.push_back("Make sure " + Tick(g.code) + " holds when the check runs.");
      continue;
    }
    std::string callee = input->entry.substr(input->entry.rfind('.') + 1);
    AssertedNames names = NamesOf(*input);
    p.solutions.push_back("Make sure " + Tick(g.code) + " holds for the " +
                          List(names.given, "and") + " you pass to " + Tick(callee) +
                          (names.renamed ? " (the test's " + List(names.read, "and") + ")." : "."));
    p.solutions.push_back("If it holds and the error still comes, report it to " + e.library +
                          " with the traceback and the smallest program that reproduces it.");
  }
  const std::string& slug = a.family.slug;
  if (slug == "missing-dependency") {
    p.solutions.push_back(
        "Install the package the message names, in the environment the "
        "program runs in.");
  } else if (slug == "deprecated") {
    // "Possible nested set" names no replacement, and what it warns of is
    // a change to come, not one made.
    std::string lower = AsciiLower(e.template_text);
    bool replacement =
        std::any_of(std::begin(kReplacementWords), std::end(kReplacementWords),
                    [&](std::string_view w) { return lower.find(w) != std::string::npos; });
    p.solutions.push_back(
        replacement ? "Move to the replacement the message names, or pin a version of " +
                          e.library + " that still has the old behaviour."
                    : "Change the code the warning points at so that it no longer relies on what "
                      "the message says is deprecated or will change.");
  } else if (slug == "version-mismatch" && !HasLabel(a, "version-mismatch")) {
    p.solutions.push_back(
        "Compare the installed versions with the requirement the message "
        "states, and upgrade or downgrade to meet it.");
  } else if (slug == "failed-check") {
    p.solutions.push_back(
        "The check found values other than the expected ones, and the message shows them: "
        "fix the code under test, or the expectation where it is the one that is wrong.");
  } else if (slug == "tracing-misuse") {
    p.solutions.push_back(
        "Keep the value concrete: compute it outside the transformed function, "
        "or mark the argument static.");
  }
  // Example fix: a listed value or type for a parameter of the function that
  // raises, spelled the way its signature lets a caller pass it.
  for (const ValidValues& v : a.valid) {
    if (HasLabel(a, "version-mismatch") || v.values.empty()) continue;
    std::string after = v.source == "types" ? v.values.front() + "(...)" : v.values.front();
    std::string before = "<a value " +
                         std::string(v.source == "types" ? "of another type" : "not listed") + ">";
    std::optional<std::pair<std::string, std::string>> call =
        ExampleCall(e.sites.front(), v.subject, before, after);
    if (!call) continue;
    p.fix_before = call->first + "  # " + (e.exception.empty() ? "error" : e.exception);
    p.fix_after = call->second;
    break;
  }
  return p;
}

namespace {

// The names a Python expression reads as values: not an attribute (`.x`),
// a call (`f(`), a string's prefix (`f"`), a keyword, a builtin type or
// constant, or a capitalised name (a class or a module's constant).
// Strings and numbers are skipped. Conservative: a name it cannot place is
// kept, and keeping it can only refuse AssertsOnCallersInput.
std::vector<std::string> ValueNames(std::string_view code) {
  static const std::set<std::string_view> kNotValues = {
      "and",    "or",      "not",       "is",     "in",       "if",      "else",      "for",
      "None",   "True",    "False",     "lambda", "await",    "int",     "str",       "float",
      "bytes",  "bool",    "list",      "tuple",  "dict",     "set",     "frozenset", "type",
      "object", "complex", "bytearray", "range",  "callable", "Ellipsis"};
  std::vector<std::string> out;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  size_t i = 0;
  char last = ' ';  // the last byte that is not a space
  while (i < code.size()) {
    char c = code[i];
    if (c == '\'' || c == '"') {
      for (++i; i < code.size() && code[i] != c; ++i) {
        if (code[i] == '\\') ++i;
      }
      ++i;
      last = c;
      continue;
    }
    if (!word(c)) {
      if (c != ' ' && c != '\t' && c != '\n') last = c;
      ++i;
      continue;
    }
    size_t start = i;
    while (i < code.size() && word(code[i])) ++i;
    std::string_view name = code.substr(start, i - start);
    size_t next = i;
    while (next < code.size() && (code[next] == ' ' || code[next] == '\t')) ++next;
    char after = next < code.size() ? code[next] : '\0';
    bool number = std::isdigit(static_cast<unsigned char>(name.front())) != 0;
    // `f(x, key=y)`: a keyword's name, not a value read.
    bool keyword = after == '=' && (next + 1 >= code.size() || code[next + 1] != '=');
    bool value = !number && !keyword && last != '.' && after != '(' && after != '\'' &&
                 after != '"' && !kNotValues.count(name) &&
                 std::isupper(static_cast<unsigned char>(name.front())) == 0;
    if (value && std::find(out.begin(), out.end(), name) == out.end()) out.emplace_back(name);
    last = name.back();
  }
  return out;
}

}  // namespace

std::optional<AssertedArgument> AssertsOnCallersInput(const catalog::SiteRecord& s,
                                                      const std::vector<Guard>& guards) {
  if (s.kind != "assert" || s.language != "python" || guards.empty() ||
      guards.back().kind != "assert") {
    return std::nullopt;
  }
  std::vector<std::string> names = ValueNames(guards.back().code);
  // `self` and `cls` are the object's state, and `_ctx` a parameter no
  // caller is meant to pass.
  bool all_public = !names.empty() && std::none_of(names.begin(), names.end(), [](const auto& n) {
    return n == "self" || n == "cls" || n.front() == '_';
  });
  if (!all_public) return std::nullopt;
  // A value the function tested already (`if mode not in _MODES: raise`
  // before `assert mode`) is one the assert takes for granted. Earlier
  // asserts are not such a test: wsgiref asserts three things of `status`
  // one after another.
  for (size_t i = 0; i + 1 < guards.size(); ++i) {
    const Guard& g = guards[i];
    if (g.kind != "if" && g.kind != "elif" && g.kind != "early-exit") continue;
    std::vector<std::string> read = ValueNames(g.code);
    if (std::any_of(read.begin(), read.end(), [&](const std::string& n) {
          return std::find(names.begin(), names.end(), n) != names.end();
        })) {
      return std::nullopt;
    }
  }
  for (const catalog::EntryPoint& e : catalog::EntryPoints(s)) {
    // jinja2's `Environment.__init__` hands itself to the check as
    // `environment`: the object, not a value its caller passed.
    auto passed = [&](const std::string& n) {
      return std::any_of(e.args.begin(), e.args.end(), [&](const auto& a) {
        return a.first == n && a.second != "self" && a.second != "cls";
      });
    };
    if (!std::all_of(names.begin(), names.end(), passed)) continue;
    AssertedArgument out;
    out.entry = e.name;
    for (const std::string& n : names) {
      for (const auto& [site_param, entry_param] : e.args) {
        if (site_param == n) {
          out.params.emplace_back(n, entry_param);
          break;
        }
      }
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace errdex::analyze
