// The demo SandboxTemplate and SandboxWarmPool `npm start` installs (pure): the demo image
// sleeping in a container named `sandbox`, never pulled (it is loaded locally), and a pool that
// keeps two members warm so the first claim is a warm start.
import type { KubeObject } from '@agent-sandbox/kube-types';
import { DEMO_IMAGE } from './demo-image.ts';

export const DEMO_NAME = 'python';
export const DEMO_NAMESPACE = 'default';
export const DEMO_REPLICAS = 2;
const PART_OF = { 'app.kubernetes.io/part-of': 'agent-sandbox-demo' };
const EXTENSIONS = 'extensions.agents.x-k8s.io/v1beta1';

export function demoTemplate(image: string = DEMO_IMAGE): KubeObject {
  return {
    apiVersion: EXTENSIONS,
    kind: 'SandboxTemplate',
    metadata: { name: DEMO_NAME, namespace: DEMO_NAMESPACE, labels: PART_OF },
    spec: {
      // Claims may pass env (Sandbox.create({ env })); they start cold then.
      envVarsInjectionPolicy: 'Allowed',
      podTemplate: {
        metadata: { labels: PART_OF },
        spec: {
          terminationGracePeriodSeconds: 2,
          containers: [
            {
              name: 'sandbox',
              image,
              imagePullPolicy: 'Never',
              command: ['sleep', 'infinity'],
              workingDir: '/workspace',
            },
          ],
        },
      },
    },
  } as KubeObject;
}

export function demoWarmPool(replicas: number = DEMO_REPLICAS): KubeObject {
  return {
    apiVersion: EXTENSIONS,
    kind: 'SandboxWarmPool',
    metadata: { name: DEMO_NAME, namespace: DEMO_NAMESPACE, labels: PART_OF },
    spec: { replicas, sandboxTemplateRef: { name: DEMO_NAME } },
  } as KubeObject;
}
