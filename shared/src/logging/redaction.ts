/**
 * What a log line may never carry: keys, tokens, secrets, signatures, raw request bytes. Three
 * layers, each enough for what it covers: an allow-list of error fields (an error's own properties,
 * like the HTTP parser's `rawPacket`, are never copied), redaction by field name, and a last
 * scrub of the written line for credentials in any field or message.
 */

/** Field paths never written (pino redact syntax). */
export const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'headers.authorization',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.headers["x-admin-token"]',
  '*.headers["proxy-authorization"]',
  'headers["x-admin-token"]',
  'headers.cookie',
  'apiKey',
  '*.apiKey',
  'adminToken',
  '*.adminToken',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'signingSecret',
  '*.signingSecret',
  'password',
  '*.password',
  'rawPacket',
  '*.rawPacket',
  '*["webhook-signature"]',
  '*["x-service-signature"]',
];

const CENSOR = '[redacted]';

/**
 * Credentials by form, wherever they appear in a line: API keys (sk_...), signing secrets
 * (whsec_...), the value of an auth scheme (X-API-Key, Bearer, Basic) and of a credential header
 * line. Matches stop at a quote or backslash, so a scrubbed JSON line stays valid JSON.
 */
const CREDENTIALS: Array<[RegExp, string]> = [
  [/\bsk_[A-Za-z0-9_-]{6,}/g, CENSOR],
  [/\bwhsec_[A-Za-z0-9+/=_-]{6,}/g, CENSOR],
  [/\b(X-API-Key)(\s+|%20)[^\s"\\,;]+/gi, `$1 ${CENSOR}`],
  [/\b(Bearer|Basic)(\s+|%20)[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${CENSOR}`],
  [/\b(authorization|x-admin-token|cookie|proxy-authorization|webhook-signature|x-service-signature)(\s*:\s*|=)[^"\\]*/gi, `$1: ${CENSOR}`],
];

export function scrubCredentials(text: string): string {
  let scrubbed = text;
  for (const [pattern, replacement] of CREDENTIALS) scrubbed = scrubbed.replace(pattern, replacement);
  return scrubbed;
}

/** Error fields a log may show; everything else an error carries (raw packets, requests, configs) is left out. */
export interface SafeError {
  type: string;
  message: string;
  code?: string | number;
  status?: number;
  stack?: string;
  cause?: SafeError;
}

const MAX_CAUSE_DEPTH = 3;

export function safeError(error: unknown, depth = 0): SafeError {
  if (!(error instanceof Error)) return { type: typeof error, message: scrubCredentials(String(error)).slice(0, 1000) };
  const { code, status } = error as { code?: unknown; status?: unknown };
  const safe: SafeError = { type: error.constructor?.name ?? 'Error', message: scrubCredentials(error.message) };
  if (typeof code === 'string' || typeof code === 'number') safe.code = code;
  if (typeof status === 'number') safe.status = status;
  if (error.stack) safe.stack = scrubCredentials(error.stack);
  if (error.cause !== undefined && depth < MAX_CAUSE_DEPTH) safe.cause = safeError(error.cause, depth + 1);
  return safe;
}
