// kube's ValidateConfigMap size rule: data and binaryData together hold at most 1 MiB (the same
// bound as a Secret), checked after the generic ObjectMeta and schema checks.
import type { FieldIssue } from '@agent-sandbox/crd-schema';
import type { KubeObject } from '../objects.ts';
import type { ResourceInfo } from './resource.ts';

/** corev1.MaxSecretSize, which ConfigMaps share. */
export const MAX_CONFIGMAP_BYTES = 1024 * 1024;

export function isConfigMap(r: ResourceInfo): boolean {
  return r.group === '' && r.plural === 'configmaps';
}

function values(map: unknown): string[] {
  if (map === null || typeof map !== 'object') return [];
  return Object.values(map).filter((v): v is string => typeof v === 'string');
}

export function validateConfigMapSize(obj: KubeObject): FieldIssue[] {
  let size = 0;
  for (const v of values(obj['data'])) size += Buffer.byteLength(v);
  for (const v of values(obj['binaryData'])) size += Buffer.from(v, 'base64').byteLength;
  if (size <= MAX_CONFIGMAP_BYTES) return [];
  // kube reports it against the root path, which prints as "[]".
  return [
    {
      type: 'FieldValueTooLong',
      field: '[]',
      message: `Too long: may not be more than ${MAX_CONFIGMAP_BYTES} bytes`,
    },
  ];
}
