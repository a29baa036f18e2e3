// The kinds the SDK reads and writes, as ResourceRefs, and their object types.
import { EXTENSIONS_GROUP, SANDBOX_GROUP, type v1beta1 } from '@agent-sandbox/api';
import type { ResourceRef } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';

const ref = (group: string, plural: string, kind: string): ResourceRef => ({
  group,
  version: 'v1beta1',
  plural,
  kind,
  namespaced: true,
});

export const SANDBOXES = ref(SANDBOX_GROUP, 'sandboxes', 'Sandbox');
export const SANDBOX_CLAIMS = ref(EXTENSIONS_GROUP, 'sandboxclaims', 'SandboxClaim');
export const SANDBOX_WARM_POOLS = ref(EXTENSIONS_GROUP, 'sandboxwarmpools', 'SandboxWarmPool');
export const SANDBOX_TEMPLATES = ref(EXTENSIONS_GROUP, 'sandboxtemplates', 'SandboxTemplate');

export type SandboxObject = v1beta1.Sandbox & KubeObject;
export type ClaimObject = v1beta1.SandboxClaim & KubeObject;
export type WarmPoolObject = v1beta1.SandboxWarmPool & KubeObject;
