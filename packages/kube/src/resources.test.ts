import { describe, expect, it } from 'vitest';
import { CONFIG_MAPS, LEASES, NAMESPACES, objectKey, resourcePath, splitKey } from './resources.ts';

describe('resource paths and keys', () => {
  it('builds core, group, cluster-scoped and subresource paths', () => {
    expect(resourcePath(CONFIG_MAPS, 'ns', 'a')).toBe('/api/v1/namespaces/ns/configmaps/a');
    expect(resourcePath(CONFIG_MAPS)).toBe('/api/v1/configmaps');
    expect(resourcePath(LEASES, 'ns', 'l', 'status')).toBe(
      '/apis/coordination.k8s.io/v1/namespaces/ns/leases/l/status',
    );
    expect(resourcePath(NAMESPACES, 'ignored', 'x')).toBe('/api/v1/namespaces/x');
  });
  it('keys objects as namespace/name', () => {
    expect(objectKey({ metadata: { namespace: 'a', name: 'b' } })).toBe('a/b');
    expect(objectKey({ name: 'n' })).toBe('n');
    expect(splitKey('a/b')).toEqual({ namespace: 'a', name: 'b' });
    expect(splitKey('n')).toEqual({ namespace: '', name: 'n' });
  });
});
