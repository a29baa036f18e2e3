import { describe, expect, it } from 'vitest';
import {
  activeProbes,
  containerFlags,
  initialProbeState,
  observe,
  probeHandler,
  probeTiming,
  unhealthy,
  type ProbeStates,
} from './probe-state.ts';

describe('probe state', () => {
  it('applies kube defaults', () => {
    expect(probeTiming({ exec: { command: ['true'] } })).toEqual({
      initialDelayMs: 0,
      periodMs: 10_000,
      timeoutMs: 1000,
      successThreshold: 1,
      failureThreshold: 3,
    });
    expect(
      probeTiming({ periodSeconds: 2, initialDelaySeconds: 5, failureThreshold: 1 }),
    ).toMatchObject({
      initialDelayMs: 5000,
      periodMs: 2000,
      failureThreshold: 1,
    });
  });

  it('names the field of a probe without exactly one handler', () => {
    expect(() => probeHandler({}, 'containers[app].livenessProbe')).toThrow(
      'containers[app].livenessProbe: exactly one of exec, httpGet, tcpSocket or grpc must be set (found none)',
    );
    expect(() =>
      probeHandler({ exec: { command: ['true'] }, tcpSocket: { port: 1 } }, 'x'),
    ).toThrow('found exec, tcpSocket');
    expect(() => probeHandler({ grpc: { port: 1 } }, 'x')).toThrow(
      'x.grpc: gRPC probes are not supported',
    );
    expect(probeHandler({ httpGet: { port: 80 } }, 'x')).toBe('httpGet');
  });

  it('flips readiness only after successThreshold successes and failureThreshold failures', () => {
    const t = probeTiming({ successThreshold: 2, failureThreshold: 2 });
    let s = initialProbeState('readiness');
    expect(s.result).toBe(false);
    s = observe(s, true, t);
    expect(s.result).toBe(false);
    s = observe(s, true, t);
    expect(s.result).toBe(true);
    s = observe(s, false, t);
    expect(s.result).toBe(true);
    s = observe(s, true, t); // the failure run is broken
    s = observe(s, false, t);
    expect(s.result).toBe(true);
    s = observe(s, false, t);
    expect(s).toMatchObject({ result: false, failedOut: true });
  });

  it('kills on liveness failures only after failureThreshold in a row', () => {
    const t = probeTiming({ failureThreshold: 3 });
    let states: ProbeStates = { liveness: initialProbeState('liveness') };
    expect(containerFlags(states)).toEqual({ started: true, ready: true });
    for (const ok of [false, false, true, false, false]) {
      states = { liveness: observe(states.liveness ?? initialProbeState('liveness'), ok, t) };
      expect(unhealthy(states)).toBeUndefined();
    }
    states = { liveness: observe(states.liveness ?? initialProbeState('liveness'), false, t) };
    expect(unhealthy(states)).toBe('liveness');
  });

  it('holds liveness and readiness back until the startup probe passes', () => {
    const t = probeTiming({ failureThreshold: 2 });
    let states: ProbeStates = {
      startup: initialProbeState('startup'),
      liveness: initialProbeState('liveness'),
      readiness: initialProbeState('readiness'),
    };
    expect(activeProbes(states)).toEqual(['startup']);
    expect(containerFlags(states)).toEqual({ started: false, ready: false });
    states = {
      ...states,
      startup: observe(states.startup ?? initialProbeState('startup'), true, t),
    };
    expect(activeProbes(states)).toEqual(['liveness', 'readiness']);
    expect(containerFlags(states)).toEqual({ started: true, ready: false });
    states = {
      ...states,
      readiness: observe(states.readiness ?? initialProbeState('readiness'), true, t),
    };
    expect(containerFlags(states)).toEqual({ started: true, ready: true });
  });

  it('kills when the startup probe fails failureThreshold times before passing', () => {
    const t = probeTiming({ failureThreshold: 2 });
    let s = observe(initialProbeState('startup'), false, t);
    expect(unhealthy({ startup: s })).toBeUndefined();
    s = observe(s, false, t);
    expect(unhealthy({ startup: s })).toBe('startup');
  });
});
