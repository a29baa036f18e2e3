// The scenario table cannot lie: it is rebuilt from the test sources (generated.test.ts fails
// when packages/controllers/SCENARIOS.md differs), every upstream-style name a test claims must be
// a row, and every scenario module must run on both targets.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SPEC_PATH } from './file.ts';
import { claimedNames, expandRun, upstreamEntries } from './names.ts';
import { buildRows, readTestSources, unknownNames } from './table.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const spec = readFileSync(`${root}${SPEC_PATH}`, 'utf8');
const sources = readTestSources(root);

describe('scenario table', () => {
  it('expands the spec’s shorthand runs', () => {
    expect(expandRun('TestA / _B / TestC')).toEqual(['TestA', 'TestA_B', 'TestC']);
    expect(expandRun('TestX_Y / _Z')).toEqual(['TestX_Y', 'TestX_Z']);
    expect(expandRun('TestVctSuccess / Errors')).toEqual(['TestVctSuccess', 'TestVctErrors']);
    expect(claimedNames('TestA / TestB: does x')).toEqual(['TestA', 'TestB']);
    expect(claimedNames('Adoption conflict suite: y')).toEqual(['Adoption conflict suite']);
    expect(claimedNames('sandboxclaim_rawpatch_test: z')).toEqual([
      'sandboxclaim_rawpatch_test.go',
    ]);
    expect(claimedNames('internal/metrics/*_test: w')).toEqual(['internal/metrics/*_test.go']);
    expect(claimedNames('no name here')).toEqual([]);
  });

  it('reads every Test… name of §21.3–21.4 and the bullet-only test files', () => {
    const names = upstreamEntries(spec).map((e) => e.name);
    expect(names).toContain('TestSandboxClaimReconcile');
    expect(names).toContain('TestCreateSandboxClaimVolumeClaimTemplatesErrors');
    expect(names).toContain('sandboxwarmpool_overcreation_test.go');
    expect(names).not.toContain('TestSimpleSandbox'); // §21.5
    expect(new Set(names).size).toBe(names.length);
  });

  it('every upstream name a test title claims is a row (no typo, no test named after nothing)', () => {
    expect(unknownNames(buildRows(spec, sources), sources)).toEqual([]);
  });

  it('every scenario module runs on both targets', () => {
    const single = sources.filter((s) => s.targets.length === 1).map((s) => s.path);
    expect(single).toEqual([]);
  });
});
