// `agent-sandbox manifests crds` (implementation: commands/manifests.ts).
import type { Verb } from '../verb.ts';

export const manifestsVerb: Verb = (program, { io, setExit }) => {
  const manifests = program
    .command('manifests')
    .description('print installation manifests as YAML');
  manifests
    .command('crds')
    .description('the four CustomResourceDefinitions')
    .action(async () => {
      const { runManifestsCrds } = await import('../commands/manifests.ts');
      setExit(runManifestsCrds(io));
    });
};
