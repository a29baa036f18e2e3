// CI keeps only the tail of its log: the summary must name what failed above its closing line.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const script = new URL('ci-summary.mjs', import.meta.url).pathname;

/** Runs the summary over reports in vitest's JSON reporter shape; returns its output and code. */
function summarize(reports: object[]): { out: string; code: number } {
  const dir = mkdtempSync(join(tmpdir(), 'ci-summary-'));
  const files = reports.map((r, i) => {
    const file = join(dir, `r${i}.json`);
    writeFileSync(file, JSON.stringify(r));
    return file;
  });
  try {
    return { out: execFileSync('node', [script, ...files], { encoding: 'utf8' }), code: 0 };
  } catch (err) {
    const e = err as { stdout: string; status: number };
    return { out: e.stdout, code: e.status };
  }
}

const failing = {
  numPassedTests: 3,
  numFailedTests: 1,
  numPendingTests: 1,
  testResults: [
    {
      name: join(process.cwd(), 'packages/x/src/a.int.test.ts'),
      status: 'failed',
      message: '',
      assertionResults: [
        { fullName: 'suite ok', status: 'passed', failureMessages: [] },
        {
          fullName: 'suite waits',
          status: 'failed',
          failureMessages: [
            '\u001b[31mError: condition not met in 60000 ms\u001b[39m\n    at x.ts:1',
          ],
        },
      ],
    },
    {
      name: join(process.cwd(), 'b.test.ts'),
      status: 'failed',
      message: 'Cannot find module y',
      assertionResults: [],
    },
  ],
};

describe('ci-summary', () => {
  it('lists each failed test with its file and first error line, then the closing line', () => {
    const { out, code } = summarize([failing]);
    expect(code).toBe(1);
    expect(out.trim().split('\n')).toEqual([
      'failed: packages/x/src/a.int.test.ts › suite waits: Error: condition not met in 60000 ms',
      'failed: b.test.ts (the file itself): Cannot find module y',
      'tests: 3 passed, 1 failed, 1 skipped',
    ]);
  });
  it('passes a clean run and fails one that ran nothing', () => {
    expect(summarize([{ numPassedTests: 2, testResults: [] }])).toEqual({
      out: 'tests: 2 passed, 0 failed, 0 skipped\n',
      code: 0,
    });
    expect(summarize([{ numPassedTests: 0, testResults: [] }]).code).toBe(1);
  });
});
