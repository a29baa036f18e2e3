// @agent-sandbox/kube: a small generic Kubernetes client (ADR 0008).
export {
  KubeClient,
  type KubeClientOptions,
  type FetchLike,
  type ClientMetrics,
  type RetryBackoff,
} from './client.ts';
export type { TransportFailure } from './retry.ts';
export {
  loadKubeConfig,
  kubeConfigFromFile,
  kubeConfigFromString,
  inClusterKubeConfig,
  type KubeConfig,
  type KubeConfigLoadOptions,
  type KubeConfigParseOptions,
} from './kubeconfig.ts';
export {
  KubeError,
  ApiError,
  InvalidArgumentError,
  KubeConfigError,
  apiErrorFromResponse,
  isNotFound,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isGone,
  ignoreNotFound,
  type KubeErrorCode,
} from './errors.ts';
export {
  type ResourceRef,
  resourcePath,
  apiVersionOf,
  qualifiedResource,
  objectKey,
  splitKey,
  CONFIG_MAPS,
  PODS,
  SERVICES,
  SECRETS,
  PERSISTENT_VOLUME_CLAIMS,
  EVENTS,
  NAMESPACES,
  LEASES,
  CUSTOM_RESOURCE_DEFINITIONS,
} from './resources.ts';
export type {
  RequestOptions,
  GetOptions,
  ListOptions,
  ListResult,
  WriteOptions,
  Patch,
  PatchOptions,
  JsonPatchOperation,
  DeleteOptions,
  WatchOptions,
  WatchEvent,
  BookmarkObject,
} from './types.ts';
export { Cache, type CacheReader, type IndexFunc } from './cache.ts';
export {
  Informer,
  type InformerOptions,
  type InformerHandlers,
  type InformerLogger,
} from './informer.ts';
export { TokenBucket, type TokenBucketOptions } from './rate-limiter.ts';
export { realClock, sleep, type Clock, type TimerHandle } from './clock.ts';
// metav1.Time / MicroTime text forms live in kube-types (one copy for client and server).
export { formatMicroTime, formatTime, parseTime } from '@agent-sandbox/kube-types';
