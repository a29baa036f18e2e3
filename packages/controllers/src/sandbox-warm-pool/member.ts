// A new warm pool member (spec §13.5): `<pool>-` generated name, the membership, template and
// hash labels, the template annotation, the template blueprint with the secure defaults, the
// optional safe-to-evict annotation, and a controller reference to the pool.
import { Annotations, Labels, nameHash } from '@agent-sandbox/api';
import {
  extensionsOwnerRef,
  type PoolObject,
  type SandboxObj,
  type TemplateObject,
} from '../extensions/resources.ts';
import {
  blueprintHash,
  podTemplateHash,
  templateBlueprint,
  withSecureDefaults,
} from '../extensions/blueprint.ts';

export interface MemberOptions {
  /** `--enable-warm-pool-eviction`: mark members safe to evict unless the template says. */
  enableEviction: boolean;
}

export function memberLabels(pool: PoolObject, template: TemplateObject): Record<string, string> {
  return {
    [Labels.WarmPoolSandbox]: nameHash(pool.metadata.name ?? ''),
    [Labels.SandboxTemplateRefHash]: nameHash(pool.spec.sandboxTemplateRef.name),
    [Labels.SandboxPodTemplateHash]: podTemplateHash(template),
    [Labels.SandboxTemplateHash]: blueprintHash(template),
  };
}

export function newMember(
  pool: PoolObject,
  template: TemplateObject,
  options: MemberOptions,
): SandboxObj {
  const blueprint = templateBlueprint(template);
  const labels = memberLabels(pool, template);
  const podMeta = blueprint.podTemplate.metadata ?? {};
  const podAnnotations = { ...(podMeta.annotations ?? {}) };
  if (options.enableEviction && podAnnotations[Annotations.SafeToEvict] === undefined) {
    podAnnotations[Annotations.SafeToEvict] = 'true';
  }
  return {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata: {
      generateName: `${pool.metadata.name ?? ''}-`,
      namespace: pool.metadata.namespace ?? '',
      labels: { ...labels, [Labels.LaunchType]: 'warm', [Labels.CreatedBy]: 'controller' },
      annotations: { [Annotations.SandboxTemplateRef]: pool.spec.sandboxTemplateRef.name },
      ownerReferences: [extensionsOwnerRef(pool, 'SandboxWarmPool')],
    },
    spec: {
      ...blueprint,
      podTemplate: {
        metadata: {
          labels: { ...(podMeta.labels ?? {}), ...labels },
          ...(Object.keys(podAnnotations).length > 0 ? { annotations: podAnnotations } : {}),
        },
        spec: withSecureDefaults(blueprint.podTemplate.spec, template),
      },
    },
  };
}
