// The error catalog: one SQLite file holding libraries, their snapshots, the
// errors each can raise and the sites that raise them. The schema is
// documented in doc/catalog.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "catalog/sql.h"
#include "core/analysis.h"
#include "core/record.h"
#include "core/status.h"

namespace errdex::catalog {

inline constexpr int kSchemaVersion = 11;
inline constexpr int32_t kApplicationId = 0x45525258;  // "ERRX"

// A library at one revision, as the indexer describes it.
struct SnapshotInfo {
  std::string library;  // owner/name
  std::string url;      // repository URL, may be empty
  std::string rev;      // what tells snapshots apart: --rev, else the commit, else ""
  std::string commit;   // 40 hex digits when indexed from git
  std::string date;     // commit date (ISO 8601) when known
  std::string kind;     // "git", "dir", "python-package"
  std::string root;     // the indexed path, on the indexing machine
  std::string subdir;   // the indexed directory within the repository
  // What the indexed source was, for a caller to tell whether it changed
  // without reading it again: an installed Python distribution's metadata
  // fingerprint (16 hex digits). Empty when not known.
  std::string source_digest;
  // Other names of the same commit (release tags on one commit): the
  // snapshot is stored once, under `rev`, and found by any of them.
  std::vector<std::string> aliases;
};

struct WriteSummary {
  bool unchanged = false;  // the same content was already stored; nothing was written
  int64_t errors = 0;      // errors with a site in this snapshot
  int64_t sites = 0;
  int64_t new_errors = 0;      // errors the catalog did not hold before
  int64_t removed_errors = 0;  // errors left with no site anywhere, deleted
  bool prefilter_rebuilt = false;
};

struct SiteRecord {
  std::string library;
  int64_t snapshot_pk = 0;
  int version = 0;  // the snapshot's place among the library's versions, 0 the oldest
  std::string rev;
  std::string commit;
  std::string date;
  std::string language;
  std::string path;
  int line = 0;
  int column = 0;
  int end_line = 0;
  std::string function;
  std::string kind;
  std::string exception_written;
  std::string statement;
  int excerpt_line = 0;
  std::string excerpt;
  std::string cause;
  std::string via;
  bool internal = false;
  std::string guards_json = "[]";  // the conditions leading to the site (Guard as JSON)
  std::string trigger;             // those conditions as a sentence
  std::string signature;           // the function's parameters (Site::signature)
  std::string entries;             // public functions that reach it (Site::entries)
  std::string url;                 // the library's repository URL
  std::string subdir;              // where the indexed root sits in the repository
  // The indexed path on the indexing machine: a frame's full path tells two
  // libraries with the same relative paths apart (vendored copies).
  std::string root;
};

// The revision a site is shown at: --rev when it is not the commit, else
// the commit's first 10 digits; empty when neither is known.
std::string ShortRevision(const SiteRecord& s);

// Catalog::SetVersion's "the sites of every version" (explain picks one
// version per match from the traceback).
inline constexpr std::string_view kAllVersions = "*";

class Catalog;
struct SiteMemo;

// The kinds and internal flags of the rows an error gained in one write:
// an error's kind is its first row's and it is internal only if every row
// is, so rows added under the error's kind, or internal ones, leave both
// as they are.
struct GainedRows {
  std::set<std::string> kinds;
  bool public_row = false;  // one of them is not internal
  // Whether these rows can change an error stored with `kind` and `internal`.
  bool CanChange(const std::string& kind, bool internal) const {
    return (internal && public_row) || kinds.size() > 1 || *kinds.begin() != kind;
  }
};

// Sets the catalog's version for a scope and restores the one before, also
// when the scope is left by an exception (a web worker keeps its catalog).
class VersionScope {
 public:
  VersionScope(Catalog& catalog, std::string version);
  ~VersionScope();
  VersionScope(const VersionScope&) = delete;
  VersionScope& operator=(const VersionScope&) = delete;

 private:
  Catalog& catalog_;
  std::string previous_;
};

// One version of a library, and how many sites an error has in it.
struct VersionPresence {
  std::string rev;
  std::string commit;
  std::string date;
  int64_t sites = 0;  // 0: the error is not raised in this version
  std::vector<std::string> aliases;  // other release tags of its commit
};

// Runs of consecutive versions that raise an error: [{first, last}], oldest
// first. A gap between runs is versions that do not.
struct VersionRange {
  std::string first;
  std::string last;
};
std::vector<VersionRange> RaisedIn(const std::vector<VersionPresence>& versions);

// "0.4.20–0.4.30", "0.4.20", "0.4.1–0.4.3, 0.4.7"
std::string DescribeRanges(const std::vector<VersionRange>& ranges);

struct ErrorRecord {
  int64_t pk = 0;  // the row, for queries within one catalog; not stable across catalogs
  std::string id;
  std::string library;
  std::string exception;
  std::string template_text;  // the display form
  std::string kind;
  Template message;  // the pieces
  bool dynamic = false;
  bool internal = false;
  // The sites of one version (`version`): the newest that raises the error,
  // or the one the catalog was asked for (Catalog::SetVersion); ordered by
  // path and line.
  std::vector<SiteRecord> sites;
  std::string version;
  // The sites `version` has: sites.size(), unless the read kept only the
  // first few (a listing, ListPage).
  int64_t sites_in_version = 0;
  // Every version of the library, oldest first, with the error's sites in
  // each (loaded with the sites).
  std::vector<VersionPresence> versions;
  // Loaded by Get only.
  std::optional<Analysis> analysis;      // absent until `errdex analyze` (index runs it)
  std::optional<FamilyInfo> family;      // the analysis's family, counted across the catalog
  std::optional<Enrichment> enrichment;  // absent unless `errdex enrich` wrote one
};

struct ListQuery {
  std::string library;  // empty: all libraries
  int64_t limit = -1;
  bool with_details = false;  // load statement and excerpt of each site
  bool with_guards = false;   // load each site's guards and trigger, and the statement of one
                              // with `via` or not of Python (implied by with_details)
};

// How a page of a listing is ordered. Whatever the order, a listing of
// the newest versions puts the errors only older versions raise last.
enum class ErrorOrder {
  kSites,   // most sites (in the version shown) first
  kType,    // by exception type
  kFamily,  // by failure family, unanalysed last; most sites first within one
  kFile,    // by the first site's file
};

// One page of the errors of a library or a family (ListPage). The scope is
// `library`, `family` or both; the filters narrow it.
struct PageQuery {
  std::string library;    // OWNER/REPO, or empty
  std::string family;     // a family slug, or empty
  std::string exception;  // only errors of this exception type (exact), when set
  std::string label;      // only errors whose analysis has this label, when set
  ErrorOrder order = ErrorOrder::kSites;
  int64_t offset = 0;
  int64_t limit = 100;
  // Sites kept per error, the first by path and line; every site is still
  // read and checked, and counted in sites_in_version.
  size_t keep_sites = 10;
};

struct PagedErrors {
  int64_t total = 0;  // errors in the scope after the filters, across pages
  // Of them, those raised only in versions older than their library's
  // newest (listed last); 0 at an explicit version.
  int64_t older = 0;
  // offset..offset+limit of the ordered errors, with their sites' locations
  // (of the version shown) and their analysis.
  std::vector<ErrorRecord> items;
};

struct LibraryStats {
  std::string name;
  std::string url;
  int64_t snapshots = 0;
  int64_t errors = 0;
  int64_t sites = 0;
};

struct SnapshotStats {
  std::string library;
  std::string rev;
  std::string commit;
  std::string date;
  std::string kind;
  std::string indexed_at;
  int64_t files = 0;
  int64_t bytes = 0;
  int64_t sites = 0;
  int ordinal = 0;  // its place among the library's versions, 0 the oldest
  std::vector<std::string> aliases;  // other names of its commit
};

struct Stats {
  int64_t libraries = 0;
  int64_t snapshots = 0;
  int64_t errors = 0;
  int64_t sites = 0;
  int64_t dynamic_errors = 0;
  int64_t files = 0;
  std::map<std::string, int64_t> errors_by_kind;
  std::map<std::string, int64_t> skipped_by_reason;    // files not indexed
  std::map<std::string, int64_t> recovered_by_reason;  // files indexed with trouble
  std::map<std::string, int64_t> non_sites_by_reason;  // raise statements that are not sites
  std::vector<LibraryStats> per_library;
  std::vector<SnapshotStats> per_snapshot;  // by library, oldest version first
  std::string analysed_at;  // Catalog::LastAnalysedAt
};

// What a health check learns from the catalog (Catalog::Health).
struct CatalogHealth {
  int64_t libraries = 0;
  int64_t snapshots = 0;
  // errdex_catalog.generation on PostgreSQL, the same in every process;
  // SQLite's data_version, which means something to this connection only.
  int64_t data_version = 0;
};

enum class OpenMode { kReadOnly, kReadWrite };

// What `errdex check` found.
struct CheckReport {
  std::vector<std::string> problems;  // empty: the catalog is sound
  int64_t libraries = 0;
  int64_t snapshots = 0;
  int64_t errors = 0;
  int64_t sites = 0;
  int64_t analyses = 0;
  int64_t enrichments = 0;
};

// How much of an error's sites a read loads.
enum class SiteDetail {
  kNone,       // no sites: templates only
  kLocations,  // path, line, function, snapshot; no statement or excerpt; the
               // guards only of a site another module replaces (core/record.h)
  kGuards,     // kLocations and the guards and trigger; the statement of a site
               // with `via` or of a language other than Python
  kFull,       // everything
};

// An error's template, for building the matcher's prefilter.
struct ErrorTemplate {
  int64_t pk = 0;
  Template message;
};

// Builds the prefilter blob of a library from its templates; the matcher
// implements it, the catalog stores the result in the write's transaction.
class IndexBuilder {
 public:
  virtual ~IndexBuilder() = default;
  virtual int format() const = 0;
  virtual Result<std::string> Build(const std::vector<ErrorTemplate>& errors) = 0;
};

struct PrefilterBlob {
  int64_t library_pk = 0;
  std::string library;
  int format = 0;
};

// A site whose statement spans a runtime frame's line.
struct SiteLocation {
  int64_t error_pk = 0;
  std::string path;
  int line = 0;
  int end_line = 0;
  int64_t snapshot_pk = 0;  // a snapshot holding it, where the query asks (OwnerOfFile)
};

// An exception class a snapshot defines, and where.
struct ExceptionClassRecord {
  std::string name;  // short name
  std::string library;
  std::string root;    // the snapshot's indexed path
  std::string subdir;  // the snapshot's directory within its repository
  std::string path;    // the defining file, relative to root
  int line = 0;
  std::vector<std::string> bases;  // short names, as written
};

class Catalog {
 public:
  // Opens (kReadWrite: creating if needed) the catalog at `path`. Refuses a
  // file that is not an errdex catalog or has another schema version.
  // A writer waits for another writer's lock (for up to half an hour),
  // calling `on_wait` once if that takes more than a moment.
  static Result<Catalog> Open(const std::string& path, OpenMode mode,
                              std::function<void()> on_wait = {});

  Catalog(Catalog&&) noexcept;
  Catalog& operator=(Catalog&&) noexcept;
  ~Catalog();

  // Every write below runs in one transaction of its own, or inside the
  // caller's WriteTransaction when one is open. Reads check the content
  // hashes of what they return (outside a write transaction) and fail with
  // kCorrupt, "the catalog is damaged: ...", on a mismatch.

  // Replaces the snapshot `info` describes with `extraction`, in one
  // transaction: on failure (or a kill) the catalog is as it was. Writing the
  // same content again changes nothing.
  // With `index`, the library's prefilter is rebuilt when its errors change
  // (or its format is not index->format()), in the same transaction.
  Result<WriteSummary> WriteSnapshot(const SnapshotInfo& info, const Extraction& extraction,
                                     IndexBuilder* index = nullptr);

  // Which version's sites reads return (see ErrorRecord::sites): a snapshot's
  // rev, empty for the newest that raises each error, or kAllVersions.
  void SetVersion(std::string rev) { version_ = std::move(rev); }
  const std::string& version() const { return version_; }

  // The snapshots (pk, library) with a site in a file of one of these
  // paths: which versions of a library have the file a traceback names.
  Result<std::vector<std::pair<int64_t, std::string>>> SnapshotsWithFile(
      const std::vector<std::string>& paths);

  // The errors with a site in a version of that name (of any library).
  Result<std::unordered_set<int64_t>> ErrorsRaisedIn(std::string_view rev);

  // Errors in id order (with their sites' path, line and function).
  Result<std::vector<ErrorRecord>> List(const ListQuery& query);

  // The error with this id (in either case), with every site in full.
  // NotFound if none.
  Result<ErrorRecord> Get(std::string_view id);

  // Full-text search over templates and exception types, best first.
  Result<std::vector<ErrorRecord>> Search(std::string_view query, int64_t limit);

  Result<Stats> GetStats();

  // Whether the catalog answers, cheaply: one query when nothing changed
  // since the last read (the checked rows are kept), a few small tables'
  // rows otherwise; no scan of errors or sites.
  Result<CatalogHealth> Health();

  // When the newest snapshot was indexed (ISO 8601, UTC); empty for a
  // catalog without snapshots. From memory: no scan.
  Result<std::string> LastIndexedAt();
  // When an analysis last ran (`errdex analyze`, or the one of an index run
  // that wrote something), ISO 8601 UTC; empty when none has since the
  // catalog had schema 9. From memory: no scan.
  Result<std::string> LastAnalysedAt();

  // Reads from BeginRead to EndRead see one state of a PostgreSQL catalog
  // (a REPEATABLE READ, READ ONLY transaction) and ask its version once:
  // there every check of it is a round trip, and a match made eleven. On
  // SQLite, whose version costs none, and inside a transaction, nothing.
  Result<void> BeginRead();
  void EndRead();

  // The snapshot of `library` at `rev` as it was described when written
  // (url: the library's); nullopt when the catalog has none.
  Result<std::optional<SnapshotInfo>> FindSnapshot(std::string_view library, std::string_view rev);

  // The snapshot read from git (a 40-digit commit) of `library` whose rev or
  // an alias is the release tag of `version`: VERSION, vVERSION, and
  // NAME-VERSION, NAME-vVERSION, NAME_VERSION, NAME/VERSION for each of
  // `names` (jax's `jax-v0.4.30`); the one named the version itself first.
  // nullopt when none is.
  Result<std::optional<SnapshotInfo>> FindRelease(
      std::string_view library, std::string_view version, const std::vector<std::string>& names);

  // The rev a version name stands for: `name` itself when a snapshot (of
  // `library`, when not empty) has it as its rev, else the rev of one that
  // has it as an alias (another release tag of its commit); nullopt when
  // none has that name.
  Result<std::optional<std::string>> ResolveVersion(std::string_view name,
                                                    std::string_view library = "");
  // The revs of the snapshots (of `library`, when not empty), by name.
  Result<std::set<std::string>> VersionNames(std::string_view library = "");

  // --- Analysis (src/analyze computes, the catalog stores).

  // Replaces the analyses of `errors` (by pk) and records the taxonomy, in
  // one transaction.
  Result<void> WriteAnalyses(const std::vector<std::pair<int64_t, Analysis>>& errors,
                             const std::vector<FamilyInfo>& taxonomy);
  // Errors of `library` (all libraries when empty) with no analysis row.
  Result<int64_t> CountUnanalyzed(std::string_view library);
  // Every family of the taxonomy with its counts and up to `examples`
  // example templates; families without errors too.
  Result<std::vector<FamilyInfo>> Families(int examples);
  // The analysed errors of a family, across libraries, in id order.
  Result<std::vector<ErrorRecord>> ListFamily(std::string_view slug, int64_t limit);
  // One page of a library's or a family's errors, ordered and filtered,
  // at the catalog's version (SetVersion: only errors raised there). Keys
  // of the whole scope are read and checked against the library's hash or
  // the family's count, and kept for the next call on the same scope while
  // the catalog is unchanged; full rows, sites and analyses only for the page.
  // An unknown library or family is an empty listing.
  Result<PagedErrors> ListPage(const PageQuery& query);
  // Stores a model's prose for the error `id`, replacing an earlier one.
  Result<void> WriteEnrichment(std::string_view id, const Enrichment& e);
  // Ids of analysed errors with no enrichment yet, in id order; all
  // libraries when `library` is empty.
  Result<std::vector<std::string>> ErrorsWithoutEnrichment(std::string_view library, int64_t limit);

  // --- Reads for the matcher.

  // Calls `visit` with the stored prefilter of every library (an empty blob
  // for a library stored without one). `blob` points into SQLite's memory and
  // is valid only during the call: no copy of a blob of tens of megabytes.
  Result<void> VisitPrefilters(const std::function<Result<void>(const PrefilterBlob& library,
                                                                std::string_view blob)>& visit);
  // Every error template of a library (to rebuild a prefilter in memory).
  Result<std::vector<ErrorTemplate>> LibraryTemplates(int64_t library_pk);
  // The errors with these pks, in that order, with their sites.
  Result<std::vector<ErrorRecord>> GetByPks(const std::vector<int64_t>& pks, SiteDetail detail);
  // Sites whose path is one of `paths` and whose statement spans `line`
  // (give or take `slack` lines).
  Result<std::vector<SiteLocation>> SitesAt(const std::vector<std::string>& paths, int line,
                                            int slack);
  // The library and version whose indexed root holds the file at `path`
  // (absolute, as a traceback prints it) with a site in it; none for a file
  // no snapshot indexed from this machine.
  struct FileOwner {
    std::string library;
    std::string rev;
    std::string path;  // relative to the root
  };
  Result<std::optional<FileOwner>> OwnerOfFile(std::string_view path);
  // The errors of this exception type raised without a message.
  Result<std::vector<int64_t>> ErrorsWithoutMessage(std::string_view exception);
  // The errors of one library (by pk) of this exception type.
  Result<std::vector<int64_t>> ErrorsOfType(int64_t library_pk, std::string_view exception);
  // Exception class short name -> the short names of its bases, over every
  // library's classes, or `library`'s alone when one is named.
  Result<std::map<std::string, std::vector<std::string>>> ExceptionBases(
      std::string_view library = {});
  // Every (library, exception type) the errors have, sorted.
  Result<std::vector<std::pair<std::string, std::string>>> ErrorTypes();
  // Every exception class of every snapshot, with its library and file.
  Result<std::vector<ExceptionClassRecord>> ExceptionClasses();

  // --- Integrity.

  // SQLite's integrity_check, then every content hash and count.
  Result<CheckReport> Check();

  // Internal (defined in catalog/internal.h): the checked rows of a read.
  struct Base;
  struct ErrorRow;
  struct ListKey;    // listing.cc
  struct ListCache;  // listing.cc

 private:
  friend class WriteTransaction;
  explicit Catalog(Database db);
  Result<void> Migrate(OpenMode mode, const std::string& path);
  // Creates the catalog in an empty PostgreSQL database, or checks the
  // version of the one there (`url` has no password).
  Result<void> MigratePostgres(OpenMode mode, const std::string& url);
  // Upgrade to 6: gives every error the id of its template's identity and
  // merges the errors that differ only in placeholder names.
  Result<void> RekeyErrors();
  // Whether reads check hashes: not inside a write, whose hashes are
  // written at its commit (a read transaction, BeginRead's, writes none).
  bool Verifying() const { return reading_ || db_.InAutocommit(); }
  // Libraries, snapshots, families and the seal, checked (and cached until
  // another connection writes) when Verifying().
  Result<std::shared_ptr<const Base>> GetBase();
  // GetBase's one read of those tables, statement after statement.
  Result<std::shared_ptr<const Base>> ReadBase();
  // Error rows by a query selecting kErrorHashColumns and crc, checked.
  // Without `pieces`, the template's pieces stay unparsed (ErrorRow's
  // pieces_json): parsing them is most of the cost of reading a row.
  Result<std::vector<ErrorRow>> ReadErrors(Statement& st, const Base& base, bool pieces = true);
  // Every error row of a library (all when library_pk < 0), checked
  // against the library's count and sum.
  Result<std::vector<ErrorRow>> AllErrors(int64_t library_pk, const Base& base,
                                          bool pieces = true);
  Result<std::vector<ErrorRecord>> LoadSites(std::vector<ErrorRow> rows, SiteDetail detail,
                                             const Base& base);
  Result<std::vector<ErrorRecord>> Load(Statement& errors, SiteDetail detail);
  Result<void> LoadAnalysis(ErrorRecord& e, const ErrorRow& row, const Base& base);
  Result<void> VerifyFts();
  Result<int64_t> FtsHash();
  Result<int64_t> DataVersion();
  // Starts a write (BEGIN IMMEDIATE, or a savepoint inside an open one).
  Result<void> BeginWrite();
  // Ends it: the outermost commit writes the hashes first (Seal). Rolls
  // back when that fails.
  Result<void> CommitWrite();
  void RollbackWrite();
  friend class WriteScope;
  // Recomputes the hashes and counts of the dirty libraries, the families
  // and the seal; with `rehash_rows`, every row's own hash too (migration).
  Result<void> Seal(bool rehash_rows);
  Result<void> RehashRows(std::string_view from, std::string_view key, std::string_view columns,
                          std::string_view where, std::string_view target,
                          std::string_view target_key, std::string_view column);
  // A prepared statement kept for the catalog's lifetime, reset for reuse.
  Result<Statement*> Cached(const std::string& sql);
  // The sites of one error or a few, by a cached statement per error; of
  // each version, `keep` at most (all are checked and counted).
  Result<void> LoadSitesOf(ErrorRecord& e, const ErrorRow& row, SiteDetail detail,
                           const Base& base, size_t keep = SIZE_MAX);
  Result<void> LoadFirstSitesOf(ErrorRecord& e, const ErrorRow& row, SiteDetail detail,
                                const Base& base, size_t keep);
  // LoadSites of a catalog holding versions: each error's sites of the one
  // version it shows, read alone.
  Result<std::vector<ErrorRecord>> LoadFocusedSites(std::vector<ErrorRow> rows,
                                                    const std::unordered_map<int64_t, size_t>& by_pk,
                                                    const std::string& pks, SiteDetail detail,
                                                    const Base& base);
  // ListPage's steps (listing.cc): the keys of every error of the scope,
  // checked as a whole; which version's sites each shows and how many; then
  // the page's rows in full.
  Result<void> ReadListKeys(std::vector<ListKey>& keys, int64_t library_pk,
                            const FamilyInfo* family, const Base& base);
  Result<void> FocusKeys(std::vector<ListKey>& keys,
                         const std::unordered_map<int64_t, size_t>& by_pk, const std::string& from,
                         int64_t library_pk, const std::string& family, const Base& base);
  Result<PagedErrors> LoadPage(PagedErrors out, const std::vector<int64_t>& pks, size_t keep_sites,
                               const Base& base);
  // Sets a key of the meta table, inside an open write; the seal covers it.
  Result<void> PutMeta(std::string_view key, std::string_view value);
  Result<void> StorePrefilter(int64_t library_pk, IndexBuilder& index);
  Result<bool> PrefilterIsCurrent(int64_t library_pk, int format);
  // WriteSnapshot's sites: links from the snapshot to rows of the library
  // that hold them already, new rows and texts for the others. `replaced`:
  // the snapshot's old links were deleted, so rows and texts no snapshot
  // holds any more are dropped. Adds each link to `moved`, by error: how
  // many links it gained and the sum of their hashes; and to `gained`
  // the errors that gained a row no snapshot held before, with what those
  // rows may change of the error. `written`: how many links it made, one
  // per row however many sites print as it.
  Result<void> WriteSites(int64_t library_pk, int64_t snapshot_pk, const std::vector<Site>& sites,
                          const std::vector<int64_t>& error_pks, bool replaced,
                          std::map<int64_t, std::pair<int64_t, int64_t>>& moved,
                          std::map<int64_t, GainedRows>& gained, int64_t* written);

  Database db_;
  // Declared after db_: finalized before the database closes.
  std::unordered_map<std::string, std::unique_ptr<Statement>> statements_;
  std::shared_ptr<const Base> base_;  // checked, as of base_version_
  int64_t base_version_ = -1;
  int64_t fts_version_ = -1;     // data_version at which the search index was checked
  int64_t opened_version_ = -1;  // data_version when opened
  bool reading_ = false;         // inside BeginRead .. EndRead
  int64_t read_version_ = -1;    // DataVersion there
  std::string version_;
  std::shared_ptr<ListCache> list_cache_;  // ListPage's last scope
  int write_depth_ = 0;                 // BeginWrite calls not yet ended
  std::set<int64_t> dirty_libraries_;  // written by the open transaction
  // Whose links to sites the open transaction changed: the seal sums the
  // sites of these alone, not of every snapshot of a library (186 releases
  // of jax hold 1.5 million links).
  std::set<int64_t> dirty_snapshots_;
  bool dirty_all_ = false;
  bool dirty_seal_ = false;  // a write touched a table only the seal covers (meta)
  // An upgrade from version 9: the seal merges the copies it made (ShareMigratedSitesSql).
  bool share_migrated_sites_ = false;
  // What the last committed write of sites found in the shared tables or
  // stored there, by hash, for the next write of the same library on this
  // connection (the next release of `errdex index --revs`): its unchanged
  // sites are decided from memory, not read back. `pending_memo_` is the
  // open write's, kept only if it commits; any rollback drops both.
  std::shared_ptr<SiteMemo> memo_;
  std::shared_ptr<SiteMemo> pending_memo_;
};

// Holds one write transaction across several writes: `errdex index` writes
// the snapshot, its prefilter and its analysis in one, so that a failure or
// a kill at any moment leaves the catalog as it was. Rolled back unless
// committed.
// BeginRead for a scope; reads go on without one when it cannot begin.
class ReadScope {
 public:
  explicit ReadScope(Catalog& catalog) : catalog_(catalog), open_(catalog.BeginRead()) {}
  ~ReadScope() {
    if (open_) catalog_.EndRead();
  }
  ReadScope(const ReadScope&) = delete;
  ReadScope& operator=(const ReadScope&) = delete;

 private:
  Catalog& catalog_;
  bool open_;
};

class WriteTransaction {
 public:
  static Result<WriteTransaction> Begin(Catalog& catalog);
  WriteTransaction(WriteTransaction&& other) noexcept
      : catalog_(std::exchange(other.catalog_, nullptr)) {}
  WriteTransaction& operator=(WriteTransaction&&) = delete;
  ~WriteTransaction();
  Result<void> Commit();

 private:
  explicit WriteTransaction(Catalog* catalog) : catalog_(catalog) {}
  Catalog* catalog_;
};

// OWNER/REPO: letters, digits, '.', '_', '-', one '/', no "..", not
// starting with '.'; at most 200 characters. Names become URL paths and
// exported file names, so nothing else is allowed in.
bool IsLibraryName(std::string_view name);

// Default catalog location: $ERRDEX_DB, else $XDG_DATA_HOME/errdex/catalog.db,
// else ~/.local/share/errdex/catalog.db.
std::string DefaultPath();

}  // namespace errdex::catalog
