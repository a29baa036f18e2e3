// protobuf → JSON, as Go's encoding/json would print the Kubernetes struct that gogo-protobuf
// unmarshals from the bytes: JSON names and order from the Go fields, omitempty/omitzero, `null`
// for unset non-omitempty pointers, slices and maps, zero values for unset plain fields, inlined
// embedded structs, and the hand-written JSON of the meta/v1, intstr, resource and apiextensions
// types (special kinds in schema.ts).
import { formatUnixTime } from '@agent-sandbox/kube-types';
import protobuf from 'protobufjs';
import { ProtobufError } from './errors.ts';
import { formatDuration, GO_ZERO_UNIX } from './go-format.ts';
import { type FieldInfo, fullName, schema } from './schema.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Msg = Record<string, unknown>;

const has = (msg: Msg, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(msg, key) && msg[key] !== null && msg[key] !== undefined;

function toBigInt(v: unknown): bigint {
  if (typeof v === 'number') return BigInt(v);
  if (typeof v === 'bigint') return v;
  return BigInt(String(v)); // protobufjs' Long prints its decimal value
}

function toNumber(v: unknown): number {
  return typeof v === 'number' ? v : Number(toBigInt(v));
}

function present(field: protobuf.Field, msg: Msg): boolean {
  const v = msg[field.name];
  if (field.repeated) return Array.isArray(v) && v.length > 0;
  return has(msg, field.name);
}

function messageType(field: protobuf.Field): protobuf.Type | undefined {
  return field.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined;
}

/** The entry message when `field` is a map (schema.ts rewrites maps as repeated entries). */
function mapEntry(field: protobuf.Field): protobuf.Type | undefined {
  const type = messageType(field);
  return type && schema().mapEntries.has(fullName(type)) ? type : undefined;
}

/** Map entries as Go decodes them: missing key or value is the zero value, later keys win. */
function mapToJson(entry: protobuf.Type, entries: Msg[]): { [key: string]: Json } {
  const value = entry.fields.value as protobuf.Field;
  const out: { [key: string]: Json } = {};
  for (const e of entries) {
    const key = has(e, 'key') ? String(e.key) : '';
    let v: Json;
    if (has(e, 'value')) v = element(value, e.value);
    else if (messageType(value)) v = element(value, {});
    else v = value.type === 'bytes' ? '' : zeroScalar(value);
    // an own property even for `__proto__`, as JSON.parse would make it
    Object.defineProperty(out, key, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** One value of `field`'s element type (a map value, a list item, or the field itself). */
function element(field: protobuf.Field, v: unknown): Json {
  const type = messageType(field);
  if (type) return messageToJson(type, (v ?? {}) as Msg);
  if (field.type === 'bytes') return Buffer.from(v as Uint8Array).toString('base64');
  if (field.long) return toNumber(v);
  return v as Json;
}

function zeroScalar(field: protobuf.Field): Json {
  if (field.type === 'string') return '';
  if (field.type === 'bool') return false;
  return 0;
}

/** Go's reflect.Value.IsZero for the struct gogo would decode `msg` into (for omitzero). */
function isZero(type: protobuf.Type, msg: Msg): boolean {
  const kind = schema().special.get(fullName(type));
  if (kind === 'time' || kind === 'microTime') return timeIsZero(msg, kind === 'microTime');
  return type.fieldsArray.every((f) => {
    if (!present(f, msg)) return true;
    const inner = messageType(f);
    if (inner && !f.repeated) return isZero(inner, msg[f.name] as Msg);
    if (f.repeated || f.type === 'bytes') return false;
    const v = f.long ? toNumber(msg[f.name]) : msg[f.name];
    return v === zeroScalar(f);
  });
}

function timeIsZero(msg: Msg, micro: boolean): boolean {
  if (!has(msg, 'seconds') && !has(msg, 'nanos')) return true; // Unmarshal of empty bytes
  const nanos = micro && has(msg, 'nanos') ? Math.trunc(toNumber(msg.nanos) / 1000) : 0;
  return has(msg, 'seconds') && toNumber(msg.seconds) === GO_ZERO_UNIX && nanos === 0;
}

function special(kind: string, type: protobuf.Type, msg: Msg): Json {
  const sub = (name: string): Json => {
    const field = type.fields[name] as protobuf.Field;
    return present(field, msg) ? element(field, msg[name]) : null;
  };
  switch (kind) {
    case 'time':
    case 'microTime': {
      if (timeIsZero(msg, kind === 'microTime')) return null;
      const seconds = has(msg, 'seconds') ? toNumber(msg.seconds) : 0;
      if (kind === 'time') return formatUnixTime(seconds);
      return formatUnixTime(
        seconds,
        Math.trunc((has(msg, 'nanos') ? toNumber(msg.nanos) : 0) / 1000),
      );
    }
    case 'duration':
      return formatDuration(has(msg, 'duration') ? toBigInt(msg.duration) : 0n);
    case 'quantity':
      return has(msg, 'string') && msg.string !== '' ? (msg.string as string) : '0';
    case 'intOrString': {
      const t = has(msg, 'type') ? toNumber(msg.type) : 0;
      if (t === 0) return has(msg, 'intVal') ? toNumber(msg.intVal) : 0;
      if (t === 1) return has(msg, 'strVal') ? (msg.strVal as string) : '';
      throw new ProtobufError('Malformed', 'impossible IntOrString.Type');
    }
    case 'rawJSON': {
      const raw = msg.raw ?? msg.Raw;
      if (!(raw instanceof Uint8Array) || raw.length === 0) return null;
      try {
        return JSON.parse(Buffer.from(raw).toString('utf8')) as Json;
      } catch (err: unknown) {
        throw new ProtobufError('Malformed', `${fullName(type)}: raw bytes are not JSON`, {
          cause: err,
        });
      }
    }
    case 'schemaOrArray': {
      const list = sub('jSONSchemas');
      return list ?? sub('schema');
    }
    case 'schemaOrBool':
      return sub('schema') ?? (has(msg, 'allows') ? (msg.allows as boolean) : false);
    case 'schemaOrStringArray':
      return sub('property') ?? sub('schema');
  }
  throw new ProtobufError('Malformed', `${fullName(type)}: no JSON mapping for ${kind}`);
}

/** The JSON of a decoded message (struct, special type or wrapped slice). */
export function messageToJson(type: protobuf.Type, msg: Msg): Json {
  const name = fullName(type);
  const s = schema();
  const kind = s.special.get(name);
  if (kind) return special(kind, type, msg);
  if (s.slices.has(name)) {
    const items = type.fields.items as protobuf.Field;
    // gogo decodes the wrapper into a non-nil slice: `[]` when it has no items
    return present(items, msg) ? (msg.items as unknown[]).map((v) => element(items, v)) : [];
  }
  const out: { [key: string]: Json } = {};
  structInto(type, msg, out);
  return out;
}

function structInto(type: protobuf.Type, msg: Msg, out: { [key: string]: Json }): void {
  const infos = schema().fields.get(fullName(type));
  if (!infos) throw new ProtobufError('Malformed', `no JSON field table for ${fullName(type)}`);
  for (const info of infos) {
    const field = type.fields[info.proto] as protobuf.Field;
    if (info.inline) {
      structInto(messageType(field) as protobuf.Type, (msg[field.name] ?? {}) as Msg, out);
      continue;
    }
    const value = fieldToJson(field, info, msg);
    if (value !== undefined) out[info.json as string] = value;
  }
}

/** A field's JSON value, or undefined when Go would omit it. */
function fieldToJson(field: protobuf.Field, info: FieldInfo, msg: Msg): Json | undefined {
  const omit = info.omitempty === true || info.omitzero === true;
  const type = messageType(field);
  if (!present(field, msg)) {
    // Go zero value: nil pointer, slice or map; zero struct; zero scalar
    if (info.pointer || field.repeated || field.type === 'bytes') {
      return omit ? undefined : null;
    }
    if (type) return info.omitzero ? undefined : messageToJson(type, {});
    return info.omitempty ? undefined : zeroScalar(field);
  }
  const v = msg[field.name];
  const entry = mapEntry(field);
  if (entry) return mapToJson(entry, v as Msg[]);
  if (field.repeated) return (v as unknown[]).map((item) => element(field, item));
  if (info.pointer) return element(field, v);
  if (type) return info.omitzero && isZero(type, v as Msg) ? undefined : element(field, v);
  const value = element(field, v);
  if (info.omitempty && (value === '' || value === 0 || value === false)) return undefined;
  return value;
}
