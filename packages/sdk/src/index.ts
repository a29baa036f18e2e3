// @agent-sandbox/sdk: create, connect to and drive agent sandboxes (README.md).
export {
  Sandbox,
  type SandboxCreateOptions,
  type SandboxConnectOptions,
  type SandboxListOptions,
  type LifecycleWaitOptions,
} from './sandbox.ts';
export type { SandboxInfo, SandboxState } from './types.ts';
export type {
  ApiServerOptions,
  ConnectionOptions,
  CreateSpec,
  Env,
  SandboxdPorts,
  SandboxSource,
} from './options.ts';
export {
  SdkError,
  InvalidArgumentError,
  ConfigError,
  NotFoundError,
  AlreadyExistsError,
  ConflictError,
  AuthenticationError,
  PermissionDeniedError,
  RateLimitError,
  TimeoutError,
  AbortedError,
  ConnectionError,
  ServerError,
  TemplateNotFoundError,
  WarmPoolNotFoundError,
  ClaimFailedError,
  SandboxDeletedError,
  NotReadyError,
  UnsupportedError,
  errorFromStatus,
  type SdkErrorCode,
  type SdkErrorOptions,
} from './errors.ts';
