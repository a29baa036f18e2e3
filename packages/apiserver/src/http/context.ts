// What every verb handler gets: the server's collaborators and the parsed request.
import type { UserInfo } from '../auth/authenticate.ts';
import type { KubeObject, ServerContext } from '../objects.ts';
import type { ResourceCodec } from '../resource-store.ts';
import type { ResourceRegistry } from '../resources/registry.ts';
import type { ResourceInfo } from '../resources/resource.ts';
import type { Store } from '../storage/store.ts';
import type { ResourceRequest } from './request-info.ts';

export interface ServerParts {
  store: Store;
  registry: ResourceRegistry;
  codec: ResourceCodec;
  ctx: ServerContext;
}

export type AdmissionStage = 'before-validation' | 'after-validation';

export interface Call {
  r: ResourceInfo;
  req: ResourceRequest;
  http: Request;
  url: URL;
  /** The served version the client speaks. */
  version: string;
  /** Warning headers to send with the response. */
  warnings: string[];
  /** Aborted when the client goes away (watch streams end with it). */
  signal: AbortSignal;
  /** Who makes the request (authentication's answer). */
  user?: UserInfo;
  /**
   * Admission the server adds for this request; throws the refusal. `before-validation` runs on
   * the defaulted object where kube's storage checks RBAC escalation; `after-validation` where
   * kube's validating admission plugins (Pod Security) run.
   */
  admit?: (obj: KubeObject, old: KubeObject | undefined, stage: AdmissionStage) => void;
  /** Annotations admission adds to this request's audit event (Pod Security's audit level). */
  audit?: Record<string, string>;
}
