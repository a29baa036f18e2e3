// A minimal JSON client over fetch for the controllers' integration tests: raw status codes and
// bodies, so tests can assert exactly what a Kubernetes client would see.
import type { ObjectMeta, OwnerReference } from '@agent-sandbox/kube-types';

export interface TestObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface TestResponse {
  status: number;
  body: TestObject & { reason?: string; code?: number; message?: string };
}

export class TestClient {
  readonly #url: string;

  constructor(url: string) {
    this.#url = url;
  }

  async request(method: string, path: string, body?: unknown): Promise<TestResponse> {
    const res = await fetch(`${this.#url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as TestResponse['body'] };
  }

  /** POSTs an object and returns the created object; fails the test on anything but 201. */
  async create(path: string, obj: unknown): Promise<TestObject> {
    const res = await this.request('POST', path, obj);
    if (res.status !== 201) throw new Error(`create ${path}: ${res.status} ${res.body.message}`);
    return res.body;
  }

  async get(path: string): Promise<TestResponse> {
    return this.request('GET', path);
  }

  async exists(path: string): Promise<boolean> {
    const res = await this.get(path);
    if (res.status !== 200 && res.status !== 404)
      throw new Error(`get ${path}: ${res.status} ${res.body.message}`);
    return res.status === 200;
  }

  async delete(path: string, options?: Record<string, unknown>): Promise<TestResponse> {
    return this.request(
      'DELETE',
      path,
      options ? { kind: 'DeleteOptions', apiVersion: 'v1', ...options } : undefined,
    );
  }

  /** GET, change, PUT, retrying on 409 like a controller would. */
  async update(path: string, change: (obj: TestObject) => void): Promise<TestResponse> {
    for (;;) {
      const got = await this.get(path);
      if (got.status !== 200) return got;
      change(got.body);
      const res = await this.request('PUT', path, got.body);
      if (res.status !== 409) return res;
    }
  }

  async createNamespace(name: string): Promise<TestObject> {
    return this.create('/api/v1/namespaces', { metadata: { name } });
  }
}

export function ownerRef(owner: TestObject, extra: Partial<OwnerReference> = {}): OwnerReference {
  return {
    apiVersion: owner.apiVersion ?? 'v1',
    kind: owner.kind ?? '',
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    ...extra,
  };
}

/** Polls `check` until it returns true; fails after `timeoutMs`. */
export async function eventually(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Lets the server run for a while, for asserting that something does NOT happen. */
export function settle(ms = 200): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
