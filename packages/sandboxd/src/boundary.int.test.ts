// Each listener's one error boundary on a real socket: a handler that throws synchronously, one
// that rejects, and a response body that fails half-way are answered (or cut) and logged, and
// the listener keeps serving; a gRPC method that throws or rejects ends with INTERNAL, logged.
import { Server, ServerCredentials, status, type ServiceError } from '@grpc/grpc-js';
import { grpcServiceDefinition, SESSION_SERVICE } from '@agent-sandbox/protocol';
import { exchange, head } from '@agent-sandbox/protocol/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxdError } from './errors.ts';
import { guarded } from './grpc/boundary.ts';
import { restError } from './rest-server.ts';
import { serveHttp, type ListeningHttpServer } from './http-server.ts';
import { callUnary, ourClient } from './testing/grpc-clients.ts';

const logged: { msg: string; fields: Record<string, unknown> }[] = [];
const log = (msg: string, fields: Record<string, unknown>) => logged.push({ msg, fields });

describe('HTTP boundary', () => {
  let server: ListeningHttpServer;
  beforeAll(async () => {
    server = await serveHttp(
      (req, info) => {
        if (info.rawTarget === '/sync') throw new TypeError('sync bug');
        if (info.rawTarget === '/async') return Promise.reject(new RangeError('async bug'));
        if (info.rawTarget === '/denied')
          return Promise.reject(sandboxdError('PermissionDenied', 'no'));
        if (info.rawTarget === '/half') {
          const body = new ReadableStream<Uint8Array>({
            pull: (c) => {
              c.enqueue(new TextEncoder().encode('part'));
              c.error(new Error('disk went away'));
            },
          });
          return Promise.resolve(new Response(body));
        }
        return Promise.resolve(new Response('ok'));
      },
      { host: '127.0.0.1', port: 0, onError: restError, log },
    );
  });
  afterAll(() => server?.close());

  it('answers a sync throw and a rejection with 500 INTERNAL, logged; a 4xx is not logged', async () => {
    for (const [path, error] of [
      ['/sync', 'sync bug'],
      ['/async', 'async bug'],
    ] as const) {
      const r = await exchange(server.url, head('GET', path));
      expect([r.status, JSON.parse(r.body)]).toEqual([500, { code: 'INTERNAL', message: error }]);
      expect(logged.pop()).toEqual({
        msg: 'request failed',
        fields: { method: 'GET', path, status: 500, error },
      });
    }
    const denied = await exchange(server.url, head('GET', '/denied'));
    expect(denied.status).toBe(403);
    expect(logged).toEqual([]);
    expect((await exchange(server.url, head('GET', '/'))).body).toBe('ok');
  });

  it('cuts a response whose body fails after the head, and keeps serving', async () => {
    const r = await exchange(server.url, head('GET', '/half'));
    // The head may or may not have left before the failure; either way the connection is cut,
    // not left hanging, and no clean end of body is sent.
    expect([0, 200]).toContain(r.status);
    expect(r.closed).toBe(true);
    expect(r.body).not.toMatch(/0\r\n\r\n$/); // no clean end of the chunked body
    expect((await exchange(server.url, head('GET', '/'))).body).toBe('ok');
  });
});

describe('gRPC boundary', () => {
  const server = new Server();
  let address: string;
  beforeAll(async () => {
    const definition = grpcServiceDefinition(SESSION_SERVICE);
    server.addService(
      definition,
      guarded(
        definition,
        {
          Inspect: () => {
            throw new TypeError('sync bug');
          },
          List: () => Promise.reject(new Error('async bug')),
          Attach: async () => {
            throw sandboxdError('NotFound', 'no such process');
          },
        },
        log,
      ),
    );
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) =>
        e ? reject(e) : resolve(p),
      ),
    );
    address = `127.0.0.1:${port}`;
  });
  afterAll(() => server.forceShutdown());

  it('turns a throw or rejection into INTERNAL with the message, logged', async () => {
    logged.length = 0;
    const client = ourClient(address, SESSION_SERVICE);
    try {
      for (const [method, error] of [
        ['Inspect', 'sync bug'],
        ['List', 'async bug'],
      ] as const) {
        const err = (await callUnary(client, method, { process_id: 1 }).catch(
          (e: unknown) => e,
        )) as ServiceError;
        expect([err.code, err.details]).toEqual([status.INTERNAL, error]);
        expect(logged.pop()).toEqual({
          msg: 'grpc call failed',
          fields: { method: `/${SESSION_SERVICE}/${method}`, code: status.INTERNAL, error },
        });
      }
      const stream = client.Attach({ process_id: 1 }) as NodeJS.EventEmitter;
      const err = await new Promise<ServiceError>((resolve) => stream.on('error', resolve));
      expect([err.code, err.details]).toEqual([status.NOT_FOUND, 'no such process']);
      expect(logged).toEqual([]);
    } finally {
      client.close();
    }
  });
});
