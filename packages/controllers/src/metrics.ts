// Upstream's agent_sandbox_* metrics (spec §19.1): names, types, labels and buckets exactly.
// Pure definitions on a prom-client Registry the caller passes in (the manager's, so they are
// served on /metrics beside controller_runtime_*); the reconcilers record them.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Claim startup latency buckets, milliseconds. */
export const CLAIM_STARTUP_BUCKETS_MS = [
  100, 250, 500, 750, 1000, 1250, 1500, 2000, 2500, 5000, 10000, 30000, 60000, 120000, 240000,
];
/** Sandbox creation latency buckets, milliseconds. */
export const CREATION_BUCKETS_MS = [
  50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 120000, 240000, 300000, 600000,
];

const CREATED_BY_ALLOWED = new Set(['go-client', 'python-client', 'controller']);
const EXTENSIONS_GROUP = 'extensions.agents.x-k8s.io';
const LIST_TIMEOUT_MS = 5000;

/** The `created-by` allow-list (spec §6): `go-client`, `python-client`, `controller`, else unknown. */
export function normalizeCreatedBy(value: string | undefined): string {
  return value !== undefined && CREATED_BY_ALLOWED.has(value) ? value : 'unknown';
}

/** What the `agent_sandboxes` collector reads of a Sandbox. */
export interface SandboxForMetrics {
  metadata?: {
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { apiVersion: string; kind: string; controller?: boolean }[];
  };
  status?: { conditions?: { type: string; status: string; reason?: string }[] };
}

export type SandboxGaugeLabel =
  | 'namespace'
  | 'ready_condition'
  | 'expired'
  | 'launch_type'
  | 'sandbox_template'
  | 'owned_by'
  | 'created_by';

/** The collector's label values of one Sandbox (spec §19.1). */
export function sandboxGaugeLabels(sb: SandboxForMetrics): Record<SandboxGaugeLabel, string> {
  const meta = sb.metadata ?? {};
  const ready = sb.status?.conditions?.find((c) => c.type === 'Ready');
  const owner = meta.ownerReferences?.find((r) => r.controller === true);
  const ownerGroup = owner?.apiVersion.includes('/') ? owner.apiVersion.split('/')[0] : '';
  const ownedBy =
    owner &&
    ownerGroup === EXTENSIONS_GROUP &&
    (owner.kind === 'SandboxClaim' || owner.kind === 'SandboxWarmPool')
      ? owner.kind
      : 'None';
  return {
    namespace: meta.namespace ?? '',
    ready_condition: ready?.status === 'True' ? 'true' : 'false',
    expired: ready?.reason === 'SandboxExpired' ? 'true' : 'false',
    launch_type: meta.labels?.['agents.x-k8s.io/launch-type'] === 'warm' ? 'warm' : 'cold',
    sandbox_template: meta.annotations?.['agents.x-k8s.io/sandbox-template-ref'] || 'unknown',
    owned_by: ownedBy,
    created_by: normalizeCreatedBy(meta.labels?.['agents.x-k8s.io/created-by']),
  };
}

export interface BuildInfo {
  gitVersion: string;
  gitCommit: string;
  buildDate: string;
  /** Upstream reports the Go version; we report the Node.js one. */
  goVersion: string;
  compiler: string;
  platform: string;
}

export interface AgentSandboxMetricsOptions {
  /** Lists all Sandboxes (from the cache) at scrape time; absent: `agent_sandboxes` stays empty. */
  listSandboxes?: () => readonly SandboxForMetrics[] | Promise<readonly SandboxForMetrics[]>;
  /** @default version 'unknown', the running Node.js as go_version/compiler/platform */
  buildInfo?: Partial<BuildInfo>;
}

type ClaimLabel = 'launch_type' | 'sandbox_template';

export class AgentSandboxMetrics {
  readonly claimStartupLatency: Histogram<ClaimLabel>;
  readonly claimControllerStartupLatency: Histogram<ClaimLabel>;
  readonly clientClaimStartupLatency: Histogram<ClaimLabel>;
  readonly creationLatency: Histogram<'namespace' | ClaimLabel>;
  readonly claimCreationTotal: Counter<
    | 'namespace'
    | 'sandbox_template'
    | 'launch_type'
    | 'warmpool_name'
    | 'pod_condition'
    | 'created_by'
  >;
  readonly sandboxes: Gauge<SandboxGaugeLabel>;
  readonly buildInfo: Gauge;

  constructor(registry: Registry, options: AgentSandboxMetricsOptions = {}) {
    const registers = [registry];
    const claimLabels: ClaimLabel[] = ['launch_type', 'sandbox_template'];
    this.claimStartupLatency = new Histogram({
      name: 'agent_sandbox_claim_startup_latency_ms',
      help: 'End-to-end latency from SandboxClaim creation (webhook first observed) to Sandbox Ready, in milliseconds',
      labelNames: claimLabels,
      buckets: CLAIM_STARTUP_BUCKETS_MS,
      registers,
    });
    this.claimControllerStartupLatency = new Histogram({
      name: 'agent_sandbox_claim_controller_startup_latency_ms',
      help: 'Latency from the controller first observing a SandboxClaim to Sandbox Ready, in milliseconds',
      labelNames: claimLabels,
      buckets: CLAIM_STARTUP_BUCKETS_MS,
      registers,
    });
    this.clientClaimStartupLatency = new Histogram({
      name: 'agent_sandbox_client_claim_startup_latency_ms',
      help: 'Latency from the client first requesting a SandboxClaim to Sandbox Ready, in milliseconds',
      labelNames: claimLabels,
      buckets: CLAIM_STARTUP_BUCKETS_MS,
      registers,
    });
    this.creationLatency = new Histogram({
      name: 'agent_sandbox_creation_latency_ms',
      help: 'Latency from Sandbox creation to Ready, in milliseconds',
      labelNames: ['namespace', 'launch_type', 'sandbox_template'],
      buckets: CREATION_BUCKETS_MS,
      registers,
    });
    this.claimCreationTotal = new Counter({
      name: 'agent_sandbox_claim_creation_total',
      help: 'SandboxClaims satisfied by a cold create or a warm adoption',
      labelNames: [
        'namespace',
        'sandbox_template',
        'launch_type',
        'warmpool_name',
        'pod_condition',
        'created_by',
      ],
      registers,
    });
    const list = options.listSandboxes;
    this.sandboxes = new Gauge({
      name: 'agent_sandboxes',
      help: 'Number of Sandboxes by namespace, readiness, expiry, launch type, template, owner and creator',
      labelNames: [
        'namespace',
        'ready_condition',
        'expired',
        'launch_type',
        'sandbox_template',
        'owned_by',
        'created_by',
      ],
      registers,
      async collect() {
        this.reset();
        if (!list) return;
        const items = await withTimeout(Promise.resolve(list()), LIST_TIMEOUT_MS);
        if (!items) return;
        for (const sb of items) this.inc(sandboxGaugeLabels(sb));
      },
    });
    const b = options.buildInfo ?? {};
    // Const labels in Go; here the metric's one label set, always 1.
    const labels = {
      git_version: b.gitVersion ?? 'unknown',
      git_commit: b.gitCommit ?? 'unknown',
      build_date: b.buildDate ?? 'unknown',
      go_version: b.goVersion ?? process.version,
      compiler: b.compiler ?? 'node',
      platform: b.platform ?? `${process.platform}/${process.arch}`,
    };
    this.buildInfo = new Gauge({
      name: 'agent_sandbox_build_info',
      help: 'Build information of the agent-sandbox controller; the value is always 1',
      labelNames: Object.keys(labels),
      registers,
    });
    this.buildInfo.set(labels, 1);
  }
}

/** Resolves undefined after `ms` (upstream lists with a 5 s timeout and reports nothing then). */
async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
