// A stop that hangs should say where: the composition root stops its parts one by one and
// reports each that is still stopping after a while.

export const SLOW_STOP_MS = 5_000;

/** Awaits `stopping`, telling `onSlow` every SLOW_STOP_MS until it settles. */
export async function reportSlow(
  part: string,
  stopping: Promise<void>,
  onSlow: ((part: string, elapsedMs: number) => void) | undefined,
): Promise<void> {
  if (!onSlow) return stopping;
  const started = Date.now();
  const timer = setInterval(() => onSlow(part, Date.now() - started), SLOW_STOP_MS);
  try {
    await stopping;
  } finally {
    clearInterval(timer);
  }
}
