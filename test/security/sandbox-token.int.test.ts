// The sandbox-token suite against the embedded API server (sandbox-token.ts).
import { sandboxTokenSuite } from './sandbox-token.ts';

sandboxTokenSuite('embedded');
