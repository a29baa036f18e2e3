// Test support: a loopback HTTP server that records every request kubectl makes (body and content
// type) so tests can run the machine's real kubectl and decode exactly what it sent. Alone, it
// answers legacy discovery and echoes created objects back as JSON; with `upstream`, it is a
// recording proxy in front of a real server (our embedded one).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from './index.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string;
  accept: string;
  body: Uint8Array;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CaptureServer {
  url: string;
  requests: RecordedRequest[];
  /** Runs kubectl against the server with a throwaway kubeconfig and HOME. */
  kubectl(args: string[], stdin?: string): Promise<KubectlResult>;
  close(): Promise<void>;
}

const RESOURCES: [string, string, boolean][] = [
  ['configmaps', 'ConfigMap', true],
  ['endpoints', 'Endpoints', true],
  ['events', 'Event', true],
  ['namespaces', 'Namespace', false],
  ['persistentvolumeclaims', 'PersistentVolumeClaim', true],
  ['pods', 'Pod', true],
  ['secrets', 'Secret', true],
  ['serviceaccounts', 'ServiceAccount', true],
  ['services', 'Service', true],
];
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const GROUPS: [string, [string, string, boolean][]][] = [
  ['apiextensions.k8s.io/v1', [['customresourcedefinitions', 'CustomResourceDefinition', false]]],
  ['coordination.k8s.io/v1', [['leases', 'Lease', true]]],
  ['events.k8s.io/v1', [['events', 'Event', true]]],
  ['networking.k8s.io/v1', [['networkpolicies', 'NetworkPolicy', true]]],
];

function resourceList(groupVersion: string, resources: [string, string, boolean][]): unknown {
  return {
    kind: 'APIResourceList',
    groupVersion,
    resources: resources.map(([name, kind, namespaced]) => ({
      name,
      singularName: kind.toLowerCase(),
      namespaced,
      kind,
      verbs: VERBS,
    })),
  };
}

function discovery(path: string): unknown {
  if (path === '/api') {
    return {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }],
    };
  }
  if (path === '/apis') {
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: GROUPS.map(([gv]) => {
        const [name, version] = gv.split('/') as [string, string];
        const v = { groupVersion: gv, version };
        return { name, versions: [v], preferredVersion: v };
      }),
    };
  }
  if (path === '/api/v1') return resourceList('v1', RESOURCES);
  const group = GROUPS.find(([gv]) => path === `/apis/${gv}`);
  return group ? resourceList(group[0], group[1]) : undefined;
}

/** The created object as a server would return it: decoded body plus a few server fields. */
function echo(req: RecordedRequest): Record<string, unknown> {
  const obj = req.contentType.startsWith(PROTOBUF_MEDIA_TYPE)
    ? decodeProtobufObject(req.body)
    : (JSON.parse(Buffer.from(req.body).toString('utf8')) as Record<string, unknown>);
  const namespace = /\/namespaces\/([^/]+)\//.exec(req.path)?.[1];
  const metadata = { ...((obj.metadata ?? {}) as Record<string, unknown>) };
  if (namespace && !req.path.endsWith('/token')) metadata.namespace = namespace;
  metadata.uid = '00000000-0000-4000-8000-000000000001';
  metadata.resourceVersion = '1';
  if (obj.kind === 'TokenRequest') {
    return { ...obj, status: { token: 'tok', expirationTimestamp: '2030-01-01T00:00:00Z' } };
  }
  if (obj.kind === 'SelfSubjectReview') {
    return { ...obj, status: { userInfo: { username: 'admin', groups: ['system:masters'] } } };
  }
  return { ...obj, metadata };
}

function send(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function forward(upstream: URL, req: IncomingMessage, body: Buffer, res: ServerResponse): void {
  const out = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: upstream.host },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  out.on('error', (err) => send(res, 502, { kind: 'Status', message: String(err), code: 502 }));
  out.end(body);
}

export async function startCaptureServer(
  kubectlPath: string,
  upstream?: string,
): Promise<CaptureServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        contentType: req.headers['content-type'] ?? '',
        accept: req.headers.accept ?? '',
        body: new Uint8Array(Buffer.concat(chunks)),
      };
      requests.push(recorded);
      if (upstream) return forward(new URL(upstream), req, Buffer.concat(chunks), res);
      try {
        const doc = discovery(url.pathname);
        if (doc !== undefined) return send(res, 200, doc);
        if (recorded.method === 'POST') return send(res, 201, echo(recorded));
        if (recorded.method === 'DELETE') {
          return send(res, 200, { kind: 'Status', apiVersion: 'v1', status: 'Success' });
        }
        send(res, 404, {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'NotFound',
          code: 404,
        });
      } catch (err: unknown) {
        send(res, 400, {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          message: String(err),
          code: 400,
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-capture-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: c, cluster: {server: "${url}"}}]`,
      'users: [{name: u, user: {}}]',
      'contexts: [{name: c, context: {cluster: c, user: u, namespace: default}}]',
      'current-context: c',
      '',
    ].join('\n'),
  );
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, KUBECONFIG: kubeconfig };
  return {
    url,
    requests,
    kubectl: (args, stdin) =>
      new Promise((resolve) => {
        // async on purpose: the capture server runs on this process' event loop
        const child = execFile(
          kubectlPath,
          args,
          { env, timeout: 30_000 },
          (err, stdout, stderr) => {
            const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
            resolve({ code, stdout, stderr });
          },
        );
        child.stdin?.end(stdin ?? '');
      }),
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
