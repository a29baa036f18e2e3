// A Clock whose now() moves only when the test says so, while timers (the work queue's requeues)
// stay real: "inside the window" and "past the deadline" are decided by the test, not by
// wall-clock luck.
import { realClock, type Clock, type TimerHandle } from '@agent-sandbox/kube';

export class HandMovedClock implements Clock {
  #now: number;

  constructor(start = Date.now()) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    return realClock.setTimer(fn, ms);
  }

  advance(ms: number): void {
    this.#now += ms;
  }

  set(ms: number): void {
    this.#now = ms;
  }
}
