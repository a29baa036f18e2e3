// SPDY/3.1 framing (pure): an incremental frame parser and the frame writers a server needs.
// Control frames: 0x8003 | type(16) | flags(8) | length(24) | body; data frames:
// 0 | stream id(31) | flags(8) | length(24) | payload. Header blocks are compressed elsewhere
// (header-block.ts). Only what kubectl's spdystream uses; no flow control (§3.4: Go's client
// never sends WINDOW_UPDATE, so a server enforcing send windows would stall after 64 KiB).

export const SPDY_VERSION = 3;

export const FrameType = {
  synStream: 1,
  synReply: 2,
  rstStream: 3,
  settings: 4,
  ping: 6,
  goaway: 7,
  headers: 8,
  windowUpdate: 9,
} as const;

export const FLAG_FIN = 0x01;

/** RST_STREAM status codes (SPDY/3 §2.6.3). */
export const RstStatus = {
  protocolError: 1,
  invalidStream: 2,
  refusedStream: 3,
  cancel: 5,
  internalError: 6,
  streamInUse: 8,
  streamAlreadyClosed: 9,
} as const;

export type Frame =
  | { kind: 'data'; streamId: number; flags: number; data: Buffer }
  | { kind: 'control'; type: number; flags: number; body: Buffer };

/** The largest frame we accept; kubectl's frames are far smaller (32 KiB data chunks). */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export class FrameParseError extends Error {}

/** Accumulates bytes and yields complete frames in order. */
export class FrameParser {
  #buffer: Buffer = Buffer.alloc(0);

  /** Adds bytes; returns every frame now complete. Throws FrameParseError on a malformed stream. */
  push(chunk: Buffer): Frame[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const frames: Frame[] = [];
    while (this.#buffer.length >= 8) {
      const length = this.#buffer.readUIntBE(5, 3);
      if (length > MAX_FRAME_BYTES)
        throw new FrameParseError(`frame of ${length} bytes is too large`);
      if (this.#buffer.length < 8 + length) break;
      const head = this.#buffer.readUInt32BE(0);
      const flags = this.#buffer[4] as number;
      const body = this.#buffer.subarray(8, 8 + length);
      this.#buffer = this.#buffer.subarray(8 + length);
      if (head & 0x80000000) {
        const version = (head >>> 16) & 0x7fff;
        if (version !== SPDY_VERSION)
          throw new FrameParseError(`unsupported SPDY version ${version}`);
        frames.push({ kind: 'control', type: head & 0xffff, flags, body });
      } else {
        frames.push({ kind: 'data', streamId: head & 0x7fffffff, flags, data: body });
      }
    }
    return frames;
  }
}

function control(type: number, flags: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE((0x8000 | SPDY_VERSION) * 0x10000 + type, 0);
  head[4] = flags;
  head.writeUIntBE(body.length, 5, 3);
  return Buffer.concat([head, body]);
}

export function dataFrame(streamId: number, data: Uint8Array, fin: boolean): Buffer {
  const frame = Buffer.alloc(8 + data.length);
  frame.writeUInt32BE(streamId & 0x7fffffff, 0);
  frame[4] = fin ? FLAG_FIN : 0;
  frame.writeUIntBE(data.length, 5, 3);
  frame.set(data, 8);
  return frame;
}

/** SYN_REPLY with an already compressed header block. */
export function synReplyFrame(streamId: number, headerBlock: Buffer, fin: boolean): Buffer {
  const id = Buffer.alloc(4);
  id.writeUInt32BE(streamId & 0x7fffffff);
  return control(FrameType.synReply, fin ? FLAG_FIN : 0, Buffer.concat([id, headerBlock]));
}

export function rstStreamFrame(streamId: number, status: number): Buffer {
  const body = Buffer.alloc(8);
  body.writeUInt32BE(streamId & 0x7fffffff, 0);
  body.writeUInt32BE(status, 4);
  return control(FrameType.rstStream, 0, body);
}

export function pingFrame(id: number): Buffer {
  const body = Buffer.alloc(4);
  body.writeUInt32BE(id >>> 0);
  return control(FrameType.ping, 0, body);
}

export function goawayFrame(lastGoodStreamId: number, status = 0): Buffer {
  const body = Buffer.alloc(8);
  body.writeUInt32BE(lastGoodStreamId & 0x7fffffff, 0);
  body.writeUInt32BE(status, 4);
  return control(FrameType.goaway, 0, body);
}

/** The parts of a SYN_STREAM body: ids, then the compressed header block. */
export function parseSynStream(body: Buffer): {
  streamId: number;
  associatedId: number;
  headerBlock: Buffer;
} {
  if (body.length < 10) throw new FrameParseError('SYN_STREAM body is shorter than 10 bytes');
  return {
    streamId: body.readUInt32BE(0) & 0x7fffffff,
    associatedId: body.readUInt32BE(4) & 0x7fffffff,
    headerBlock: body.subarray(10),
  };
}

/** Stream id and 32-bit value of RST_STREAM, PING (id only), GOAWAY and WINDOW_UPDATE bodies. */
export function readWord(body: Buffer, offset: number): number {
  if (body.length < offset + 4) throw new FrameParseError('control frame body is too short');
  return body.readUInt32BE(offset);
}

/** Serialises a name/value block (before compression): count, then length-prefixed pairs. */
export function encodeHeaderPairs(headers: ReadonlyMap<string, string>): Buffer {
  const parts: Buffer[] = [];
  const count = Buffer.alloc(4);
  count.writeUInt32BE(headers.size);
  parts.push(count);
  for (const [name, value] of headers) {
    for (const s of [name.toLowerCase(), value]) {
      const bytes = Buffer.from(s, 'utf8');
      const len = Buffer.alloc(4);
      len.writeUInt32BE(bytes.length);
      parts.push(len, bytes);
    }
  }
  return Buffer.concat(parts);
}

/** Parses a decompressed name/value block; repeated values (NUL-separated) are kept joined by ','. */
export function decodeHeaderPairs(block: Buffer): Map<string, string> {
  const headers = new Map<string, string>();
  let offset = 0;
  const word = (): number => {
    if (block.length < offset + 4) throw new FrameParseError('truncated header block');
    const n = block.readUInt32BE(offset);
    offset += 4;
    return n;
  };
  const text = (): string => {
    const n = word();
    if (block.length < offset + n) throw new FrameParseError('truncated header block');
    const s = block.toString('utf8', offset, offset + n);
    offset += n;
    return s;
  };
  const count = word();
  for (let i = 0; i < count; i++) {
    const name = text().toLowerCase();
    headers.set(name, text().split('\0').join(','));
  }
  return headers;
}
