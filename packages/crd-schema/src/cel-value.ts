// Decoded JSON -> CEL values, typed by the schema the way kube-apiserver's UnstructuredToVal does
// (k8s.io/apiserver/pkg/cel/common/values.go): integer -> int (BigInt in cel-js), number ->
// double, int-or-string -> int or string, string formats date-time/date -> timestamp and
// byte -> bytes; values without a schema (preserved unknown fields) are typed from the JSON.
import { isObject, type SchemaNode } from './node.ts';

function setField(out: Record<string, unknown>, k: string, v: unknown): void {
  // defineProperty so that a "__proto__" key stays an ordinary key.
  Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function dynamic(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(dynamic);
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) setField(out, k, dynamic(x));
    return out;
  }
  return v ?? null;
}

function fromString(v: string, format: string | undefined): unknown {
  if (format === 'date-time' || format === 'datetime' || format === 'date') {
    const t = Date.parse(v);
    return Number.isNaN(t) ? v : new Date(t);
  }
  if (format === 'byte') {
    try {
      return Uint8Array.from(atob(v), (c) => c.charCodeAt(0));
    } catch {
      return v; // not base64: OpenAPI validation reports it; CEL sees the string
    }
  }
  return v;
}

export function toCelValue(v: unknown, s: SchemaNode | undefined): unknown {
  if (v === null || v === undefined) return null;
  if (s === undefined) return dynamic(v);
  if (s.intOrString) return dynamic(v);
  switch (s.type) {
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : dynamic(v);
    case 'number':
      return typeof v === 'number' ? v : dynamic(v);
    case 'string':
      return typeof v === 'string' ? fromString(v, s.props.format) : dynamic(v);
    case 'array':
      return Array.isArray(v) ? v.map((x) => toCelValue(x, s.items)) : dynamic(v);
    case 'object': {
      if (!isObject(v)) return dynamic(v);
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        setField(out, k, toCelValue(x, s.properties?.get(k) ?? s.additionalProperties));
      }
      return out;
    }
    default:
      return dynamic(v);
  }
}
