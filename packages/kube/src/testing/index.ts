// @agent-sandbox/kube/testing: helpers for tests (no fake client: STYLE "Test layout").
export { FakeClock } from './fake-clock.ts';
export { configMap } from './builders.ts';
export { CLUSTER_KUBECONFIG, clusterKubeconfig } from './cluster.ts';
export { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';
export { holdWatches, type HeldWatches } from './held-watches.ts';
