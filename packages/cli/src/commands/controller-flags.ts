// The `controller` command's flags: upstream's names, defaults and validation (spec §18.1), parsed
// with Go's flag-package rules by flags/go-flags.ts (ADR 0018). Pure: argv in, typed values plus
// warnings out, or a FlagError naming the flag and the fix. controllerManagerOptions() turns the
// values into the typed options of @agent-sandbox/controllers' runControllerManager.
import { isIP } from 'node:net';
import {
  CONTROLLER_NAMES as REGISTERED_CONTROLLERS,
  type ControllerName,
} from '@agent-sandbox/controllers';
import {
  flag,
  goFlagsHelp,
  ignoredFlagWarnings,
  parseGoFlags,
  type FlagValue,
  type FlagValues,
} from '../flags/go-flags.ts';
import {
  bindAddress,
  nonEmpty,
  oneOf,
  parseBool,
  parseDurationMs,
  parseFloat64,
  parseInt10,
  port,
  positiveDuration,
  positiveInt,
  str,
  zapLevel,
  KUBECONFIG_FLAG,
} from './flag-values.ts';

export type { FlagValue } from '../flags/go-flags.ts';
export { FlagError } from '../errors.ts';

const NOT_YET = 'not implemented yet';

/** A bare host for --webhook-url-host: an IP address or DNS name, no scheme, port or path. */
function urlHost(text: string): string {
  if (text === '') return text;
  if (isIP(text) || /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i.test(text))
    return text;
  throw new Error('must be an IP address or DNS name without scheme, port or path, e.g. 127.0.0.1');
}

/** The controllers the manager knows (@agent-sandbox/controllers CONTROLLERS), for --controllers. */
export const CONTROLLER_NAMES: readonly ControllerName[] = REGISTERED_CONTROLLERS;

/**
 * --controllers, kube-controller-manager style: `*` (every controller --extensions enables), a
 * comma list of names, or `none` / empty for no reconcilers (the webhook-only mode). Normalized to
 * `*`, `none` or the names in the order given, without duplicates, joined by commas.
 */
function controllerList(text: string): string {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0 || (items.length === 1 && items[0] === 'none')) return 'none';
  if (items.length === 1 && items[0] === '*') return '*';
  for (const item of items) {
    if (item === '*' || item === 'none')
      throw new Error(`"${item}" cannot be combined with controller names`);
    if (!(CONTROLLER_NAMES as readonly string[]).includes(item))
      throw new Error(
        `unknown controller "${item}"; use *, none, or a comma list of ${CONTROLLER_NAMES.join(', ')}`,
      );
  }
  return [...new Set(items)].join(',');
}

/** The names --controllers selects (before --extensions filtering): `*` is all of them. */
export function selectedControllers(value: string): readonly ControllerName[] {
  if (value === '*') return CONTROLLER_NAMES;
  if (value === 'none') return [];
  // controllerList() let only registered names through.
  return value.split(',') as ControllerName[];
}

/** Upstream's flags, in upstream's order (spec §18.1). */
export const CONTROLLER_FLAGS = [
  flag({ name: 'version', default: false, parse: parseBool, help: 'print version and exit' }),
  KUBECONFIG_FLAG,
  flag({
    name: 'metrics-bind-address',
    default: ':8080',
    parse: bindAddress,
    help: 'address the /metrics endpoint binds to ("0" disables)',
  }),
  flag({
    name: 'health-probe-bind-address',
    default: ':8081',
    parse: bindAddress,
    help: 'address /healthz and /readyz bind to ("0" disables)',
  }),
  flag({
    name: 'leader-elect',
    default: true,
    parse: parseBool,
    help: 'elect a leader on a Lease so only one replica reconciles',
  }),
  flag({
    name: 'leader-election-namespace',
    default: '',
    parse: str,
    help: "namespace of the leader Lease (empty: the service account's or kubeconfig's)",
  }),
  flag({
    name: 'extensions',
    default: false,
    parse: parseBool,
    help: 'enable the SandboxClaim, SandboxTemplate and SandboxWarmPool controllers',
  }),
  flag({
    name: 'cluster-domain',
    default: 'cluster.local',
    parse: str,
    help: 'cluster DNS domain used in status.serviceFQDN',
  }),
  flag({
    name: 'enable-tracing',
    default: false,
    parse: parseBool,
    help: 'export OpenTelemetry traces over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT)',
  }),
  flag({
    name: 'enable-pprof',
    default: false,
    parse: parseBool,
    help: 'serve profiles on the metrics server',
    ignored: NOT_YET,
  }),
  flag({
    name: 'enable-pprof-debug',
    default: false,
    parse: parseBool,
    help: 'serve all profiling endpoints',
    ignored: NOT_YET,
  }),
  flag({
    name: 'pprof-block-profile-rate',
    default: 1000000,
    parse: parseInt10,
    help: 'block profile rate',
    ignored: 'Go runtime only',
  }),
  flag({
    name: 'pprof-mutex-profile-fraction',
    default: 10,
    parse: parseInt10,
    help: 'mutex profile fraction',
    ignored: 'Go runtime only',
  }),
  flag({
    name: 'kube-api-qps',
    default: -1,
    parse: (t) => {
      const n = parseFloat64(t);
      if (Number.isNaN(n)) throw new Error('must be a number (negative disables limiting)');
      return n;
    },
    help: 'client-side request rate limit to the API server (<=0: no limit)',
  }),
  flag({
    name: 'kube-api-burst',
    default: 10,
    parse: positiveInt,
    help: 'client-side burst above --kube-api-qps (>0)',
  }),
  flag({
    name: 'api-connections',
    default: 1,
    parse: (t) => {
      const n = parseInt10(t);
      if (n < 1) throw new Error(`must be at least 1, got ${n}`);
      return n;
    },
    help: 'HTTP/2 connections non-watch traffic is sharded over (>=1)',
    ignored: NOT_YET,
  }),
  flag({
    name: 'separate-watch-connection',
    default: false,
    parse: parseBool,
    help: 'dedicated connection for informers',
    ignored: NOT_YET,
  }),
  flag({
    name: 'sandbox-concurrent-workers',
    default: 100,
    parse: positiveInt,
    help: 'Sandbox reconciles run in parallel (>0)',
  }),
  flag({
    name: 'sandbox-claim-concurrent-workers',
    default: 50,
    parse: positiveInt,
    help: 'SandboxClaim reconciles run in parallel (>0)',
  }),
  flag({
    name: 'sandbox-warm-pool-concurrent-workers',
    default: 1,
    parse: positiveInt,
    help: 'SandboxWarmPool reconciles run in parallel (>0)',
  }),
  flag({
    name: 'sandbox-template-concurrent-workers',
    default: 1,
    parse: positiveInt,
    help: 'SandboxTemplate reconciles run in parallel',
  }),
  flag({
    name: 'sandbox-warm-pool-max-batch-size',
    default: 300,
    parse: positiveInt,
    help: 'most Sandboxes a warm pool creates per reconcile (>0)',
  }),
  flag({
    name: 'sandbox-warm-pool-replenish-delay',
    default: 0,
    parse: parseDurationMs,
    help: 'delay before a warm pool replenishes (ms after parsing, e.g. 500ms)',
  }),
  flag({
    name: 'sandbox-warm-pool-max-refill-rate',
    default: 0,
    parse: (t) => {
      const n = parseFloat64(t);
      if (!Number.isFinite(n) || n < 0) throw new Error(`must be a finite number >= 0, got ${t}`);
      return n;
    },
    help: 'warm pool refills per second (0: unlimited)',
  }),
  flag({
    name: 'sandbox-warm-pool-readiness-grace-period',
    default: 300_000,
    parse: positiveDuration,
    help: 'how long a warm Sandbox may take to become Ready (default 5m)',
  }),
  flag({
    name: 'sandbox-warm-pool-unschedulable-recheck-interval',
    default: 60_000,
    parse: positiveDuration,
    help: 'recheck interval for unschedulable warm Sandboxes (default 1m)',
  }),
  flag({
    name: 'enable-warm-pool-eviction',
    default: true,
    parse: parseBool,
    help: 'evict stale warm Sandboxes',
  }),
  flag({
    name: 'cache-label-selectors',
    default: false,
    parse: parseBool,
    help: 'cache only Pods and Services labelled with agents.x-k8s.io/sandbox-name-hash',
    ignored: NOT_YET,
  }),
  flag({
    name: 'disable-claim-events',
    default: false,
    parse: parseBool,
    help: 'emit no SandboxClaim events',
  }),
  flag({
    name: 'disable-claim-observability-annotations',
    default: false,
    parse: parseBool,
    help: 'do not stamp claim timing annotations',
  }),
  flag({
    name: 'sandbox-warm-pool-status-interval',
    default: 1_000,
    parse: (t) => {
      const ms = parseDurationMs(t);
      if (ms < 0) throw new Error(`must be >= 0, got ${t}`);
      return ms;
    },
    help: 'least time between warm pool status writes that only move the counts (0: every change)',
  }),
  flag({
    name: 'sandbox-write-behind-window',
    default: 0,
    parse: (t) => {
      const ms = parseDurationMs(t);
      if (ms < 0) throw new Error(`must be >= 0, got ${t}`);
      return ms;
    },
    help: 'coalesce Pod metadata patches within this window (0: write at once)',
  }),
  flag({
    name: 'webhook-port',
    default: 9443,
    parse: port,
    help: 'conversion webhook HTTPS port (0: any free port, logged)',
  }),
  flag({
    name: 'webhook-cert-dir',
    default: '/tmp/k8s-webhook-server/serving-certs',
    parse: str,
    help: 'webhook serving certificate directory',
  }),
  flag({
    name: 'webhook-cert-name',
    default: 'tls.crt',
    parse: nonEmpty,
    help: 'certificate file name',
  }),
  flag({ name: 'webhook-key-name', default: 'tls.key', parse: nonEmpty, help: 'key file name' }),
  flag({
    name: 'webhook-service-name',
    default: 'agent-sandbox-webhook-service',
    parse: str,
    help: 'webhook Service name',
  }),
  flag({
    name: 'webhook-namespace',
    default: 'agent-sandbox-system',
    parse: str,
    help: 'webhook namespace',
  }),
  flag({
    name: 'manage-webhook-certs',
    default: true,
    parse: parseBool,
    help: 'generate and rotate webhook certificates',
  }),
  flag({ name: 'enable-webhook', default: true, parse: parseBool, help: 'run the webhook server' }),
  flag({
    name: 'webhook-url-host',
    default: '',
    parse: urlHost,
    help: 'agent-sandbox extension: point the CRDs at https://<host>:<port>/convert (a manager outside the cluster) and add the host to the certificate',
  }),
  flag({
    name: 'controllers',
    default: '*',
    parse: controllerList,
    help: `agent-sandbox extension: reconcilers to run — * (sandbox, plus the extension controllers with --extensions), a comma list of ${CONTROLLER_NAMES.join(', ')}, or none (or empty): no reconcilers, no informers, no leader election, only the conversion webhook`,
  }),
  flag({
    name: 'zap-devel',
    default: false,
    parse: parseBool,
    help: 'development logging defaults',
  }),
  flag({
    name: 'zap-encoder',
    default: 'json',
    parse: oneOf(['json', 'console']),
    help: 'log encoding (json or console; logs are JSON either way)',
  }),
  flag({
    name: 'zap-log-level',
    default: 'info',
    parse: zapLevel,
    help: 'debug, info, error or N>0',
  }),
  flag({
    name: 'zap-stacktrace-level',
    default: 'error',
    parse: oneOf(['info', 'error', 'panic']),
    help: 'level from which stack traces are logged',
  }),
  flag({
    name: 'zap-time-encoding',
    default: 'epoch',
    parse: oneOf(['epoch', 'millis', 'nano', 'iso8601', 'rfc3339', 'rfc3339nano']),
    help: 'log time format',
  }),
] as const;

export type ControllerFlags = FlagValues<typeof CONTROLLER_FLAGS>;
export type ControllerFlagName = keyof ControllerFlags;

export interface ParsedFlags {
  /** Typed values: `flags['kube-api-qps']` is a number. */
  flags: ControllerFlags;
  /** The same values by name, for tables and help. */
  values: Map<string, FlagValue>;
  /** Flags given on the command line. */
  set: Set<ControllerFlagName>;
  help: boolean;
  warnings: string[];
}

/** Parses argv (flags only: the command takes no positional arguments). */
export function parseControllerFlags(argv: readonly string[]): ParsedFlags {
  const parsed = parseGoFlags(CONTROLLER_FLAGS, argv, { command: 'agent-sandbox controller' });
  return {
    ...parsed,
    warnings: [
      ...workerWarnings(parsed.flags),
      ...ignoredFlagWarnings(CONTROLLER_FLAGS, parsed.values, parsed.set),
    ],
  };
}

/** Upstream's warnings about worker counts against client limits. */
function workerWarnings(f: ControllerFlags): string[] {
  const workers =
    f['sandbox-concurrent-workers'] +
    f['sandbox-claim-concurrent-workers'] +
    f['sandbox-warm-pool-concurrent-workers'] +
    f['sandbox-template-concurrent-workers'];
  if (workers > 1000)
    return [`the controllers' concurrent workers add up to ${workers} (more than 1000)`];
  if (f['kube-api-qps'] > 0 && workers > f['kube-api-burst'])
    return [
      `the controllers' concurrent workers (${workers}) exceed --kube-api-burst (${f['kube-api-burst']}) while --kube-api-qps limits requests; workers will wait on the client rate limiter`,
    ];
  return [];
}

export function controllerHelp(): string {
  return [
    'Usage: agent-sandbox controller [flags]',
    '',
    'Run the agent-sandbox controller manager (upstream flag names; --name=value, --name value,',
    'and --bool=false all work).',
    '',
    'Flags:',
    ...goFlagsHelp(CONTROLLER_FLAGS),
    '',
  ].join('\n');
}
