// What analysis derives for an error from its sites and the catalog around
// it (src/analyze writes it, the catalog stores it, show and the website
// render it), and what a language model may add beside it.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace errdex {

// What a subject may be, as the code around a raise lists it.
struct ValidValues {
  std::string subject;              // `mode`, `self`, `type(x)`
  std::vector<std::string> values;  // as written: `'fast'`, `TMEMLayout.D`, `int`
  std::string source;  // "cases" (match/switch), "set" (`not in`), "types" (isinstance)
  int line = 0;        // the guard's line in the first site that has it
  std::vector<std::string> meanings;  // Guard::meanings: what each case maps to
  // When the subject is a parameter of the raising function, the first
  // sentence of its docstring entry (catalog::Parameter::doc); else "".
  std::string doc;
};

struct RelatedError {
  std::string id;
  std::string exception;
  std::string template_text;
  std::string reason;  // "same function", "same file", "same family, similar text"
  double score = 0;    // for ordering; higher is closer
};

// An error of another wording that the same code raised in the version just
// before or after this one: the text was changed, the error is the same.
struct Rewording {
  std::string id;  // the other wording's error
  std::string exception;
  std::string template_text;
  std::string last_before;  // the last version with the older wording
  std::string first_after;  // the first version with the newer one
};

// A failure family and why the error is in it.
struct FamilyAssignment {
  std::string slug;    // "invalid-choice"
  std::string reason;  // "the exception type is KeyError", "the message says \"out of range\""
  // Placed by the broad type alone (ValueError, TypeError): the family is
  // where such errors are filed, not a sentence a page states as what the
  // error is (an independent labelling agreed with 53-60% of them).
  bool weak = false;
};

// The sections of a page written from facts alone. Every sentence names the
// fact it comes from (type, trigger, valid values, family, labels).
struct Prose {
  std::string meaning;
  std::string when;
  std::vector<std::string> solutions;
  std::string fix_before;  // an example fix, when valid values or types make one obvious
  std::string fix_after;
};

// Every label Analyze gives (Analysis::labels): what a listing may be
// filtered by.
inline constexpr std::string_view kAnalysisLabels[] = {"internal", "version-mismatch"};

struct Analysis {
  FamilyAssignment family;
  std::vector<std::string> labels;  // "internal", "version-mismatch"
  std::vector<ValidValues> valid;
  std::vector<RelatedError> related;  // best first, at most five
  std::vector<Rewording> reworded_from;  // earlier wordings (the predecessors)
  std::vector<Rewording> reworded_to;    // later wordings (the successors)
  Prose prose;
};

inline bool HasLabel(const Analysis& a, std::string_view label) {
  return std::find(a.labels.begin(), a.labels.end(), label) != a.labels.end();
}

// What a page says of a weak family in place of its description.
inline constexpr std::string_view kWeakFamilyNote =
    "filed by the exception's type alone; the code may give another cause";

// Prose a language model wrote from the facts (errdex enrich). Stored beside
// the analysis, never in place of it, with where it came from.
struct Enrichment {
  std::string model;
  std::string endpoint;
  std::string created_at;  // ISO 8601, UTC
  std::string meaning;
  std::vector<std::string> situations;
  std::vector<std::string> solutions;
  std::string fix_before;
  std::string fix_after;
};

// A family of the taxonomy (src/analyze/family.h), as the catalog lists it.
struct FamilyInfo {
  std::string slug;
  std::string name;
  std::string description;
  long long errors = 0;               // errors in the family across the catalog
  long long libraries = 0;            // libraries with at least one
  std::vector<std::string> examples;  // example templates, from different libraries first
};

}  // namespace errdex
