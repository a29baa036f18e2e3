import type { CustomResourceDefinition, JSONSchemaProps } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { buildCrds } from './build-crds.ts';
import { diffCrds, diffSchemas } from './crd-diff.ts';

function sandboxCrd(): CustomResourceDefinition {
  return structuredClone(buildCrds()[0] as CustomResourceDefinition);
}

function specSchema(crd: CustomResourceDefinition, version = 0): JSONSchemaProps {
  const root = crd.spec.versions[version]?.schema?.openAPIV3Schema;
  return root?.properties?.['spec'] as JSONSchemaProps;
}

describe('diffCrds', () => {
  it('finds nothing between a CRD and its copy', () => {
    expect(diffCrds(sandboxCrd(), sandboxCrd())).toEqual([]);
  });

  it('reports each kind of difference with its path', () => {
    const a = sandboxCrd();
    const b = sandboxCrd();
    const spec = specSchema(b);
    (spec.properties?.['operatingMode'] as JSONSchemaProps).enum = ['Running'];
    delete spec.properties?.['service'];
    const containers =
      spec.properties?.['podTemplate']?.properties?.['spec']?.properties?.['containers'];
    (containers?.items as JSONSchemaProps).required = [];
    b.spec.names.shortNames = ['sb'];
    b.spec.versions[1]!.served = false;
    b.spec.versions[0]!.additionalPrinterColumns = [];
    expect(diffCrds(a, b)).toEqual([
      'sandboxes.agents.x-k8s.io names: ours={"kind":"Sandbox","listKind":"SandboxList","plural":"sandboxes","shortNames":["sandbox"],"singular":"sandbox"} upstream={"kind":"Sandbox","listKind":"SandboxList","plural":"sandboxes","shortNames":["sb"],"singular":"sandbox"}',
      expect.stringMatching(/^sandboxes.agents.x-k8s.io v1beta1 additionalPrinterColumns: /),
      'sandboxes.agents.x-k8s.io v1beta1 .spec.podTemplate.spec.containers[] required: ours=["name"] upstream=[]',
      'sandboxes.agents.x-k8s.io v1beta1 .spec.service: only in ours',
      'sandboxes.agents.x-k8s.io v1beta1 .spec.operatingMode enum: ours=["Running","Suspended"] upstream=["Running"]',
      'sandboxes.agents.x-k8s.io v1alpha1 served: ours=true upstream=false',
    ]);
  });

  it('compares CEL rules, list types and int-or-string', () => {
    const a: JSONSchemaProps = {
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'self.a == 1' }],
      properties: {
        p: { 'x-kubernetes-int-or-string': true },
        l: { type: 'array', 'x-kubernetes-list-type': 'set' },
      },
    };
    const b: JSONSchemaProps = {
      type: 'object',
      properties: { p: {}, l: { type: 'array', 'x-kubernetes-list-type': 'atomic' } },
    };
    expect(diffSchemas(a, b, '')).toEqual([
      ' x-kubernetes-validations: ours=[{"rule":"self.a == 1"}] upstream=(unset)',
      '.p x-kubernetes-int-or-string: ours=true upstream=(unset)',
      '.l x-kubernetes-list-type: ours="set" upstream="atomic"',
    ]);
  });
});
