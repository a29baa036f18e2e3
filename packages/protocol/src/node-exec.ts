// The node-exec wire (ADR 0037): the node agent's exec channel into a sandbox (sandboxd dials,
// the kubelet listens; both import this file). Frames are
// [u32 big-endian payload length][u8 type][payload], at most MAX_FRAME_BYTES of payload; control
// frames carry JSON. One connection carries one exec. The peer is the other side of a trust
// boundary both ways, so the decoder refuses what is malformed instead of guessing.

export const MAX_FRAME_BYTES = 1024 * 1024;

/** Frame types: agent → daemon below 16, daemon → agent from 16. */
export const FrameType = {
  start: 1,
  stdin: 2,
  stdinClose: 3,
  signal: 4,
  /** JSON `{cols, rows}`: the TTY session's new window size. */
  resize: 5,
  started: 16,
  stdout: 17,
  stderr: 18,
  exit: 19,
  error: 20,
} as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

export interface Frame {
  type: number;
  payload: Buffer;
}

export function encodeFrame(type: FrameType, payload: Buffer | string = Buffer.alloc(0)): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  if (body.length > MAX_FRAME_BYTES) throw new RangeError(`frame payload over ${MAX_FRAME_BYTES}`);
  const head = Buffer.allocUnsafe(5);
  head.writeUInt32BE(body.length, 0);
  head.writeUInt8(type, 4);
  return Buffer.concat([head, body]);
}

export class FrameError extends Error {}

/** Splits a byte stream into frames; throws FrameError on an oversized frame. */
export class FrameDecoder {
  #buffer: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Frame[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const frames: Frame[] = [];
    while (this.#buffer.length >= 5) {
      const size = this.#buffer.readUInt32BE(0);
      if (size > MAX_FRAME_BYTES)
        throw new FrameError(`frame of ${size} bytes is over the ${MAX_FRAME_BYTES}-byte limit`);
      if (this.#buffer.length < 5 + size) break;
      frames.push({
        type: this.#buffer.readUInt8(4),
        payload: this.#buffer.subarray(5, 5 + size),
      });
      this.#buffer = this.#buffer.subarray(5 + size);
    }
    return frames;
  }
}

/** What the agent asks to run: the container's process spec, as `runc exec` would apply it. */
export interface NodeExecStart {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  uid?: number;
  gid?: number;
  /** Run on a pseudo-terminal (stderr is merged into stdout; resize frames apply). */
  tty?: boolean;
  /** With `tty`: the terminal's size to start with. */
  size?: TerminalSize;
}

/** A terminal's size in character cells. */
export interface TerminalSize {
  cols: number;
  rows: number;
}

const isUint = (v: unknown) =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 2 ** 32;

function jsonObject(payload: Buffer, frame: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(payload.toString('utf8'));
  } catch {
    throw new FrameError(`${frame}: payload is not JSON`);
  }
  return (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {}) as Record<
    string,
    unknown
  >;
}

/** Pure: `v` as a TerminalSize (integers in 0–65535, TIOCSWINSZ's range); throws naming `field`. */
function terminalSize(v: unknown, field: string): TerminalSize {
  const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  const ok = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 0 && n < 65536;
  if (!ok(o['cols']) || !ok(o['rows']))
    throw new FrameError(`${field} must be {cols, rows} with integers in 0-65535`);
  return { cols: o['cols'] as number, rows: o['rows'] as number };
}

/** Validates a resize frame's JSON; throws FrameError naming the field. */
export function parseResize(payload: Buffer): TerminalSize {
  return terminalSize(jsonObject(payload, 'resize'), 'resize');
}

/** Validates a start frame's JSON; throws FrameError naming the field. */
export function parseStart(payload: Buffer): NodeExecStart {
  const o = jsonObject(payload, 'start');
  const argv = o['argv'];
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string'))
    throw new FrameError('start: argv must be a non-empty list of strings');
  const env = o['env'] ?? {};
  if (
    typeof env !== 'object' ||
    env === null ||
    Array.isArray(env) ||
    !Object.values(env).every((x) => typeof x === 'string')
  )
    throw new FrameError('start: env must map names to strings');
  const cwd = o['cwd'];
  if (typeof cwd !== 'string' || !cwd.startsWith('/'))
    throw new FrameError('start: cwd must be an absolute path');
  const out: NodeExecStart = { argv, env: env as Record<string, string>, cwd };
  for (const k of ['uid', 'gid'] as const) {
    if (o[k] === undefined) continue;
    if (!isUint(o[k])) throw new FrameError(`start: ${k} must be a non-negative integer`);
    out[k] = o[k] as number;
  }
  if (o['tty'] !== undefined) {
    if (typeof o['tty'] !== 'boolean') throw new FrameError('start: tty must be a boolean');
    out.tty = o['tty'];
  }
  if (o['size'] !== undefined) out.size = terminalSize(o['size'], 'start: size');
  return out;
}
