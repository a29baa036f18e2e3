// `npm start` (= `agent-sandbox up --demo`): before the embedded mode starts, set up the machine
// (apt as root, else say what is missing) and build and load the demo image; once it serves,
// install the demo template and warm pool, show the pool warming and print what to try next.
import { SANDBOX_TEMPLATES, SANDBOX_WARM_POOLS } from '@agent-sandbox/controllers';
import { ImageStore, loadOciLayout } from '@agent-sandbox/kubelet';
import { KubeClient, isAlreadyExists, kubeConfigFromFile } from '@agent-sandbox/kube';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../errors.ts';
import { DEMO_IMAGE, ensureDemoImage } from './demo-image.ts';
import { DEMO_NAME, DEMO_NAMESPACE, demoTemplate, demoWarmPool } from './demo-objects.ts';
import { onPath, runHostCommand } from './host.ts';
import {
  describeTools,
  installPackages,
  planSetup,
  type RunHostCommand,
} from './system-packages.ts';
import { waitForWarmPool } from './warm-pool-progress.ts';

export interface PrepareDemoOptions {
  /** The data dir of `up`; the node agent's image store is `<dataDir>/node/images`. */
  dataDir: string;
  report: (line: string) => void;
  /** @default `$XDG_CACHE_HOME/agent-sandbox/demo-image`, else ~/.cache/... */
  cacheDir?: string;
  run?: RunHostCommand;
  has?: (binary: string) => boolean;
  isRoot?: boolean;
}

export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'agent-sandbox', 'demo-image');
}

/** Installs what is missing (or fails saying how), then builds and loads the demo image. */
export async function prepareDemo(o: PrepareDemoOptions): Promise<{ image?: string }> {
  const has = o.has ?? ((b: string) => onPath(b));
  const run = o.run ?? runHostCommand;
  await ensureHostTools(has, run, o);
  if (!has('mmdebstrap')) {
    o.report(
      'demo image: skipped, mmdebstrap is missing (as root: apt-get install -y mmdebstrap); no demo template or warm pool',
    );
    return {};
  }
  const { layoutDir } = await ensureDemoImage({
    cacheDir: o.cacheDir ?? defaultCacheDir(),
    run,
    report: o.report,
  });
  const store = new ImageStore(join(o.dataDir, 'node', 'images'));
  const present = await store.get(DEMO_IMAGE);
  const loaded = await loadOciLayout(store, layoutDir, DEMO_IMAGE);
  if (present?.digest !== loaded.digest)
    o.report(`demo image: loaded as ${DEMO_IMAGE} into the node agent's image store`);
  return { image: DEMO_IMAGE };
}

async function ensureHostTools(
  has: (binary: string) => boolean,
  run: RunHostCommand,
  o: PrepareDemoOptions,
): Promise<void> {
  const isRoot = o.isRoot ?? process.getuid?.() === 0;
  const plan = planSetup(has, { isRoot, hasApt: has('apt-get') });
  if (plan.kind === 'ready') return o.report('setup: runc, ip, nft, runsc and mmdebstrap found');
  if (plan.kind === 'install') {
    const r = await installPackages(plan, run, o.report);
    if (!r.ok)
      throw new CliError(
        'Failed',
        `setup: apt-get could not install ${plan.packages.join(' ')}: ${r.output.trim().split('\n').slice(-3).join(' | ')}`,
      );
    return;
  }
  if (plan.required.length > 0)
    throw new CliError(
      'Failed',
      `agent-sandbox up needs ${describeTools(plan.required)}; ${plan.hint}, then run npm start again`,
    );
  o.report(`setup: running without ${describeTools(plan.optional)} (${plan.hint})`);
}

/**
 * Creates the demo template and warm pool (leaving existing ones as they are: they may be the
 * user's), reports the pool warming until it is ready, then prints what to try next.
 */
export async function installDemo(
  kubeconfigPath: string,
  image: string,
  o: { report: (line: string) => void; signal?: AbortSignal },
): Promise<void> {
  const client = new KubeClient({ config: kubeConfigFromFile(kubeconfigPath) });
  try {
    for (const [ref, obj] of [
      [SANDBOX_TEMPLATES, demoTemplate(image)],
      [SANDBOX_WARM_POOLS, demoWarmPool()],
    ] as const) {
      const created = await client.create(ref, obj).then(
        () => true,
        (err: unknown) => (isAlreadyExists(err) ? false : Promise.reject(err)),
      );
      o.report(
        `demo: ${obj.kind} ${DEMO_NAMESPACE}/${DEMO_NAME} ${created ? 'created' : 'exists (kept as it is)'}`,
      );
    }
    await waitForWarmPool(client, DEMO_NAMESPACE, DEMO_NAME, o);
  } finally {
    await client.close();
  }
  o.report(nextSteps(kubeconfigPath));
}

/** Pure: the lines printed once the pool is warm. */
export function nextSteps(kubeconfigPath: string): string {
  return [
    `ready: warm pool ${DEMO_NAMESPACE}/${DEMO_NAME} (Debian with python3) — try, in another terminal:`,
    `  export KUBECONFIG=${kubeconfigPath}`,
    `  npx agent-sandbox create --warm-pool ${DEMO_NAME} --name demo`,
    `  npx agent-sandbox exec demo -- python3 -c 'print(6*7)'`,
    `  npx agent-sandbox rm demo`,
    `  (README.md has the same in TypeScript with @agent-sandbox/sdk)`,
  ].join('\n');
}
