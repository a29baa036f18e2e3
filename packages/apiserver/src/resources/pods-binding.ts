// Binding a Pod to a node as kube-apiserver's BindingREST does (pkg/registry/core/pod/storage):
// POST a Binding to pods/<name>/binding or to the legacy `bindings` collection. The stored Pod
// gets spec.nodeName, the Binding's annotations and labels and a PodScheduled=True condition in
// one storage update that bypasses the Pod strategy (no generation bump, no managedFields entry).
// Answers 201 with a Success Status; a bound or terminating Pod is a 409 Conflict on
// pods/binding; an invalid Binding is kube's reason-less 500.
import { ApiError, badRequest, conflict, notFound, statusError } from '../errors.ts';
import { readObject } from '../http/body.ts';
import type { Call, ServerParts } from '../http/context.ts';
import { checkNamespace } from '../http/verbs/create.ts';
import { writeOptions } from '../http/options.ts';
import { jsonResponse } from '../http/response.ts';
import { formatTime, type KubeObject } from '../objects.ts';
import { encode, objectKey } from '../resource-store.ts';
import { StorageError } from '../storage/errors.ts';
import type { ResourceInfo } from './resource.ts';

type Json = Record<string, unknown>;

/** How often a concurrent Pod write is retried, as GuaranteedUpdate retries on conflict. */
const UPDATE_ATTEMPTS = 5;

export function isBindingRequest(r: ResourceInfo, subresource: string | undefined): boolean {
  if (r.group !== '') return false;
  return (r.plural === 'pods' && subresource === 'binding') || r.plural === 'bindings';
}

function record(v: unknown): Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
}

function stringMap(v: unknown): Record<string, string> {
  return record(v) as Record<string, string>;
}

/** ValidatePodBinding's messages; kube returns them as a plain error, so the client sees a 500. */
export function bindingProblems(binding: KubeObject): string[] {
  const target = record(binding['target']);
  const kind = typeof target['kind'] === 'string' ? target['kind'] : '';
  const name = typeof target['name'] === 'string' ? target['name'] : '';
  const out: string[] = [];
  if (kind !== '' && kind !== 'Node')
    out.push(`target.kind: Unsupported value: "${kind}": supported values: "Node", "<empty>"`);
  if (name === '') out.push('target.name: Required value');
  return out;
}

/**
 * The Pod after binding (storage preconditions and state already checked): nodeName, the
 * Binding's annotations and labels merged, PodScheduled=True (its transition time kept when it
 * already was True, as UpdatePodCondition does).
 */
export function boundPod(pod: KubeObject, binding: KubeObject, now: Date): KubeObject {
  const out = structuredClone(pod);
  out['spec'] = { ...record(out['spec']), nodeName: String(record(binding['target'])['name']) };
  const meta = out.metadata;
  const annotations = stringMap(binding.metadata.annotations);
  if (Object.keys(annotations).length > 0)
    meta.annotations = { ...(meta.annotations ?? {}), ...annotations };
  const labels = stringMap(binding.metadata.labels);
  if (Object.keys(labels).length > 0) meta.labels = { ...(meta.labels ?? {}), ...labels };
  const status = { ...record(out['status']) };
  const conditions = Array.isArray(status['conditions'])
    ? (status['conditions'] as Json[]).map((c) => ({ ...c }))
    : [];
  const i = conditions.findIndex((c) => c['type'] === 'PodScheduled');
  const prior = i >= 0 ? conditions[i] : undefined;
  const scheduled: Json = {
    type: 'PodScheduled',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime:
      prior?.['status'] === 'True' && prior['lastTransitionTime'] !== undefined
        ? prior['lastTransitionTime']
        : formatTime(now),
  };
  if (i >= 0) conditions[i] = scheduled;
  else conditions.push(scheduled);
  status['conditions'] = conditions;
  out['status'] = status;
  return out;
}

/** kube's storage precondition failure, surfaced as a Conflict on pods. */
function preconditionFailed(
  pods: ResourceInfo,
  ns: string,
  name: string,
  what: 'UID' | 'ResourceVersion',
  wanted: string,
  actual: string,
): Error {
  return conflict(
    pods,
    name,
    `StorageError: invalid object, Code: 4, Key: /registry/pods/${ns}/${name}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ${what} in precondition: ${wanted}, ${what} in object meta: ${actual}`,
  );
}

/** Any verb but create on `bindings`: kube's generic 405 with empty details. */
export function bindingsMethodNotAllowed(): ApiError {
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server does not allow this method on the requested resource',
    reason: 'MethodNotAllowed',
    details: {},
    code: 405,
  });
}

/** POST pods/<name>/binding or bindings. */
export async function bindPod(parts: ServerParts, call: Call): Promise<Response> {
  const opts = writeOptions(call.url, 'CreateOptions');
  const binding = await readObject(call.http, 'Binding');
  if (binding.kind !== undefined && binding.kind !== 'Binding') {
    throw badRequest(
      `${binding.kind} in version "${call.version}" cannot be handled as a Binding: converting (${call.version}.${binding.kind}) to (core.Binding): unknown conversion`,
    );
  }
  if (binding.apiVersion !== undefined && binding.apiVersion !== 'v1') {
    throw badRequest(
      `Binding in version "${binding.apiVersion}" cannot be handled as a Binding: no kind "Binding" is registered for version "${binding.apiVersion}" in scheme "pkg/runtime/scheme.go:111"`,
    );
  }
  checkNamespace(call, binding);
  const name = binding.metadata.name ?? '';
  if (call.r.plural === 'bindings' && name === '') throw badRequest('Name parameter required.');
  if (call.r.plural === 'pods' && name !== call.req.name)
    throw badRequest('name in URL does not match name in Binding object');
  const problems = bindingProblems(binding);
  if (problems.length > 0) {
    const message = problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`;
    throw statusError(500, '', message ?? '');
  }
  const pods = parts.registry.lookup('', 'v1', 'pods');
  if (!pods) throw notFound(call.r, name);
  const ns = call.req.namespace ?? '';
  const key = objectKey(pods, ns, name);
  const podsBinding = { ...pods, plural: 'pods/binding' };
  for (let attempt = 1; ; attempt++) {
    const stored = parts.store.get(key);
    if (!stored) throw notFound(pods, name);
    const pod = parts.codec.decode(pods, stored, 'v1');
    const { uid, resourceVersion } = binding.metadata;
    if (uid && uid !== pod.metadata.uid)
      throw preconditionFailed(pods, ns, name, 'UID', uid, pod.metadata.uid ?? '');
    if (resourceVersion && resourceVersion !== pod.metadata.resourceVersion) {
      const actual = pod.metadata.resourceVersion ?? '';
      throw preconditionFailed(pods, ns, name, 'ResourceVersion', resourceVersion, actual);
    }
    if (pod.metadata.deletionTimestamp)
      throw conflict(
        podsBinding,
        name,
        `pod ${name} is being deleted, cannot be assigned to a host`,
      );
    const nodeName = record(pod['spec'])['nodeName'];
    if (typeof nodeName === 'string' && nodeName !== '')
      throw conflict(podsBinding, name, `pod ${name} is already assigned to node "${nodeName}"`);
    const next = boundPod(pod, binding, parts.ctx.now());
    if (!opts.dryRun) {
      try {
        parts.store.update(
          key,
          encode(parts.codec.toVersion(pods, next, pods.storageVersion)),
          stored.revision,
        );
      } catch (err: unknown) {
        if (err instanceof StorageError && err.code === 'Conflict' && attempt < UPDATE_ATTEMPTS)
          continue;
        if (err instanceof StorageError && err.code === 'NotFound') throw notFound(pods, name);
        throw err;
      }
    }
    return jsonResponse(
      { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 },
      201,
      call.warnings,
    );
  }
}
