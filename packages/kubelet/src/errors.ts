// Every error of @agent-sandbox/kubelet extends KubeletError with a stable `code` (STYLE error
// rule 1). Image and runtime failures carry the kubelet's waiting reason so the pod worker can put
// them into a container status unchanged (kubelet-and-oci §1.6).

export type KubeletErrorCode =
  | 'InvalidArgument'
  | 'InvalidImageName'
  | 'ImagePull'
  | 'ImageNotPresent'
  | 'ImageFormat'
  | 'DigestMismatch'
  | 'RuntimeUnavailable'
  | 'Runtime'
  | 'Network'
  | 'NotFound'
  | 'NotRunning'
  /** A streaming request without the node's credentials. */
  | 'Unauthorized'
  /** A streaming request the node understands but does not serve (e.g. SPDY exec). */
  | 'Forbidden';

export class KubeletError extends Error {
  readonly code: KubeletErrorCode;
  constructor(code: KubeletErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/** A bad option, path or spec field; the message names it and the fix. */
export class InvalidArgumentError extends KubeletError {
  constructor(message: string) {
    super('InvalidArgument', message);
  }
}

/** An image could not be resolved, fetched, verified or unpacked. */
export class ImageError extends KubeletError {}

/** A container runtime is missing, or one of its commands failed. */
export class RuntimeError extends KubeletError {}

export function isKubeletError(e: unknown, code?: KubeletErrorCode): e is KubeletError {
  return e instanceof KubeletError && (code === undefined || e.code === code);
}

/** The message of any thrown value, for statuses and logs. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
