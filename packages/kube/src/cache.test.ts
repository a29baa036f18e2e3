import type { ConfigMap } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { Cache } from './cache.ts';
import { InvalidArgumentError } from './errors.ts';
import { configMap } from './testing/builders.ts';

describe('Cache', () => {
  it('indexes on set, re-indexes on update and unindexes on delete', () => {
    const cache = new Cache<ConfigMap & { metadata: object }>();
    cache.set(configMap('a', 'one', { labels: { app: 'x' } }));
    cache.addIndex('app', (o) => (o.metadata.labels?.['app'] ? [o.metadata.labels['app']] : []));
    cache.set(configMap('b', 'two', { labels: { app: 'x' } }));
    expect(
      cache
        .byIndex('app', 'x')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['one', 'two']);
    cache.set(configMap('a', 'one', { labels: { app: 'y' } }));
    expect(cache.byIndex('app', 'x').map((o) => o.metadata.name)).toEqual(['two']);
    expect(cache.byIndex('app', 'y').map((o) => o.metadata.name)).toEqual(['one']);
    cache.delete('b/two');
    expect(cache.byIndex('app', 'x')).toEqual([]);
    expect(cache.get('a/one')?.metadata.labels).toEqual({ app: 'y' });
    expect(cache.keys()).toEqual(['a/one']);
    expect(() => cache.byIndex('nope', 'x')).toThrow(InvalidArgumentError);
  });
});
