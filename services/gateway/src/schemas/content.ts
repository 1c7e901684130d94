import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { SUMMARY_LENGTHS, TEXT_FORMATS, TRANSFORM_ACTIONS } from '@switchyard/shared/contracts';
import {
  CALLBACK_URL,
  LANGUAGE_CODE,
  MODEL_ID,
  STREAM_FLAG,
  NON_BLANK,
  type JsonSchema,
} from './common';

export const MAX_OUTPUT_TOKENS = 32768;

export const GenerateContentRequest = {
  title: 'GenerateContentRequest',
  type: 'object',
  additionalProperties: false,
  required: ['prompt'],
  properties: {
    model: MODEL_ID,
    prompt: { ...NON_BLANK },
    max_length: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_OUTPUT_TOKENS,
      description: 'Output cap in tokens',
    },
    tone: { type: 'string', maxLength: 200 },
    language: LANGUAGE_CODE,
    webhookUrl: {
      ...CALLBACK_URL,
      description: 'When present the answer is 202 and the result is POSTed here, signed',
    },
    stream: { ...STREAM_FLAG, description: `${STREAM_FLAG.description}; not with webhookUrl` },
  },
} as const satisfies JSONSchema;

export type GenerateContentBody = FromSchema<typeof GenerateContentRequest>;

export const TransformContentRequest = {
  title: 'TransformContentRequest',
  type: 'object',
  additionalProperties: false,
  required: ['action', 'text'],
  properties: {
    model: MODEL_ID,
    action: { type: 'string', enum: TRANSFORM_ACTIONS },
    text: { ...NON_BLANK },
    target_length: { type: 'string', enum: SUMMARY_LENGTHS },
    format: { type: 'string', enum: TEXT_FORMATS },
    source_language: LANGUAGE_CODE,
    target_language: LANGUAGE_CODE,
  },
  allOf: [
    {
      if: { required: ['action'], properties: { action: { const: 'reformat' } } },
      then: { required: ['format'], properties: { format: { type: 'string' } } },
    },
    {
      if: { required: ['action'], properties: { action: { const: 'translate' } } },
      then: { required: ['target_language'], properties: { target_language: { type: 'string' } } },
    },
  ],
} as const satisfies JSONSchema;

export type TransformContentBody = FromSchema<typeof TransformContentRequest>;

const GenerateUsage = {
  type: 'object',
  additionalProperties: false,
  required: ['model', 'tokens_input', 'tokens_output', 'cost'],
  properties: {
    model: { type: 'string' },
    tokens_input: { type: 'integer' },
    tokens_output: { type: 'integer' },
    cost: { type: 'number' },
  },
};

const TransformUsage = {
  type: 'object',
  additionalProperties: false,
  required: ['model', 'tokens_input', 'tokens_output'],
  properties: {
    model: { type: 'string' },
    tokens_input: { type: 'integer' },
    tokens_output: { type: 'integer' },
  },
};

export const GenerateContentResponse: JsonSchema = {
  title: 'GenerateContentResponse',
  type: 'object',
  additionalProperties: false,
  required: ['content', 'usage', 'request_id'],
  properties: { content: { type: 'string' }, usage: GenerateUsage, request_id: { type: 'string' } },
};

export const AsyncAcknowledgment: JsonSchema = {
  title: 'AsyncAcknowledgment',
  type: 'object',
  additionalProperties: false,
  required: ['status', 'requestId'],
  properties: { status: { type: 'string', const: 'processing' }, requestId: { type: 'string' } },
};

function transformVariant(
  fields: Record<string, JsonSchema>,
  optional: Record<string, JsonSchema> = {},
): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: [...Object.keys(fields), 'usage', 'request_id'],
    properties: { ...fields, ...optional, usage: TransformUsage, request_id: { type: 'string' } },
  };
}

/** translate, when the model reports it (rule-based engines): the languages the text went through. */
const TranslationRoute: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['route', 'pivot_languages'],
  properties: {
    route: {
      type: 'array',
      items: { type: 'string' },
      description: '["en", "es", "fr"]: en -> fr through es',
    },
    pivot_languages: {
      type: 'array',
      items: { type: 'string' },
      description: 'Languages between source and target; empty for a direct pair',
    },
  },
};

export const TransformContentResponse: JsonSchema = {
  title: 'TransformContentResponse',
  description:
    'summarize: original_length + transformed_text; reformat: original_format + transformed_text; translate: original_text + translated_text',
  oneOf: [
    transformVariant({
      original_length: { type: 'integer' },
      transformed_text: { type: 'string' },
    }),
    transformVariant({
      original_format: { type: 'string', enum: TEXT_FORMATS },
      transformed_text: { type: 'string' },
    }),
    transformVariant(
      { original_text: { type: 'string' }, translated_text: { type: 'string' } },
      { translation: TranslationRoute },
    ),
  ],
};

export const AsyncRequestStatus: JsonSchema = {
  title: 'AsyncRequestStatus',
  type: 'object',
  additionalProperties: false,
  required: ['requestId', 'status', 'operation', 'createdAt'],
  properties: {
    requestId: { type: 'string' },
    status: { type: 'string', enum: ['processing', 'completed', 'failed'] },
    operation: { type: 'string' },
    createdAt: { type: 'string' },
    completedAt: { type: 'string' },
    result: { type: 'string' },
    model: { type: 'string' },
    usage: {
      type: 'object',
      additionalProperties: false,
      required: ['totalTokens'],
      properties: { totalTokens: { type: 'integer' } },
    },
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
    delivery: {
      type: 'object',
      additionalProperties: false,
      description:
        "The result callback to the request's webhookUrl (absent without one, and while the work runs)",
      required: ['state', 'attempts'],
      properties: {
        state: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
        attempts: { type: 'integer', minimum: 0 },
        nextAttemptAt: { type: 'string' },
      },
    },
  },
};

export const ModelList: JsonSchema = {
  title: 'ModelList',
  type: 'object',
  additionalProperties: false,
  required: ['models'],
  properties: {
    models: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'id',
          'provider',
          'capabilities',
          'aliases',
          'inputPricePerMillion',
          'outputPricePerMillion',
          'contextWindow',
          'maxOutputTokens',
          'isDefault',
        ],
        properties: {
          id: { type: 'string' },
          provider: { type: 'string' },
          capabilities: { type: 'array', items: { type: 'string' } },
          aliases: { type: 'array', items: { type: 'string' } },
          inputPricePerMillion: { type: 'number' },
          outputPricePerMillion: { type: 'number' },
          contextWindow: { type: 'integer' },
          maxOutputTokens: { type: 'integer' },
          isDefault: { type: 'boolean' },
          translationPairs: {
            type: 'array',
            items: { type: 'string' },
            description: 'Only for models limited to installed pairs ("en-es")',
          },
        },
      },
    },
  },
};
