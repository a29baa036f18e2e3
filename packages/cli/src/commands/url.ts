// `agent-sandbox url ID PORT`: the URL of a port of the sandbox (the SDK's getHost): the
// router's per-sandbox host name when a router is configured (--router-url or
// AGENT_SANDBOX_ROUTER_URL, with the router's --sandbox-domain), else the Pod IP and port.
import { Sandbox } from '@agent-sandbox/sdk';
import type { ClusterOptions } from '../cluster-options.ts';
import { FlagError } from '../errors.ts';
import type { CommandIO } from '../io.ts';
import { sandboxBoundary, sdkConnection } from './sdk-connection.ts';

export interface UrlFlags extends ClusterOptions {
  routerUrl?: string;
  sandboxDomain?: string;
}

export function runUrl(
  id: string,
  portText: string,
  opts: UrlFlags,
  io: CommandIO,
): Promise<number> {
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= 1 && port <= 65535))
    throw new FlagError(`port "${portText}" must be a port number in 1-65535`);
  return sandboxBoundary(async () => {
    const sandbox = await Sandbox.connect(id, {
      ...sdkConnection(opts),
      ...(opts.routerUrl ? { routerUrl: opts.routerUrl } : {}),
      ...(opts.sandboxDomain ? { sandboxDomain: opts.sandboxDomain } : {}),
    });
    try {
      const url = await sandbox.getHost(port);
      io.stdout(opts.output === 'json' ? `${JSON.stringify({ id, port, url })}\n` : `${url}\n`);
      return 0;
    } finally {
      await sandbox.close();
    }
  });
}
