// Warm adoption I/O (spec §12.4.1–12.4.2): pops candidates from the warm queue (NodeSpread, Ready
// first, the first networked not-Ready one as fallback, IP-less ones counted as pending), records
// the choice on the claim with a resourceVersion-guarded Update, then hands the Sandbox over with
// a locked merge patch. Two claims can never both own one Sandbox: the queue pop is exclusive in
// this process, and across processes (restarts, cache lag) the locked patch lets exactly one win;
// the loser resolves against the API server and never switches candidates within a pass.
import { Annotations, Labels } from '@agent-sandbox/api';
import { isConflict, isInvalid, isNotFound, type KubeClient } from '@agent-sandbox/kube';
import { blueprintHash, blueprintMatches } from '../extensions/blueprint.ts';
import {
  SANDBOX_CLAIMS,
  controlledByKind,
  isControlledBy,
  type ClaimObject,
  type SandboxObj,
  type TemplateObject,
} from '../extensions/resources.ts';
import { SANDBOXES } from '../sandbox/child-writes.ts';
import { nodeSpread, WarmSandboxQueue, type QueueKey } from '../warm-queue/warm-queue.ts';
import { adoptionPatch, candidateProblem, hasPodIPs, isSandboxReady } from './adoption.ts';
import { adoptionConflict } from './claim-errors.ts';
import type { ClaimReads } from './claim-reads.ts';

export const CLAIM_FIELD_OWNER = 'sandboxclaim-controller';
const RETRIES = 5;

export interface Candidate {
  sandbox?: SandboxObj;
  /** Some candidates had no podIPs yet. */
  pending: boolean;
}

export interface Adopted {
  claim: ClaimObject;
  sandbox: SandboxObj;
}

export class WarmAdopter {
  readonly #client: KubeClient;
  readonly #reads: ClaimReads;
  readonly #queue: WarmSandboxQueue;

  constructor(client: KubeClient, reads: ClaimReads, queue: WarmSandboxQueue) {
    this.#client = client;
    this.#reads = reads;
    this.#queue = queue;
  }

  /** getCandidate: the Sandbox to adopt, removed from the queue; skipped keys go back. */
  candidate(claim: ClaimObject): Candidate {
    const ns = claim.metadata.namespace ?? '';
    const name = WarmSandboxQueue.queueName(ns, claim.spec.warmPoolRef.name);
    const back: QueueKey[] = [];
    let fallback: { key: QueueKey; sandbox: SandboxObj } | undefined;
    let chosen: SandboxObj | undefined;
    let pending = false;
    let recreate: { template: TemplateObject | undefined } | undefined;
    for (
      let key = this.#queue.pop(name, nodeSpread);
      key;
      key = this.#queue.pop(name, nodeSpread)
    ) {
      const sandbox = this.#reads.sandbox(key.namespace, key.name);
      if (sandbox === undefined || candidateProblem(sandbox, claim) !== undefined) continue;
      const pool = this.#reads.pool(ns, claim.spec.warmPoolRef.name);
      if (pool?.spec.updateStrategy?.type === 'Recreate') {
        recreate ??= { template: this.#reads.template(ns, pool.spec.sandboxTemplateRef.name) };
        if (recreate.template === undefined) {
          if (!hasPodIPs(sandbox)) pending = true;
          back.push(key);
          continue;
        }
        const hash = sandbox.metadata.labels?.[Labels.SandboxTemplateHash];
        if (
          hash !== blueprintHash(recreate.template) &&
          !blueprintMatches(recreate.template, sandbox)
        )
          continue; // stale: the pool replaces it
      }
      const node = sandbox.status?.nodeName;
      const refreshed = { ...key, ...(node ? { nodeName: node } : {}) };
      if (!hasPodIPs(sandbox)) {
        pending = true;
        back.push(refreshed);
      } else if (isSandboxReady(sandbox)) {
        chosen = sandbox;
        break;
      } else if (fallback === undefined) fallback = { key: refreshed, sandbox };
      else back.push(refreshed);
    }
    if (chosen !== undefined && fallback !== undefined) back.push(fallback.key);
    for (const key of back) this.#queue.add(name, key);
    const sandbox = chosen ?? fallback?.sandbox;
    return { pending, ...(sandbox !== undefined ? { sandbox } : {}) };
  }

  /** Puts a candidate back (its adoption did not start). */
  giveBack(claim: ClaimObject, sandbox: SandboxObj): void {
    const ns = claim.metadata.namespace ?? '';
    this.#queue.add(WarmSandboxQueue.queueName(ns, claim.spec.warmPoolRef.name), {
      namespace: ns,
      name: sandbox.metadata.name ?? '',
    });
  }

  /**
   * Records the choice on the claim (Update, retried on conflict from a fresh read), with
   * `extraAnnotations` riding along. Returns the updated claim; `onLatest` sees every newer
   * claim it got from the server (the Update's answer, each re-read), failure or not.
   */
  async record(
    claim: ClaimObject,
    sandboxName: string,
    extraAnnotations: Record<string, string>,
    signal: AbortSignal,
    onLatest: (claim: ClaimObject) => void = () => undefined,
  ): Promise<ClaimObject> {
    let current = claim;
    for (let attempt = 0; attempt < RETRIES; attempt++) {
      const next = structuredClone(current);
      next.metadata.annotations = {
        ...(next.metadata.annotations ?? {}),
        ...extraAnnotations,
        [Annotations.SandboxName]: sandboxName,
      };
      try {
        const updated = await this.#client.update(SANDBOX_CLAIMS, next, {
          fieldManager: CLAIM_FIELD_OWNER,
          signal,
        });
        onLatest(updated);
        return updated;
      } catch (err: unknown) {
        if (!isConflict(err)) throw err;
      }
      const live = await this.#client.get<ClaimObject>(
        SANDBOX_CLAIMS,
        claim.metadata.namespace,
        claim.metadata.name ?? '',
        { signal },
      );
      const name = claim.metadata.name ?? '';
      if (live.metadata.uid !== claim.metadata.uid) {
        throw adoptionConflict(`claim ${name} was deleted and recreated during adoption`);
      }
      const assigned = live.metadata.annotations?.[Annotations.SandboxName];
      if (assigned !== undefined && assigned !== sandboxName) {
        throw adoptionConflict(`claim ${name} already assigned sandbox ${assigned}`);
      }
      onLatest(live);
      current = live;
    }
    throw adoptionConflict(`claim ${claim.metadata.name ?? ''} (conflicting concurrent write)`);
  }

  /**
   * completeAdoption: the locked merge patch on the Sandbox; on 404/409 resolves against the API
   * server (already ours → done; gone or taken → the claim's reference is removed).
   */
  async complete(
    claim: ClaimObject,
    candidate: SandboxObj,
    template: TemplateObject | undefined,
    signal: AbortSignal,
  ): Promise<SandboxObj> {
    const c = claim.metadata.name ?? '';
    const s = candidate.metadata.name ?? '';
    const ns = candidate.metadata.namespace ?? '';
    let snapshot = candidate;
    for (let attempt = 0; attempt < RETRIES; attempt++) {
      try {
        return await this.#client.patch<SandboxObj>(
          SANDBOXES,
          ns,
          s,
          { type: 'merge', body: adoptionPatch(snapshot, claim, template) },
          { fieldManager: CLAIM_FIELD_OWNER, signal },
        );
      } catch (err: unknown) {
        if (!isConflict(err) && !isNotFound(err)) throw err;
      }
      let live: SandboxObj;
      try {
        live = await this.#client.get<SandboxObj>(SANDBOXES, ns, s, { signal });
      } catch (err: unknown) {
        if (!isNotFound(err)) throw err;
        await this.#dropReference(claim, s, 'deleted', signal);
        throw adoptionConflict(`sandbox ${s} deleted before adoption completed`);
      }
      if (isControlledBy(live, claim)) return live;
      if (controlledByKind(live, 'SandboxWarmPool') === undefined) {
        await this.#dropReference(claim, s, 'lost to another owner', signal);
        throw adoptionConflict(
          `sandbox ${s} is no longer pool-owned and not controlled by claim ${c}`,
        );
      }
      const problem = candidateProblem(live, claim);
      if (problem !== undefined) {
        await this.#dropReference(claim, s, 'lost to another owner', signal);
        throw adoptionConflict(`sandbox ${s} is no longer adoptable by claim ${c}: ${problem}`);
      }
      snapshot = live;
    }
    throw adoptionConflict(
      `completing adoption of ${s} for claim ${c} (conflicting concurrent write)`,
    );
  }

  /**
   * Removes the claim's sandbox-name reference, guarded on its exact value and the claim UID. A
   * failed removal keeps the reference and is reported as the AdoptionConflict it is (upstream's
   * wording), not as a bare API error: the next pass finds the reference dangling and removes it
   * (§12.4 step 2). A cancelled pass stays cancelled.
   */
  async #dropReference(
    claim: ClaimObject,
    sandboxName: string,
    why: 'deleted' | 'lost to another owner',
    signal: AbortSignal,
  ): Promise<void> {
    const path = `/metadata/annotations/${Annotations.SandboxName.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    try {
      await this.#client.patch(
        SANDBOX_CLAIMS,
        claim.metadata.namespace,
        claim.metadata.name ?? '',
        {
          type: 'json',
          ops: [
            { op: 'test', path: '/metadata/uid', value: claim.metadata.uid },
            { op: 'test', path, value: sandboxName },
            { op: 'remove', path },
          ],
        },
        { fieldManager: CLAIM_FIELD_OWNER, signal },
      );
    } catch (err: unknown) {
      if (isNotFound(err)) return;
      // A failed test means the reference already changed: nothing of ours to remove.
      if (isInvalid(err) || isConflict(err)) return;
      if (signal.aborted) throw err;
      throw adoptionConflict(`sandbox ${sandboxName} ${why} and reference cleanup failed`, err);
    }
  }
}
