// Sandbox.create's control-plane half: validate, write a SandboxClaim (warmPool, template) or a
// Sandbox (image), wait until it is Ready, and delete what was written if that fails.
import { Annotations } from '@agent-sandbox/api';
import { isAlreadyExists, type WatchEvent } from '@agent-sandbox/kube';
import { randomBytes } from 'node:crypto';
import type { Connection } from './connection.ts';
import type { CreateSpec } from './options.ts';
import {
  AlreadyExistsError,
  ClaimFailedError,
  InvalidArgumentError,
  PermissionDeniedError,
  TemplateNotFoundError,
  WarmPoolNotFoundError,
  fromKubeError,
} from './errors.ts';
import { TERMINAL_CLAIM_REASONS, conditionOf } from './info.ts';
import {
  desiredClaim,
  desiredImageSandbox,
  shadowPool,
  shadowPoolName,
  type ObjectInput,
} from './objects.ts';
import {
  SANDBOXES,
  SANDBOX_CLAIMS,
  SANDBOX_WARM_POOLS,
  type ClaimObject,
  type SandboxObject,
} from './resources.ts';
import { NO_MARK, traceContextAnnotation, type MarkEvent } from './tracing.ts';
import {
  checkAnnotations,
  checkDnsLabel,
  checkDnsSubdomain,
  checkEnv,
  checkLabels,
  checkTimeoutMs,
} from './validation.ts';
import { openWatch, waitFor } from './wait.ts';

export interface Created {
  claimName: string | undefined;
  sandboxName: string;
  /**
   * The Pod IPs the Ready object reported (the claim's status.sandbox.podIPs, or the Sandbox's),
   * so the first data-plane call needs no read of the Sandbox.
   */
  podIPs?: string[];
}

/** What createSandbox reports while it waits (both optional). */
export interface CreateHooks {
  /** Timeline points on the caller's span: `sandbox.claim.created`, `.assigned`, `sandbox.ready`. */
  mark?: MarkEvent;
  /**
   * The controller chose this Sandbox for the claim (its first adoption write): the caller may
   * get ready to talk to it while the adoption completes. Called again if the choice changes.
   */
  onAssigned?: (sandboxName: string) => void;
  /**
   * The claim (or the image's Sandbox) reports Pod IPs but is not Ready yet (a cold Sandbox's Pod
   * runs, its daemon is starting): the caller may dial the daemon now. Once per set of IPs.
   */
  onAddress?: (podIPs: string[]) => void;
}

const DEFAULT_READY_TIMEOUT_MS = 180_000;

/** Validates the spec; returns the source kind. Throws InvalidArgumentError naming the field. */
export function checkCreateSpec(spec: CreateSpec): 'warmPool' | 'template' | 'image' {
  const given = (['warmPool', 'template', 'image'] as const).filter((k) => spec[k] !== undefined);
  if (given.length !== 1)
    throw new InvalidArgumentError(
      given.length === 0
        ? 'Sandbox.create needs one of warmPool, template or image'
        : `Sandbox.create takes one of warmPool, template or image, not ${given.join(' and ')}`,
    );
  const kind = given[0] as 'warmPool' | 'template' | 'image';
  const value = spec[kind] ?? '';
  if (kind === 'image') {
    if (value.trim() === '' || /\s/.test(value))
      throw new InvalidArgumentError(
        `image "${value}" must be an image reference such as python:3.12`,
      );
  } else checkDnsSubdomain(kind, value);
  if (spec.name !== undefined) checkDnsLabel('name', spec.name);
  if (spec.timeoutMs !== undefined) checkTimeoutMs('timeoutMs', spec.timeoutMs);
  if (spec.readyTimeoutMs !== undefined) checkTimeoutMs('readyTimeoutMs', spec.readyTimeoutMs);
  if (spec.env) checkEnv('env', spec.env);
  if (spec.labels) checkLabels('labels', spec.labels);
  if (spec.metadata) checkAnnotations('metadata', spec.metadata);
  return kind;
}

export async function createSandbox(
  conn: Connection,
  spec: CreateSpec,
  hooks: CreateHooks = {},
): Promise<Created> {
  const kind = checkCreateSpec(spec);
  const mark = hooks.mark ?? NO_MARK;
  const now = new Date();
  const input: ObjectInput = {
    name: spec.name ?? `sandbox-${randomBytes(4).toString('hex')}`,
    namespace: conn.namespace,
    labels: spec.labels ?? {},
    metadata: spec.metadata ?? {},
    env: spec.env ?? {},
    shutdownAt: spec.timeoutMs === undefined ? undefined : new Date(now.getTime() + spec.timeoutMs),
    now,
    traceContext: traceContextAnnotation(),
  };
  const wait = {
    timeoutMs: spec.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
    signal: spec.signal,
  };
  const addressed = addressOnce(hooks);
  if (kind === 'image')
    return createImageSandbox(conn, input, spec.image ?? '', wait, mark, addressed);
  let pool = spec.warmPool ?? '';
  if (kind === 'template') pool = await ensureShadowPool(conn, spec.template ?? '');
  let assigned: string | undefined;
  const onClaim = (c: ClaimObject): void => {
    addressed(c.status?.sandbox?.podIPs ?? [], isReady(c));
    const chosen = c.metadata.annotations?.[Annotations.SandboxName];
    if (!chosen || chosen === assigned) return;
    assigned = chosen;
    mark('sandbox.claim.assigned');
    hooks.onAssigned?.(chosen);
  };
  return withWatch<ClaimObject, Created>(conn, SANDBOX_CLAIMS, input.name, wait, async (opened) => {
    const claim = await createOrExplain(conn, SANDBOX_CLAIMS, desiredClaim(input, pool));
    mark('sandbox.claim.created');
    return rollbackOnFailure(conn, SANDBOX_CLAIMS, claim, async () => {
      const bound = await waitForBoundClaim(conn, input.name, {
        ...wait,
        initial: claim,
        opened,
        onClaim,
      });
      mark('sandbox.ready');
      return { claimName: input.name, sandboxName: bound.name, podIPs: bound.podIPs };
    });
  });
}

/** CreateHooks.onAddress, called once per set of Pod IPs reported before Ready. */
function addressOnce(hooks: CreateHooks): (podIPs: string[], ready: boolean) => void {
  let addressed = '';
  return (podIPs, ready) => {
    if (podIPs.length === 0 || ready || podIPs.join() === addressed) return;
    addressed = podIPs.join();
    hooks.onAddress?.(podIPs);
  };
}

/** The image source: a Sandbox of our own (no claim), waited for until Ready. */
function createImageSandbox(
  conn: Connection,
  input: ObjectInput,
  image: string,
  wait: { timeoutMs: number; signal?: AbortSignal | undefined },
  mark: MarkEvent,
  addressed: (podIPs: string[], ready: boolean) => void,
): Promise<Created> {
  return withWatch<SandboxObject, Created>(conn, SANDBOXES, input.name, wait, async (opened) => {
    const sandbox = await createOrExplain(conn, SANDBOXES, desiredImageSandbox(input, image));
    mark('sandbox.created');
    return rollbackOnFailure(conn, SANDBOXES, sandbox, async () => {
      const podIPs = await waitFor<SandboxObject, string[]>(
        conn.kube,
        SANDBOXES,
        conn.namespace,
        input.name,
        {
          ...wait,
          initial: sandbox,
          opened,
          what: `Sandbox ${conn.namespace}/${input.name} Ready`,
        },
        (s) => {
          const ready = conditionOf(s, 'Ready')?.status === 'True';
          addressed(s.status?.podIPs ?? [], ready);
          return ready ? (s.status?.podIPs ?? []) : undefined;
        },
      );
      mark('sandbox.ready');
      return { claimName: undefined, sandboxName: input.name, podIPs };
    });
  });
}

/**
 * Runs `write` (create the object, then wait for it) with a watch on the object's name opened
 * at the same time as the create, so the wait starts on a watch already open when the create is
 * answered; the watch is closed when `write` settles.
 */
async function withWatch<T extends ClaimObject | SandboxObject, R>(
  conn: Connection,
  ref: typeof SANDBOXES,
  name: string,
  wait: { timeoutMs: number; signal?: AbortSignal | undefined },
  write: (opened: AsyncIterable<WatchEvent<T>>) => Promise<R>,
): Promise<R> {
  const done = new AbortController();
  // The wait's own deadline and abort cannot reach a watch opened before it started: these do.
  const signals = [done.signal, AbortSignal.timeout(wait.timeoutMs)];
  if (wait.signal) signals.push(wait.signal);
  const signal = AbortSignal.any(signals);
  try {
    return await write(openWatch<T>(conn.kube, ref, conn.namespace, name, wait.timeoutMs, signal));
  } finally {
    done.abort();
  }
}

const isReady = (c: ClaimObject): boolean => conditionOf(c, 'Ready')?.status === 'True';

/** Waits until the claim is Ready and bound; fails fast on the upstream SDKs' terminal reasons. */
export async function waitForClaimReady(
  conn: Connection,
  name: string,
  wait: { timeoutMs: number; signal?: AbortSignal | undefined },
  requireReady = true,
): Promise<string> {
  return (await waitForBoundClaim(conn, name, wait, requireReady)).name;
}

/** waitForClaimReady, with the Pod IPs the claim reports for its sandbox. */
function waitForBoundClaim(
  conn: Connection,
  name: string,
  wait: {
    timeoutMs: number;
    signal?: AbortSignal | undefined;
    initial?: ClaimObject;
    opened?: AsyncIterable<WatchEvent<ClaimObject>>;
    /** Sees every version of the claim the wait reads. */
    onClaim?: (claim: ClaimObject) => void;
  },
  requireReady = true,
): Promise<{ name: string; podIPs: string[] }> {
  const { onClaim, ...options } = wait;
  return waitFor<ClaimObject, { name: string; podIPs: string[] }>(
    conn.kube,
    SANDBOX_CLAIMS,
    conn.namespace,
    name,
    { ...options, what: `SandboxClaim ${conn.namespace}/${name} Ready` },
    (claim) => {
      onClaim?.(claim);
      const ready = conditionOf(claim, 'Ready');
      const reason = ready?.reason ?? '';
      const message = ready?.message ?? reason;
      if (ready?.status === 'False') {
        if (reason === 'TemplateNotFound')
          throw new TemplateNotFoundError(`claim ${name}: ${message}`);
        if (reason === 'WarmPoolNotFound')
          throw new WarmPoolNotFoundError(`claim ${name}: ${message}`);
        if (TERMINAL_CLAIM_REASONS.includes(reason))
          throw new ClaimFailedError(reason, `claim ${name} failed (${reason}): ${message}`);
      }
      const bound = claim.status?.sandbox?.name;
      if (!bound) return undefined;
      const podIPs = claim.status?.sandbox?.podIPs ?? [];
      return !requireReady || ready?.status === 'True' ? { name: bound, podIPs } : undefined;
    },
  );
}

async function ensureShadowPool(conn: Connection, template: string): Promise<string> {
  const pool = shadowPool(conn.namespace, template);
  try {
    await conn.kube.create(SANDBOX_WARM_POOLS, pool);
  } catch (err: unknown) {
    if (isAlreadyExists(err)) return shadowPoolName(template);
    const mapped = fromKubeError(err);
    if (mapped instanceof PermissionDeniedError)
      throw new PermissionDeniedError(
        `template ${template}: may not create the SandboxWarmPool ${shadowPoolName(template)} (replicas 0) it needs; ask an admin to create it, or pass warmPool`,
        { cause: err, status: 403 },
      );
    throw mapped;
  }
  return shadowPoolName(template);
}

async function createOrExplain<T extends ClaimObject | SandboxObject>(
  conn: Connection,
  ref: typeof SANDBOXES,
  obj: T,
): Promise<T> {
  try {
    return await conn.kube.create(ref, obj);
  } catch (err: unknown) {
    if (isAlreadyExists(err))
      throw new AlreadyExistsError(
        `${obj.kind} ${conn.namespace}/${obj.metadata.name} already exists: pick another name, or Sandbox.connect("${obj.metadata.name}")`,
        { cause: err, status: 409 },
      );
    throw fromKubeError(err);
  }
}

async function rollbackOnFailure<T>(
  conn: Connection,
  ref: typeof SANDBOXES,
  created: ClaimObject | SandboxObject,
  wait: () => Promise<T>,
): Promise<T> {
  try {
    return await wait();
  } catch (err: unknown) {
    const uid = created.metadata.uid;
    await conn.kube
      .delete(ref, conn.namespace, created.metadata.name ?? '', {
        ...(uid ? { preconditions: { uid } } : {}),
      })
      .catch(() => undefined); // best effort: the error that matters is the one below
    throw err;
  }
}
