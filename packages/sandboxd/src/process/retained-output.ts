// One output stream of a managed process: the newest `cap` bytes are kept with their absolute
// offset, so a client that reconnects can continue from the last byte it saw (or learn that
// older bytes were dropped).

export class RetainedOutput {
  private chunks: Buffer[] = [];
  private kept = 0;
  /** Absolute offset of the first kept byte. */
  private start = 0;
  constructor(private readonly cap: number) {}

  append(b: Buffer): void {
    this.chunks.push(b);
    this.kept += b.length;
    while (this.kept > this.cap && this.chunks.length > 0) {
      const first = this.chunks[0]!;
      const excess = this.kept - this.cap;
      if (first.length <= excess) {
        this.chunks.shift();
        this.kept -= first.length;
        this.start += first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.kept -= excess;
        this.start += excess;
      }
    }
  }

  /** Total bytes ever written. */
  get end(): number {
    return this.start + this.kept;
  }

  get firstOffset(): number {
    return this.start;
  }

  /** Kept bytes from absolute `offset` on (clamped to what is kept). */
  from(offset: number): Buffer {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, offset - this.start));
  }
}
