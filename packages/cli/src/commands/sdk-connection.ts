// What every sandbox verb shares on the SDK side: the connection the cluster options select and
// the boundary that turns SDK errors (complete sentences) into CliErrors with exit 1.
import { SdkError, type ConnectionOptions } from '@agent-sandbox/sdk';
import type { ClusterOptions } from '../cluster-options.ts';
import { CliError, failureOf } from '../errors.ts';

/** The connection the cluster options select; the process environment fills the rest. */
export function sdkConnection(opts: ClusterOptions): ConnectionOptions {
  return {
    hostEnv: process.env,
    ...(opts.kubeconfig ? { kubeconfig: opts.kubeconfig } : {}),
    ...(opts.context ? { context: opts.context } : {}),
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
  };
}

/** Runs a verb body, turning SDK errors into CliErrors (exit 1) with their message. */
export async function sandboxBoundary(fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (err: unknown) {
    if (err instanceof SdkError && err.code === 'Connection')
      throw new CliError(
        'Failed',
        `${err.message} (is agent-sandbox up running? check --kubeconfig / KUBECONFIG)`,
        { cause: err },
      );
    throw failureOf(err, { complete: [SdkError] }) ?? err;
  }
}
