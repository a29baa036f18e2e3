// Entry point of the plain bundle (sandboxd.mjs): the daemon at once. The code-cached launch
// (code-cache.ts) reaches the same runSandboxd through its boot script.
import { runSandboxd } from './run.ts';

runSandboxd();
