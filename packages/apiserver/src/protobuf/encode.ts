// JSON → protobuf message object, as gogo-protobuf would marshal the Go struct that encoding/json
// unmarshals from the JSON: plain (non-pointer) fields are always written, zero or not; pointers,
// slices, maps and []byte only when set; map keys sorted; the meta/v1, intstr, resource and
// apiextensions types mapped by hand (special kinds in schema.ts). The result goes to
// protobufjs' Type.encode.
import protobuf from 'protobufjs';
import { ProtobufError } from './errors.ts';
import { parseDuration, parseTime } from './go-format.ts';
import { fullName, schema } from './schema.ts';

type Msg = Record<string, unknown>;

function invalid(path: string, message: string): ProtobufError {
  return new ProtobufError('Invalid', `${path}: ${message}`);
}

function isObject(v: unknown): v is Msg {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function messageType(field: protobuf.Field): protobuf.Type | undefined {
  return field.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined;
}

function scalar(field: protobuf.Field, v: unknown, path: string): unknown {
  switch (field.type) {
    case 'string':
      if (v === null || v === undefined) return '';
      if (typeof v !== 'string') throw invalid(path, `expected a string, got ${typeof v}`);
      return v;
    case 'bool':
      if (v === null || v === undefined) return false;
      if (typeof v !== 'boolean') throw invalid(path, `expected a boolean, got ${typeof v}`);
      return v;
    case 'bytes':
      if (typeof v !== 'string') throw invalid(path, `expected a base64 string, got ${typeof v}`);
      return Buffer.from(v, 'base64');
    default:
      if (v === null || v === undefined) return 0;
      if (typeof v !== 'number') throw invalid(path, `expected a number, got ${typeof v}`);
      return v;
  }
}

function element(field: protobuf.Field, v: unknown, path: string): unknown {
  const type = messageType(field);
  return type ? jsonToMessage(type, v, path) : scalar(field, v, path);
}

function special(kind: string, type: protobuf.Type, v: unknown, path: string): Msg {
  const sub = (name: string, value: unknown): unknown =>
    element(type.fields[name] as protobuf.Field, value, path);
  switch (kind) {
    case 'time':
    case 'microTime': {
      if (v === null || v === undefined) return {}; // zero time marshals to no bytes
      const t = typeof v === 'string' ? parseTime(v) : undefined;
      if (!t) throw invalid(path, `expected an RFC 3339 time, got ${JSON.stringify(v)}`);
      const micros = Math.trunc(t.nanos / 1000) * 1000;
      return { seconds: t.seconds, nanos: kind === 'microTime' ? micros : 0 };
    }
    case 'duration': {
      const ns = typeof v === 'string' ? parseDuration(v) : v == null ? 0n : undefined;
      if (ns === undefined) throw invalid(path, `expected a duration, got ${JSON.stringify(v)}`);
      return { duration: Number.isSafeInteger(Number(ns)) ? Number(ns) : ns.toString() };
    }
    case 'quantity':
      if (typeof v === 'number') return { string: String(v) };
      if (v === null || v === undefined) return { string: '0' };
      if (typeof v !== 'string') throw invalid(path, `expected a quantity, got ${typeof v}`);
      return { string: v };
    case 'intOrString':
      if (typeof v === 'string') return { type: 1, intVal: 0, strVal: v };
      if (typeof v === 'number' || v === null || v === undefined) {
        return { type: 0, intVal: v ?? 0, strVal: '' };
      }
      throw invalid(path, `expected an integer or a string, got ${typeof v}`);
    case 'rawJSON':
      if (v === null || v === undefined) return {};
      return { [type.fields.raw ? 'raw' : 'Raw']: Buffer.from(JSON.stringify(v), 'utf8') };
    case 'schemaOrArray':
      if (Array.isArray(v)) return { jSONSchemas: sub('jSONSchemas', v) };
      return v === null || v === undefined ? {} : { schema: sub('schema', v) };
    case 'schemaOrBool':
      if (typeof v === 'boolean' || v === null || v === undefined) return { allows: v === true };
      return { allows: true, schema: sub('schema', v) };
    case 'schemaOrStringArray':
      if (Array.isArray(v)) return { property: sub('property', v) };
      return v === null || v === undefined ? {} : { schema: sub('schema', v) };
  }
  throw invalid(path, `no protobuf mapping for ${kind}`);
}

/** The protobufjs message object for the JSON value `v` of message `type`. */
export function jsonToMessage(type: protobuf.Type, v: unknown, path: string): Msg {
  const name = fullName(type);
  const s = schema();
  const kind = s.special.get(name);
  if (kind) return special(kind, type, v, path);
  if (s.slices.has(name)) {
    if (v === null || v === undefined) return {};
    if (!Array.isArray(v)) throw invalid(path, 'expected an array');
    const items = type.fields.items as protobuf.Field;
    return { items: v.map((item, i) => element(items, item, `${path}[${i}]`)) };
  }
  if (v !== null && v !== undefined && !isObject(v)) throw invalid(path, 'expected an object');
  const obj: Msg = v ?? {};
  const out: Msg = {};
  for (const info of s.fields.get(name) ?? []) {
    const field = type.fields[info.proto] as protobuf.Field;
    if (info.inline) {
      out[field.name] = jsonToMessage(messageType(field) as protobuf.Type, obj, path);
      continue;
    }
    const key = info.json as string;
    const at = `${path}.${key}`;
    const value = obj[key];
    const entry = messageType(field);
    if (entry && s.mapEntries.has(fullName(entry))) {
      if (value === null || value === undefined) continue;
      if (!isObject(value)) throw invalid(at, 'expected an object');
      const valueField = entry.fields.value as protobuf.Field;
      // gogo writes map entries in bytewise key order, key and value always
      const keys = Object.keys(value).sort((a, b) =>
        Buffer.compare(Buffer.from(a), Buffer.from(b)),
      );
      if (keys.length > 0) {
        out[field.name] = keys.map((k) => ({
          key: k,
          value: element(valueField, value[k], `${at}[${JSON.stringify(k)}]`),
        }));
      }
    } else if (field.repeated) {
      if (value === null || value === undefined) continue;
      if (!Array.isArray(value)) throw invalid(at, 'expected an array');
      if (value.length > 0)
        out[field.name] = value.map((item, i) => element(field, item, `${at}[${i}]`));
    } else if (info.pointer || field.type === 'bytes') {
      if (value !== null && value !== undefined) out[field.name] = element(field, value, at);
    } else {
      out[field.name] = element(field, value, at);
    }
  }
  return out;
}
