import { describe, expect, it } from 'vitest';
import {
  CONTROLLER_FLAGS,
  CONTROLLER_NAMES,
  controllerHelp,
  selectedControllers,
  parseControllerFlags,
  type FlagValue,
} from './controller-flags.ts';
import { parseBool, parseDurationMs } from './flag-values.ts';

/** Upstream's defaults (spec §18.1); durations in milliseconds. */
const UPSTREAM_DEFAULTS: Record<string, FlagValue> = {
  version: false,
  kubeconfig: '',
  'metrics-bind-address': ':8080',
  'health-probe-bind-address': ':8081',
  'leader-elect': true,
  'leader-election-namespace': '',
  extensions: false,
  'cluster-domain': 'cluster.local',
  'enable-tracing': false,
  'enable-pprof': false,
  'enable-pprof-debug': false,
  'pprof-block-profile-rate': 1000000,
  'pprof-mutex-profile-fraction': 10,
  'kube-api-qps': -1,
  'kube-api-burst': 10,
  'api-connections': 1,
  'separate-watch-connection': false,
  'sandbox-concurrent-workers': 100,
  'sandbox-claim-concurrent-workers': 50,
  'sandbox-warm-pool-concurrent-workers': 1,
  'sandbox-template-concurrent-workers': 1,
  'sandbox-warm-pool-max-batch-size': 300,
  'sandbox-warm-pool-replenish-delay': 0,
  'sandbox-warm-pool-max-refill-rate': 0,
  'sandbox-warm-pool-readiness-grace-period': 300_000,
  'sandbox-warm-pool-unschedulable-recheck-interval': 60_000,
  'enable-warm-pool-eviction': true,
  'cache-label-selectors': false,
  'disable-claim-events': false,
  'disable-claim-observability-annotations': false,
  'sandbox-warm-pool-status-interval': 1_000,
  'sandbox-write-behind-window': 0,
  'webhook-port': 9443,
  'webhook-cert-dir': '/tmp/k8s-webhook-server/serving-certs',
  'webhook-cert-name': 'tls.crt',
  'webhook-key-name': 'tls.key',
  'webhook-service-name': 'agent-sandbox-webhook-service',
  'webhook-namespace': 'agent-sandbox-system',
  'manage-webhook-certs': true,
  'enable-webhook': true,
  // agent-sandbox extension (not upstream): a webhook reached by URL from outside the cluster.
  'webhook-url-host': '',
  // agent-sandbox extension: which reconcilers run (none: the conversion webhook alone).
  controllers: '*',
  'zap-devel': false,
  'zap-encoder': 'json',
  'zap-log-level': 'info',
  'zap-stacktrace-level': 'error',
  'zap-time-encoding': 'epoch',
};

/** One accepted spelling and its value, and one rejected value with the expected reason. */
const CASES: Record<string, { ok: [string, FlagValue]; bad?: [string, RegExp] }> = {
  version: { ok: ['true', true], bad: ['yes', /not a boolean/] },
  kubeconfig: { ok: ['/k/config', '/k/config'] },
  'metrics-bind-address': { ok: ['127.0.0.1:0', '127.0.0.1:0'], bad: ['nope', /./] },
  'health-probe-bind-address': { ok: ['0', '0'], bad: [':99999', /./] },
  'leader-elect': { ok: ['false', false], bad: ['maybe', /not a boolean/] },
  'leader-election-namespace': { ok: ['ops', 'ops'] },
  extensions: { ok: ['1', true], bad: ['on', /not a boolean/] },
  'cluster-domain': { ok: ['corp.local', 'corp.local'] },
  'enable-tracing': { ok: ['T', true], bad: ['y', /not a boolean/] },
  'enable-pprof': { ok: ['false', false], bad: ['x', /not a boolean/] },
  'enable-pprof-debug': { ok: ['False', false], bad: ['x', /not a boolean/] },
  'pprof-block-profile-rate': { ok: ['5', 5], bad: ['1.5', /not an integer/] },
  'pprof-mutex-profile-fraction': { ok: ['-1', -1], bad: ['ten', /not an integer/] },
  'kube-api-qps': { ok: ['20.5', 20.5], bad: ['fast', /not a number/] },
  'kube-api-burst': { ok: ['50', 50], bad: ['0', /greater than 0/] },
  'api-connections': { ok: ['4', 4], bad: ['0', /at least 1/] },
  'separate-watch-connection': { ok: ['true', true], bad: ['2', /not a boolean/] },
  'sandbox-concurrent-workers': { ok: ['8', 8], bad: ['-1', /greater than 0/] },
  'sandbox-claim-concurrent-workers': { ok: ['8', 8], bad: ['0', /greater than 0/] },
  'sandbox-warm-pool-concurrent-workers': { ok: ['2', 2], bad: ['0', /greater than 0/] },
  'sandbox-template-concurrent-workers': { ok: ['2', 2], bad: ['0', /greater than 0/] },
  'sandbox-warm-pool-max-batch-size': { ok: ['10', 10], bad: ['0', /greater than 0/] },
  'sandbox-warm-pool-replenish-delay': { ok: ['1m30s', 90_000], bad: ['5', /not a duration/] },
  'sandbox-warm-pool-max-refill-rate': { ok: ['2.5', 2.5], bad: ['+Inf', /finite/] },
  'sandbox-warm-pool-readiness-grace-period': { ok: ['10s', 10_000], bad: ['0s', /greater/] },
  'sandbox-warm-pool-unschedulable-recheck-interval': {
    ok: ['2h', 7_200_000],
    bad: ['0', /greater/],
  },
  'enable-warm-pool-eviction': { ok: ['false', false], bad: ['no', /not a boolean/] },
  'cache-label-selectors': { ok: ['true', true], bad: ['x', /not a boolean/] },
  'disable-claim-events': { ok: ['true', true], bad: ['x', /not a boolean/] },
  'disable-claim-observability-annotations': { ok: ['t', true], bad: ['x', /not a boolean/] },
  'sandbox-warm-pool-status-interval': { ok: ['0', 0], bad: ['-1s', />= 0/] },
  'sandbox-write-behind-window': { ok: ['250ms', 250], bad: ['-1s', />= 0/] },
  'webhook-port': { ok: ['10250', 10250], bad: ['70000', /0 to 65535/] },
  'webhook-cert-dir': { ok: ['/certs', '/certs'] },
  'webhook-cert-name': { ok: ['c.pem', 'c.pem'], bad: ['', /must not be empty/] },
  'webhook-key-name': { ok: ['k.pem', 'k.pem'], bad: ['', /must not be empty/] },
  'webhook-service-name': { ok: ['svc', 'svc'] },
  'webhook-namespace': { ok: ['ns', 'ns'] },
  'manage-webhook-certs': { ok: ['false', false], bad: ['x', /not a boolean/] },
  'enable-webhook': { ok: ['false', false], bad: ['x', /not a boolean/] },
  'webhook-url-host': {
    ok: ['127.0.0.1', '127.0.0.1'],
    bad: ['https://127.0.0.1:9443', /IP address or DNS name without scheme, port or path/],
  },
  controllers: {
    ok: ['sandbox', 'sandbox'],
    bad: ['sandbox,pods', /unknown controller "pods"; use \*, none, or a comma list of sandbox, /],
  },
  'zap-devel': { ok: ['true', true], bad: ['x', /not a boolean/] },
  'zap-encoder': { ok: ['console', 'console'], bad: ['xml', /not one of json, console/] },
  'zap-log-level': { ok: ['debug', 'debug'], bad: ['loud', /not a log level/] },
  'zap-stacktrace-level': { ok: ['panic', 'panic'], bad: ['debug', /not one of/] },
  'zap-time-encoding': { ok: ['rfc3339nano', 'rfc3339nano'], bad: ['unix', /not one of/] },
};

describe('controller flags', () => {
  it("has exactly upstream's flags with upstream's defaults", () => {
    const { values, set, warnings } = parseControllerFlags([]);
    expect(Object.fromEntries(values)).toEqual(UPSTREAM_DEFAULTS);
    expect(CONTROLLER_FLAGS.map((f) => f.name).sort()).toEqual(Object.keys(CASES).sort());
    expect(set.size).toBe(0);
    expect(warnings).toEqual([]);
  });

  for (const [name, c] of Object.entries(CASES)) {
    it(`parses --${name}`, () => {
      const [text, value] = c.ok;
      expect(parseControllerFlags([`--${name}=${text}`]).values.get(name)).toEqual(value);
      expect(parseControllerFlags([`-${name}=${text}`]).values.get(name)).toEqual(value);
      if (typeof value !== 'boolean')
        expect(parseControllerFlags([`--${name}`, text]).values.get(name)).toEqual(value);
      if (c.bad) {
        const [badText, why] = c.bad;
        let message = '';
        try {
          parseControllerFlags([`--${name}=${badText}`]);
        } catch (err: unknown) {
          message = err instanceof Error ? err.message : '';
        }
        expect(message).toContain(`invalid value "${badText}" for flag --${name}: `);
        expect(message).toMatch(why);
        expect(message).toContain('(default ');
      }
    });
  }

  it('treats a bare boolean flag as true and never consumes the next argument', () => {
    const p = parseControllerFlags(['--extensions', '--leader-elect=false']);
    expect(p.values.get('extensions')).toBe(true);
    expect(p.values.get('leader-elect')).toBe(false);
  });

  it('rejects unknown flags with a suggestion, positional arguments, and missing values', () => {
    expect(() => parseControllerFlags(['--kube-api-bursts=3'])).toThrow(
      /unknown flag --kube-api-bursts; did you mean --kube-api-burst\?/,
    );
    expect(() => parseControllerFlags(['--frobnicate'])).toThrow(
      /^unknown flag --frobnicate \(run agent-sandbox controller --help/,
    );
    expect(() => parseControllerFlags(['sandbox'])).toThrow(/unexpected argument "sandbox"/);
    expect(() => parseControllerFlags(['--kube-api-qps'])).toThrow(
      /flag --kube-api-qps needs a value \(default -1\)/,
    );
  });

  it("warns like upstream about workers against the client's limits, and about ignored flags", () => {
    expect(parseControllerFlags(['--sandbox-concurrent-workers=1000']).warnings[0]).toMatch(
      /add up to 1052 \(more than 1000\)/,
    );
    expect(parseControllerFlags(['--kube-api-qps=5', '--kube-api-burst=20']).warnings[0]).toMatch(
      /workers \(152\) exceed --kube-api-burst \(20\)/,
    );
    expect(parseControllerFlags(['--enable-pprof']).warnings).toEqual([
      '--enable-pprof is accepted for compatibility but ignored (not implemented yet)',
    ]);
    expect(parseControllerFlags(['--enable-pprof=false']).warnings).toEqual([]);
  });

  it('reads --controllers as *, none (also empty) or a de-duplicated comma list', () => {
    const value = (text: string) =>
      parseControllerFlags([`--controllers=${text}`]).values.get('controllers');
    expect(value('*')).toBe('*');
    expect(value('none')).toBe('none');
    expect(value('')).toBe('none');
    expect(value(' , ')).toBe('none');
    expect(value('sandboxclaim, sandbox,sandboxclaim')).toBe('sandboxclaim,sandbox');
    expect(selectedControllers('*')).toEqual(CONTROLLER_NAMES);
    expect(selectedControllers('none')).toEqual([]);
    expect(selectedControllers('sandboxclaim,sandbox')).toEqual(['sandboxclaim', 'sandbox']);
    expect(() => parseControllerFlags(['--controllers=none,sandbox'])).toThrow(
      /--controllers: "none" cannot be combined with controller names/,
    );
    expect(() => parseControllerFlags(['--controllers=*,sandbox'])).toThrow(
      /"\*" cannot be combined/,
    );
    expect(controllerHelp()).toMatch(/--controllers <value> +agent-sandbox extension: .*none/);
  });

  it('recognises --help and -h', () => {
    expect(parseControllerFlags(['--help']).help).toBe(true);
    expect(parseControllerFlags(['-h']).help).toBe(true);
    const help = controllerHelp();
    for (const f of CONTROLLER_FLAGS) expect(help).toContain(`--${f.name}`);
  });

  it("parses Go's booleans and durations", () => {
    for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) expect(parseBool(t)).toBe(true);
    for (const t of ['0', 'f', 'F', 'FALSE', 'false', 'False']) expect(parseBool(t)).toBe(false);
    expect(parseDurationMs('1h2m3s4ms')).toBe(3_723_004);
    expect(parseDurationMs('1.5s')).toBe(1500);
    expect(parseDurationMs('-2s')).toBe(-2000);
    expect(parseDurationMs('0')).toBe(0);
    expect(() => parseDurationMs('')).toThrow(/not a duration/);
    expect(() => parseDurationMs('3d')).toThrow(/not a duration/);
  });
});
