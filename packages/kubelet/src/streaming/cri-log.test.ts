import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { criTimestamp, CriLogWriter, parseRecord } from './cri-log.ts';
import { renderRecord, selectRecords } from './log-reader.ts';

const dir = mkdtempSync(join(tmpdir(), 'cri-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('CRI log format', () => {
  it('prints fixed-width nanosecond timestamps', () => {
    expect(criTimestamp(Date.parse('2024-05-01T12:00:00.123Z'), 456789)).toBe(
      '2024-05-01T12:00:00.123456789Z',
    );
    expect(criTimestamp(Date.parse('2024-05-01T12:00:00Z'))).toBe('2024-05-01T12:00:00.000000000Z');
  });

  it('writes full lines as F and held partial lines as P records', () => {
    let t = 0;
    const path = join(dir, 'ns_pod', 'c', '0.log');
    const w = new CriLogWriter(path, () => ({
      ms: Date.parse('2024-05-01T12:00:00Z') + t++ * 1000,
      ns: 0,
    }));
    w.write('stdout', 'one\ntw');
    w.write('stderr', 'err\n');
    w.write('stdout', 'o\nthree');
    w.flush();
    const records = readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => parseRecord(l));
    expect(records.map((r) => [r?.stream, r?.partial, r?.content])).toEqual([
      ['stdout', false, 'one'],
      ['stderr', false, 'err'],
      ['stdout', false, 'two'],
      ['stdout', true, 'three'],
    ]);
    expect(records.map((r) => renderRecord(r!, false)).join('')).toBe('one\nerr\ntwo\nthree');
    expect(renderRecord(records[0]!, true)).toBe('2024-05-01T12:00:00.000000000Z one\n');
  });

  it('selects by since and tail', () => {
    const rec = (s: number, content: string) =>
      parseRecord(`${criTimestamp(s * 1000)} stdout F ${content}`)!;
    const all = [rec(1, 'a'), rec(2, 'b'), rec(3, 'c')];
    const base = { follow: false, previous: false, timestamps: false };
    expect(selectRecords(all, { ...base, sinceMs: 2000 }).map((r) => r.content)).toEqual([
      'b',
      'c',
    ]);
    expect(selectRecords(all, { ...base, tailLines: 1 }).map((r) => r.content)).toEqual(['c']);
    expect(selectRecords(all, { ...base, tailLines: 0 })).toEqual([]);
    expect(parseRecord('garbage')).toBeUndefined();
  });
});
