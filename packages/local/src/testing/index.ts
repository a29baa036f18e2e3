// @agent-sandbox/local/testing: `agent-sandbox up` in its own process, for the up suites and e2e.
export {
  CLI_BIN,
  startUp,
  stopUp,
  upLeaks,
  upNetwork,
  type StartUpOptions,
  type UpEndpoints,
  type UpNetwork,
  type UpProcess,
} from './up-process.ts';
