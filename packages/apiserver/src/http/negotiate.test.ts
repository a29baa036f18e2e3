import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { negotiateOutput } from './negotiate.ts';

function codeOf(accept: string | null, list = false, protobuf = true): number {
  try {
    negotiateOutput(accept, { list, protobuf });
  } catch (err: unknown) {
    if (err instanceof ApiError) return err.status.code ?? 0;
    throw err;
  }
  return 200;
}

describe('Accept negotiation of resource requests, as kube-apiserver answers it', () => {
  it('accepts what kube serves, wildcards and a missing header', () => {
    for (const accept of [
      null,
      '',
      '*/*',
      'application/*',
      'application/json',
      'application/yaml',
      'application/vnd.kubernetes.protobuf',
      'application/json;as=Table;v=v1;g=meta.k8s.io',
      'application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json',
      'text/html, */*;q=0.1',
      'application/json;foo=bar',
    ])
      expect(codeOf(accept), accept ?? 'null').toBe(200);
    expect(codeOf('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', true)).toBe(
      200,
    );
  });

  it('refuses with 406 what kube refuses', () => {
    for (const accept of [
      'text/html',
      'garbage/;;;',
      'Application/JSON',
      'application/json;as=Nosuch;v=v1;g=meta.k8s.io',
      'application/json;as=Table;v=v2;g=meta.k8s.io',
      'application/json;as=Table',
      'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
    ])
      expect(codeOf(accept), accept).toBe(406);
    expect(codeOf('application/vnd.kubernetes.protobuf', false, false)).toBe(406);
  });
});
