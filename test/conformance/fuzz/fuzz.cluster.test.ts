// The differential fuzzer (issue 15): seeded hostile requests (generate.ts) sent to the embedded
// API server and to the harness's kube-apiserver. After every case both must still be ready; the
// embedded server must never answer a 5xx where kube answers a 4xx, and its status class must be
// kube's or the difference is listed in KNOWN_FUZZ_DIFFERENCES with its reason.
// FUZZ_SEED=<n> replays a run; FUZZ_RUNS=<n> sets its length (CI: 300); `npm run fuzz` wraps both.
import {
  readOurCrds,
  startTestApiServer,
  type TestApiServer,
} from '@agent-sandbox/apiserver/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCluster } from '../../support/cluster.ts';
import { targetFor, type HttpResult, type Target } from '../target.ts';
import { compareCase, summarize, type CaseOutcome } from './compare.ts';
import { sampleRequests, type FuzzRequest } from './generate.ts';

const SEED = Number(process.env['FUZZ_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 300);
/** How far the embedded server's (this process's) RSS may grow over the run. */
const RSS_GROWTH_LIMIT = 400 * 1024 * 1024;
/**
 * A server that has not answered within this long counts as no answer (status 0). kube answers
 * every case in well under a second except the ones it never answers (KNOWN_FUZZ_DIFFERENCES).
 */
const ANSWER_CAP_MS = 5_000;

function send(t: Target, r: FuzzRequest): Promise<HttpResult> {
  const answer = t
    .requestOnce(r.method, r.path, {
      ...(r.body !== undefined ? { body: r.body } : {}),
      ...(r.contentType !== undefined ? { contentType: r.contentType } : {}),
      ...(r.headers !== undefined ? { headers: r.headers } : {}),
    })
    .catch((err: unknown) => ({ status: 0, headers: {}, body: String(err) }));
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<HttpResult>((resolve) => {
    timer = setTimeout(
      () => resolve({ status: 0, headers: {}, body: `no answer in ${ANSWER_CAP_MS} ms` }),
      ANSWER_CAP_MS,
    );
  });
  return Promise.race([answer, cap]).finally(() => clearTimeout(timer));
}

async function ready(t: Target): Promise<boolean> {
  const res = await t.requestOnce('GET', '/readyz').catch(() => undefined);
  return res?.status === 200;
}

describe('differential fuzzing: hostile requests against both servers', () => {
  let embedded: TestApiServer;
  let targets: { embedded: Target; cluster: Target };
  const ns = `fuzz-${Date.now().toString(36)}`;

  beforeAll(async () => {
    embedded = await startTestApiServer({ crds: readOurCrds() });
    const cluster = await ensureCluster();
    targets = {
      embedded: targetFor('embedded', embedded.kubeconfigPath),
      cluster: targetFor('cluster', cluster.kubeconfig),
    };
    for (const t of Object.values(targets)) {
      const res = await t.request('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
      });
      if (res.status !== 201) throw new Error(`${t.name}: namespace ${ns}: ${res.status}`);
    }
  });

  afterAll(async () => {
    await targets?.cluster.request('DELETE', `/api/v1/namespaces/${ns}`);
    await embedded?.close();
  });

  it(
    `answers ${RUNS} hostile requests as kube does, and stays up`,
    async () => {
      console.log(`fuzz: seed ${SEED} (replay with FUZZ_SEED=${SEED}), ${RUNS} cases`);
      const started = Date.now();
      const rssBefore = process.memoryUsage().rss;
      let rssPeak = rssBefore;
      const outcomes: CaseOutcome[] = [];
      for (const [i, request] of sampleRequests(ns, SEED, RUNS).entries()) {
        // Each case goes to both servers at once; the next starts once both are ready again.
        const [real, ours] = await Promise.all([
          send(targets.cluster, request),
          send(targets.embedded, request),
        ]);
        const [up, clusterUp] = await Promise.all([
          ready(targets.embedded),
          ready(targets.cluster),
        ]);
        outcomes.push(compareCase(i, request, real, ours, up));
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
        expect(clusterUp, `the cluster answers /readyz after case ${i}`).toBe(true);
      }
      const summary = summarize(outcomes);
      const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(0)} MiB`;
      console.log(
        [
          summary.table,
          ...summary.listed.map((l) => `fuzz: listed: ${l}`),
          `fuzz: embedded RSS before ${mib(rssBefore)}, peak ${mib(rssPeak)}, ` +
            `after ${mib(process.memoryUsage().rss)}`,
          `fuzz: ${RUNS} cases in ${((Date.now() - started) / 1000).toFixed(1)} s`,
          ...summary.crashes.map((l) => `fuzz: CRASH: ${l}`),
          ...summary.fiveHundredsForFourHundreds.map((l) => `fuzz: 5xx FOR 4xx: ${l}`),
          ...summary.unexplained.map((l) => `fuzz: UNEXPLAINED: ${l}`),
        ].join('\n'),
      );
      expect(summary.crashes, 'cases after which the embedded server was down').toEqual([]);
      expect(summary.fiveHundredsForFourHundreds, '5xx where kube answers 4xx').toEqual([]);
      expect(summary.unexplained, 'status class differences without a listed reason').toEqual([]);
      expect(await ready(targets.embedded)).toBe(true);
      expect(rssPeak - rssBefore).toBeLessThan(RSS_GROWTH_LIMIT);
    },
    120_000 + RUNS * 250,
  );
});
