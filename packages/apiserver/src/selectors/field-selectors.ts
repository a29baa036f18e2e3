// Which field selectors each served resource accepts and what each field reads, as data
// (STYLE.md "Policy as data"). Sources, kube 1.32:
// - accepted labels and wording: pkg/apis/core/v1/conversion.go (Pod, Event, Namespace, Secret,
//   Service), pkg/apis/events/v1/conversion.go, runtime.DefaultMetaV1FieldSelectorConversion for
//   kinds with no registered conversion, apiextensions crConverter.ConvertFieldLabel for CRs;
// - values: the registries' ToSelectableFields (pkg/registry/core/*/strategy.go).
import type { FieldSelectorSpec } from './field-selector.ts';

type Json = Record<string, unknown>;

function asObject(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

/** The value at `path`, or undefined when any step is missing. */
function at(obj: unknown, path: readonly string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    const o = asObject(cur);
    if (o === undefined) return undefined;
    cur = o[p];
  }
  return cur;
}

/** A string field as Go's zero-valued struct field reads: `""` when absent. */
function str(obj: unknown, ...path: string[]): string {
  const v = at(obj, path);
  return typeof v === 'string' ? v : '';
}

/** A field set built from name → value pairs; names outside it read as `""`. */
function fieldSet(values: Readonly<Record<string, string>>): (name: string) => string {
  return (name) => (Object.prototype.hasOwnProperty.call(values, name) ? (values[name] ?? '') : '');
}

/** generic.ObjectMetaFieldsSet. */
function metaFields(obj: unknown, namespaced: boolean): Record<string, string> {
  const out: Record<string, string> = { 'metadata.name': str(obj, 'metadata', 'name') };
  if (namespaced) out['metadata.namespace'] = str(obj, 'metadata', 'namespace');
  return out;
}

const META_ONLY = ['metadata.name', 'metadata.namespace'] as const;

/** A kind with no registered field label conversion: only metadata, kube's default wording. */
function metaOnly(namespaced: boolean): FieldSelectorSpec {
  return {
    fields: META_ONLY,
    rejection: 'not-a-known-field-selector',
    extract: (obj) => fieldSet(metaFields(obj, namespaced)),
  };
}

const pods: FieldSelectorSpec = {
  fields: [
    'metadata.name',
    'metadata.namespace',
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.podIPs',
    'status.nominatedNodeName',
  ],
  // "for backwards compatibility with old v1 clients which send spec.host"
  aliases: { 'spec.host': 'spec.nodeName' },
  rejection: 'field-label-not-supported',
  extract: (obj) => {
    const podIPs = at(obj, ['status', 'podIPs']);
    // v1 → internal conversion fills podIPs from podIP; the field set uses podIPs[0].
    const first = Array.isArray(podIPs) && podIPs.length > 0 ? str(podIPs[0], 'ip') : '';
    return fieldSet({
      ...metaFields(obj, true),
      'spec.nodeName': str(obj, 'spec', 'nodeName'),
      'spec.restartPolicy': str(obj, 'spec', 'restartPolicy'),
      'spec.schedulerName': str(obj, 'spec', 'schedulerName'),
      'spec.serviceAccountName': str(obj, 'spec', 'serviceAccountName'),
      'spec.hostNetwork': at(obj, ['spec', 'hostNetwork']) === true ? 'true' : 'false',
      'status.phase': str(obj, 'status', 'phase'),
      'status.podIP': first !== '' ? first : str(obj, 'status', 'podIP'),
      // status.podIPs is accepted by the conversion but absent from the field set: always "".
      'status.nominatedNodeName': str(obj, 'status', 'nominatedNodeName'),
    });
  },
};

const coreEvents: FieldSelectorSpec = {
  fields: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
    'metadata.namespace',
    'metadata.name',
  ],
  rejection: 'field-label-not-supported',
  extract: (obj) => {
    const component = str(obj, 'source', 'component');
    const reporting = str(obj, 'reportingComponent');
    const ref = (f: string): string => str(obj, 'involvedObject', f);
    return fieldSet({
      ...metaFields(obj, true),
      'involvedObject.kind': ref('kind'),
      'involvedObject.namespace': ref('namespace'),
      'involvedObject.name': ref('name'),
      'involvedObject.uid': ref('uid'),
      'involvedObject.apiVersion': ref('apiVersion'),
      'involvedObject.resourceVersion': ref('resourceVersion'),
      'involvedObject.fieldPath': ref('fieldPath'),
      reason: str(obj, 'reason'),
      reportingComponent: reporting,
      source: component !== '' ? component : reporting,
      type: str(obj, 'type'),
    });
  },
};

/** events.k8s.io/v1 Event: the same storage as core events, under its own field names. */
const eventsV1Events: FieldSelectorSpec = {
  fields: [
    'reason',
    'regarding.kind',
    'regarding.namespace',
    'regarding.name',
    'regarding.uid',
    'regarding.apiVersion',
    'regarding.resourceVersion',
    'regarding.fieldPath',
    'reportingController',
    'source',
    'type',
    'metadata.namespace',
    'metadata.name',
  ],
  rejection: 'field-label-not-supported',
  extract: (obj) => {
    const component = str(obj, 'deprecatedSource', 'component');
    const reporting = str(obj, 'reportingController');
    const ref = (f: string): string => str(obj, 'regarding', f);
    return fieldSet({
      ...metaFields(obj, true),
      'regarding.kind': ref('kind'),
      'regarding.namespace': ref('namespace'),
      'regarding.name': ref('name'),
      'regarding.uid': ref('uid'),
      'regarding.apiVersion': ref('apiVersion'),
      'regarding.resourceVersion': ref('resourceVersion'),
      'regarding.fieldPath': ref('fieldPath'),
      reason: str(obj, 'reason'),
      reportingController: reporting,
      source: component !== '' ? component : reporting,
      type: str(obj, 'type'),
    });
  },
};

const namespaces: FieldSelectorSpec = {
  fields: ['status.phase', 'metadata.name'],
  rejection: 'field-label-not-supported',
  extract: (obj) =>
    fieldSet({ ...metaFields(obj, false), 'status.phase': str(obj, 'status', 'phase') }),
};

const secrets: FieldSelectorSpec = {
  fields: ['type', 'metadata.namespace', 'metadata.name'],
  rejection: 'field-label-not-supported',
  extract: (obj) => fieldSet({ ...metaFields(obj, true), type: str(obj, 'type') }),
};

/** spec.clusterIP since 1.30, spec.type since 1.31. */
const services: FieldSelectorSpec = {
  fields: ['metadata.namespace', 'metadata.name', 'spec.clusterIP', 'spec.type'],
  rejection: 'field-label-not-supported',
  extract: (obj) =>
    fieldSet({
      ...metaFields(obj, true),
      'spec.clusterIP': str(obj, 'spec', 'clusterIP'),
      'spec.type': str(obj, 'spec', 'type'),
    }),
};

/**
 * Field selector support of every built-in resource we serve, keyed by `<plural>` for the core
 * group and `<group>/<plural>` otherwise.
 */
export const FIELD_SELECTORS: Readonly<Record<string, FieldSelectorSpec>> = {
  pods,
  events: coreEvents,
  'events.k8s.io/events': eventsV1Events,
  namespaces,
  secrets,
  services,
  configmaps: metaOnly(true),
  serviceaccounts: metaOnly(true),
  persistentvolumeclaims: metaOnly(true),
  endpoints: metaOnly(true),
  'coordination.k8s.io/leases': metaOnly(true),
  'networking.k8s.io/networkpolicies': metaOnly(true),
  // Cluster-scoped, yet the default conversion still admits metadata.namespace (always "").
  'apiextensions.k8s.io/customresourcedefinitions': metaOnly(false),
};

/** One CRD `selectableFields` entry plus the schema type of the field it points at. */
export interface SelectableField {
  /** `.spec.color`-style simple path, as in the CRD. */
  jsonPath: string;
  /** The field's schema type; decides how the value is rendered (string, integer, boolean). */
  type?: 'string' | 'integer' | 'boolean' | string;
}

/**
 * Field selector support of a custom resource: `metadata.name`, `metadata.namespace` when
 * namespaced, and the version's selectableFields (labels are the jsonPath without its leading
 * dot). Values render as the API server does: strings as is, integers in decimal, booleans as
 * `true`/`false`, absent as `""`.
 */
export function customResourceFieldSelectors(opts: {
  namespaced: boolean;
  selectableFields?: readonly SelectableField[];
}): FieldSelectorSpec {
  const selectable = (opts.selectableFields ?? []).map((f) => ({
    label: f.jsonPath.replace(/^\./, ''),
    path: f.jsonPath.replace(/^\./, '').split('.'),
  }));
  return {
    fields: [
      'metadata.name',
      ...(opts.namespaced ? ['metadata.namespace'] : []),
      ...selectable.map((s) => s.label),
    ],
    rejection: 'field-label-not-supported',
    extract: (obj) => {
      const values = metaFields(obj, opts.namespaced);
      for (const s of selectable) {
        const v = at(obj, s.path);
        values[s.label] =
          typeof v === 'string'
            ? v
            : typeof v === 'boolean'
              ? String(v)
              : typeof v === 'number' && Number.isInteger(v)
                ? String(v)
                : '';
      }
      return fieldSet(values);
    },
  };
}
