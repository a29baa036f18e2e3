import { describe, expect, it } from 'vitest';
import { defaultPullPolicy, formatReference, parseReference } from './reference.ts';

const D = `sha256:${'a'.repeat(64)}`;

describe('parseReference', () => {
  it.each([
    ['busybox', 'docker.io/library/busybox:latest'],
    ['busybox:1.36', 'docker.io/library/busybox:1.36'],
    ['user/app', 'docker.io/user/app:latest'],
    ['localhost/app', 'localhost/app:latest'],
    ['127.0.0.1:5000/a/b:v1', '127.0.0.1:5000/a/b:v1'],
    [`ghcr.io/o/r@${D}`, `ghcr.io/o/r@${D}`],
    [`localhost:5000/x:t@${D}`, `localhost:5000/x:t@${D}`],
  ])('%s → %s', (input, normalised) => {
    expect(formatReference(parseReference(input))).toBe(normalised);
  });

  it.each([
    ['', 'it is empty'],
    ['Busybox', 'repository component "Busybox"'],
    ['busybox@sha256:abc', 'digest "sha256:abc"'],
    ['a/b:-x', 'tag "-x"'],
    ['localhost:5000/', 'the repository name is empty'],
  ])('rejects %j with InvalidImageName naming %s', (input, part) => {
    expect(() => parseReference(input)).toThrow(
      expect.objectContaining({ code: 'InvalidImageName' }),
    );
    expect(() => parseReference(input)).toThrow(part);
  });

  it('defaults the pull policy as Kubernetes does', () => {
    expect(defaultPullPolicy('busybox')).toBe('Always');
    expect(defaultPullPolicy('busybox:latest')).toBe('Always');
    expect(defaultPullPolicy('busybox:1.36')).toBe('IfNotPresent');
    expect(defaultPullPolicy(`busybox@${D}`)).toBe('IfNotPresent');
  });
});
