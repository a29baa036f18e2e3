// @agent-sandbox/kubelet/testing: helpers for tests that run real images and containers.
export { buildTestImage, hasBusybox, BUSYBOX, type TestImage } from './test-image.ts';
export {
  startTestRegistry,
  hasRegistry,
  REGISTRY_BINARY,
  type TestRegistry,
} from './test-registry.ts';
