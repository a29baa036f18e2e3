// What the embedded mode is made of: the API server first, then components that run against it
// (the controller manager today; the node agent and the router next), each started with what
// the API server provides and stopped in reverse order.
import type { FetchLike, KubeConfig } from '@agent-sandbox/kube';
import type { ComponentIdentity } from './identities.ts';
import type { NodeStreamRegistry } from './node-streams.ts';

/** What every component gets: where the embedded API server is. */
export interface ComponentContext {
  apiServer: {
    url: string;
    /**
     * In-memory credentials for an in-process client: the component's own identity's, or the
     * admin's for a component that declares none.
     */
    kubeConfig: KubeConfig;
    /** The admin's kubeconfig on disk (for tools); a component with an identity never uses it. */
    kubeconfigPath: string;
    /**
     * The API server's handler without a socket (apiserver in-process.ts): a component's
     * KubeClient takes it as `fetch`, with its kubeConfig's token as the identity.
     */
    fetch: FetchLike;
  };
  /** Where a node agent announces its streaming server to the API server's pod stream proxy. */
  nodeStreams: NodeStreamRegistry;
}

/**
 * One part of the embedded mode. start() resolves once the component runs (it may keep working
 * in the background); a rejection stops the whole mode before it serves.
 */
export interface Component {
  /** kebab-case, used in errors (`controller-manager`, `kubelet`, `router`). */
  readonly name: string;
  /**
   * Who the component is and the roles it needs; the composition root issues it a token and
   * binds the roles before start(). Absent: it runs as the admin (every component of ours has one).
   */
  readonly identity?: ComponentIdentity;
  start(ctx: ComponentContext): Promise<RunningComponent>;
}

export interface RunningComponent {
  /**
   * Settles when the component ends on its own: resolves after stop(), rejects when it fails
   * while running (the composition then stops everything else).
   */
  readonly done: Promise<void>;
  /** URLs it serves, by name (`router`), for DIR/endpoints.json. */
  readonly endpoints?: Readonly<Record<string, string>>;
  /** Stops it and waits until it has stopped; never rejects. Idempotent. */
  stop(): Promise<void>;
}

/** A component around a long-running `run(signal)` call (the controller manager's shape). */
export function signalComponent(
  name: string,
  run: (ctx: ComponentContext, signal: AbortSignal) => Promise<void>,
  identity?: ComponentIdentity,
): Component {
  return {
    name,
    ...(identity ? { identity } : {}),
    start(ctx) {
      const abort = new AbortController();
      const done = run(ctx, abort.signal);
      return Promise.resolve({
        done,
        stop: async () => {
          abort.abort();
          await done.catch(() => undefined);
        },
      });
    },
  };
}
