// Building blocks shared by Sandbox and the extension kinds (spec §2), the same in v1alpha1 and v1beta1.
import type { PersistentVolumeClaimSpec, PodSpec } from '@agent-sandbox/kube-types';
import { Type, type Static } from '@sinclair/typebox';
import { AtomicList, CoreRef, StringMap } from './schema.ts';

export const PodMetadataSchema = Type.Object(
  {
    annotations: Type.Optional(StringMap({ description: 'Annotations to put on the Pod.' })),
    labels: Type.Optional(StringMap({ description: 'Labels to put on the Pod.' })),
  },
  { description: 'Labels and annotations for the Pod; other metadata fields are not honoured.' },
);
export type PodMetadata = Static<typeof PodMetadataSchema>;

export const EmbeddedObjectMetadataSchema = Type.Object(
  {
    annotations: Type.Optional(StringMap({ description: 'Annotations of the created object.' })),
    labels: Type.Optional(StringMap({ description: 'Labels of the created object.' })),
    name: Type.Optional(Type.String({ description: 'Name of the created object.' })),
  },
  { description: 'The metadata a template may set on the objects created from it.' },
);
export type EmbeddedObjectMetadata = Static<typeof EmbeddedObjectMetadataSchema>;

export const PodTemplateSchema = Type.Object(
  {
    metadata: Type.Optional(PodMetadataSchema),
    spec: CoreRef<PodSpec>('io.k8s.api.core.v1.PodSpec', {
      description: 'The Pod specification (core/v1 PodSpec) of the sandbox.',
    }),
  },
  { description: 'The Pod that backs the sandbox.' },
);
export type PodTemplate = Static<typeof PodTemplateSchema>;

export const PersistentVolumeClaimTemplateSchema = Type.Object(
  {
    metadata: Type.Optional(EmbeddedObjectMetadataSchema),
    spec: CoreRef<PersistentVolumeClaimSpec>('io.k8s.api.core.v1.PersistentVolumeClaimSpec', {
      description: 'The PersistentVolumeClaim specification (core/v1).',
    }),
  },
  { description: 'A PersistentVolumeClaim created for, and owned by, the sandbox.' },
);
export type PersistentVolumeClaimTemplate = Static<typeof PersistentVolumeClaimTemplateSchema>;

export const VolumeClaimTemplatesSchema = AtomicList(PersistentVolumeClaimTemplateSchema, {
  description:
    'PersistentVolumeClaims the sandbox owns; a volume of the Pod with the same name mounts each one.',
});

export const ServiceFieldSchema = Type.Boolean({
  description:
    'Whether the sandbox has a headless Service: true creates one, false deletes an owned one, unset keeps an existing one without creating it.',
});

/** The v1beta1 blueprint, inlined into SandboxSpec and SandboxTemplateSpec. */
export const blueprintProperties = {
  podTemplate: PodTemplateSchema,
  service: Type.Optional(ServiceFieldSchema),
  volumeClaimTemplates: Type.Optional(VolumeClaimTemplatesSchema),
};
