// Shared helpers for the client journeys (issue 4 "Must show"): kubectl run asynchronously (the
// API server under test lives in this process's event loop, so a synchronous child would
// deadlock it), a line-streaming child for `--watch`, a small raw JSON client, and polling.
import type { CustomResourceDefinition } from '@agent-sandbox/kube-types';
import {
  kubeconfigFor,
  readOurCrds,
  startTestApiServer,
  type TestApiServer,
} from '@agent-sandbox/apiserver/testing';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll } from 'vitest';
import { ApiServer, listen, openStore, type Store } from '@agent-sandbox/apiserver';

/** The machine's kubectl (1.32); KUBECTL overrides it. */
export const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';

/** A DNS-1123 name no other test uses: `<prefix>-<6 hex>`. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program asynchronously and resolves with its exit code and output (never rejects on exit code). */
export function runProgram(
  file: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number; cwd?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      {
        env: options.env ?? process.env,
        encoding: 'utf8',
        timeout: options.timeoutMs ?? 30_000,
        maxBuffer: 16 * 1024 * 1024,
        ...(options.cwd ? { cwd: options.cwd } : {}),
      },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') {
          reject(new Error(`${file} ${args.join(' ')}: ${err.message}\n${stderr}`));
          return;
        }
        resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(options.stdin ?? '');
  });
}

/** kubectl against one kubeconfig. `run` resolves with the exit code; `ok` fails on a non-zero one. */
export class Kubectl {
  readonly #kubeconfig: string;

  constructor(kubeconfigPath: string) {
    this.#kubeconfig = kubeconfigPath;
  }

  get env(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      KUBECONFIG: this.#kubeconfig,
      KUBECACHEDIR: `${this.#kubeconfig}.cache`,
    };
  }

  run(args: readonly string[], stdin?: string): Promise<RunResult> {
    return runProgram(KUBECTL, [...args, '--request-timeout=20s'], {
      env: this.env,
      ...(stdin === undefined ? {} : { stdin }),
    });
  }

  async ok(args: readonly string[], stdin?: string): Promise<string> {
    const r = await this.run(args, stdin);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
    return r.stdout;
  }

  /** A long-running kubectl (e.g. `get --watch`) whose stdout lines are collected as they come. */
  stream(args: readonly string[]): LineStream {
    return new LineStream(spawn(KUBECTL, [...args], { env: this.env }));
  }
}

/** Collects a child's stdout lines; `next` waits for a line matching a predicate. */
export class LineStream {
  readonly lines: string[] = [];
  stderr = '';
  /** The exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  readonly #child: ChildProcess;
  readonly #waiters = new Set<() => void>();

  constructor(child: ChildProcess) {
    this.#child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    if (!child.stdout) throw new Error('child has no stdout');
    createInterface({ input: child.stdout }).on('line', (line) => {
      this.lines.push(line);
      for (const wake of this.#waiters) wake();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
  }

  /** Resolves with the first line (at or after index `from`) matching `match`. */
  async next(match: (line: string) => boolean, from = 0, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.slice(from).find(match);
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no matching line; got:\n${this.lines.join('\n')}\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.#waiters.add(wake);
      });
    }
  }

  /** Kills the child and waits for it to exit. */
  async kill(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.kill('SIGTERM');
    await exited;
  }
}

export interface JsonObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    ownerReferences?: { uid: string; name: string }[];
    generation?: number;
    managedFields?: { manager: string; operation: string }[];
  };
  [field: string]: unknown;
}

export interface JsonResponse {
  status: number;
  body: JsonObject & { reason?: string; message?: string };
}

/** A raw JSON client over fetch: exact status codes and bodies. */
export class RawClient {
  readonly #url: string;

  constructor(url: string) {
    this.#url = url;
  }

  async request(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<JsonResponse> {
    const res = await fetch(`${this.#url}${path}`, {
      method,
      headers: { 'content-type': contentType, accept: 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as JsonResponse['body'] };
  }

  /** POSTs and returns the created object; throws on anything but 201. */
  async create(path: string, obj: unknown): Promise<JsonObject> {
    const r = await this.request('POST', path, obj);
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.body.message}`);
    return r.body;
  }

  /** Merge-patches and returns the result; throws on anything but 200. */
  async mergePatch(path: string, patch: unknown): Promise<JsonObject> {
    const r = await this.request('PATCH', path, patch, 'application/merge-patch+json');
    if (r.status !== 200) throw new Error(`PATCH ${path}: ${r.status} ${r.body.message}`);
    return r.body;
  }

  async get(path: string): Promise<JsonResponse> {
    return this.request('GET', path);
  }
}

/** Polls `check` until it returns a value other than undefined. */
export async function eventually<T>(
  check: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A loopback port that was free a moment ago (for servers that must come back on the same port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** A Sandbox in the style of our example manifests. */
export function sandboxManifest(name: string, namespace: string, image = 'busybox:1.36'): string {
  return `apiVersion: agents.x-k8s.io/v1beta1
kind: Sandbox
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  podTemplate:
    spec:
      containers:
        - name: agent
          image: ${image}
`;
}

export interface KubectlEnv {
  server: TestApiServer;
  kubectl: Kubectl;
  api: RawClient;
  /** A namespace of this file's own, created in beforeAll. */
  ns: string;
}

/**
 * Registers beforeAll/afterAll hooks that start the embedded API server with our CRDs and create
 * a namespace; the returned object is filled in by beforeAll.
 */
export function useKubectlServer(prefix: string): KubectlEnv {
  const env = { ns: uniqueName(prefix) } as KubectlEnv;
  beforeAll(async () => {
    env.server = await startTestApiServer({ crds: readOurCrds() });
    env.kubectl = new Kubectl(env.server.kubeconfigPath);
    env.api = new RawClient(env.server.url);
    await env.kubectl.ok(['create', 'namespace', env.ns]);
  });
  afterAll(async () => {
    await env.server?.close();
  });
  return env;
}

/** A Ready (or other) condition as a controller would write it through the status subresource. */
export function condition(type: string, status: string, reason: string, message = reason) {
  const lastTransitionTime = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return { type, status, reason, message, lastTransitionTime };
}

export interface RunningServer {
  url: string;
  kubeconfigPath: string;
  /** The server's revision log, for what no API reaches (compaction). */
  store: Store;
  api: RawClient;
  stop(): Promise<void>;
}

/**
 * Starts the embedded server on `dbPath` and `port` (0: any): startTestApiServer has no port
 * option and does not expose the store, which restart and compaction tests need.
 */
export async function startServerOn(
  dbPath: string,
  port: number,
  crds?: readonly CustomResourceDefinition[],
): Promise<RunningServer> {
  const store = openStore({ path: dbPath });
  const server = new ApiServer({ store, ...(crds ? { crds } : {}) });
  server.start();
  const listening = await listen(server, port);
  const dir = mkdtempSync(join(tmpdir(), 'clients-kubeconfig-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kubeconfigFor(listening.url));
  return {
    url: listening.url,
    kubeconfigPath,
    store,
    api: new RawClient(listening.url),
    stop: async () => {
      await listening.close();
      server.stop();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
