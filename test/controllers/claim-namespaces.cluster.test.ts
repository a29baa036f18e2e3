// A claim never adopts from another namespace (spec §21.3), manager seeing two, on the real control plane.
import { defineClaimNamespaces } from './claim-namespaces.ts';

defineClaimNamespaces('cluster');
