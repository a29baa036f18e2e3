// Our CRDs and the conversion webhook that serves their v1alpha1 (ADR 0004, ADR 0015): `up`
// installs the CRDs, then runs one long-lived `agent-sandbox controller --controllers=none` whose
// only job is POST /convert. Without it every v1alpha1 request for our kinds fails and
// kube-apiserver's v1alpha1 watch cache relists about once a second while Sandboxes exist.
import { readOurCrds } from '@agent-sandbox/apiserver/testing';
import {
  KubeClient,
  NAMESPACES,
  isAlreadyExists,
  kubeConfigFromFile,
  CUSTOM_RESOURCE_DEFINITIONS,
} from '@agent-sandbox/kube';
import type { CustomResourceDefinition, KubeObject } from '@agent-sandbox/kube-types';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ClusterError } from './errors.ts';
import { HARNESS_DIR } from './options.ts';
import { assertPortFree, waitFor } from './probe.ts';
import { isRunning, logTail, startDetached, type ProcessRecord } from './processes.ts';
import type { StatePaths } from './state.ts';

export const WEBHOOK_COMPONENT = 'agent-sandbox-webhook';
export const WEBHOOK_NAMESPACE = 'agent-sandbox-system';
/** The CLI's bin: it runs the bundle when fresh, else the sources (ADR 0013). */
const CLI_BIN = join(HARNESS_DIR, '..', '..', 'packages', 'cli', 'bin', 'agent-sandbox.js');
const SANDBOX_CRD = 'sandboxes.agents.x-k8s.io';
const V1ALPHA1_SANDBOXES = '/apis/agents.x-k8s.io/v1alpha1';

type Crd = CustomResourceDefinition & KubeObject;
type LiveCrd = KubeObject & {
  spec: { conversion?: { webhook?: { clientConfig?: { url?: string } } } };
  status?: { conditions?: { type: string; status: string }[] };
};

/**
 * Runs `fn` with a client of ours, which sends the CRDs' JSON as it is (client-node's typed
 * models would drop `default` and the `x-kubernetes-*` keys they spell differently).
 */
async function withClient<T>(kubeconfig: string, fn: (c: KubeClient) => Promise<T>): Promise<T> {
  const client = new KubeClient({ config: kubeConfigFromFile(kubeconfig) });
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/**
 * Creates our CRDs, or replaces them with the generated ones while keeping the live webhook
 * clientConfig (the running webhook put it there; a replace without it would break v1alpha1
 * until the webhook restarts). Waits until each is Established.
 */
export async function installCrds(kubeconfig: string): Promise<void> {
  await withClient(kubeconfig, async (client) => {
    for (const crd of readOurCrds() as Crd[]) {
      try {
        await client.create(CUSTOM_RESOURCE_DEFINITIONS, crd);
        continue;
      } catch (err: unknown) {
        if (!isAlreadyExists(err)) throw err;
      }
      const live = await client.get<LiveCrd>(
        CUSTOM_RESOURCE_DEFINITIONS,
        undefined,
        String(crd.metadata.name),
      );
      const clientConfig = live.spec.conversion?.webhook?.clientConfig;
      const webhook = crd.spec.conversion?.webhook;
      if (clientConfig && webhook) Object.assign(webhook, { clientConfig });
      crd.metadata = { ...crd.metadata, resourceVersion: live.metadata.resourceVersion };
      await client.update(CUSTOM_RESOURCE_DEFINITIONS, crd);
    }
    for (const crd of readOurCrds()) {
      const name = String(crd.metadata.name);
      await waitFor(
        async () =>
          (
            await client.get<LiveCrd>(CUSTOM_RESOURCE_DEFINITIONS, undefined, name)
          ).status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ??
          false,
        { what: `CRD ${name} Established`, timeoutMs: 30_000 },
      );
    }
  });
}

export interface WebhookInputs {
  paths: StatePaths;
  port: number;
}

/** The manager's flags: webhook-only, reached by URL on loopback, no metrics or probe ports. */
export function webhookArgs({ paths, port }: WebhookInputs): string[] {
  return [
    CLI_BIN,
    'controller',
    `--kubeconfig=${paths.kubeconfig}`,
    '--controllers=none',
    '--webhook-url-host=127.0.0.1',
    `--webhook-port=${port}`,
    `--webhook-namespace=${WEBHOOK_NAMESPACE}`,
    `--webhook-cert-dir=${join(paths.root, 'webhook')}`,
    '--metrics-bind-address=0',
    '--health-probe-bind-address=0',
  ];
}

/**
 * Installs the CRDs, creates the webhook namespace, starts the webhook-only manager and waits
 * until kube-apiserver serves v1alpha1 through it. `record` is called with the process at once,
 * so a failed start still leaves `down` its PID.
 */
export async function startWebhook(
  inputs: WebhookInputs,
  record: (proc: ProcessRecord) => void,
): Promise<ProcessRecord> {
  const { paths, port } = inputs;
  await installCrds(paths.kubeconfig);
  await withClient(paths.kubeconfig, (client) =>
    client
      .create(NAMESPACES, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: WEBHOOK_NAMESPACE },
      })
      .catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      }),
  );
  await assertPortFree(port, 'the conversion webhook');
  mkdirSync(join(paths.root, 'webhook'), { recursive: true });
  const proc = startDetached(
    WEBHOOK_COMPONENT,
    process.execPath,
    webhookArgs(inputs),
    join(paths.logs, `${WEBHOOK_COMPONENT}.log`),
  );
  record(proc);
  await waitFor(() => servesV1alpha1(paths.kubeconfig, port), {
    what: `the conversion webhook (log ${proc.logFile})`,
    timeoutMs: 60_000,
    intervalMs: 250,
    abortIf: () =>
      isRunning(proc)
        ? undefined
        : `exited during startup; last log lines:\n${logTail(proc.logFile)}`,
  });
  return proc;
}

/**
 * True when the Sandbox CRD points at our port and kube-apiserver both lists v1alpha1 Sandboxes
 * and converts one: a dry-run v1alpha1 create is stored (not persisted) as v1beta1, so it goes
 * through the webhook even when no Sandbox exists and an empty list would need no conversion.
 */
export async function servesV1alpha1(kubeconfig: string, port: number): Promise<boolean> {
  try {
    return await withClient(kubeconfig, async (client) => {
      const crd = await client.get<LiveCrd>(CUSTOM_RESOURCE_DEFINITIONS, undefined, SANDBOX_CRD);
      if (crd.spec.conversion?.webhook?.clientConfig?.url !== `https://127.0.0.1:${port}/convert`)
        return false;
      await client.request('GET', `${V1ALPHA1_SANDBOXES}/sandboxes?limit=1`);
      await client.request(
        'POST',
        `${V1ALPHA1_SANDBOXES}/namespaces/default/sandboxes?dryRun=All`,
        {
          apiVersion: 'agents.x-k8s.io/v1alpha1',
          kind: 'Sandbox',
          metadata: { generateName: 'webhook-probe-' },
          spec: { podTemplate: { spec: { containers: [{ name: 'probe', image: 'busybox' }] } } },
        },
      );
      return true;
    });
  } catch {
    return false; // not patched yet, or the webhook is not answering yet
  }
}

/** Names the webhook's failure in the harness's terms. */
export function webhookStartError(err: unknown): ClusterError {
  if (err instanceof ClusterError) return err;
  return new ClusterError(
    'START_FAILED',
    `installing the CRDs or starting the conversion webhook failed: ${err instanceof Error ? err.message : String(err)}`,
    { cause: err },
  );
}
