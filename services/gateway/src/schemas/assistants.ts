import { IDENTIFIER, MODEL_ID, STREAM_FLAG, NON_BLANK, type JsonSchema } from './common';

export const ONBOARDING_STEPS = 5;

export interface AssistantBody {
  user_id: string;
  session_id: string;
  messages: Array<{ role: 'user' | 'system' | 'assistant'; content: string }>;
  step?: number;
  model?: string;
  stream?: boolean;
}

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
};

const baseProperties = {
  user_id: IDENTIFIER,
  session_id: IDENTIFIER,
  messages: messagesSchema,
  model: MODEL_ID,
  stream: STREAM_FLAG,
};

/** POST /api/v2/ai/assistants/chat: the general assistant has no steps, so step is an unknown field. */
export const AssistantChatRequest: JsonSchema = {
  title: 'AssistantChatRequest',
  type: 'object',
  additionalProperties: false,
  required: ['user_id', 'session_id', 'messages'],
  properties: baseProperties,
};

export const AssistantRequest: JsonSchema = {
  title: 'AssistantRequest',
  description: 'step is required by the onboarding agent',
  type: 'object',
  additionalProperties: false,
  required: ['user_id', 'session_id', 'messages'],
  properties: {
    ...baseProperties,
    step: { type: 'integer', minimum: 1, maximum: ONBOARDING_STEPS },
  },
};

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
