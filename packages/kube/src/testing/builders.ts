// Object builders for tests (kwok style), not a fake client.
import type { ConfigMap } from '@agent-sandbox/kube-types';

export function configMap(
  namespace: string,
  name: string,
  init: { labels?: Record<string, string>; data?: Record<string, string> } = {},
): ConfigMap & { metadata: { name: string; namespace: string } } {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, ...(init.labels ? { labels: init.labels } : {}) },
    ...(init.data ? { data: init.data } : {}),
  };
}
