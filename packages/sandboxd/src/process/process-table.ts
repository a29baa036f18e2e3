// The registry of Start processes. Upstream's verbs (WriteStdin, SendSignal, ResizeTTY) see only
// live processes, as upstream does; ended ones stay readable (Inspect, Attach) until
// `retain` newer ones have ended.
import { sandboxdError } from '../errors.ts';
import type { ManagedProcess } from './managed-process.ts';

export class ProcessTable {
  private nextId = 1;
  private readonly live = new Map<number, ManagedProcess>();
  private readonly ended = new Map<number, ManagedProcess>();
  constructor(private readonly retain: number) {}

  /** Virtual process IDs: a counter from 1, unrelated to OS pids (dataplane §4.2). */
  allocateId(): number {
    return this.nextId++;
  }

  add(p: ManagedProcess): void {
    this.live.set(p.id, p);
    p.follow((e) => {
      if (e.kind !== 'exit') return;
      this.live.delete(p.id);
      this.ended.set(p.id, p);
      while (this.ended.size > this.retain) this.ended.delete(this.ended.keys().next().value!);
    });
  }

  /** A live process, or NotFound `process N not found`. */
  getLive(id: number): ManagedProcess {
    const p = this.live.get(id);
    if (!p) throw sandboxdError('NotFound', `process ${id} not found`);
    return p;
  }

  /** A live or retained process, or NotFound. */
  any(id: number): ManagedProcess {
    const p = this.live.get(id) ?? this.ended.get(id);
    if (!p) throw sandboxdError('NotFound', `process ${id} not found`);
    return p;
  }

  all(): ManagedProcess[] {
    return [...this.live.values(), ...this.ended.values()].sort((a, b) => a.id - b.id);
  }

  running(): ManagedProcess[] {
    return [...this.live.values()];
  }
}
