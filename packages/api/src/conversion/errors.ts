// The error conversion throws (STYLE.md "Error-handling rules"): callers narrow with
// `instanceof ConversionError` inside a process and with `code` across processes. The embedded
// API server maps it to a conversion failure response once, at its boundary.

/** Stable codes for everything the conversion functions throw. */
export type ConversionErrorCode =
  /** The input is not a Kubernetes object of the expected shape (apiVersion, kind, metadata, spec). */
  | 'InvalidObject'
  /** The kind is not one of Sandbox, SandboxTemplate, SandboxClaim, SandboxWarmPool. */
  | 'UnsupportedKind'
  /** The source or target apiVersion is not a served version of the kind's group. */
  | 'UnsupportedVersion'
  /** An annotation the conversion reads holds a value it cannot accept (spec §4.2). */
  | 'InvalidAnnotation'
  /** A `v1alpha1-*-state` annotation is not the JSON of an object (spec §3.4, §5.4). */
  | 'InvalidState';

export class ConversionError extends Error {
  readonly code: ConversionErrorCode;

  constructor(code: ConversionErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConversionError';
    this.code = code;
  }
}
