// The claim reconciler's plain writes (spec §12.2–12.5), each one API call shaped by a pure body
// from claim-patches.ts: the observability stamp, launch-type label, legacy-label migration,
// reference removal, the locked status patch, and the deletes (claim, retained Sandbox, strays,
// the legacy NetworkPolicy). Adoption and cold creation stay in the reconciler (warm-adopter.ts).
import { isConflict, isNotFound, type KubeClient } from '@agent-sandbox/kube';
import type { ReconcileContext } from '@agent-sandbox/runtime';
import {
  NETWORK_POLICIES,
  SANDBOX_CLAIMS,
  isControlledBy,
  type ClaimObject,
  type SandboxObj,
} from '../extensions/resources.ts';
import { SANDBOXES } from '../sandbox/child-writes.ts';
import type { ClaimReads } from './claim-reads.ts';
import {
  launchTypePatch,
  legacyLabelMigration,
  referenceRemovalPatch,
  stampPatch,
} from './claim-patches.ts';
import type { DeletePolicy, LaunchType } from './claim-plan.ts';
import { strays } from './claim-plan.ts';
import { claimStatusEqual, claimStatusPatch } from './claim-status.ts';
import { CLAIM_FIELD_OWNER } from './warm-adopter.ts';

type ClaimStatus = NonNullable<ClaimObject['status']>;

export class ClaimWrites {
  readonly #client: KubeClient;
  readonly #reads: ClaimReads;

  constructor(client: KubeClient, reads: ClaimReads) {
    this.#client = client;
    this.#reads = reads;
  }

  /** A merge patch on the claim (metadata), as the claim controller's field owner. */
  patchClaim(
    claim: ClaimObject,
    body: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<ClaimObject> {
    return this.#client.patch<ClaimObject>(
      SANDBOX_CLAIMS,
      claim.metadata.namespace,
      claim.metadata.name ?? '',
      { type: 'merge', body },
      { fieldManager: CLAIM_FIELD_OWNER, signal },
    );
  }

  /** A merge patch on a Sandbox, as the claim controller's field owner. */
  patchSandbox(
    sandbox: SandboxObj,
    body: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<SandboxObj> {
    return this.#client.patch<SandboxObj>(
      SANDBOXES,
      sandbox.metadata.namespace,
      sandbox.metadata.name ?? '',
      { type: 'merge', body },
      { fieldManager: CLAIM_FIELD_OWNER, signal },
    );
  }

  /** Writes the pending observability annotations (once per claim); the claim it got back. */
  async flushStamp(
    claim: ClaimObject,
    stamp: Record<string, string>,
    signal: AbortSignal,
  ): Promise<ClaimObject> {
    const body = stampPatch(stamp);
    return body === undefined ? claim : this.patchClaim(claim, body, signal);
  }

  /** Raw label patch, never overwriting an existing launch-type (§12.4 step 1). */
  async ensureLaunchType(
    sandbox: SandboxObj,
    type: LaunchType,
    signal: AbortSignal,
  ): Promise<SandboxObj> {
    const body = launchTypePatch(sandbox, type);
    return body === undefined ? sandbox : this.patchSandbox(sandbox, body, signal);
  }

  /**
   * §12.4 step 2: an assignment read from the deprecated label moves to the annotation, guarded
   * by the claim's resourceVersion. Non-fatal: the label keeps working, a later pass retries.
   */
  async migrateLegacyLabel(claim: ClaimObject, ctx: ReconcileContext): Promise<ClaimObject> {
    const body = legacyLabelMigration(claim);
    if (body === undefined) return claim;
    try {
      return await this.patchClaim(claim, body, ctx.signal);
    } catch (err: unknown) {
      ctx.logger.warn({ err }, 'moving the legacy sandbox-name label to the annotation failed');
      return claim;
    }
  }

  /** Drops the sandbox-name annotation and the legacy label. */
  async removeReference(claim: ClaimObject, signal: AbortSignal): Promise<void> {
    await this.patchClaim(claim, referenceRemovalPatch(claim), signal);
  }

  /** §12.2 step 11: locked merge patch; false when not written (unchanged, 409, NotFound). */
  async writeStatus(claim: ClaimObject, next: ClaimStatus, signal: AbortSignal): Promise<boolean> {
    if (claimStatusEqual(claim.status, next)) return false;
    try {
      await this.#client.patch(
        SANDBOX_CLAIMS,
        claim.metadata.namespace,
        claim.metadata.name ?? '',
        { type: 'merge', body: claimStatusPatch(claim, next) },
        { subresource: 'status', fieldManager: CLAIM_FIELD_OWNER, signal },
      );
      return true;
    } catch (err: unknown) {
      if (isConflict(err) || isNotFound(err)) return false;
      throw err;
    }
  }

  /** §12.5: the expired claim itself, UID-guarded; already gone is done. */
  async deleteClaim(claim: ClaimObject, policy: DeletePolicy, signal: AbortSignal): Promise<void> {
    await this.#client
      .delete(SANDBOX_CLAIMS, claim.metadata.namespace, claim.metadata.name ?? '', {
        propagationPolicy: policy === 'DeleteForeground' ? 'Foreground' : 'Background',
        preconditions: { uid: claim.metadata.uid ?? '' },
        signal,
      })
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  }

  /** A Sandbox by name, UID-guarded (NotFound and other errors are the caller's). */
  async deleteSandbox(ns: string, name: string, uid: string, signal: AbortSignal): Promise<void> {
    await this.#client.delete(SANDBOXES, ns, name, { preconditions: { uid }, signal });
  }

  /**
   * Once the binding is durable, any other Sandbox this claim controls is a stray (a write of a
   * manager that died mid-pass, landing late): it is deleted, so one claim never holds two.
   */
  async deleteStrays(claim: ClaimObject, bound: string, ctx: ReconcileContext): Promise<void> {
    for (const stray of strays(bound, this.#reads.controlledBy(claim))) {
      const name = stray.metadata.name ?? '';
      ctx.logger.warn(
        { sandbox: name, bound },
        'deleting a second Sandbox controlled by the claim (one claim, one Sandbox)',
      );
      await this.deleteSandbox(
        stray.metadata.namespace ?? '',
        name,
        stray.metadata.uid ?? '',
        ctx.signal,
      ).catch((err: unknown) => {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      });
    }
  }

  /** §12.2 step 2: a legacy per-claim NetworkPolicy controlled by this claim is deleted. */
  async deleteLegacyNetworkPolicy(claim: ClaimObject, ctx: ReconcileContext): Promise<void> {
    const name = `${claim.metadata.name ?? ''}-network-policy`;
    const np = this.#reads.networkPolicy(claim.metadata.namespace ?? '', name);
    if (np === undefined || !isControlledBy(np, claim)) return;
    await this.#client
      .delete(NETWORK_POLICIES, claim.metadata.namespace, name, {
        preconditions: { uid: np.metadata.uid ?? '' },
        signal: ctx.signal,
      })
      .catch((err: unknown) => {
        if (!isNotFound(err))
          ctx.logger.warn({ err }, 'deleting the legacy claim NetworkPolicy failed');
      });
  }
}
