// Locates ../shared (upstream data files for compatibility tests) beside the repository.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const SHARED_DIR = process.env['AGENT_SANDBOX_SHARED_DIR'] ?? `${REPO_ROOT}../shared`;
export const UPSTREAM_DIR = `${SHARED_DIR}/upstream`;

/** Why upstream-dependent tests are skipped, or undefined when the data is there. */
export function upstreamMissingReason(): string | undefined {
  return existsSync(UPSTREAM_DIR)
    ? undefined
    : `upstream reference data not found at ${UPSTREAM_DIR}: clone the project with ../shared beside it, or set AGENT_SANDBOX_SHARED_DIR`;
}
