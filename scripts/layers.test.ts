// The package layer table (layers.json) is the single source of truth: each workspace package
// must declare exactly the workspace dependencies it is allowed, and every package is listed.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../', import.meta.url);
const layers = JSON.parse(readFileSync(new URL('layers.json', root), 'utf8')) as Record<
  string,
  string[]
>;
const packages = readdirSync(new URL('packages/', root));

describe('package layers', () => {
  it('lists every package in layers.json', () => {
    const listed = Object.keys(layers).filter((k) => !k.startsWith('$'));
    expect(packages.filter((p) => !listed.includes(p))).toEqual([]);
  });
  it('allows only listed packages as imports', () => {
    const listed = Object.keys(layers).filter((k) => !k.startsWith('$'));
    for (const [name, allowed] of Object.entries(layers)) {
      if (name.startsWith('$')) continue;
      expect(
        allowed.filter((a) => !listed.includes(a)),
        name,
      ).toEqual([]);
    }
  });
  for (const name of packages) {
    it(`${name} depends only on the packages layers.json allows`, () => {
      const pkg = JSON.parse(
        readFileSync(new URL(`packages/${name}/package.json`, root), 'utf8'),
      ) as {
        dependencies?: Record<string, string>;
      };
      const workspaceDeps = Object.keys(pkg.dependencies ?? {})
        .filter((d) => d.startsWith('@agent-sandbox/'))
        .map((d) => d.slice('@agent-sandbox/'.length));
      for (const dep of workspaceDeps) expect(layers[name], `${name} -> ${dep}`).toContain(dep);
    });
  }
});
