#include "analyze/analyze.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <functional>
#include <optional>
#include <set>

#include "analyze/family.h"
#include "analyze/lineage.h"
#include "analyze/prose.h"
#include "analyze/related.h"
#include "catalog/json.h"
#include "core/guards.h"
#include "core/text.h"

namespace errdex::analyze {
namespace {

std::string LiteralText(const Template& t) {
  std::string out;
  for (const Piece& p : t.pieces()) {
    if (p.is_value) continue;
    if (!out.empty()) out.push_back(' ');
    out += p.text;
  }
  return out;
}

std::vector<Guard> SiteGuards(const catalog::SiteRecord& s) {
  return catalog::GuardsFromJson(nlohmann::json::parse(s.guards_json, nullptr, false));
}

// The docstring line of the first entry point (shortest first) that passes
// `subject` down unchanged and documents the parameter it takes it as.
std::string EntryPointDoc(const catalog::SiteRecord& s, const std::string& subject) {
  for (const catalog::EntryPoint& e : catalog::EntryPoints(s)) {
    for (const auto& [site_param, param] : e.args) {
      if (site_param != subject) continue;
      for (const catalog::Parameter& p : e.parameters) {
        if (p.name == param && !p.doc.empty()) return p.doc;
      }
    }
  }
  return "";
}

}  // namespace

std::vector<std::string> Ancestry(const std::string& exception,
                                  const std::map<std::string, std::vector<std::string>>& bases) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::deque<std::string> queue{exception};
  // Bounded: class graphs in real code are shallow, a cyclic one is not real.
  while (!queue.empty() && out.size() < 32) {
    std::string name = std::move(queue.front());
    queue.pop_front();
    if (name.empty() || !seen.insert(name).second) continue;
    out.push_back(name);
    // Many modules define a class named Error, each on its own base; the
    // catalog keys classes by short name, so whose bases these are is a guess.
    if (name == "Error" && out.size() > 1) continue;
    auto it = bases.find(name);
    if (it == bases.end()) continue;
    for (const std::string& b : it->second) queue.push_back(b);
  }
  return out;
}

ClassIndex::ClassIndex(const Bases& bases) {
  for (const auto& [name, of] : bases) by_name_[name].push_back({"", "", of});
}

ClassIndex::ClassIndex(const std::vector<catalog::ExceptionClassRecord>& classes) {
  for (const catalog::ExceptionClassRecord& c : classes) {
    std::vector<Definition>& defs = by_name_[c.name];
    // One definition per file: the same class in several versions.
    auto same = std::find_if(defs.begin(), defs.end(), [&](const Definition& d) {
      return d.library == c.library && d.path == c.path;
    });
    if (same == defs.end()) {
      defs.push_back({c.library, c.path, c.bases});
      continue;
    }
    for (const std::string& b : c.bases) {
      if (std::find(same->bases.begin(), same->bases.end(), b) == same->bases.end()) {
        same->bases.push_back(b);
      }
    }
  }
}

std::vector<std::string> ClassIndex::BasesOf(const std::string& name, const std::string& library,
                                             const std::string* path,
                                             std::pair<std::string, std::string>* where) const {
  if (where != nullptr) *where = {};
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return {};
  const std::vector<Definition>& defs = it->second;
  using Test = std::function<bool(const Definition&)>;
  const Test tests[] = {
      [&](const Definition& d) {
        return path != nullptr && d.library == library && d.path == *path;
      },
      [&](const Definition& d) { return d.library == library; },
      [](const Definition&) { return true; },
  };
  for (const Test& test : tests) {
    std::vector<const Definition*> found;
    for (const Definition& d : defs) {
      if (test(d)) found.push_back(&d);
    }
    if (found.empty()) continue;
    if (found.size() == 1 && where != nullptr)
      *where = {found.front()->library, found.front()->path};
    std::vector<std::string> common = found.front()->bases;
    for (const Definition* d : found) {
      std::erase_if(common, [&](const std::string& b) {
        return std::find(d->bases.begin(), d->bases.end(), b) == d->bases.end();
      });
    }
    return common;
  }
  return {};
}

std::vector<std::string> Ancestry(const std::string& exception, const std::string& library,
                                  const std::string* path, const ClassIndex& classes) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  struct Named {
    std::string name;
    std::string library;
    std::optional<std::string> path;  // of the file that names it, if one is known
  };
  std::deque<Named> queue{{exception, library, path ? std::optional(*path) : std::nullopt}};
  // Bounded: class graphs in real code are shallow, a cyclic one is not real.
  while (!queue.empty() && out.size() < 32) {
    Named at = std::move(queue.front());
    queue.pop_front();
    if (at.name.empty() || !seen.insert(at.name).second) continue;
    out.push_back(at.name);
    std::pair<std::string, std::string> where;
    std::vector<std::string> bases =
        classes.BasesOf(at.name, at.library, at.path ? &*at.path : nullptr, &where);
    // A base is read as the file defining the class sees it; where several
    // definitions were read, as some file of the library (each of them may
    // mean another class by it).
    for (std::string& b : bases) {
      if (where.second.empty()) {
        queue.push_back({std::move(b), at.library, std::nullopt});
      } else {
        queue.push_back({std::move(b), where.first, where.second});
      }
    }
  }
  return out;
}

// `code` with what its string literals hold blanked: `'address' not in kw`
// reads `kw`, not `address`.
std::string WithoutStrings(std::string_view code) {
  std::string out(code);
  char quote = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    char c = out[i];
    if (quote == 0) {
      if (c == '\'' || c == '"') quote = c;
    } else if (c == '\\' && i + 1 < out.size()) {
      out[i] = out[i + 1] = ' ';
      ++i;
    } else if (c == quote) {
      quote = 0;
    } else {
      out[i] = ' ';
    }
  }
  return out;
}

// Whether `code` reads `name` whole: `mode` in `mode not in MODES` and in
// `mode.lower()`, not in `model` nor in `self.mode`.
bool Reads(std::string_view code, std::string_view name) {
  if (name.empty()) return false;
  for (size_t at = code.find(name); at != std::string_view::npos; at = code.find(name, at + 1)) {
    size_t end = at + name.size();
    bool starts = at == 0 || (!IsIdentChar(code[at - 1]) && code[at - 1] != '.');
    if (starts && (end == code.size() || !IsIdentChar(code[end]))) return true;
  }
  return false;
}

// The names an exit's subject reads: `x` of `type(x)`, `obj.value` of
// `obj.value`; not a function it calls.
std::vector<std::string_view> NamesRead(std::string_view subject) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < subject.size()) {
    bool starts = IsIdentChar(subject[i]) &&
                  std::isdigit(static_cast<unsigned char>(subject[i])) == 0 &&
                  (i == 0 || subject[i - 1] != '.');
    if (!starts) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < subject.size() && (IsIdentChar(subject[end]) || subject[end] == '.')) ++end;
    while (end > i && subject[end - 1] == '.') --end;
    if (end == subject.size() || subject[end] != '(') out.push_back(subject.substr(i, end - i));
    i = end;
  }
  return out;
}

// The expressions a template's placeholders show (`other` of
// `Unable to convert {other!r}`).
std::string Placeholders(std::string_view text) {
  std::string out;
  for (size_t open = text.find('{'); open != std::string_view::npos;
       open = text.find('{', open + 1)) {
    size_t close = text.find('}', open);
    if (close == std::string_view::npos) break;
    out.append(text.substr(open + 1, close - open - 1)).push_back(' ');
  }
  return out;
}

// Whether an early exit is about what the raise's test reads (`reads`:
// its code and subject, strings blanked) or what its message shows (of
// `method.ident`, `method` will do: crypt's "{method} doesn't support the
// rounds argument" after `elif method.ident in ('5', '6')`).
bool SameSubject(const Guard& exit, std::string_view reads, std::string_view shown) {
  std::vector<std::string_view> names = NamesRead(exit.subject);
  if (names.empty()) return true;
  return std::any_of(names.begin(), names.end(), [&](std::string_view n) {
    if (Reads(reads, n) || Reads(shown, n)) return true;
    std::string_view base = n.substr(0, n.find('.'));
    return base != n && base != "self" && base != "cls" && Reads(shown, base);
  });
}

// The name a test of truth reads (`raiseit`, `not self.strict`, `!(quiet)`);
// empty for any other test.
std::string_view TruthTested(std::string_view code) {
  std::string_view rest = code;
  auto trim = [&] {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '(' || rest.front() == '!')) {
      rest.remove_prefix(1);
    }
    while (!rest.empty() && (rest.back() == ' ' || rest.back() == ')')) rest.remove_suffix(1);
  };
  trim();
  while (rest.substr(0, 4) == "not ") {
    rest.remove_prefix(4);
    trim();
  }
  bool name = !rest.empty() && std::all_of(rest.begin(), rest.end(),
                                           [](char c) { return IsIdentChar(c) || c == '.'; });
  return name ? rest : std::string_view();
}

// Whether a guard's subject is the interpreter's or the platform's
// (`sys.platform`, `os.name`, `sys._getframe(2).f_globals['__name__']`):
// no value a caller passes, so no value to offer as a fix. A table of what
// is the environment's, not every name under `sys` or `os`: a caller sets
// `os.environ` and passes the path in `os.path.splitext(path)`.
bool OfTheEnvironment(std::string_view subject) {
  static constexpr std::string_view kEnvironment[] = {"sys.platform",
                                                      "sys.version",
                                                      "sys._getframe(",
                                                      "sys.implementation",
                                                      "sys.byteorder",
                                                      "sys.maxsize",
                                                      "sys.flags",
                                                      "os.name",
                                                      "platform.system()",
                                                      "platform.machine()",
                                                      "platform.python_implementation()"};
  return std::any_of(std::begin(kEnvironment), std::end(kEnvironment),
                     [&](std::string_view e) { return StartsWith(subject, e); });
}

// Whether a guard's subject is an object's private state (`self._state`,
// `cls._registry`): set by the library as it goes (cffi's
// `self._inside_extern_python = decl.name`), never passed by a caller, so
// no value of it is a fix.
bool PrivateState(std::string_view subject) {
  return StartsWith(subject, "self._") || StartsWith(subject, "cls._");
}

// The conditions that decide a raise (a site's guards run outermost
// first): the innermost one; before it the tests of the same if statement
// that failed on the way to its elif or else (`if val in YES: return 1` /
// `elif val in NO: return 0` / `else: raise`); and the early exits just
// before it (`if isinstance(obj, str): return ...` one after another).
//
// Under a test of its own, the raise keeps only the exits (and, in an elif
// arm, the failed tests before it) on what that test reads or what its
// message (`template`) shows: `if isinstance(address, int): return` before
// `if mode not in ('r', 'w'): raise` is no fix for the mode, and `int` is
// no type the function requires. A name the test reads
// through another (`l = len(rv)`) is not seen, and its exits go too. After
// exits alone, or in an except clause (whose "test" is that the try body
// failed on what the exits let through), all are kept.
// Whether the raise whose guards these are sits under a test of its own
// (the last guard): an if, elif, while, assert or case, or the failed
// tests of the if statement whose else it is in. A switch the message does
// not name (`if raiseit:`) tests no value: what passes the exits is what
// is refused. `if not data: raise ValueError('data must not be empty')`
// tests `data`.
bool UnderOwnTest(const std::vector<Guard>& guards, std::string_view template_text) {
  if (guards.empty()) return false;
  const Guard& last = guards.back();
  static const std::set<std::string> kTests = {"if",     "elif", "while",
                                               "assert", "case", "default-case"};
  if (kTests.count(last.kind) == 0) return false;
  std::string_view truth = TruthTested(last.code);
  if (truth.empty() || truth == "True" || Reads(template_text, truth) ||
      Reads(template_text, truth.substr(truth.rfind('.') + 1))) {
    return true;
  }
  // `elif e.is_Derivative:` after tests of `e` asks a property of the value
  // those tests are about: no switch.
  std::string_view base = truth.substr(0, truth.find('.'));
  return base != truth && base != "self" && base != "cls" &&
         std::any_of(guards.begin(), guards.end() - 1, [&](const Guard& g) {
           std::vector<std::string_view> names = NamesRead(g.subject);
           return std::find(names.begin(), names.end(), base) != names.end();
         });
}

std::vector<Guard> Innermost(const std::vector<Guard>& guards, std::string_view template_text) {
  if (guards.empty()) return {};
  const Guard& last = guards.back();
  bool own_test = UnderOwnTest(guards, template_text);
  size_t first = guards.size() - 1;
  while (first > 0) {
    const Guard& before = guards[first - 1];
    const Guard& after = guards[first];
    bool same_statement =
        (before.kind == "if" || before.kind == "elif") && before.negated && after.kind == "elif";
    bool exits_before = before.kind == "early-exit" &&
                        (after.kind == "early-exit" || first + 1 == guards.size());
    if (!same_statement && !exits_before) break;
    --first;
  }
  // In an else arm the whole chain is the raise's test; in an elif's own
  // arm the tests before it are other ways out.
  bool own_arm = last.kind == "elif" && !last.negated;
  std::string reads = WithoutStrings(last.code) + " " + last.subject;
  if (!own_arm) {
    for (size_t i = first; i + 1 < guards.size(); ++i) {
      if (guards[i].kind != "early-exit") reads += " " + WithoutStrings(guards[i].code);
    }
  }
  std::string shown = Placeholders(template_text);
  std::vector<Guard> out;
  for (size_t i = first; i < guards.size(); ++i) {
    const Guard& g = guards[i];
    bool other_way_out = g.kind == "early-exit" || (own_arm && i + 1 < guards.size());
    if (own_test && other_way_out && !SameSubject(g, reads, shown)) continue;
    out.push_back(g);
  }
  return out;
}

// `innermost` (Innermost's answer for a raise) with the values cleared
// that say nothing of what the raise accepts. Under a single test of its
// own, the values are that test's complement, with the ways out before it.
// A test that picks what it refuses and lists nothing (`elif
// e.is_Derivative: raise`, `if '/' in addr_str: raise`) leaves the ways out
// (`isinstance(e, log)` of an earlier arm) as a few of the many values that
// pass, not the ones it takes; one that refuses what fails it (`not
// isstring(pattern)`, `maxsize is not None`) leaves them as values that
// pass beside the ones it names. In an else arm, or after exits alone, the
// tests together are the list; one of them that tests a subject together
// with something the message shows (`isinstance(event, Preamble) and
// self.state == 1` before "Cannot send {event} in state {self.state}")
// says the error is the pair's, and what the rest list (`Epilogue`) is no
// answer to which value to pass. Together with something it does not show
// (`allow_float and isinstance(other, float)`), or a plain test that lists
// nothing (`x is None`, `hasattr(f, 'read')`), the list is short of a
// value, not wrong.
std::vector<Guard> WithValidValues(std::vector<Guard> innermost, std::string_view template_text) {
  if (innermost.empty()) return innermost;
  auto clear = [](Guard& g) {
    g.values.clear();
    g.meanings.clear();
  };
  const Guard& last = innermost.back();
  // In a handler (or past a try only a handler gets out of), what the
  // tried code accepts is the rest of the list, and no test says what it
  // is: click's `if isinstance(value, uuid.UUID): return value` before
  // parsing a string is a shortcut, not the one type it takes.
  if (last.kind == "except" || last.kind == "catch" || last.kind == "caught") {
    for (Guard& g : innermost) clear(g);
    return innermost;
  }
  bool single = UnderOwnTest(innermost, template_text) &&
                !((last.kind == "if" || last.kind == "elif") && last.negated);
  if (single) {
    std::string code = WithoutStrings(last.code);
    std::string_view test = Trim(code);
    bool refuses = StartsWith(test, "not ") || StartsWith(test, "!") ||
                   code.find(" is not ") != std::string::npos ||
                   code.find(" not in ") != std::string::npos ||
                   code.find("!=") != std::string::npos;
    if (last.values.empty() && (refuses == last.negated)) {
      for (Guard& g : innermost) clear(g);
    }
    return innermost;
  }
  std::string shown = Placeholders(template_text);
  std::set<std::string> partial;
  for (const Guard& g : innermost) {
    if (g.values.empty()) continue;
    std::vector<std::string_view> names = NamesRead(g.subject);
    for (const Guard& other : innermost) {
      if (!other.values.empty()) continue;
      std::string code = WithoutStrings(other.code);
      bool reads_subject = std::any_of(names.begin(), names.end(),
                                       [&](std::string_view n) { return Reads(code, n); });
      if (!reads_subject) continue;
      // Another name the test reads that the message shows.
      for (std::string_view n : NamesRead(code)) {
        if (std::find(names.begin(), names.end(), n) == names.end() && Reads(shown, n)) {
          partial.insert(g.subject);
        }
      }
    }
  }
  for (Guard& g : innermost) {
    if (partial.count(g.subject) != 0) clear(g);
  }
  return innermost;
}

// networkx's `if key in {"algos", ...}: pass` / `elif key not in
// _registered_algorithms: raise`: the collection lets through names no
// list holds, so the arm's values are not what the code takes, though the
// test is still one of a choice (the family keeps them).
std::vector<Guard> WithoutPartOfACollection(std::vector<Guard> innermost) {
  if (innermost.empty()) return innermost;
  const Guard& last = innermost.back();
  if (!last.values.empty() || (last.kind != "if" && last.kind != "elif") || last.negated) {
    return innermost;
  }
  std::string code = WithoutStrings(last.code);
  size_t in = code.find(" not in ");
  if (in == std::string::npos) return innermost;
  std::string_view left = std::string_view(code).substr(0, in);
  for (size_t i = 0; i + 1 < innermost.size(); ++i) {
    Guard& g = innermost[i];
    if (!g.values.empty() && !g.subject.empty() && g.code.find("isinstance") == std::string::npos &&
        Reads(left, g.subject)) {
      g.values.clear();
      g.meanings.clear();
    }
  }
  return innermost;
}

// `innermost` (WithValidValues' answer) without the lists of a value whose
// types the ways out name but the raise's own test does not: the types
// are the ones the code takes only when every other type reaches the
// raise, and a test of its own that is no type test lets some through.
// sympy's get_unit_system returns a UnitSystem at once, then looks any
// other value up by name, and raises only for a name it does not know.
// What else is listed of that value (pygments' `'#push'` after arms for a
// tuple and an int) is then a part of what it takes. A flag (`if
// raiseit:`) tests no value: the types stand. For the family
// (`comparisons_only`), only a comparison of its own (`not in`, `==`, `<`)
// says the failure is the value's rather than its type's: after a
// failed `callable(stmt)` the raise does need a value of another type.
std::vector<Guard> WithoutFastPathTypes(std::vector<Guard> innermost, bool comparisons_only) {
  if (innermost.empty()) return innermost;
  const Guard& last = innermost.back();
  static const std::set<std::string> kOwnTests = {"if", "elif", "while", "assert"};
  if (kOwnTests.count(last.kind) == 0 || last.code.find("isinstance") != std::string::npos) {
    return innermost;
  }
  std::string own = WithoutStrings(last.code);
  if (comparisons_only && own.find(" in ") == std::string::npos &&
      own.find_first_of("<>=") == std::string::npos) {
    return innermost;
  }
  std::set<std::string> partial;
  for (size_t i = 0; i + 1 < innermost.size(); ++i) {
    const Guard& g = innermost[i];
    if (g.values.empty() || g.code.find("isinstance") == std::string::npos) continue;
    std::vector<std::string_view> names = NamesRead(g.subject);
    if (std::any_of(names.begin(), names.end(),
                    [&](std::string_view n) { return Reads(own, n); })) {
      for (std::string_view n : names) {
        if (n != "self" && n != "cls") partial.emplace(n);
      }
    }
  }
  if (partial.empty()) return innermost;
  for (Guard& g : innermost) {
    std::vector<std::string_view> names = NamesRead(g.subject);
    if (std::any_of(names.begin(), names.end(),
                    [&](std::string_view n) { return partial.count(std::string(n)) != 0; })) {
      g.values.clear();
      g.meanings.clear();
    }
  }
  return innermost;
}

// Whether the raise sits right under a failed isinstance (`if not
// isinstance(x, T):`, the else of `elif isinstance(x, T):`, `assert
// isinstance(x, T)`), every test
// of its chain being one isinstance: one paired with another test
// (`isinstance(event, Preamble) and self.state == 1`) makes the error the
// pair's.
bool UnderAFailedIsinstance(const std::vector<Guard>& innermost) {
  if (innermost.empty()) return false;
  const Guard& test = innermost.back();
  if (test.kind != "if" && test.kind != "elif" && test.kind != "assert") return false;
  bool one_test = std::all_of(innermost.begin(), innermost.end(), [](const Guard& g) {
    std::string_view c = Trim(g.code);
    return c.find("isinstance(") != std::string_view::npos &&
           c.find(" and ") == std::string_view::npos && c.find(" or ") == std::string_view::npos;
  });
  std::string_view code = Trim(test.code);
  return one_test && ((StartsWith(code, "not isinstance(") && !test.negated) ||
                      (StartsWith(code, "isinstance(") && test.negated));
}

Analysis AnalyzeError(const catalog::ErrorRecord& e, const ClassIndex& classes) {
  Analysis a;
  FamilyFacts facts;
  // `mod.Error` is not the raising file's own `Error`.
  const catalog::SiteRecord* first = e.sites.empty() ? nullptr : &e.sites.front();
  bool own = first != nullptr && first->exception_written.find('.') == std::string::npos;
  facts.ancestry = Ancestry(e.exception, e.library, own ? &first->path : nullptr, classes);
  facts.kind = e.kind;
  facts.message = LiteralText(e.message);
  facts.internal = e.internal;
  // Every site in an assert function (one site elsewhere may be the
  // library's own check); an assertion or a raise that should be
  // unreachable stays the library's own, whatever function it is in.
  facts.asserts_for_caller =
      !e.internal && std::all_of(e.sites.begin(), e.sites.end(), [](const catalog::SiteRecord& s) {
        return NamedForAssert(s.function) || NamedForAssert(s.via);
      });
  // The front end marks every assert internal; whether it is the
  // library's own invariant is this analysis's to say.
  facts.asserts_callers_input = e.kind == "assert" && !e.sites.empty();
  bool unreachable = false;
  std::set<std::pair<std::string, std::vector<std::string>>> listed;
  std::vector<std::vector<Guard>> site_guards;
  site_guards.reserve(e.sites.size());
  for (const catalog::SiteRecord& s : e.sites) {
    facts.functions.push_back(s.function);
    site_guards.push_back(SiteGuards(s));
    const std::vector<Guard>& guards = site_guards.back();
    unreachable = unreachable || (s.internal && LooksUnreachable(guards));
    facts.asserts_callers_input =
        facts.asserts_callers_input && AssertsOnCallersInput(s, guards).has_value();
    // ipaddress's `if isinstance(address, int): ... return` before
    // `self._check_packed_address(address, 4)`: an int is no fix for a
    // packed address of the wrong length, which the helper checks.
    if (HelperDecides(s.trigger)) continue;
    // A module's or class's `__getattr__` runs only for names that are not
    // there: the names it tests are a few more it answers (werkzeug's
    // deprecated `OrderedMultiDict`), not all a caller may ask for.
    bool lookup_hook =
        EndsWith(s.function, "__getattr__") || EndsWith(s.function, "__getattribute__");
    std::vector<catalog::Parameter> params;
    bool params_read = false;
    // Only the conditions the raise sits right under say what the value
    // should have been: a test further out may be a dispatch on type or
    // value whose other arm works (`if isinstance(fname, RawConfigParser):
    // cp = fname` / `else: try: ... except ParsingError: raise
    // RuntimeError(...)` raises for a bad file, not for a str).
    std::vector<Guard> innermost =
        WithValidValues(Innermost(guards, e.template_text), e.template_text);
    for (const Guard& g : WithoutPartOfACollection(WithoutFastPathTypes(innermost, false))) {
      if (g.values.empty() || OfTheEnvironment(g.subject) || PrivateState(g.subject) ||
          lookup_hook) {
        continue;
      }
      // What the raising function's docstring says of the checked name, when
      // it is one of its parameters.
      if (!params_read) params = catalog::SiteParameters(s);
      params_read = true;
      auto param = std::find_if(params.begin(), params.end(),
                                [&](const catalog::Parameter& p) { return p.name == g.subject; });
      std::string doc = param == params.end() ? "" : param->doc;
      // Else what a public entry point's docstring says of its parameter
      // that carries the value down unchanged.
      if (doc.empty() && param != params.end()) doc = EntryPointDoc(s, g.subject);
      if (!listed.insert({g.subject, g.values}).second) {
        // Listed by an earlier site whose function has no entry for it.
        for (ValidValues& v : a.valid) {
          if (!doc.empty() && v.doc.empty() && v.subject == g.subject && v.values == g.values) {
            v.doc = doc;
          }
        }
        continue;
      }
      ValidValues v;
      v.subject = g.subject;
      v.values = g.values;
      v.meanings = g.meanings;
      v.doc = std::move(doc);
      v.source = g.kind == "default-case"                         ? "cases"
                 : g.code.find("isinstance") != std::string::npos ? "types"
                                                                  : "set";
      v.line = g.line;
      a.valid.push_back(std::move(v));
    }
    facts.own_test_refuses_type = facts.own_test_refuses_type || UnderAFailedIsinstance(innermost);
    std::vector<Guard> for_family = WithoutFastPathTypes(std::move(innermost), true);
    facts.guards.insert(facts.guards.end(), for_family.begin(), for_family.end());
  }
  a.family = ClassifyFamily(facts);
  // A failed check a caller asked for is the caller's finding, not the
  // library's bug.
  bool callers_check = a.family.slug == "failed-check";
  // An assert on a caller's value, or one whose words say how the object
  // was used, is no bug of the library's own.
  bool callers_input =
      facts.asserts_callers_input || (e.kind == "assert" && a.family.slug == "invalid-state");
  if ((e.internal && !callers_input) ||
      (!callers_check && !callers_input && (e.kind == "assert" || e.kind == "fatal")) ||
      a.family.slug == "internal-assertion") {
    a.labels.push_back("internal");
  }
  if (unreachable) a.labels.push_back("version-mismatch");
  a.prose = WriteProse(e, a, site_guards);
  return a;
}

Result<AnalyzeSummary> AnalyzeCatalog(catalog::Catalog& catalog, std::string_view library) {
  Result<std::vector<catalog::ExceptionClassRecord>> defined = catalog.ExceptionClasses();
  if (!defined) return tl::unexpected(defined.error());
  ClassIndex classes(*defined);
  catalog::ListQuery query;
  query.library = std::string(library);
  // Analysis reads conditions, not code: no statements or excerpts.
  query.with_guards = true;
  Result<std::vector<catalog::ErrorRecord>> errors = catalog.List(query);
  if (!errors) return tl::unexpected(errors.error());

  AnalyzeSummary summary;
  std::vector<std::pair<int64_t, Analysis>> out;
  out.reserve(errors->size());
  for (const catalog::ErrorRecord& e : *errors) out.emplace_back(e.pk, AnalyzeError(e, classes));

  // Related errors within each library.
  std::map<std::string, std::vector<size_t>> by_library;
  for (size_t i = 0; i < errors->size(); ++i) by_library[(*errors)[i].library].push_back(i);
  for (const auto& [name, members] : by_library) {
    std::vector<RelatedInput> inputs;
    inputs.reserve(members.size());
    for (size_t i : members) {
      const catalog::ErrorRecord& e = (*errors)[i];
      RelatedInput r{
          e.id, e.exception, e.template_text, LiteralText(e.message), out[i].second.family.slug,
          {}};
      for (const catalog::SiteRecord& s : e.sites) r.places.emplace_back(s.path, s.function);
      inputs.push_back(std::move(r));
    }
    std::vector<std::vector<RelatedError>> related = FindRelated(inputs);
    for (size_t k = 0; k < members.size(); ++k)
      out[members[k]].second.related = std::move(related[k]);
    std::vector<const catalog::ErrorRecord*> records;
    std::vector<Analysis*> analyses;
    for (size_t i : members) {
      records.push_back(&(*errors)[i]);
      analyses.push_back(&out[i].second);
    }
    LinkRewordings(records, analyses);
  }

  for (size_t i = 0; i < errors->size(); ++i) {
    const Analysis& a = out[i].second;
    ++summary.errors;
    ++summary.by_family[a.family.slug];
    for (const std::string& l : a.labels) {
      if (l == "internal") ++summary.internal;
      if (l == "version-mismatch") ++summary.version_mismatch;
    }
    if (!a.valid.empty()) ++summary.with_valid_values;
    if (!a.related.empty()) ++summary.with_related;
    if (!a.prose.fix_after.empty()) ++summary.with_fix;
  }
  std::vector<FamilyInfo> taxonomy;
  for (const Family& f : Families()) {
    FamilyInfo info;
    info.slug = f.slug;
    info.name = f.name;
    info.description = f.description;
    taxonomy.push_back(std::move(info));
  }
  ERRDEX_TRY(catalog.WriteAnalyses(out, taxonomy));
  return summary;
}

Result<ClassesBefore> ReadClassesBefore(catalog::Catalog& catalog, std::string_view library) {
  ClassesBefore before;
  Result<Bases> all = catalog.ExceptionBases();
  if (!all) return tl::unexpected(all.error());
  Result<Bases> own = catalog.ExceptionBases(library);
  if (!own) return tl::unexpected(own.error());
  before.all = std::move(*all);
  before.own = std::move(*own);
  return before;
}

Result<std::vector<std::string>> AnalyzeDependents(catalog::Catalog& catalog,
                                                   std::string_view library,
                                                   const ClassesBefore& before) {
  Result<Bases> after = catalog.ExceptionBases(library);
  if (!after) return tl::unexpected(after.error());
  // The names whose definition by `library` changed: added, removed or
  // given other bases. Only they can change another library's ancestries.
  std::set<std::string> changed;
  for (const auto& [name, bases] : before.own) {
    auto it = after->find(name);
    if (it == after->end() || it->second != bases) changed.insert(name);
  }
  for (const auto& [name, bases] : *after) {
    if (!before.own.count(name)) changed.insert(name);
  }
  std::vector<std::string> dependents;
  if (changed.empty()) return dependents;
  Result<std::vector<std::pair<std::string, std::string>>> types = catalog.ErrorTypes();
  if (!types) return tl::unexpected(types.error());
  // A library's analysis read its errors' ancestries; each ancestry lists
  // every name it looked up, found or not, so one computed with the
  // classes as they were before names every class whose change can reach
  // it (up to Ancestry's bound).
  std::set<std::string> affected;
  for (const auto& [lib, exception] : *types) {
    if (lib == library || affected.count(lib)) continue;
    for (const std::string& name : Ancestry(exception, before.all)) {
      if (changed.count(name)) {
        affected.insert(lib);
        break;
      }
    }
  }
  for (const std::string& lib : affected) {
    Result<AnalyzeSummary> a = AnalyzeCatalog(catalog, lib);
    if (!a) return tl::unexpected(a.error());
    dependents.push_back(lib);
  }
  return dependents;
}

}  // namespace errdex::analyze
