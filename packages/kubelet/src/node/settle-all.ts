// Promise.all for set-up steps that must not be left running: a failure is reported only once
// every step has settled, so nothing is still being made when the caller cleans up.

/** Like Promise.all, but waits for every promise to settle before rejecting with the first error. */
export async function settleAll<T extends readonly unknown[]>(
  ps: readonly [...{ [K in keyof T]: Promise<T[K]> }],
): Promise<T> {
  const settled = await Promise.allSettled(ps);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
