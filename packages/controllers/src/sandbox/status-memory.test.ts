// The memory of the last status write (status-memory.ts): a copy known to predate it reconciles
// from the written status; any other copy, another Sandbox or an empty memory (a restart) from
// the cache.
import type { v1beta1 } from '@agent-sandbox/api';
import { describe, expect, it } from 'vitest';
import { StatusWriteMemory, freshStatus } from './status-memory.ts';

const ready = (status: 'True' | 'False'): v1beta1.SandboxStatus => ({
  podIPs: ['10.0.0.1'],
  conditions: [
    {
      type: 'Ready',
      status,
      reason: 'DependenciesReady',
      message: 'Pod is Ready',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    },
  ],
});
const copy = (resourceVersion: string, status?: v1beta1.SandboxStatus) => ({
  metadata: { name: 's', uid: 'u', resourceVersion },
  ...(status !== undefined ? { status } : {}),
});

describe('freshStatus', () => {
  it('only a version known to predate the write gets the written status', () => {
    const last = { over: ['7', '8', '9'], status: ready('True') };
    expect(freshStatus(last, '7')).toEqual(ready('True'));
    expect(freshStatus(last, '9')).toEqual(ready('True'));
    expect(freshStatus(last, '10')).toBeUndefined();
    expect(freshStatus(undefined, '7')).toBeUndefined();
    expect(freshStatus(last, undefined)).toBeUndefined();
  });
});

describe('StatusWriteMemory', () => {
  it("the base, the pass's own patches and the answer predate the write; a newer copy forgets it", () => {
    const memory = new StatusWriteMemory();
    expect(memory.freshen(copy('7'))).toEqual(copy('7')); // nothing remembered
    memory.written('u', { base: '7', produced: ['8'], answer: '9' }, ready('True'));
    for (const v of ['7', '8', '9']) expect(memory.freshen(copy(v)).status).toEqual(ready('True'));
    expect(
      memory.freshen({ ...copy('7'), metadata: { uid: 'other', resourceVersion: '7' } }),
    ).not.toHaveProperty('status');
    expect(memory.size).toBe(1);
    const newer = copy('12', ready('False'));
    expect(memory.freshen(newer)).toBe(newer); // another writer, or the cache moved on
    expect(memory.size).toBe(0);
    expect(memory.freshen(copy('7'))).toEqual(copy('7'));
  });

  it('a chain of writes over one stale copy keeps every version that predates the last', () => {
    const memory = new StatusWriteMemory();
    memory.written('u', { base: '7', produced: ['8'], answer: '9' }, ready('False'));
    memory.written('u', { base: '8', produced: [], answer: '10' }, ready('True'));
    for (const v of ['7', '8', '9', '10'])
      expect(memory.freshen(copy(v)).status).toEqual(ready('True'));
  });

  it('a write without a base is not remembered; forget drops an entry', () => {
    const memory = new StatusWriteMemory();
    memory.written('u', { base: undefined, produced: [] }, ready('True'));
    memory.written('', { base: '7', produced: [] }, ready('True'));
    expect(memory.size).toBe(0);
    memory.written('u', { base: '7', produced: [] }, ready('True'));
    memory.forget('u');
    expect(memory.freshen(copy('7'))).toEqual(copy('7'));
  });
});
