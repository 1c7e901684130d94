import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Context } from 'koa';

/** The parts of a response a replay gives back; the rest (rate-limit headers...) belongs to each attempt. */
export interface StoredResponse {
  status: number;
  /** content-type and Location, when the original had them. */
  headers: Record<string, string>;
  /** The body exactly as first sent (JSON already serialized); absent for 204. */
  body?: string;
  /** X-Request-Id of the original answer (bodies carry it too). */
  requestId: string;
}

/**
 * What the shared state holds under one (scope, key): "pending" while the first attempt runs (its
 * holder also has the lock), "done" once its answer is stored for replays.
 */
export type IdempotencyRecord =
  | { state: 'pending'; fingerprint: string }
  | { state: 'done'; fingerprint: string; response: StoredResponse };

const REPLAYED_HEADERS = ['content-type', 'location'];

/** SHA-256 of method, path (with query) and the raw body: the same key must come with the same request. */
export function fingerprintOf(method: string, url: string, rawBody: string): string {
  return createHash('sha256').update(`${method}\n${url}\n${rawBody}`, 'utf8').digest('hex');
}

/** One name per (organization or admin API, key), for both the record and the lock. */
export function recordKey(scope: string, key: string): string {
  return `idempotency:${scope}:${key}`;
}

export function encodeRecord(record: IdempotencyRecord): string {
  return JSON.stringify(record);
}

export function decodeRecord(value: string): IdempotencyRecord {
  return JSON.parse(value) as IdempotencyRecord;
}

/** 5xx and 429 are transient (the client should retry and be served anew); everything else stands. */
export function isStorable(status: number): boolean {
  return status < 500 && status !== 429;
}

function withoutFields(body: object, fields: string[]): object {
  if (fields.length === 0 || Array.isArray(body)) return body;
  const kept: Record<string, unknown> = { ...body };
  for (const field of fields) delete kept[field];
  return kept;
}

function serializedBody(body: unknown, credentialFields: string[]): string | undefined | false {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  // A body the route serialized itself (a relayed JSON answer) replays as it is.
  if (Buffer.isBuffer(body)) return body.toString();
  if (body instanceof Readable) return false;
  return JSON.stringify(withoutFields(body as object, credentialFields)); // what Koa itself sends for an object body
}

/**
 * The answer the route produced, without its credential fields, or undefined when it cannot be
 * replayed byte for byte (a stream).
 */
export function captureResponse(
  ctx: Context,
  requestId: string,
  credentialFields: string[] = [],
): StoredResponse | undefined {
  const body = serializedBody(ctx.body, credentialFields);
  if (body === false) return undefined;
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = ctx.response.get(name);
    if (value) headers[name] = value;
  }
  return { status: ctx.status, headers, ...(body === undefined ? {} : { body }), requestId };
}

/** Writes a stored answer: same status, headers that matter and body; X-Request-Id of the original. */
export function writeStoredResponse(ctx: Context, stored: StoredResponse): void {
  ctx.status = stored.status;
  for (const [name, value] of Object.entries(stored.headers)) ctx.set(name, value);
  ctx.set('X-Request-Id', stored.requestId);
  // Content-Type is set first, so Koa keeps it rather than guessing from a string body.
  if (stored.body !== undefined) ctx.body = stored.body;
}
