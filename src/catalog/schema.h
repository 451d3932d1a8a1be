// The catalog's SQL schema, version kSchemaVersion (see doc/catalog.md).
#pragma once

#include <string_view>

namespace errdex::catalog {

inline constexpr std::string_view kSchemaSql = R"sql(
CREATE TABLE library (
  pk INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  url TEXT NOT NULL DEFAULT '',
  languages TEXT NOT NULL DEFAULT ''
);
CREATE TABLE snapshot (
  pk INTEGER PRIMARY KEY,
  library_pk INTEGER NOT NULL REFERENCES library(pk) ON DELETE CASCADE,
  rev TEXT NOT NULL,
  commit_sha TEXT NOT NULL DEFAULT '',
  date TEXT NOT NULL DEFAULT '',
  kind TEXT NOT NULL,
  root TEXT NOT NULL DEFAULT '',
  subdir TEXT NOT NULL DEFAULT '',
  digest TEXT NOT NULL,
  indexed_at TEXT NOT NULL,
  files INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL DEFAULT 0,
  UNIQUE (library_pk, rev)
);
CREATE TABLE error (
  pk INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  library_pk INTEGER NOT NULL REFERENCES library(pk) ON DELETE CASCADE,
  exception TEXT NOT NULL,
  template TEXT NOT NULL,
  kind TEXT NOT NULL,
  pieces TEXT NOT NULL,
  literal_size INTEGER NOT NULL,
  dynamic INTEGER NOT NULL,
  internal INTEGER NOT NULL
);
CREATE INDEX error_library ON error (library_pk);
CREATE TABLE site (
  pk INTEGER PRIMARY KEY,
  snapshot_pk INTEGER NOT NULL REFERENCES snapshot(pk) ON DELETE CASCADE,
  error_pk INTEGER NOT NULL REFERENCES error(pk),
  language TEXT NOT NULL,
  path TEXT NOT NULL,
  line INTEGER NOT NULL,
  col INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  function TEXT NOT NULL,
  kind TEXT NOT NULL,
  exception_written TEXT NOT NULL,
  statement TEXT NOT NULL,
  excerpt_line INTEGER NOT NULL,
  excerpt TEXT NOT NULL,
  cause TEXT NOT NULL,
  via TEXT NOT NULL,
  internal INTEGER NOT NULL,
  guards TEXT NOT NULL DEFAULT '[]',
  trigger TEXT NOT NULL DEFAULT ''
);
CREATE INDEX site_error ON site (error_pk);
CREATE INDEX site_snapshot ON site (snapshot_pk);
CREATE INDEX site_path ON site (path, line);
CREATE TABLE non_site (
  snapshot_pk INTEGER NOT NULL REFERENCES snapshot(pk) ON DELETE CASCADE,
  path TEXT NOT NULL,
  line INTEGER NOT NULL,
  reason TEXT NOT NULL
);
CREATE INDEX non_site_snapshot ON non_site (snapshot_pk);
CREATE TABLE file_issue (
  snapshot_pk INTEGER NOT NULL REFERENCES snapshot(pk) ON DELETE CASCADE,
  path TEXT NOT NULL,
  reason TEXT NOT NULL,
  detail TEXT NOT NULL,
  skipped INTEGER NOT NULL
);
CREATE INDEX file_issue_snapshot ON file_issue (snapshot_pk);
CREATE TABLE exception_class (
  snapshot_pk INTEGER NOT NULL REFERENCES snapshot(pk) ON DELETE CASCADE,
  name TEXT NOT NULL,
  bases TEXT NOT NULL,
  path TEXT NOT NULL,
  line INTEGER NOT NULL
);
CREATE INDEX exception_class_snapshot ON exception_class (snapshot_pk);
CREATE INDEX exception_class_name ON exception_class (name);
CREATE TABLE prefilter (
  library_pk INTEGER PRIMARY KEY REFERENCES library(pk) ON DELETE CASCADE,
  format INTEGER NOT NULL,
  blob BLOB NOT NULL
);
-- Kept in step with `error` by Catalog::WriteSnapshot in bulk, not by
-- triggers: a trigger makes FTS5 flush at every statement of an index run.
CREATE VIRTUAL TABLE error_fts USING fts5 (
  template, exception, content = 'error', content_rowid = 'pk',
  tokenize = 'unicode61 remove_diacritics 2'
);
)sql";

// From version 1 (errdex before `explain`): the matcher's prefilter.
inline constexpr std::string_view kMigrateFrom1Sql = R"sql(
CREATE TABLE prefilter (
  library_pk INTEGER PRIMARY KEY REFERENCES library(pk) ON DELETE CASCADE,
  format INTEGER NOT NULL,
  blob BLOB NOT NULL
);
)sql";

// Version 2 to 3: the conditions that lead to each site.
inline constexpr std::string_view kMigrateFrom2Sql = R"sql(
ALTER TABLE site ADD COLUMN guards TEXT NOT NULL DEFAULT '[]';
ALTER TABLE site ADD COLUMN trigger TEXT NOT NULL DEFAULT '';
)sql";

// Version 3 to 4, and part of every new catalog: analysis (family, valid
// values, related errors, prose), the family taxonomy and model-written
// enrichment.
inline constexpr std::string_view kAnalysisTablesSql = R"sql(
CREATE TABLE analysis (
  error_pk INTEGER PRIMARY KEY REFERENCES error(pk) ON DELETE CASCADE,
  family TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX analysis_family ON analysis (family);
CREATE TABLE family (
  slug TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT NOT NULL
);
-- Keyed by the stable error id, not the row: prose a model wrote survives
-- re-indexing as long as the error does.
CREATE TABLE enrichment (
  error_id TEXT PRIMARY KEY,
  model TEXT NOT NULL,
  created_at TEXT NOT NULL,
  data TEXT NOT NULL
);
)sql";

// Version 4 to 5, and part of every new catalog: content hashes. Each row
// carries `crc`, errdex_row_hash over its columns in the order of the
// k...HashColumns lists below; each parent row carries the count and the
// errdex_sum of its children's hashes, up to the one `seal` row. Catalog::Seal
// fills them in (doc/catalog.md, "Content hashes").
inline constexpr std::string_view kIntegritySql = R"sql(
ALTER TABLE library ADD COLUMN n_snapshots INTEGER NOT NULL DEFAULT 0;
ALTER TABLE library ADD COLUMN snapshots_sum INTEGER NOT NULL DEFAULT 0;
ALTER TABLE library ADD COLUMN n_errors INTEGER NOT NULL DEFAULT 0;
ALTER TABLE library ADD COLUMN errors_sum INTEGER NOT NULL DEFAULT 0;
ALTER TABLE library ADD COLUMN prefilter_crc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE library ADD COLUMN crc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snapshot ADD COLUMN n_sites INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snapshot ADD COLUMN sites_sum INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snapshot ADD COLUMN n_non_sites INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snapshot ADD COLUMN non_sites_sum INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snapshot ADD COLUMN n_issues INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snapshot ADD COLUMN issues_sum INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snapshot ADD COLUMN n_classes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snapshot ADD COLUMN classes_sum INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snapshot ADD COLUMN crc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE error ADD COLUMN n_sites INTEGER NOT NULL DEFAULT 0;
ALTER TABLE error ADD COLUMN sites_sum INTEGER NOT NULL DEFAULT 0;
ALTER TABLE error ADD COLUMN analysis_crc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE error ADD COLUMN enrichment_crc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE error ADD COLUMN crc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE site ADD COLUMN body_hash INTEGER NOT NULL DEFAULT 0;
ALTER TABLE site ADD COLUMN guard_hash INTEGER NOT NULL DEFAULT 0;
ALTER TABLE site ADD COLUMN crc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE non_site ADD COLUMN crc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE file_issue ADD COLUMN crc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE exception_class ADD COLUMN crc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE analysis ADD COLUMN crc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE family ADD COLUMN errors INTEGER NOT NULL DEFAULT 0;
ALTER TABLE family ADD COLUMN libraries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE family ADD COLUMN examples TEXT NOT NULL DEFAULT '[]';
ALTER TABLE family ADD COLUMN crc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE enrichment ADD COLUMN crc INTEGER NOT NULL DEFAULT 0;
CREATE TABLE seal (
  pk INTEGER PRIMARY KEY CHECK (pk = 1),
  n_libraries INTEGER NOT NULL,
  libraries_sum INTEGER NOT NULL,
  n_families INTEGER NOT NULL,
  families_sum INTEGER NOT NULL,
  n_enrichments INTEGER NOT NULL,
  enrichments_sum INTEGER NOT NULL,
  fts_hash INTEGER NOT NULL,
  crc INTEGER NOT NULL
);
)sql";

// Version 6 to 7, and part of every new catalog: what the indexed source
// was (SnapshotInfo::source_digest), to skip an unchanged one unread.
inline constexpr std::string_view kSourceDigestSql = R"sql(
ALTER TABLE snapshot ADD COLUMN source_digest TEXT NOT NULL DEFAULT '';
)sql";

// Version 10 to 11, and part of every new catalog: the other names of a
// snapshot's commit (two release tags on one commit, jax-v0.1.74 and
// jax-v0.1.75; an rc tag the release was cut from), space-separated as git
// allows no space in a ref name. The snapshot is stored once, under its
// rev; a user who knows the other name still finds it (--version).
inline constexpr std::string_view kAliasesSql = R"sql(
ALTER TABLE snapshot ADD COLUMN aliases TEXT NOT NULL DEFAULT '';
)sql";
inline constexpr std::string_view kPostgresAliasesSql = R"sql(
ALTER TABLE snapshot ADD COLUMN aliases TEXT COLLATE "C" NOT NULL DEFAULT '';
)sql";

// Version 7 to 8, and part of every new catalog: the parameters of the
// function a site is in (Site::signature), for example fixes that call it,
// and the public functions that reach it (Site::entries).
inline constexpr std::string_view kSignatureSql = R"sql(
ALTER TABLE site ADD COLUMN signature TEXT NOT NULL DEFAULT '';
ALTER TABLE site ADD COLUMN entries TEXT NOT NULL DEFAULT '';
)sql";

// Version 8 to 9, and part of every new catalog: facts of the catalog as a
// whole, one row per key (`analysed_at`: when an analysis last ran, which
// is not when the catalog was last indexed), counted and summed in the seal.
inline constexpr std::string_view kMetaSql = R"sql(
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  crc INTEGER NOT NULL DEFAULT 0
);
ALTER TABLE seal ADD COLUMN n_meta INTEGER NOT NULL DEFAULT 0;
ALTER TABLE seal ADD COLUMN meta_sum INTEGER NOT NULL DEFAULT 0;
)sql";

// Version 9 to 10, and part of every new catalog: a site stored once for
// every snapshot that holds it unchanged. Releases of one library share
// most of their sites, line for line; a copy per snapshot made a catalog
// of 15 jax releases 4.3 times the size of one. `site_link` says which
// snapshots hold a row (twice when one snapshot holds two equal sites);
// `site_row` is the site but for its big text, which `site_text` (the
// statement and excerpt) and `site_guard` (guards, trigger, signature,
// entries) hold once for the rows that share it: a site whose lines moved
// keeps both, the lines of its guards and of its entries in its own file
// being stored relative to the site (`dline`).
// The view `site` is the table this replaces, one row per snapshot and
// site, for readers.
inline constexpr std::string_view kSharedSitesSql = R"sql(
CREATE TABLE site_text (
  pk INTEGER PRIMARY KEY,
  statement TEXT NOT NULL,
  excerpt TEXT NOT NULL,
  body_hash INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX site_text_hash ON site_text (body_hash);
CREATE TABLE site_guard (
  pk INTEGER PRIMARY KEY,
  guards TEXT NOT NULL,
  trigger TEXT NOT NULL,
  signature TEXT NOT NULL,
  entries TEXT NOT NULL,
  guard_hash INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX site_guard_hash ON site_guard (guard_hash);
CREATE TABLE site_row (
  pk INTEGER PRIMARY KEY,
  error_pk INTEGER NOT NULL REFERENCES error(pk),
  text_pk INTEGER NOT NULL REFERENCES site_text(pk),
  guard_pk INTEGER NOT NULL REFERENCES site_guard(pk),
  language TEXT NOT NULL,
  path TEXT NOT NULL,
  line INTEGER NOT NULL,
  col INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  function TEXT NOT NULL,
  kind TEXT NOT NULL,
  exception_written TEXT NOT NULL,
  cause TEXT NOT NULL,
  via TEXT NOT NULL,
  internal INTEGER NOT NULL,
  excerpt_line INTEGER NOT NULL,
  body_hash INTEGER NOT NULL DEFAULT 0,
  guard_hash INTEGER NOT NULL DEFAULT 0,
  crc INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX site_row_error ON site_row (error_pk);
CREATE INDEX site_row_path ON site_row (path, line);
CREATE INDEX site_row_text ON site_row (text_pk);
CREATE INDEX site_row_guard ON site_row (guard_pk);
CREATE INDEX site_row_crc ON site_row (crc);
CREATE TABLE site_link (
  snapshot_pk INTEGER NOT NULL REFERENCES snapshot(pk) ON DELETE CASCADE,
  row_pk INTEGER NOT NULL REFERENCES site_row(pk)
);
CREATE INDEX site_link_snapshot ON site_link (snapshot_pk, row_pk);
CREATE INDEX site_link_row ON site_link (row_pk);
INSERT INTO site_text (pk, statement, excerpt) SELECT pk, statement, excerpt FROM site;
INSERT INTO site_guard (pk, guards, trigger, signature, entries)
  SELECT pk, guards, trigger, signature, entries FROM site;
INSERT INTO site_row (pk, error_pk, text_pk, guard_pk, language, path, line, col, end_line,
                      function, kind, exception_written, cause, via, internal, excerpt_line)
  SELECT pk, error_pk, pk, pk, language, path, line, col, end_line, function, kind,
         exception_written, cause, via, internal, excerpt_line FROM site;
INSERT INTO site_link (snapshot_pk, row_pk) SELECT snapshot_pk, pk FROM site;
DROP TABLE site;
)sql";

// The view both backends read sites through.
inline constexpr std::string_view kSiteViewSql = R"sql(
CREATE VIEW site AS
  SELECT l.snapshot_pk AS snapshot_pk, r.pk AS row_pk, r.error_pk AS error_pk,
         r.language AS language, r.path AS path, r.line AS line, r.col AS col,
         r.end_line AS end_line, r.function AS function, r.kind AS kind,
         r.exception_written AS exception_written, r.cause AS cause, r.via AS via,
         r.internal AS internal, r.excerpt_line AS excerpt_line, r.body_hash AS body_hash,
         r.guard_hash AS guard_hash, r.crc AS crc, t.statement AS statement,
         t.excerpt AS excerpt, g.guards AS guards, g.trigger AS trigger,
         g.signature AS signature, g.entries AS entries
  FROM site_link l JOIN site_row r ON r.pk = l.row_pk JOIN site_text t ON t.pk = r.text_pk
       JOIN site_guard g ON g.pk = r.guard_pk;
)sql";

// kSharedSitesSql on PostgreSQL: a catalog of version 9 is upgraded in
// place, and a new one made the same way from the version-9 tables.
inline constexpr std::string_view kPostgresSharedSitesSql = R"sql(
CREATE TABLE site_text (
  pk BIGINT PRIMARY KEY,
  statement TEXT COLLATE "C" NOT NULL,
  excerpt TEXT COLLATE "C" NOT NULL,
  body_hash BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX site_text_hash ON site_text (body_hash);
CREATE TABLE site_guard (
  pk BIGINT PRIMARY KEY,
  guards TEXT COLLATE "C" NOT NULL,
  trigger TEXT COLLATE "C" NOT NULL,
  signature TEXT COLLATE "C" NOT NULL,
  entries TEXT COLLATE "C" NOT NULL,
  guard_hash BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX site_guard_hash ON site_guard (guard_hash);
CREATE TABLE site_row (
  pk BIGINT PRIMARY KEY,
  error_pk BIGINT NOT NULL REFERENCES error(pk),
  text_pk BIGINT NOT NULL REFERENCES site_text(pk),
  guard_pk BIGINT NOT NULL REFERENCES site_guard(pk),
  language TEXT COLLATE "C" NOT NULL,
  path TEXT COLLATE "C" NOT NULL,
  line BIGINT NOT NULL,
  col BIGINT NOT NULL,
  end_line BIGINT NOT NULL,
  function TEXT COLLATE "C" NOT NULL,
  kind TEXT COLLATE "C" NOT NULL,
  exception_written TEXT COLLATE "C" NOT NULL,
  cause TEXT COLLATE "C" NOT NULL,
  via TEXT COLLATE "C" NOT NULL,
  internal BIGINT NOT NULL,
  excerpt_line BIGINT NOT NULL,
  body_hash BIGINT NOT NULL DEFAULT 0,
  guard_hash BIGINT NOT NULL DEFAULT 0,
  crc BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX site_row_error ON site_row (error_pk);
CREATE INDEX site_row_path ON site_row (path, line);
CREATE INDEX site_row_text ON site_row (text_pk);
CREATE INDEX site_row_guard ON site_row (guard_pk);
CREATE INDEX site_row_crc ON site_row (crc);
CREATE TABLE site_link (
  snapshot_pk BIGINT NOT NULL REFERENCES snapshot(pk) ON DELETE CASCADE,
  row_pk BIGINT NOT NULL REFERENCES site_row(pk)
);
CREATE INDEX site_link_snapshot ON site_link (snapshot_pk, row_pk);
CREATE INDEX site_link_row ON site_link (row_pk);
INSERT INTO site_text (pk, statement, excerpt) SELECT pk, statement, excerpt FROM site;
INSERT INTO site_guard (pk, guards, trigger, signature, entries)
  SELECT pk, guards, trigger, signature, entries FROM site;
INSERT INTO site_row (pk, error_pk, text_pk, guard_pk, language, path, line, col, end_line,
                      function, kind, exception_written, cause, via, internal, excerpt_line)
  SELECT pk, error_pk, pk, pk, language, path, line, col, end_line, function, kind,
         exception_written, cause, via, internal, excerpt_line FROM site;
INSERT INTO site_link (snapshot_pk, row_pk) SELECT snapshot_pk, pk FROM site;
DROP TABLE site;
)sql";

// The same catalog on PostgreSQL, created whole at kSchemaVersion (there
// are no older PostgreSQL catalogs to upgrade; later versions add their
// steps as SQLite's do). Differences, each for a reason:
// - errdex_catalog stands for SQLite's application_id and user_version
//   pragmas, and counts commits (generation) for Connection::DataVersion;
// - errdex_sum is an aggregate in SQL, while row hashes are computed by
//   errdex itself (RowHasher), PostgreSQL having no XXH3;
// - text is COLLATE "C": comparisons and ORDER BY by bytes, as SQLite's;
// - the search index is a generated tsvector column with a GIN index
//   instead of FTS5 (words split at ASCII punctuation, as FtsQuery splits
//   a query), so it needs no upkeep by the writer and no hash.
inline constexpr std::string_view kPostgresSchemaSql = R"sql(
CREATE TABLE errdex_catalog (
  application_id BIGINT NOT NULL,
  schema_version INTEGER NOT NULL,
  generation BIGINT NOT NULL
);
CREATE FUNCTION errdex_add(a BIGINT, b BIGINT) RETURNS BIGINT
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT ((((a::numeric + b::numeric + 9223372036854775808) % 18446744073709551616
                 + 18446744073709551616) % 18446744073709551616) - 9223372036854775808)::bigint $$;
CREATE AGGREGATE errdex_sum(BIGINT) (SFUNC = errdex_add, STYPE = BIGINT, INITCOND = '0');
CREATE TABLE library (
  pk BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  name TEXT COLLATE "C" NOT NULL UNIQUE,
  url TEXT COLLATE "C" NOT NULL DEFAULT '',
  languages TEXT COLLATE "C" NOT NULL DEFAULT '',
  n_snapshots BIGINT NOT NULL DEFAULT 0,
  snapshots_sum BIGINT NOT NULL DEFAULT 0,
  n_errors BIGINT NOT NULL DEFAULT 0,
  errors_sum BIGINT NOT NULL DEFAULT 0,
  prefilter_crc BIGINT NOT NULL DEFAULT 0,
  crc BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE snapshot (
  pk BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  library_pk BIGINT NOT NULL REFERENCES library(pk) ON DELETE CASCADE,
  rev TEXT COLLATE "C" NOT NULL,
  commit_sha TEXT COLLATE "C" NOT NULL DEFAULT '',
  date TEXT COLLATE "C" NOT NULL DEFAULT '',
  kind TEXT COLLATE "C" NOT NULL,
  root TEXT COLLATE "C" NOT NULL DEFAULT '',
  subdir TEXT COLLATE "C" NOT NULL DEFAULT '',
  digest TEXT COLLATE "C" NOT NULL,
  indexed_at TEXT COLLATE "C" NOT NULL,
  files BIGINT NOT NULL DEFAULT 0,
  bytes BIGINT NOT NULL DEFAULT 0,
  n_sites BIGINT NOT NULL DEFAULT 0,
  sites_sum BIGINT NOT NULL DEFAULT 0,
  n_non_sites BIGINT NOT NULL DEFAULT 0,
  non_sites_sum BIGINT NOT NULL DEFAULT 0,
  n_issues BIGINT NOT NULL DEFAULT 0,
  issues_sum BIGINT NOT NULL DEFAULT 0,
  n_classes BIGINT NOT NULL DEFAULT 0,
  classes_sum BIGINT NOT NULL DEFAULT 0,
  crc BIGINT NOT NULL DEFAULT 0,
  source_digest TEXT COLLATE "C" NOT NULL DEFAULT '',
  UNIQUE (library_pk, rev)
);
CREATE TABLE error (
  pk BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  id TEXT COLLATE "C" NOT NULL UNIQUE,
  library_pk BIGINT NOT NULL REFERENCES library(pk) ON DELETE CASCADE,
  exception TEXT COLLATE "C" NOT NULL,
  template TEXT COLLATE "C" NOT NULL,
  kind TEXT COLLATE "C" NOT NULL,
  pieces TEXT COLLATE "C" NOT NULL,
  literal_size BIGINT NOT NULL,
  dynamic BIGINT NOT NULL,
  internal BIGINT NOT NULL,
  n_sites BIGINT NOT NULL DEFAULT 0,
  sites_sum BIGINT NOT NULL DEFAULT 0,
  analysis_crc BIGINT NOT NULL DEFAULT 0,
  enrichment_crc BIGINT NOT NULL DEFAULT 0,
  crc BIGINT NOT NULL DEFAULT 0,
  search tsvector GENERATED ALWAYS AS (to_tsvector('simple', regexp_replace(
    template || ' ' || exception, '[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+', ' ', 'g'))) STORED
);
CREATE INDEX error_library ON error (library_pk);
CREATE INDEX error_search ON error USING gin (search);
CREATE TABLE site (
  pk BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  snapshot_pk BIGINT NOT NULL REFERENCES snapshot(pk) ON DELETE CASCADE,
  error_pk BIGINT NOT NULL REFERENCES error(pk),
  language TEXT COLLATE "C" NOT NULL,
  path TEXT COLLATE "C" NOT NULL,
  line BIGINT NOT NULL,
  col BIGINT NOT NULL,
  end_line BIGINT NOT NULL,
  function TEXT COLLATE "C" NOT NULL,
  kind TEXT COLLATE "C" NOT NULL,
  exception_written TEXT COLLATE "C" NOT NULL,
  statement TEXT COLLATE "C" NOT NULL,
  excerpt_line BIGINT NOT NULL,
  excerpt TEXT COLLATE "C" NOT NULL,
  cause TEXT COLLATE "C" NOT NULL,
  via TEXT COLLATE "C" NOT NULL,
  internal BIGINT NOT NULL,
  guards TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  trigger TEXT COLLATE "C" NOT NULL DEFAULT '',
  body_hash BIGINT NOT NULL DEFAULT 0,
  guard_hash BIGINT NOT NULL DEFAULT 0,
  crc BIGINT NOT NULL DEFAULT 0,
  signature TEXT COLLATE "C" NOT NULL DEFAULT '',
  entries TEXT COLLATE "C" NOT NULL DEFAULT ''
);
CREATE INDEX site_error ON site (error_pk);
CREATE INDEX site_snapshot ON site (snapshot_pk);
CREATE INDEX site_path ON site (path, line);
CREATE TABLE non_site (
  snapshot_pk BIGINT NOT NULL REFERENCES snapshot(pk) ON DELETE CASCADE,
  path TEXT COLLATE "C" NOT NULL,
  line BIGINT NOT NULL,
  reason TEXT COLLATE "C" NOT NULL,
  crc BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX non_site_snapshot ON non_site (snapshot_pk);
CREATE TABLE file_issue (
  snapshot_pk BIGINT NOT NULL REFERENCES snapshot(pk) ON DELETE CASCADE,
  path TEXT COLLATE "C" NOT NULL,
  reason TEXT COLLATE "C" NOT NULL,
  detail TEXT COLLATE "C" NOT NULL,
  skipped BIGINT NOT NULL,
  crc BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX file_issue_snapshot ON file_issue (snapshot_pk);
CREATE TABLE exception_class (
  snapshot_pk BIGINT NOT NULL REFERENCES snapshot(pk) ON DELETE CASCADE,
  name TEXT COLLATE "C" NOT NULL,
  bases TEXT COLLATE "C" NOT NULL,
  path TEXT COLLATE "C" NOT NULL,
  line BIGINT NOT NULL,
  crc BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX exception_class_snapshot ON exception_class (snapshot_pk);
CREATE INDEX exception_class_name ON exception_class (name);
CREATE TABLE prefilter (
  library_pk BIGINT PRIMARY KEY REFERENCES library(pk) ON DELETE CASCADE,
  format BIGINT NOT NULL,
  blob BYTEA NOT NULL
);
CREATE TABLE analysis (
  error_pk BIGINT PRIMARY KEY REFERENCES error(pk) ON DELETE CASCADE,
  family TEXT COLLATE "C" NOT NULL,
  data TEXT COLLATE "C" NOT NULL,
  crc BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX analysis_family ON analysis (family);
CREATE TABLE family (
  slug TEXT COLLATE "C" PRIMARY KEY,
  name TEXT COLLATE "C" NOT NULL,
  description TEXT COLLATE "C" NOT NULL,
  errors BIGINT NOT NULL DEFAULT 0,
  libraries BIGINT NOT NULL DEFAULT 0,
  examples TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  crc BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE enrichment (
  error_id TEXT COLLATE "C" PRIMARY KEY,
  model TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  data TEXT COLLATE "C" NOT NULL,
  crc BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE meta (
  key TEXT COLLATE "C" PRIMARY KEY,
  value TEXT COLLATE "C" NOT NULL,
  crc BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE seal (
  pk BIGINT PRIMARY KEY CHECK (pk = 1),
  n_libraries BIGINT NOT NULL,
  libraries_sum BIGINT NOT NULL,
  n_families BIGINT NOT NULL,
  families_sum BIGINT NOT NULL,
  n_enrichments BIGINT NOT NULL,
  enrichments_sum BIGINT NOT NULL,
  fts_hash BIGINT NOT NULL,
  crc BIGINT NOT NULL,
  n_meta BIGINT NOT NULL DEFAULT 0,
  meta_sum BIGINT NOT NULL DEFAULT 0
);
)sql";

// The columns each row hash covers, in order. A site's big columns are
// hashed apart (body_hash, guard_hash) so that reads which skip them still
// check the row.
inline constexpr std::string_view kLibraryHashColumns =
    "pk, name, url, languages, n_snapshots, snapshots_sum, n_errors, errors_sum, prefilter_crc";
inline constexpr std::string_view kSnapshotHashColumns =
    "pk, library_pk, rev, commit_sha, date, kind, root, subdir, digest, indexed_at, files, bytes, "
    "n_sites, sites_sum, n_non_sites, non_sites_sum, n_issues, issues_sum, n_classes, classes_sum, "
    "source_digest, aliases";
inline constexpr std::string_view kErrorHashColumns =
    "pk, id, library_pk, exception, template, kind, pieces, literal_size, dynamic, internal, "
    "n_sites, sites_sum, analysis_crc, enrichment_crc";
// A site row is shared by the snapshots that hold it (kSharedSitesSql), so
// its hash leaves the snapshot out; each snapshot's n_sites and sites_sum
// count its links.
inline constexpr std::string_view kSiteHashColumns =
    "error_pk, language, path, line, col, end_line, function, kind, "
    "exception_written, cause, via, internal, excerpt_line, body_hash, guard_hash";
inline constexpr std::string_view kSiteBodyColumns = "statement, excerpt";
inline constexpr std::string_view kSiteGuardColumns = "guards, trigger, signature, entries";
inline constexpr std::string_view kNonSiteHashColumns = "snapshot_pk, path, line, reason";
inline constexpr std::string_view kFileIssueHashColumns =
    "snapshot_pk, path, reason, detail, skipped";
inline constexpr std::string_view kClassHashColumns = "snapshot_pk, name, bases, path, line";
inline constexpr std::string_view kAnalysisHashColumns = "error_pk, family, data";
inline constexpr std::string_view kFamilyHashColumns =
    "slug, name, description, errors, libraries, examples";
inline constexpr std::string_view kEnrichmentHashColumns = "error_id, model, created_at, data";
inline constexpr std::string_view kMetaHashColumns = "key, value";
inline constexpr std::string_view kSealHashColumns =
    "n_libraries, libraries_sum, n_families, families_sum, n_enrichments, enrichments_sum, "
    "fts_hash, n_meta, meta_sum";

}  // namespace errdex::catalog
