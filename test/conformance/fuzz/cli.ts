// `npm run fuzz -- [--runs N] [--seed S]`: the differential fuzzer (fuzz.cluster.test.ts) for a
// longer run than CI's, against the harness cluster (started or reused) and an embedded server.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '5000' }, seed: { type: 'string' } },
});
const env: NodeJS.ProcessEnv = { ...process.env, FUZZ_RUNS: values.runs };
if (values.seed !== undefined) env['FUZZ_SEED'] = values.seed;
const run = spawnSync(
  'npx',
  ['vitest', 'run', '--project', 'cluster', 'test/conformance/fuzz/fuzz.cluster.test.ts'],
  { stdio: 'inherit', env },
);
process.exit(run.status ?? 1);
