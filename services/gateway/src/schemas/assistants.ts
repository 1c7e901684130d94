import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { IDENTIFIER, MODEL_ID, STREAM_FLAG, NON_BLANK, type JsonSchema } from './common';

export const ONBOARDING_STEPS = 5;

const messagesSchema = {
  type: 'array',
  minItems: 1,
  maxItems: 500,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['role', 'content'],
    properties: {
      role: { type: 'string', enum: ['user', 'system', 'assistant'] },
      content: { ...NON_BLANK },
    },
  },
} as const satisfies JSONSchema;

const baseProperties = {
  user_id: IDENTIFIER,
  session_id: IDENTIFIER,
  messages: messagesSchema,
  model: MODEL_ID,
  stream: STREAM_FLAG,
} as const satisfies Record<string, JSONSchema>;

/** POST /api/v2/ai/assistants/chat: the general assistant has no steps, so step is an unknown field. */
export const AssistantChatRequest = {
  title: 'AssistantChatRequest',
  type: 'object',
  additionalProperties: false,
  required: ['user_id', 'session_id', 'messages'],
  properties: baseProperties,
} as const satisfies JSONSchema;

export const AssistantRequest = {
  title: 'AssistantRequest',
  description: 'step is required by the onboarding agent',
  type: 'object',
  additionalProperties: false,
  required: ['user_id', 'session_id', 'messages'],
  properties: {
    ...baseProperties,
    step: { type: 'integer', minimum: 1, maximum: ONBOARDING_STEPS },
  },
} as const satisfies JSONSchema;

export type AssistantBody = FromSchema<typeof AssistantRequest>;

/** The onboarding agent's body: AssistantRequest with step required. */
export const OnboardingRequest: JsonSchema = {
  ...AssistantRequest,
  title: 'OnboardingRequest',
  required: ['user_id', 'session_id', 'messages', 'step'],
};

export const AssistantReply: JsonSchema = {
  title: 'AssistantReply',
  description:
    'step and next_step appear for the onboarding agent only (next_step is null after step 5)',
  type: 'object',
  additionalProperties: false,
  required: ['reply', 'session_id', 'agent', 'request_id', 'model', 'usage'],
  properties: {
    reply: { type: 'string' },
    session_id: { type: 'string' },
    agent: { type: 'string' },
    request_id: { type: 'string' },
    model: { type: 'string' },
    usage: {
      type: 'object',
      additionalProperties: false,
      required: ['tokens_used', 'timestamp'],
      properties: {
        tokens_used: { type: 'integer' },
        timestamp: { type: 'string', format: 'date-time' },
      },
    },
    step: { type: 'integer', minimum: 1, maximum: ONBOARDING_STEPS },
    next_step: { type: ['integer', 'null'] },
  },
};
