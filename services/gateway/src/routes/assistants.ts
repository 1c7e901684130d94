import type { ReplyResponse__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/ReplyResponse';
import { AssistantChatRequest, AssistantReply, AssistantRequest, OnboardingRequest, type AssistantBody } from '../schemas/assistants';
import { validateBody } from '../schemas/validator';
import { json, type AnyRoute, type RouteDeps, type RouteInput, type RouteResult, type RouteSpec } from './types';

/** The agent that leads through numbered steps; it needs "step" (contract-decisions.md). */
const STEPPED_AGENT = 'onboarding';

/** Onboarding replies carry step and next_step (null after the last step); other agents carry neither. */
function renderReply(response: ReplyResponse__Output, requestId: string) {
  const reply = {
    reply: response.reply,
    session_id: response.session_id,
    agent: response.agent,
    request_id: requestId,
    model: response.model,
    usage: { tokens_used: response.usage?.tokens_used ?? 0, timestamp: response.usage?.timestamp ?? '' },
  };
  if (response.step === undefined || response.step === null) return reply;
  return { ...reply, step: response.step, next_step: response.next_step ?? null };
}

async function reply(agent: string, { body, call }: RouteInput<AssistantBody, unknown>, deps: RouteDeps): Promise<RouteResult> {
  const response = await deps.clients.assistant.reply(
    {
      agent,
      user_id: body.user_id,
      session_id: body.session_id,
      messages: body.messages,
      step: body.step,
      model: body.model ?? '',
    },
    call,
  );
  return json(200, renderReply(response, call.requestId));
}

const chat: RouteSpec<AssistantBody> = {
  method: 'POST',
  path: '/api/v2/ai/assistants/chat',
  operationId: 'chatWithAssistant',
  summary: 'Talk to the general chat assistant (no steps)',
  tag: 'assistants',
  auth: true,
  requestSchema: AssistantChatRequest,
  responses: { 200: { description: 'The assistant reply', schema: AssistantReply } },
  errors: ['unsupported', 'rate_limited', 'quota_exceeded', 'upstream_error'],
  handle: (input, deps) => reply('chat', input, deps),
};

const agentReply: RouteSpec<AssistantBody> = {
  method: 'POST',
  path: '/api/v2/ai/assistants/:agent',
  operationId: 'replyWithAgent',
  summary: 'Talk to an agent profile (support, onboarding...); onboarding requires step 1..5',
  tag: 'assistants',
  auth: true,
  requestSchema: AssistantRequest,
  responses: { 200: { description: 'The agent reply', schema: AssistantReply } },
  errors: ['not_found', 'unsupported', 'rate_limited', 'quota_exceeded', 'upstream_error'],
  validate({ params, body }) {
    if (params.agent === STEPPED_AGENT) validateBody(OnboardingRequest, body);
  },
  handle: (input, deps) => reply(input.params.agent, input, deps),
};

/** chat comes first: it is more specific than /:agent and must win. */
export const assistantRoutes: AnyRoute[] = [chat, agentReply];
