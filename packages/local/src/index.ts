// @agent-sandbox/local: the single-machine composition root (ADR 0019). startEmbedded() runs the
// embedded API server and the components the options select in one process.
export {
  DEFAULT_PORT,
  dataDirPaths,
  startEmbeddedApiServer,
  type ApiServerEvent,
  type EmbeddedApiServer,
  type EmbeddedApiServerOptions,
  type ServingLimits,
} from './api-server.ts';
export {
  signalComponent,
  type Component,
  type ComponentContext,
  type RunningComponent,
} from './component.ts';
export {
  components,
  startEmbedded,
  type EmbeddedControllerManagerOptions,
  type EmbeddedHandle,
  type EmbeddedOptions,
} from './embedded.ts';
export { LocalError, type LocalErrorCode } from './errors.ts';
export {
  CONTROLLER_MANAGER_USER,
  ROUTER_USER,
  controllerManagerIdentity,
  nodeIdentity,
  routerIdentity,
  type ComponentIdentity,
} from './identities.ts';
export {
  nodeAgentComponent,
  nodeImageStore,
  RUNTIME_CLASS_NAMES,
  type EmbeddedNodeAgentOptions,
  type NodeAgentEvent,
} from './node-agent.ts';
export { networkPrefix, type NodeNetworkOptions } from './node-network.ts';
export { prepareSandboxd, type SandboxdInjection } from './sandboxd-injection.ts';
export { NodeStreamDirectory, type NodeStreamRegistry } from './node-streams.ts';
export { hostNetworkPods, routerComponent, type EmbeddedRouterOptions } from './router.ts';
export {
  ROUTER_NAMESPACE,
  ROUTER_POD,
  ROUTER_SERVICE,
  ROUTER_SERVICE_PORT,
} from './router-objects.ts';
