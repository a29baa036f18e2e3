import { describe, expect, it } from 'vitest';
import { isKubeletError } from '../errors.ts';
import { parseLogOptions, parseStreamingRoute, queryBool } from './request-options.ts';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const route = (path: string) => parseStreamingRoute(new URL(path, 'https://node'), NOW);
const fails = (fn: () => unknown, code: string, message: RegExp) => {
  try {
    fn();
  } catch (err: unknown) {
    expect(isKubeletError(err) && err.code).toBe(code);
    expect((err as Error).message).toMatch(message);
    return;
  }
  throw new Error('expected a KubeletError');
};

describe('streaming routes', () => {
  it('reads kube booleans', () => {
    const q = new URLSearchParams('a=&b=0&c=FALSE&d=1&e=yes');
    expect(['a', 'b', 'c', 'd', 'e', 'f'].map((n) => queryBool(q, n))).toEqual([
      true,
      false,
      false,
      true,
      true,
      false,
    ]);
  });

  it('parses exec with the kubelet names and the API names', () => {
    expect(
      route('/exec/ns/web/uid-1/app?command=sh&command=-c&command=echo+hi&input=1&output=1&tty=1'),
    ).toEqual({
      kind: 'exec',
      target: { namespace: 'ns', pod: 'web', uid: 'uid-1', container: 'app' },
      command: ['sh', '-c', 'echo hi'],
      streams: { stdin: true, stdout: true, stderr: false, tty: true },
    });
    expect(route('/attach/ns/web/app?stdout=true&stderr=true')).toMatchObject({
      kind: 'attach',
      target: { namespace: 'ns', pod: 'web', container: 'app' },
      streams: { stdin: false, stdout: true, stderr: true, tty: false },
    });
  });

  it('refuses exec without streams or command, and unknown paths', () => {
    fails(
      () => route('/exec/ns/web/app?command=ls'),
      'InvalidArgument',
      /at least 1 of stdin, stdout, stderr/,
    );
    fails(() => route('/exec/ns/web/app?output=1'), 'InvalidArgument', /at least one command/);
    fails(() => route('/run/ns/web/app'), 'NotFound', /no streaming endpoint at \/run/);
    fails(() => route('/exec/ns'), 'NotFound', /no streaming endpoint/);
  });

  it('parses port-forward ports, repeated or comma-separated', () => {
    expect(route('/portForward/ns/web?ports=80,8080&ports=9000')).toEqual({
      kind: 'portForward',
      target: { namespace: 'ns', pod: 'web' },
      ports: [80, 8080, 9000],
    });
    fails(() => route('/portForward/ns/web?ports=0'), 'InvalidArgument', /invalid port "0"/);
  });

  it('validates log options like PodLogOptions', () => {
    const q = (s: string) => parseLogOptions(new URLSearchParams(s), NOW);
    expect(q('follow=true&tailLines=5&limitBytes=10&sinceSeconds=60&timestamps=true')).toEqual({
      follow: true,
      previous: false,
      timestamps: true,
      tailLines: 5,
      limitBytes: 10,
      sinceMs: NOW - 60_000,
    });
    expect(q('sinceTime=2026-12-01T11:00:00Z').sinceMs).toBe(NOW - 3_600_000);
    fails(
      () => q('tailLines=-1'),
      'InvalidArgument',
      /tailLines: Invalid value: -1: must be greater than or equal to 0/,
    );
    fails(
      () => q('limitBytes=0'),
      'InvalidArgument',
      /limitBytes: Invalid value: 0: must be greater than 0/,
    );
    fails(() => q('sinceSeconds=0'), 'InvalidArgument', /sinceSeconds/);
    fails(
      () => q('sinceSeconds=5&sinceTime=2026-12-01T11:00:00Z'),
      'InvalidArgument',
      /at most one of/,
    );
    fails(
      () => q('sinceTime=yesterday'),
      'InvalidArgument',
      /sinceTime: invalid value "yesterday"/,
    );
    fails(() => q('tailLines=1.5'), 'InvalidArgument', /tailLines: invalid value "1.5"/);
  });
});
