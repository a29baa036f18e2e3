// Errors of the controllers package (STYLE.md error-handling rule 1: one root class per package,
// each error with a stable `code`).

export type ControllersErrorCode =
  | 'MultiplePods'
  | 'OwnedByOther'
  | 'NotAdoptable'
  | 'ServiceNotHeadless'
  | 'ReconcileFailed'
  | 'ClaimFailed'
  | 'InvalidOptions';

export class ControllersError extends Error {
  readonly code: ControllersErrorCode;

  constructor(code: ControllersErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ControllersError';
    this.code = code;
  }
}

/**
 * More than one Pod names this Sandbox as its controller (spec §11.5 step 3). The reconciler fails
 * closed: no Pod is created or deleted, Ready reports `MultiplePods`, and the error is not returned
 * (no hot loop) because only a Pod event can change the situation.
 */
export class MultiplePodsError extends ControllersError {
  readonly count: number;

  constructor(count: number) {
    super(
      'MultiplePods',
      `multiple Pods (${count}) are controlled by this Sandbox; refusing to choose or create a Pod`,
    );
    this.name = 'MultiplePodsError';
    this.count = count;
  }
}
