import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { JsonSchema } from './common';

/**
 * The OpenAI-compatible surface's bodies, as OpenAI's API reference defines them. Requests are
 * checked on the parameters the service reads; parameters beyond them are passed on unchanged to
 * OpenAI-compatible providers (other models honour what they can and refuse the rest).
 */

const optional = <const S extends { type: string }>(schema: S) => ({
  ...schema,
  type: [schema.type, 'null'] as [S['type'], 'null'],
});

const CONTENT_PART = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' }, text: { type: 'string' } },
} as const satisfies JSONSchema;

const TOOL_CALL = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string' },
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      properties: { name: { type: 'string' }, arguments: { type: 'string' } },
    },
  },
} as const satisfies JSONSchema;

const MESSAGE = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { enum: ['system', 'developer', 'user', 'assistant', 'tool', 'function'] },
    content: {
      anyOf: [
        { type: 'string' },
        { type: 'array', items: CONTENT_PART, maxItems: 1000 },
        { type: 'null' },
      ],
    },
    name: { type: 'string' },
    tool_calls: { type: 'array', items: TOOL_CALL, maxItems: 128 },
    tool_call_id: { type: 'string' },
  },
} as const satisfies JSONSchema;

const TOOL = {
  type: 'object',
  required: ['type', 'function'],
  properties: {
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
        description: { type: 'string' },
        parameters: { type: 'object' },
        strict: optional({ type: 'boolean' }),
      },
    },
  },
} as const satisfies JSONSchema;

export const ChatCompletionRequest = {
  title: 'ChatCompletionRequest',
  type: 'object',
  required: ['model', 'messages'],
  description:
    "OpenAI's chat completions request. Parameters not listed here reach OpenAI-compatible providers unchanged.",
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 200, description: 'A model id or alias' },
    messages: { type: 'array', minItems: 1, maxItems: 10_000, items: MESSAGE },
    stream: optional({ type: 'boolean' }),
    stream_options: {
      type: ['object', 'null'],
      properties: { include_usage: { type: 'boolean' } },
      description: 'include_usage: a last chunk with the usage and no choices, before [DONE]',
    },
    n: optional({ type: 'integer', minimum: 1, maximum: 128 }),
    stop: {
      anyOf: [
        { type: 'string' },
        { type: 'array', items: { type: 'string' }, maxItems: 4 },
        { type: 'null' },
      ],
    },
    temperature: optional({ type: 'number', minimum: 0, maximum: 2 }),
    top_p: optional({ type: 'number', minimum: 0, maximum: 1 }),
    max_tokens: optional({ type: 'integer', minimum: 1 }),
    max_completion_tokens: optional({ type: 'integer', minimum: 1 }),
    response_format: {
      type: ['object', 'null'],
      required: ['type'],
      properties: { type: { enum: ['text', 'json_object', 'json_schema'] } },
    },
    tools: { type: 'array', items: TOOL, maxItems: 128 },
    tool_choice: {
      anyOf: [
        { enum: ['none', 'auto', 'required'] },
        {
          type: 'object',
          required: ['type', 'function'],
          properties: {
            type: { const: 'function' },
            function: {
              type: 'object',
              required: ['name'],
              properties: { name: { type: 'string' } },
            },
          },
        },
        { type: 'null' },
      ],
    },
  },
} as const satisfies JSONSchema;

export type ChatCompletionBody = FromSchema<typeof ChatCompletionRequest>;

const USAGE = {
  type: 'object',
  required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
  properties: {
    prompt_tokens: { type: 'integer' },
    completion_tokens: { type: 'integer' },
    total_tokens: { type: 'integer' },
  },
};

export const ChatCompletion: JsonSchema = {
  title: 'ChatCompletion',
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices'],
  description:
    "OpenAI's chat.completion object (an OpenAI-compatible provider's answer is passed on as it is)",
  properties: {
    id: { type: 'string' },
    object: { const: 'chat.completion' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'message', 'finish_reason'],
        properties: {
          index: { type: 'integer' },
          message: {
            type: 'object',
            required: ['role'],
            properties: {
              role: { const: 'assistant' },
              content: { type: ['string', 'null'] },
              tool_calls: { type: 'array', items: TOOL_CALL },
            },
          },
          finish_reason: { type: 'string' },
        },
      },
    },
    usage: USAGE,
  },
};

export const EmbeddingRequest = {
  title: 'EmbeddingRequest',
  type: 'object',
  additionalProperties: false,
  required: ['model', 'input'],
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 200 },
    input: {
      // As OpenAI: an input may not be an empty string.
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'array', minItems: 1, maxItems: 2048, items: { type: 'string', minLength: 1 } },
        {
          type: 'array',
          minItems: 1,
          items: { anyOf: [{ type: 'integer' }, { type: 'array', items: { type: 'integer' } }] },
          description: 'Token arrays: refused (422); send text',
        },
      ],
    },
    encoding_format: { enum: ['float', 'base64'] },
    dimensions: { type: 'integer', minimum: 1 },
    user: { type: 'string' },
  },
} as const satisfies JSONSchema;

export type EmbeddingBody = FromSchema<typeof EmbeddingRequest>;

export const EmbeddingList: JsonSchema = {
  title: 'EmbeddingList',
  type: 'object',
  required: ['object', 'data', 'model', 'usage'],
  properties: {
    object: { const: 'list' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['object', 'index', 'embedding'],
        properties: {
          object: { const: 'embedding' },
          index: { type: 'integer' },
          embedding: {
            anyOf: [
              { type: 'array', items: { type: 'number' } },
              { type: 'string', description: 'base64 of little-endian float32 values' },
            ],
          },
        },
      },
    },
    model: { type: 'string' },
    usage: {
      type: 'object',
      required: ['prompt_tokens', 'total_tokens'],
      properties: { prompt_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } },
    },
  },
};

export const OpenAiModel: JsonSchema = {
  title: 'OpenAiModel',
  type: 'object',
  required: ['id', 'object', 'created', 'owned_by'],
  properties: {
    id: { type: 'string' },
    object: { const: 'model' },
    created: { type: 'integer' },
    owned_by: { type: 'string', description: 'The provider kind of the registry entry' },
  },
};

export const OpenAiModelList: JsonSchema = {
  title: 'OpenAiModelList',
  type: 'object',
  required: ['object', 'data'],
  properties: { object: { const: 'list' }, data: { type: 'array', items: OpenAiModel } },
};

/** OpenAI's error body, answered by every path under /v1/. */
export const OpenAiErrorResponse: JsonSchema = {
  title: 'OpenAiErrorResponse',
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'param', 'code'],
      properties: {
        message: { type: 'string' },
        type: {
          type: 'string',
          description:
            'invalid_request_error (4xx), requests (429 rate limit), insufficient_quota (429 quota), server_error (5xx)',
        },
        param: { type: ['string', 'null'] },
        code: {
          type: ['string', 'null'],
          description:
            "invalid_api_key, model_not_found, rate_limit_exceeded, insufficient_quota, context_length_exceeded, or the contract's code",
        },
      },
    },
  },
};
