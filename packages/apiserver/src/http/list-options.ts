// The query of list, watch and deletecollection requests as kube-apiserver reads it: integers
// converted like Go's strconv.ParseInt (400 with its message), then ValidateListOptions (422 with
// a ListOptions.meta.k8s.io cause per rule), then resourceVersion as the storage layer parses it
// (ParseUint: 400 for a list, a reasonless 500 for a watch, as kube answers). Pure: URL in,
// options or ApiError out.
import {
  badRequest,
  invalid,
  plainInternal,
  tooLargeResourceVersion,
  type ApiError,
} from '../errors.ts';

export interface ListOptions {
  /** '' when absent. */
  resourceVersion: string;
  /** The parsed resourceVersion; undefined when absent or ''. Exceeds 2^53 only as a bigint. */
  revision: bigint | undefined;
  resourceVersionMatch: string;
  /** 0 when absent (no limit); negative values mean no limit as in kube. */
  limit: number;
  /** undefined when absent; negative ends a watch at once (kube: "context deadline exceeded"). */
  timeoutSeconds: number | undefined;
  continue: string;
  /** Whether `sendInitialEvents` was given at all (any value is a *bool set in Go). */
  sendInitialEvents: boolean;
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/** Go's strconv.Quote for the text an error message repeats. */
function quote(text: string): string {
  return JSON.stringify(text);
}

/** strconv.ParseInt(text, 10, 64), with Go's error text. */
export function parseInt64(text: string): bigint | { error: string } {
  if (!/^[+-]?\d+$/.test(text))
    return { error: `strconv.ParseInt: parsing ${quote(text)}: invalid syntax` };
  const value = BigInt(text);
  if (value > INT64_MAX || value < INT64_MIN)
    return { error: `strconv.ParseInt: parsing ${quote(text)}: value out of range` };
  return value;
}

/** strconv.ParseUint(text, 10, 64), with Go's error text. */
export function parseUint64(text: string): bigint | { error: string } {
  if (!/^\d+$/.test(text))
    return { error: `strconv.ParseUint: parsing ${quote(text)}: invalid syntax` };
  const value = BigInt(text);
  if (value > UINT64_MAX)
    return { error: `strconv.ParseUint: parsing ${quote(text)}: value out of range` };
  return value;
}

/**
 * An int64 query parameter (first value, as Go's conversion takes), clamped to a JS number. An
 * empty value is no value to kube's converter: `limit=` is its 400 "parsing \"\"".
 */
function intParam(url: URL, name: string): number | undefined {
  const text = url.searchParams.get(name);
  if (text === null) return undefined;
  const parsed = parseInt64(text);
  if (typeof parsed === 'object') throw badRequest(parsed.error);
  return Number(parsed);
}

const LIST_OPTIONS = { group: 'meta.k8s.io', plural: 'listoptions', kind: 'ListOptions' };

type Cause = { field: string; message: string; type: string };

function forbidden(field: string, detail: string): Cause {
  return { field, message: `Forbidden: ${detail}`, type: 'FieldValueForbidden' };
}

function notSupported(field: string, value: string, supported: string[]): Cause {
  const list = supported.map((s) => `"${s}"`).join(', ');
  return {
    field,
    message: `Unsupported value: ${quote(value)}: supported values: ${list}`,
    type: 'FieldValueNotSupported',
  };
}

/** kube's ValidateListOptions for a list (or deletecollection). */
function listCauses(o: ListOptions): Cause[] {
  const causes: Cause[] = [];
  const match = o.resourceVersionMatch;
  if (match !== '') {
    if (o.resourceVersion === '')
      causes.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden unless resourceVersion is provided',
        ),
      );
    if (o.continue !== '')
      causes.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden when continue is provided',
        ),
      );
    if (match !== 'Exact' && match !== 'NotOlderThan')
      causes.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && o.resourceVersion === '0')
      causes.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        ),
      );
  }
  if (o.sendInitialEvents)
    causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return causes;
}

/** kube's ValidateListOptions for a watch (the WatchList feature on, as in 1.32+). */
function watchCauses(o: ListOptions): Cause[] {
  const causes: Cause[] = [];
  const match = o.resourceVersionMatch;
  if (o.sendInitialEvents && match !== 'NotOlderThan')
    causes.push(
      forbidden(
        'resourceVersionMatch',
        'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      ),
    );
  if (match !== '') {
    if (!o.sendInitialEvents)
      causes.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        ),
      );
    if (match !== 'NotOlderThan')
      causes.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
  }
  if (o.continue !== '')
    causes.push(
      forbidden(
        'resourceVersionMatch',
        'resourceVersionMatch is forbidden when continue is provided',
      ),
    );
  return causes;
}

function invalidListOptions(causes: Cause[]): ApiError {
  return invalid(LIST_OPTIONS, '', causes);
}

/**
 * The resourceVersion of a GET of one object: undefined when absent, "0" or served by the
 * current state; one past the store's revision is kube's 504 "Too large resource version". An
 * unparsable one is the reasonless 500 kube's watch cache answers, or for a resource kube keeps
 * no watch cache of (`uncached`: events) the 400 of its storage layer.
 */
export function getResourceVersion(
  url: URL,
  currentRevision: number,
  uncached: boolean,
): bigint | undefined {
  const text = url.searchParams.get('resourceVersion') ?? '';
  if (text === '') return undefined;
  const parsed = parseUint64(text);
  if (typeof parsed === 'object') {
    const why = `resourceVersion: Invalid value: ${quote(text)}: ${parsed.error}`;
    throw uncached ? badRequest(`invalid resource version: ${why}`) : plainInternal(why);
  }
  if (parsed > BigInt(currentRevision)) throw tooLargeResourceVersion(text, currentRevision);
  return parsed;
}

/** Parses and validates the list options of a list (`watch: false`) or a watch. */
export function listOptions(url: URL, watch: boolean): ListOptions {
  const q = url.searchParams;
  const resourceVersion = q.get('resourceVersion') ?? '';
  const timeoutSeconds = intParam(url, 'timeoutSeconds');
  const limit = intParam(url, 'limit') ?? 0;
  const options: ListOptions = {
    resourceVersion,
    revision: undefined,
    resourceVersionMatch: q.get('resourceVersionMatch') ?? '',
    limit,
    timeoutSeconds,
    continue: q.get('continue') ?? '',
    sendInitialEvents: (q.get('sendInitialEvents') ?? '') !== '',
  };
  const causes = watch ? watchCauses(options) : listCauses(options);
  if (causes.length > 0) throw invalidListOptions(causes);
  if (resourceVersion !== '') {
    const parsed = parseUint64(resourceVersion);
    if (typeof parsed === 'object') {
      const why = `resourceVersion: Invalid value: ${quote(resourceVersion)}: ${parsed.error}`;
      // The watch path reports it untyped (a 500 without reason); the list path as 400.
      throw watch ? plainInternal(why) : badRequest(`invalid resource version: ${why}`);
    }
    options.revision = parsed;
  }
  return options;
}
