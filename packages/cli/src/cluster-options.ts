// The global options every cluster verb shares (kubectl's names): --kubeconfig, --context,
// -n/--namespace and -o/--output. Declaring them is one call in the verb's declaration; the
// implementation turns them into a client config with loadClusterConfig().
import { Option, type Command } from 'commander';
import type { KubeConfig } from '@agent-sandbox/kube';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml', 'name'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** What commander hands the action for the options addClusterOptions() declares. */
export interface ClusterOptions {
  /** @default KUBECONFIG, the in-cluster service account, then ~/.kube/config */
  kubeconfig?: string;
  /** @default the kubeconfig's current-context */
  context?: string;
  /** @default the context's namespace */
  namespace?: string;
  /** @default 'table' */
  output: OutputFormat;
}

/** Declares the shared options on a cluster verb. */
export function addClusterOptions(command: Command): Command {
  return command
    .option('--kubeconfig <path>', 'kubeconfig file (default: KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', "kubeconfig context (default: the file's current-context)")
    .option('-n, --namespace <namespace>', "namespace (default: the context's)")
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(OUTPUT_FORMATS)
        .default('table' satisfies OutputFormat),
    );
}

export interface ClusterConfig {
  config: KubeConfig;
  /** -n, else the context's namespace. */
  namespace: string;
}

/**
 * The client config the options select (kubectl's precedence). `env` is the process
 * environment, passed by the verb (library code reads none). Loads @agent-sandbox/kube on use.
 */
export async function loadClusterConfig(
  options: ClusterOptions,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ClusterConfig> {
  const { loadKubeConfig } = await import('@agent-sandbox/kube');
  const config = loadKubeConfig({
    env,
    ...(options.kubeconfig ? { kubeconfig: options.kubeconfig } : {}),
    ...(options.context ? { context: options.context } : {}),
  });
  return { config, namespace: options.namespace ?? config.namespace };
}
