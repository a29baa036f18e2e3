// Every error of @agent-sandbox/router extends RouterError (STYLE error rule 1).
export type RouterErrorCode =
  'InvalidArgument' | 'Unauthenticated' | 'Forbidden' | 'Authz' | 'Upstream';

export class RouterError extends Error {
  readonly code: RouterErrorCode;
  constructor(code: RouterErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/** An option that cannot work; the message names the flag and the fix. */
export class InvalidOptionError extends RouterError {
  constructor(message: string) {
    super('InvalidArgument', message);
  }
}
