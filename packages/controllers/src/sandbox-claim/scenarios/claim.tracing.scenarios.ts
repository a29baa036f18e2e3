// Spec §12.2 steps 3–4 and §19.2 end to end with tracing on (a recording tracer in the manager):
// each claim pass runs in a ReconcileSandboxClaim span whose parent is the claim's trace-context
// annotation; a claim without one gets the pass's trace stamped beside controller-first-observed-at
// in the same write, and the Sandbox it creates carries that trace, so the Sandbox controller's
// passes join the claim's trace.
import { Annotations } from '@agent-sandbox/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import { SANDBOX_CLAIMS, type ClaimObject, type SandboxObj } from '../../extensions/resources.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import {
  createClaim,
  createPool,
  createTemplate,
  newClaim,
  newPool,
  newTemplate,
  where,
} from '../../testing/extensions.ts';
import {
  RecordingTracer,
  eventually,
  openScenarioWorld,
  type RecordedSpan,
  type ScenarioWorld,
} from '../../testing/harness.ts';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_SPAN = 'b7ad6b7169203331';
const TRACE = `{"traceparent":"00-${TRACE_ID}-${PARENT_SPAN}-01"}`;

const traceparent = (annotation: string | undefined): string[] =>
  (JSON.parse(annotation ?? '{}') as { traceparent?: string }).traceparent?.split('-') ?? [];

export function defineClaimTracingScenarios(target: TestTarget): void {
  describe(`SandboxClaim tracing (${target})`, () => {
    let world: ScenarioWorld;
    const tracer = new RecordingTracer();
    beforeAll(async () => {
      world = await openScenarioWorld(target, { extensions: {}, tracer });
      await createTemplate(world, newTemplate(world.ns, 'tpl'));
      await createPool(world, newPool(world.ns, 'cold', 'tpl', { replicas: 0 }));
    });
    afterAll(async () => {
      await world?.close();
    });
    const claimSpans = (name: string): RecordedSpan[] =>
      tracer.spans.filter(
        (s) => s.name === 'ReconcileSandboxClaim' && s.attributes['sandboxclaim.name'] === name,
      );
    const sandboxSpan = (name: string, traceId: string): Promise<RecordedSpan> =>
      eventually(() =>
        tracer.spans.find(
          (s) =>
            s.name === 'ReconcileSandbox' &&
            s.attributes['sandbox.name'] === name &&
            s.traceId === traceId,
        ),
      );

    describe.concurrent('TestSandboxClaimReconcile tracing', () => {
      it('TestSandboxClaimReconcile: a claim without trace context gets its first pass’s trace stamped with controller-first-observed-at; its Sandbox carries it and the Sandbox passes join that trace', async () => {
        await createClaim(world, newClaim(world.ns, 'untraced', 'cold'));
        const claim = await where<ClaimObject>(
          world,
          SANDBOX_CLAIMS,
          'untraced',
          (c) => c.metadata.annotations?.[Annotations.TraceContext] !== undefined,
        );
        const annotations = claim.metadata.annotations ?? {};
        expect(annotations[Annotations.ControllerFirstObservedAt]).toMatch(/Z$/);
        const [version, traceId, spanId, flags] = traceparent(
          annotations[Annotations.TraceContext],
        );
        expect([version, flags]).toEqual(['00', '01']);
        const first = claimSpans('untraced')[0];
        expect(first).toMatchObject({ traceId, spanId });
        expect(first?.parentSpanId).toBeUndefined();
        // Later passes are children of the stamped context, in the same trace.
        await eventually(() =>
          claimSpans('untraced').some((s) => s.parentSpanId === spanId && s.traceId === traceId)
            ? true
            : undefined,
        );
        const sandbox = await where<SandboxObj>(world, SANDBOXES, 'untraced', () => true);
        expect(sandbox.metadata.annotations?.[Annotations.TraceContext]).toBe(
          annotations[Annotations.TraceContext],
        );
        await sandboxSpan('untraced', traceId ?? '');
      });

      it('TestSandboxClaimReconcile: a claim with trace context keeps it; its passes are children of that span', async () => {
        const traced = newClaim(world.ns, 'traced', 'cold');
        traced.metadata.annotations = { [Annotations.TraceContext]: TRACE };
        await createClaim(world, traced);
        const claim = await where<ClaimObject>(
          world,
          SANDBOX_CLAIMS,
          'traced',
          (c) => c.metadata.annotations?.[Annotations.ControllerFirstObservedAt] !== undefined,
        );
        expect(claim.metadata.annotations?.[Annotations.TraceContext]).toBe(TRACE);
        const spans = claimSpans('traced');
        expect(spans.length).toBeGreaterThan(0);
        for (const s of spans)
          expect(s).toMatchObject({ traceId: TRACE_ID, parentSpanId: PARENT_SPAN });
        await sandboxSpan('traced', TRACE_ID);
      });
    });
  });
}
