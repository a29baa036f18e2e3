// §21.1 TestReconcilePVCs and "PVC name `<vct>-<sandbox>`".
import { describe, expect, it } from 'vitest';
import { nameHash } from '@agent-sandbox/api';
import type { PersistentVolumeClaim } from '@agent-sandbox/kube-types';
import { SANDBOX_UID, ownerRef, sandbox } from '../testing/builders.ts';
import { desiredPvcs, pvcAction, pvcActions } from './desired-pvcs.ts';

const TRACK = 'agents.x-k8s.io/sandbox-name-hash';
const s = sandbox('my-sandbox', (x) => {
  x.spec.volumeClaimTemplates = [
    {
      metadata: { name: 'data', labels: { tier: 'fast' }, annotations: { note: 'n' } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    },
    { metadata: { name: 'logs' }, spec: { accessModes: ['ReadWriteOnce'] } },
  ];
});
const template = s.spec.volumeClaimTemplates?.[0];
if (template === undefined) throw new Error('fixture');
const existing = (
  labels?: Record<string, string>,
  owner = ownerRef(SANDBOX_UID),
): PersistentVolumeClaim => ({
  metadata: {
    name: 'data-my-sandbox',
    namespace: 'default',
    ...(labels ? { labels } : {}),
    ownerReferences: owner ? [owner] : [],
  },
});

describe('TestReconcilePVCs', () => {
  it('create: name <vct>-<sandbox>, template labels + tracking label, annotations, spec, controller ref', () => {
    const [data, logs] = desiredPvcs(s);
    expect(data).toEqual({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: 'data-my-sandbox',
        namespace: 'default',
        labels: { tier: 'fast', [TRACK]: nameHash('my-sandbox') },
        annotations: { note: 'n' },
        ownerReferences: [ownerRef(SANDBOX_UID)],
      },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    expect(logs?.metadata?.name).toBe('logs-my-sandbox');
    expect(pvcAction(template, s, undefined).action).toBe('Create');
  });

  it('reuse owned', () => {
    expect(pvcAction(template, s, existing())).toEqual({ action: 'None', name: 'data-my-sandbox' });
  });

  it('refuse foreign', () => {
    const got = pvcAction(template, s, existing(undefined, ownerRef('other', 'StatefulSet', 'st')));
    expect(got.action === 'Error' && got.error.message).toBe(
      'PVC "data-my-sandbox" is owned by StatefulSet/st (UID: other), not by sandbox "my-sandbox"',
    );
  });

  it.each([
    ['adoptable', { 'agents.x-k8s.io/adoptable': 'true' }],
    ['legacy tracking label', { [TRACK]: nameHash('my-sandbox') }],
  ])('adopt unowned (%s): controller ref merge patch', (_n, labels) => {
    const pvc = existing(labels);
    pvc.metadata!.ownerReferences = [];
    expect(pvcAction(template, s, pvc)).toEqual({
      action: 'Adopt',
      name: 'data-my-sandbox',
      patch: { metadata: { ownerReferences: [ownerRef(SANDBOX_UID)] } },
    });
  });

  it('refuse without authorisation, and stop at the first error', () => {
    const pvc = existing({ [TRACK]: 'someone-else' });
    pvc.metadata!.ownerReferences = [];
    const got = pvcActions(s, new Map([['data-my-sandbox', pvc]]));
    expect(got).toHaveLength(1);
    expect(got[0]?.action === 'Error' && got[0].error.message).toContain(
      'cannot adopt unowned PVC "data-my-sandbox"',
    );
  });
});
