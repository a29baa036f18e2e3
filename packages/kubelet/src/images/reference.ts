// Image references as the container runtimes normalise them (kubelet-and-oci §5.1): pure.
import { ImageError } from '../errors.ts';

export interface ImageReference {
  /** Registry host[:port] as written (`docker.io` for Docker Hub). */
  registry: string;
  /** Repository path, e.g. `library/busybox`. */
  repository: string;
  tag: string | undefined;
  digest: string | undefined;
}

const REPO_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
export const DIGEST = /^sha256:[a-f0-9]{64}$/;

/** Parses `[host[:port]/]path[:tag][@sha256:hex]`; throws ImageError `InvalidImageName`. */
export function parseReference(ref: string): ImageReference {
  const bad = (why: string): never => {
    throw new ImageError('InvalidImageName', `invalid image reference "${ref}": ${why}`);
  };
  if (ref.trim() === '') bad('it is empty');
  let rest = ref;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) bad(`digest "${digest}" is not sha256:<64 lowercase hex>`);
  }
  const slash = rest.indexOf('/');
  const first = slash < 0 ? '' : rest.slice(0, slash);
  const hasHost =
    slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost');
  const registry = hasHost ? first : 'docker.io';
  let path = hasHost ? rest.slice(slash + 1) : rest;
  let tag: string | undefined;
  const colon = path.lastIndexOf(':');
  if (colon >= 0) {
    tag = path.slice(colon + 1);
    path = path.slice(0, colon);
    if (!TAG.test(tag)) bad(`tag "${tag}" must match [A-Za-z0-9_][A-Za-z0-9._-]{0,127}`);
  }
  if (path === '') bad('the repository name is empty');
  for (const c of path.split('/'))
    if (!REPO_COMPONENT.test(c))
      bad(`repository component "${c}" must be lowercase letters and digits joined by . _ __ or -`);
  if (registry === 'docker.io' && !path.includes('/')) path = `library/${path}`;
  if (tag === undefined && digest === undefined) tag = 'latest';
  return { registry, repository: path, tag, digest };
}

/** `registry/repository[:tag][@digest]`, e.g. `docker.io/library/busybox:latest`. */
export function formatReference(r: ImageReference): string {
  return `${r.registry}/${r.repository}${r.tag ? `:${r.tag}` : ''}${r.digest ? `@${r.digest}` : ''}`;
}

/** The name an image is stored under: by tag when it has one, else by digest. */
export function storeName(r: ImageReference): string {
  return r.tag !== undefined
    ? `${r.registry}/${r.repository}:${r.tag}`
    : `${r.registry}/${r.repository}@${r.digest}`;
}

/** `repo@digest`, what Kubernetes shows as a container's imageID. */
export function digestReference(r: ImageReference, digest: string): string {
  return `${r.registry}/${r.repository}@${digest}`;
}

/** The registry API endpoint host (Docker Hub's API lives elsewhere than its name). */
export function registryEndpoint(registry: string): string {
  return registry === 'docker.io' ? 'registry-1.docker.io' : registry;
}

export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

/** Kubernetes' default: Always for `:latest` or no tag (digest-only refs excepted), else IfNotPresent. */
export function defaultPullPolicy(ref: string): PullPolicy {
  const r = parseReference(ref);
  if (r.digest !== undefined) return 'IfNotPresent';
  return r.tag === 'latest' ? 'Always' : 'IfNotPresent';
}
