// Options every in-server controller takes (STYLE.md house style 4: options objects, defaults in
// one place).
import { isStorageError } from '../storage/errors.ts';

export interface ControllerOptions {
  /**
   * Told about unexpected reconcile failures; the key is retried with backoff either way. The
   * controller alone reports, reconcilers never log (STYLE.md error-handling rule 5).
   * @default print one line to stderr
   */
  onError?: (controller: string, key: string, err: unknown) => void;
}

export function reportToStderr(controller: string, key: string, err: unknown): void {
  const why = err instanceof Error ? err.message : String(err);
  console.error(`apiserver ${controller}: reconcile ${key}: ${why}`);
}

/**
 * The `onError` a controller hands its work queue: optimistic-concurrency conflicts are expected
 * (another writer got in first; the retry reads the new state) and are not reported.
 */
export function unexpectedErrors(
  controller: string,
  onError: NonNullable<ControllerOptions['onError']>,
): (key: string, err: unknown) => void {
  return (key, err) => {
    if (!isStorageError(err, 'Conflict')) onError(controller, key, err);
  };
}
