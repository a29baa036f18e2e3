// The scale subresource of custom resources (semantics doc §6.2): an autoscaling/v1 Scale view
// of the paths the CRD names, read and written through the parent object.
import { badRequest, methodNotAllowed, notFound } from '../../errors.ts';
import type { KubeObject } from '../../objects.ts';
import { applyMergePatch, applyJsonPatch } from '../../patch/index.ts';
import type { Call, ServerParts } from '../context.ts';
import { checkNesting, readObject, readText } from '../body.ts';
import { readPath, writePath } from '../field-path.ts';
import { managerName, writeOptions } from '../options.ts';
import { jsonResponse } from '../response.ts';
import { loadCurrent, writeUpdate } from './write-path.ts';

function scaleOf(call: Call, obj: KubeObject): KubeObject {
  const scale = call.r.scale;
  const meta = obj.metadata;
  const status: Record<string, unknown> = {
    replicas: readPath(obj, scale?.statusReplicasPath ?? '') ?? 0,
  };
  const selector = scale?.labelSelectorPath ? readPath(obj, scale.labelSelectorPath) : undefined;
  if (typeof selector === 'string' && selector !== '') status['selector'] = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: readPath(obj, call.r.scale?.specReplicasPath ?? '') ?? 0 },
    status,
  };
}

export async function scale(parts: ServerParts, call: Call): Promise<Response> {
  const { r } = call;
  if (!r.scale) throw notFound(r, call.req.name ?? '');
  const current = loadCurrent(parts, call);
  if (call.req.verb === 'get') return jsonResponse(scaleOf(call, current.obj), 200, call.warnings);
  let desired: KubeObject;
  if (call.req.verb === 'update') desired = await readObject(call.http, 'Scale');
  else if (call.req.verb === 'patch') {
    const type = (call.http.headers.get('content-type') ?? '').split(';')[0]?.trim();
    const body: unknown = JSON.parse(await readText(call.http));
    checkNesting(body, 'the patch');
    const base = scaleOf(call, current.obj);
    desired = (
      type === 'application/json-patch+json'
        ? applyJsonPatch(base, body)
        : applyMergePatch(base, body)
    ) as KubeObject;
  } else throw methodNotAllowed(call.req.verb, r);
  const replicas = (desired['spec'] as Record<string, unknown> | undefined)?.['replicas'];
  if (typeof replicas !== 'number') throw badRequest('Scale spec.replicas must be an integer');
  const next = structuredClone(current.obj);
  writePath(next, r.scale.specReplicasPath, replicas);
  const rv = desired.metadata?.resourceVersion;
  const opts = writeOptions(call.url, call.req.verb === 'patch' ? 'PatchOptions' : 'UpdateOptions');
  const scaleCall: Call = { ...call, req: { ...call.req, subresource: 'scale' } };
  const result = writeUpdate(
    parts,
    scaleCall,
    current,
    next,
    opts,
    'update',
    rv ? Number(rv) : undefined,
    managerName(opts, call.http),
  );
  return jsonResponse(scaleOf(call, result.body), 200, call.warnings);
}
