// The least privilege of our other components (issue 14). The router reads the Pods it routes
// to and the Sandboxes they belong to, patches a suspended Sandbox awake, and asks TokenReviews
// about callers. The node agent
// is a node: kube's Node authorizer (in the embedded API server) gives it its Node, its Lease, the
// Pods bound to it and what they mount; this role adds only what the embedded mode asks a node to
// do beyond a kubelet — bind unscheduled Pods to itself (it is the scheduler there), read
// NetworkPolicies and Namespaces to enforce policy (a CNI agent's part), register a
// RuntimeClass per runtime it can run, and bind PersistentVolumeClaims to local volumes (kube's
// persistent-volume-binder controller's part, which runs in the node agent there).
import type { ClusterRoleManifest } from './controller-roles.ts';

export const ROUTER_ROLE = 'agent-sandbox-router';
export const NODE_ROLE = 'agent-sandbox-node';

const READ = ['get', 'list', 'watch'];

export const ROUTER_CLUSTER_ROLE: ClusterRoleManifest = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: ROUTER_ROLE },
  rules: [
    { apiGroups: [''], resources: ['pods'], verbs: READ },
    // patch: wake-on-request resumes a suspended Sandbox (spec.operatingMode: Running).
    { apiGroups: ['agents.x-k8s.io'], resources: ['sandboxes'], verbs: [...READ, 'patch'] },
    { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
  ],
};

export const NODE_CLUSTER_ROLE: ClusterRoleManifest = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: NODE_ROLE },
  rules: [
    { apiGroups: [''], resources: ['pods/binding'], verbs: ['create'] },
    { apiGroups: [''], resources: ['namespaces'], verbs: READ },
    { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: READ },
    { apiGroups: ['node.k8s.io'], resources: ['runtimeclasses'], verbs: ['create'] },
    {
      apiGroups: [''],
      resources: ['persistentvolumes'],
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    },
    { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['patch', 'update', ...READ] },
    {
      apiGroups: [''],
      resources: ['persistentvolumeclaims/status', 'persistentvolumes/status'],
      verbs: ['patch', 'update'],
    },
  ],
};
