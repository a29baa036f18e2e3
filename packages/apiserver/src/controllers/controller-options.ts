// Options every in-server controller takes (STYLE.md house style 4: options objects, defaults in
// one place).

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
