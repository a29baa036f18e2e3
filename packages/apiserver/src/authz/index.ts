// Authorization in the embedded API server (kube-apiserver's `--authorization-mode=RBAC`):
// who may do what, decided from the RBAC objects in the revision log. The server asks three
// things of it: may this request proceed (`deny`), may this write of an RBAC object stand
// (`admit`, escalation and bind prevention), and the answers to the access reviews.
import type { ApiError } from '../errors.ts';
import type { Call } from '../http/context.ts';
import type { ResourceRequest } from '../http/request-info.ts';
import type { KubeObject } from '../objects.ts';
import type { Store } from '../storage/store.ts';
import { forbiddenError, requestAttributes } from './attributes.ts';
import { checkRbacWrite } from './escalation.ts';
import type { UserInfo } from './policy.ts';
import { authorize } from './resolver.ts';
import { REVIEW_KINDS, serveReview } from './reviews.ts';
import { StorePolicy } from './store-policy.ts';

export { reconcileBootstrapPolicy } from './bootstrap.ts';
export type { UserInfo } from './policy.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export class Authorizer {
  readonly #policy: StorePolicy;

  constructor(store: Store) {
    this.#policy = new StorePolicy(store);
  }

  /** kube's 403 for a request the user may not make, or undefined when it may proceed. */
  deny(
    user: UserInfo,
    method: string,
    url: URL,
    req: ResourceRequest | undefined,
  ): ApiError | undefined {
    const a = requestAttributes(user, method, url, req);
    const d = authorize(this.#policy, a);
    return d.allowed ? undefined : forbiddenError(a, d.reason);
  }

  /** Throws kube's 403 when an admitted RBAC object would grant more than `user` holds. */
  admit(call: Call, user: UserInfo, obj: KubeObject, old: KubeObject | undefined): void {
    if (call.r.group !== RBAC_GROUP || call.req.subresource !== undefined) return;
    checkRbacWrite(this.#policy, {
      user,
      resource: call.r.plural,
      namespace: call.req.namespace ?? '',
      name: obj.metadata.name ?? call.req.name ?? '',
      requestName: call.req.name ?? '',
      obj,
      ...(old ? { old } : {}),
    });
  }

  isReview(call: Call): boolean {
    return REVIEW_KINDS[call.r.plural] !== undefined && call.req.verb === 'create';
  }

  review(call: Call, user: UserInfo, now: Date): Promise<Response> {
    return serveReview(call, this.#policy, user, now);
  }
}
