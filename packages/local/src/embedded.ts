// The composition root of the embedded single-machine mode (ADR 0019): typed options in, the
// embedded API server plus the selected components out, as one handle to wait on and stop.
// `agent-sandbox start` parses its flags and calls startEmbedded(); `agent-sandbox apiserver` is
// the same call with no components. Adding a part (the node agent, the router) is one optional
// field in EmbeddedOptions and one line in components().
import { NodeStreamProxy } from '@agent-sandbox/apiserver';
import { runControllerManager, type ControllerManagerOptions } from '@agent-sandbox/controllers';
import {
  startEmbeddedApiServer,
  type EmbeddedApiServer,
  type EmbeddedApiServerOptions,
} from './api-server.ts';
import { KubeClient, type KubeConfig } from '@agent-sandbox/kube';
import {
  signalComponent,
  type Component,
  type ComponentContext,
  type RunningComponent,
} from './component.ts';
import { LocalError } from './errors.ts';
import {
  controllerManagerIdentity,
  grant,
  issueTokens,
  kubeConfigWithToken,
  type ComponentIdentity,
} from './identities.ts';
import { nodeAgentComponent, type EmbeddedNodeAgentOptions } from './node-agent.ts';
import { NodeStreamDirectory } from './node-streams.ts';
import { publishRouter, unpublishRouter } from './router-publication.ts';
import { routerComponent, type EmbeddedRouterOptions } from './router.ts';
import { reportSlow } from './slow-stop.ts';

/** The controller manager's options; the embedded mode supplies the kubeconfig. */
export type EmbeddedControllerManagerOptions = Omit<ControllerManagerOptions, 'kubeConfig'>;

export interface EmbeddedOptions {
  apiServer: EmbeddedApiServerOptions;
  /** Absent: no controller manager (the API server alone). */
  controllerManager?: EmbeddedControllerManagerOptions;
  /** Absent: no node agent (Pods stay Pending). Needs root and runc (packages/kubelet README). */
  kubelet?: EmbeddedNodeAgentOptions;
  /** Absent: no router. */
  router?: EmbeddedRouterOptions;
  /**
   * Told every 5 s (SLOW_STOP_MS) while one part is still stopping (`router publication`, a
   * component's name, `api-server`), with how long it has taken: a stop that hangs says where.
   */
  onSlowStop?: (part: string, elapsedMs: number) => void;
}

export interface EmbeddedHandle {
  apiServer: Pick<EmbeddedApiServer, 'url' | 'dataDir' | 'kubeconfigPath' | 'kubeConfig'>;
  /** Names of the running components, in start order. */
  components: readonly string[];
  /** What the components serve, by name (`router`: the router's URL). */
  endpoints: Readonly<Record<string, string>>;
  /**
   * Settles when a component ends on its own: rejects with LocalError (`ComponentFailed`, the
   * component's error as cause) when one fails. Never settles while everything runs.
   */
  done: Promise<void>;
  /** Stops the components (newest first), then the API server. Idempotent; never rejects. */
  stop(): Promise<void>;
}

/** The components the options ask for, in start order. */
export function components(options: EmbeddedOptions): Component[] {
  const out: Component[] = [];
  const cm = options.controllerManager;
  if (cm)
    out.push(
      signalComponent(
        'controller-manager',
        (ctx, signal) =>
          runControllerManager(
            { ...cm, kubeConfig: ctx.apiServer.kubeConfig, fetch: ctx.apiServer.fetch },
            signal,
          ),
        controllerManagerIdentity(cm.extensions === true),
      ),
    );
  if (options.kubelet) out.push(nodeAgentComponent(options.kubelet));
  if (options.router) out.push(routerComponent(options.router));
  return out;
}

/**
 * Starts the API server, then each component; resolves once all run. Rejects with LocalError
 * (after undoing what started) when the API server or a component cannot start.
 */
export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedHandle> {
  // Pod streams go to whichever node agent registered its streaming server (kube-apiserver's
  // proxy to the kubelet); options.apiServer may bring its own.
  const nodeStreams = new NodeStreamDirectory();
  const parts = components(options);
  // Each component's own identity: a token for this run only, known to the API server alone.
  const identities = parts.flatMap((c) => (c.identity ? [c.identity] : []));
  const tokens = issueTokens(identities);
  const apiServer = await startEmbeddedApiServer({
    podStreams: new NodeStreamProxy({ locate: nodeStreams.locate }),
    ...options.apiServer,
    users: [...(options.apiServer.users ?? []), ...tokens],
  });
  const base: ComponentContext = {
    apiServer: {
      url: apiServer.url,
      kubeConfig: apiServer.kubeConfig,
      kubeconfigPath: apiServer.kubeconfigPath,
      fetch: apiServer.fetch,
    },
    nodeStreams,
  };
  const contextFor = (identity: ComponentIdentity | undefined): ComponentContext => {
    const token = tokens[identity ? identities.indexOf(identity) : -1]?.token;
    if (token === undefined) return base;
    const kubeConfig = kubeConfigWithToken(apiServer.kubeConfig, token);
    return { ...base, apiServer: { ...base.apiServer, kubeConfig } };
  };
  const running: { name: string; component: RunningComponent }[] = [];
  let unpublish: (() => Promise<void>) | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      const slow = options.onSlowStop;
      if (unpublish) await reportSlow('router publication', unpublish(), slow);
      for (let r = running.pop(); r; r = running.pop())
        await reportSlow(r.name, r.component.stop(), slow);
      await reportSlow('api-server', apiServer.stop(), slow);
    })());
  try {
    await grantAll(apiServer.kubeConfig, identities);
  } catch (err: unknown) {
    await stop();
    throw err;
  }
  for (const component of parts) {
    try {
      const ctx = contextFor(component.identity);
      running.push({ name: component.name, component: await component.start(ctx) });
    } catch (err: unknown) {
      await stop();
      throw componentFailed(component.name, err);
    }
  }
  const endpoints = Object.assign({}, ...running.map((r) => r.component.endpoints ?? {})) as Record<
    string,
    string
  >;
  try {
    unpublish = await publishAsAdmin(apiServer.kubeConfig, options.router?.nodeName, endpoints);
  } catch (err: unknown) {
    await stop();
    throw componentFailed('router', err);
  }
  const names = running.map((r) => r.name);
  const done = Promise.race(
    running.map(({ name, component }) =>
      component.done.catch((err: unknown) => {
        throw componentFailed(name, err);
      }),
    ),
  );
  // The caller may never wait on done (it stops first); a failure is still its to see via done.
  done.catch(() => undefined);
  return {
    apiServer: {
      url: apiServer.url,
      dataDir: apiServer.dataDir,
      kubeconfigPath: apiServer.kubeconfigPath,
      kubeConfig: apiServer.kubeConfig,
    },
    components: names,
    endpoints,
    done: running.length === 0 ? new Promise<void>(() => undefined) : done,
    stop,
  };
}

/** Binds each identity's roles as the admin, before any component starts. */
async function grantAll(
  admin: KubeConfig,
  identities: readonly ComponentIdentity[],
): Promise<void> {
  if (identities.length === 0) return;
  const client = new KubeClient({ config: admin });
  try {
    await grant(client, identities);
  } finally {
    await client.close();
  }
}

/**
 * The router's Service and mirror Pod on its node, written as the admin (the router itself may
 * not write them); returns what removes the Pod again, or undefined when there is nothing to do.
 */
async function publishAsAdmin(
  admin: KubeConfig,
  nodeName: string | undefined,
  endpoints: Readonly<Record<string, string>>,
): Promise<(() => Promise<void>) | undefined> {
  const url = endpoints['router'];
  if (nodeName === undefined || url === undefined) return undefined;
  const client = new KubeClient({ config: admin });
  try {
    await publishRouter(client, nodeName, Number(new URL(url).port));
  } catch (err: unknown) {
    await client.close();
    throw err;
  }
  return async () => {
    await unpublishRouter(client);
    await client.close();
  };
}

function componentFailed(name: string, err: unknown): LocalError {
  if (err instanceof LocalError) return err;
  const why = err instanceof Error ? err.message : String(err);
  return new LocalError('ComponentFailed', `${name}: ${why}`, { cause: err });
}
