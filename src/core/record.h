// The records the pipeline passes from extraction to the catalog: sites where
// errors are raised, raise statements that are not new errors, and files
// that were skipped or recovered.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/template.h"

namespace errdex {

enum class SiteKind {
  kRaise,    // raise / throw
  kAssert,   // assert cond, msg: AssertionError, gone under python -O
  kWarning,  // warnings.warn
  kReturn,   // a function that returns an exception for its caller to raise
  kFatal,    // aborts the process (CHECK, LOG(FATAL))
  kStatus,   // an error status value (absl::Status)
};

std::string_view SiteKindName(SiteKind kind);
std::optional<SiteKind> SiteKindFromName(std::string_view name);

// One condition on the way from a function's entry to a raise: the raise
// happens only when it holds (or, `negated`, when it does not).
struct Guard {
  // if, elif, early-exit, while, for, loop-else (a for loop that ran to
  // its end), except / catch, try-else, case,
  // default-case, assert (an assertion's own condition), label (C: a label
  // a goto jumps to, between the raise and the exits above it), case-entry
  // (C: a switch with case labels below its top level, `subject` its
  // subject), case-or-above (C: `subject` matches `code`, or the cases from
  // `line` fall into it); replaced (Python:
  // `code`, a module-level import at `line`, rebinds `subject`, the
  // definition the raise is in; replaced-if-defined: a star import that may
  // not define it) and stands-in (the whole module runs in place of `code`,
  // at `line` of the file `subject`, when it fails); message (Python: a
  // test that chose this text among those the raise can have, `msg += ...`
  // under an `if`; first in the list, and never the raise's own test)
  std::string kind;
  std::string code;  // the condition as written; for except the types, for case the pattern
  bool negated = false;
  // The condition that holds on the path, negation applied exactly (De
  // Morgan), in the source language; empty where a front end does not write
  // it or the guard is no Boolean condition (for, except, case).
  std::string when;
  int line = 0;
  std::string subject;              // case, default-case: what is matched
  std::vector<std::string> values;  // default-case: the cases listed before it
  // Beside `values`, what each case maps to where its body says so at once
  // (`case 0: stage = Stage::kPreScheduler;` gives "kPreScheduler"); "" where
  // not. Empty when no case says.
  std::vector<std::string> meanings;
};

struct Site {
  std::string exception;          // resolved short name: "LoweringException"
  std::string exception_written;  // as written: "pallas_core.LoweringException"
  SiteKind kind = SiteKind::kRaise;
  Template message;
  std::string language;       // "python", "c", "cpp"
  std::string path;           // relative to the indexed root, '/'-separated
  int line = 0;               // 1-based line of the raise keyword (or raising call)
  int column = 0;             // 1-based byte column of the same
  int end_line = 0;           // last line of the statement
  std::string function;       // qualified name: "TMEMLayout.to_mgpu"; "<module>"
  // The enclosing function's parameters in order, as JSON pairs of name and
  // kind: [["self","any"],["x","pos"],["mode","kw"]] — "pos" positional
  // only, "any" positional or keyword, "*" and "**" the variadic ones, "kw"
  // keyword only — with a third element, the first sentence of its entry in
  // the docstring, where there is one: ["mode","kw","How to run."]. Empty
  // where the front end does not read signatures.
  std::string signature;
  // The library's public functions whose calls reach this site's function,
  // shortest path first, as JSON: [{"name": "pkg.mod.f", "kind": "function"
  // | "class" | "method", "path": "pkg/_impl.py", "line": 12, "here": true when it is the site's
  // own function, "via":
  // ["_helper"], "args": {"site_param": "entry_param"}, "parameters": [as
  // signature]}]. "via" is the chain of functions between the entry and the
  // site's function; "args" the parameters passed down unchanged all the
  // way, but for a conversion of the value itself in the site's function
  // (`status = convert(status)`); "parameters" the entry's own signature.
  // Empty where unknown.
  std::string entries;
  // Parameters of the site's function that an assignment before the site
  // may have replaced with a value not made from them (`if log is None:
  // log = default`): no entry passes them down, so AssignEntryPoints leaves
  // them out of `args`. Not stored.
  std::vector<std::string> rebound;
  std::string statement;      // the raising statement's source text
  int excerpt_line = 0;       // first line of `excerpt`
  std::string excerpt;        // about 40 lines around the statement
  std::string cause;          // the `from` expression of a chained raise
  std::string via;            // the helper or exception class that builds the message
  bool internal = false;      // an assertion or a raise that should be unreachable
  std::vector<Guard> guards;  // outermost first
  std::string trigger;        // the guards as one sentence: "raised when ..."
};

// A raise statement that does not create a new error (a re-raise), or one
// errdex could not turn into a site; counted by reason in `errdex stats`.
struct NonSite {
  std::string path;
  int line = 0;
  std::string reason;  // "reraise", "reraise-caught", "reraise-variable", "raise-returned", ...
};

// A file that was not indexed (skipped) or indexed with trouble (recovered).
struct FileIssue {
  std::string path;
  std::string reason;  // "too-large", "not-utf8", "syntax-error", ...
  std::string detail;
  bool skipped = true;
};

// An exception class defined in the library, for subclass-aware matching.
struct ExceptionClass {
  std::string name;
  std::vector<std::string> bases;  // short names, in order
  std::string path;
  int line = 0;
};

struct Extraction {
  std::vector<Site> sites;
  std::vector<NonSite> non_sites;
  std::vector<FileIssue> issues;
  std::vector<ExceptionClass> classes;
  int64_t files_scanned = 0;
  int64_t bytes_scanned = 0;
};

}  // namespace errdex
