// The agent_sandbox_* definitions of @agent-sandbox/controllers (spec §19.1), as the controller
// command registers them.
import {
  AgentSandboxMetrics,
  CLAIM_STARTUP_BUCKETS_MS,
  CREATION_BUCKETS_MS,
  sandboxGaugeLabels,
  type SandboxForMetrics,
} from '@agent-sandbox/controllers';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';

describe('agent_sandbox_* metrics', () => {
  it('registers the names, types, labels and buckets of spec §19.1', async () => {
    const registry = new Registry();
    const m = new AgentSandboxMetrics(registry, {
      buildInfo: { gitVersion: 'v1', gitCommit: 'abc', buildDate: '2026-01-01' },
    });
    m.claimStartupLatency.observe({ launch_type: 'warm', sandbox_template: 't' }, 120);
    m.creationLatency.observe({ namespace: 'ns', launch_type: 'cold', sandbox_template: 't' }, 60);
    m.claimCreationTotal.inc({
      namespace: 'ns',
      sandbox_template: 't',
      launch_type: 'cold',
      warmpool_name: 'none',
      pod_condition: 'ready',
      created_by: 'go-client',
    });
    const json = await registry.getMetricsAsJSON();
    const types = Object.fromEntries(json.map((j) => [j.name, String(j.type)]));
    expect(types).toEqual({
      agent_sandbox_claim_startup_latency_ms: 'histogram',
      agent_sandbox_claim_controller_startup_latency_ms: 'histogram',
      agent_sandbox_client_claim_startup_latency_ms: 'histogram',
      agent_sandbox_creation_latency_ms: 'histogram',
      agent_sandbox_claim_creation_total: 'counter',
      agent_sandboxes: 'gauge',
      agent_sandbox_build_info: 'gauge',
    });
    expect(CLAIM_STARTUP_BUCKETS_MS).toEqual([
      100, 250, 500, 750, 1000, 1250, 1500, 2000, 2500, 5000, 10000, 30000, 60000, 120000, 240000,
    ]);
    expect(CREATION_BUCKETS_MS).toEqual([
      50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 120000, 240000, 300000, 600000,
    ]);
    const text = await registry.metrics();
    expect(text).toContain(
      'agent_sandbox_claim_startup_latency_ms_bucket{le="250",launch_type="warm",sandbox_template="t"} 1',
    );
    expect(text).toContain(
      'agent_sandbox_creation_latency_ms_bucket{le="50",namespace="ns",launch_type="cold",sandbox_template="t"} 0',
    );
    expect(text).toContain(
      'agent_sandbox_claim_creation_total{namespace="ns",sandbox_template="t",launch_type="cold",warmpool_name="none",pod_condition="ready",created_by="go-client"} 1',
    );
    expect(text).toMatch(
      /^agent_sandbox_build_info\{git_version="v1",git_commit="abc",build_date="2026-01-01",go_version="v\d+[^"]*",compiler="node",platform="[^"]+"\} 1$/m,
    );
  });

  it('counts Sandboxes at scrape time with the collector label matrix', async () => {
    const sandboxes: SandboxForMetrics[] = [
      {
        metadata: {
          namespace: 'a',
          labels: {
            'agents.x-k8s.io/launch-type': 'warm',
            'agents.x-k8s.io/created-by': 'go-client',
          },
          annotations: { 'agents.x-k8s.io/sandbox-template-ref': 'py' },
          ownerReferences: [
            {
              apiVersion: 'extensions.agents.x-k8s.io/v1alpha1',
              kind: 'SandboxWarmPool',
              controller: true,
            },
          ],
        },
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      },
      {
        metadata: { namespace: 'a', labels: { 'agents.x-k8s.io/created-by': 'someone' } },
        status: { conditions: [{ type: 'Ready', status: 'False', reason: 'SandboxExpired' }] },
      },
      {
        metadata: {
          namespace: 'a',
          labels: { 'agents.x-k8s.io/created-by': 'someone' },
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'SandboxClaim', controller: true }],
        },
        status: { conditions: [{ type: 'Ready', status: 'False', reason: 'SandboxExpired' }] },
      },
    ];
    expect(sandboxGaugeLabels(sandboxes[0] as SandboxForMetrics)).toEqual({
      namespace: 'a',
      ready_condition: 'true',
      expired: 'false',
      launch_type: 'warm',
      sandbox_template: 'py',
      owned_by: 'SandboxWarmPool',
      created_by: 'go-client',
    });
    const registry = new Registry();
    new AgentSandboxMetrics(registry, { listSandboxes: async () => sandboxes });
    const text = await registry.metrics();
    expect(text).toContain(
      'agent_sandboxes{namespace="a",ready_condition="false",expired="true",launch_type="cold",sandbox_template="unknown",owned_by="None",created_by="unknown"} 2',
    );
    expect(text).toContain('owned_by="SandboxWarmPool",created_by="go-client"} 1');
  });
});
