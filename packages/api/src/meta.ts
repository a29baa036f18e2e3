// metav1.Condition, as a CRD embeds it (the same schema controller-gen writes for []metav1.Condition).
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Int64, StringEnum } from './schema.ts';

export const ConditionSchema = Type.Object(
  {
    lastTransitionTime: DateTime({
      description: 'When the condition last changed from one status to another.',
    }),
    message: Type.String({
      maxLength: 32768,
      description: 'A human-readable message with details about the transition.',
    }),
    observedGeneration: Type.Optional(
      Int64({
        minimum: 0,
        description: 'The metadata.generation this condition was computed from.',
      }),
    ),
    reason: Type.String({
      maxLength: 1024,
      minLength: 1,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
      description: "A programmatic, CamelCase identifier of the condition's last transition.",
    }),
    status: StringEnum(['True', 'False', 'Unknown'] as const, {
      description: 'Status of the condition: True, False or Unknown.',
    }),
    type: Type.String({
      maxLength: 316,
      pattern:
        '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
      description: 'Type of the condition, in CamelCase or in foo.example.com/CamelCase.',
    }),
  },
  { description: 'One aspect of the current state of this resource.' },
);

export type Condition = Static<typeof ConditionSchema>;

export const ConditionsSchema = Type.Array(ConditionSchema, {
  description: 'The latest available observations of the state of this resource.',
});
