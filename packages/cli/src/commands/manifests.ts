// `agent-sandbox manifests crds`: prints what a cluster needs, as multi-document YAML.
import { renderCrdsYaml } from '@agent-sandbox/api';
import type { CommandIO } from '../io.ts';

export function runManifestsCrds(io: CommandIO): number {
  io.stdout(renderCrdsYaml());
  return 0;
}
