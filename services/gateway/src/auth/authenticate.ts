import { AppError } from '@switchyard/shared';
import { API_KEY_PATTERN } from '../config';
import type { ApiKeyRecord } from '../store';
import { isActive } from './api-keys';

/**
 * "X-API-Key <key>": the scheme word, one space, the key. The scheme word is compared
 * case-insensitively as HTTP auth schemes are (RFC 9110 11.1); everything else is exact.
 */
const HEADER_PATTERN = /^X-API-Key ([^\s]+)$/i;
/** The OpenAI-compatible surface also takes the key as OpenAI's clients send theirs. */
const BEARER_PATTERN = /^Bearer ([^\s]+)$/i;

export const AUTH_SCHEME_DESCRIPTION =
  'Send `Authorization: X-API-Key <key>`: the scheme word X-API-Key, one space, then the key (sk_...).';

/** Finds a key's record by the key itself (the gateway's cached read model of keys). */
export interface KeyFinder {
  find(key: string): Promise<ApiKeyRecord | undefined>;
}

function unauthorized(message: string): AppError {
  return new AppError('unauthorized', message);
}

export async function authenticate(
  header: string | undefined,
  keys: KeyFinder,
  acceptBearer = false,
): Promise<ApiKeyRecord> {
  const expected = acceptBearer ? '"Bearer <key>" or "X-API-Key <key>"' : '"X-API-Key <key>"';
  if (!header) throw unauthorized(`missing Authorization header; expected ${expected}`);
  const match = HEADER_PATTERN.exec(header) ?? (acceptBearer ? BEARER_PATTERN.exec(header) : null);
  if (!match || !API_KEY_PATTERN.test(match[1])) {
    throw unauthorized(`malformed Authorization header; expected ${expected}`);
  }
  const record = await keys.find(match[1]);
  if (!record) throw unauthorized('unknown API key');
  // Only the key's holder can name it: telling them when it stopped working leaks nothing.
  if (!isActive(record))
    throw unauthorized(`this API key was revoked at ${record.revokedAt ?? 'an unknown time'}`);
  return record;
}
