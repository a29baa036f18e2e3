// The embedded mode's audit log (DIR/audit.log): every write with who, verb, resource,
// namespace/name, response code and timestamps — the controller manager's under its own user —
// refusals with their decision, Pod Security's audit annotation, and never a Secret's data or a
// token. `audit: false` keeps none.
import { SANDBOXES } from '@agent-sandbox/controllers';
import type { AuditEvent } from '@agent-sandbox/apiserver';
import { KubeClient, NAMESPACES, PODS, SECRETS } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { dataDirPaths, startEmbedded } from './index.ts';

const SECRET_VALUE = 'hunter2-do-not-log';

function dataDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'agent-sandbox-audit-')), 'state');
}

function events(path: string): AuditEvent[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEvent);
}

describe('the audit log', () => {
  it('records writes: who, verb, object, code; refusals; never secret data or tokens', async () => {
    const dir = dataDir();
    const handle = await startEmbedded({
      apiServer: { dataDir: dir, port: 0 },
      controllerManager: { logger: pino({ level: 'silent' }), controllers: ['sandbox'] },
    });
    const admin = new KubeClient({ config: handle.apiServer.kubeConfig });
    let token: string;
    try {
      await admin.create(NAMESPACES, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'audited', labels: { 'pod-security.kubernetes.io/audit': 'restricted' } },
      });
      await admin.create(SECRETS, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'creds', namespace: 'audited' },
        stringData: { password: SECRET_VALUE },
      } as KubeObject);
      await admin.create(SANDBOXES, {
        apiVersion: 'agents.x-k8s.io/v1beta1',
        kind: 'Sandbox',
        metadata: { name: 'box', namespace: 'audited' },
        spec: { podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox' }] } } },
      } as KubeObject);
      // The controller creates the Sandbox's Pod, as itself.
      await expect
        .poll(async () => (await admin.list(PODS, 'audited')).items.length, { timeout: 20_000 })
        .toBe(1);
      const issued = (await admin.request(
        'POST',
        '/api/v1/namespaces/audited/serviceaccounts/default/token',
        { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
      )) as { status: { token: string } };
      token = issued.status.token;
      const sandbox = new KubeClient({ config: { ...handle.apiServer.kubeConfig, token } });
      await expect(sandbox.delete(SECRETS, 'audited', 'creds')).rejects.toMatchObject({
        statusCode: 403,
      });
      await sandbox.close();
    } finally {
      await admin.close();
      await handle.stop();
    }
    const path = dataDirPaths(handle.apiServer.dataDir).audit;
    const log = events(path);
    const text = readFileSync(path, 'utf8');
    const secretCreate = log.find((e) => e.objectRef.resource === 'secrets' && e.verb === 'create');
    expect(secretCreate).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      stage: 'ResponseComplete',
      verb: 'create',
      requestURI: '/api/v1/namespaces/audited/secrets',
      user: { username: 'agent-sandbox:admin', groups: ['system:masters', 'system:authenticated'] },
      objectRef: { resource: 'secrets', namespace: 'audited', name: 'creds', apiVersion: 'v1' },
      responseStatus: { code: 201 },
      annotations: { 'authorization.k8s.io/decision': 'allow' },
    });
    expect(Date.parse(secretCreate?.stageTimestamp ?? '')).toBeGreaterThanOrEqual(
      Date.parse(secretCreate?.requestReceivedTimestamp ?? ''),
    );
    const podCreate = log.find((e) => e.objectRef.resource === 'pods' && e.verb === 'create');
    expect(podCreate).toMatchObject({
      user: { username: 'agent-sandbox:controller-manager' },
      objectRef: { namespace: 'audited', name: 'box' },
      responseStatus: { code: 201 },
      annotations: {
        'pod-security.kubernetes.io/audit-violations': expect.stringContaining(
          'would violate PodSecurity "restricted:latest"',
        ),
      },
    });
    expect(
      log.find((e) => e.verb === 'delete' && e.objectRef.resource === 'secrets'),
    ).toMatchObject({
      user: { username: 'system:serviceaccount:audited:default' },
      objectRef: { name: 'creds' },
      responseStatus: { code: 403 },
      annotations: { 'authorization.k8s.io/decision': 'forbid' },
    });
    // Reads are not recorded; no body is: neither the Secret's value nor any token.
    expect(log.every((e) => !['get', 'list', 'watch'].includes(e.verb))).toBe(true);
    expect(text).not.toContain(SECRET_VALUE);
    expect(text).not.toContain(Buffer.from(SECRET_VALUE).toString('base64'));
    expect(text).not.toContain(token);
    expect(text).not.toContain(handle.apiServer.kubeConfig.token ?? 'no admin token');
  }, 60_000);

  it('keeps no log when turned off', async () => {
    const dir = dataDir();
    const handle = await startEmbedded({ apiServer: { dataDir: dir, port: 0, audit: false } });
    const admin = new KubeClient({ config: handle.apiServer.kubeConfig });
    await admin.create(NAMESPACES, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'x' },
    });
    await admin.close();
    await handle.stop();
    expect(existsSync(dataDirPaths(handle.apiServer.dataDir).audit)).toBe(false);
  });
});
