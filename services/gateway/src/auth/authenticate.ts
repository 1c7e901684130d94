import { AppError } from '@switchyard/shared';
import { API_KEY_PATTERN } from '../config';
import { isActive, type ApiKeyRecord } from './api-key-store';
import type { KeyLookup } from './key-lookup';

/**
 * "X-API-Key <key>": the scheme word, one space, the key. The scheme word is compared
 * case-insensitively as HTTP auth schemes are (RFC 9110 11.1); everything else is exact.
 */
const HEADER_PATTERN = /^X-API-Key ([^\s]+)$/i;

export const AUTH_SCHEME_DESCRIPTION =
  'Send `Authorization: X-API-Key <key>`: the scheme word X-API-Key, one space, then the key (sk_...).';

function unauthorized(message: string): AppError {
  return new AppError('unauthorized', message);
}

export async function authenticate(
  header: string | undefined,
  keys: KeyLookup,
): Promise<ApiKeyRecord> {
  if (!header) throw unauthorized('missing Authorization header; expected "X-API-Key <key>"');
  const match = HEADER_PATTERN.exec(header);
  if (!match || !API_KEY_PATTERN.test(match[1])) {
    throw unauthorized('malformed Authorization header; expected "X-API-Key <key>"');
  }
  const record = await keys.find(match[1]);
  if (!record || !isActive(record)) throw unauthorized('unknown or revoked API key');
  return record;
}
