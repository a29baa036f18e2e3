// Columns and rows of the built-in kinds we serve, as kube-apiserver 1.32's printers emit them
// (pkg/printers/internalversion/printers.go; the server always prints "wide", so priority-1
// columns are included). Policy as data: one entry per resource, keyed like FIELD_SELECTORS.
import type {
  ConfigMap,
  Endpoints,
  Event,
  EventsV1Event,
  Lease,
  Namespace,
  NetworkPolicy,
  PersistentVolumeClaim,
  Pod,
  Secret,
  Service,
  ServiceAccount,
} from '@agent-sandbox/kube-types';
import { humanAge } from '../jsonpath/index.ts';
import { formatLabelSelector, formatLabels } from '../selectors/index.ts';
import { DESCRIPTIONS } from './descriptions.ts';
import { ENDPOINTSLICE_PRINTER } from './endpointslice-printer.ts';
import { printPod } from './pod-printer.ts';
import type { TableCell, TableColumnDefinition, TableRowCondition } from './types.ts';

/** What a printer produces for one object. */
export interface PrintedRow {
  cells: TableCell[];
  conditions?: TableRowCondition[];
}

export interface BuiltinPrinter {
  readonly columns: readonly TableColumnDefinition[];
  print(obj: unknown, now: Date): PrintedRow;
}

function column(
  name: string,
  type: string,
  description: string,
  extra: { format?: string; priority?: number } = {},
): TableColumnDefinition {
  return { name, type, format: extra.format ?? '', description, priority: extra.priority ?? 0 };
}

export const NAME_COLUMN = column('Name', 'string', DESCRIPTIONS['ObjectMeta.name'], {
  format: 'name',
});
const AGE_COLUMN = column('Age', 'string', DESCRIPTIONS['ObjectMeta.creationTimestamp']);

interface Meta {
  metadata?: {
    name?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    annotations?: Record<string, string>;
  };
}

function name(obj: Meta): string {
  return obj.metadata?.name ?? '';
}

function age(obj: Meta, now: Date): string {
  return humanAge(obj.metadata?.creationTimestamp, now);
}

function count(x: Record<string, unknown> | readonly unknown[] | undefined | null): number {
  if (x === undefined || x === null) return 0;
  return Array.isArray(x) ? x.length : Object.keys(x).length;
}

// --- services -------------------------------------------------------------------------------

/** loadBalancerStatusStringer (wide: never clipped): sorted unique IPs/hostnames. */
function loadBalancerStatus(svc: Service): string {
  const set = new Set<string>();
  for (const ing of svc.status?.loadBalancer?.ingress ?? []) {
    if (ing.ip !== undefined && ing.ip !== '') set.add(ing.ip);
    else if (ing.hostname !== undefined && ing.hostname !== '') set.add(ing.hostname);
  }
  return [...set].sort().join(',');
}

function serviceExternalIP(svc: Service, type: string): string {
  const externalIPs = svc.spec?.externalIPs ?? [];
  switch (type) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerStatus(svc);
      if (externalIPs.length > 0)
        return [...(lb === '' ? [] : lb.split(',')), ...externalIPs].join(',');
      return lb !== '' ? lb : '<pending>';
    }
    case 'ExternalName':
      return svc.spec?.externalName ?? '';
    default:
      return '<unknown>';
  }
}

function printService(svc: Service, now: Date): PrintedRow {
  // Registry defaulting gives every stored Service a type and every port a protocol.
  const type = svc.spec?.type ?? 'ClusterIP';
  const clusterIPs = svc.spec?.clusterIPs ?? [];
  const clusterIP = clusterIPs[0] ?? svc.spec?.clusterIP ?? '';
  const ports = (svc.spec?.ports ?? [])
    .map((p) => {
      const protocol = p.protocol ?? 'TCP';
      return p.nodePort !== undefined && p.nodePort > 0
        ? `${p.port}:${p.nodePort}/${protocol}`
        : `${p.port}/${protocol}`;
    })
    .join(',');
  return {
    cells: [
      name(svc),
      type,
      clusterIP === '' ? '<none>' : clusterIP,
      serviceExternalIP(svc, type),
      ports === '' ? '<none>' : ports,
      age(svc, now),
      formatLabels(svc.spec?.selector),
    ],
  };
}

// --- endpoints ------------------------------------------------------------------------------

/** net.JoinHostPort */
function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** formatEndpoints(endpoints, nil): at most three addresses, then ` + N more...`. */
function formatEndpoints(ep: Endpoints): string {
  const subsets = ep.subsets ?? [];
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  const max = 3;
  let more = false;
  let total = 0;
  for (const ss of subsets) {
    const addresses = ss.addresses ?? [];
    const ports = ss.ports ?? [];
    if (ports.length === 0) {
      total += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(a.ip);
      }
      continue;
    }
    for (const port of ports) {
      total += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(joinHostPort(a.ip, port.port));
      }
    }
  }
  const ret = list.join(',');
  return more ? `${ret} + ${total - max} more...` : ret;
}

// --- events ---------------------------------------------------------------------------------

/** The core/v1 view of an event (events.k8s.io/v1 converts to it, as the internal type does). */
function asCoreEvent(obj: unknown, v1: boolean): Event {
  if (!v1) return obj as Event;
  const e = obj as EventsV1Event;
  const core: Event = {
    metadata: e.metadata ?? {},
    involvedObject: e.regarding ?? {},
    reason: e.reason,
    message: e.note,
    type: e.type,
    action: e.action,
    eventTime: e.eventTime,
    reportingComponent: e.reportingController,
    reportingInstance: e.reportingInstance,
    source: e.deprecatedSource,
    firstTimestamp: e.deprecatedFirstTimestamp,
    lastTimestamp: e.deprecatedLastTimestamp,
    count: e.deprecatedCount,
  };
  if (e.series !== undefined) core.series = e.series;
  return core;
}

function printEvent(e: Event, now: Date): PrintedRow {
  let firstTimestamp = humanAge(e.firstTimestamp, now);
  if (e.firstTimestamp === undefined || e.firstTimestamp === null) {
    firstTimestamp = humanAge(e.eventTime, now);
  }
  let lastTimestamp = humanAge(e.lastTimestamp, now);
  if (e.lastTimestamp === undefined || e.lastTimestamp === null) lastTimestamp = firstTimestamp;
  let n = e.count ?? 0;
  if (e.series !== undefined && e.series !== null) {
    lastTimestamp = humanAge(e.series.lastObservedTime, now);
    n = e.series.count ?? 0;
  } else if (n === 0) {
    // Singleton events don't have a count set in the new API.
    n = 1;
  }
  const kind = (e.involvedObject.kind ?? '').toLowerCase();
  const target = (e.involvedObject.name ?? '') !== '' ? `${kind}/${e.involvedObject.name}` : kind;
  const component = e.source?.component || e.reportingComponent || '';
  const instance = e.source?.host || e.reportingInstance || '';
  return {
    cells: [
      lastTimestamp,
      e.type ?? '',
      e.reason ?? '',
      target,
      e.involvedObject.fieldPath ?? '',
      instance === '' ? component : `${component}, ${instance}`,
      (e.message ?? '').trim(),
      firstTimestamp,
      n,
      name(e),
    ],
  };
}

const EVENT_COLUMNS: readonly TableColumnDefinition[] = [
  column('Last Seen', 'string', DESCRIPTIONS['Event.lastTimestamp']),
  column('Type', 'string', DESCRIPTIONS['Event.type']),
  column('Reason', 'string', DESCRIPTIONS['Event.reason']),
  column('Object', 'string', DESCRIPTIONS['Event.involvedObject']),
  column('Subobject', 'string', DESCRIPTIONS['ObjectReference.fieldPath'], { priority: 1 }),
  column('Source', 'string', DESCRIPTIONS['Event.source'], { priority: 1 }),
  column('Message', 'string', DESCRIPTIONS['Event.message']),
  column('First Seen', 'string', DESCRIPTIONS['Event.firstTimestamp'], { priority: 1 }),
  column('Count', 'string', DESCRIPTIONS['Event.count'], { priority: 1 }),
  column('Name', 'string', DESCRIPTIONS['ObjectMeta.name'], { priority: 1, format: 'name' }),
];

// --- persistentvolumeclaims ------------------------------------------------------------------

/** helper.GetAccessModesAsString */
function accessModesText(modes: readonly string[]): string {
  const set = new Set(modes);
  const out: string[] = [];
  if (set.has('ReadWriteOnce')) out.push('RWO');
  if (set.has('ReadOnlyMany')) out.push('ROX');
  if (set.has('ReadWriteMany')) out.push('RWX');
  if (set.has('ReadWriteOncePod')) out.push('RWOP');
  return out.join(',');
}

function printPersistentVolumeClaim(pvc: PersistentVolumeClaim, now: Date): PrintedRow {
  let phase = pvc.status?.phase ?? '';
  if (pvc.metadata?.deletionTimestamp !== undefined && pvc.metadata.deletionTimestamp !== null) {
    phase = 'Terminating';
  }
  const volumeName = pvc.spec?.volumeName ?? '';
  let capacity = '';
  let accessModes = '';
  if (volumeName !== '') {
    accessModes = accessModesText(pvc.status?.accessModes ?? []);
    // Quantity.String(): printed as stored (kube canonicalises on write; see README.md).
    capacity = String(pvc.status?.capacity?.['storage'] ?? '0');
  }
  const beta = pvc.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'];
  const storageClass = beta ?? pvc.spec?.storageClassName ?? '';
  return {
    cells: [
      name(pvc),
      phase,
      volumeName,
      capacity,
      accessModes,
      storageClass,
      pvc.spec?.volumeAttributesClassName ?? '<unset>',
      age(pvc, now),
      pvc.spec?.volumeMode ?? '<unset>',
    ],
  };
}

// --- the table -------------------------------------------------------------------------------

const PODS: BuiltinPrinter = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    AGE_COLUMN,
    column('IP', 'string', DESCRIPTIONS['PodStatus.podIP'], { priority: 1 }),
    column('Node', 'string', DESCRIPTIONS['PodSpec.nodeName'], { priority: 1 }),
    column('Nominated Node', 'string', DESCRIPTIONS['PodStatus.nominatedNodeName'], {
      priority: 1,
    }),
    column('Readiness Gates', 'string', DESCRIPTIONS['PodSpec.readinessGates'], { priority: 1 }),
  ],
  print: (obj, now) => printPod(obj as Pod, now),
};

const EVENTS: BuiltinPrinter = {
  columns: EVENT_COLUMNS,
  print: (obj, now) => printEvent(asCoreEvent(obj, false), now),
};

const EVENTS_V1: BuiltinPrinter = {
  columns: EVENT_COLUMNS,
  print: (obj, now) => printEvent(asCoreEvent(obj, true), now),
};

/**
 * Printers keyed by `<plural>` (core) or `<group>/<plural>`. Resources without an entry use the
 * default table convertor (Name, Created At), as kube does for kinds with no printer.
 */
export const BUILTIN_PRINTERS: Readonly<Record<string, BuiltinPrinter>> = {
  pods: PODS,
  'discovery.k8s.io/endpointslices': ENDPOINTSLICE_PRINTER,
  namespaces: {
    columns: [NAME_COLUMN, column('Status', 'string', 'The status of the namespace'), AGE_COLUMN],
    print: (obj, now) => {
      const ns = obj as Namespace;
      return { cells: [name(ns), ns.status?.phase ?? '', age(ns, now)] };
    },
  },
  services: {
    columns: [
      NAME_COLUMN,
      column('Type', 'string', DESCRIPTIONS['ServiceSpec.type']),
      column('Cluster-IP', 'string', DESCRIPTIONS['ServiceSpec.clusterIP']),
      column('External-IP', 'string', DESCRIPTIONS['ServiceSpec.externalIPs']),
      column('Port(s)', 'string', DESCRIPTIONS['ServiceSpec.ports']),
      AGE_COLUMN,
      column('Selector', 'string', DESCRIPTIONS['ServiceSpec.selector'], { priority: 1 }),
    ],
    print: (obj, now) => printService(obj as Service, now),
  },
  endpoints: {
    columns: [
      NAME_COLUMN,
      column('Endpoints', 'string', DESCRIPTIONS['Endpoints.subsets']),
      AGE_COLUMN,
    ],
    print: (obj, now) => {
      const ep = obj as Endpoints;
      return { cells: [name(ep), formatEndpoints(ep), age(ep, now)] };
    },
  },
  persistentvolumeclaims: {
    columns: [
      NAME_COLUMN,
      column('Status', 'string', DESCRIPTIONS['PersistentVolumeClaimStatus.phase']),
      column('Volume', 'string', DESCRIPTIONS['PersistentVolumeClaimSpec.volumeName']),
      column('Capacity', 'string', DESCRIPTIONS['PersistentVolumeClaimStatus.capacity']),
      column('Access Modes', 'string', DESCRIPTIONS['PersistentVolumeClaimStatus.accessModes']),
      column('StorageClass', 'string', 'StorageClass of the pvc'),
      column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
      AGE_COLUMN,
      column('VolumeMode', 'string', DESCRIPTIONS['PersistentVolumeClaimSpec.volumeMode'], {
        priority: 1,
      }),
    ],
    print: (obj, now) => printPersistentVolumeClaim(obj as PersistentVolumeClaim, now),
  },
  events: EVENTS,
  'events.k8s.io/events': EVENTS_V1,
  secrets: {
    // The Data column is declared "string" but its cells are integers, as in kube.
    columns: [
      NAME_COLUMN,
      column('Type', 'string', DESCRIPTIONS['Secret.type']),
      column('Data', 'string', DESCRIPTIONS['Secret.data']),
      AGE_COLUMN,
    ],
    print: (obj, now) => {
      const s = obj as Secret;
      return { cells: [name(s), s.type ?? '', count(s.data), age(s, now)] };
    },
  },
  configmaps: {
    columns: [NAME_COLUMN, column('Data', 'string', DESCRIPTIONS['ConfigMap.data']), AGE_COLUMN],
    print: (obj, now) => {
      const cm = obj as ConfigMap;
      return { cells: [name(cm), count(cm.data) + count(cm.binaryData), age(cm, now)] };
    },
  },
  serviceaccounts: {
    columns: [
      NAME_COLUMN,
      column('Secrets', 'string', DESCRIPTIONS['ServiceAccount.secrets']),
      AGE_COLUMN,
    ],
    print: (obj, now) => {
      const sa = obj as ServiceAccount;
      return { cells: [name(sa), count(sa.secrets), age(sa, now)] };
    },
  },
  'coordination.k8s.io/leases': {
    columns: [
      NAME_COLUMN,
      column('Holder', 'string', DESCRIPTIONS['LeaseSpec.holderIdentity']),
      AGE_COLUMN,
    ],
    print: (obj, now) => {
      const l = obj as Lease;
      return { cells: [name(l), l.spec?.holderIdentity ?? '', age(l, now)] };
    },
  },
  'networking.k8s.io/networkpolicies': {
    columns: [
      NAME_COLUMN,
      column('Pod-Selector', 'string', DESCRIPTIONS['NetworkPolicySpec.podSelector']),
      AGE_COLUMN,
    ],
    print: (obj, now) => {
      const np = obj as NetworkPolicy;
      // spec.podSelector is a struct, never nil: absent means the empty selector.
      return { cells: [name(np), formatLabelSelector(np.spec?.podSelector ?? {}), age(np, now)] };
    },
  },
};
