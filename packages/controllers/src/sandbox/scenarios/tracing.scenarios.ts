// Spec §19.2 / §11.2 step 4 end to end: `ReconcileSandbox` continues the trace named by the
// Sandbox's `opentelemetry.io/trace-context` annotation, has the children `reconcilePVCs` and
// `reconcilePod` (Pod status events `NewPodStatusObserved` / `ExistingPodStatusObserved`), records
// errors with status ERROR, ignores a malformed annotation, and stamps its own trace context on a
// Sandbox that has none.
import { Annotations } from '@agent-sandbox/api';
import type { v1beta1 } from '@agent-sandbox/api';
import { PERSISTENT_VOLUME_CLAIMS } from '@agent-sandbox/kube';
import type { KubeObject, PersistentVolumeClaim } from '@agent-sandbox/kube-types';
import { SpanStatusCode } from '@opentelemetry/api';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  RecordingTracer,
  eventually,
  getSandbox,
  markPodRunning,
  openScenarioWorld,
  pokeAndSettle,
  scriptedSandbox,
  waitForPod,
  type RecordedSpan,
  type ScenarioWorld,
} from '../../testing/harness.ts';
import { SANDBOXES } from '../sandbox-reconciler.ts';

type Template = NonNullable<v1beta1.SandboxSpec['volumeClaimTemplates']>[number];
const PVC_SPEC = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };

/** A random remote parent, as a client that created the Sandbox inside a trace would send. */
function remoteParent(): { traceId: string; spanId: string; annotation: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return {
    traceId,
    spanId,
    annotation: JSON.stringify({ traceparent: `00-${traceId}-${spanId}-01` }),
  };
}

export function defineTracingScenarios(target: TestTarget): void {
  describe(`Sandbox tracing §19.2 (${target})`, () => {
    let world: ScenarioWorld;
    /** The default tracer: the global no-op one, as the CLI without --enable-tracing. */
    let untraced: ScenarioWorld;
    /** The untraced controller's log records (debug and up). */
    const untracedLog: { level: number; msg: string; [k: string]: unknown }[] = [];
    const logger = pino(
      { level: 'debug' },
      {
        write: (line: string) =>
          void untracedLog.push(JSON.parse(line) as (typeof untracedLog)[number]),
      },
    );
    const tracer = new RecordingTracer();
    beforeAll(async () => {
      [world, untraced] = await Promise.all([
        openScenarioWorld(target, { tracer }),
        openScenarioWorld(target, { logger }),
      ]);
    });
    afterAll(async () => {
      await Promise.all([world?.close(), untraced?.close()]);
    });

    /** Ended `ReconcileSandbox` spans of Sandbox `name` matching `check`, in start order. */
    const reconcileSpans = (name: string, check: (s: RecordedSpan) => boolean = () => true) =>
      tracer.spans.filter(
        (s) =>
          s.name === 'ReconcileSandbox' &&
          s.ended &&
          s.attributes['sandbox.name'] === name &&
          check(s),
      );
    const child = (parent: RecordedSpan, name: string) =>
      tracer.childrenOf(parent).find((s) => s.name === name);

    describe.concurrent('spans', () => {
      it('continues the trace in the annotation, with reconcilePVCs and reconcilePod children', async () => {
        const { client, ns } = world;
        const parent = remoteParent();
        const s = scriptedSandbox(ns, 'traced');
        s.metadata.annotations = { [Annotations.TraceContext]: parent.annotation };
        await client.create(SANDBOXES, s);
        const pod = await waitForPod(client, ns, 'traced');

        const creating = await eventually(
          () =>
            reconcileSpans('traced', (r) => {
              const p = child(r, 'reconcilePod');
              return p?.events.some((e) => e.name === 'NewPodStatusObserved') === true;
            })[0],
        );
        expect(creating.traceId).toBe(parent.traceId);
        expect(creating.parentSpanId).toBe(parent.spanId);
        expect(tracer.childrenOf(creating).map((c) => c.name)).toEqual([
          'reconcilePVCs',
          'reconcilePod',
        ]);
        expect(child(creating, 'reconcilePod')?.events).toEqual([
          {
            name: 'NewPodStatusObserved',
            attributes: { 'pod.Name': 'traced', 'pod.Phase': pod.status?.phase ?? '' },
          },
        ]);
        expect(child(creating, 'reconcilePVCs')?.status.code).toBe(SpanStatusCode.UNSET);

        // The Pod changes; the next pass observes the existing Pod in the same trace.
        await markPodRunning(client, ns, 'traced');
        const observing = await eventually(
          () =>
            reconcileSpans(
              'traced',
              (r) =>
                child(r, 'reconcilePod')?.events.some(
                  (e) =>
                    e.name === 'ExistingPodStatusObserved' &&
                    e.attributes['pod.Phase'] === 'Running',
                ) === true,
            )[0],
        );
        expect(observing.traceId).toBe(parent.traceId);
        expect(observing.parentSpanId).toBe(parent.spanId);
        expect(child(observing, 'reconcilePod')?.events).toEqual([
          {
            name: 'ExistingPodStatusObserved',
            attributes: { 'pod.Name': 'traced', 'pod.Phase': 'Running' },
          },
        ]);
        // The client's annotation is kept as it is, and never reaches the Pod.
        const after = await getSandbox(client, ns, 'traced');
        expect(after.metadata.annotations?.[Annotations.TraceContext]).toBe(parent.annotation);
        expect(pod.metadata.annotations?.[Annotations.TraceContext]).toBeUndefined();
      });

      it('stamps its own trace context on a Sandbox without one, and later passes join that trace', async () => {
        const { client, ns } = world;
        await client.create(SANDBOXES, scriptedSandbox(ns, 'stamped'));
        const stamped = await eventually(async () => {
          const s = await getSandbox(client, ns, 'stamped');
          return s.metadata.annotations?.[Annotations.TraceContext];
        });
        // The write happens inside the first pass; its span ends when the pass does.
        const first = await eventually(() => reconcileSpans('stamped')[0]);
        expect(first.parentSpanId).toBeUndefined();
        expect(JSON.parse(stamped)).toEqual({
          traceparent: `00-${first.traceId}-${first.spanId}-01`,
        });

        await pokeAndSettle(world, 'stamped');
        const later = reconcileSpans('stamped').at(-1);
        expect(later).not.toBe(first);
        expect(later?.traceId).toBe(first.traceId);
        expect(later?.parentSpanId).toBe(first.spanId);
        // Every pass after the first joined it, even one that read the Sandbox before the stamp
        // reached the cache.
        const rest = reconcileSpans('stamped').slice(1);
        expect(rest.map((r) => `${r.traceId}/${r.parentSpanId}`)).toEqual(
          rest.map(() => `${first.traceId}/${first.spanId}`),
        );
        // Stamped once: the value the first pass wrote stays.
        const after = await getSandbox(client, ns, 'stamped');
        expect(after.metadata.annotations?.[Annotations.TraceContext]).toBe(stamped);
        const pod = await waitForPod(client, ns, 'stamped');
        expect(pod.metadata.annotations?.[Annotations.TraceContext]).toBeUndefined();
      });

      it('with tracing off, writes no annotation and leaves a client one alone', async () => {
        const { client, ns } = untraced;
        const parent = remoteParent();
        const withOne = scriptedSandbox(ns, 'given');
        withOne.metadata.annotations = { [Annotations.TraceContext]: parent.annotation };
        await Promise.all([
          client.create(SANDBOXES, scriptedSandbox(ns, 'bare')),
          client.create(SANDBOXES, withOne),
        ]);
        await Promise.all(['bare', 'given'].map((name) => waitForPod(client, ns, name)));
        const [bare, given] = await Promise.all(
          ['bare', 'given'].map((name) => pokeAndSettle(untraced, name)),
        );
        expect(bare?.metadata.annotations?.[Annotations.TraceContext]).toBeUndefined();
        expect(given?.metadata.annotations?.[Annotations.TraceContext]).toBe(parent.annotation);
        const bareNow = await getSandbox(client, ns, 'bare');
        const givenNow = await getSandbox(client, ns, 'given');
        expect(bareNow.metadata.annotations?.[Annotations.TraceContext]).toBeUndefined();
        expect(givenNow.metadata.annotations?.[Annotations.TraceContext]).toBe(parent.annotation);
      });

      it('logs a malformed annotation at debug, naming the Sandbox and the reason', async () => {
        const { client, ns } = untraced;
        const s = scriptedSandbox(ns, 'garbled');
        s.metadata.annotations = { [Annotations.TraceContext]: 'traceparent=00-abc' };
        await client.create(SANDBOXES, s);
        await waitForPod(client, ns, 'garbled');
        const line = await eventually(() =>
          untracedLog.find((l) => l.name === 'garbled' && /malformed trace-context/.test(l.msg)),
        );
        expect(line).toMatchObject({
          level: 20,
          namespace: ns,
          annotation: Annotations.TraceContext,
          value: 'traceparent=00-abc',
          reason: 'not JSON; want {"traceparent":"00-…"}',
        });
      });

      it('ignores a malformed annotation: a new trace, the reconcile goes on, the value is kept', async () => {
        const { client, ns } = world;
        const s = scriptedSandbox(ns, 'malformed');
        s.metadata.annotations = { [Annotations.TraceContext]: '{"traceparent":"00-not-a-trace"}' };
        await client.create(SANDBOXES, s);
        await waitForPod(client, ns, 'malformed');
        const span = await eventually(() => reconcileSpans('malformed')[0]);
        expect(span.parentSpanId).toBeUndefined();
        expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
        expect(tracer.childrenOf(span).map((c) => c.name)).toEqual([
          'reconcilePVCs',
          'reconcilePod',
        ]);
        const after = await getSandbox(client, ns, 'malformed');
        expect(after.metadata.annotations?.[Annotations.TraceContext]).toBe(
          '{"traceparent":"00-not-a-trace"}',
        );
      });

      it('records a PVC refusal on reconcilePVCs and ReconcileSandbox with status ERROR', async () => {
        const { client, ns } = world;
        await client.create(PERSISTENT_VOLUME_CLAIMS, {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name: 'data-pvcfail', namespace: ns, labels: { app: 'other' } },
          spec: PVC_SPEC,
        } as PersistentVolumeClaim & KubeObject);
        const template = { metadata: { name: 'data' }, spec: PVC_SPEC } as Template;
        await client.create(
          SANDBOXES,
          scriptedSandbox(ns, 'pvcfail', { volumeClaimTemplates: [template] }),
        );
        const failed = await eventually(
          () => reconcileSpans('pvcfail', (r) => r.status.code === SpanStatusCode.ERROR)[0],
        );
        const pvcs = child(failed, 'reconcilePVCs');
        expect(pvcs?.status.code).toBe(SpanStatusCode.ERROR);
        expect(pvcs?.status.message).toContain('data-pvcfail');
        expect(pvcs?.events.map((e) => e.name)).toEqual(['exception']);
        expect(failed.status.message).toBe(pvcs?.status.message);
        expect(child(failed, 'reconcilePod')?.status.code).toBe(SpanStatusCode.UNSET);
      });
    });
  });
}
