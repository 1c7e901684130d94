import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import { setImmediate as nextTurn } from 'node:timers/promises';
import getRawBody from 'raw-body';
import contentType from 'content-type';
import { AppError } from '@switchyard/shared';
import type { GatewayState } from './request-id';

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
function readerFor(header: string | undefined, textBodies: Record<string, TextBodyReader>, maxValues: number): BodyReader {
  let parsed: contentType.ParsedMediaType | undefined;
  try {
    parsed = header ? contentType.parse(header) : undefined;
  } catch {
    parsed = undefined;
  }
  const charset = parsed?.parameters.charset?.toLowerCase();
  const textReader = parsed ? textBodies[parsed.type] : undefined;
  const isJson = parsed?.type === 'application/json';
  if ((!isJson && !textReader) || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    const types = ['application/json', ...Object.keys(textBodies)].join(', ');
    throw new AppError('unsupported_media_type', `request body must be ${types} (UTF-8)`);
  }
  return isJson ? (text) => parseJson(text, maxValues) : async (text) => ({ body: textReader!(text) });
}

async function readText(req: IncomingMessage, limit: number): Promise<string> {
  const declared = req.headers['content-length'];
  try {
    return await getRawBody(req, { length: declared, limit, encoding: 'utf-8' });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') throw tooLarge(limit);
    if (type === 'request.size.invalid') throw new AppError('invalid_request', 'request body is shorter or longer than Content-Length');
    throw new AppError('invalid_request', 'request body could not be read');
  }
}

/** Deeper JSON is refused: nothing a route takes nests this far, and stores and serializers recurse. */
export const MAX_JSON_DEPTH = 32;

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
  while (node !== target && segments.length < maxSegments && node !== null && typeof node === 'object') {
    const child = Object.entries(node).find(([, v]) => v !== null && typeof v === 'object' && containsDeep(v, target));
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
    if (next !== null && typeof next === 'object') for (const key in next) values.push((next as Record<string, unknown>)[key]);
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

/** What one pass over JSON text tells before it is parsed. */
export interface JsonShape {
  /** The deepest bracket nesting. */
  depth: number;
  /** How many values (objects, arrays, strings, numbers, literals; keys are not values) it holds. */
  values: number;
  /** The most fields of one object (objects nested deeper than MAX_JSON_DEPTH are not counted). */
  widestObject: number;
}

/**
 * The bracket nesting and the value count of JSON text, strings skipped: one pass over the
 * characters, so that a body too deep or with too many values is refused before JSON.parse (a
 * 1 MB body of 100,000 values took the event loop 5-10 ms to parse and as long again to
 * validate). A value is counted per comma and per non-empty container (+1 for the root); for
 * invalid JSON the count is only an estimate, and JSON.parse then refuses it.
 */
export function measureJson(text: string): JsonShape {
  let depth = 0;
  let deepest = 0;
  let commas = 0;
  let containers = 0;
  const fields = new Int32Array(MAX_JSON_DEPTH + 1); // fields of the open object at each depth
  let widest = 0;
  let previous = 0; // the last character outside strings that is not whitespace
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (c === 0x22) inString = true;
    else if (c === 0x2c) commas++;
    else if (c === 0x3a) {
      if (depth <= MAX_JSON_DEPTH) widest = Math.max(widest, ++fields[depth]!);
    } else if (c === 0x7b || c === 0x5b) {
      deepest = Math.max(deepest, ++depth);
      if (depth <= MAX_JSON_DEPTH) fields[depth] = 0;
      containers++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (previous === 0x7b || previous === 0x5b) containers--; // empty: holds no first value
    }
    previous = c;
  }
  return { depth: deepest, values: text.length === 0 ? 0 : commas + containers + 1, widestObject: widest };
}

/**
 * No object of a body may have more fields, whatever the route's value limit (batch routes take
 * 100,000 values): each new field name costs JSON.parse far more than a value (an object of
 * 20,000 new names took ~9 ms, an array of 100,000 values ~4 ms).
 */
export const MAX_OBJECT_FIELDS = 5000;

function tooManyValues(limit: number): AppError {
  return new AppError('payload_too_large', `request body holds more than ${limit} JSON values (the limit of this operation)`, [
    { field: '', reason: `more than ${limit} values` },
  ]);
}

function tooManyFields(): AppError {
  return new AppError('payload_too_large', `request body has an object of more than ${MAX_OBJECT_FIELDS} fields`, [
    { field: '', reason: `an object of more than ${MAX_OBJECT_FIELDS} fields` },
  ]);
}

/** Text longer than this is read in two turns of the event loop: measured in one, parsed in the next. */
const MEASURE_THEN_YIELD_CHARS = 64 * 1024;

/** Parses JSON text within the route's limits: its value count and nesting are read from the text first. */
async function parseJson(text: string, maxValues: number): Promise<ReadBody> {
  if (text.trim() === '') return { body: {}, values: 1 };
  const shape = measureJson(text);
  // The value count is checked before parsing: a body over it costs one pass, not a parse and a walk.
  if (shape.values > maxValues) throw tooManyValues(maxValues);
  if (shape.widestObject > MAX_OBJECT_FIELDS) throw tooManyFields();
  if (text.length > MEASURE_THEN_YIELD_CHARS) await nextTurn();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new AppError('invalid_request', 'request body is not valid JSON', [{ field: '', reason: (error as Error).message }]);
  }
  // The text's bracket nesting bounds the value's depth: only a body that may be too deep is walked.
  const field = shape.depth > MAX_JSON_DEPTH ? tooDeep(body, MAX_JSON_DEPTH) : undefined; // e.g. /items/0/attributes
  if (field !== undefined) {
    throw new AppError('invalid_request', `${field || 'the body'} is nested more than ${MAX_JSON_DEPTH} levels deep`, [
      { field, reason: `nested more than ${MAX_JSON_DEPTH} levels deep` },
    ]);
  }
  return { body, values: shape.values };
}

/**
 * A route's JSON body may hold this many values unless it declares another limit
 * (RouteSpec.maxBodyValues): every non-batch body of the interface fits in far fewer.
 */
export const DEFAULT_MAX_BODY_VALUES = 5000;

export interface BodyLimits {
  /** Bytes (BODY_LIMIT_BYTES). */
  bytes: number;
  /** JSON values (RouteSpec.maxBodyValues, default DEFAULT_MAX_BODY_VALUES). */
  values?: number;
}

/**
 * JSON bodies (and the route's text bodies) for POST/PUT/PATCH: media type first, then the declared
 * size (before reading a byte), then the size while reading (chunked bodies), then the value count
 * and the nesting depth read from the text, then the syntax. No body counts as {}.
 */
export function jsonBody(limits: BodyLimits, textBodies: Record<string, TextBodyReader> = {}): Middleware<BodyState> {
  const { bytes: limit, values: maxValues = DEFAULT_MAX_BODY_VALUES } = limits;
  return async (ctx, next) => {
    if (!hasBody(ctx.req)) {
      ctx.state.body = {};
      ctx.state.rawBody = '';
      return next();
    }
    const read = readerFor(ctx.get('content-type') || undefined, textBodies, maxValues);
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
