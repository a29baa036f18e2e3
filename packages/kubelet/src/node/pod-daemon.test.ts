import { describe, expect, it } from 'vitest';
import { lineSplitter } from './pod-daemon.ts';

describe('lineSplitter: the daemon stderr lines the node logs', () => {
  it('joins lines split across reads, skips blank ones and holds an unfinished line back', () => {
    const lines: string[] = [];
    const feed = lineSplitter((l) => lines.push(l));
    feed('{"msg":"serv');
    expect(lines).toEqual([]);
    feed('ing"}\n\n  \n{"msg":"Start received"}\npartial');
    expect(lines).toEqual(['{"msg":"serving"}', '{"msg":"Start received"}']);
    feed(' end\n');
    expect(lines.at(-1)).toBe('partial end');
  });

  it('cuts a line longer than 4096 characters into pieces instead of buffering it', () => {
    const lines: string[] = [];
    const feed = lineSplitter((l) => lines.push(l));
    feed('x'.repeat(10_000));
    expect(lines.map((l) => l.length)).toEqual([4096, 4096]);
    feed('\n');
    expect(lines.map((l) => l.length)).toEqual([4096, 4096, 1808]);
  });
});
