// The built-in resources the embedded server serves (issue 4): names, scope, verbs and
// subresources as kube-apiserver 1.32 lists them in discovery. Policy as data.
import type { SubresourceInfo, Verb } from './resource.ts';

export interface BuiltinResource {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs: Verb[];
  subresources?: SubresourceInfo[];
  /** The OpenAPI definition in packages/kube-types/openapi/k8s-openapi.json, when we carry it. */
  openApiDefinition?: string;
  tracksGeneration?: boolean;
  /** PUT without metadata.resourceVersion is allowed. @default true */
  unconditionalUpdate?: boolean;
  /** PUT of a missing object creates it (leases, endpoints, events). @default false */
  createOnUpdate?: boolean;
  /** DELETE answers with the object rather than a Status (pods, PVCs, service accounts). @default false */
  deleteReturnsObject?: boolean;
}

const ALL_VERBS: Verb[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];
const STATUS_VERBS = ['get', 'patch', 'update'] as const;

function status(kind: string): SubresourceInfo {
  return { name: 'status', kind, verbs: STATUS_VERBS };
}

export const BUILTIN_RESOURCES: readonly BuiltinResource[] = [
  {
    // The legacy way to bind a Pod (POST a Binding named like the Pod); kube still serves it.
    group: '',
    version: 'v1',
    plural: 'bindings',
    singular: 'binding',
    kind: 'Binding',
    namespaced: true,
    verbs: ['create'],
  },
  {
    group: '',
    version: 'v1',
    plural: 'configmaps',
    singular: 'configmap',
    kind: 'ConfigMap',
    namespaced: true,
    shortNames: ['cm'],
    verbs: ALL_VERBS,
    openApiDefinition: 'io.k8s.api.core.v1.ConfigMap',
  },
  {
    group: '',
    version: 'v1',
    plural: 'endpoints',
    singular: 'endpoints',
    kind: 'Endpoints',
    namespaced: true,
    shortNames: ['ep'],
    verbs: ALL_VERBS,
    openApiDefinition: 'io.k8s.api.core.v1.Endpoints',
    createOnUpdate: true,
  },
  {
    group: '',
    version: 'v1',
    plural: 'events',
    singular: 'event',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    verbs: ALL_VERBS,
    openApiDefinition: 'io.k8s.api.core.v1.Event',
    createOnUpdate: true,
  },
  {
    group: '',
    version: 'v1',
    plural: 'namespaces',
    singular: 'namespace',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [{ name: 'finalize', kind: 'Namespace', verbs: ['update'] }, status('Namespace')],
    openApiDefinition: 'io.k8s.api.core.v1.Namespace',
  },
  {
    // Registered and kept fresh by the node agent (packages/kubelet), as a kubelet does.
    group: '',
    version: 'v1',
    plural: 'nodes',
    singular: 'node',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    verbs: ALL_VERBS,
    subresources: [status('Node')],
  },
  {
    group: '',
    version: 'v1',
    plural: 'persistentvolumeclaims',
    singular: 'persistentvolumeclaim',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    shortNames: ['pvc'],
    verbs: ALL_VERBS,
    subresources: [status('PersistentVolumeClaim')],
    openApiDefinition: 'io.k8s.api.core.v1.PersistentVolumeClaim',
    deleteReturnsObject: true,
  },
  {
    group: '',
    version: 'v1',
    plural: 'persistentvolumes',
    singular: 'persistentvolume',
    kind: 'PersistentVolume',
    namespaced: false,
    shortNames: ['pv'],
    verbs: ALL_VERBS,
    subresources: [status('PersistentVolume')],
  },
  {
    group: '',
    version: 'v1',
    plural: 'pods',
    singular: 'pod',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    verbs: ALL_VERBS,
    subresources: [
      { name: 'attach', kind: 'PodAttachOptions', verbs: ['create', 'get'] },
      { name: 'binding', kind: 'Binding', verbs: ['create'] },
      { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'] },
      { name: 'log', kind: 'Pod', verbs: ['get'] },
      { name: 'portforward', kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
      status('Pod'),
    ],
    openApiDefinition: 'io.k8s.api.core.v1.Pod',
    // kube 1.36 sets generation 1 on create and bumps it on spec changes (PodObservedGenerationTracking).
    tracksGeneration: true,
    deleteReturnsObject: true,
  },
  {
    group: '',
    version: 'v1',
    plural: 'secrets',
    singular: 'secret',
    kind: 'Secret',
    namespaced: true,
    verbs: ALL_VERBS,
    openApiDefinition: 'io.k8s.api.core.v1.Secret',
  },
  {
    group: '',
    version: 'v1',
    plural: 'serviceaccounts',
    singular: 'serviceaccount',
    kind: 'ServiceAccount',
    namespaced: true,
    shortNames: ['sa'],
    verbs: ALL_VERBS,
    subresources: [
      {
        name: 'token',
        kind: 'TokenRequest',
        group: 'authentication.k8s.io',
        version: 'v1',
        verbs: ['create'],
      },
    ],
    openApiDefinition: 'io.k8s.api.core.v1.ServiceAccount',
    deleteReturnsObject: true,
  },
  {
    group: '',
    version: 'v1',
    plural: 'services',
    singular: 'service',
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    verbs: ALL_VERBS,
    subresources: [status('Service')],
    openApiDefinition: 'io.k8s.api.core.v1.Service',
  },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    plural: 'customresourcedefinitions',
    singular: 'customresourcedefinition',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    verbs: ALL_VERBS,
    subresources: [status('CustomResourceDefinition')],
    tracksGeneration: true,
  },
  {
    group: 'authentication.k8s.io',
    version: 'v1',
    plural: 'tokenreviews',
    singular: 'tokenreview',
    kind: 'TokenReview',
    namespaced: false,
    verbs: ['create'],
  },
  {
    group: 'coordination.k8s.io',
    version: 'v1',
    plural: 'leases',
    singular: 'lease',
    kind: 'Lease',
    namespaced: true,
    verbs: ALL_VERBS,
    openApiDefinition: 'io.k8s.api.coordination.v1.Lease',
    unconditionalUpdate: false,
    createOnUpdate: true,
  },
  {
    group: 'discovery.k8s.io',
    version: 'v1',
    plural: 'endpointslices',
    singular: 'endpointslice',
    kind: 'EndpointSlice',
    namespaced: true,
    verbs: ALL_VERBS,
    openApiDefinition: 'io.k8s.api.discovery.v1.EndpointSlice',
    tracksGeneration: true,
  },
  {
    group: 'events.k8s.io',
    version: 'v1',
    plural: 'events',
    singular: 'event',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    verbs: ALL_VERBS,
    openApiDefinition: 'io.k8s.api.events.v1.Event',
  },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    plural: 'networkpolicies',
    singular: 'networkpolicy',
    kind: 'NetworkPolicy',
    namespaced: true,
    shortNames: ['netpol'],
    verbs: ALL_VERBS,
    openApiDefinition: 'io.k8s.api.networking.v1.NetworkPolicy',
    tracksGeneration: true,
  },
  {
    group: 'node.k8s.io',
    version: 'v1',
    plural: 'runtimeclasses',
    singular: 'runtimeclass',
    kind: 'RuntimeClass',
    namespaced: false,
    verbs: ALL_VERBS,
  },
];
