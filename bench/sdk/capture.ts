// What the node's network held for a Pod when a round failed (the failure is gone a moment
// later): the host's neighbour entry and TCP sockets to the Pod IP, conntrack's flows to it, the
// Pod's own sockets (is the daemon listening, its accept queue, a SYN it never answered) and
// counters, and the nft ruleset. Best effort: a command that fails prints its error instead.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function out(file: string, args: readonly string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(file, args, { timeout: 5000, maxBuffer: 8 << 20 });
    return `${stdout}${stderr}`;
  } catch (err: unknown) {
    return `(${file} ${args.join(' ')} failed: ${err instanceof Error ? err.message : String(err)})`;
  }
}

/** The netns whose eth0 holds `ip`, if one does. */
async function netnsOf(ip: string): Promise<string | undefined> {
  const names = (await out('ip', ['netns', 'list']))
    .split('\n')
    .map((l) => l.split(' ')[0] ?? '')
    .filter((n) => n !== '');
  for (const n of names)
    if ((await out('ip', ['-n', n, '-4', '-br', 'addr', 'show', 'dev', 'eth0'])).includes(`${ip}/`))
      return n;
  return undefined;
}

/** A text report of the network state around `ip` (a Pod IP), each command under its name. */
export async function captureNetwork(ip: string): Promise<string> {
  const ns = await netnsOf(ip);
  const inNs: [string, string[]][] = ns
    ? [
        [`ip -n ${ns} -s link`, ['ip', '-n', ns, '-s', 'link']],
        [`ip -n ${ns} neigh`, ['ip', '-n', ns, 'neigh']],
        [`ss -tanoi (in ${ns})`, ['ip', 'netns', 'exec', ns, 'ss', '-tanoi']],
        [`nstat (in ${ns})`, ['ip', 'netns', 'exec', ns, 'nstat', '-az', 'Tcp*', 'TcpExt*Listen*']],
      ]
    : [];
  const commands: [string, string[]][] = [
    [
      'bridges (their MAC is what Pods hold for the gateway)',
      ['ip', '-br', 'link', 'show', 'type', 'bridge'],
    ],
    ['ip neigh', ['ip', 'neigh', 'show']],
    [`ss -tanoi dst ${ip}`, ['ss', '-tanoi', 'dst', ip]],
    [`conntrack -L -d ${ip}`, ['conntrack', '-L', '-d', ip]],
    [`conntrack -L -s ${ip}`, ['conntrack', '-L', '-s', ip]],
    ...inNs,
    ['bridge fdb', ['bridge', 'fdb', 'show']],
    ['nft list ruleset', ['nft', 'list', 'ruleset']],
  ];
  const parts = [`# ${new Date().toISOString()} pod IP ${ip}, netns ${ns ?? '(none found)'}`];
  for (const [title, [file, ...args]] of commands)
    parts.push(`## ${title}\n${await out(file ?? '', args)}`);
  return parts.join('\n');
}
