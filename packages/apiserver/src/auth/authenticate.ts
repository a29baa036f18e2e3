// Bearer-token authentication (semantics doc §11): the server's own admin token, a static token
// of a known user (the embedded mode's components, ADR 0027), or a service
// account token this server issued whose service account (and bound Pod or Secret) still exists
// with the uid the token names, checked at every use like kube's service account authenticator.
import { parseObject } from '../controllers/stored-objects.ts';
import type { StoreReader } from '../storage/store.ts';
import {
  TokenRejected,
  type KubernetesClaim,
  type ObjectRef,
  type ServiceAccountTokens,
} from './service-account-tokens.ts';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export type Authentication =
  | { authenticated: true; user: UserInfo; audiences: string[] }
  | { authenticated: false; error: string };

export interface Authenticator {
  store: StoreReader;
  tokens: ServiceAccountTokens;
  /** The single admin user's token; unset means the admin token authenticates nobody. */
  adminToken?: string;
  /** Static tokens and who each one is (kube's --token-auth-file, in memory). */
  users?: ReadonlyMap<string, UserInfo>;
  now: () => Date;
}

export const ADMIN_USER: UserInfo = {
  username: 'agent-sandbox:admin',
  groups: ['system:masters', 'system:authenticated'],
};

const INVALID = 'invalid bearer token';

/** The live uid of a stored object, or why the token that names it no longer counts. */
function checkRef(
  store: StoreReader,
  key: string,
  ref: ObjectRef,
  what: string,
  claimName: string,
): void {
  const stored = store.get(key);
  const obj = stored ? parseObject(stored.value) : undefined;
  // kube reports the failed lookup as it is (`serviceaccounts "bot" not found`).
  if (!obj) throw new TokenRejected(`${key.split('/')[3] ?? ''} "${ref.name}" not found`);
  if (obj.metadata.deletionTimestamp !== undefined)
    throw new TokenRejected('service account token has been invalidated');
  if (obj.metadata.uid !== ref.uid)
    throw new TokenRejected(
      `${what} UID (${obj.metadata.uid ?? ''}) does not match ${claimName} (${ref.uid})`,
    );
}

function checkLive(store: StoreReader, c: KubernetesClaim): void {
  const ns = c.namespace;
  checkRef(
    store,
    `/registry/core/serviceaccounts/${ns}/${c.serviceaccount.name}`,
    c.serviceaccount,
    'service account',
    'claim',
  );
  if (c.secret)
    checkRef(
      store,
      `/registry/core/secrets/${ns}/${c.secret.name}`,
      c.secret,
      'secret',
      'service account secret ref claim',
    );
  if (c.pod)
    checkRef(
      store,
      `/registry/core/pods/${ns}/${c.pod.name}`,
      c.pod,
      'pod',
      'service account pod ref claim',
    );
}

function userOf(c: KubernetesClaim, id: string): UserInfo {
  const extra: Record<string, string[]> = {
    'authentication.kubernetes.io/credential-id': [`JTI=${id}`],
  };
  if (c.node) {
    extra['authentication.kubernetes.io/node-name'] = [c.node.name];
    extra['authentication.kubernetes.io/node-uid'] = [c.node.uid];
  }
  if (c.pod) {
    extra['authentication.kubernetes.io/pod-name'] = [c.pod.name];
    extra['authentication.kubernetes.io/pod-uid'] = [c.pod.uid];
  }
  const sorted = Object.fromEntries(Object.entries(extra).sort(([a], [b]) => (a < b ? -1 : 1)));
  return {
    username: `system:serviceaccount:${c.namespace}:${c.serviceaccount.name}`,
    uid: c.serviceaccount.uid,
    groups: [
      'system:serviceaccounts',
      `system:serviceaccounts:${c.namespace}`,
      'system:authenticated',
    ],
    extra: sorted,
  };
}

/**
 * Authenticates `token` for `audiences` (a TokenReview's spec.audiences; empty means the API
 * server's own audience, the issuer). Never throws for a bad token: the result says why.
 */
export async function authenticate(
  a: Authenticator,
  token: string,
  audiences: readonly string[] = [],
): Promise<Authentication> {
  const wanted = audiences.length > 0 ? [...audiences] : [a.tokens.issuer];
  if (a.adminToken !== undefined && token === a.adminToken)
    return { authenticated: true, user: ADMIN_USER, audiences: wanted };
  const known = a.users?.get(token);
  if (known) return { authenticated: true, user: known, audiences: wanted };
  try {
    const verified = await a.tokens.verify(token, a.now());
    if (!verified) return { authenticated: false, error: INVALID };
    const matching = wanted.filter((w) => verified.audiences.includes(w));
    if (matching.length === 0)
      throw new TokenRejected(
        `token audiences ${JSON.stringify(verified.audiences)} is invalid for the target audiences ${JSON.stringify(wanted)}`,
      );
    checkLive(a.store, verified.claim);
    return { authenticated: true, user: userOf(verified.claim, verified.id), audiences: matching };
  } catch (err: unknown) {
    if (err instanceof TokenRejected)
      return { authenticated: false, error: `[${INVALID}, ${err.message}]` };
    throw err;
  }
}
