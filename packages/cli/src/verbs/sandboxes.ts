// The sandbox verbs on @agent-sandbox/sdk: create, ls, get, suspend, resume, rm (implementation:
// commands/sandboxes.ts). Each takes the cluster options; -o table|json|yaml|name.
import type { Command } from 'commander';
import { addClusterOptions, type ClusterOptions } from '../cluster-options.ts';
import { collect, type Verb, type VerbContext } from '../verb.ts';

export interface CreateFlags extends ClusterOptions {
  warmPool?: string;
  template?: string;
  image?: string;
  name?: string;
  timeout?: string;
  env: string[];
  label: string[];
  wait: string;
}

type Lazy = typeof import('../commands/sandboxes.ts');

function declare(
  program: Command,
  ctx: VerbContext,
  name: string,
  description: string,
  run: (impl: Lazy, args: string[], opts: ClusterOptions) => Promise<number>,
  shape: (c: Command) => Command = (c) => c,
): void {
  const command = shape(addClusterOptions(program.command(name).description(description)));
  command.action(async (...params: unknown[]) => {
    const opts = params[params.length - 2] as ClusterOptions;
    const args = params.slice(0, -2).flat() as string[];
    const impl = await import('../commands/sandboxes.ts');
    ctx.setExit(await run(impl, args, opts));
  });
}

export const createVerb: Verb = (program, ctx) =>
  declare(
    program,
    ctx,
    'create',
    'create a sandbox from a warm pool, a template or an image and wait until it is Ready',
    (impl, _args, opts) => impl.runCreate(opts as CreateFlags, ctx.io),
    (c) =>
      c
        .option('--warm-pool <name>', 'take a sandbox from this SandboxWarmPool')
        .option('--template <name>', 'create one cold from this SandboxTemplate')
        .option('--image <ref>', 'run this image (a Sandbox with one container)')
        .option('--name <name>', 'name of the sandbox (default: sandbox-<8 hex digits>)')
        .option('--timeout <duration>', 'delete the sandbox after this long, e.g. 30m, 2h')
        .option(
          '--env <NAME=VALUE>',
          'environment variable of the sandbox; repeatable',
          collect,
          [],
        )
        .option('-l, --label <KEY=VALUE>', 'label of the sandbox; repeatable', collect, [])
        .option('--wait <duration>', 'how long to wait until it is Ready', '3m'),
  );

export const lsVerb: Verb = (program, ctx) =>
  declare(
    program,
    ctx,
    'ls',
    'list sandboxes',
    (impl, _args, opts) => impl.runList(opts as ClusterOptions & { selector: string[] }, ctx.io),
    (c) =>
      c.option(
        '-l, --selector <KEY=VALUE>',
        'only sandboxes with this label; repeatable',
        collect,
        [],
      ),
  );

export const getVerb: Verb = (program, ctx) =>
  declare(
    program,
    ctx,
    'get',
    'show sandboxes by id',
    (impl, args, opts) => impl.runGet(args, opts, ctx.io),
    (c) => c.argument('<id...>'),
  );

export const suspendVerb: Verb = (program, ctx) =>
  declare(
    program,
    ctx,
    'suspend',
    'stop a sandbox and keep its disk (waits until its Pod is gone)',
    (impl, args, opts) => impl.runLifecycle('suspend', args, opts, ctx.io),
    (c) => c.argument('<id...>'),
  );

export const resumeVerb: Verb = (program, ctx) =>
  declare(
    program,
    ctx,
    'resume',
    'start a suspended sandbox again (waits until it is Ready)',
    (impl, args, opts) => impl.runLifecycle('resume', args, opts, ctx.io),
    (c) => c.argument('<id...>'),
  );

export const rmVerb: Verb = (program, ctx) =>
  declare(
    program,
    ctx,
    'rm',
    'delete sandboxes',
    (impl, args, opts) =>
      impl.runRemove(args, opts as ClusterOptions & { ignoreNotFound?: boolean }, ctx.io),
    (c) =>
      c
        .argument('<id...>')
        .option('--ignore-not-found', 'succeed when a sandbox does not exist', false),
  );
