// kube-apiserver's EndpointSlice printer (printEndpointSlice): Name, AddressType, Ports, Endpoints,
// Age; at most three ports or addresses, then ` + N more...`, `<unset>` when there are none.
// Column descriptions come from the captured EndpointSlice OpenAPI definition.
import openapi from '@agent-sandbox/kube-types/openapi/k8s-openapi.json' with { type: 'json' };
import { humanAge } from '../jsonpath/index.ts';
import { DESCRIPTIONS } from './descriptions.ts';
import type { TableColumnDefinition } from './types.ts';
import type { BuiltinPrinter } from './builtin-printers.ts';

interface EndpointSlice {
  metadata?: { name?: string; creationTimestamp?: string };
  addressType?: string;
  endpoints?: { addresses?: string[] }[] | null;
  ports?: { name?: string; port?: number }[] | null;
}

const MAX = 3;

function describe(field: string): string {
  const defs = openapi.serverSchemas as unknown as Record<
    string,
    { properties?: Record<string, { description?: string }> }
  >;
  return defs['io.k8s.api.discovery.v1.EndpointSlice']?.properties?.[field]?.description ?? '';
}

function column(name: string, description: string, format = ''): TableColumnDefinition {
  return { name, type: 'string', format, description, priority: 0 };
}

/** listWithMoreString: the first three, ` + N more...` past them, `<unset>` for none. */
function listWithMore(all: readonly string[]): string {
  const shown = all.slice(0, MAX).join(',');
  if (all.length > MAX) return `${shown} + ${all.length - MAX} more...`;
  return shown === '' ? '<unset>' : shown;
}

export const ENDPOINTSLICE_PRINTER: BuiltinPrinter = {
  columns: [
    column('Name', DESCRIPTIONS['ObjectMeta.name'], 'name'),
    column('AddressType', describe('addressType')),
    column('Ports', describe('ports')),
    column('Endpoints', describe('endpoints')),
    column('Age', DESCRIPTIONS['ObjectMeta.creationTimestamp']),
  ],
  print: (obj, now) => {
    const s = obj as EndpointSlice;
    const ports = (s.ports ?? []).map((p) =>
      p.port !== undefined ? String(p.port) : (p.name ?? '*'),
    );
    const addresses = (s.endpoints ?? []).flatMap((e) => e.addresses ?? []);
    return {
      cells: [
        s.metadata?.name ?? '',
        s.addressType ?? '',
        listWithMore(ports),
        listWithMore(addresses),
        humanAge(s.metadata?.creationTimestamp, now),
      ],
    };
  },
};
