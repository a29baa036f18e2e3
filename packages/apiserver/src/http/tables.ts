// Server-side printing (semantics doc §10): `kubectl get` asks for a meta.k8s.io Table in its
// Accept header; the table module renders rows with the CRD's printer columns or kube's printers.
import type { ListMeta } from '@agent-sandbox/kube-types';
import type { KubeObject } from '../objects.ts';
import { buildTable, type Table } from '../table/index.ts';
import type { Call, ServerParts } from './context.ts';
import { jsonResponse } from './response.ts';

/** The Table version the Accept header asks for, if any. */
export function requestedTable(req: Request): 'v1' | 'v1beta1' | undefined {
  const accept = req.headers.get('accept') ?? '';
  for (const part of accept.split(',')) {
    const params = new Map(
      part
        .split(';')
        .slice(1)
        .map((p) => p.trim().split('=') as [string, string]),
    );
    if (params.get('as') === 'Table' && params.get('g') === 'meta.k8s.io') {
      const v = params.get('v');
      if (v === 'v1' || v === 'v1beta1') return v;
    }
  }
  return undefined;
}

/** Builds a Table for the call's resource (a bad includeObject is a TableError: kube's 400). */
function table(
  parts: ServerParts,
  call: Call,
  objects: KubeObject[],
  version: 'v1' | 'v1beta1',
  extra: { listMeta?: ListMeta; noHeaders?: boolean },
): Table {
  const { r } = call;
  return buildTable({
    resource: r.group === '' ? r.plural : `${r.group}/${r.plural}`,
    ...(r.crd ? { columns: r.printerColumns(call.version) ?? [] } : {}),
    objects,
    includeObject: call.url.searchParams.get('includeObject') ?? undefined,
    now: parts.ctx.now(),
    ...extra,
    tableVersion: version,
  });
}

/** A one-row Table for a watch event; only the first event of a stream carries the columns (§10). */
export function tableForEvent(
  parts: ServerParts,
  call: Call,
  obj: KubeObject,
  version: 'v1' | 'v1beta1',
  first: boolean,
): Table {
  return table(parts, call, [obj], version, { noHeaders: !first });
}

export function tableResponse(
  parts: ServerParts,
  call: Call,
  objects: KubeObject[],
  version: 'v1' | 'v1beta1',
  listMeta?: ListMeta,
): Response {
  const body = table(parts, call, objects, version, listMeta ? { listMeta } : {});
  return jsonResponse(body, 200, call.warnings);
}
