// Reset fields (the registry strategies' GetResetFields): fields an endpoint overwrites with the
// stored values, so writes through it neither own nor conflict on them. Pass the result as
// `ignoredFields` to apply() and updateManagedFields().
import { FieldSet, fieldElement, type FieldPath } from './field-set.ts';

const path = (...names: string[]): FieldPath => names.map(fieldElement);

/** Per built-in resource (plural): reset fields of the main resource and of `/status`. */
const BUILTIN_RESET_FIELDS: Readonly<Record<string, { main: FieldPath[]; status: FieldPath[] }>> = {
  // pkg/registry/core/pod/strategy.go
  pods: {
    main: [path('status')],
    status: [
      path('spec'),
      path('metadata', 'deletionTimestamp'),
      path('metadata', 'ownerReferences'),
    ],
  },
  services: { main: [path('status')], status: [path('spec')] },
  namespaces: { main: [path('status')], status: [path('spec')] },
  persistentvolumeclaims: { main: [path('status')], status: [path('spec')] },
};

export interface ResetFieldsOptions {
  /** The plural resource name, e.g. `pods`. */
  resource: string;
  /** `status` for the status subresource. */
  subresource?: string;
  /** Whether the resource is a custom resource whose CRD version enables the status subresource. */
  crdStatusSubresource?: boolean;
}

/**
 * The reset fields of an endpoint, or undefined when it has none. Custom resources with a status
 * subresource reset `status` on the main resource and `spec` on `/status`
 * (apiextensions-apiserver's customResourceStrategy and statusStrategy).
 */
export function resetFieldsFor(opts: ResetFieldsOptions): FieldSet | undefined {
  const builtin = BUILTIN_RESET_FIELDS[opts.resource];
  let paths: FieldPath[] | undefined;
  if (opts.crdStatusSubresource === true) {
    paths = opts.subresource === 'status' ? [path('spec')] : [path('status')];
  } else if (builtin !== undefined) {
    if (opts.subresource === undefined) paths = builtin.main;
    else if (opts.subresource === 'status') paths = builtin.status;
  }
  return paths === undefined ? undefined : FieldSet.fromPaths(paths);
}
