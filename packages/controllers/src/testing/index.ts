// @agent-sandbox/controllers/testing: support for tests outside the package (test/controllers):
// the scripted kubelet that plays a node's part and the Pod status it reports.
export { runningPodStatus } from './harness.ts';
export { startScriptedKubelet } from './scripted-kubelet.ts';
export { controllerClient, controllerConfig } from './controller-identity.ts';
export {
  createNamespace,
  eventually,
  newSandbox,
  startSandboxController,
  type RunningController,
} from './harness.ts';
export { TEST_TARGETS, connectTarget, type TargetHandle, type TestTarget } from './target.ts';
