import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import { setImmediate as nextTurn } from 'node:timers/promises';
import getRawBody from 'raw-body';
import contentType from 'content-type';
import { AppError } from '@switchyard/shared';
import {
  MAX_JSON_DEPTH,
  MAX_OBJECT_FIELDS,
  measureJson,
  parseBatch,
  parseRootArray,
} from './json-text';
import type { GatewayState } from './request-id';

export { MAX_JSON_DEPTH, MAX_OBJECT_FIELDS, measureJson } from './json-text';

export interface BodyState extends GatewayState {
  body?: unknown;
  /** The body as received ('' when there was none): Idempotency-Key fingerprints hash it. */
  rawBody?: string;
  /** A JSON body's value count, read from its text (validation tells a large body by it). */
  bodyValues?: number;
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function tooLarge(limit: number): AppError {
  return new AppError('payload_too_large', `request body exceeds ${limit} bytes`);
}

/** A body read as text and turned into the route's JSON body (see RouteSpec.textBodies). */
export type TextBodyReader = (text: string) => unknown;

/** A body as read: the value, and for JSON its value count. */
interface ReadBody {
  body: unknown;
  values?: number;
}

type BodyReader = (text: string) => Promise<ReadBody>;

/** The reader for the body's media type: JSON, or one of the route's text types; 415 for any other (or a charset but UTF-8). */
function readerFor(
  header: string | undefined,
  textBodies: Record<string, TextBodyReader>,
  limits: JsonLimits,
): BodyReader {
  let parsed: contentType.ParsedMediaType | undefined;
  try {
    parsed = header ? contentType.parse(header) : undefined;
  } catch {
    parsed = undefined;
  }
  const charset = parsed?.parameters.charset?.toLowerCase();
  const textReader = parsed ? textBodies[parsed.type] : undefined;
  const isJson = parsed?.type === 'application/json';
  if (
    (!isJson && !textReader) ||
    (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
  ) {
    const types = ['application/json', ...Object.keys(textBodies)].join(', ');
    throw new AppError('unsupported_media_type', `request body must be ${types} (UTF-8)`);
  }
  return isJson ? (text) => parseJson(text, limits) : async (text) => ({ body: textReader!(text) });
}

async function readText(req: IncomingMessage, limit: number): Promise<string> {
  const declared = req.headers['content-length'];
  try {
    return await getRawBody(req, { length: declared, limit, encoding: 'utf-8' });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') throw tooLarge(limit);
    if (type === 'request.size.invalid')
      throw new AppError(
        'invalid_request',
        'request body is shorter or longer than Content-Length',
      );
    throw new AppError('invalid_request', 'request body could not be read');
  }
}

/** A value deeper than maxDepth, or undefined; walked without recursion nor allocation per value. */
function deepValue(value: unknown, maxDepth: number): { value: unknown } | undefined {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const next = values.pop();
    const depth = depths.pop()!;
    if (next === null || typeof next !== 'object') continue;
    if (depth >= maxDepth) return { value: next };
    for (const key in next) {
      values.push((next as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  return undefined;
}

/** The JSON pointer of the first maxSegments keys leading to target (a value found by deepValue). */
function pointerTo(root: unknown, target: unknown, maxSegments: number): string {
  const segments: string[] = [];
  let node = root;
  while (
    node !== target &&
    segments.length < maxSegments &&
    node !== null &&
    typeof node === 'object'
  ) {
    const child = Object.entries(node).find(
      ([, v]) => v !== null && typeof v === 'object' && containsDeep(v, target),
    );
    if (!child) break;
    segments.push(child[0].replace(/~/g, '~0').replace(/\//g, '~1'));
    node = child[1];
  }
  return segments.length ? `/${segments.join('/')}` : '';
}

function containsDeep(value: unknown, target: unknown): boolean {
  const values: unknown[] = [value];
  while (values.length > 0) {
    const next = values.pop();
    if (next === target) return true;
    if (next !== null && typeof next === 'object')
      for (const key in next) values.push((next as Record<string, unknown>)[key]);
  }
  return false;
}

/**
 * The path (its first `segments` keys) to a value nested deeper than maxDepth, or undefined when
 * none is. The common case, a shallow body, costs one walk without allocations.
 */
export function tooDeep(value: unknown, maxDepth: number, segments = 3): string | undefined {
  const found = deepValue(value, maxDepth);
  return found === undefined ? undefined : pointerTo(value, found.value, segments);
}

function tooManyValues(limit: number): AppError {
  return new AppError(
    'payload_too_large',
    `request body holds more than ${limit} JSON values (the limit of this operation)`,
    [{ field: '', reason: `more than ${limit} values` }],
  );
}

function tooManyFields(): AppError {
  return new AppError(
    'payload_too_large',
    `request body has an object of more than ${MAX_OBJECT_FIELDS} fields`,
    [{ field: '', reason: `an object of more than ${MAX_OBJECT_FIELDS} fields` }],
  );
}

/** Text longer than this is read over several turns of the event loop: measured in one, parsed in the next (a batch's items in slices). */
const MEASURE_THEN_YIELD_CHARS = 64 * 1024;

/** Parses JSON text within the route's limits: its value count and nesting are read from the text first. */
async function parseJson(text: string, limits: JsonLimits): Promise<ReadBody> {
  if (text.trim() === '') return { body: {}, values: 1 };
  const { values: maxValues = DEFAULT_MAX_BODY_VALUES, batchField } = limits;
  const shape = measureJson(text);
  // The value count is checked before parsing: a body over it costs one pass, not a parse and a walk.
  if (shape.values > maxValues) throw tooManyValues(maxValues);
  if (shape.widestObject > MAX_OBJECT_FIELDS) throw tooManyFields();
  const large = text.length > MEASURE_THEN_YIELD_CHARS;
  if (large && !batchField) await nextTurn();
  let body: unknown;
  try {
    // A batch's items, or the items of a body that is an array (an import), a slice at a time.
    body = !large
      ? JSON.parse(text)
      : batchField
        ? await parseBatch(text, batchField)
        : await parseRootArray(text);
  } catch (error) {
    throw new AppError('invalid_request', 'request body is not valid JSON', [
      { field: '', reason: (error as Error).message },
    ]);
  }
  // The text's bracket nesting bounds the value's depth: only a body that may be too deep is walked.
  const field = shape.depth > MAX_JSON_DEPTH ? tooDeep(body, MAX_JSON_DEPTH) : undefined; // e.g. /items/0/attributes
  if (field !== undefined) {
    throw new AppError(
      'invalid_request',
      `${field || 'the body'} is nested more than ${MAX_JSON_DEPTH} levels deep`,
      [{ field, reason: `nested more than ${MAX_JSON_DEPTH} levels deep` }],
    );
  }
  return { body, values: shape.values };
}

/**
 * A route's JSON body may hold this many values unless it declares another limit
 * (RouteSpec.maxBodyValues): every non-batch body of the interface fits in far fewer.
 */
export const DEFAULT_MAX_BODY_VALUES = 5000;

interface JsonLimits {
  /** JSON values (RouteSpec.maxBodyValues, default DEFAULT_MAX_BODY_VALUES). */
  values?: number;
  /** The root object's array that a large body is parsed in slices of (a batch route's items). */
  batchField?: string;
}

export interface BodyLimits extends JsonLimits {
  /** Bytes (BODY_LIMIT_BYTES). */
  bytes: number;
}

/**
 * JSON bodies (and the route's text bodies) for POST/PUT/PATCH: media type first, then the declared
 * size (before reading a byte), then the size while reading (chunked bodies), then the value count
 * and the nesting depth read from the text, then the syntax. No body counts as {}.
 */
export function jsonBody(
  limits: BodyLimits,
  textBodies: Record<string, TextBodyReader> = {},
): Middleware<BodyState> {
  const { bytes: limit } = limits;
  return async (ctx, next) => {
    if (!hasBody(ctx.req)) {
      ctx.state.body = {};
      ctx.state.rawBody = '';
      return next();
    }
    const read = readerFor(ctx.get('content-type') || undefined, textBodies, limits);
    const declared = Number(ctx.get('content-length') || NaN);
    if (declared > limit) {
      ctx.set('Connection', 'close'); // the unread body makes the connection unusable
      throw tooLarge(limit);
    }
    const text = await readText(ctx.req, limit);
    ctx.state.rawBody = text;
    const { body, values } = await read(text);
    ctx.state.body = body;
    ctx.state.bodyValues = values;
    return next();
  };
}
