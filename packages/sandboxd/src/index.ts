// @agent-sandbox/sandboxd: the in-sandbox daemon (README.md).
export { startSandboxd, type SandboxdHandle } from './daemon.ts';
export type { SandboxdOptions } from './options.ts';
export { SANDBOXD_DEFAULT_PORTS } from './options.ts';
export { SandboxdError, InvalidOptionError, type SandboxdErrorCode } from './errors.ts';
export { sanitizePath, resolveRoot } from './paths.ts';
export {
  sandboxdLaunch,
  describeHostBinary,
  parseLdd,
  type SandboxdLaunch,
  type HostMount,
  type HostBinary,
  type LaunchOptions,
} from './launch.ts';
export { bundleSandboxd } from './bundle.ts';
export { buildCodeCachedBundle, type CodeCachedBundle } from './code-cache.ts';
export { stageLaunchDir } from './launch-dir.ts';
