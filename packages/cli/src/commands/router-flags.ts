// The `router` command's flags: upstream sandbox-router's names, defaults and validation
// (dataplane §2.12), parsed with Go's flag-package rules (ADR 0018). Pure: argv in, typed values
// out, or a FlagError naming the flag and the fix.
import { flag, goFlagsHelp, parseGoFlags, type FlagValues } from '../flags/go-flags.ts';
import {
  bindAddress,
  nonEmpty,
  oneOf,
  parseBool,
  parseDurationMs,
  parseInt10,
  positiveDuration,
  positiveInt,
  str,
  KUBECONFIG_FLAG,
} from './flag-values.ts';

const nonNegative = (text: string): number => {
  const n = parseInt10(text);
  if (n < 0) throw new Error(`must be ≥ 0, got ${n}`);
  return n;
};
const nonNegativeDuration = (text: string): number => {
  const ms = parseDurationMs(text);
  if (ms < 0) throw new Error(`must be ≥ 0, got ${text}`);
  return ms;
};

export const ROUTER_FLAGS = [
  flag({
    name: 'http-bind-address',
    default: ':8080',
    parse: bindAddress,
    help: 'proxy listener ("0" disables)',
  }),
  flag({
    name: 'metrics-bind-address',
    default: ':9090',
    parse: bindAddress,
    help: 'Prometheus /metrics listener ("0" disables)',
  }),
  flag({
    name: 'health-probe-bind-address',
    default: ':8081',
    parse: bindAddress,
    help: '/healthz and /readyz listener ("0" disables)',
  }),
  flag({
    name: 'cluster-domain',
    default: 'cluster.local',
    parse: nonEmpty,
    help: 'cluster DNS domain of the <id>.<ns>.svc.<domain> fallback',
  }),
  flag({
    name: 'proxy-timeout',
    default: 180_000,
    parse: positiveDuration,
    help: 'per-request deadline (upgrades exempt)',
  }),
  flag({
    name: 'response-header-timeout',
    default: 30_000,
    parse: positiveDuration,
    help: 'wait for the backend response headers',
  }),
  flag({
    name: 'max-request-body-bytes',
    default: 0,
    parse: nonNegative,
    help: 'request body cap (0 = unlimited)',
  }),
  flag({
    name: 'allow-loopback-pod-ip',
    default: false,
    parse: parseBool,
    help: 'accept loopback X-Sandbox-Pod-IP (link-local, multicast, unspecified stay refused)',
  }),
  flag({
    name: 'upstream-max-retries',
    default: 3,
    parse: nonNegative,
    help: 'retries of dial failures (0 = none)',
  }),
  flag({
    name: 'upstream-retry-initial-delay',
    default: 200,
    parse: nonNegativeDuration,
    help: 'first retry delay, doubling',
  }),
  flag({
    name: 'upstream-retry-max-delay',
    default: 800,
    parse: nonNegativeDuration,
    help: 'retry delay cap',
  }),
  flag({
    name: 'authz-mode',
    default: 'allow-all',
    parse: oneOf(['allow-all', 'tokenreview', 'scoped-token']),
    help: 'allow-all | tokenreview | scoped-token',
  }),
  flag({
    name: 'authz-tokenreview-ttl',
    default: 30_000,
    parse: positiveDuration,
    help: 'TokenReview decision cache TTL',
  }),
  flag({
    name: 'authz-tokenreview-cache-size',
    default: 2048,
    parse: positiveInt,
    help: 'TokenReview decision cache entries',
  }),
  flag({
    name: 'authz-tokenreview-require-token',
    default: false,
    parse: parseBool,
    help: 'refuse requests without a bearer token',
  }),
  flag({
    name: 'authz-tokenreview-audiences',
    default: '',
    parse: str,
    help: 'comma-separated audiences (empty: no audience check)',
  }),
  flag({
    name: 'authz-scoped-token-secret-file',
    default: '',
    parse: str,
    help: 'HMAC secret for scoped-token mode (≥ 32 bytes)',
  }),
  flag({
    name: 'cache-enabled',
    default: false,
    parse: parseBool,
    help: 'resolve through a Pod informer cache',
  }),
  flag({
    name: 'cache-namespace',
    default: '',
    parse: str,
    help: 'limit the cache to one namespace (empty: all)',
  }),
  KUBECONFIG_FLAG,
  flag({
    name: 'access-log',
    default: true,
    parse: parseBool,
    help: 'log every proxied request as a JSON line',
  }),
  flag({
    name: 'sandbox-domain',
    default: '',
    parse: str,
    help: 'extension: route <port>-<sandbox>.<namespace>.<domain> Host names',
  }),
  flag({ name: 'version', default: false, parse: parseBool, help: 'print version and exit' }),
] as const;

export type RouterFlags = FlagValues<typeof ROUTER_FLAGS>;

export function parseRouterFlags(argv: readonly string[]) {
  return parseGoFlags(ROUTER_FLAGS, argv, { command: 'router' });
}

export function routerHelp(): string {
  return [
    'Usage: agent-sandbox router [flags]',
    '',
    'The sandbox router (upstream sandbox-router flags):',
    ...goFlagsHelp(ROUTER_FLAGS),
    '',
  ].join('\n');
}
