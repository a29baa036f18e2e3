// The generated scenario table's path and content; the spec is read from ../shared (beside the
// project on every machine and CI run).
import { readFileSync } from 'node:fs';
import { buildRows, readTestSources, renderTable } from './table.ts';

export const SPEC_PATH = '../shared/spec/api-and-controllers.md';

export function scenarioTableFile(root: string): { path: string; content: string } {
  const spec = readFileSync(`${root}${SPEC_PATH}`, 'utf8');
  return {
    path: `${root}packages/controllers/SCENARIOS.md`,
    content: renderTable(buildRows(spec, readTestSources(root))),
  };
}
