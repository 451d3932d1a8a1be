// The analysis stage: reads a library's errors from the catalog, derives
// family, labels, valid values, related errors and prose for each, and
// writes them back in one transaction.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "core/analysis.h"
#include "core/status.h"

namespace errdex::analyze {

struct AnalyzeSummary {
  int64_t errors = 0;
  int64_t internal = 0;          // labelled internal
  int64_t version_mismatch = 0;  // labelled version-mismatch
  int64_t with_valid_values = 0;
  int64_t with_related = 0;
  int64_t with_fix = 0;
  std::map<std::string, int64_t> by_family;
};

// Analyses every error of `library` (every library when empty).
Result<AnalyzeSummary> AnalyzeCatalog(catalog::Catalog& catalog, std::string_view library);

using Bases = std::map<std::string, std::vector<std::string>>;  // class -> its bases

// Exception classes as a write found them: every library's, and those of
// the library it writes. Read in the write's transaction, before it.
struct ClassesBefore {
  Bases all;
  Bases own;
};
Result<ClassesBefore> ReadClassesBefore(catalog::Catalog& catalog, std::string_view library);

// After `library` was written: analyses again every other library with an
// error whose ancestry (by `before.all`) names a class `library` added,
// removed or rebased, so that what an analysis read of other libraries is
// as the catalog now holds it, whichever order libraries were written in
// (AnalyzeCatalog keys classes by short name across the catalog). Returns
// their names. Libraries the change cannot reach are not read.
Result<std::vector<std::string>> AnalyzeDependents(catalog::Catalog& catalog,
                                                   std::string_view library,
                                                   const ClassesBefore& before);

// Where the catalog's exception classes are defined, for reading a short
// name as the class a file means by it: many modules define an `Error`,
// each on its own base (aifc's on Exception, shutil's on OSError).
class ClassIndex {
 public:
  ClassIndex() = default;
  // Classes known by name only, as if each were defined once, nowhere in
  // particular.
  explicit ClassIndex(const Bases& bases);
  explicit ClassIndex(const std::vector<catalog::ExceptionClassRecord>& classes);

  // The bases of `name` as `path` of `library` sees it: those of its
  // definition in that file; else, of those in its library or in any
  // library (the first of these that has one), the bases every one of them
  // has: where definitions disagree, no one of them is known to be the
  // class meant (a file raising an `Error` it imported may have it from
  // any module, of its directory or not). A null `path` is a file of the
  // library not known, that looks in its library first. `where` is set to
  // the library and file of the definition read, or left empty when
  // several were.
  std::vector<std::string> BasesOf(const std::string& name, const std::string& library,
                                   const std::string* path,
                                   std::pair<std::string, std::string>* where) const;

 private:
  struct Definition {
    std::string library;
    std::string path;
    std::vector<std::string> bases;
  };
  std::map<std::string, std::vector<Definition>> by_name_;
};

// The analysis of one error, prose included, without its related errors,
// which need the library's other errors. Its exception is the class its
// first site's file sees by that name.
Analysis AnalyzeError(const catalog::ErrorRecord& e, const ClassIndex& classes);

// Ancestry as `path` of `library` sees `exception` (null: a file of the
// library not known, as for a class written qualified, `mod.Error`): each
// base as the file of the class naming it sees it (ClassIndex::BasesOf).
std::vector<std::string> Ancestry(const std::string& exception, const std::string& library,
                                  const std::string* path, const ClassIndex& classes);

// The exception and its bases, breadth first, short names, no repeats.
std::vector<std::string> Ancestry(const std::string& exception,
                                  const std::map<std::string, std::vector<std::string>>& bases);

}  // namespace errdex::analyze
