import { Metadata } from '@grpc/grpc-js';
import { AppError } from '../errors/app-error';

/** Who is calling and for which request; set by the gateway, carried in gRPC metadata. */
export interface CallContext {
  organization: string;
  keyId: string;
  requestId: string;
  /** The client's Idempotency-Key, when it sent one: a retry of the same call carries the same key. */
  idempotencyKey?: string;
  /** The key's `models` scope: the model ids or aliases it may call (absent: any). */
  models?: string[];
  /** The key's team: usage is reported by team too. */
  teamId?: string;
  /** The end user the call is made for (`user` on /v1, `user_id` on the assistants). */
  endUser?: string;
}

/** Whom usage is reported under besides the key: its team and the end user, when known. */
export function attributionOf(ctx: CallContext): { teamId?: string; endUser?: string } {
  return {
    ...(ctx.teamId ? { teamId: ctx.teamId } : {}),
    ...(ctx.endUser ? { endUser: ctx.endUser } : {}),
  };
}

const ORG = 'x-organization';
const KEY_ID = 'x-key-id';
const REQUEST_ID = 'x-request-id';
const IDEMPOTENCY_KEY = 'x-idempotency-key';
const MODELS = 'x-allowed-models';
const TEAM_ID = 'x-team-id';
/** Percent-encoded: an end user is any string a client sends. */
const END_USER = 'x-end-user';

/** What grpc-js accepts in a string metadata value (it throws on anything else). */
const METADATA_VALUE = /^[\x20-\x7e]*$/;

function set(md: Metadata, key: string, value: string, field: string): void {
  // Checked here so that a value no caller validated fails this call as a 400, not with grpc-js's throw.
  if (!METADATA_VALUE.test(value))
    throw AppError.invalid(`${field} must be printable ASCII characters only`, field);
  md.set(key, value);
}

/** Lone surrogates (any text a caller sends may hold them) as U+FFFD: encodeURIComponent throws on them. */
export function wellFormed(text: string): string {
  return text.replace(
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    '\uFFFD',
  );
}

export function contextToMetadata(ctx: CallContext): Metadata {
  const md = new Metadata();
  set(md, ORG, ctx.organization, 'organization');
  set(md, KEY_ID, ctx.keyId, 'keyId');
  set(md, REQUEST_ID, ctx.requestId, 'requestId');
  if (ctx.idempotencyKey) set(md, IDEMPOTENCY_KEY, ctx.idempotencyKey, 'Idempotency-Key');
  // Model names are printable ASCII without commas (the registry's name pattern).
  if (ctx.models) md.set(MODELS, ctx.models.join(','));
  if (ctx.teamId) set(md, TEAM_ID, ctx.teamId, 'teamId');
  if (ctx.endUser) md.set(END_USER, encodeURIComponent(wellFormed(ctx.endUser)));
  return md;
}

function first(md: Metadata, key: string): string {
  const value = md.get(key)[0];
  return typeof value === 'string' ? value : '';
}

export function contextFromMetadata(md: Metadata): CallContext {
  const context: CallContext = {
    organization: first(md, ORG),
    keyId: first(md, KEY_ID),
    requestId: first(md, REQUEST_ID),
  };
  const idempotencyKey = first(md, IDEMPOTENCY_KEY);
  if (idempotencyKey) context.idempotencyKey = idempotencyKey;
  if (md.get(MODELS).length > 0) context.models = first(md, MODELS).split(',').filter(Boolean);
  const teamId = first(md, TEAM_ID);
  if (teamId) context.teamId = teamId;
  const endUser = endUserOf(first(md, END_USER));
  if (endUser) context.endUser = endUser;
  return context;
}

function endUserOf(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return ''; // not ours: a direct call's malformed value is not attributed
  }
}

/**
 * What identifies one call across its retries: the Idempotency-Key, or the request id without one;
 * undefined for a call that carries neither (a direct call outside the gateway).
 */
export function callKeyOf(ctx: CallContext): string | undefined {
  if (ctx.idempotencyKey) return `key:${ctx.idempotencyKey}`;
  return ctx.requestId ? `req:${ctx.requestId}` : undefined;
}
