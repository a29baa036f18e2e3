// The server side of one SPDY/3.1 connection over a byte transport (a TCP/TLS socket after the
// upgrade, or a WebSocket tunnel as a stream). Peers open streams with SYN_STREAM; each becomes a
// SpdyStream the handler answers with SYN_REPLY. PINGs are echoed; SETTINGS and WINDOW_UPDATE
// are read and ignored (no flow control, see frames.ts).
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import {
  dataFrame,
  decodeHeaderPairs,
  encodeHeaderPairs,
  FLAG_FIN,
  FrameParser,
  FrameType,
  goawayFrame,
  parseSynStream,
  pingFrame,
  readWord,
  RstStatus,
  rstStreamFrame,
  synReplyFrame,
  type Frame,
} from './frames.ts';
import { HeaderCodec } from './header-block.ts';

/** Split outgoing data into frames of at most this size (Go's spdystream reads any size). */
const MAX_DATA_FRAME_BYTES = 32 * 1024;

/**
 * One stream the peer opened. Emits `data` (Buffer) and `end` (the peer's FIN), and `reset`
 * when the peer or the connection aborts it.
 */
export class SpdyStream extends EventEmitter {
  #localClosed = false;
  #remoteClosed = false;
  #replied = false;

  constructor(
    readonly id: number,
    readonly headers: ReadonlyMap<string, string>,
    readonly connection: SpdyConnection,
  ) {
    super();
  }

  get isLocalClosed(): boolean {
    return this.#localClosed;
  }

  /** Accepts the stream (SYN_REPLY with no headers). Idempotent. */
  async reply(): Promise<void> {
    if (this.#replied) return;
    this.#replied = true;
    await this.connection.sendReply(this.id);
  }

  write(data: Uint8Array): void {
    if (this.#localClosed) return;
    for (let offset = 0; offset < data.length; offset += MAX_DATA_FRAME_BYTES)
      this.connection.sendRaw(
        dataFrame(this.id, data.subarray(offset, offset + MAX_DATA_FRAME_BYTES), false),
      );
  }

  /** Half-closes our side (an empty DATA frame with FIN). Idempotent. */
  end(): void {
    if (this.#localClosed) return;
    this.#localClosed = true;
    this.connection.sendRaw(dataFrame(this.id, new Uint8Array(0), true));
    this.connection.forgetIfClosed(this);
  }

  /** Aborts the stream (RST_STREAM CANCEL). */
  reset(): void {
    if (this.#localClosed && this.#remoteClosed) return;
    this.#localClosed = true;
    this.#remoteClosed = true;
    this.connection.sendRaw(rstStreamFrame(this.id, RstStatus.cancel));
    this.connection.forgetIfClosed(this);
  }

  get isClosed(): boolean {
    return this.#localClosed && this.#remoteClosed;
  }

  /** @internal the connection delivers the peer's frames */
  receive(data: Buffer, fin: boolean): void {
    if (data.length > 0 && !this.#remoteClosed) this.emit('data', data);
    if (fin && !this.#remoteClosed) {
      this.#remoteClosed = true;
      this.emit('end');
      this.connection.forgetIfClosed(this);
    }
  }

  /** @internal */
  aborted(): void {
    const wasOpen = !this.isClosed;
    this.#localClosed = true;
    this.#remoteClosed = true;
    if (wasOpen) this.emit('reset');
  }
}

export interface SpdyConnectionEvents {
  stream: [SpdyStream];
  close: [];
}

/**
 * Contract: emits `stream` once per SYN_STREAM, after its headers are decoded, in the order the
 * peer opened them; emits `close` once when the transport ends or `close()` was called, after
 * which every open stream has seen `reset`. Protocol errors close the connection.
 */
export class SpdyConnection extends EventEmitter<SpdyConnectionEvents> {
  readonly #transport: Duplex;
  readonly #codec = new HeaderCodec();
  readonly #parser = new FrameParser();
  readonly #streams = new Map<number, SpdyStream>();
  #lastStreamId = 0;
  #closed = false;
  /** Frames are handled one at a time: header blocks must be inflated in order. */
  #inbound: Promise<void> = Promise.resolve();

  constructor(transport: Duplex, head?: Buffer) {
    super();
    this.#transport = transport;
    transport.on('data', (chunk: Buffer) => this.#onBytes(chunk));
    transport.once('end', () => this.close());
    transport.once('close', () => this.close());
    transport.once('error', () => this.close());
    if (head && head.length > 0) this.#onBytes(head);
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  /** Sends GOAWAY, ends the transport and resets every open stream. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#transport.writable) {
      this.#transport.write(goawayFrame(this.#lastStreamId));
      this.#transport.end();
    }
    for (const stream of this.#streams.values()) stream.aborted();
    this.#streams.clear();
    this.#codec.close();
    this.emit('close');
  }

  /** @internal */
  sendRaw(frame: Buffer): void {
    if (!this.#closed && this.#transport.writable) this.#transport.write(frame);
  }

  /** @internal */
  async sendReply(streamId: number): Promise<void> {
    const block = await this.#codec.compress(encodeHeaderPairs(new Map()));
    this.sendRaw(synReplyFrame(streamId, block, false));
  }

  /** @internal */
  forgetIfClosed(stream: SpdyStream): void {
    if (stream.isClosed) this.#streams.delete(stream.id);
  }

  #onBytes(chunk: Buffer): void {
    if (this.#closed) return;
    let frames: Frame[];
    try {
      frames = this.#parser.push(chunk);
    } catch {
      this.close();
      return;
    }
    for (const frame of frames)
      this.#inbound = this.#inbound.then(() => this.#onFrame(frame)).catch(() => this.close());
  }

  async #onFrame(frame: Frame): Promise<void> {
    if (this.#closed) return;
    if (frame.kind === 'data') {
      this.#streams.get(frame.streamId)?.receive(frame.data, (frame.flags & FLAG_FIN) !== 0);
      return;
    }
    switch (frame.type) {
      case FrameType.synStream: {
        const syn = parseSynStream(frame.body);
        const headers = decodeHeaderPairs(await this.#codec.decompress(syn.headerBlock));
        if (this.#streams.has(syn.streamId)) {
          this.sendRaw(rstStreamFrame(syn.streamId, RstStatus.streamInUse));
          return;
        }
        this.#lastStreamId = Math.max(this.#lastStreamId, syn.streamId);
        const stream = new SpdyStream(syn.streamId, headers, this);
        this.#streams.set(syn.streamId, stream);
        this.emit('stream', stream);
        if ((frame.flags & FLAG_FIN) !== 0) stream.receive(Buffer.alloc(0), true);
        return;
      }
      case FrameType.headers: {
        // Decompress to keep the zlib stream in step; the values carry nothing we use.
        await this.#codec.decompress(frame.body.subarray(4));
        if ((frame.flags & FLAG_FIN) !== 0)
          this.#streams.get(readWord(frame.body, 0) & 0x7fffffff)?.receive(Buffer.alloc(0), true);
        return;
      }
      case FrameType.rstStream: {
        const id = readWord(frame.body, 0) & 0x7fffffff;
        this.#streams.get(id)?.aborted();
        this.#streams.delete(id);
        return;
      }
      case FrameType.ping: {
        const id = readWord(frame.body, 0);
        // Echo the peer's pings (odd ids from a client); ours would be even and we send none.
        if (id % 2 === 1) this.sendRaw(pingFrame(id));
        return;
      }
      case FrameType.goaway:
        this.close();
        return;
      default:
        // SETTINGS, WINDOW_UPDATE, SYN_REPLY (we open no streams): nothing to do.
        return;
    }
  }
}
