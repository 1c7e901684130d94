import type {
  AgentProfile__Output,
  SessionView__Output,
} from '@switchyard/shared/proto/assistant/v1';
import {
  AgentList,
  AgentProfile,
  AssistantSession,
  PutAgentRequest,
  type AgentProfileBody,
} from '../schemas/agents';
import { json, type AnyRoute, type RouteSpec } from './types';

const TAG = 'agents';

function profileView(p: AgentProfile__Output) {
  const builtin = p.created_at === '';
  return {
    name: p.name,
    description: p.description,
    instructions: p.instructions,
    model: p.model,
    collections: p.collections,
    tools: p.tools,
    greeting: p.greeting,
    steps: p.steps.map((s) => ({ title: s.title, goal: s.goal, confirm: s.confirm })),
    base: p.base,
    escalation: {
      message: p.escalation?.message ?? '',
      contact: p.escalation?.contact ?? '',
      channel: p.escalation?.channel ?? '',
    },
    servingModel: {
      model: p.serving?.model ?? '',
      honoured: p.serving?.honoured ?? [],
      ignored: p.serving?.ignored ?? [],
      note: p.serving?.note ?? '',
    },
    builtin,
    createdAt: builtin ? null : p.created_at,
    updatedAt: builtin ? null : p.updated_at,
  };
}

function sessionView(s: SessionView__Output) {
  return {
    session_id: s.session_id,
    user_id: s.user_id,
    agent: s.agent,
    messages: s.messages.map((m) => ({
      role: m.role,
      content: m.content,
      ...(m.grounding
        ? {
            grounding: {
              model: m.grounding.model,
              overruled: m.grounding.overruled,
              issues: m.grounding.issues.map((i) => ({ kind: i.kind, value: i.value })),
            },
          }
        : {}),
    })),
    onboarding: {
      confirmed_steps: s.onboarding?.confirmed_steps ?? [],
      current_step: s.onboarding?.current_step ?? null,
      draft: s.onboarding?.draft_json ? (JSON.parse(s.onboarding.draft_json) as object) : null,
    },
    summary: s.summary || null,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

const listAgents: RouteSpec = {
  method: 'GET',
  path: '/api/v2/agents',
  operationId: 'listAgents',
  summary:
    "The organization's agents: chat, support, onboarding (or its overrides of them) and its own",
  tag: TAG,
  auth: true,
  responses: { 200: { description: 'Agents by name', schema: AgentList } },
  async handle({ call }, deps) {
    const listed = await deps.clients.assistant.listAgents({}, call);
    const custom = new Set(listed.profiles.map((p) => p.name));
    return json(200, {
      agents: listed.agents.map((a) => ({
        name: a.name,
        description: a.description,
        usesSteps: a.uses_steps,
        searchedKinds: a.searched_kinds,
        custom: custom.has(a.name),
      })),
    });
  },
};

const putAgent: RouteSpec<AgentProfileBody> = {
  method: 'PUT',
  path: '/api/v2/agents/:name',
  operationId: 'putAgent',
  summary:
    'Create or replace an agent profile; it answers at /api/v2/ai/assistants/{name} (chat, support, onboarding: an override)',
  tag: TAG,
  auth: true,
  requestSchema: PutAgentRequest,
  responses: { 200: { description: 'The stored profile', schema: AgentProfile } },
  async handle({ params, body, call }, deps) {
    // Fields the body leaves out reach the assistant as the message's defaults ('', []).
    const stored = await deps.clients.assistant.putAgent({ name: params.name, ...body }, call);
    return json(200, profileView(stored));
  },
};

const getAgent: RouteSpec = {
  method: 'GET',
  path: '/api/v2/agents/:name',
  operationId: 'getAgent',
  summary: 'One agent profile (a built-in without an override answers as its default)',
  tag: TAG,
  auth: true,
  responses: { 200: { description: 'The profile', schema: AgentProfile } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    return json(
      200,
      profileView(await deps.clients.assistant.getAgent({ name: params.name }, call)),
    );
  },
};

const deleteAgent: RouteSpec = {
  method: 'DELETE',
  path: '/api/v2/agents/:name',
  operationId: 'deleteAgent',
  summary: "Remove a stored profile (an override of a built-in: the built-in's behaviour returns)",
  tag: TAG,
  auth: true,
  responses: { 204: { description: 'Deleted' } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    await deps.clients.assistant.deleteAgent({ name: params.name }, call);
    return { status: 204 };
  },
};

const getSession: RouteSpec = {
  method: 'GET',
  path: '/api/v2/assistants/sessions/:sessionId',
  operationId: 'getAssistantSession',
  summary:
    "A conversation of the caller's organization: its stored history and onboarding progress (to resume)",
  tag: 'assistants',
  auth: true,
  responses: { 200: { description: 'The session', schema: AssistantSession } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    return json(
      200,
      sessionView(await deps.clients.assistant.getSession({ session_id: params.sessionId }, call)),
    );
  },
};

export const agentRoutes: AnyRoute[] = [listAgents, putAgent, getAgent, deleteAgent, getSession];
