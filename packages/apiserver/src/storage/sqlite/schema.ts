// The on-disk format: one append-only table in kine's shape (k3s-io/kine pkg/drivers/generic),
// plus a small meta table. ADR 0005 explains each choice.

/**
 * `PRAGMA application_id` of our files (bytes 68–71 of the SQLite header): ASCII `AgSb`. A SQLite
 * file with another non-zero id, or with tables but id 0, is somebody else's and is refused.
 */
export const APPLICATION_ID = 0x41675362;

/** Bump when the format changes; add a migration from every older version in `open.ts`. */
export const SCHEMA_VERSION = 1;

/** The 16-byte magic string every SQLite 3 database file starts with. */
export const SQLITE_HEADER = 'SQLite format 3\0';

// `log`: one row per write. id = revision. AUTOINCREMENT (not plain rowid) so that a revision is
// never reused, even when compaction has removed the newest rows (a deleted key's tombstone): the
// high-water mark lives in sqlite_sequence (semantics doc §12.5).
//   created/deleted: 1 on the row that creates / deletes the key (kine's flags)
//   create_revision: the revision that created this incarnation of the key
//   prev_revision:   the key's previous row (0 if none survives); UNIQUE(name, prev_revision) is
//                    kine's guard that two writers can never both append after the same row
//   value:           the value written; for a tombstone, the last live value (so DELETED events
//                    and compaction need no join)
//   written_at:      wall-clock ms from the injected clock, for operators only
export const SCHEMA_SQL = `
CREATE TABLE log (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  name            TEXT    NOT NULL,
  created         INTEGER NOT NULL,
  deleted         INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision   INTEGER NOT NULL,
  value           TEXT    NOT NULL,
  written_at      INTEGER NOT NULL
);
CREATE UNIQUE INDEX log_name_prev_revision ON log (name, prev_revision);
CREATE INDEX log_name_id ON log (name, id);
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** Keys of the meta table. */
export const META_SCHEMA_VERSION = 'schema_version';
export const META_COMPACT_REVISION = 'compact_revision';
