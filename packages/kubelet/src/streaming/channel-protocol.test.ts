import { describe, expect, it } from 'vitest';
import {
  chooseProtocol,
  decodeFrame,
  encodeFrame,
  exitPayload,
  exitStatus,
  parseResize,
  REMOTE_COMMAND_PROTOCOLS,
  V4_BASE64_CHANNEL,
  V5_CHANNEL,
} from './channel-protocol.ts';

describe('WebSocket channel protocol', () => {
  it('picks the first protocol in the client order that the server speaks', () => {
    expect(
      chooseProtocol(['v5.channel.k8s.io', 'v4.channel.k8s.io'], REMOTE_COMMAND_PROTOCOLS),
    ).toBe(V5_CHANNEL);
    expect(
      chooseProtocol(['v9.channel.k8s.io', 'v4.base64.channel.k8s.io'], REMOTE_COMMAND_PROTOCOLS),
    ).toBe(V4_BASE64_CHANNEL);
    expect(chooseProtocol(['nope'], REMOTE_COMMAND_PROTOCOLS)).toBeUndefined();
  });

  it('frames binary payloads with a channel byte and base64 ones with a digit', () => {
    const bin = encodeFrame(1, Buffer.from('hi'), false);
    expect(bin).toEqual({ data: Buffer.from([1, 104, 105]), binary: true });
    const text = encodeFrame(2, Buffer.from('hi'), true);
    expect(text).toEqual({ data: '2aGk=', binary: false });
    expect(decodeFrame(Buffer.from('0aGk='), false, true)).toEqual({
      channel: 0,
      payload: Buffer.from('hi'),
    });
    expect(decodeFrame(Buffer.from([0, 120]), true, false)).toEqual({
      channel: 0,
      payload: Buffer.from('x'),
    });
    expect(decodeFrame(Buffer.alloc(0), true, false)).toBeUndefined();
    // client-go rejects text messages on binary protocols; so do we
    expect(decodeFrame(Buffer.from('0abc'), false, false)).toBeUndefined();
  });

  it('reads kubectl and client-node resize events alike', () => {
    expect(parseResize(Buffer.from('{"Width":120,"Height":40}'))).toEqual({
      width: 120,
      height: 40,
    });
    expect(parseResize(Buffer.from('{"height":40,"width":120}'))).toEqual({
      width: 120,
      height: 40,
    });
    expect(parseResize(Buffer.from('{"Width":70000,"Height":1}'))).toBeUndefined();
    expect(parseResize(Buffer.from('not json'))).toBeUndefined();
  });

  it('reports exits as kube Status objects', () => {
    expect(exitStatus({ exitCode: 0 })).toEqual({ metadata: {}, status: 'Success' });
    expect(exitStatus({ exitCode: 3 })).toMatchObject({
      status: 'Failure',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    });
    expect(exitStatus({ error: 'runc failed' })).toMatchObject({
      reason: 'InternalError',
      message: 'runc failed',
      code: 500,
    });
    expect(exitPayload({ exitCode: 0 }, 'channel.k8s.io')).toBeUndefined();
    expect(exitPayload({ exitCode: 2 }, 'channel.k8s.io')?.toString()).toBe(
      'command terminated with non-zero exit code: 2',
    );
  });
});
