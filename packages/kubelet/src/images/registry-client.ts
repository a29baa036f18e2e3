// Pulling from OCI registries (distribution API, §5): anonymous and bearer-token auth, Basic
// where asked, manifest lists resolved to the host platform, every digest verified.
import { Readable } from 'node:stream';
import { errorMessage, ImageError } from '../errors.ts';
import { parseChallenge } from './auth-challenge.ts';
import { sha256 } from './blob-store.ts';
import type { ImageRecord, ImageStore, ImportProgress } from './image-store.ts';
import {
  INDEX_TYPES,
  MANIFEST_TYPES,
  hostPlatform,
  selectPlatform,
  type ImageIndex,
} from './oci-types.ts';
import {
  formatReference,
  parseReference,
  registryEndpoint,
  type ImageReference,
} from './reference.ts';

const ACCEPT = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');
const MAX_REDIRECTS = 5;

export interface RegistryCredentials {
  username: string;
  password: string;
}

export interface RegistryClientOptions {
  /** Credentials per registry host (as written in references); anonymous when absent. */
  credentials?: (registry: string) => RegistryCredentials | undefined;
  /** Hosts spoken to over plain HTTP. @default loopback hosts (localhost, 127.x, [::1]) */
  plainHttp?: (registry: string) => boolean;
  fetch?: typeof fetch;
}

function isLoopback(registry: string): boolean {
  const host = registry.replace(/:\d+$/, '');
  return host === 'localhost' || host.startsWith('127.') || host === '[::1]';
}

export class RegistryClient {
  readonly #credentials: (registry: string) => RegistryCredentials | undefined;
  readonly #plainHttp: (registry: string) => boolean;
  readonly #fetch: typeof fetch;
  readonly #tokens = new Map<string, { token: string; expiresAt: number }>();

  constructor(options: RegistryClientOptions = {}) {
    this.#credentials = options.credentials ?? (() => undefined);
    this.#plainHttp = options.plainHttp ?? isLoopback;
    this.#fetch = options.fetch ?? fetch;
  }

  /** Pulls `ref` into `store`; throws ImageError `ImagePull` with the registry's words. */
  async pull(ref: string, store: ImageStore, progress?: ImportProgress): Promise<ImageRecord> {
    const r = parseReference(ref);
    try {
      const { bytes } = await this.#resolveManifest(r);
      return await store.importManifest(
        formatReference(r),
        bytes,
        async (d) => this.#blob(r, d.digest),
        progress,
      );
    } catch (e) {
      if (e instanceof ImageError && e.code !== 'ImagePull') throw e;
      throw new ImageError('ImagePull', `failed to pull image "${ref}": ${errorMessage(e)}`, {
        cause: e,
      });
    }
  }

  async #resolveManifest(r: ImageReference): Promise<{ bytes: Buffer; digest: string }> {
    let res = await this.#get(r, `manifests/${r.digest ?? r.tag}`, ACCEPT);
    let bytes = Buffer.from(await res.arrayBuffer());
    let digest = sha256(bytes);
    const claimed = res.headers.get('docker-content-digest');
    if (r.digest !== undefined && digest !== r.digest)
      throw new ImageError(
        'DigestMismatch',
        `manifest hashes to ${digest}, reference says ${r.digest}`,
      );
    if (claimed && claimed.startsWith('sha256:') && claimed !== digest)
      throw new ImageError(
        'DigestMismatch',
        `manifest hashes to ${digest}, registry says ${claimed}`,
      );
    const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    const body = JSON.parse(bytes.toString('utf8')) as { mediaType?: string };
    const kind = body.mediaType ?? type;
    if (INDEX_TYPES.has(kind)) {
      const chosen = selectPlatform(body as ImageIndex, hostPlatform());
      if (!chosen)
        throw new ImageError(
          'ImagePull',
          `no manifest for ${hostPlatform().os}/${hostPlatform().architecture} in the image index`,
        );
      res = await this.#get(r, `manifests/${chosen.digest}`, ACCEPT);
      bytes = Buffer.from(await res.arrayBuffer());
      digest = sha256(bytes);
      if (digest !== chosen.digest)
        throw new ImageError(
          'DigestMismatch',
          `platform manifest hashes to ${digest}, index says ${chosen.digest}`,
        );
    } else if (!MANIFEST_TYPES.has(kind)) {
      throw new ImageError(
        'ImageFormat',
        `unsupported manifest media type "${kind}" (schema 1 and artifacts cannot run)`,
      );
    }
    return { bytes, digest };
  }

  async #blob(r: ImageReference, digest: string): Promise<Readable> {
    const res = await this.#get(r, `blobs/${digest}`, '*/*');
    if (!res.body) throw new ImageError('ImagePull', `blob ${digest}: empty response`);
    return Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);
  }

  /** GET with the auth dance (401 → token → retry) and manual redirects that drop credentials. */
  async #get(r: ImageReference, path: string, accept: string): Promise<Response> {
    const scheme = this.#plainHttp(r.registry) ? 'http' : 'https';
    const url = `${scheme}://${registryEndpoint(r.registry)}/v2/${r.repository}/${path}`;
    let auth = this.#cachedAuth(r);
    for (let attempt = 0; ; attempt++) {
      const res = await this.#follow(url, { accept, ...(auth ? { authorization: auth } : {}) });
      if (res.status === 401 && attempt === 0) {
        await res.body?.cancel();
        auth = await this.#authenticate(r, res.headers.get('www-authenticate') ?? '');
        continue;
      }
      if (res.ok) return res;
      throw new ImageError('ImagePull', `${url}: ${res.status} ${await registryErrors(res)}`);
    }
  }

  async #follow(url: string, headers: Record<string, string>): Promise<Response> {
    const origin = new URL(url).host;
    for (let i = 0; i <= MAX_REDIRECTS; i++) {
      const res = await this.#fetch(url, { headers, redirect: 'manual' }).catch((e: unknown) => {
        throw new ImageError(
          'ImagePull',
          `${url}: ${errorMessage((e as { cause?: unknown }).cause ?? e)}`,
        );
      });
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return res;
      await res.body?.cancel();
      url = new URL(location, url).toString();
      // Never hand the registry's credentials to another host (object stores, CDNs).
      if (new URL(url).host !== origin) delete headers['authorization'];
    }
    throw new ImageError('ImagePull', `${url}: more than ${MAX_REDIRECTS} redirects`);
  }

  #cachedAuth(r: ImageReference): string | undefined {
    const t = this.#tokens.get(`${r.registry}/${r.repository}`);
    return t && t.expiresAt > Date.now() ? t.token : undefined;
  }

  async #authenticate(r: ImageReference, header: string): Promise<string> {
    const challenge = parseChallenge(header);
    const creds = this.#credentials(r.registry);
    const basic = creds
      ? `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`
      : undefined;
    if (challenge?.scheme === 'basic') {
      if (!basic)
        throw new ImageError(
          'ImagePull',
          `${r.registry} wants credentials (Basic auth) and none are configured`,
        );
      return basic;
    }
    const realm = challenge?.params['realm'];
    if (challenge?.scheme !== 'bearer' || !realm)
      throw new ImageError(
        'ImagePull',
        `${r.registry} answered 401 with an unusable challenge "${header}"`,
      );
    const u = new URL(realm);
    if (challenge.params['service']) u.searchParams.set('service', challenge.params['service']);
    u.searchParams.set('scope', challenge.params['scope'] ?? `repository:${r.repository}:pull`);
    const res = await this.#fetch(u, { headers: basic ? { authorization: basic } : {} }).catch(
      (e: unknown) => {
        throw new ImageError(
          'ImagePull',
          `token endpoint ${realm}: ${errorMessage((e as { cause?: unknown }).cause ?? e)}`,
        );
      },
    );
    if (!res.ok)
      throw new ImageError(
        'ImagePull',
        `token endpoint ${realm}: ${res.status} ${await res.text()}`,
      );
    const body = (await res.json()) as {
      token?: string;
      access_token?: string;
      expires_in?: number;
    };
    const token = body.token ?? body.access_token;
    if (!token) throw new ImageError('ImagePull', `token endpoint ${realm} returned no token`);
    const bearer = `Bearer ${token}`;
    this.#tokens.set(`${r.registry}/${r.repository}`, {
      token: bearer,
      expiresAt: Date.now() + (body.expires_in ?? 60) * 1000 - 5_000,
    });
    return bearer;
  }
}

async function registryErrors(res: Response): Promise<string> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { errors?: { code?: string; message?: string }[] };
    if (body.errors?.length) return body.errors.map((e) => `${e.code}: ${e.message}`).join('; ');
  } catch {
    // not a distribution error body
  }
  return text.trim().slice(0, 200) || res.statusText;
}
