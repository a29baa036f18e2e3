// The same API-behaviour cases against our embedded API server and the real kube-apiserver of
// the control-plane harness (issue 4): status codes, Status reasons, messages and causes,
// returned objects (uids, timestamps and resourceVersions normalized) and watch event sequences
// must agree, or the difference is listed in KNOWN_DIFFERENCES with its reason.
import { convert } from '@agent-sandbox/api';
import {
  readOurCrds,
  startTestApiServer,
  type TestApiServer,
} from '@agent-sandbox/apiserver/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCluster } from '../support/cluster.ts';
import { runCase, type ConformanceCase } from './case.ts';
import { DISCOVERY_CASES } from './cases/discovery.ts';
import { ENDPOINTSLICE_CASES } from './cases/endpointslices.ts';
import { GO_TIME_CASES } from './cases/go-times.ts';
import { HOSTILE_CASES, PARAMETER_CASES } from './cases/hostile.ts';
import { LIFECYCLE_CASES } from './cases/lifecycle.ts';
import { PER_KIND_CASES } from './cases/per-kind.ts';
import { KIND_DEFAULT_CASES, POD_DEFAULT_CASES } from './cases/pod-defaults.ts';
import { POD_VALIDATION_CASES } from './cases/pod-validation.ts';
import { POD_SECURITY_CASES } from './cases/pod-security.ts';
import { POD_DELETION_CASES } from './cases/pod-deletion.ts';
import { POD_CASES } from './cases/pods.ts';
import { RBAC_NAME_CASES } from './cases/rbac-names.ts';
import { RBAC_CASES } from './cases/rbac.ts';
import { SERVICE_ACCOUNT_CASES } from './cases/service-accounts.ts';
import { SERVICE_CASES } from './cases/services.ts';
import { TABLE_CASES } from './cases/tables.ts';
import { VALIDATION_CASES } from './cases/validation.ts';
import { KNOWN_DIFFERENCES } from './known-differences.ts';
import { targetFor, type Target } from './target.ts';

const CASES: ConformanceCase[] = [
  ...DISCOVERY_CASES,
  ...PER_KIND_CASES,
  ...VALIDATION_CASES,
  ...LIFECYCLE_CASES,
  ...TABLE_CASES,
  ...SERVICE_CASES,
  ...SERVICE_ACCOUNT_CASES,
  ...ENDPOINTSLICE_CASES,
  ...POD_CASES,
  ...GO_TIME_CASES,
  ...POD_DELETION_CASES,
  ...POD_VALIDATION_CASES,
  ...POD_DEFAULT_CASES,
  ...KIND_DEFAULT_CASES,
  ...HOSTILE_CASES,
  ...PARAMETER_CASES,
  ...RBAC_CASES,
  ...RBAC_NAME_CASES,
  ...POD_SECURITY_CASES,
];

async function installCrds(t: Target): Promise<void> {
  for (const crd of readOurCrds()) {
    const res = await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: crd,
    });
    if (res.status !== 201 && res.status !== 409)
      throw new Error(
        `${t.name}: install CRD ${crd.metadata.name}: ${res.status} ${JSON.stringify(res.body)}`,
      );
  }
  for (const crd of readOurCrds()) {
    for (let i = 0; i < 100; i++) {
      const res = await t.request(
        'GET',
        `/apis/${crd.spec.group}/v1beta1/${crd.spec.names.plural}`,
      );
      if (res.status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function freshNamespace(t: Target, name: string): Promise<void> {
  const res = await t.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
  if (res.status !== 201)
    throw new Error(
      `${t.name}: create namespace ${name}: ${res.status} ${JSON.stringify(res.body)}`,
    );
  // kube-controller-manager (and the embedded server's publisher) puts kube-root-ca.crt into new
  // namespaces asynchronously (slowly on a loaded machine); wait for it so ConfigMap lists and
  // watches see a settled namespace (see normalize.ts).
  for (let i = 0; i < 600; i++) {
    const cm = await t.request('GET', `/api/v1/namespaces/${name}/configmaps/kube-root-ca.crt`);
    if (cm.status === 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('conformance: embedded API server vs kube-apiserver', () => {
  let embedded: TestApiServer;
  let targets: { embedded: Target; cluster: Target };
  const runId = Date.now().toString(36);
  const namespaces: string[] = [];

  beforeAll(async () => {
    // Our CRDs' v1alpha1 ⇄ v1beta1 converter, as `agent-sandbox apiserver` wires it; the cluster
    // reaches the same code through the harness's conversion webhook.
    // Over TLS, as kubectl sends service account tokens only over TLS (cases/rbac.ts).
    embedded = await startTestApiServer({
      convert: (obj, to) => ({ ...convert(obj, to) }),
      tls: true,
    });
    const cluster = await ensureCluster();
    targets = {
      embedded: targetFor('embedded', embedded.kubeconfigPath),
      cluster: targetFor('cluster', cluster.kubeconfig),
    };
    await installCrds(targets.embedded);
    await installCrds(targets.cluster);
  });

  afterAll(async () => {
    // Every namespace of this run, the extra ones some cases make (`<ns>-<n>`) included.
    const listed = await targets?.cluster.request('GET', '/api/v1/namespaces');
    const items = ((listed?.body as { items?: { metadata: { name: string } }[] }).items ?? []).map(
      (i) => i.metadata.name,
    );
    for (const ns of new Set([
      ...namespaces,
      ...items.filter((n) => n.startsWith(`conf-${runId}-`)),
    ]))
      await targets?.cluster.request('DELETE', `/api/v1/namespaces/${ns}`);
    await embedded?.close();
  });

  CASES.forEach((c, i) => {
    it(c.name, async () => {
      const ns = `conf-${runId}-${i}`;
      namespaces.push(ns);
      await freshNamespace(targets.embedded, ns);
      await freshNamespace(targets.cluster, ns);
      const real = await runCase(c, targets.cluster, ns);
      const ours = await runCase(c, targets.embedded, ns);
      const known = KNOWN_DIFFERENCES[c.name];
      if (known !== undefined) {
        console.log(`known difference in "${c.name}": ${known}`);
        expect(ours, 'the difference is gone: remove it from KNOWN_DIFFERENCES').not.toEqual(real);
        return;
      }
      expect(ours).toEqual(real);
    });
  });
});
