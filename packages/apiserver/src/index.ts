// @agent-sandbox/apiserver: the embedded Kubernetes-compatible API server. The fetch handler
// (ApiServer), its socket adapter (listen), the SQLite store, and the data-dir credentials
// (CA, serving certificate, bearer token, kubeconfig; ADR 0007).
export { ApiServer, type ApiServerOptions, type TokenUser } from './server.ts';
export type { UserInfo } from './auth/authenticate.ts';
export type { PodStreams, PodStreamSubresource } from './http/verbs/pod-streams.ts';
export {
  NodeStreamProxy,
  type NodeStreamEndpoint,
  type NodeStreamProxyOptions,
} from './http/pod-stream-proxy.ts';
export type { Converter } from './resource-store.ts';
export { uncovered as uncoveredRules, type PolicyRule } from './authz/policy.ts';
export {
  enforcing,
  PRIVILEGED_DEFAULTS,
  type Level as PodSecurityLevel,
  type PodSecurityPolicy,
} from './podsecurity/index.ts';
export type { AuditEvent } from './audit/audit-event.ts';
export {
  DEFAULT_AUDIT_MAX_BACKUPS,
  DEFAULT_AUDIT_MAX_BYTES,
  FileAuditLog,
  type AuditSink,
  type FileAuditLogOptions,
} from './audit/file-audit-log.ts';
export { RotatingFile, type RotatingFileOptions } from './files/rotating-file.ts';
export { listen, type ListenOptions, type ListeningServer } from './node-server.ts';
export { ApiServerError } from './errors.ts';
export type { RequestFailure, RequestFailureLog } from './http/error-boundary.ts';
export {
  openStore,
  startCompactor,
  StorageError,
  isStorageError,
  type CompactorHandle,
  type OpenStoreOptions,
  type Store,
  type StorageErrorCode,
} from './storage/index.ts';
export {
  certificatePaths,
  ensureCertificates,
  SERVING_DNS_NAMES,
  SERVING_IP_ADDRESSES,
  type CertificatePaths,
  type EnsureCertificatesOptions,
  type ServingCertificates,
} from './tls/certificates.ts';
export { CredentialError, type CredentialErrorCode } from './tls/errors.ts';
export {
  createCa,
  issueServingCertificate,
  type CaRequest,
  type PemPair,
  type ServingCertificateRequest,
} from './tls/issue.ts';
export { ensureToken, type EnsureTokenOptions } from './tls/token.ts';
export {
  ensureServiceAccountKey,
  type EnsureServiceAccountKeyOptions,
} from './tls/service-account-key.ts';
export { renderKubeconfig, writeKubeconfig, type KubeconfigOptions } from './tls/kubeconfig.ts';
export { inProcessFetch, type InProcessFetch, type InProcessFetchOptions } from './in-process.ts';
