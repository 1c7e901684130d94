import type { Random } from './random';

/** A JSON Schema node of the OpenAPI document. */
export type Schema = Record<string, any>;

export interface Components {
  schemas: Record<string, Schema>;
}

export function resolve(schema: Schema | undefined, components: Components): Schema {
  let node = schema ?? {};
  for (let hops = 0; typeof node.$ref === 'string' && hops < 10; hops++) {
    node = components.schemas[node.$ref.split('/').pop()!] ?? {};
  }
  return node;
}

/** Strings a parser, a store or a log has to survive. */
export const UNICODE = [
  '😀👩‍👩‍👧‍👦🏳️‍🌈',
  'مرحبا بالعالم',
  '\u202Eevil\u202C',
  'zero\u200Bwidth\uFEFF',
  'e\u0301\u0301\u0301\u0301\u0301',
  'nul\u0000byte',
  '\uD800 lone surrogate',
  '𝕳𝖊𝖑𝖑𝖔',
  '\u4e00'.repeat(200),
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  "'; DROP TABLE items; --",
  '../../../../etc/passwd',
  '{"$gt": ""}',
  '\r\nX-Injected: 1',
];

/**
 * Field names and header cells in other alphabets: user text that once reached gRPC metadata
 * (which takes printable ASCII only) and ended the process (issue 24).
 */
export const NON_ASCII_NAMES = [
  'Straße',
  'métadata',
  'prénom',
  '名前',
  'ключ',
  'عنوان',
  '😀key',
  'naïve field',
  'Ünïcödé',
  'e\u0301tat',
  'ıİ',
  '\u200Bid',
];

export const EDGE_NUMBERS = [
  0,
  -0,
  -1,
  1,
  1.5,
  -1.5,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  1e308,
  -1e308,
  5e-324,
  1e21,
  0.1 + 0.2,
];

export const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__defineGetter__',
];

/** A plausible value of the schema: the fuzz starts valid-looking and breaks one thing at a time. */
export function sample(
  schemaRef: Schema | undefined,
  components: Components,
  random: Random,
  context: { url: string },
  depth = 0,
): unknown {
  const schema = resolve(schemaRef, components);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return random.pick(schema.enum);
  if (schema.const !== undefined) return schema.const;
  // if/then/else (an import: a JSON array or the wrapped file): either branch.
  if (schema.then && schema.else)
    return sample(
      random.pick([schema.then, schema.else] as Schema[]),
      components,
      random,
      context,
      depth,
    );
  for (const combinator of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(schema[combinator]))
      return sample(
        random.pick(schema[combinator] as Schema[]),
        components,
        random,
        context,
        depth,
      );
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object':
      return sampleObject(schema, components, random, context, depth);
    case 'array': {
      const count = Math.max(schema.minItems ?? 0, random.int(3));
      return Array.from({ length: Math.min(count, 5) }, () =>
        sample(schema.items, components, random, context, depth + 1),
      );
    }
    case 'integer':
      return Math.max(schema.minimum ?? 1, Math.min(schema.maximum ?? 10, 1 + random.int(10)));
    case 'number':
      return Math.max(schema.minimum ?? 0.1, Math.min(schema.maximum ?? 1, random.next()));
    case 'boolean':
      return random.chance(0.5);
    case 'string':
      return sampleString(schema, random, context);
    default:
      return depth > 2 ? 'x' : { key: 'value' };
  }
}

function sampleObject(
  schema: Schema,
  components: Components,
  random: Random,
  context: { url: string },
  depth: number,
): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  const required = new Set<string>(schema.required ?? []);
  for (const [name, property] of Object.entries(
    (schema.properties ?? {}) as Record<string, Schema>,
  )) {
    // stream: true answers Server-Sent Events; half the time is plenty.
    if (required.has(name) || (depth < 4 && random.chance(0.5)))
      value[name] = sample(property, components, random, context, depth + 1);
  }
  return value;
}

function sampleString(schema: Schema, random: Random, context: { url: string }): string {
  if (schema.format === 'uri' || /url/i.test(String(schema.description ?? ''))) return context.url;
  if (schema.format === 'date-time') return new Date().toISOString();
  if (typeof schema.pattern === 'string' && schema.pattern.startsWith('^[0-9]{4}-'))
    return new Date().toISOString().slice(0, 7);
  if (typeof schema.pattern === 'string' && schema.pattern.includes('[a-z]{2,3}'))
    return random.pick(['en', 'fr', 'de', 'es']);
  if (typeof schema.pattern === 'string' && schema.pattern.startsWith('^[a-z0-9]'))
    return `fuzz-${random.int(1000)}`;
  const words = ['trail', 'shoe', 'launch', 'note', 'quick', 'refund', 'order', 'river'];
  const text = Array.from({ length: 1 + random.int(6) }, () => random.pick(words)).join(' ');
  return schema.maxLength ? text.slice(0, schema.maxLength) : text;
}
