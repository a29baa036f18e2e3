// The revision log's fixed SQL, prepared once per connection (kine's queries over our schema).
import type Database from 'better-sqlite3';

export const COLUMNS = 'id, name, created, deleted, create_revision, prev_revision, value';

export function prepareStatements(db: Database.Database) {
  return {
    current: db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'log'").pluck(),
    compact: db.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
    setCompact: db.prepare('UPDATE meta SET value = ? WHERE key = ?'),
    latest: db.prepare(`SELECT ${COLUMNS} FROM log WHERE name = ? ORDER BY id DESC LIMIT 1`),
    at: db.prepare(
      `SELECT ${COLUMNS} FROM log WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1`,
    ),
    insert: db.prepare(
      'INSERT INTO log (name, created, deleted, create_revision, prev_revision, value, written_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    compactSuperseded: db.prepare(
      'DELETE FROM log WHERE id IN (SELECT prev_revision FROM log WHERE id > ? AND id <= ? AND prev_revision > 0)',
    ),
    compactDeleted: db.prepare('DELETE FROM log WHERE deleted = 1 AND id > ? AND id <= ?'),
    // `+name`: walk the rows after the revision by id; the name index would visit every
    // version of every key under the prefix.
    changedInRange: db
      .prepare('SELECT 1 FROM log WHERE id > ? AND +name >= ? AND (? IS NULL OR +name < ?) LIMIT 1')
      .pluck(),
    events: db.prepare(
      `SELECT l.id, l.name, l.created, l.deleted, l.create_revision, l.prev_revision, l.value, p.value AS prev_value
       FROM log l LEFT JOIN log p ON p.id = l.prev_revision
       WHERE l.id > ? AND l.id <= ? ORDER BY l.id LIMIT ?`,
    ),
    eventsInRange: db.prepare(
      `SELECT l.id, l.name, l.created, l.deleted, l.create_revision, l.prev_revision, l.value, p.value AS prev_value
       FROM log l LEFT JOIN log p ON p.id = l.prev_revision
       WHERE l.id > ? AND l.id <= ? AND l.name >= ? AND (? IS NULL OR l.name < ?) ORDER BY l.id LIMIT ?`,
    ),
  };
}
