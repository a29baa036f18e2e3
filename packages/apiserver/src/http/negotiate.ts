// The Accept header of a resource request as kube-apiserver negotiates it before its handler
// runs: some clause must name a media type it serves (or a wildcard), and a clause that asks for
// a conversion (`as=`) only counts when it names one kube serves. Nothing acceptable is 406
// NotAcceptable. Pure: header in, nothing or ApiError out.
import { statusError } from '../errors.ts';

/** The media types a resource endpoint answers in, as kube's 406 lists them. */
const SERVED = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
  'application/json;stream=watch',
  'application/vnd.kubernetes.protobuf;stream=watch',
];

/** Compared as sent: kube's matcher is case-sensitive. */
const TYPES = new Set(['*/*', 'application/*', 'application/json', 'application/yaml']);
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** The meta.k8s.io conversions kube serves, per verb kind (a Table of one object is fine). */
function conversionServed(as: string, g: string, v: string, list: boolean): boolean {
  if (g !== 'meta.k8s.io') return false;
  if (as === 'Table') return v === 'v1' || v === 'v1beta1';
  if (v !== 'v1' && v !== 'v1beta1') return false;
  return as === (list ? 'PartialObjectMetadataList' : 'PartialObjectMetadata');
}

function clauseAcceptable(clause: string, list: boolean, protobuf: boolean): boolean {
  const [rawType = '', ...rawParams] = clause.split(';');
  const type = rawType.trim();
  if (!TYPES.has(type) && !(protobuf && type === PROTOBUF)) return false;
  const params = new Map(
    rawParams.map((p) => {
      const eq = p.indexOf('=');
      return [p.slice(0, eq).trim(), p.slice(eq + 1).trim()] as [string, string];
    }),
  );
  const as = params.get('as');
  if (as === undefined) return true;
  return conversionServed(as, params.get('g') ?? '', params.get('v') ?? '', list);
}

/**
 * Throws kube's 406 when no clause of `accept` is acceptable. `list` is true for a list, a watch
 * or a deletecollection (whose partial metadata is a PartialObjectMetadataList); `protobuf` for
 * built-in resources (custom resources have no protobuf form).
 */
export function negotiateOutput(
  accept: string | null,
  opts: { list: boolean; protobuf: boolean },
): void {
  if (accept === null || accept.trim() === '') return;
  if (accept.split(',').some((c) => clauseAcceptable(c, opts.list, opts.protobuf))) return;
  throw statusError(
    406,
    'NotAcceptable',
    `only the following media types are accepted: ${SERVED.join(', ')}`,
  );
}
