// `agent-sandbox manifests crds|rbac` (implementation: commands/manifests.ts).
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
  manifests
    .command('rbac')
    .description("the controller manager's ServiceAccount, ClusterRoles and bindings")
    .option('--extensions', "include the extension controllers' ClusterRole")
    .action(async (opts: { extensions?: boolean }) => {
      const { runManifestsRbac } = await import('../commands/manifests.ts');
      setExit(runManifestsRbac(io, opts));
    });
};
