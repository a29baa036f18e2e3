// A minimal protocol buffers (proto3) writer: the wire types the gnostic OpenAPI v2 messages use
// (varint, 64-bit double, length-delimited). https://protobuf.dev/programming-guides/encoding/

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;

const encoder = new TextEncoder();

/**
 * Appends fields to one message. Proto3 leaves default values (empty string, false, 0) off the
 * wire, so the scalar writers skip them; `message` always writes, so an empty sub-message is
 * still present (gnostic relies on presence for oneofs).
 */
export class ProtoWriter {
  #buf = new Uint8Array(256);
  #view = new DataView(this.#buf.buffer);
  #length = 0;

  #reserve(n: number): void {
    if (this.#length + n <= this.#buf.length) return;
    let size = this.#buf.length * 2;
    while (size < this.#length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buf.subarray(0, this.#length));
    this.#buf = next;
    this.#view = new DataView(next.buffer);
  }

  #varint(value: number): void {
    this.#reserve(10);
    if (value >= 0 && value <= 0xffffffff) {
      let v = value;
      while (v >= 0x80) {
        this.#buf[this.#length++] = (v & 0x7f) | 0x80;
        v = Math.floor(v / 128);
      }
      this.#buf[this.#length++] = v;
      return;
    }
    // Negative or large int64: two's complement over 64 bits, ten bytes for negatives.
    let big = BigInt.asUintN(64, BigInt(value));
    while (big >= 0x80n) {
      this.#buf[this.#length++] = Number(big & 0x7fn) | 0x80;
      big >>= 7n;
    }
    this.#buf[this.#length++] = Number(big);
  }

  #tag(field: number, wireType: number): void {
    this.#varint(field * 8 + wireType);
  }

  string(field: number, value: string | undefined): this {
    if (value === undefined || value === '') return this;
    return this.#utf8(field, value);
  }

  /** A repeated string field: one entry per value, empty strings included. */
  strings(field: number, values: readonly string[] | undefined): this {
    for (const v of values ?? []) this.#utf8(field, v);
    return this;
  }

  #utf8(field: number, value: string): this {
    const size = Buffer.byteLength(value, 'utf8');
    this.#tag(field, LENGTH_DELIMITED);
    this.#varint(size);
    this.#reserve(size);
    encoder.encodeInto(value, this.#buf.subarray(this.#length, this.#length + size));
    this.#length += size;
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.#tag(field, LENGTH_DELIMITED);
    this.#varint(value.length);
    this.#reserve(value.length);
    this.#buf.set(value, this.#length);
    this.#length += value.length;
    return this;
  }

  bool(field: number, value: boolean | undefined): this {
    if (!value) return this;
    this.#tag(field, VARINT);
    this.#varint(1);
    return this;
  }

  /** A bool that is written even when false: a oneof member, where presence is the value. */
  oneofBool(field: number, value: boolean): this {
    this.#tag(field, VARINT);
    this.#varint(value ? 1 : 0);
    return this;
  }

  int64(field: number, value: number | undefined): this {
    if (value === undefined || value === 0) return this;
    this.#tag(field, VARINT);
    this.#varint(Math.trunc(value));
    return this;
  }

  double(field: number, value: number | undefined): this {
    if (value === undefined || value === 0) return this;
    this.#tag(field, FIXED64);
    this.#reserve(8);
    this.#view.setFloat64(this.#length, value, true);
    this.#length += 8;
    return this;
  }

  /**
   * A sub-message: `build` writes its fields into this same writer after a 5-byte length slot,
   * which is then filled in and the content moved left over any unused bytes of the slot.
   */
  message(field: number, build: (w: ProtoWriter) => void): this {
    this.#tag(field, LENGTH_DELIMITED);
    const slot = this.#length;
    this.#reserve(5);
    this.#length += 5;
    const start = this.#length;
    build(this);
    const size = this.#length - start;
    const end = this.#length;
    this.#length = slot;
    this.#varint(size);
    const used = this.#length - slot;
    this.#buf.copyWithin(slot + used, start, end);
    this.#length = slot + used + size;
    return this;
  }

  /** The bytes written so far (a view, valid until the next write). */
  finish(): Uint8Array {
    return this.#buf.subarray(0, this.#length);
  }
}
