// Small helpers shared by the cluster tier's tests.
import { ApiException, type CoreV1Api } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';

export function isNotFound(err: unknown): boolean {
  return err instanceof ApiException && err.code === 404;
}

export function isConflict(err: unknown): boolean {
  return err instanceof ApiException && err.code === 409;
}

/** Retries `fn` (assertions included) until it passes or timeoutMs is over; rethrows the last error. */
export async function eventually<T>(fn: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err: unknown) {
      if (Date.now() > deadline) throw err;
      await sleep(250);
    }
  }
}

/**
 * A fresh namespace per test file, ready for pods: ServiceAccount admission rejects pods until
 * kube-controller-manager has created the namespace's `default` ServiceAccount (recipe §7).
 */
export async function createTestNamespace(
  core: CoreV1Api,
  prefix: string,
): Promise<{ namespace: string; cleanup: () => Promise<void> }> {
  const namespace = `${prefix}-${Date.now().toString(36)}`;
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  await eventually(() => core.readNamespacedServiceAccount({ name: 'default', namespace }));
  return {
    namespace,
    cleanup: async () => {
      await core.deleteNamespace({ name: namespace }).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    },
  };
}
