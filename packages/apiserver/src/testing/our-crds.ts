// Our generated CRDs, read from packages/api/crds (the API server may not import @agent-sandbox/api;
// tests and the embedded composition hand CRDs in).
import type { CustomResourceDefinition } from '@agent-sandbox/kube-types';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const CRD_DIR = fileURLToPath(new URL('../../../api/crds/', import.meta.url));

export function readOurCrds(): CustomResourceDefinition[] {
  return readdirSync(CRD_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => parse(readFileSync(CRD_DIR + f, 'utf8')) as CustomResourceDefinition);
}
