import type { Random } from './random';
import {
  EDGE_NUMBERS,
  NON_ASCII_NAMES,
  PROTOTYPE_KEYS,
  UNICODE,
  resolve,
  sample,
  type Components,
  type Schema,
} from './values';

/** One HTTP request of the fuzz run. */
export interface FuzzCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** What was broken, for the report. */
  mutation: string;
}

export interface Operation {
  method: string;
  template: string;
  parameters: Schema[];
  bodySchema?: Schema;
  /** Media types the operation also takes as a file sent as it is (text/csv...). */
  textTypes: string[];
  admin: boolean;
  public: boolean;
}

export interface Credentials {
  apiKey: string;
  adminToken: string;
}

/** Every operation of the OpenAPI document. */
export function operationsOf(document: Schema): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths as Record<string, Schema>)) {
    for (const [method, operation] of Object.entries(item)) {
      const security = (operation.security ?? []) as Array<Record<string, unknown>>;
      operations.push({
        method: method.toUpperCase(),
        template,
        parameters: operation.parameters ?? [],
        bodySchema: operation.requestBody?.content?.['application/json']?.schema,
        textTypes: Object.keys(operation.requestBody?.content ?? {}).filter(
          (type) => type !== 'application/json',
        ),
        admin: security.some((s) => Object.keys(s).some((name) => /admin/i.test(name))),
        public: security.length === 0,
      });
    }
  }
  return operations;
}

const DEEP = '"__FUZZ_DEEP__"';
const PROTO = '__FUZZ_PROTO__';
const RAW_NUMBER = '"__FUZZ_NUMBER__"';

const PATH_VALUES = [
  'fuzz-1',
  'wh_missing',
  'req_missing',
  '__proto__',
  'constructor',
  '%00',
  '..%2F..%2Fetc',
  '%F0%9F%98%80',
  'a'.repeat(3000),
  '%E4%B8%80'.repeat(300),
  '%ZZ',
  ' ',
  '%20',
  'null',
  '-1',
  '1e308',
];

function slots(
  value: unknown,
  path: Array<string | number> = [],
  found: Array<Array<string | number>> = [],
): Array<Array<string | number>> {
  found.push(path);
  if (path.length > 6 || value === null || typeof value !== 'object') return found;
  for (const [key, child] of Object.entries(value))
    slots(child, [...path, Array.isArray(value) ? Number(key) : key], found);
  return found;
}

function setAt(root: unknown, path: Array<string | number>, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = replacement;
  return root;
}

function deepText(random: Random): string {
  const depth = random.pick([33, 40, 1000, 10_000, 100_000]);
  return random.chance(0.5)
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

type Mutator = (
  body: unknown,
  random: Random,
) => { body: unknown; text?: (json: string) => string };

/** Each breaks one thing of a plausible body. */
const MUTATORS: Record<string, Mutator> = {
  valid: (body) => ({ body }),
  'wrong-type': (body, random) => ({
    body: setAt(
      body,
      random.pick(slots(body)).slice(),
      random.pick([123, true, null, [], {}, 'text', -1, [1, 'a'], { x: 1 }]),
    ),
  }),
  'huge-string': (body, random) => {
    const size = random.pick([10_000, 100_000, 400_000, 900_000]);
    const text = random.pick(['a', '\u4e00', 'ab ', '😀', '!?']).repeat(size / 3);
    return { body: setAt(body, random.pick(slots(body)).slice(), text) };
  },
  'over-limit': (body) => ({
    body: setAt(body, [], { ...(body as object), filler: 'x'.repeat(1_100_000) }),
  }),
  deep: (body, random) => ({
    body: setAt(body, random.pick(slots(body)).slice(), '__FUZZ_DEEP__'),
    text: (json) => json.replace(DEEP, deepText(random)),
  }),
  unicode: (body, random) => ({
    body: setAt(body, random.pick(slots(body)).slice(), random.pick(UNICODE)),
  }),
  prototype: (body, random) => {
    const target = random.pick(slots(body).filter((path) => path.length < 3)).slice();
    const key = random.pick(PROTOTYPE_KEYS);
    const poison = { [PROTO]: { polluted: true, isAdmin: true, organization: 'other' } };
    const base =
      target.length === 0 && typeof body === 'object' && body !== null
        ? { ...(body as object), ...poison }
        : setAt(body, target, poison);
    return { body: base, text: (json) => json.split(`"${PROTO}"`).join(JSON.stringify(key)) };
  },
  'edge-number': (body, random) => {
    const raw = random.pick([
      '1e999',
      '-1e999',
      '-0',
      '1.0e+400',
      '123456789012345678901234567890',
      '0.0000000000000000000001',
      '1E2',
    ]);
    if (random.chance(0.5))
      return { body: setAt(body, random.pick(slots(body)).slice(), random.pick(EDGE_NUMBERS)) };
    return {
      body: setAt(body, random.pick(slots(body)).slice(), '__FUZZ_NUMBER__'),
      text: (json) => json.replace(RAW_NUMBER, raw),
    };
  },
  'many-fields': (body) => {
    const extra: Record<string, number> = {};
    for (let i = 0; i < 20_000; i++) extra[`f${i}`] = i;
    return { body: { ...(body as object), ...extra } };
  },
  'huge-array': (body, random) => ({
    body: setAt(
      body,
      random.pick(slots(body)).slice(),
      Array.from({ length: random.pick([1000, 20_000, 100_000]) }, (_, i) =>
        random.chance(0.5) ? i : { i },
      ),
    ),
  }),
  blank: (body, random) => ({
    body: setAt(
      body,
      random.pick(slots(body)).slice(),
      random.pick(['', ' ', '\t\n ', null, '\u3000']),
    ),
  }),
  'non-ascii-key': (body, random) => {
    // A field named in another alphabet, on a random object of the body (a document, an item...).
    const objects = slots(body).filter((path) => {
      const node = path.reduce<any>((n, key) => n?.[key], body);
      return node !== null && typeof node === 'object' && !Array.isArray(node);
    });
    const path = random.pick(objects);
    if (!path) return { body };
    const node = path.reduce<any>((n, key) => n[key], body);
    const keys = Object.keys(node);
    const name = random.pick(NON_ASCII_NAMES);
    const value = random.chance(0.5) ? random.pick(UNICODE) : random.pick(['x', 1, true, ['a']]);
    if (keys.length > 0 && random.chance(0.5)) {
      const renamed = random.pick(keys);
      node[name] = node[renamed];
      delete node[renamed];
    } else node[name] = value;
    return { body };
  },
  'import-file': (body, random) => {
    // The file of an import ({format, content}) in any alphabet: CSV headers, JSONL keys and values.
    if (typeof body !== 'object' || body === null || !('content' in body)) return { body };
    const format = random.pick(['csv', 'jsonl', 'json'] as const);
    const content = importFile(format, random);
    // A field map of headers in any alphabet, to fields that may or may not exist.
    const fieldMap = random.chance(0.3)
      ? { [random.pick(NON_ASCII_NAMES)]: random.pick([...FILE_FIELDS, 'id', 'nope']) }
      : undefined;
    return { body: { ...(body as object), format, content, ...(fieldMap ? { fieldMap } : {}) } };
  },
  'drop-field': (body, random) => {
    const path = random.pick(slots(body).filter((p) => p.length > 0));
    if (!path) return { body: {} };
    const parent = path.slice(0, -1).reduce<any>((node, key) => node[key], body);
    if (Array.isArray(parent)) parent.splice(Number(path[path.length - 1]), 1);
    else delete parent[path[path.length - 1]!];
    return { body };
  },
};

const RAW_BODIES = [
  '{',
  '{"a":1,}',
  '[]',
  '"text"',
  '123',
  'null',
  'true',
  '\uFEFF{}',
  '{"a":1}{"b":2}',
  '{"prompt":"a","prompt":{"x":1}}',
  'NaN',
  '{"a":NaN}',
  "{'a':1}",
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '\u0000',
  ' '.repeat(5000),
  '{"a":1e999}',
];
const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  'application/json; charset=utf-8',
  'multipart/form-data; boundary=x',
  'application/json;;;',
  'application/jsonx',
  '',
];

function authHeaders(
  operation: Operation,
  credentials: Credentials,
  random: Random,
): Record<string, string> {
  const roll = random.next();
  if (roll < 0.04) return {};
  if (roll < 0.08)
    return {
      authorization: random.pick([
        'X-API-Key',
        'Bearer',
        `X-API-Key sk_${'x'.repeat(40)}`,
        'X-API-Key  ',
        `Basic ${Buffer.from('a:b').toString('base64')}`,
        `X-API-Key ${credentials.apiKey}x`,
      ]),
    };
  if (operation.admin)
    return random.chance(0.8)
      ? { 'x-admin-token': credentials.adminToken }
      : { authorization: `Bearer ${credentials.adminToken}` };
  return { authorization: `X-API-Key ${credentials.apiKey}` };
}

function fillPath(template: string, random: Random): string {
  return template.replace(/\{[^}]+\}/g, () =>
    random.chance(0.6) ? `fuzz-${random.int(5)}` : random.pick(PATH_VALUES),
  );
}

/** A lone surrogate cannot be percent-encoded as UTF-8: it goes as U+FFFD, as a browser sends it. */
function encodeQuery(value: string): string {
  return encodeURIComponent((value as string & { toWellFormed(): string }).toWellFormed());
}

function queryOf(
  operation: Operation,
  components: Components,
  random: Random,
  context: { url: string },
): string {
  const pairs: string[] = [];
  for (const parameter of operation.parameters.filter((p) => p.in === 'query')) {
    if (!random.chance(0.6)) continue;
    const roll = random.next();
    let value: unknown = sample(parameter.schema, components, random, context);
    if (roll < 0.2) value = random.pick(UNICODE);
    else if (roll < 0.3) value = random.pick(EDGE_NUMBERS);
    else if (roll < 0.35) value = 'q'.repeat(random.pick([100, 5000]));
    pairs.push(`${encodeURIComponent(parameter.name)}=${encodeQuery(String(value))}`);
    if (random.chance(0.1)) pairs.push(`${encodeURIComponent(parameter.name)}=2`);
  }
  if (random.chance(0.05)) pairs.push(`${random.pick(PROTOTYPE_KEYS)}=1`);
  return pairs.length ? `?${pairs.join('&')}` : '';
}

const FILE_FIELDS = ['title', 'city', 'startsAt', 'text', 'price', 'tags', 'body', 'level'];

function fileValue(random: Random): string {
  return random.pick([
    () => random.pick(['Jazz Night', 'Berlin', '2031-05-01T20:00:00Z', '25', 'a|b', 'beginner']),
    () => random.pick(UNICODE),
    () => random.pick(NON_ASCII_NAMES),
    () => '"quoted, with comma"',
    () => '"line\nbreak"',
    () => '',
  ])();
}

/** A CSV, JSON Lines or JSON array file with some fields, header cells, keys or values in other alphabets. */
export function importFile(format: 'csv' | 'jsonl' | 'json', random: Random): string {
  const fields = Array.from({ length: 1 + random.int(4) }, () =>
    random.chance(0.5) ? random.pick(NON_ASCII_NAMES) : random.pick(FILE_FIELDS),
  );
  const rows = 1 + random.int(5);
  if (format === 'csv') {
    const header = (random.chance(0.9) ? ['id', ...fields] : fields).join(',');
    const lines = Array.from({ length: rows }, (_, i) =>
      [`f${i}`, ...fields.map(() => fileValue(random))].join(','),
    );
    return `${random.chance(0.1) ? '\uFEFF' : ''}${[header, ...lines].join(random.chance(0.2) ? '\r\n' : '\n')}`;
  }
  const documents = Array.from({ length: rows }, (_, i) => {
    const roll = random.next();
    if (roll < 0.1) return random.pick(['é', '{', '[1,2]', '"text"', '', '{"id":']);
    const document: Record<string, unknown> = { id: `f${i}` };
    for (const field of fields) document[field] = fileValue(random);
    return JSON.stringify(document);
  });
  return format === 'json' ? `[${documents.join(',\n')}]` : documents.join('\n');
}

/** One generated request for the operation: a plausible body with one thing broken (or none). */
export function generateCase(
  operation: Operation,
  components: Components,
  credentials: Credentials,
  random: Random,
  context: { url: string },
): FuzzCase {
  const headers = authHeaders(operation, credentials, random);
  let method = operation.method;
  if (random.chance(0.02)) method = random.pick(['PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']);
  const path =
    fillPath(operation.template, random) + queryOf(operation, components, random, context);
  if (!['POST', 'PUT', 'PATCH'].includes(operation.method))
    return {
      method,
      path,
      headers,
      mutation: method === operation.method ? 'path-and-query' : 'method',
    };
  if (operation.textTypes.length > 0 && random.chance(0.3)) {
    // The file as it is, in its own media type (text/csv, application/x-ndjson...).
    const type = random.pick(operation.textTypes);
    headers['content-type'] = type;
    return {
      method,
      path,
      headers,
      body: importFile(type === 'text/csv' ? 'csv' : 'jsonl', random),
      mutation: 'text-file',
    };
  }
  headers['content-type'] = 'application/json';
  if (random.chance(0.08))
    return { method, path, headers, body: random.pick(RAW_BODIES), mutation: 'raw-json' };
  if (random.chance(0.04)) {
    headers['content-type'] = random.pick(CONTENT_TYPES);
    return { method, path, headers, body: '{}', mutation: 'content-type' };
  }
  const schema = resolve(operation.bodySchema, components);
  const name = random.pick(Object.keys(MUTATORS));
  const mutated = MUTATORS[name]!(sample(schema, components, random, context), random);
  const json = JSON.stringify(mutated.body) ?? 'null';
  if (random.chance(0.2)) headers['idempotency-key'] = `fuzz-${random.int(50)}`;
  return { method, path, headers, body: mutated.text ? mutated.text(json) : json, mutation: name };
}
