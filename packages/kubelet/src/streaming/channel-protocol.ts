// The WebSocket channel protocol of exec, attach and client-node port-forward (pure): subprotocol
// choice, one-byte channel framing (binary) or digit + base64 (text), resize events and the
// v4/v5 status JSON. Spec: ../shared/spec/kubelet-and-oci.md §3.3.
import type { ProcessExit, TerminalSize } from './backend.ts';

export const V5_CHANNEL = 'v5.channel.k8s.io';
export const V4_CHANNEL = 'v4.channel.k8s.io';
export const V4_BASE64_CHANNEL = 'v4.base64.channel.k8s.io';
export const CHANNEL = 'channel.k8s.io';
export const BASE64_CHANNEL = 'base64.channel.k8s.io';
/** kubectl's port-forward tunnel: SPDY/3.1 frames carried in binary WebSocket messages. */
export const SPDY_TUNNEL = 'SPDY/3.1+portforward.k8s.io';

/** What exec and attach speak over WebSocket, in the server's order of preference. */
export const REMOTE_COMMAND_PROTOCOLS: readonly string[] = [
  V5_CHANNEL,
  V4_CHANNEL,
  V4_BASE64_CHANNEL,
  CHANNEL,
  BASE64_CHANNEL,
];
/** What port-forward speaks over WebSocket (the kubelet's set, plus kubectl's SPDY tunnel). */
export const PORT_FORWARD_PROTOCOLS: readonly string[] = [
  SPDY_TUNNEL,
  V4_CHANNEL,
  V4_BASE64_CHANNEL,
  CHANNEL,
  BASE64_CHANNEL,
];

export const Channel = {
  stdin: 0,
  stdout: 1,
  stderr: 2,
  error: 3,
  resize: 4,
  /** v5: `[255, n]` half-closes channel n. */
  close: 255,
} as const;

/** The first protocol in the client's order that the server supports (client-go requires one it offered). */
export function chooseProtocol(
  offered: Iterable<string>,
  supported: readonly string[],
): string | undefined {
  for (const p of offered) if (supported.includes(p)) return p;
  return undefined;
}

export function isBase64Protocol(protocol: string): boolean {
  return protocol.includes('base64');
}

/** v4 and v5 end with a Status JSON on the error channel; older versions with plain text. */
export function hasStatusJson(protocol: string): boolean {
  return protocol.startsWith('v4.') || protocol.startsWith('v5.');
}

export type WireMessage = { data: Buffer; binary: true } | { data: string; binary: false };

export function encodeFrame(channel: number, payload: Uint8Array, base64: boolean): WireMessage {
  if (base64)
    return {
      data: String.fromCharCode(48 + channel) + Buffer.from(payload).toString('base64'),
      binary: false,
    };
  const data = Buffer.allocUnsafe(payload.length + 1);
  data[0] = channel;
  data.set(payload, 1);
  return { data, binary: true };
}

/** Splits a received message into channel and payload; undefined for an empty or malformed one. */
export function decodeFrame(
  data: Buffer,
  binary: boolean,
  base64: boolean,
): { channel: number; payload: Buffer } | undefined {
  if (data.length === 0) return undefined;
  if (!base64)
    return binary ? { channel: data[0] as number, payload: data.subarray(1) } : undefined;
  const text = data.toString('latin1');
  const channel = text.charCodeAt(0) - 48;
  if (channel < 0 || channel > 9) return undefined;
  return { channel, payload: Buffer.from(text.slice(1), 'base64') };
}

/**
 * Parses one resize event: kubectl sends `{"Width":120,"Height":40}`, client-node
 * `{"height":40,"width":120}`; keys are matched case-insensitively, values are uint16.
 */
export function parseResize(payload: Buffer): TerminalSize | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined; // a malformed event is dropped, as client-go's decoder would skip it
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const size: Partial<TerminalSize> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffff) continue;
    if (k.toLowerCase() === 'width') size.width = v;
    if (k.toLowerCase() === 'height') size.height = v;
  }
  return size.width !== undefined && size.height !== undefined
    ? { width: size.width, height: size.height }
    : undefined;
}

/** The metav1.Status sent on the error channel at the end of a session (v4/v5). */
export function exitStatus(exit: ProcessExit): Record<string, unknown> {
  if ('error' in exit)
    return {
      metadata: {},
      status: 'Failure',
      message: exit.error,
      reason: 'InternalError',
      code: 500,
    };
  if (exit.exitCode === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command, exit status ${exit.exitCode}`,
    reason: 'NonZeroExitCode',
    // A cause's type serialises under `reason`; client-go parses the message as the exit code.
    details: { causes: [{ reason: 'ExitCode', message: String(exit.exitCode) }] },
  };
}

/** What the error channel carries at the end: Status JSON for v4/v5, plain text before. */
export function exitPayload(exit: ProcessExit, protocol: string): Buffer | undefined {
  if (hasStatusJson(protocol)) return Buffer.from(JSON.stringify(exitStatus(exit)));
  if ('error' in exit) return Buffer.from(exit.error);
  return exit.exitCode === 0
    ? undefined
    : Buffer.from(`command terminated with non-zero exit code: ${exit.exitCode}`);
}
