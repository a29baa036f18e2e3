// The words of Go's encoding/json for the body errors kube-apiserver reports (`couldn't get
// version/kind; json parse error: …`), followed by its summary of the body (summarizeData: the
// first 30 bytes, as text when it looks like JSON, else hex). Pure.
import { summarize } from '../protobuf/errors.ts';

const TYPE_META =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

function goType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value; // string, number
}

/** Go's quoteChar: printable ASCII as itself, anything else as a \uXXXX escape. */
function quoteChar(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code >= 0x20 && code < 0x7f) return `'${ch}'`;
  return `'\\u${code.toString(16).padStart(4, '0')}'`;
}

/** What Go's decoder says about text JSON.parse refused. */
export function goSyntaxError(text: string, err: unknown): string {
  const v8 = err instanceof Error ? err.message : String(err);
  const at = /at position (\d+)/.exec(v8);
  if (
    /end of JSON input/.test(v8) ||
    (at && Number(at[1]) >= text.length) ||
    /Unterminated/.test(v8)
  )
    return 'unexpected end of JSON input';
  const first = text.trimStart()[0];
  if (first !== undefined && !/[[{"tfn\d-]/.test(first))
    return `invalid character ${quoteChar(first)} looking for beginning of value`;
  return v8;
}

/** What Go's decoder says about a well-formed document that is not an object. */
export function goNotAnObject(value: unknown): string {
  return `json: cannot unmarshal ${goType(value)} into Go value of type ${TYPE_META}`;
}

/** `the object provided is unrecognized (must be of type <Kind>): … (<summary>)`. */
export function unrecognizedObject(kindHint: string, why: string, body: Uint8Array): string {
  return `the object provided is unrecognized (must be of type ${kindHint}): couldn't get version/kind; json parse error: ${why} (${summarize(body)})`;
}
