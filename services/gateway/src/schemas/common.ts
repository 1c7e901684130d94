/** A JSON Schema object (draft-07 keywords, which OpenAPI 3.1's dialect also accepts). */
export type JsonSchema = Record<string, unknown>;

export const LANGUAGE_CODE = {
  type: 'string',
  pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$',
} as const;
/** A string field that must say something: not empty, not only whitespace (`"model": " "` is a 400, not the default). */
export const NON_BLANK = { type: 'string', minLength: 1, pattern: '\\S' } as const;
export const MODEL_ID = { ...NON_BLANK, maxLength: 200 } as const;
export const IDENTIFIER = { ...NON_BLANK, maxLength: 200 } as const;
/** Callback URLs: absolute http(s) URIs; the notification service applies the SSRF policy. */
export const CALLBACK_URL = {
  type: 'string',
  format: 'uri',
  pattern: '^https?://',
  maxLength: 2048,
} as const;
/** Request field asking for Server-Sent Events instead of one JSON body. */
export const STREAM_FLAG = {
  type: 'boolean',
  description:
    'true: answer text/event-stream: `delta` events ({"text"}), then `done` with the non-streamed body, or `error` with the error body',
} as const;
export const DATE_TIME = { type: 'string', format: 'date-time' } as const;

/**
 * The annotation that says in words what a string `pattern` allows: validation errors and the
 * console say these words instead of the regular expression.
 */
export const PATTERN_WORDS = 'x-pattern-description';

/** The name of an agent or a knowledge collection: a path segment. */
export const SLUG_NAME = {
  type: 'string',
  pattern: '^[a-z0-9][a-z0-9_-]{0,62}$',
  [PATTERN_WORDS]:
    'lowercase letters, digits, - and _, starting with a letter or digit (at most 63 characters)',
} as const;

/** The error body of contract-decisions.md. */
export const ErrorResponse: JsonSchema = {
  title: 'ErrorResponse',
  type: 'object',
  additionalProperties: false,
  required: ['error', 'request_id'],
  properties: {
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['code', 'message', 'details'],
      properties: {
        code: {
          type: 'string',
          description:
            'invalid_request, unauthorized, key_expired, forbidden, model_not_allowed, not_found, method_not_allowed, conflict, payload_too_large, unsupported_media_type, unsupported, rate_limited, quota_exceeded, budget_exceeded, internal, upstream_error, unavailable, timeout; headers_too_large (431) for a request line or headers over the server limit',
        },
        message: { type: 'string' },
        details_omitted: {
          type: 'integer',
          minimum: 1,
          description: 'How many details beyond the first 20 were left out (absent when none were)',
        },
        details: {
          type: 'array',
          maxItems: 20,
          items: {
            type: 'object',
            required: ['reason'],
            properties: {
              field: {
                type: 'string',
                description: 'JSON pointer into the request body (or query)',
              },
              reason: { type: 'string' },
            },
          },
        },
      },
    },
    request_id: { type: 'string', pattern: '^req_' },
  },
};

/** An organization's id: a slug. */
export const ORGANIZATION_ID = {
  type: 'string',
  pattern: '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$',
  [PATTERN_WORDS]:
    'lowercase letters, digits and dashes, starting and ending with a letter or digit (at most 64 characters)',
  maxLength: 64,
  description: 'A slug',
} as const;
