// The embedded Kubernetes-compatible API server as a fetch handler (STYLE.md house style 6):
// `handle(Request) → Response`. node-server.ts binds it to a socket.
import { randomUUID, type KeyObject } from 'node:crypto';
import {
  ADMIN_USER,
  authenticate,
  type Authenticator,
  type UserInfo,
} from './auth/authenticate.ts';
import { auditEvent, isAudited, type AuditFacts } from './audit/audit-event.ts';
import type { AuditSink } from './audit/file-audit-log.ts';
import { Authorizer, reconcileBootstrapPolicy } from './authz/index.ts';
import { PodSecurity, type PodSecurityPolicy } from './podsecurity/index.ts';
import { ServiceAccountTokens } from './auth/service-account-tokens.ts';
import type { CustomResourceDefinition } from '@agent-sandbox/kube-types';
import { InServerControllers } from './controllers/in-server-controllers.ts';
import { finalizeNamespace, isNamespaceFinalize } from './controllers/namespace-deletion.ts';
import { CrdController } from './crd/crd-controller.ts';
import {
  badRequest,
  methodNotAllowed,
  routeNotFound,
  unauthorized,
  unroutableMethod,
} from './errors.ts';
import type { Call, ServerParts } from './http/context.ts';
import {
  AGGREGATED_V2,
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  wantsAggregated,
} from './http/discovery.ts';
import { tooManyRequests } from './http/inflight.ts';
import { negotiateOutput } from './http/negotiate.ts';
import { parseResourceRequest, type ResourceRequest } from './http/request-info.ts';
import { requestFailure, type RequestFailureLog } from './http/error-boundary.ts';
import { errorResponse, jsonResponse, notFoundPage } from './http/response.ts';
import { create } from './http/verbs/create.ts';
import { deleteCollection, deleteObject } from './http/verbs/delete.ts';
import { patch } from './http/verbs/patch.ts';
import { scale } from './http/verbs/scale.ts';
import { tokenReview } from './http/verbs/token-review.ts';
import { tokenRequest } from './http/verbs/token-request.ts';
import {
  nodeProxy,
  podStream,
  POD_STREAM_SUBRESOURCES,
  type PodStreams,
} from './http/verbs/pod-streams.ts';
import { get, list } from './http/verbs/read.ts';
import { update } from './http/verbs/update.ts';
import { watch } from './http/verbs/watch.ts';
import { formatTime, type ServerContext } from './objects.ts';
import { serveOpenApi } from './openapi/index.ts';
import { ResourceCodec, type Converter } from './resource-store.ts';
import { ResourceRegistry } from './resources/registry.ts';
import { bindingsMethodNotAllowed, bindPod, isBindingRequest } from './resources/pods-binding.ts';
import { requestPath } from './http/raw-path.ts';
import type { ResourceInfo } from './resources/resource.ts';
import type { Store } from './storage/store.ts';
import { revisionNotingStore, withSeenRevision } from './storage/seen-revision.ts';
import { generateServiceAccountKey } from './tls/service-account-key.ts';

/** A static bearer token and who it is. */
/**
 * Whether a request may proceed now that its requester is known; false answers kube's 429.
 * An admission that lets it through owns whatever slot it took until the response is sent.
 */
export type Admission = (user: UserInfo) => boolean;

export interface TokenUser {
  token: string;
  user: UserInfo;
}

export interface ApiServerOptions {
  store: Store;
  /** Converts custom resources between served versions for CRDs with Webhook conversion. */
  convert?: Converter;
  /** CRDs created at startup when absent (the embedded mode installs ours). */
  crds?: readonly CustomResourceDefinition[];
  /**
   * The admin's bearer token (system:masters). Unset (tests): a request without credentials is
   * the admin; service account tokens still authenticate as their account.
   */
  token?: string;
  /**
   * Static bearer tokens and the user each authenticates as (kube's --token-auth-file): the
   * embedded mode gives each component its own identity this way (ADR 0027). @default none
   */
  users?: readonly TokenUser[];
  /**
   * `RBAC` (kube-apiserver's `--authorization-mode=Node,RBAC`, with the bootstrap roles reconciled
   * at start) or `AlwaysAllow` (every authenticated request proceeds). @default 'RBAC'
   */
  authorization?: 'RBAC' | 'AlwaysAllow';
  /**
   * Pod Security admission's levels for namespaces without pod-security.kubernetes.io labels.
   * @default privileged everywhere (kube-apiserver's default configuration)
   */
  podSecurity?: PodSecurityPolicy;
  /** Serves pods/log, exec, attach, portforward and nodes/proxy (the node agent, embedded). */
  podStreams?: PodStreams;
  /** host:port clients use, for /api's serverAddressByClientCIDRs. */
  serverAddress?: string;
  /** @default real time, random UIDs */
  context?: Partial<ServerContext>;
  /** Runs the garbage collector and the namespace controller in the server (§9). @default true */
  controllers?: boolean;
  /**
   * Signs service account tokens (ECDSA P-256; `ensureServiceAccountKey` keeps one in the data
   * dir so tokens survive restarts). @default a fresh key per server
   */
  serviceAccountKey?: KeyObject;
  /** PEM CA certificate published as the `kube-root-ca.crt` ConfigMap in every namespace. */
  caCert?: string;
  /** Where an audit event of every write goes (ADR 0031). @default no audit log */
  audit?: AuditSink;
  /** Told about every request that ends in a 5xx (the entry point logs it). @default ignored */
  onRequestError?: RequestFailureLog;
}

/**
 * The methods kube-apiserver routes to resources; any other (HEAD, OPTIONS, TRACE, CONNECT, a
 * custom token) on a known path is its 405 MethodNotAllowed.
 */
export const ROUTED_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
]);

/** Verbs whose answer is a list (or a stream of list items). */
const LIST_VERBS: ReadonlySet<string> = new Set(['list', 'watch', 'deletecollection']);
/** The verbs kube routes on a status subresource: anything else must not reach the object. */
const STATUS_VERBS: ReadonlySet<string> = new Set(['get', 'update', 'patch']);

/** A GET's answer as a HEAD's: status and headers, the body (a watch stream, too) cancelled. */
function withoutBody(response: Response): Response {
  void response.body?.cancel().catch(() => undefined);
  return new Response(null, { status: response.status, headers: response.headers });
}

/** Whether kube registers a route for `subresource` of `r` (any method: 405 vs 404). */
function hasSubresourceRoute(r: ResourceInfo, subresource: string | undefined): boolean {
  if (subresource === undefined) return true;
  if (subresource === 'status') return r.hasStatus;
  if (subresource === 'scale') return r.scale !== undefined;
  if (r.group !== '') return false;
  if (r.plural === 'pods')
    return subresource === 'binding' || POD_STREAM_SUBRESOURCES.has(subresource);
  if (r.plural === 'serviceaccounts') return subresource === 'token';
  if (r.plural === 'nodes') return subresource === 'proxy';
  return r.plural === 'namespaces' && subresource === 'finalize';
}

/** Paths kube serves with plain handlers that ignore the method. */
const ANY_METHOD_PATHS = /^\/(healthz|livez|readyz|apis|apis\/[^/]+|openapi\/.*)$/;

/** What /version reports: a 1.32 server, so kubectl 1.32 computes no skew (§1.1). */
export const VERSION_INFO = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0+agent-sandbox',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-11-30T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
};

const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/healthz', '/livez', '/readyz', '/version']);

const ANONYMOUS: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

const BOOTSTRAP_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export class ApiServer {
  readonly #parts: ServerParts;
  readonly #crdController: CrdController;
  readonly #controllers: InServerControllers | undefined;
  readonly #options: ApiServerOptions;
  readonly #authenticator: Authenticator;
  readonly #authorizer: Authorizer | undefined;
  readonly #podSecurity: PodSecurity;

  constructor(options: ApiServerOptions) {
    // Every part reads and writes through the noting store, so a request's scope learns the
    // revisions its answer may reveal (ADR 0046).
    options = { ...options, store: revisionNotingStore(options.store) };
    this.#options = options;
    const ctx: ServerContext = {
      now: options.context?.now ?? (() => new Date()),
      uid: options.context?.uid ?? (() => randomUUID()),
      random: options.context?.random ?? Math.random,
    };
    const registry = new ResourceRegistry();
    this.#parts = {
      store: options.store,
      registry,
      codec: new ResourceCodec(options.convert),
      ctx,
    };
    this.#crdController = new CrdController(options.store, registry, ctx);
    this.#authenticator = {
      store: options.store,
      tokens: new ServiceAccountTokens(
        options.serviceAccountKey ?? generateServiceAccountKey().privateKey,
      ),
      ...(options.token !== undefined ? { adminToken: options.token } : {}),
      ...(options.users ? { users: new Map(options.users.map((u) => [u.token, u.user])) } : {}),
      now: ctx.now,
    };
    if (options.authorization !== 'AlwaysAllow') this.#authorizer = new Authorizer(options.store);
    this.#podSecurity = new PodSecurity(options.store, options.podSecurity);
    if (options.controllers !== false)
      this.#controllers = new InServerControllers(this.#parts, {
        ...(options.caCert !== undefined ? { caCert: options.caCert } : {}),
      });
  }

  /**
   * Settles once every revision ≤ `upTo` (default: all this server's store has seen) is on disk
   * (group commit, ADR 0010): what a response waits for before it is sent, with `upTo` the
   * revision `handleSeen` reports (ADR 0046).
   */
  durable(upTo?: number): Promise<void> {
    return this.#parts.store.durable(upTo);
  }

  /** `handle`, reporting the highest revision the request read or wrote (0: none). */
  async handleSeen(
    ...args: Parameters<ApiServer['handle']>
  ): Promise<{ response: Response; seen: number }> {
    const { result, seen } = await withSeenRevision(() => this.handle(...args));
    return { response: result, seen };
  }

  /** Creates the bootstrap namespaces and CRDs, then starts serving CRDs. */
  start(): void {
    const { store, ctx } = this.#parts;
    for (const ns of BOOTSTRAP_NAMESPACES) {
      const key = `/registry/core/namespaces/${ns}`;
      if (store.get(key)) continue;
      const obj = {
        kind: 'Namespace',
        apiVersion: 'v1',
        metadata: {
          name: ns,
          uid: ctx.uid(),
          creationTimestamp: formatTime(ctx.now()),
          labels: { 'kubernetes.io/metadata.name': ns },
        },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      };
      store.create(key, JSON.stringify(obj));
    }
    for (const crd of this.#options.crds ?? []) {
      const key = `/registry/apiextensions.k8s.io/customresourcedefinitions/${crd.metadata.name ?? ''}`;
      const existing = store.get(key);
      const obj = {
        ...structuredClone(crd),
        metadata: {
          ...crd.metadata,
          uid: ctx.uid(),
          creationTimestamp: formatTime(ctx.now()),
          generation: 1,
        },
      };
      if (!existing) store.create(key, JSON.stringify(obj));
    }
    if (this.#authorizer) reconcileBootstrapPolicy(store, ctx);
    this.#crdController.start();
    this.#controllers?.start();
  }

  stop(): void {
    this.#controllers?.stop();
    this.#crdController.stop();
  }

  /**
   * Serves one request. Never throws: errors become Status responses. `method` stands in for
   * `request.method` when fetch cannot carry the real one (CONNECT, TRACE, TRACK): the Node
   * adapter passes a bodiless GET Request with it. `admit`, asked once the requester is known,
   * may refuse it (the in-flight limits, which exempt system:masters as kube's filter does).
   */
  async handle(
    request: Request,
    signal: AbortSignal = new AbortController().signal,
    method: string = request.method,
    admit?: Admission,
  ): Promise<Response> {
    const { audit } = this.#options;
    const { ctx } = this.#parts;
    const facts: AuditFacts | undefined = audit
      ? {
          auditID: ctx.uid(),
          received: ctx.now(),
          url: new URL(request.url),
          userAgent: request.headers.get('user-agent'),
        }
      : undefined;
    let response: Response;
    try {
      response = await this.#route(request, signal, method, facts, admit);
    } catch (err: unknown) {
      response = errorResponse(err);
      // A client that went away mid-request (its body stream aborted) is no server failure.
      if (response.status >= 500 && !signal.aborted)
        this.#options.onRequestError?.(requestFailure(method, request.url, response.status, err));
    }
    if (audit && facts && isAudited(facts))
      audit.record(auditEvent(facts, response.status, ctx.now()));
    return response;
  }

  async #route(
    request: Request,
    signal: AbortSignal,
    method: string,
    facts: AuditFacts | undefined,
    admit: Admission | undefined,
  ): Promise<Response> {
    const url = new URL(request.url);
    const rawPath = requestPath(request, url);
    const path = rawPath.replace(/\/+$/, '') || '/';
    const routed = ROUTED_METHODS.has(method);
    const req = parseResourceRequest(routed ? method : 'GET', url, rawPath);
    if (facts && routed && req) facts.req = req;
    const user = await this.#user(request, url, method);
    if (!user) return errorResponse(unauthorized());
    if (facts) facts.user = user;
    // kube's handler chain authenticates before its in-flight filter, which counts by who asks.
    if (admit && !admit(user)) return tooManyRequests();
    // Authorization comes before routing, as in kube-apiserver's handler chain.
    const denied = this.#authorizer?.deny(user, method, url, routed ? req : undefined, rawPath);
    if (facts) facts.annotations = { 'authorization.k8s.io/decision': denied ? 'forbid' : 'allow' };
    if (denied) throw denied;
    const fixed = this.#fixedRoute(path, request);
    if (fixed) {
      // kube's plain handlers (health, /apis, /apis/<group>, openapi) answer any method as GET;
      // its go-restful ones (/version, /api, /api/<v>, /apis/<g>/<v>) only GET.
      if (method === 'GET' || fixed.status === 404 || ANY_METHOD_PATHS.test(path)) return fixed;
      throw unroutableMethod();
    }
    if (!req) return this.#noRoute(path);
    const r = this.#parts.registry.lookup(req.group, req.version, req.resource);
    if (!r) return this.#noRoute(path);
    if (!routed) {
      if (!hasSubresourceRoute(r, req.subresource)) throw routeNotFound();
      // apiextensions serves custom resources by verb, and a HEAD's verb is get (or list).
      if (method !== 'HEAD' || !r.crd) throw unroutableMethod();
      const headDenied = this.#authorizer?.deny(user, 'GET', url, req);
      if (headDenied) throw headDenied;
      return withoutBody(await this.#serveResource(r, req, request, url, signal, user));
    }
    if (!facts) return this.#serveResource(r, req, request, url, signal, user);
    const seen = { audit: undefined as Record<string, string> | undefined };
    try {
      return await this.#serveResource(r, req, request, url, signal, user, facts, seen);
    } finally {
      if (seen.audit) facts.annotations = { ...facts.annotations, ...seen.audit };
    }
  }

  /**
   * kube's answer for a path no handler serves: under /api and under a group it serves, the
   * group's handler answers a NotFound Status; elsewhere its mux answers the plain-text page.
   */
  #noRoute(path: string): Response {
    const [root, group] = path.split('/').slice(1);
    if (root === 'api') throw routeNotFound();
    if (root === 'apis' && this.#parts.registry.groups().some((g) => g.name === group))
      throw routeNotFound();
    return notFoundPage();
  }

  /**
   * Who makes the request: the admin token's user, a live service account token's account, or
   * (like kube's system:public-info-viewer) anonymous for health and version without
   * credentials; undefined for a wrong or missing credential (semantics doc §11).
   */
  async #user(request: Request, url: URL, method: string): Promise<UserInfo | undefined> {
    const header = request.headers.get('authorization');
    if (header === null) {
      if (this.#options.token === undefined) return ADMIN_USER;
      const publicInfo = method === 'GET' && PUBLIC_PATHS.has(url.pathname.replace(/\/+$/, ''));
      return publicInfo ? ANONYMOUS : undefined;
    }
    if (!header.startsWith('Bearer ')) return undefined;
    const token = header.slice('Bearer '.length).trim();
    const result = await authenticate(this.#authenticator, token);
    return result.authenticated ? result.user : undefined;
  }

  #fixedRoute(path: string, request: Request): Response | undefined {
    const { registry } = this.#parts;
    const accept = request.headers.get('accept');
    switch (path) {
      case '/version':
        return jsonResponse(VERSION_INFO);
      case '/healthz':
      case '/livez':
      case '/readyz':
        return new Response('ok', {
          status: 200,
          headers: { 'Content-Type': 'text/plain; charset=utf-8' },
        });
      case '/api':
        if (wantsAggregated(accept))
          return jsonResponse(aggregatedDiscovery(registry, 'api'), 200, [], {
            'Content-Type': AGGREGATED_V2,
            Vary: 'Accept',
          });
        return jsonResponse(apiVersions(this.#options.serverAddress ?? new URL(request.url).host));
      case '/apis':
        if (wantsAggregated(accept))
          return jsonResponse(aggregatedDiscovery(registry, 'apis'), 200, [], {
            'Content-Type': AGGREGATED_V2,
            Vary: 'Accept',
          });
        return jsonResponse(apiGroupList(registry));
    }
    const openapi = serveOpenApi(registry, request, path);
    if (openapi) return openapi;
    const parts = path.split('/').filter((p) => p !== '');
    if (parts[0] === 'api' && parts.length === 2) {
      const doc = apiResourceList(registry, '', parts[1] as string);
      return doc ? jsonResponse(doc) : notFoundPage();
    }
    if (parts[0] === 'apis' && parts.length === 2) {
      const doc = apiGroup(registry, parts[1] as string);
      return doc ? jsonResponse(doc) : notFoundPage();
    }
    if (parts[0] === 'apis' && parts.length === 3) {
      const doc = apiResourceList(registry, parts[1] as string, parts[2] as string);
      return doc ? jsonResponse(doc) : notFoundPage();
    }
    return undefined;
  }

  async #serveResource(
    r: ResourceInfo,
    req: ResourceRequest,
    request: Request,
    url: URL,
    signal: AbortSignal,
    user: UserInfo,
    facts?: AuditFacts,
    /** Receives the Call, whose admission annotations go into the audit event. */
    seen?: { audit: Record<string, string> | undefined },
  ): Promise<Response> {
    const warning = r.deprecationWarnings.get(req.version);
    const authorizer = this.#authorizer;
    const podSecurity = this.#podSecurity;
    const call: Call = {
      r,
      req,
      http: request,
      url,
      version: req.version,
      warnings: warning ? [warning] : [],
      signal,
      user,
      admit: (obj, old, stage) => {
        if (facts) facts.name ??= obj.metadata.name;
        try {
          if (stage === 'before-validation') authorizer?.admit(call, user, obj, old);
          else podSecurity.admit(call, obj, old);
        } finally {
          if (seen) seen.audit = call.audit;
        }
      },
    };
    const parts = this.#parts;
    if (authorizer?.isReview(call)) return authorizer.review(call, user, parts.ctx.now());
    if (isNamespaceFinalize(req, r)) return finalizeNamespace(parts, call);
    if (req.subresource === 'scale') return scale(parts, call);
    if (r.plural === 'tokenreviews' && req.verb === 'create')
      return tokenReview(call, this.#authenticator);
    if (r.plural === 'serviceaccounts' && req.subresource === 'token' && req.verb === 'create')
      return tokenRequest(parts, call, this.#authenticator.tokens);
    if (
      r.plural === 'pods' &&
      r.group === '' &&
      req.subresource &&
      POD_STREAM_SUBRESOURCES.has(req.subresource)
    ) {
      return podStream(parts, call, this.#options.podStreams);
    }
    if (r.plural === 'nodes' && r.group === '' && req.subresource === 'proxy')
      return nodeProxy(parts, call, this.#options.podStreams);
    if (isBindingRequest(r, req.subresource)) {
      if (req.verb === 'create') return bindPod(parts, call);
      throw bindingsMethodNotAllowed();
    }
    if (!hasSubresourceRoute(r, req.subresource)) throw routeNotFound();
    if (req.subresource !== undefined && req.subresource !== 'status')
      throw methodNotAllowed(req.verb, r);
    if (req.subresource === 'status' && !r.hasStatus) return notFoundPage();
    // A DELETE (or POST) of …/status would otherwise act on the object itself. go-restful has
    // no route for it (405, no kind); the apiextensions handler names the verb and kind.
    if (req.subresource === 'status' && !STATUS_VERBS.has(req.verb))
      throw r.crd ? methodNotAllowed(req.verb, r) : unroutableMethod();
    if (!r.verbs.includes(req.verb) && req.subresource === undefined)
      throw methodNotAllowed(req.verb, r);
    checkNameRoute(r, req);
    negotiateOutput(request.headers.get('accept'), {
      list: LIST_VERBS.has(req.verb),
      protobuf: r.crd === undefined,
    });
    switch (req.verb) {
      case 'get':
        return get(parts, call);
      case 'list':
        return list(parts, call);
      case 'watch':
        return watch(parts, call);
      case 'create': {
        const res = await create(parts, call);
        if (r.plural === 'customresourcedefinitions' && res.status === 201) this.#syncCrds();
        return res;
      }
      case 'update':
        return update(parts, call);
      case 'patch':
        return patch(parts, call);
      case 'delete':
        return deleteObject(parts, call);
      case 'deletecollection':
        return deleteCollection(parts, call);
      default:
        throw methodNotAllowed(req.verb, r);
    }
  }

  /** Makes a just-created CRD servable before the response returns, as clients expect soon after. */
  #syncCrds(): void {
    const page = this.#parts.store.list(
      '/registry/apiextensions.k8s.io/customresourcedefinitions/',
    );
    for (const stored of page.items) this.#crdController.syncNow(stored);
  }
}

/**
 * kube has no route for a PUT or PATCH of a collection, nor for a POST to a name: go-restful
 * answers 405; the apiextensions handler answers a PUT or PATCH without a name with 400 and
 * creates from a POST's body whatever its path names, as a POST to the collection.
 */
function checkNameRoute(r: ResourceInfo, req: ResourceRequest): void {
  if (req.subresource !== undefined) return;
  const unnamedWrite = (req.verb === 'update' || req.verb === 'patch') && req.name === undefined;
  if (unnamedWrite) throw r.crd ? badRequest('name must be provided') : unroutableMethod();
  if (req.verb === 'create' && req.name !== undefined && !r.crd) throw unroutableMethod();
}
