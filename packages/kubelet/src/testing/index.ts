// @agent-sandbox/kubelet/testing: helpers for tests that run real images and containers, and
// host processes standing in for containers (streaming protocol tests).
export { buildTestImage, hasBusybox, BUSYBOX, type TestImage } from './test-image.ts';
export {
  startTestRegistry,
  hasRegistry,
  REGISTRY_BINARY,
  type TestRegistry,
} from './test-registry.ts';
export { HostPodContainers, type HostPodContainersOptions } from './host-pod-containers.ts';
export { findLeaks, type LeakCheckOptions } from './leak-check.ts';
export { createRuntimeClass } from './runtime-class.ts';
