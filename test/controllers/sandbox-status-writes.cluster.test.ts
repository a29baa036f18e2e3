// The Sandbox status-write cache-lag scenario (issue 10) on the real control plane.
import { defineSandboxStatusWrites } from './sandbox-status-writes.ts';

defineSandboxStatusWrites('cluster');
