// Child process for the multi-process tests (run with `node --import tsx`). Modes:
//   increment <path> <n> <key> <startAtMs>
//                               n OCC read-modify-write increments of a JSON counter, retrying
//                               on Conflict, starting at wall-clock startAtMs so that several
//                               workers really overlap; prints {"conflicts":c} at the end
//   increment-txn <path> <n> <key> <startAtMs>
//                               the same, each increment one `store.txn` (no conflicts possible)
//   crash-writer <path> <sync> [steps]
//                               creates /r/<i> and updates /r/<i-1> forever, `steps` of these
//                               (default 1) per event-loop turn, so one turn is one group-commit
//                               batch; prints each revision on its own line once `durable()`
//                               acknowledges it, while later turns already write (the parent
//                               kills -9 it)
//   hold <path>                 opens the store exclusively, prints "ready", then idles
import { isStorageError } from '../../errors.ts';
import { openStore } from '../open.ts';

const [mode, path, arg, key, startAt] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: store-worker <mode> <path> ...');

if (mode === 'increment' || mode === 'increment-txn') {
  const store = openStore({ path, lock: 'shared', busyTimeoutMs: 30_000 });
  const n = Number(arg);
  const k = key ?? '/counter';
  let conflicts = 0;
  const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  const wait = Number(startAt ?? 0) - Date.now();
  if (wait > 0) sleep(wait);
  for (let i = 0; i < n; i++) {
    // A server does other work between writes; without this pause SQLite's busy handler (which
    // sleeps, then polls) lets one process re-take the lock again and again.
    if (i % 2 === 1) sleep(1);
    if (mode === 'increment-txn') {
      // Read-modify-write inside one BEGIN IMMEDIATE transaction: never stale, never retried.
      store.txn((tx) => {
        const current = tx.get(k);
        if (current === undefined) throw new Error(`${k} missing`);
        const n = (JSON.parse(current.value) as { n: number }).n + 1;
        tx.update(k, JSON.stringify({ n }));
      });
      continue;
    }
    for (;;) {
      const current = store.get(k);
      if (current === undefined) throw new Error(`${k} missing`);
      const next = JSON.stringify({ n: (JSON.parse(current.value) as { n: number }).n + 1 });
      try {
        store.update(k, next, current.revision);
        break;
      } catch (err: unknown) {
        if (!isStorageError(err, 'Conflict')) throw err;
        conflicts++;
      }
    }
  }
  store.close();
  process.stdout.write(JSON.stringify({ conflicts }) + '\n');
} else if (mode === 'crash-writer') {
  const store = openStore({ path, synchronous: arg === 'normal' ? 'normal' : 'full' });
  const steps = Number(key ?? 1);
  for (let i = 0; ;) {
    const revisions: number[] = [];
    for (const end = i + steps; i < end; i++) {
      revisions.push(store.create(`/r/${i}`, JSON.stringify({ i, step: 0 })).revision);
      if (i > 0) {
        const updated = store.update(`/r/${i - 1}`, JSON.stringify({ i: i - 1, step: 1 }));
        if (updated !== 'unchanged') revisions.push(updated.revision);
      }
    }
    // Acknowledge only what is on disk; the next turns write while this fsync runs.
    void store.durable().then(() => process.stdout.write(revisions.map((r) => `${r}\n`).join('')));
    await new Promise((resolve) => setImmediate(resolve));
  }
} else if (mode === 'hold') {
  openStore({ path });
  process.stdout.write('ready\n');
  setInterval(() => undefined, 60_000);
} else {
  throw new Error(`unknown mode ${String(mode)}`);
}
