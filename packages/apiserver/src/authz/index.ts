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
import { authorizeNode } from './node-authorizer.ts';
import type { Attributes } from './policy.ts';
import { authorize, type Decision } from './resolver.ts';
import { REVIEW_KINDS, serveReview } from './reviews.ts';
import { StoreNodeGraph } from './store-node-graph.ts';
import { StorePolicy } from './store-policy.ts';

export { reconcileBootstrapPolicy } from './bootstrap.ts';
export type { UserInfo } from './policy.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export class Authorizer {
  readonly #policy: StorePolicy;
  readonly #graph: StoreNodeGraph;

  constructor(store: Store) {
    this.#policy = new StorePolicy(store);
    this.#graph = new StoreNodeGraph(store);
  }

  /**
   * kube's union of `--authorization-mode=Node,RBAC`: the first to allow wins; a denial names
   * every authorizer's reason, joined as kube's union authorizer joins them.
   */
  decide(a: Attributes): Decision {
    const node = authorizeNode(this.#graph, a);
    if (node.allowed) return { allowed: true, reason: '' };
    const rbac = authorize(this.#policy, a);
    if (rbac.allowed) return rbac;
    const reason = [node.reason, rbac.reason].filter((r) => r !== '').join(', ');
    return { allowed: false, reason };
  }

  /** kube's 403 for a request the user may not make, or undefined when it may proceed. */
  deny(
    user: UserInfo,
    method: string,
    url: URL,
    req: ResourceRequest | undefined,
    path: string = url.pathname,
  ): ApiError | undefined {
    const a = requestAttributes(user, method, url, req, path);
    const d = this.decide(a);
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
    return serveReview(call, this.#policy, user, now, (a) => this.decide(a));
  }
}
