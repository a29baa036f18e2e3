// Encodes a Swagger 2.0 document (v2-document.ts) as the protobuf message gnostic's
// openapi_v2.Document, which client-go decodes from /openapi/v2 (semantics doc §1.6). Field
// numbers are those of github.com/google/gnostic-models openapiv2/OpenAPIv2.proto. Like gnostic's
// own compiler, map-valued fields become repeated Named* pairs and any free-form value (vendor
// extensions, defaults, enums, examples) an `Any` whose `yaml` holds the value; JSON is valid YAML.
import { isObject, type Json, type JsonObject } from './definitions.ts';
import { ProtoWriter } from './protobuf-writer.ts';

function str(v: Json | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function num(v: Json | undefined): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

function bool(v: Json | undefined): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

function strings(v: Json | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function entries(v: Json | undefined): [string, Json][] {
  return isObject(v) ? Object.entries(v) : [];
}

/** Any { yaml = 2 } */
function writeAny(w: ProtoWriter, value: Json): void {
  w.string(2, JSON.stringify(value));
}

/** repeated NamedAny vendor_extension: every `x-` key of an object. */
function writeExtensions(w: ProtoWriter, field: number, node: JsonObject): void {
  for (const [key, value] of Object.entries(node)) {
    if (!key.startsWith('x-')) continue;
    w.message(field, (n) => n.string(1, key).message(2, (a) => writeAny(a, value)));
  }
}

export function writeSchema(w: ProtoWriter, s: JsonObject): void {
  w.string(1, str(s['$ref']))
    .string(2, str(s['format']))
    .string(3, str(s['title']))
    .string(4, str(s['description']));
  if (s['default'] !== undefined) w.message(5, (a) => writeAny(a, s['default'] as Json));
  w.double(6, num(s['multipleOf']))
    .double(7, num(s['maximum']))
    .bool(8, bool(s['exclusiveMaximum']))
    .double(9, num(s['minimum']))
    .bool(10, bool(s['exclusiveMinimum']))
    .int64(11, num(s['maxLength']))
    .int64(12, num(s['minLength']))
    .string(13, str(s['pattern']))
    .int64(14, num(s['maxItems']))
    .int64(15, num(s['minItems']))
    .bool(16, bool(s['uniqueItems']))
    .int64(17, num(s['maxProperties']))
    .int64(18, num(s['minProperties']))
    .strings(19, strings(s['required']));
  for (const e of Array.isArray(s['enum']) ? s['enum'] : []) w.message(20, (a) => writeAny(a, e));
  const additional = s['additionalProperties'];
  if (typeof additional === 'boolean') w.message(21, (a) => a.oneofBool(2, additional));
  else if (isObject(additional))
    w.message(21, (a) => a.message(1, (x) => writeSchema(x, additional)));
  const type = s['type'];
  if (type !== undefined)
    w.message(22, (t) => t.strings(1, typeof type === 'string' ? [type] : strings(type)));
  const items = s['items'];
  if (isObject(items)) w.message(23, (i) => i.message(1, (x) => writeSchema(x, items)));
  for (const sub of Array.isArray(s['allOf']) ? s['allOf'] : [])
    if (isObject(sub)) w.message(24, (x) => writeSchema(x, sub));
  const properties = s['properties'];
  if (isObject(properties)) {
    w.message(25, (p) => {
      for (const [name, value] of Object.entries(properties)) {
        if (isObject(value))
          p.message(1, (n) => n.string(1, name).message(2, (x) => writeSchema(x, value)));
      }
    });
  }
  w.string(26, str(s['discriminator'])).bool(27, bool(s['readOnly']));
  const docs = s['externalDocs'];
  if (isObject(docs))
    w.message(29, (d) => d.string(1, str(docs['description'])).string(2, str(docs['url'])));
  if (s['example'] !== undefined) w.message(30, (a) => writeAny(a, s['example'] as Json));
  writeExtensions(w, 31, s);
}

/** Parameter, or a JSON reference to one: ParametersItem { parameter = 1 | json_reference = 2 }. */
function writeParameter(w: ProtoWriter, p: JsonObject): void {
  if (typeof p['$ref'] === 'string') {
    w.message(2, (r) => r.string(1, str(p['$ref'])));
    return;
  }
  w.message(1, (param) => {
    if (p['in'] === 'body') {
      // BodyParameter { description = 1, name = 2, in = 3, required = 4, schema = 5 }
      param.message(1, (b) => {
        b.string(1, str(p['description']))
          .string(2, str(p['name']))
          .string(3, 'body')
          .bool(4, bool(p['required']));
        const schema = p['schema'];
        if (isObject(schema)) b.message(5, (x) => writeSchema(x, schema));
        writeExtensions(b, 6, p);
      });
      return;
    }
    // NonBodyParameter { query_parameter_sub_schema = 3 | path_parameter_sub_schema = 4 }
    param.message(2, (nb) => {
      if (p['in'] === 'path') {
        nb.message(4, (q) =>
          q
            .bool(1, bool(p['required']))
            .string(2, 'path')
            .string(3, str(p['description']))
            .string(4, str(p['name']))
            .string(5, str(p['type']))
            .bool(19, bool(p['uniqueItems'])),
        );
      } else {
        nb.message(3, (q) =>
          q
            .bool(1, bool(p['required']))
            .string(2, str(p['in']) ?? 'query')
            .string(3, str(p['description']))
            .string(4, str(p['name']))
            .string(6, str(p['type']))
            .bool(20, bool(p['uniqueItems'])),
        );
      }
    });
  });
}

function writeParameters(w: ProtoWriter, field: number, params: Json | undefined): void {
  for (const p of Array.isArray(params) ? params : [])
    if (isObject(p)) w.message(field, (x) => writeParameter(x, p));
}

function writeOperation(w: ProtoWriter, op: JsonObject): void {
  w.strings(1, strings(op['tags']))
    .string(2, str(op['summary']))
    .string(3, str(op['description']))
    .string(5, str(op['operationId']))
    .strings(6, strings(op['produces']))
    .strings(7, strings(op['consumes']));
  writeParameters(w, 8, op['parameters']);
  // Responses { response_code = 1: NamedResponseValue { name, value: ResponseValue { response = 1 } } }
  w.message(9, (rs) => {
    for (const [code, response] of entries(op['responses'])) {
      if (!isObject(response)) continue;
      rs.message(1, (named) =>
        named.string(1, code).message(2, (value) =>
          value.message(1, (r) => {
            r.string(1, str(response['description']));
            const schema = response['schema'];
            if (isObject(schema))
              r.message(2, (item) => item.message(1, (x) => writeSchema(x, schema)));
          }),
        ),
      );
    }
  });
  w.strings(10, strings(op['schemes'])).bool(11, bool(op['deprecated']));
  writeExtensions(w, 13, op);
}

const METHOD_FIELDS: Record<string, number> = {
  get: 2,
  put: 3,
  post: 4,
  delete: 5,
  options: 6,
  head: 7,
  patch: 8,
};

function writePathItem(w: ProtoWriter, item: JsonObject): void {
  for (const [method, field] of Object.entries(METHOD_FIELDS)) {
    const op = item[method];
    if (isObject(op)) w.message(field, (o) => writeOperation(o, op));
  }
  writeParameters(w, 9, item['parameters']);
  writeExtensions(w, 10, item);
}

/** gnostic openapi_v2.Document for a Swagger 2.0 document. */
export function encodeOpenApiV2(doc: JsonObject): Uint8Array {
  const w = new ProtoWriter();
  w.string(1, str(doc['swagger']));
  const info = doc['info'];
  if (isObject(info))
    w.message(2, (i) =>
      i
        .string(1, str(info['title']))
        .string(2, str(info['version']))
        .string(3, str(info['description'])),
    );
  w.string(3, str(doc['host'])).string(4, str(doc['basePath']));
  w.strings(5, strings(doc['schemes']))
    .strings(6, strings(doc['consumes']))
    .strings(7, strings(doc['produces']));
  w.message(8, (paths) => {
    for (const [path, item] of entries(doc['paths'])) {
      if (isObject(item))
        paths.message(2, (n) => n.string(1, path).message(2, (x) => writePathItem(x, item)));
    }
  });
  w.message(9, (defs) => {
    for (const [name, schema] of entries(doc['definitions'])) {
      if (isObject(schema))
        defs.message(1, (n) => n.string(1, name).message(2, (x) => writeSchema(x, schema)));
    }
  });
  // security = 12: SecurityRequirement { additional_properties = 1: NamedStringArray { name, value: StringArray } }
  for (const requirement of Array.isArray(doc['security']) ? doc['security'] : []) {
    w.message(12, (sr) => {
      for (const [name, scopes] of entries(requirement))
        sr.message(1, (n) => n.string(1, name).message(2, (a) => a.strings(1, strings(scopes))));
    });
  }
  // security_definitions = 13: api_key_security = 2: ApiKeySecurity { type, name, in, description }
  const security = doc['securityDefinitions'];
  if (isObject(security)) {
    w.message(13, (sd) => {
      for (const [name, def] of Object.entries(security)) {
        if (!isObject(def) || def['type'] !== 'apiKey') continue;
        sd.message(1, (n) =>
          n
            .string(1, name)
            .message(2, (item) =>
              item.message(2, (k) =>
                k
                  .string(1, 'apiKey')
                  .string(2, str(def['name']))
                  .string(3, str(def['in']))
                  .string(4, str(def['description'])),
              ),
            ),
        );
      }
    });
  }
  writeExtensions(w, 16, doc);
  return w.finish();
}
