// What must hold after a claim storm (issue 10, "Must show"), as a pure check of objects listed
// from the API server: every claim Ready and bound to its own Sandbox, which it controls; no
// Sandbox bound to or owned by two claims; no orphan; the pool back to its size, all Ready.
import { Labels, type v1beta1 } from '@agent-sandbox/api';
import type { KubeObject } from '@agent-sandbox/kube-types';

export type Claim = v1beta1.SandboxClaim & KubeObject;
export type Sandbox = v1beta1.Sandbox & KubeObject;

export interface StormState {
  claims: Claim[];
  sandboxes: Sandbox[];
}

export interface StormSplit {
  warm: number;
  cold: number;
}

const ready = (o: { status?: { conditions?: { type: string; status: string }[] } }): boolean =>
  o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** Violations (empty when all hold) and the warm/cold split of the bound claims. */
export function checkClaimStorm(
  state: StormState,
  options: { claims: number; pool: string; poolReplicas: number },
): { violations: string[]; split: StormSplit } {
  const out: string[] = [];
  const split: StormSplit = { warm: 0, cold: 0 };
  const byName = new Map(state.sandboxes.map((s) => [s.metadata.name ?? '', s]));
  const boundBy = new Map<string, string>();
  if (state.claims.length !== options.claims)
    out.push(`want ${options.claims} claims, found ${state.claims.length}`);
  for (const claim of state.claims) {
    const name = claim.metadata.name ?? '';
    const bound = claim.status?.sandbox?.name;
    if (!ready(claim)) out.push(`claim ${name} is not Ready`);
    if (!bound) {
      out.push(`claim ${name} has no status.sandbox.name`);
      continue;
    }
    const other = boundBy.get(bound);
    if (other !== undefined) out.push(`sandbox ${bound} is bound to claims ${other} and ${name}`);
    boundBy.set(bound, name);
    const sandbox = byName.get(bound);
    if (sandbox === undefined) {
      out.push(`claim ${name}: sandbox ${bound} does not exist`);
      continue;
    }
    const ctl = sandbox.metadata.ownerReferences?.find((r) => r.controller === true);
    if (ctl?.kind !== 'SandboxClaim' || ctl.uid !== claim.metadata.uid)
      out.push(
        `claim ${name}: sandbox ${bound} is controlled by ${ctl?.kind ?? 'nobody'} ${ctl?.name ?? ''}`,
      );
    if (sandbox.metadata.labels?.[Labels.ClaimUid] !== claim.metadata.uid)
      out.push(
        `claim ${name}: sandbox ${bound} has claim-uid ${sandbox.metadata.labels?.[Labels.ClaimUid]}`,
      );
    if (!ready(sandbox)) out.push(`claim ${name}: sandbox ${bound} is not Ready`);
    if (bound === name) split.cold++;
    else split.warm++;
  }
  const claimUids = new Set(state.claims.map((c) => c.metadata.uid));
  let members = 0;
  for (const sandbox of state.sandboxes) {
    const name = sandbox.metadata.name ?? '';
    const claimRefs = (sandbox.metadata.ownerReferences ?? []).filter(
      (r) => r.kind === 'SandboxClaim',
    );
    if (claimRefs.length > 1)
      out.push(`sandbox ${name} has ${claimRefs.length} SandboxClaim owners`);
    const ctl = sandbox.metadata.ownerReferences?.find((r) => r.controller === true);
    if (ctl === undefined) out.push(`sandbox ${name} is an orphan (no controller)`);
    else if (ctl.kind === 'SandboxClaim' && !claimUids.has(ctl.uid))
      out.push(`sandbox ${name} is controlled by a claim that does not exist`);
    else if (ctl.kind === 'SandboxClaim' && !boundBy.has(name))
      out.push(`sandbox ${name} is controlled by claim ${ctl.name} but bound to none`);
    else if (ctl.kind === 'SandboxWarmPool') {
      if (ctl.name !== options.pool) out.push(`sandbox ${name} belongs to pool ${ctl.name}`);
      else if (sandbox.metadata.deletionTimestamp === undefined) {
        members++;
        if (!ready(sandbox)) out.push(`pool member ${name} is not Ready`);
      }
    }
  }
  if (members !== options.poolReplicas)
    out.push(`want ${options.poolReplicas} pool members, found ${members}`);
  return { violations: out, split };
}
