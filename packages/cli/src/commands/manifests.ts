// `agent-sandbox manifests crds|rbac`: prints what a cluster needs, as multi-document YAML.
import { renderCrdsYaml, renderRbacYaml } from '@agent-sandbox/api';
import type { CommandIO } from '../io.ts';

export function runManifestsCrds(io: CommandIO): number {
  io.stdout(renderCrdsYaml());
  return 0;
}

export function runManifestsRbac(io: CommandIO, opts: { extensions?: boolean } = {}): number {
  io.stdout(renderRbacYaml({ extensions: opts.extensions === true }));
  return 0;
}
