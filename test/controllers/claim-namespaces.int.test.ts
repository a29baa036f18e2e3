// A claim never adopts from another namespace (spec §21.3), manager seeing two, on the embedded API server.
import { defineClaimNamespaces } from './claim-namespaces.ts';

defineClaimNamespaces('embedded');
