// Runs the machine's real kubectl (1.32) against a recording loopback server and decodes what it
// sent: typed `kubectl create …` commands POST Kubernetes protobuf, and each body must decode to
// the object kubectl itself prints for `--dry-run=client -o json`, and re-encode to the same bytes.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject, PROTOBUF_MEDIA_TYPE } from './index.ts';
import { type CaptureServer, type RecordedRequest, startCaptureServer } from './kubectl-capture.ts';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';

/** kubectl 1.32's Go types print `creationTimestamp: null`; 1.36's omit it (omitzero). */
function withoutNullCreationTimestamp(obj: Record<string, unknown>): Record<string, unknown> {
  const metadata = { ...(obj.metadata as Record<string, unknown>) };
  if (metadata.creationTimestamp === null) delete metadata.creationTimestamp;
  return { ...obj, metadata };
}

describe.skipIf(!existsSync(KUBECTL))('bodies sent by the real kubectl', () => {
  let server: CaptureServer;
  let dir: string;
  let lastStdout = '';

  beforeAll(async () => {
    server = await startCaptureServer(KUBECTL);
    dir = mkdtempSync(join(tmpdir(), 'kubectl-files-'));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs kubectl, expects success, returns the single body-carrying request it made. */
  async function send(args: string[]): Promise<RecordedRequest> {
    const before = server.requests.length;
    const result = await server.kubectl(args);
    lastStdout = result.stdout;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const sent = server.requests.slice(before).filter((r) => r.body.length > 0);
    expect(sent).toHaveLength(1);
    return sent[0] as RecordedRequest;
  }

  /** kubectl's own JSON for the object (the same command with --dry-run=client -o json). */
  async function kubectlJson(args: string[]): Promise<Record<string, unknown>> {
    const result = await server.kubectl([...args, '--dry-run=client', '-o', 'json']);
    expect(result.code).toBe(0);
    return withoutNullCreationTimestamp(JSON.parse(result.stdout) as Record<string, unknown>);
  }

  async function expectProtobuf(
    args: string[],
    path: string,
    expected: Record<string, unknown>,
  ): Promise<void> {
    const req = await send(args);
    expect(req.method).toBe('POST');
    expect(req.path).toBe(path);
    expect(req.contentType).toBe(PROTOBUF_MEDIA_TYPE);
    expect(req.accept).toBe(`${PROTOBUF_MEDIA_TYPE},application/json`);
    const decoded = decodeProtobufObject(req.body);
    expect(decoded).toStrictEqual(expected);
    expect(JSON.stringify(decoded)).toBe(JSON.stringify(expected)); // key order too
    expect(Buffer.from(encodeProtobufObject(decoded)).toString('hex')).toBe(
      Buffer.from(req.body).toString('hex'),
    );
  }

  it('create configmap', async () => {
    const args = ['create', 'configmap', 'c1', '--from-literal=a=b', '--from-literal=z=y'];
    const expected = {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'c1' },
      data: { a: 'b', z: 'y' },
    };
    expect(await kubectlJson(args)).toStrictEqual(expected);
    await expectProtobuf(args, '/api/v1/namespaces/default/configmaps', expected);
    // kubectl takes our JSON answer to its protobuf request
    expect(lastStdout).toBe('configmap/c1 created\n');
  });

  it('create configmap with binary data (bytes map → base64)', async () => {
    const file = join(dir, 'blob.bin');
    writeFileSync(file, Uint8Array.of(0, 1, 2, 0xff, 0xfe));
    const args = ['create', 'configmap', 'c2', `--from-file=${file}`, '-n', 'other'];
    const expected = {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'c2', namespace: 'other' },
      binaryData: { 'blob.bin': 'AAEC//4=' },
    };
    expect(await kubectlJson(args)).toStrictEqual(expected);
    await expectProtobuf(args, '/api/v1/namespaces/other/configmaps', expected);
  });

  it('create namespace', async () => {
    const args = ['create', 'namespace', 'ns1'];
    const expected = {
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name: 'ns1' },
      spec: {},
      status: {},
    };
    expect(await kubectlJson(args)).toStrictEqual(expected);
    await expectProtobuf(args, '/api/v1/namespaces', expected);
  });

  it('create secret generic', async () => {
    const args = [
      ...['create', 'secret', 'generic', 's1', '--from-literal=password=hunter2'],
      '--type=kubernetes.io/basic-auth',
    ];
    const expected = {
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: 's1' },
      data: { password: Buffer.from('hunter2').toString('base64') },
      type: 'kubernetes.io/basic-auth',
    };
    expect(await kubectlJson(args)).toStrictEqual(expected);
    await expectProtobuf(args, '/api/v1/namespaces/default/secrets', expected);
  });

  it('create serviceaccount', async () => {
    const args = ['create', 'serviceaccount', 'sa1'];
    const expected = { kind: 'ServiceAccount', apiVersion: 'v1', metadata: { name: 'sa1' } };
    expect(await kubectlJson(args)).toStrictEqual(expected);
    await expectProtobuf(args, '/api/v1/namespaces/default/serviceaccounts', expected);
  });

  it('create service clusterip (int targetPort) and nodeport (named targetPort)', async () => {
    const clusterIP = ['create', 'service', 'clusterip', 'svc1', '--tcp=80:8080'];
    const expected = {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 'svc1', labels: { app: 'svc1' } },
      spec: {
        ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }],
        selector: { app: 'svc1' },
        type: 'ClusterIP',
      },
      status: { loadBalancer: {} },
    };
    expect(await kubectlJson(clusterIP)).toStrictEqual(expected);
    await expectProtobuf(clusterIP, '/api/v1/namespaces/default/services', expected);

    const nodePort = ['create', 'service', 'nodeport', 'np1', '--tcp=80:http', '--node-port=30080'];
    const expectedNodePort = {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 'np1', labels: { app: 'np1' } },
      spec: {
        ports: [
          { name: '80-http', protocol: 'TCP', port: 80, targetPort: 'http', nodePort: 30080 },
        ],
        selector: { app: 'np1' },
        type: 'NodePort',
      },
      status: { loadBalancer: {} },
    };
    expect(await kubectlJson(nodePort)).toStrictEqual(expectedNodePort);
    await expectProtobuf(nodePort, '/api/v1/namespaces/default/services', expectedNodePort);
  });

  it('create secret docker-registry', async () => {
    const args = [
      ...['create', 'secret', 'docker-registry', 'reg', '--docker-server=r.example.com'],
      ...['--docker-username=u', '--docker-password=p'],
    ];
    const expected = await kubectlJson(args);
    expect(expected.type).toBe('kubernetes.io/dockerconfigjson');
    await expectProtobuf(args, '/api/v1/namespaces/default/secrets', expected);
  });

  it('create service externalname and loadbalancer', async () => {
    const external = ['create', 'service', 'externalname', 'ext', '--external-name=example.com'];
    await expectProtobuf(
      external,
      '/api/v1/namespaces/default/services',
      await kubectlJson(external),
    );
    const lb = ['create', 'service', 'loadbalancer', 'lb', '--tcp=443:8443'];
    await expectProtobuf(lb, '/api/v1/namespaces/default/services', await kubectlJson(lb));
  });

  it('create token (TokenRequest on the serviceaccounts/token subresource)', async () => {
    const req = await send(['create', 'token', 'sa1', '--duration=1h', '--audience=api']);
    expect(req.path).toBe('/api/v1/namespaces/default/serviceaccounts/sa1/token');
    expect(req.contentType).toBe(PROTOBUF_MEDIA_TYPE);
    const decoded = decodeProtobufObject(req.body);
    expect(decoded).toStrictEqual({
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: {},
      spec: { audiences: ['api'], expirationSeconds: 3600, boundObjectRef: null },
      status: { token: '', expirationTimestamp: null },
    });
    expect(encodeProtobufObject(decoded)).toStrictEqual(req.body);
  });

  it('auth whoami (SelfSubjectReview)', async () => {
    const req = await send(['auth', 'whoami']);
    expect(req.path).toBe('/apis/authentication.k8s.io/v1/selfsubjectreviews');
    expect(req.contentType).toBe(PROTOBUF_MEDIA_TYPE);
    const decoded = decodeProtobufObject(req.body);
    expect(decoded).toStrictEqual({
      kind: 'SelfSubjectReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: {},
      status: { userInfo: {} },
    });
    expect(encodeProtobufObject(decoded)).toStrictEqual(req.body);
  });

  it('create -f sends JSON, not protobuf, even for built-in kinds (unstructured client)', async () => {
    const manifest = (doc: object): string => {
      const file = join(dir, 'manifest.json');
      writeFileSync(file, JSON.stringify(doc));
      return file;
    };
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'things', singular: 'thing', kind: 'Thing' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object' } },
          },
        ],
      },
    };
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' } };
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'f' }, data: { a: 'b' } };
    const inDefault = (doc: { metadata: object }) => ({
      ...doc,
      metadata: { ...doc.metadata, namespace: 'default' },
    });
    for (const [doc, path, sent] of [
      [crd, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd],
      [lease, '/apis/coordination.k8s.io/v1/namespaces/default/leases', inDefault(lease)],
      [cm, '/api/v1/namespaces/default/configmaps', inDefault(cm)],
    ] as const) {
      const req = await send(['create', '--validate=false', '-f', manifest(doc)]);
      expect(req.path).toBe(path);
      expect(req.contentType).toBe('application/json');
      expect(JSON.parse(Buffer.from(req.body).toString('utf8'))).toStrictEqual(sent);
    }
  });

  it('run and delete send JSON, not protobuf (dynamic clients)', async () => {
    const run = await send(['run', 'p', '--image=busybox']);
    expect(run.path).toBe('/api/v1/namespaces/default/pods');
    expect(run.contentType).toBe('application/json');
    expect(JSON.parse(Buffer.from(run.body).toString('utf8'))).toStrictEqual({
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { name: 'p', creationTimestamp: null, labels: { run: 'p' } },
      spec: {
        containers: [{ name: 'p', image: 'busybox', resources: {} }],
        restartPolicy: 'Always',
        dnsPolicy: 'ClusterFirst',
      },
      status: {},
    });
    const del = await send(['delete', 'configmap', 'c1']);
    expect(del.method).toBe('DELETE');
    expect(del.contentType).toBe('application/json');
    expect(JSON.parse(Buffer.from(del.body).toString('utf8'))).toStrictEqual({
      propagationPolicy: 'Background',
    });
  });
});
