import { createHash } from 'node:crypto';
import {
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StorageError, type StorageErrorCode } from '../errors.ts';
import { openStore } from './open.ts';
import { APPLICATION_ID } from './schema.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'storage-open-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Writes a small store with history to `path` and closes it. */
function seed(path: string, objects = 50): void {
  const store = openStore({ path });
  store.txn((tx) => {
    for (let i = 0; i < objects; i++)
      tx.create(`/r/${i}`, JSON.stringify({ i, pad: 'x'.repeat(200) }));
  });
  store.close();
}

function overwrite(path: string, offset: number, bytes: Buffer): void {
  const fd = openSync(path, 'r+');
  writeSync(fd, bytes, 0, bytes.length, offset);
  closeSync(fd);
}

describe('restart', () => {
  it('keeps every object, the revision counter and the compact revision', () => {
    const path = join(dir, 'state.db');
    // synchronous=NORMAL only to keep this test fast; a clean close is durable either way.
    const first = openStore({ path, synchronous: 'normal' });
    for (let i = 0; i < 100; i++) first.create(`/r/${i}`, `{"v":${i}}`);
    for (let i = 0; i < 100; i += 2) first.update(`/r/${i}`, `{"v":${i},"updated":true}`);
    for (let i = 0; i < 100; i += 10) first.delete(`/r/${i}`);
    first.compact(20);
    const before = first.list('/r/');
    const revision = first.currentRevision;
    const compact = first.compactRevision;
    first.close();

    const second = openStore({ path });
    try {
      expect(second.currentRevision).toBe(revision);
      expect(second.compactRevision).toBe(compact);
      expect(second.list('/r/')).toEqual(before);
      expect(second.create('/r/new', '{}').revision).toBe(revision + 1);
    } finally {
      second.close();
    }
  });

  it('adopts a zero-byte file and an empty SQLite database', () => {
    const empty = join(dir, 'empty.db');
    writeFileSync(empty, '');
    const blank = join(dir, 'blank.db');
    new Database(blank).close();
    for (const path of [empty, blank]) {
      const store = openStore({ path });
      store.create('/r/a', '1');
      store.close();
      const again = openStore({ path });
      expect(again.get('/r/a')?.value).toBe('1');
      again.close();
    }
  });
});

describe('refusing files that are not ours or not healthy', () => {
  const cases: {
    name: string;
    make: (path: string) => void;
    code: StorageErrorCode;
    message: RegExp;
  }[] = [
    {
      name: 'a text file',
      make: (p) => writeFileSync(p, 'these are my notes, not a database\n'.repeat(200)),
      code: 'NotSqlite',
      message: /not a SQLite database.*left untouched/,
    },
    {
      name: 'a foreign SQLite database (tables, no application id)',
      make: (p) => {
        const db = new Database(p);
        db.exec("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ada')");
        db.close();
      },
      code: 'Foreign',
      message: /another application.*application_id 0x00000000/,
    },
    {
      name: 'a foreign SQLite database (other application id)',
      make: (p) => {
        const db = new Database(p);
        db.pragma('application_id = 305419896');
        db.exec('CREATE TABLE log (x)');
        db.close();
      },
      code: 'Foreign',
      message: /application_id 0x12345678/,
    },
    {
      name: 'our database written by a newer schema version',
      make: (p) => {
        seed(p);
        const db = new Database(p);
        db.prepare("UPDATE meta SET value = 99 WHERE key = 'schema_version'").run();
        db.close();
      },
      code: 'NewerSchema',
      message: /schema version 99.*run a newer agent-sandbox/,
    },
    {
      name: 'our database with a damaged schema page',
      make: (p) => {
        seed(p);
        overwrite(p, 100, Buffer.alloc(400, 0xa5));
      },
      code: 'Corrupt',
      message: /left untouched/,
    },
    {
      name: 'our database with damaged data pages',
      make: (p) => {
        seed(p, 400);
        overwrite(p, 4096 * 5 + 10, Buffer.alloc(3000, 0x5a));
      },
      code: 'Corrupt',
      message: /left untouched/,
    },
    {
      name: 'our database, truncated',
      make: (p) => {
        seed(p, 400);
        const bytes = readFileSync(p);
        writeFileSync(p, bytes.subarray(0, Math.floor(bytes.length / 2)));
      },
      code: 'Corrupt',
      message: /left untouched/,
    },
    {
      name: 'our application id but no tables',
      make: (p) => {
        const db = new Database(p);
        db.pragma(`application_id = ${APPLICATION_ID}`);
        db.exec('CREATE TABLE something_else (x)');
        db.close();
      },
      code: 'Corrupt',
      message: /tables are missing/,
    },
  ];

  it.each(cases)('$name → $code, file unchanged', ({ make, code, message }) => {
    const path = join(dir, 'state.db');
    make(path);
    const before = sha256(path);
    let caught: unknown;
    try {
      openStore({ path }).close();
    } catch (err: unknown) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StorageError);
    expect(caught).toMatchObject({ code });
    expect((caught as Error).message).toMatch(message);
    expect((caught as Error).message).toContain(path);
    expect(sha256(path)).toBe(before);
  });

  it('refuses a directory, and a path whose directory does not exist', () => {
    expect(() => openStore({ path: dir })).toThrow(/not a regular file/);
    expect(() => openStore({ path: join(dir, 'missing', 'state.db') })).toThrow(
      expect.objectContaining({
        code: 'InvalidArgument',
        message: expect.stringMatching(/does not exist/),
      }),
    );
  });
});

describe('locking', () => {
  it('an exclusive store locks out every other opener until it closes', () => {
    const path = join(dir, 'state.db');
    const owner = openStore({ path });
    owner.create('/r/a', '1');
    for (const lock of ['exclusive', 'shared'] as const) {
      expect(() => openStore({ path, lock, busyTimeoutMs: 20 })).toThrow(
        expect.objectContaining({
          code: 'Locked',
          message: expect.stringMatching(/another process/),
        }),
      );
    }
    owner.close();
    const next = openStore({ path, busyTimeoutMs: 20 });
    expect(next.get('/r/a')?.value).toBe('1');
    next.close();
  });

  it('shared stores open the same file together; an exclusive opener is locked out', () => {
    const path = join(dir, 'state.db');
    const a = openStore({ path, lock: 'shared' });
    const b = openStore({ path, lock: 'shared' });
    a.create('/r/a', '1');
    expect(b.get('/r/a')?.value).toBe('1');
    expect(() => openStore({ path, busyTimeoutMs: 20 })).toThrow(
      expect.objectContaining({ code: 'Locked' }),
    );
    a.close();
    b.close();
  });
});
