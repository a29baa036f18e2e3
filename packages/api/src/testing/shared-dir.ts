// Locates ../shared (upstream data files for compatibility tests) beside the repository.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const SHARED_DIR = process.env['AGENT_SANDBOX_SHARED_DIR'] ?? `${REPO_ROOT}../shared`;
export const UPSTREAM_DIR = `${SHARED_DIR}/upstream`;

/**
 * Why upstream-dependent tests are skipped, or undefined when the data is there. In CI
 * (`CI=true`) a missing ../shared throws instead: a comparison with upstream that silently
 * skips would pass without comparing anything.
 */
export function upstreamMissingReason(): string | undefined {
  if (existsSync(UPSTREAM_DIR)) return undefined;
  const reason = `upstream reference data not found at ${UPSTREAM_DIR}: clone the project with ../shared beside it, or set AGENT_SANDBOX_SHARED_DIR`;
  if (process.env['CI'] === 'true') throw new Error(`CI=true and ${reason}`);
  return reason;
}
