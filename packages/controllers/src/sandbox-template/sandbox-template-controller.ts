// The runtime Controller of SandboxTemplates (spec §14): `for` templates, `owns` NetworkPolicies.
import type { KubeClient } from '@agent-sandbox/kube';
import { Controller, type InformerSource } from '@agent-sandbox/runtime';
import { NETWORK_POLICIES, SANDBOX_TEMPLATES } from '../extensions/resources.ts';
import { SandboxTemplateReconciler } from './sandbox-template-reconciler.ts';

export const SANDBOX_TEMPLATE_CONTROLLER_NAME = 'sandboxtemplate';

export interface SandboxTemplateControllerOptions {
  client: KubeClient;
  informers: InformerSource;
  /** `--sandbox-template-concurrent-workers`. @default 1 */
  concurrency?: number;
}

export function sandboxTemplateController(options: SandboxTemplateControllerOptions): Controller {
  return new Controller({
    name: SANDBOX_TEMPLATE_CONTROLLER_NAME,
    for: SANDBOX_TEMPLATES,
    owns: [NETWORK_POLICIES],
    reconciler: new SandboxTemplateReconciler(options.client, options.informers),
    concurrency: options.concurrency ?? 1,
  });
}
