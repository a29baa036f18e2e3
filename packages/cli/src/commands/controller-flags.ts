// The `controller` command's flags: upstream's names, defaults and validation (spec §18.1), parsed
// with Go's flag-package rules (`--name value`, `--name=value`, one or two dashes, booleans as
// `--name` or `--name=false`). Pure: argv in, values plus warnings out, or a FlagError naming
// the flag and the fix.
import { isIP } from 'node:net';
import {
  bindAddress,
  distance,
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
} from './flag-values.ts';

export class FlagError extends Error {}

export type FlagValue = boolean | number | string;

export interface FlagSpec {
  name: string;
  default: FlagValue;
  /** Parses (and validates) the text; throws a message without the flag name. */
  parse: (text: string) => FlagValue;
  help: string;
  /** Accepted for compatibility; a non-default value only logs a warning. */
  ignored?: string;
}

const NOT_YET = 'not implemented yet';

/** A bare host for --webhook-url-host: an IP address or DNS name, no scheme, port or path. */
function urlHost(text: string): string {
  if (text === '') return text;
  if (isIP(text) || /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i.test(text))
    return text;
  throw new Error('must be an IP address or DNS name without scheme, port or path, e.g. 127.0.0.1');
}

/** The controllers the manager knows (controller.ts CONTROLLERS), for --controllers. */
export const CONTROLLER_NAMES: readonly string[] = [
  'sandbox',
  'sandboxclaim',
  'sandboxwarmpool',
  'sandboxtemplate',
];

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
    if (!CONTROLLER_NAMES.includes(item))
      throw new Error(
        `unknown controller "${item}"; use *, none, or a comma list of ${CONTROLLER_NAMES.join(', ')}`,
      );
  }
  return [...new Set(items)].join(',');
}

/** The names --controllers selects (before --extensions filtering): `*` is all of them. */
export function selectedControllers(value: string): readonly string[] {
  if (value === '*') return CONTROLLER_NAMES;
  if (value === 'none') return [];
  return value.split(',');
}

/** Upstream's flags, in upstream's order (spec §18.1). */
export const CONTROLLER_FLAGS: readonly FlagSpec[] = [
  { name: 'version', default: false, parse: parseBool, help: 'print version and exit' },
  {
    name: 'kubeconfig',
    default: '',
    parse: str,
    help: 'kubeconfig path; else KUBECONFIG, the in-cluster service account, or ~/.kube/config',
  },
  {
    name: 'metrics-bind-address',
    default: ':8080',
    parse: bindAddress,
    help: 'address the /metrics endpoint binds to ("0" disables)',
  },
  {
    name: 'health-probe-bind-address',
    default: ':8081',
    parse: bindAddress,
    help: 'address /healthz and /readyz bind to ("0" disables)',
  },
  {
    name: 'leader-elect',
    default: true,
    parse: parseBool,
    help: 'elect a leader on a Lease so only one replica reconciles',
  },
  {
    name: 'leader-election-namespace',
    default: '',
    parse: str,
    help: "namespace of the leader Lease (empty: the service account's or kubeconfig's)",
  },
  {
    name: 'extensions',
    default: false,
    parse: parseBool,
    help: 'enable the SandboxClaim, SandboxTemplate and SandboxWarmPool controllers',
  },
  {
    name: 'cluster-domain',
    default: 'cluster.local',
    parse: str,
    help: 'cluster DNS domain used in status.serviceFQDN',
  },
  {
    name: 'enable-tracing',
    default: false,
    parse: parseBool,
    help: 'export OpenTelemetry traces over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT)',
  },
  {
    name: 'enable-pprof',
    default: false,
    parse: parseBool,
    help: 'serve profiles on the metrics server',
    ignored: NOT_YET,
  },
  {
    name: 'enable-pprof-debug',
    default: false,
    parse: parseBool,
    help: 'serve all profiling endpoints',
    ignored: NOT_YET,
  },
  {
    name: 'pprof-block-profile-rate',
    default: 1000000,
    parse: parseInt10,
    help: 'block profile rate',
    ignored: 'Go runtime only',
  },
  {
    name: 'pprof-mutex-profile-fraction',
    default: 10,
    parse: parseInt10,
    help: 'mutex profile fraction',
    ignored: 'Go runtime only',
  },
  {
    name: 'kube-api-qps',
    default: -1,
    parse: (t) => {
      const n = parseFloat64(t);
      if (Number.isNaN(n)) throw new Error('must be a number (negative disables limiting)');
      return n;
    },
    help: 'client-side request rate limit to the API server (<=0: no limit)',
  },
  {
    name: 'kube-api-burst',
    default: 10,
    parse: positiveInt,
    help: 'client-side burst above --kube-api-qps (>0)',
  },
  {
    name: 'api-connections',
    default: 1,
    parse: (t) => {
      const n = parseInt10(t);
      if (n < 1) throw new Error(`must be at least 1, got ${n}`);
      return n;
    },
    help: 'HTTP/2 connections non-watch traffic is sharded over (>=1)',
    ignored: NOT_YET,
  },
  {
    name: 'separate-watch-connection',
    default: false,
    parse: parseBool,
    help: 'dedicated connection for informers',
    ignored: NOT_YET,
  },
  {
    name: 'sandbox-concurrent-workers',
    default: 100,
    parse: positiveInt,
    help: 'Sandbox reconciles run in parallel (>0)',
  },
  {
    name: 'sandbox-claim-concurrent-workers',
    default: 50,
    parse: positiveInt,
    help: 'SandboxClaim reconciles run in parallel (>0)',
  },
  {
    name: 'sandbox-warm-pool-concurrent-workers',
    default: 1,
    parse: positiveInt,
    help: 'SandboxWarmPool reconciles run in parallel (>0)',
  },
  {
    name: 'sandbox-template-concurrent-workers',
    default: 1,
    parse: positiveInt,
    help: 'SandboxTemplate reconciles run in parallel',
  },
  {
    name: 'sandbox-warm-pool-max-batch-size',
    default: 300,
    parse: positiveInt,
    help: 'most Sandboxes a warm pool creates per reconcile (>0)',
  },
  {
    name: 'sandbox-warm-pool-replenish-delay',
    default: 0,
    parse: parseDurationMs,
    help: 'delay before a warm pool replenishes (ms after parsing, e.g. 500ms)',
    ignored: NOT_YET,
  },
  {
    name: 'sandbox-warm-pool-max-refill-rate',
    default: 0,
    parse: (t) => {
      const n = parseFloat64(t);
      if (!Number.isFinite(n) || n < 0) throw new Error(`must be a finite number >= 0, got ${t}`);
      return n;
    },
    help: 'warm pool refills per second (0: unlimited)',
    ignored: NOT_YET,
  },
  {
    name: 'sandbox-warm-pool-readiness-grace-period',
    default: 300_000,
    parse: positiveDuration,
    help: 'how long a warm Sandbox may take to become Ready (default 5m)',
  },
  {
    name: 'sandbox-warm-pool-unschedulable-recheck-interval',
    default: 60_000,
    parse: positiveDuration,
    help: 'recheck interval for unschedulable warm Sandboxes (default 1m)',
    ignored: NOT_YET,
  },
  {
    name: 'enable-warm-pool-eviction',
    default: true,
    parse: parseBool,
    help: 'evict stale warm Sandboxes',
  },
  {
    name: 'cache-label-selectors',
    default: false,
    parse: parseBool,
    help: 'cache only Pods and Services labelled with agents.x-k8s.io/sandbox-name-hash',
    ignored: NOT_YET,
  },
  {
    name: 'disable-claim-events',
    default: false,
    parse: parseBool,
    help: 'emit no SandboxClaim events',
  },
  {
    name: 'disable-claim-observability-annotations',
    default: false,
    parse: parseBool,
    help: 'do not stamp claim timing annotations',
  },
  {
    name: 'sandbox-write-behind-window',
    default: 0,
    parse: (t) => {
      const ms = parseDurationMs(t);
      if (ms < 0) throw new Error(`must be >= 0, got ${t}`);
      return ms;
    },
    help: 'coalesce Pod metadata patches within this window (0: write at once)',
  },
  {
    name: 'webhook-port',
    default: 9443,
    parse: port,
    help: 'conversion webhook HTTPS port (0: any free port, logged)',
  },
  {
    name: 'webhook-cert-dir',
    default: '/tmp/k8s-webhook-server/serving-certs',
    parse: str,
    help: 'webhook serving certificate directory',
  },
  { name: 'webhook-cert-name', default: 'tls.crt', parse: nonEmpty, help: 'certificate file name' },
  { name: 'webhook-key-name', default: 'tls.key', parse: nonEmpty, help: 'key file name' },
  {
    name: 'webhook-service-name',
    default: 'agent-sandbox-webhook-service',
    parse: str,
    help: 'webhook Service name',
  },
  {
    name: 'webhook-namespace',
    default: 'agent-sandbox-system',
    parse: str,
    help: 'webhook namespace',
  },
  {
    name: 'manage-webhook-certs',
    default: true,
    parse: parseBool,
    help: 'generate and rotate webhook certificates',
  },
  { name: 'enable-webhook', default: true, parse: parseBool, help: 'run the webhook server' },
  {
    name: 'webhook-url-host',
    default: '',
    parse: urlHost,
    help: 'agent-sandbox extension: point the CRDs at https://<host>:<port>/convert (a manager outside the cluster) and add the host to the certificate',
  },
  {
    name: 'controllers',
    default: '*',
    parse: controllerList,
    help: `agent-sandbox extension: reconcilers to run — * (sandbox, plus the extension controllers with --extensions), a comma list of ${CONTROLLER_NAMES.join(', ')}, or none (or empty): no reconcilers, no informers, no leader election, only the conversion webhook`,
  },
  { name: 'zap-devel', default: false, parse: parseBool, help: 'development logging defaults' },
  {
    name: 'zap-encoder',
    default: 'json',
    parse: oneOf(['json', 'console']),
    help: 'log encoding (json or console; logs are JSON either way)',
  },
  { name: 'zap-log-level', default: 'info', parse: zapLevel, help: 'debug, info, error or N>0' },
  {
    name: 'zap-stacktrace-level',
    default: 'error',
    parse: oneOf(['info', 'error', 'panic']),
    help: 'level from which stack traces are logged',
  },
  {
    name: 'zap-time-encoding',
    default: 'epoch',
    parse: oneOf(['epoch', 'millis', 'nano', 'iso8601', 'rfc3339', 'rfc3339nano']),
    help: 'log time format',
  },
];

const BY_NAME = new Map(CONTROLLER_FLAGS.map((f) => [f.name, f]));

export interface ParsedFlags {
  values: Map<string, FlagValue>;
  /** Flags given on the command line. */
  set: Set<string>;
  help: boolean;
  warnings: string[];
}

/** Parses argv (flags only: the command takes no positional arguments). */
export function parseControllerFlags(argv: readonly string[]): ParsedFlags {
  const values = new Map<string, FlagValue>(CONTROLLER_FLAGS.map((f) => [f.name, f.default]));
  const set = new Set<string>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      if (i + 1 < argv.length)
        throw new FlagError(`unexpected argument "${argv[i + 1]}": the command takes only flags`);
      break;
    }
    const m = /^--?([^-=][^=]*)(?:=(.*))?$/s.exec(arg);
    if (!m) throw new FlagError(`unexpected argument "${arg}": the command takes only flags`);
    const name = m[1] as string;
    if (name === 'help' || name === 'h') {
      help = true;
      continue;
    }
    const spec = BY_NAME.get(name);
    if (!spec)
      throw new FlagError(
        `unknown flag --${name}${suggest(name)} (run agent-sandbox controller --help for the list)`,
      );
    let text = m[2];
    if (text === undefined) {
      if (typeof spec.default === 'boolean') text = 'true';
      else {
        if (i + 1 >= argv.length)
          throw new FlagError(`flag --${name} needs a value (default ${show(spec.default)})`);
        text = argv[++i] as string;
      }
    }
    let value: FlagValue;
    try {
      value = spec.parse(text);
    } catch (err: unknown) {
      const why = err instanceof Error ? err.message : String(err);
      throw new FlagError(
        `invalid value "${text}" for flag --${name}: ${why} (default ${show(spec.default)})`,
      );
    }
    values.set(name, value);
    set.add(name);
  }
  return { values, set, help, warnings: crossChecks(values, set) };
}

/** Upstream's warnings about worker counts against client limits. */
function crossChecks(values: Map<string, FlagValue>, set: Set<string>): string[] {
  const warnings: string[] = [];
  const num = (n: string): number => values.get(n) as number;
  const workers =
    num('sandbox-concurrent-workers') +
    num('sandbox-claim-concurrent-workers') +
    num('sandbox-warm-pool-concurrent-workers') +
    num('sandbox-template-concurrent-workers');
  if (workers > 1000)
    warnings.push(`the controllers' concurrent workers add up to ${workers} (more than 1000)`);
  else if (num('kube-api-qps') > 0 && workers > num('kube-api-burst'))
    warnings.push(
      `the controllers' concurrent workers (${workers}) exceed --kube-api-burst (${num('kube-api-burst')}) while --kube-api-qps limits requests; workers will wait on the client rate limiter`,
    );
  for (const name of set) {
    const spec = BY_NAME.get(name);
    if (spec?.ignored && values.get(name) !== spec.default)
      warnings.push(`--${name} is accepted for compatibility but ignored (${spec.ignored})`);
  }
  return warnings;
}

function show(v: FlagValue): string {
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

function suggest(name: string): string {
  const close = CONTROLLER_FLAGS.map((f) => f.name).find(
    (n) => n.includes(name) || name.includes(n) || distance(n, name) <= 2,
  );
  return close ? `; did you mean --${close}?` : '';
}

export function controllerHelp(): string {
  const lines = CONTROLLER_FLAGS.map((f) => {
    const head = `  --${f.name}${typeof f.default === 'boolean' ? '' : ' <value>'}`;
    const note = f.ignored ? ` [ignored: ${f.ignored}]` : '';
    return `${head.padEnd(56)} ${f.help} (default ${show(f.default)})${note}`;
  });
  return [
    'Usage: agent-sandbox controller [flags]',
    '',
    'Run the agent-sandbox controller manager (upstream flag names; --name=value, --name value,',
    'and --bool=false all work).',
    '',
    'Flags:',
    ...lines,
    '',
  ].join('\n');
}
