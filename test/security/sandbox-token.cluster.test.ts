// The sandbox-token suite against the harness's kube-apiserver (sandbox-token.ts).
import { sandboxTokenSuite } from './sandbox-token.ts';

sandboxTokenSuite('cluster');
