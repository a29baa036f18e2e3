// `agent-sandbox up` (implementation: commands/up.ts).
import { defaultDataDir } from '../data-dir.ts';
import { parseBridgeName, parsePodCidr } from '../flags/network.ts';
import { parsePort } from '../flags/port.ts';
import { withEmbeddedFlags, type EmbeddedFlags } from '../flags/embedded.ts';
import type { Verb } from '../verb.ts';

interface UpFlags extends EmbeddedFlags {
  dataDir?: string;
  port?: number;
  podCidr?: string;
  bridge?: string;
  demo?: boolean;
  allowHostPath?: boolean;
}

export const upVerb: Verb = (program, { io, setExit, version }) => {
  withEmbeddedFlags(
    program
      .command('up')
      .description(
        'run agent-sandbox with its node agent on this machine (needs root and runc); stop with Ctrl-C',
      )
      .option(
        '--data-dir <dir>',
        `where state lives (default: $AGENT_SANDBOX_HOME, else ${defaultDataDir()})`,
      )
      .option(
        '--port <n>',
        'API server port; 0 picks a free one (default: 6443, or a free port if taken)',
        parsePort,
      )
      .option(
        '--pod-cidr <cidr>',
        'IPv4 range Pods get their IPs from (default: 10.88.0.0/16)',
        parsePodCidr,
      )
      .option(
        '--bridge <name>',
        'host bridge for Pods; netns, veths, nft tables and cgroups are named after it (default: asb0)',
        parseBridgeName,
      )
      .option(
        '--allow-host-path',
        'let Pods mount host paths (hostPath volumes): a sandbox with one is not isolated from this host; Pod Security baseline still refuses them',
        false,
      )
      .option(
        '--demo',
        'what npm start runs: set up this machine (apt, as root), build the demo image, install the demo template and warm pool "python"',
        false,
      ),
  ).action(async (opts: UpFlags) => {
    const { runUp } = await import('../commands/up.ts');
    setExit(await runUp(opts, io, { version }));
  });
};
