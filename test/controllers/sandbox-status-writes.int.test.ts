// The Sandbox status-write cache-lag scenario (issue 10) on the embedded API server.
import { defineSandboxStatusWrites } from './sandbox-status-writes.ts';

defineSandboxStatusWrites('embedded');
