// POST serviceaccounts/<name>/token: authentication.k8s.io/v1 TokenRequest (kube's TokenREST).
// Issues a signed token for an existing service account, optionally bound to a Pod or Secret
// whose uid the token then carries; nothing is stored.
import { invalid, notFound, statusError, badRequest } from '../../errors.ts';
import { formatTime, type KubeObject } from '../../objects.ts';
import type { KubernetesClaim, ServiceAccountTokens } from '../../auth/service-account-tokens.ts';
import { parseObject } from '../../controllers/stored-objects.ts';
import type { StoreReader } from '../../storage/store.ts';
import { readObject } from '../body.ts';
import type { Call, ServerParts } from '../context.ts';
import { managerName, writeOptions } from '../options.ts';
import { jsonResponse } from '../response.ts';

/** kube's defaults and bounds for spec.expirationSeconds. */
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

const TOKEN_REQUEST = {
  group: 'authentication.k8s.io',
  plural: 'tokenrequests',
  kind: 'TokenRequest',
};
/** What a token may be bound to: kind → the core resource holding it. */
const BINDABLE: Record<string, { plural: string; kind: string }> = {
  Pod: { plural: 'pods', kind: 'Pod' },
  Secret: { plural: 'secrets', kind: 'Secret' },
};

interface BoundObjectRef {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

function readStored(store: StoreReader, key: string): KubeObject | undefined {
  const stored = store.get(key);
  return stored ? parseObject(stored.value) : undefined;
}

/** managedFields' fieldsV1 of a plain JSON object: objects recurse, everything else is a leaf. */
export function fieldsOf(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) {
    const v = value[k];
    if (v === null || v === undefined) continue;
    out[`f:${k}`] =
      typeof v === 'object' && !Array.isArray(v) ? fieldsOf(v as Record<string, unknown>) : {};
  }
  return out;
}

function validateExpiration(seconds: unknown): number {
  if (seconds === undefined || seconds === null) return DEFAULT_EXPIRATION_SECONDS;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds))
    throw badRequest(
      `TokenRequest in version "v1" cannot be handled as a TokenRequest: spec.expirationSeconds must be an integer number of seconds, got ${JSON.stringify(seconds)}`,
    );
  const fail = (why: string) =>
    invalid(TOKEN_REQUEST, '', [
      {
        field: 'spec.expirationSeconds',
        type: 'FieldValueInvalid',
        message: `Invalid value: ${seconds}: ${why}`,
      },
    ]);
  if (seconds < MIN_EXPIRATION_SECONDS)
    throw fail('may not specify a duration less than 10 minutes');
  if (seconds > MAX_EXPIRATION_SECONDS)
    throw fail('may not specify a duration larger than 2^32 seconds');
  return seconds;
}

/** Resolves spec.boundObjectRef against the store: it must exist and carry the given uid. */
function bindTo(store: StoreReader, ns: string, ref: BoundObjectRef, claim: KubernetesClaim): void {
  const apiVersion = ref.apiVersion ?? '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const version = apiVersion.includes('/')
    ? apiVersion.slice(apiVersion.indexOf('/') + 1)
    : apiVersion;
  const target = group === '' ? BINDABLE[ref.kind ?? ''] : undefined;
  if (!target)
    throw badRequest(
      `cannot bind token to object of type ${group}/${version}, Kind=${ref.kind ?? ''}`,
    );
  const name = ref.name ?? '';
  const obj = readStored(store, `/registry/core/${target.plural}/${ns}/${name}`);
  if (!obj) throw notFound({ group: '', plural: target.plural, kind: target.kind }, name);
  const uid = obj.metadata.uid ?? '';
  if (ref.uid !== undefined && ref.uid !== '' && ref.uid !== uid)
    throw statusError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${target.kind} "${name}": the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      { name, kind: target.kind },
    );
  if (target.kind === 'Pod') claim.pod = { name, uid };
  else claim.secret = { name, uid };
}

export async function tokenRequest(
  parts: ServerParts,
  call: Call,
  tokens: ServiceAccountTokens,
): Promise<Response> {
  const body = await readObject(call.http, 'TokenRequest');
  const ns = call.req.namespace ?? '';
  const name = call.req.name ?? '';
  const rawSpec = body['spec'];
  const spec: Record<string, unknown> =
    typeof rawSpec === 'object' && rawSpec !== null && !Array.isArray(rawSpec)
      ? { ...(rawSpec as Record<string, unknown>) }
      : {};
  const expirationSeconds = validateExpiration(spec['expirationSeconds']);
  spec['expirationSeconds'] = expirationSeconds;
  // managedFields see the request as decoded and defaulted, before audiences are filled in.
  const fieldsV1 = { 'f:spec': fieldsOf(spec) };
  const sa = readStored(parts.store, `/registry/core/serviceaccounts/${ns}/${name}`);
  if (!sa || sa.metadata.deletionTimestamp !== undefined)
    throw notFound({ group: '', plural: 'serviceaccounts', kind: 'ServiceAccount' }, name);
  const claim: KubernetesClaim = {
    namespace: ns,
    serviceaccount: { name, uid: sa.metadata.uid ?? '' },
  };
  const ref = spec['boundObjectRef'];
  if (typeof ref === 'object' && ref !== null)
    bindTo(parts.store, ns, ref as BoundObjectRef, claim);
  const given = spec['audiences'];
  const audiences = Array.isArray(given) && given.length > 0 ? given.map(String) : [tokens.issuer];
  const now = parts.ctx.now();
  const issued = tokens.issue({ claim, audiences, now, expirationSeconds });
  const time = formatTime(now);
  const opts = writeOptions(call.url, 'CreateOptions');
  const out = {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: {
      name,
      namespace: ns,
      uid: sa.metadata.uid,
      creationTimestamp: time,
      managedFields: [
        {
          manager: managerName(opts, call.http),
          operation: 'Update',
          apiVersion: 'authentication.k8s.io/v1',
          time,
          fieldsType: 'FieldsV1',
          fieldsV1,
          subresource: 'token',
        },
      ],
    },
    spec: {
      audiences,
      expirationSeconds,
      boundObjectRef: typeof ref === 'object' && ref !== null ? ref : null,
    },
    status: { token: issued.token, expirationTimestamp: formatTime(issued.expires) },
  };
  return jsonResponse(out, 201, call.warnings);
}
