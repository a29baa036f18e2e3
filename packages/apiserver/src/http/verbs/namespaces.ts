// Namespace checks for namespaced writes (semantics doc §2, §9.2).
import { forbidden, notFound } from '../../errors.ts';
import type { KubeObject } from '../../objects.ts';
import type { ServerParts } from '../context.ts';

const NAMESPACES = { group: '', plural: 'namespaces', kind: 'Namespace' };

/** The namespace must exist and not be terminating. */
export function requireNamespace(parts: ServerParts, namespace: string): void {
  const stored = parts.store.get(`/registry/core/namespaces/${namespace}`);
  if (!stored) throw notFound(NAMESPACES, namespace);
  const ns = JSON.parse(stored.value) as KubeObject;
  if (ns.metadata.deletionTimestamp) {
    throw forbidden(
      `unable to create new content in namespace ${namespace} because it is being terminated`,
    );
  }
}
