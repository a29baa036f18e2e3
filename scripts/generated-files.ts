// The list of generated files and their expected content, shared by `npm run generate` and the
// staleness test, so the two can never disagree.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildCrds } from '../packages/api/src/crd/build-crds.ts';
import { crdFileName, GENERATED_HEADER, renderCrd } from '../packages/api/src/crd/render.ts';
import { generateCoreTypes, type CapturedOpenApi } from './openapi/gen-core-types.ts';
import { scenarioTableFile } from './scenario-table/file.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

export interface GeneratedFile {
  path: string;
  content: string;
}

export function generatedFiles(): GeneratedFile[] {
  const openapi = JSON.parse(
    readFileSync(`${root}packages/kube-types/openapi/k8s-openapi.json`, 'utf8'),
  ) as CapturedOpenApi;
  return [
    {
      path: `${root}packages/kube-types/src/core.gen.ts`,
      content: generateCoreTypes(openapi.schemas, openapi.source),
    },
    ...buildCrds().map((crd) => ({
      path: `${root}packages/api/crds/${crdFileName(crd)}`,
      content: GENERATED_HEADER + renderCrd(crd),
    })),
    scenarioTableFile(root),
  ];
}
