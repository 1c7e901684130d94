/**
 * What a log line may never carry: keys, tokens, secrets, signatures, raw request bytes. Three
 * layers, each enough for what it covers: an allow-list of error fields (an error's own properties,
 * like the HTTP parser's `rawPacket`, are never copied), redaction by field name, and a last
 * scrub of the written line for credentials in any field or message.
 */

/**
 * Field names never written, at any depth up to REDACT_DEPTH (headers sit at depth 2 or 3, e.g.
 * `req.headers.authorization`). Compared in lower case.
 */
const REDACTED_FIELDS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-admin-token',
  'apikey',
  'admintoken',
  'token',
  'secret',
  'signingsecret',
  'password',
  'rawpacket',
  'webhook-signature',
  'x-service-signature',
]);
const REDACT_DEPTH = 3;

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
  [
    /\b(authorization|x-admin-token|cookie|proxy-authorization|webhook-signature|x-service-signature)(\s*:\s*|=)[^"\\]*/gi,
    `$1: ${CENSOR}`,
  ],
];

/**
 * The log object with every credential field replaced by the censor, copying only the objects on
 * the way to one (a line without credentials, nearly every line, is returned as it is). pino's own
 * path redaction parses its path list on every line, which cost more than the rest of a line.
 */
export function redactFields<T>(value: T, depth = 0): T {
  if (typeof value !== 'object' || value === null || depth > REDACT_DEPTH || value instanceof Error)
    return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const redacted = redactFields(item, depth + 1);
      if (redacted !== item) (copy ??= value.slice())[index] = redacted;
    });
    return (copy ?? value) as T;
  }
  const fields = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(fields)) {
    const item = fields[key];
    const redacted = REDACTED_FIELDS.has(key.toLowerCase())
      ? CENSOR
      : redactFields(item, depth + 1);
    if (redacted !== item) (copy ??= { ...fields })[key] = redacted;
  }
  return (copy ?? value) as T;
}

export function scrubCredentials(text: string): string {
  let scrubbed = text;
  for (const [pattern, replacement] of CREDENTIALS)
    scrubbed = scrubbed.replace(pattern, replacement);
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
  if (!(error instanceof Error))
    return { type: typeof error, message: scrubCredentials(String(error)).slice(0, 1000) };
  const { code, status } = error as { code?: unknown; status?: unknown };
  const safe: SafeError = {
    type: error.constructor?.name ?? 'Error',
    message: scrubCredentials(error.message),
  };
  if (typeof code === 'string' || typeof code === 'number') safe.code = code;
  if (typeof status === 'number') safe.status = status;
  if (error.stack) safe.stack = scrubCredentials(error.stack);
  if (error.cause !== undefined && depth < MAX_CAUSE_DEPTH)
    safe.cause = safeError(error.cause, depth + 1);
  return safe;
}
