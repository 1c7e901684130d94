import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import {
  AGENT_PROFILE_FIELDS,
  AGENT_TOOLS,
  BASE_AGENTS,
  type AgentProfileField,
  type Agree,
  type SameFields,
} from '@switchyard/shared/contracts';
import type { AgentProfile as AgentProfileMessage } from '@switchyard/shared/proto/assistant/v1';
import { SLUG_NAME, type JsonSchema } from './common';

/** Agent and collection names (the console's forms read these limits too). */
export const NAME = SLUG_NAME;

const stepSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['title'],
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 200 },
    goal: { type: 'string', maxLength: 2000 },
    confirm: {
      type: 'string',
      maxLength: 500,
      description: 'What the user confirms to complete the step',
    },
  },
} as const satisfies JSONSchema;

/** The fields of a profile as PUT /api/v2/agents/{name} validates them (the console's forms read these limits too). */
export const profileProperties = {
  description: { type: 'string', maxLength: 1000 },
  instructions: { type: 'string', maxLength: 20000, description: "Lead the agent's system prompt" },
  model: {
    type: 'string',
    maxLength: 200,
    description: "Model when a call names none ('' = the service default)",
  },
  collections: {
    type: 'array',
    maxItems: 50,
    items: NAME,
    description: "Knowledge collections it searches; empty = all of the organization's",
  },
  tools: {
    type: 'array',
    maxItems: 3,
    items: { type: 'string', enum: AGENT_TOOLS },
  },
  greeting: { type: 'string', maxLength: 2000, description: 'The reply to a bare greeting' },
  steps: {
    type: 'array',
    maxItems: 5,
    items: stepSchema,
    description: "A step agent's steps (base onboarding; the step field is 1..5)",
  },
  base: {
    type: 'string',
    enum: BASE_AGENTS,
    description: 'Whose behaviour it builds on (default: chat, onboarding with steps)',
  },
  escalation: {
    type: 'object',
    additionalProperties: false,
    description:
      'How support hands a conversation to a person: the message, a contact (email, phone, URL) and the channel; omitted parts are left out of replies',
    properties: {
      message: { type: 'string', maxLength: 1000 },
      contact: { type: 'string', maxLength: 300 },
      channel: { type: 'string', maxLength: 100 },
    },
  },
} as const satisfies Record<AgentProfileField, JSONSchema>;

/** PUT /api/v2/agents/{name}: the name is the path segment. */
export const PutAgentRequest = {
  title: 'PutAgentRequest',
  type: 'object',
  additionalProperties: false,
  properties: profileProperties,
} as const satisfies JSONSchema;

export type AgentProfileBody = FromSchema<typeof PutAgentRequest>;
/** The body goes to the assistant as its message (the name from the path; the rest it sets). */
export type AgentProfileAgrees = Agree<
  SameFields<
    AgentProfileBody & { name: string },
    Omit<AgentProfileMessage, 'serving' | 'created_at' | 'updated_at'>
  >
>;

export const AgentProfile: JsonSchema = {
  title: 'AgentProfile',
  type: 'object',
  additionalProperties: false,
  required: ['name', ...AGENT_PROFILE_FIELDS, 'servingModel', 'builtin', 'createdAt', 'updatedAt'],
  properties: {
    name: { type: 'string' },
    ...profileProperties,
    steps: {
      type: 'array',
      items: {
        type: 'object',
        required: ['title', 'goal', 'confirm'],
        properties: {
          title: { type: 'string' },
          goal: { type: 'string' },
          confirm: { type: 'string' },
        },
      },
    },
    base: { type: 'string' },
    escalation: {
      type: 'object',
      required: ['message', 'contact', 'channel'],
      properties: {
        message: { type: 'string' },
        contact: { type: 'string' },
        channel: { type: 'string' },
      },
    },
    servingModel: {
      type: 'object',
      description:
        'The model that serves the profile and which of its fields that model follows (the builtin engine ignores instructions and tools)',
      required: ['model', 'honoured', 'ignored', 'note'],
      properties: {
        model: { type: 'string' },
        honoured: { type: 'array', items: { type: 'string' } },
        ignored: { type: 'array', items: { type: 'string' } },
        note: { type: 'string' },
      },
    },
    builtin: { type: 'boolean', description: 'true: the built-in default (no stored profile)' },
    createdAt: { type: ['string', 'null'] },
    updatedAt: { type: ['string', 'null'] },
  },
};

export const AgentList: JsonSchema = {
  title: 'AgentList',
  type: 'object',
  additionalProperties: false,
  required: ['agents'],
  properties: {
    agents: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'description', 'usesSteps', 'searchedKinds', 'custom'],
        properties: {
          name: { type: 'string' },
          description: { type: 'string' },
          usesSteps: { type: 'boolean' },
          searchedKinds: {
            type: 'array',
            items: { type: 'string' },
            description:
              'The kinds of knowledge collections the agent searches (support: articles and documents; onboarding: none); a collection of another kind among its collections is not read',
          },
          custom: {
            type: 'boolean',
            description: 'true: defined by the organization (its own agent or an override)',
          },
        },
      },
    },
  },
};

export const AssistantSession: JsonSchema = {
  title: 'AssistantSession',
  type: 'object',
  additionalProperties: false,
  required: [
    'session_id',
    'user_id',
    'agent',
    'messages',
    'onboarding',
    'created_at',
    'updated_at',
  ],
  properties: {
    session_id: { type: 'string' },
    user_id: { type: 'string' },
    agent: { type: 'string' },
    messages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['role', 'content'],
        properties: {
          role: { type: 'string' },
          content: { type: 'string' },
          grounding: {
            type: 'object',
            additionalProperties: false,
            required: ['model', 'overruled', 'issues'],
            description:
              'On a reply a model wrote: what the grounding check found. overruled: the reply stated a price, number, date, time, link, contact or name the facts of the turn do not hold (or looped, or ran away), and the service sent its own extractive answer instead.',
            properties: {
              model: { type: 'string' },
              overruled: { type: 'boolean' },
              issues: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['kind', 'value'],
                  properties: {
                    kind: {
                      type: 'string',
                      enum: [
                        'price',
                        'number',
                        'date',
                        'time',
                        'url',
                        'email',
                        'phone',
                        'name',
                        'unsupported',
                        'loop',
                        'length',
                      ],
                    },
                    value: { type: 'string' },
                  },
                },
              },
            },
          },
        },
      },
    },
    onboarding: {
      type: 'object',
      additionalProperties: false,
      required: ['confirmed_steps', 'current_step', 'draft'],
      properties: {
        confirmed_steps: { type: 'array', items: { type: 'integer' } },
        current_step: { type: ['integer', 'null'] },
        draft: {
          type: ['object', 'null'],
          description: 'The course draft built so far: topic, audience, modules, basedOn',
        },
      },
    },
    summary: {
      type: ['string', 'null'],
      description:
        "Running summary of the earlier turns that no longer fit the model's token budget; the model is sent it in place of them",
    },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
};
