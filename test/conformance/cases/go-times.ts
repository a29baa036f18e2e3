// Times as kube-apiserver's Go round trip of a built-in object writes them: metav1.Time in whole
// seconds (fraction dropped, offsets as Z), metav1.MicroTime with six fractional digits; custom
// resources are stored as sent.
import { nsPath, observe, type ConformanceCase } from '../case.ts';
import { NO_SCHEDULER, V1, createPod, pod, waitForDefaultServiceAccount } from './pods.ts';
import type { HttpResult } from '../target.ts';

type Json = Record<string, unknown>;

const MERGE = 'application/merge-patch+json';
const AT = '2026-01-02T03:04:05.678Z';
const AT_OFFSET = '2026-01-02T05:04:05.123456789+02:00';

function statusOf(res: HttpResult): unknown {
  const body = res.body as Json;
  return body['kind'] === 'Status' ? observe(res) : body['status'];
}

export const GO_TIME_CASES: ConformanceCase[] = [
  {
    name: 'go times: a Pod status keeps metav1.Time values to the whole second, in UTC',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      await createPod(t, ns, pod('a', { schedulerName: NO_SCHEDULER }));
      const path = `${nsPath(V1, ns, 'pods', 'a')}/status`;
      const running = { running: { startedAt: AT_OFFSET } };
      const terminated = { terminated: { exitCode: 1, startedAt: AT, finishedAt: AT_OFFSET } };
      const res = await t.request('PATCH', path, {
        contentType: MERGE,
        body: {
          status: {
            phase: 'Running',
            startTime: AT,
            containerStatuses: [
              {
                ...{ name: 'c', image: 'busybox:1.36', imageID: '', ready: true },
                ...{ restartCount: 0, started: true, state: running, lastState: terminated },
              },
            ],
          },
        },
      });
      rec('patched', statusOf(res));
      rec('read', statusOf(await t.request('GET', nsPath(V1, ns, 'pods', 'a'))));
    },
  },
  {
    name: 'go times: a Lease keeps six-digit MicroTimes in UTC and refuses other fractions',
    run: async (t, ns, rec) => {
      const leases = nsPath('/apis/coordination.k8s.io/v1', ns, 'leases');
      const lease = (name: string, renewTime: string): Json => ({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name },
        spec: { holderIdentity: 'x', renewTime },
      });
      const cases: [string, string][] = [
        ['micro', '2026-01-02T05:04:05.123456+02:00'],
        ['millis', AT],
        ['nanos', AT_OFFSET],
        ['seconds', '2026-01-02T03:04:05Z'],
      ];
      for (const [name, at] of cases) {
        const res = await t.request('POST', leases, { body: lease(name, at) });
        const body = res.body as Json;
        rec(name, body['kind'] === 'Status' ? observe(res) : body['spec']);
      }
    },
  },
  {
    name: 'go times: a custom resource keeps a date-time as it was sent',
    run: async (t, ns, rec) => {
      const res = await t.request(
        'POST',
        nsPath('/apis/agents.x-k8s.io/v1beta1', ns, 'sandboxes'),
        {
          body: {
            apiVersion: 'agents.x-k8s.io/v1beta1',
            kind: 'Sandbox',
            metadata: { name: 's' },
            spec: {
              podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] } },
              shutdownTime: AT_OFFSET,
            },
          },
        },
      );
      const body = res.body as Json;
      rec(
        'shutdownTime',
        body['kind'] === 'Status' ? observe(res) : (body['spec'] as Json)['shutdownTime'],
      );
    },
  },
];
