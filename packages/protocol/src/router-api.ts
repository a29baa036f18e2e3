// The sandbox router's request contract (dataplane §2.2, §2.10, §2.11): routing headers, their
// defaults and the exact error details both SDKs and gateways see.

export const RouterHeader = {
  id: 'x-sandbox-id',
  uid: 'x-sandbox-uid',
  namespace: 'x-sandbox-namespace',
  port: 'x-sandbox-port',
  podIp: 'x-sandbox-pod-ip',
  timeout: 'x-sandbox-timeout',
} as const;

export const ROUTER_DEFAULT_NAMESPACE = 'default';
export const ROUTER_DEFAULT_PORT = 8888;
export const ROUTER_PROXY_PORT = 8080;

export const RouterDetail = {
  missingId: 'X-Sandbox-ID header is required.',
  badId: 'Invalid sandbox ID format.',
  badNamespace: 'Invalid namespace format.',
  badPort: 'Invalid port format.',
  badPodIp: 'Invalid target IP address.',
  unauthenticated: 'unauthenticated',
  forbidden: 'forbidden',
  backendUnreachable: (id: string) => `Could not connect to the backend sandbox: ${id}`,
} as const;

/** Every router error body: `{"detail": ...}` plus a newline, `application/json`. */
export interface RouterErrorBody {
  detail: string;
}

/** The `/healthz` body, without a trailing newline. */
export const ROUTER_HEALTHZ_BODY = '{"status":"ok"}';
