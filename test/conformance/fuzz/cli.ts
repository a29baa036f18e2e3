// `npm run fuzz -- [--runs N] [--seed S] [--max-rss-mib M]`: the differential fuzzer
// (fuzz.cluster.test.ts) for a longer run than CI's, against the harness cluster (started or
// reused) and an embedded server in its own process; it prints both servers' RSS and fails when
// the embedded server's peak passes M MiB (default: the suite's DEFAULT_MAX_RSS_MIB).
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5000' },
    seed: { type: 'string' },
    'max-rss-mib': { type: 'string' },
  },
});
const env: NodeJS.ProcessEnv = { ...process.env, FUZZ_RUNS: wholeNumber('runs', values.runs) };
// Without --seed a run explores: the suite's own default seed is the fixed one CI replays.
env['FUZZ_SEED'] =
  values.seed !== undefined
    ? wholeNumber('seed', values.seed)
    : String(Math.floor(Math.random() * 2 ** 31));
const maxRss = values['max-rss-mib'];
if (maxRss !== undefined) env['FUZZ_MAX_RSS_MIB'] = wholeNumber('max-rss-mib', maxRss, 1);
const run = spawnSync(
  'npx',
  ['vitest', 'run', '--project', 'cluster', 'test/conformance/fuzz/fuzz.cluster.test.ts'],
  { stdio: 'inherit', env },
);
process.exit(run.status ?? 1);

/** `text` if it is a whole number ≥ `min`; else exits naming the flag. */
function wholeNumber(flag: string, text: string, min = 0): string {
  if (/^\d+$/.test(text) && Number(text) >= min) return text;
  console.error(`--${flag} must be a whole number ≥ ${min}, got ${JSON.stringify(text)}`);
  process.exit(2);
}
