// `agent-sandbox image load|ls|rm` (implementation: commands/image.ts): the image store of the
// node agent `up` runs, in the data dir.
import type { Command } from 'commander';
import { defaultDataDir } from '../data-dir.ts';
import type { Verb, VerbContext } from '../verb.ts';

export interface ImageFlags {
  dataDir?: string;
  name?: string;
}

type Lazy = typeof import('../commands/image.ts');

function withDataDir(c: Command): Command {
  return c.option(
    '--data-dir <dir>',
    `the data dir of \`up\` (default: $AGENT_SANDBOX_HOME, else ${defaultDataDir()})`,
  );
}

function action(
  ctx: VerbContext,
  run: (impl: Lazy, args: string[], flags: ImageFlags) => Promise<number>,
) {
  return async (...params: unknown[]): Promise<void> => {
    const flags = params[params.length - 2] as ImageFlags;
    const args = params.slice(0, -2).flat() as string[];
    const impl = await import('../commands/image.ts');
    ctx.setExit(await run(impl, args, flags));
  };
}

export const imageVerb: Verb = (program, ctx) => {
  const image = program
    .command('image')
    .description("manage the images of this machine's node agent (the data dir `up` uses)");
  withDataDir(
    image
      .command('load <path>')
      .description('load an OCI image layout directory or a docker-archive tarball (docker save)')
      .requiredOption('--name <name[:tag]>', 'the name Pods use for it, e.g. my/tool:v1'),
  ).action(action(ctx, (impl, [path], f) => impl.runImageLoad(path ?? '', f, ctx.io)));
  withDataDir(image.command('ls').description('list the loaded and pulled images')).action(
    action(ctx, (impl, _args, f) => impl.runImageList(f, ctx.io)),
  );
  withDataDir(
    image
      .command('rm <name...>')
      .description('remove images no running container uses (and blobs no image needs)'),
  ).action(action(ctx, (impl, names, f) => impl.runImageRemove(names, f, ctx.io)));
};
