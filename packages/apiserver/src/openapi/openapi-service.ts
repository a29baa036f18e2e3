// Serves /openapi/v3 (index + one document per group-version) and /openapi/v2 with the real
// server's caching contract (kube-openapi handler3/handler): uppercase hex SHA-512 ETags, `?hash=`
// URLs that are immutable for a year, 301 from a stale hash to the current one (semantics doc
// §1.5–1.6). Documents are built on first request and kept until the resources they describe
// change: each ResourceInfo the registry hands out gets an id, and a group-version's cache key is
// the ids of its resources, so installing, updating or removing a CRD rebuilds only its group.
import { createHash } from 'node:crypto';
import { notFoundPage } from '../http/response.ts';
import type { ResourceRegistry } from '../resources/registry.ts';
import type { ResourceInfo } from '../resources/resource.ts';
import { encodeOpenApiV2 } from './openapi-v2-proto.ts';
import { swaggerDocument } from './v2-document.ts';
import { groupVersionDocument } from './v3-document.ts';

export interface OpenApiServiceOptions {
  /** Clock for the `Expires` header. @default () => new Date() */
  now?: () => Date;
}

export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const OPENAPI_V2_PROTOBUF_DEPRECATED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const JSON_TYPE = 'application/json';

interface CachedDocument {
  key: string;
  body: Uint8Array;
  hash: string;
}

interface CachedV2 extends CachedDocument {
  proto?: Uint8Array;
}

/** Uppercase hex SHA-512, kube-openapi's computeETag. */
export function openApiHash(body: Uint8Array): string {
  return createHash('sha512').update(body).digest('hex').toUpperCase();
}

/** `api/v1` for the core group, `apis/<group>/<version>` otherwise: the index's keys. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function serverRelativeUrl(gvPath: string, hash: string): string {
  return `/openapi/v3/${gvPath}?hash=${hash}`;
}

interface AcceptClause {
  type: string;
  q: number;
}

/** Accept clauses by descending quality (stable), as goautoneg orders them; `q=0` is dropped. */
function acceptClauses(accept: string | null): AcceptClause[] {
  const clauses = (accept === null || accept.trim() === '' ? '*/*' : accept)
    .split(',')
    .map((part, index) => {
      const [type = '', ...params] = part.split(';').map((p) => p.trim());
      const qParam = params.find((p) => p.startsWith('q='));
      const q = qParam === undefined ? 1 : Number(qParam.slice(2));
      return { type: type.toLowerCase(), q: Number.isFinite(q) ? q : 0, index };
    });
  return clauses.filter((c) => c.q > 0).sort((a, b) => b.q - a.q || a.index - b.index);
}

/** The first offered media type the Accept header takes, in the client's order of preference. */
export function negotiate(accept: string | null, offers: readonly string[]): string | undefined {
  for (const clause of acceptClauses(accept)) {
    const [type, subtype] = clause.type.split('/');
    for (const offer of offers) {
      const [offerType, offerSubtype] = offer.split('/');
      if ((type === offerType || type === '*') && (subtype === offerSubtype || subtype === '*'))
        return offer;
    }
  }
  return undefined;
}

function matchesEtag(request: Request, etag: string): boolean {
  const header = request.headers.get('if-none-match');
  if (header === null) return false;
  return header.split(',').some((t) => t.trim() === etag || t.trim() === '*');
}

const encoder = new TextEncoder();

export class OpenApiService {
  readonly #registry: ResourceRegistry;
  readonly #now: () => Date;
  readonly #ids = new WeakMap<ResourceInfo, number>();
  #nextId = 1;
  readonly #v3 = new Map<string, CachedDocument>();
  #v2: CachedV2 | undefined;

  constructor(registry: ResourceRegistry, options: OpenApiServiceOptions = {}) {
    this.#registry = registry;
    this.#now = options.now ?? (() => new Date());
  }

  #key(resources: readonly ResourceInfo[]): string {
    return resources
      .map((r) => {
        let id = this.#ids.get(r);
        if (id === undefined) {
          id = this.#nextId++;
          this.#ids.set(r, id);
        }
        return id;
      })
      .join(',');
  }

  /** Every served group-version: its index key and coordinates. */
  groupVersions(): { path: string; group: string; version: string }[] {
    return this.#registry.groups().flatMap((g) =>
      g.versions.map((version) => ({
        path: groupVersionPath(g.name, version),
        group: g.name,
        version,
      })),
    );
  }

  /** The JSON bytes and hash of one group-version's document, built when its resources changed. */
  groupVersionDocument(
    group: string,
    version: string,
  ): { body: Uint8Array; hash: string } | undefined {
    const resources = this.#registry.inGroupVersion(group, version);
    if (resources.length === 0) return undefined;
    const path = groupVersionPath(group, version);
    const key = this.#key(resources);
    const cached = this.#v3.get(path);
    if (cached?.key === key) return cached;
    const body = encoder.encode(JSON.stringify(groupVersionDocument(resources, group, version)));
    const fresh = { key, body, hash: openApiHash(body) };
    this.#v3.set(path, fresh);
    return fresh;
  }

  /** `{"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=…"}, …}}` */
  index(): { body: Uint8Array; hash: string } {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    const live = new Set<string>();
    for (const gv of this.groupVersions().sort((a, b) =>
      a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
    )) {
      const doc = this.groupVersionDocument(gv.group, gv.version);
      if (!doc) continue;
      live.add(gv.path);
      paths[gv.path] = { serverRelativeURL: serverRelativeUrl(gv.path, doc.hash) };
    }
    for (const path of this.#v3.keys()) if (!live.has(path)) this.#v3.delete(path);
    const body = encoder.encode(JSON.stringify({ paths }));
    return { body, hash: openApiHash(body) };
  }

  /** The Swagger 2.0 document: JSON bytes, hash (shared by both encodings), protobuf on demand. */
  v2(): { body: Uint8Array; hash: string; proto: () => Uint8Array } {
    const resources = this.#registry.all();
    const key = this.#key(resources);
    if (this.#v2?.key !== key) {
      const doc = swaggerDocument(resources);
      const body = encoder.encode(JSON.stringify(doc));
      this.#v2 = { key, body, hash: openApiHash(body) };
    }
    const current = this.#v2;
    return {
      body: current.body,
      hash: current.hash,
      proto: () => {
        current.proto ??= encodeOpenApiV2(JSON.parse(new TextDecoder().decode(current.body)));
        return current.proto;
      },
    };
  }

  /**
   * Answers `GET /openapi/v2`, `/openapi/v3` and `/openapi/v3/<gv>`; undefined for other paths.
   * `path` has no trailing slash; query parameters other than `hash` (e.g. `timeout`) are ignored.
   */
  serve(request: Request, path: string): Response | undefined {
    if (path === '/openapi/v2') return this.#serveV2(request);
    if (path === '/openapi/v3') {
      const { body, hash } = this.index();
      return this.#respond(request, body, `"${hash}"`, { 'Content-Type': JSON_TYPE });
    }
    if (path.startsWith('/openapi/v3/'))
      return this.#serveGroupVersion(request, path.slice('/openapi/v3/'.length));
    return undefined;
  }

  #serveGroupVersion(request: Request, gvPath: string): Response {
    const gv = this.groupVersions().find((x) => x.path === gvPath);
    const doc = gv && this.groupVersionDocument(gv.group, gv.version);
    if (!doc) return notFoundPage();
    // JSON is what kubectl asks for; the protobuf form of v3 is optional (§1.5) and not offered.
    if (negotiate(request.headers.get('accept'), [JSON_TYPE]) === undefined)
      return new Response(null, { status: 406, headers: { Vary: 'Accept' } });
    const headers: Record<string, string> = { 'Content-Type': JSON_TYPE, Vary: 'Accept' };
    const hash = new URL(request.url).searchParams.get('hash');
    if (hash !== null && hash !== '') {
      if (hash !== doc.hash) {
        return new Response(null, {
          status: 301,
          headers: {
            Location: serverRelativeUrl(gvPath, doc.hash),
            Vary: 'Accept',
            Etag: `"${doc.hash}"`,
          },
        });
      }
      const expires = this.#now();
      expires.setUTCFullYear(expires.getUTCFullYear() + 1);
      headers['Cache-Control'] = 'public, immutable';
      headers['Expires'] = expires.toUTCString();
    }
    return this.#respond(request, doc.body, `"${doc.hash}"`, headers);
  }

  #serveV2(request: Request): Response {
    const offer = negotiate(request.headers.get('accept'), [
      JSON_TYPE,
      OPENAPI_V2_PROTOBUF_DEPRECATED,
      OPENAPI_V2_PROTOBUF,
    ]);
    if (offer === undefined)
      return new Response(null, { status: 406, headers: { Vary: 'Accept' } });
    const doc = this.v2();
    const etag = `"${doc.hash}"`;
    if (offer === JSON_TYPE)
      return this.#respond(request, doc.body, etag, { 'Content-Type': JSON_TYPE, Vary: 'Accept' });
    return this.#respond(request, doc.proto(), etag, {
      'Content-Type': OPENAPI_V2_PROTOBUF,
      Vary: 'Accept',
    });
  }

  #respond(
    request: Request,
    body: Uint8Array,
    etag: string,
    headers: Record<string, string>,
  ): Response {
    if (matchesEtag(request, etag))
      return new Response(null, { status: 304, headers: { ...headers, Etag: etag } });
    return new Response(body, { status: 200, headers: { ...headers, Etag: etag } });
  }
}
