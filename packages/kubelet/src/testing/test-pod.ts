// The one-container Pod the node agent's integration tests create: the test image, never pulled
// when it is in the store, a 1 s grace period so deletes end quickly.
import type { Container, KubeObject, Pod, PodSpec } from '@agent-sandbox/kube-types';

/** The test image's name in a test's image store (buildTestImage's reference). */
export const TEST_IMAGE = 'localhost/test/busybox:v1';

export type PodObject = Pod & KubeObject;

/** Pod `name` in `default`; `container` and `spec` override the defaults field by field. */
export function testPod(
  name: string,
  container: Partial<Container> = {},
  spec: Omit<PodSpec, 'containers'> = {},
): PodObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'c',
          image: TEST_IMAGE,
          imagePullPolicy: 'IfNotPresent',
          command: ['sleep', '60'],
          ...container,
        },
      ],
      ...spec,
    },
  };
}
