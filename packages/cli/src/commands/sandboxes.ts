// The sandbox verbs' implementation: parse flags into SDK options, call @agent-sandbox/sdk,
// print with the shared printers. SDK errors are complete sentences: they print as they are
// with exit 1; bad flags exit 2 (errors.ts).
import { NotFoundError, Sandbox, type SandboxInfo } from '@agent-sandbox/sdk';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { stringify } from 'yaml';
import type { ClusterOptions } from '../cluster-options.ts';
import { FlagError } from '../errors.ts';
import type { CommandIO } from '../io.ts';
import { printObjects, type Column } from '../printers.ts';
import type { CreateFlags } from '../verbs/sandboxes.ts';
import { sandboxBoundary, sdkConnection } from './sdk-connection.ts';

/** `30s`, `5m`, `2h`, `1h30m` → ms; a FlagError naming the flag otherwise. */
export function parseDuration(flag: string, value: string): number {
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let consumed = '';
  for (const m of value.matchAll(re)) {
    total += Number(m[1]) * (unit[m[2] ?? 's'] ?? 1000);
    consumed += m[0];
  }
  if (consumed !== value || total <= 0)
    throw new FlagError(`${flag} "${value}" is not a duration; use e.g. 90s, 30m or 2h`);
  return Math.round(total);
}

function pairs(flag: string, values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const eq = v.indexOf('=');
    if (eq <= 0) throw new FlagError(`${flag} "${v}" must be NAME=VALUE`);
    out[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return out;
}

export function runCreate(opts: CreateFlags, io: CommandIO): Promise<number> {
  const sources = (['warmPool', 'template', 'image'] as const).filter((k) => opts[k] !== undefined);
  if (sources.length !== 1)
    throw new FlagError('create needs exactly one of --warm-pool, --template or --image');
  const readyTimeoutMs = parseDuration('--wait', opts.wait);
  const timeoutMs =
    opts.timeout === undefined ? undefined : parseDuration('--timeout', opts.timeout);
  const env = pairs('--env', opts.env);
  const labels = pairs('--label', opts.label);
  return sandboxBoundary(async () => {
    const sandbox = await Sandbox.create({
      ...sdkConnection(opts),
      ...(opts.warmPool ? { warmPool: opts.warmPool } : {}),
      ...(opts.template ? { template: opts.template } : {}),
      ...(opts.image ? { image: opts.image } : {}),
      ...(opts.name ? { name: opts.name } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      env,
      labels,
      readyTimeoutMs,
    });
    try {
      print([await sandbox.info()], io, opts, false);
    } finally {
      await sandbox.close();
    }
    return 0;
  });
}

export function runList(
  opts: ClusterOptions & { selector: string[] },
  io: CommandIO,
): Promise<number> {
  const labels = pairs('--selector', opts.selector);
  return sandboxBoundary(async () => {
    print(await Sandbox.list({ ...sdkConnection(opts), labels }), io, opts, true);
    return 0;
  });
}

export function runGet(ids: string[], opts: ClusterOptions, io: CommandIO): Promise<number> {
  return sandboxBoundary(async () => {
    const infos: SandboxInfo[] = [];
    for (const id of ids) {
      const sandbox = await Sandbox.connect(id, sdkConnection(opts));
      try {
        infos.push(await sandbox.info());
      } finally {
        await sandbox.close();
      }
    }
    print(infos, io, opts, ids.length > 1);
    return 0;
  });
}

export function runLifecycle(
  verb: 'suspend' | 'resume',
  ids: string[],
  opts: ClusterOptions,
  io: CommandIO,
): Promise<number> {
  return sandboxBoundary(async () => {
    for (const id of ids) {
      const sandbox = await Sandbox.connect(id, sdkConnection(opts));
      try {
        await sandbox[verb]();
      } finally {
        await sandbox.close();
      }
      io.stdout(
        opts.output === 'name'
          ? `sandbox/${id}\n`
          : `sandbox ${id} ${verb === 'suspend' ? 'suspended' : 'resumed'}\n`,
      );
    }
    return 0;
  });
}

export function runRemove(
  ids: string[],
  opts: ClusterOptions & { ignoreNotFound?: boolean },
  io: CommandIO,
): Promise<number> {
  return sandboxBoundary(async () => {
    for (const id of ids) {
      const killed = await Sandbox.kill(id, sdkConnection(opts));
      if (!killed && !opts.ignoreNotFound)
        throw new NotFoundError(`sandbox ${id} not found (agent-sandbox ls shows what exists)`);
      if (killed) io.stdout(opts.output === 'name' ? `sandbox/${id}\n` : `sandbox ${id} deleted\n`);
    }
    return 0;
  });
}

type InfoRow = KubeObject & { info: SandboxInfo };

const COLUMNS: readonly Column<InfoRow>[] = [
  { header: 'state', value: (r) => r.info.state },
  {
    header: 'source',
    value: (r) =>
      r.info.warmPool
        ? `pool/${r.info.warmPool}`
        : r.info.image
          ? `image/${r.info.image}`
          : `template/${r.info.template ?? ''}`,
  },
  { header: 'sandbox', value: (r) => r.info.sandboxName ?? '' },
  { header: 'age', value: (r) => age(r.info.createdAt) },
  {
    header: 'expires',
    value: (r) => (r.info.expiresAt ? r.info.expiresAt.toISOString() : '<none>'),
  },
];

function print(infos: SandboxInfo[], io: CommandIO, opts: ClusterOptions, asList: boolean): void {
  if (opts.output === 'json' || opts.output === 'yaml') {
    const doc = asList ? infos : infos[0];
    io.stdout(
      opts.output === 'json'
        ? `${JSON.stringify(doc, null, 4)}\n`
        : stringify(JSON.parse(JSON.stringify(doc))),
    );
    return;
  }
  const rows: InfoRow[] = infos.map((info) => ({
    kind: 'Sandbox',
    metadata: { name: info.id },
    info,
  }));
  printObjects(rows, io, { format: opts.output, columns: COLUMNS });
}

function age(since: Date | undefined): string {
  if (!since) return '<unknown>';
  const s = Math.max(0, Math.floor((Date.now() - since.getTime()) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}
