// Namespace checks for namespaced writes (semantics doc §2, §9.2).
import { namespaceTerminating } from '../../controllers/namespace-errors.ts';
import { notFound } from '../../errors.ts';
import type { KubeObject } from '../../objects.ts';
import type { ResourceInfo } from '../../resources/resource.ts';
import type { ServerParts } from '../context.ts';

const NAMESPACES = { group: '', plural: 'namespaces', kind: 'Namespace' };

/** The namespace must exist and not be terminating (`r`/`name`: what is being created). */
export function requireNamespace(
  parts: ServerParts,
  namespace: string,
  r: ResourceInfo,
  name: string,
): void {
  const stored = parts.store.get(`/registry/core/namespaces/${namespace}`);
  if (!stored) throw notFound(NAMESPACES, namespace);
  const ns = JSON.parse(stored.value) as KubeObject;
  if (ns.metadata.deletionTimestamp) throw namespaceTerminating(r, name, namespace);
}
