// kubectl 1.32 against the real embedded API server through a recording proxy: its protobuf
// create bodies are accepted, and what the server stores is what the protobuf decoded to.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from '../testing/test-server.ts';
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from './index.ts';
import { type CaptureServer, startCaptureServer } from './kubectl-capture.ts';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';

describe.skipIf(!existsSync(KUBECTL))('kubectl protobuf bodies against the embedded server', () => {
  let api: TestApiServer;
  let proxy: CaptureServer;

  beforeAll(async () => {
    api = await startTestApiServer();
    proxy = await startCaptureServer(KUBECTL, api.url);
  });
  afterAll(async () => {
    await proxy?.close();
    await api?.close();
  });

  async function getJson(path: string): Promise<Record<string, unknown>> {
    const res = await fetch(`${api.url}${path}`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  }

  it.each([
    [
      ['create', 'configmap', 'c1', '--from-literal=a=b'],
      '/api/v1/namespaces/default/configmaps/c1',
    ],
    [['create', 'namespace', 'ns1'], '/api/v1/namespaces/ns1'],
    [
      ['create', 'secret', 'generic', 's1', '--from-literal=k=v'],
      '/api/v1/namespaces/default/secrets/s1',
    ],
    [['create', 'serviceaccount', 'sa1'], '/api/v1/namespaces/default/serviceaccounts/sa1'],
    [
      ['create', 'service', 'clusterip', 'svc1', '--tcp=80:http'],
      '/api/v1/namespaces/default/services/svc1',
    ],
  ])('kubectl %j', async (args, path) => {
    const before = proxy.requests.length;
    const result = await proxy.kubectl(args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const posts = proxy.requests.slice(before).filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(1);
    const post = posts[0]!;
    expect(post.contentType).toBe(PROTOBUF_MEDIA_TYPE);
    const sent = decodeProtobufObject(post.body);
    const stored = await getJson(path);
    // everything kubectl sent is stored as sent; the server only adds to it
    expect(stored).toMatchObject(sent);
  });
});
