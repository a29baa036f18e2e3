// Caps how many commands run at once across every API (legacy /execute, gRPC Execute and Start),
// so a flood of requests is refused with a clear error instead of exhausting the sandbox.

export interface ProcessSlot {
  release(): void;
}

export class ProcessLimiter {
  private running = 0;
  constructor(readonly limit: number) {}

  /** A slot, or undefined when `limit` commands already run. Release exactly once. */
  acquire(): ProcessSlot | undefined {
    if (this.limit > 0 && this.running >= this.limit) return undefined;
    this.running++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.running--;
      },
    };
  }

  get inUse(): number {
    return this.running;
  }

  refusal(): string {
    return `too many running processes (limit ${this.limit}, --max-processes); retry when some have finished`;
  }
}
