import { setImmediate as nextTurn } from 'node:timers/promises';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { AppError, type ErrorDetail } from '@switchyard/shared';
import { ITEMS_PER_SLICE } from '../middleware/json-text';
import { NON_BLANK, PATTERN_WORDS, type JsonSchema } from './common';

function createAjv(coerceTypes: boolean, allErrors = true): Ajv {
  // verbose: errors carry parentSchema, from which messages describe the expected value.
  const ajv = new Ajv({
    allErrors,
    useDefaults: true,
    verbose: true,
    coerceTypes,
    strictTypes: false,
  });
  addFormats(ajv);
  // An annotation only: the words errors use instead of a pattern.
  ajv.addKeyword({ keyword: PATTERN_WORDS, schemaType: 'string' });
  return ajv;
}

const bodyAjv = createAjv(false);
/** Stops at the first error: for bodies too large to list every problem of. */
const firstErrorAjv = createAjv(false, false);
/**
 * A body with more values than this that is invalid lists its first problem only: collecting every
 * error of a huge body (20,000 bad items) took the event loop for hundreds of milliseconds.
 */
export const MAX_VALUES_FOR_ALL_ERRORS = 5000;
/** Query strings are text: "?limit=5" must count as the integer 5. */
const queryAjv = createAjv(true);
const compiled = new Map<Ajv, WeakMap<JsonSchema, ValidateFunction>>();

function compile(ajv: Ajv, schema: JsonSchema): ValidateFunction {
  let cache = compiled.get(ajv);
  if (!cache) compiled.set(ajv, (cache = new WeakMap()));
  let validate = cache.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    cache.set(schema, validate);
  }
  return validate;
}

/** "/messages/0/role" -> "messages[0].role"; the root is "body". */
function fieldLabel(pointer: string): string {
  if (pointer === '') return 'body';
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce(
      (label, part) =>
        /^\d+$/.test(part) ? `${label}[${part}]` : label ? `${label}.${part}` : part,
      '',
    );
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

const TYPE_NOUNS: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function describeNumber(schema: JsonSchema): string[] {
  const bounds: string[] = [];
  if (schema.minimum !== undefined) bounds.push(`>= ${String(schema.minimum)}`);
  if (schema.maximum !== undefined) bounds.push(`<= ${String(schema.maximum)}`);
  return bounds.length ? [bounds.join(' and ')] : [];
}

function describeString(schema: JsonSchema): string[] {
  const parts: string[] = [];
  const nonBlank = schema.pattern === NON_BLANK.pattern;
  if (schema.minLength === 1) parts.push(nonBlank ? 'non-blank' : 'non-empty');
  else if (schema.minLength !== undefined)
    parts.push(`of at least ${String(schema.minLength)} characters`);
  if (schema.maxLength !== undefined)
    parts.push(`of at most ${String(schema.maxLength)} characters`);
  if (schema.format) parts.push(`in ${String(schema.format)} format`);
  const words = schema[PATTERN_WORDS];
  if (schema.pattern && !nonBlank)
    parts.push(words ? `of ${String(words)}` : `matching ${String(schema.pattern)}`);
  return parts;
}

function describeArray(schema: JsonSchema): string[] {
  const parts: string[] = [];
  if (schema.minItems !== undefined) parts.push(`with at least ${String(schema.minItems)} items`);
  if (schema.maxItems !== undefined) parts.push(`with at most ${String(schema.maxItems)} items`);
  if (schema.uniqueItems) parts.push('without duplicates');
  return parts;
}

/** "an integer >= 1 and <= 32768", "one of: a, b", "a string in uri format"... */
export function describeSchema(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return `one of: ${schema.enum.join(', ')}`;
  if (schema.const !== undefined) return `exactly ${JSON.stringify(schema.const)}`;
  const type = typeof schema.type === 'string' ? schema.type : undefined;
  if (!type) return describeNumber(schema)[0] ?? 'valid'; // e.g. bounds added by an if/then branch
  const noun = TYPE_NOUNS[type] ?? type;
  const parts =
    type === 'integer' || type === 'number'
      ? describeNumber(schema)
      : type === 'string'
        ? describeString(schema)
        : type === 'array'
          ? describeArray(schema)
          : [];
  if (type === 'string' && (parts[0] === 'non-empty' || parts[0] === 'non-blank'))
    return [`a ${parts[0]} string`, ...parts.slice(1)].join(' ');
  return [noun, ...parts].join(' ');
}

/** The offending field of an ajv error and why (cheap: computed for every error of a large body). */
function detailOf(error: ErrorObject): ErrorDetail | undefined {
  if (error.keyword === 'if') return undefined; // the failing "then" keyword is reported on its own
  if (error.keyword === 'required')
    return {
      field: `${error.instancePath}/${escapePointer(String(error.params.missingProperty))}`,
      reason: 'is required',
    };
  if (error.keyword === 'additionalProperties') {
    return {
      field: `${error.instancePath}/${escapePointer(String(error.params.additionalProperty))}`,
      reason: 'is not an allowed field',
    };
  }
  if (error.keyword === 'minProperties')
    return { field: error.instancePath, reason: error.message ?? 'too few properties' };
  const schema = (error.parentSchema ?? {}) as JsonSchema;
  if (error.keyword === 'pattern' && schema.pattern === NON_BLANK.pattern)
    return { field: error.instancePath, reason: 'must not be blank' };
  if (error.keyword === 'pattern' && schema[PATTERN_WORDS])
    return { field: error.instancePath, reason: `must be ${String(schema[PATTERN_WORDS])}` };
  return { field: error.instancePath, reason: error.message ?? 'is invalid' };
}

/** The sentence for the message (only the first problem's is built). */
function messageOf(error: ErrorObject, detail: ErrorDetail): string {
  const label = fieldLabel(detail.field ?? '');
  if (error.keyword === 'required') return `${label} is required`;
  if (error.keyword === 'additionalProperties') return `${label} is not an allowed field`;
  if (error.keyword === 'minProperties') return `${label} must not be empty`;
  return `${label} must be ${describeSchema((error.parentSchema ?? {}) as JsonSchema)}`;
}

/**
 * Turns ajv errors into one invalid_request: each offending field once in details (its first
 * problem), the first field's problem in the message.
 */
export function toValidationError(errors: ErrorObject[]): AppError {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  let first: ErrorObject | undefined;
  for (const error of errors) {
    const detail = detailOf(error);
    if (!detail || seen.has(detail.field!)) continue;
    seen.add(detail.field!);
    details.push(detail);
    first ??= error;
  }
  if (!first) return new AppError('invalid_request', 'request is invalid');
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  return new AppError('invalid_request', `${messageOf(first, details[0]!)}${more}`, details);
}

/** Validates in place (ajv fills defaults) and returns the value, or throws invalid_request. */
export function validateBody<T>(schema: JsonSchema, body: unknown, values?: number): T {
  if (
    values === undefined
      ? hasMoreValuesThan(body, MAX_VALUES_FOR_ALL_ERRORS)
      : values > MAX_VALUES_FOR_ALL_ERRORS
  ) {
    const validateFirst = compile(firstErrorAjv, schema);
    if (validateFirst(body)) return body as T;
    throw firstProblem(validateFirst.errors ?? []);
  }
  const validate = compile(bodyAjv, schema);
  if (!validate(body)) throw toValidationError(validate.errors ?? []);
  return body as T;
}

function firstProblem(errors: ErrorObject[]): AppError {
  const error = toValidationError(errors);
  return new AppError(
    'invalid_request',
    `${error.message} (the body has over ${MAX_VALUES_FOR_ALL_ERRORS} values: only its first problem is listed)`,
    error.details,
  );
}

/** An object schema split in two: itself with the items of its top-level arrays left out, and those items' schemas. */
interface SlicedSchema {
  envelope: JsonSchema;
  arrays: Array<{ field: string; items: JsonSchema }>;
}

const slicedSchemas = new WeakMap<JsonSchema, SlicedSchema | null>();

/** The top-level arrays of an object schema, whose items are validated (and parsed) in slices. */
export function batchFieldsOf(schema: JsonSchema): string[] {
  return sliceSchema(schema)?.arrays.map((array) => array.field) ?? [];
}

function sliceSchema(schema: JsonSchema): SlicedSchema | null {
  let split = slicedSchemas.get(schema);
  if (split !== undefined) return split;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const arrays = Object.entries(properties)
    .filter(
      ([, property]) =>
        property.type === 'array' &&
        typeof property.items === 'object' &&
        !Array.isArray(property.items),
    )
    .map(([field, property]) => ({ field, items: property.items as JsonSchema }));
  const envelopeProperties = { ...properties };
  for (const { field } of arrays) {
    const { items: _items, ...rest } = properties[field]!;
    envelopeProperties[field] = rest;
  }
  split =
    arrays.length === 0
      ? null
      : { envelope: { ...schema, properties: envelopeProperties }, arrays };
  slicedSchemas.set(schema, split);
  return split;
}

/**
 * validateBody for bodies that may be large batches: a body of over MAX_VALUES_FOR_ALL_ERRORS
 * values is checked without its top-level arrays' items first, then those items ITEMS_PER_SLICE
 * at a time with a turn of the event loop between slices, so a legal 1 MB batch never holds the
 * gateway's event loop for long. Same answers as validateBody: the first problem of a large body.
 * `values`: the body's value count when known (read from its text), which spares a walk.
 */
export async function validateBodyInSlices<T>(
  schema: JsonSchema,
  body: unknown,
  values?: number,
): Promise<T> {
  const split = sliceSchema(schema);
  const large =
    values === undefined
      ? hasMoreValuesThan(body, MAX_VALUES_FOR_ALL_ERRORS)
      : values > MAX_VALUES_FOR_ALL_ERRORS;
  if (!split || !large) return validateBody<T>(schema, body, values);
  const validateEnvelope = compile(firstErrorAjv, split.envelope);
  if (!validateEnvelope(body)) throw firstProblem(validateEnvelope.errors ?? []);
  for (const { field, items } of split.arrays) {
    const batch = (body as Record<string, unknown>)[field];
    if (!Array.isArray(batch)) continue; // absent and optional (the envelope checked the rest)
    const validateItem = compile(firstErrorAjv, items);
    for (let index = 0; index < batch.length; index++) {
      if (index > 0 && index % ITEMS_PER_SLICE === 0) await nextTurn();
      if (validateItem(batch[index])) continue;
      const at = `/${escapePointer(field)}/${index}`;
      throw firstProblem(
        (validateItem.errors ?? []).map((error) => ({
          ...error,
          instancePath: at + error.instancePath,
        })),
      );
    }
  }
  return body as T;
}

/**
 * Counts the values of a JSON body, stopping as soon as there are more than limit: counted as they
 * are found, so an object of 20,000 fields is not enumerated whole.
 */
function hasMoreValuesThan(body: unknown, limit: number): boolean {
  const pending: unknown[] = [body];
  let count = 1;
  while (pending.length > 0) {
    const value = pending.pop();
    if (value === null || typeof value !== 'object') continue;
    for (const key in value) {
      if (++count > limit) return true;
      pending.push((value as Record<string, unknown>)[key]);
    }
  }
  return count > limit;
}

export function validateQuery<T>(schema: JsonSchema, query: Record<string, unknown>): T {
  const validate = compile(queryAjv, schema);
  const copy = { ...query };
  if (!validate(copy)) throw toValidationError(validate.errors ?? []);
  return copy as T;
}

/** Compiles every validator of a request body schema ahead of its first request, not on the event loop of that request. */
export function precompileBodySchema(schema: JsonSchema): void {
  compile(bodyAjv, schema);
  compile(firstErrorAjv, schema);
  const split = sliceSchema(schema);
  if (!split) return;
  compile(firstErrorAjv, split.envelope);
  for (const { items } of split.arrays) compile(firstErrorAjv, items);
}

export function precompileQuerySchema(schema: JsonSchema): void {
  compile(queryAjv, schema);
}

/** Compiles a schema with the body validator's options (tests use it to check response shapes). */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  return compile(bodyAjv, schema);
}
