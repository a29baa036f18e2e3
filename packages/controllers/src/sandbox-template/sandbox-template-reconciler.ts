// The SandboxTemplate reconciler (spec §14): labels the template with its own ref hash and keeps
// its NetworkPolicy as networkPolicyDecision says. Level-triggered; the template's spec is never
// written; a policy it does not control is never updated or deleted.
import { EXTENSIONS_GROUP } from '@agent-sandbox/api';
import { isAlreadyExists, isNotFound, type KubeClient } from '@agent-sandbox/kube';
import type { InformerSource, ReconcileContext, Reconciler, Request } from '@agent-sandbox/runtime';
import { READ, type Permission } from '../extensions/permissions.ts';
import {
  NETWORK_POLICIES,
  SANDBOX_TEMPLATES,
  type TemplateObject,
} from '../extensions/resources.ts';
import {
  networkPolicyDecision,
  networkPolicyName,
  templateLabelPatch,
  type NetworkPolicyObject,
} from './network-policy.ts';

export const SANDBOX_TEMPLATE_FIELD_OWNER = 'sandboxtemplate-controller';

/** The API access this reconciler needs (its informers included). */
export const SANDBOX_TEMPLATE_PERMISSIONS: readonly Permission[] = [
  { group: EXTENSIONS_GROUP, resource: 'sandboxtemplates', verbs: [...READ, 'patch'] },
  {
    group: 'networking.k8s.io',
    resource: 'networkpolicies',
    verbs: [...READ, 'create', 'update', 'delete'],
  },
];

export class SandboxTemplateReconciler implements Reconciler {
  readonly #client: KubeClient;
  readonly #informers: InformerSource;

  constructor(client: KubeClient, informers: InformerSource) {
    this.#client = client;
    this.#informers = informers;
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<void> {
    const template = this.#informers
      .getInformer<TemplateObject>(SANDBOX_TEMPLATES)
      .cache.get(`${req.namespace}/${req.name}`);
    if (template === undefined) return;
    const opts = { fieldManager: SANDBOX_TEMPLATE_FIELD_OWNER, signal: ctx.signal };
    const label = templateLabelPatch(template);
    if (label !== undefined) {
      try {
        await this.#client.patch(
          SANDBOX_TEMPLATES,
          req.namespace,
          req.name,
          {
            type: 'merge',
            body: label,
          },
          opts,
        );
      } catch (err: unknown) {
        if (isNotFound(err)) return;
        throw err;
      }
    }
    if (template.metadata.deletionTimestamp !== undefined) return;
    const existing = this.#informers
      .getInformer<NetworkPolicyObject>(NETWORK_POLICIES)
      .cache.get(`${req.namespace}/${networkPolicyName(template)}`);
    const decision = networkPolicyDecision(template, existing);
    switch (decision.action) {
      case 'None':
        return;
      case 'Refuse':
        throw new Error(decision.error);
      case 'Create':
        await this.#client.create(NETWORK_POLICIES, decision.policy, opts).catch((err: unknown) => {
          // The cache lagged; the policy's own event brings the next pass.
          if (!isAlreadyExists(err)) throw err;
        });
        return;
      case 'Update':
        await this.#client.update(NETWORK_POLICIES, decision.policy, opts);
        return;
      case 'Delete':
        await this.#client
          .delete(NETWORK_POLICIES, req.namespace, decision.name, {
            preconditions: { uid: decision.uid },
            signal: ctx.signal,
          })
          .catch((err: unknown) => {
            if (!isNotFound(err)) throw err;
          });
        return;
    }
  }
}
