import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { AppError } from '@switchyard/shared';

/** A schema's JSON text at most this long (they are kept in memory, compiled, per version). */
export const MAX_SCHEMA_BYTES = 64 * 1024;

/** One failing place of an event's data: a JSON pointer into it and what is wrong there. */
export interface SchemaViolation {
  pointer: string;
  message: string;
}

/**
 * JSON Schema 2020-12 for event types: checked against the meta-schema and compiled when saved,
 * compiled once per (organization, type, version) after that. An unknown keyword (a typo such as
 * "requried") is an error, not a schema that silently accepts everything.
 * No remote $ref is fetched: a schema refers only within itself.
 */
export class EventSchemas {
  private readonly ajv = createAjv();
  private readonly compiled = new Map<string, ValidateFunction>();

  /** Parses and checks a schema given as JSON text (400 naming the problem), returning it. */
  parse(schemaJson: string, field = '/schema'): object {
    if (!schemaJson) throw AppError.invalid('schema is required', field, 'required');
    if (Buffer.byteLength(schemaJson) > MAX_SCHEMA_BYTES)
      throw AppError.invalid(`schema is over ${MAX_SCHEMA_BYTES} bytes`, field, 'too large');
    const schema = jsonObject(schemaJson, 'schema', field);
    this.check(schema, field);
    return schema;
  }

  /** Refuses a schema that is not valid JSON Schema 2020-12 or does not compile. */
  check(schema: object, field = '/schema'): void {
    const declared = (schema as { $schema?: unknown }).$schema;
    if (declared !== undefined && declared !== SCHEMA_2020_12) {
      throw AppError.invalid(
        `schema must be JSON Schema 2020-12 ($schema "${SCHEMA_2020_12}" or none)`,
        `${field}/$schema`,
        'unsupported dialect',
      );
    }
    if (!this.ajv.validateSchema(schema)) {
      const errors = this.ajv.errors ?? [];
      throw new AppError(
        'invalid_request',
        `schema is not valid JSON Schema 2020-12: ${describe(errors[0])}`,
        errors
          .slice(0, 20)
          .map((e) => ({ field: `${field}${e.instancePath}`, reason: describe(e) })),
      );
    }
    try {
      this.ajv.compile(withoutId(schema));
    } catch (error) {
      throw AppError.invalid(
        `schema does not compile: ${(error as Error).message}`,
        field,
        (error as Error).message,
      );
    }
  }

  /**
   * The failing places of data under one version of a type's schema (none: it conforms). Each
   * (key, schema) is compiled once; key names the organization, type and version.
   */
  violations(key: string, schema: object, data: unknown): SchemaViolation[] {
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(withoutId(schema));
      this.compiled.set(key, validate);
    }
    return failures(validate, data);
  }

  /**
   * Refuses an example (JSON text) that is not an object valid under the schema, with each
   * failing place under `field`; returns it parsed, or undefined when there is none. The schema
   * is not kept compiled: it may not be saved.
   */
  example(schema: object, exampleJson: string, field = '/example'): object | undefined {
    if (!exampleJson) return undefined;
    const example = jsonObject(exampleJson, 'example', field);
    const violations = failures(this.ajv.compile(withoutId(schema)), example);
    if (violations.length > 0) {
      throw new AppError(
        'invalid_request',
        `example does not match the schema: ${field}${violations[0]!.pointer} ${violations[0]!.message}`,
        violations.map((v) => ({ field: `${field}${v.pointer}`, reason: v.message })),
      );
    }
    return example;
  }
}

/** JSON text that must hold an object (400 at field otherwise), parsed. */
function jsonObject(text: string, what: string, field: string): object {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw AppError.invalid(`${what} is not valid JSON`, field, 'not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw AppError.invalid(`${what} must be a JSON object`, field, 'must be an object');
  return value;
}

function failures(validate: ValidateFunction, data: unknown): SchemaViolation[] {
  if (validate(data)) return [];
  return (validate.errors ?? []).map((e) => ({
    pointer: e.instancePath,
    message: describe(e, false),
  }));
}

/** The compiled-schema key of one version of an organization's type. */
export function schemaKey(
  type: { organization: string; name: string },
  version: { version: number },
): string {
  return `${type.organization}\u0000${type.name}\u0000${version.version}`;
}

const SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

function createAjv(): Ajv2020 {
  // Unknown keywords and formats are errors; valid 2020-12 that strict mode frowns on
  // (a tuple without maxItems, "required" without "properties") is accepted.
  const ajv = new Ajv2020({
    allErrors: true,
    strictSchema: true,
    strictNumbers: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
  });
  addFormats(ajv);
  return ajv;
}

/**
 * Ajv keeps every schema with an $id in one registry: two organizations (or two versions) with the
 * same $id would collide, so the $id is dropped before compiling (the schema refers within itself).
 */
function withoutId(schema: object): object {
  if (!('$id' in schema)) return schema;
  const { $id: _id, ...rest } = schema as Record<string, unknown>;
  return rest;
}

function describe(error: ErrorObject | undefined, withPlace = true): string {
  if (!error) return 'invalid';
  const where = withPlace ? `${error.instancePath || '/'} ` : '';
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String((error.params as { additionalProperty: string }).additionalProperty)})`
      : error.keyword === 'enum'
        ? `: ${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)}`
        : '';
  return `${where}${error.message ?? 'is invalid'}${extra}`;
}
