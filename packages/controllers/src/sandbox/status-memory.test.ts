// The memory of the last status write (status-memory.ts): a repeat from the same stale copy is
// skipped; a newer copy, another status, another Sandbox or an empty memory (a restart) writes.
import type { v1beta1 } from '@agent-sandbox/api';
import { describe, expect, it } from 'vitest';
import { StatusWriteMemory, repeatsLastWrite } from './status-memory.ts';

const ready = (
  status: 'True' | 'False',
  lastTransitionTime = '2026-01-01T00:00:00Z',
): v1beta1.SandboxStatus => ({
  podIPs: ['10.0.0.1'],
  conditions: [
    {
      type: 'Ready',
      status,
      reason: 'DependenciesReady',
      message: 'Pod is Ready',
      lastTransitionTime,
    },
  ],
});

describe('repeatsLastWrite', () => {
  it('only the same base version and the same status repeat', () => {
    const last = { over: '7', status: ready('True') };
    expect(repeatsLastWrite(last, '7', ready('True'))).toBe(true);
    expect(repeatsLastWrite(last, '8', ready('True'))).toBe(false);
    expect(repeatsLastWrite(last, '7', ready('False'))).toBe(false);
    // Recomputed from the same base one second later: the same transition.
    expect(repeatsLastWrite(last, '7', ready('True', '2026-01-01T00:00:01Z'))).toBe(true);
    expect(repeatsLastWrite(undefined, '7', ready('True'))).toBe(false);
    expect(repeatsLastWrite(last, undefined, ready('True'))).toBe(false);
  });
});

describe('StatusWriteMemory', () => {
  it('skips the repeat from the stale copy, writes from a newer one and forgets the entry', () => {
    const memory = new StatusWriteMemory();
    expect(memory.shouldWrite('u', '7', ready('True'))).toBe(true); // nothing remembered
    memory.written('u', '7', ready('True'));
    expect(memory.shouldWrite('u', '7', ready('True'))).toBe(false);
    expect(memory.shouldWrite('other', '7', ready('True'))).toBe(true);
    expect(memory.shouldWrite('u', '7', ready('False'))).toBe(true); // a different status
    expect(memory.size).toBe(1);
    expect(memory.shouldWrite('u', '9', ready('True'))).toBe(true); // the cache moved on
    expect(memory.size).toBe(0);
  });

  it('a write it did not see accepted is not remembered; forget drops an entry', () => {
    const memory = new StatusWriteMemory();
    memory.written('u', undefined, ready('True'));
    memory.written('', '7', ready('True'));
    expect(memory.size).toBe(0);
    memory.written('u', '7', ready('True'));
    memory.forget('u');
    expect(memory.shouldWrite('u', '7', ready('True'))).toBe(true);
  });
});
