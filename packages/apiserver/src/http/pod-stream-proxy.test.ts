import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import type { KubeObject } from '../objects.ts';
import { nodeLocation, resolveContainer } from './pod-stream-proxy.ts';

function pod(containers: string[], init: string[] = []): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'team-a', uid: 'u-1' },
    spec: {
      nodeName: 'n1',
      containers: containers.map((name) => ({ name })),
      ...(init.length ? { initContainers: init.map((name) => ({ name })) } : {}),
    },
  };
}

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (err: unknown) {
    expect(err).toBeInstanceOf(ApiError);
    return (err as Error).message;
  }
  throw new Error('expected an ApiError');
}

describe('pod stream proxy', () => {
  it('picks the container as kube-apiserver does', () => {
    expect(resolveContainer(pod(['app']), null)).toBe('app');
    expect(resolveContainer(pod(['a', 'b'], ['init']), 'init')).toBe('init');
    expect(message(() => resolveContainer(pod(['a', 'b'], ['init']), null))).toBe(
      'a container name must be specified for pod web, choose one of: [a b] or one of the init containers: [init]',
    );
    expect(message(() => resolveContainer(pod(['app']), 'nope'))).toBe(
      'container nope is not valid for pod web',
    );
    expect(message(() => resolveContainer(pod([]), null))).toBe(
      'pod web does not have a container',
    );
  });

  it('maps subresources to the kubelet paths and parameter names', () => {
    const q = (s: string) => new URLSearchParams(s);
    expect(
      nodeLocation(
        'exec',
        pod(['app']),
        q('command=sh&command=-c&command=echo hi&stdin=true&stdout=true&tty=false'),
      ),
    ).toBe('/exec/team-a/web/u-1/app?command=sh&command=-c&command=echo+hi&input=1&output=1');
    expect(nodeLocation('attach', pod(['app']), q('container=app&stdout=1&stderr=true'))).toBe(
      '/attach/team-a/web/u-1/app?output=1&error=1',
    );
    expect(
      nodeLocation(
        'log',
        pod(['app']),
        q('follow=true&tailLines=3&insecureSkipTLSVerifyBackend=true'),
      ),
    ).toBe('/containerLogs/team-a/web/app?follow=true&tailLines=3');
    expect(nodeLocation('portforward', pod(['app']), q('ports=8080'))).toBe(
      '/portForward/team-a/web/u-1?ports=8080',
    );
  });
});
