// The restart-chaos scenario's pure parts: the seeded plan, the seed variable, the /metrics
// parser and the gateway's path rewrite. (test/** runs in the integration project only.)
import { describe, expect, it } from 'vitest';
import { chaosPlan, chaosSeed, seededRandom } from './chaos-plan.ts';
import { parseSample } from './manager-process.ts';
import { scopePath } from './namespace-proxy.ts';

describe('chaosPlan', () => {
  it('is a function of the seed', () => {
    expect(chaosPlan({ seed: 42 })).toEqual(chaosPlan({ seed: 42 }));
    expect(chaosPlan({ seed: 42 })).not.toEqual(chaosPlan({ seed: 43 }));
    const [a, b] = [seededRandom(7), seededRandom(7)];
    const run = Array.from({ length: 100 }, () => a());
    expect(run).toEqual(Array.from({ length: 100 }, () => b()));
    expect(run.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(run).size).toBe(100);
  });

  it('mixes every kind of Sandbox and keeps ops and expiries inside the chaos window', () => {
    const plan = chaosPlan({ seed: 1, chaosWindowMs: 40_000 });
    const s = plan.sandboxes;
    expect(s).toHaveLength(200);
    expect(new Set(s.map((x) => x.name)).size).toBe(200);
    for (const service of [true, false, undefined])
      expect(s.some((x) => x.service === service)).toBe(true);
    expect(s.some((x) => x.volumeClaimTemplates.length === 2)).toBe(true);
    expect(s.some((x) => x.expiry?.policy === 'Delete')).toBe(true);
    expect(s.some((x) => x.expiry?.policy === 'Retain')).toBe(true);
    expect(s.some((x) => x.ops.some((o) => o.mode === 'Suspended'))).toBe(true);
    expect(s.some((x) => x.ops.some((o) => o.mode === 'Running'))).toBe(true);
    expect(s.some((x) => x.serviceOps.some((o) => o.service === false))).toBe(true);
    expect(s.some((x) => x.serviceOps.some((o) => o.service === true))).toBe(true);
    for (const x of s) {
      if (x.expiry) expect(x.expiry.atMs).toBeGreaterThanOrEqual(x.createAtMs + 2_000);
      let at = x.createAtMs;
      let mode = x.initialMode;
      for (const op of x.ops) {
        expect(op.atMs).toBeGreaterThan(at);
        expect(op.mode).not.toBe(mode);
        ({ atMs: at, mode } = op);
      }
      let service = x.service;
      for (const op of x.serviceOps) {
        expect(op.service).toBe(service !== true);
        service = op.service;
      }
    }
    expect(plan.kills).toHaveLength(6);
  });
});

describe('chaosSeed', () => {
  it('takes the variable when set and names it when it is not a seed', () => {
    expect(chaosSeed('12345', 'SEED')).toBe(12345);
    expect(chaosSeed(undefined, 'SEED')).toBeGreaterThanOrEqual(0);
    expect(() => chaosSeed('abc', 'AGENT_SANDBOX_CHAOS_SEED')).toThrow(
      'AGENT_SANDBOX_CHAOS_SEED=abc is not a seed; use a non-negative integer',
    );
  });
});

describe('parseSample', () => {
  it("sums the sandbox controller's series", () => {
    const text = [
      '# TYPE controller_runtime_reconcile_total counter',
      'controller_runtime_reconcile_total{controller="sandbox",result="success"} 7',
      'controller_runtime_reconcile_total{controller="sandbox",result="error"} 2',
      'controller_runtime_reconcile_total{controller="other",result="success"} 100',
      'controller_runtime_reconcile_errors_total{controller="sandbox"} 2',
      'controller_runtime_active_workers{controller="sandbox"} 3',
      'workqueue_depth{name="sandbox",controller="sandbox"} 4',
      'rest_client_requests_total{code="201",method="POST",host="h"} 5',
      'rest_client_requests_total{code="200",method="PATCH",host="h"} 6',
      'rest_client_requests_total{code="200",method="GET",host="h"} 50',
    ].join('\n');
    expect(parseSample(text)).toEqual({
      reconciles: 9,
      reconcileErrors: 2,
      activeWorkers: 3,
      queueDepth: 4,
      writes: 11,
    });
  });
});

describe('scopePath', () => {
  it("rewrites the manager's cluster-wide collections to the namespace, nothing else", () => {
    expect(scopePath('/api/v1/pods?watch=true&resourceVersion=5', 'ns')).toBe(
      '/api/v1/namespaces/ns/pods?watch=true&resourceVersion=5',
    );
    expect(scopePath('/apis/agents.x-k8s.io/v1beta1/sandboxes', 'ns')).toBe(
      '/apis/agents.x-k8s.io/v1beta1/namespaces/ns/sandboxes',
    );
    expect(scopePath('/api/v1/persistentvolumeclaims?limit=500', 'ns')).toBe(
      '/api/v1/namespaces/ns/persistentvolumeclaims?limit=500',
    );
    for (const path of [
      '/api/v1/namespaces/other/pods',
      '/api/v1/namespaces/ns/pods/p',
      '/api/v1/nodes',
      '/apis/coordination.k8s.io/v1/leases',
      '/api/v1/podsx',
    ])
      expect(scopePath(path, 'ns')).toBe(path);
  });
});
