import { AppError } from '@switchyard/shared';
import type {
  ReplyChunk__Output,
  ReplyRequest,
  ReplyResponse__Output,
} from '@switchyard/shared/proto/assistant/v1';
import {
  AssistantChatRequest,
  AssistantReply,
  AssistantRequest,
  OnboardingRequest,
  type AssistantBody,
} from '../schemas/assistants';
import { validateBody } from '../schemas/validator';
import type { BillingSpec } from '../metering/metering';
import { nativeEvents, sseResponse } from '../streaming/sse';
import { json, type AnyRoute, type RouteDeps, type RouteSpec } from './types';
import type { RouteInput, RouteResult } from '../route-io';
import type { Spent } from '../store/response-cache/port';
import { billedRequestId } from './request-ids';

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
    usage: {
      tokens_used: response.usage?.tokens_used ?? 0,
      timestamp: response.usage?.timestamp ?? '',
    },
  };
  if (response.step === undefined || response.step === null) return reply;
  return { ...reply, step: response.step, next_step: response.next_step ?? null };
}

/** The call for the assistant service, with the organization's time zone for dates in the user's words. */
async function toReplyRequest(
  agent: string,
  { body, call }: RouteInput<AssistantBody, unknown>,
  deps: RouteDeps,
): Promise<ReplyRequest> {
  const { timeZone } = await deps.organizations.policyOf(call.organization);
  return {
    agent,
    user_id: body.user_id,
    session_id: body.session_id,
    messages: body.messages,
    step: body.step,
    model: body.model ?? '',
    time_zone: timeZone,
  };
}

async function streamReply(
  agent: string,
  input: RouteInput<AssistantBody, unknown>,
  deps: RouteDeps,
): Promise<RouteResult> {
  const { call, signal, route } = input;
  const request = await toReplyRequest(agent, input, deps);
  let final: ReplyResponse__Output | null | undefined;
  const result = await sseResponse(
    nativeEvents(deps.clients.assistant.replyStream(request, call), {
      deltaOf: (chunk: ReplyChunk__Output) =>
        chunk.kind === 'delta' ? (chunk.delta ?? '') : undefined,
      doneOf: (chunk: ReplyChunk__Output) => {
        if (!chunk.final)
          throw new AppError('internal', 'assistant service answered without a final reply');
        return renderReply(chunk.final, call.requestId);
      },
      usageOf: (chunk: ReplyChunk__Output) => {
        final = chunk.final;
        return chunk.final?.usage?.tokens_used ?? undefined;
      },
    }),
    { requestId: call.requestId, route, signal, logger: deps.logger },
  );
  return { ...result, spent: result.finished?.then(() => replySpent(final)) };
}

/** What a reply spent: the model that answered, every model round's tokens and their cost. */
function replySpent(reply: ReplyResponse__Output | null | undefined): Spent | undefined {
  const usage = reply?.usage;
  if (!reply || !usage) return undefined;
  return {
    model: reply.model,
    tokensInput: usage.tokens_input,
    tokensOutput: usage.tokens_output,
    cost: usage.cost,
  };
}

async function reply(
  agent: string,
  input: RouteInput<AssistantBody, unknown>,
  deps: RouteDeps,
): Promise<RouteResult> {
  if (input.body.stream) return streamReply(agent, input, deps);
  const response = await deps.clients.assistant.reply(
    await toReplyRequest(agent, input, deps),
    input.call,
  );
  return {
    ...json(200, renderReply(response, billedRequestId(response, input.call))),
    usage: response.usage?.tokens_used ?? undefined,
    spent: replySpent(response),
  };
}

/** Assistants are metered on the whole conversation they read; replies report usage.tokens_used. */
const assistantBilling: BillingSpec<AssistantBody> = {
  input: (body) => ({ text: body.messages.map((m) => m.content).join('\n') }),
  endUser: (body) => body.user_id,
  model: (body) => body.model,
};

const STREAMED_REPLY =
  'With stream: true: `delta` events {"text"}, then `done` with the AssistantReply, or `error` with the ErrorResponse';

const chat: RouteSpec<AssistantBody> = {
  method: 'POST',
  path: '/api/v2/ai/assistants/chat',
  operationId: 'chatWithAssistant',
  idempotent: true,
  summary: 'Talk to the general chat assistant (no steps)',
  tag: 'assistants',
  auth: true,
  requestSchema: AssistantChatRequest,
  billing: assistantBilling,
  responses: {
    200: {
      description: 'The assistant reply',
      schema: AssistantReply,
      eventStream: STREAMED_REPLY,
    },
  },
  errors: ['unsupported', 'rate_limited', 'quota_exceeded', 'upstream_error'],
  handle: (input, deps) => reply('chat', input, deps),
};

const agentReply: RouteSpec<AssistantBody> = {
  method: 'POST',
  path: '/api/v2/ai/assistants/:agent',
  operationId: 'replyWithAgent',
  idempotent: true,
  summary:
    "Talk to an agent (support, onboarding, or one of the organization's own); onboarding requires step 1..5 (any step answers; earlier steps not confirmed are named in the reply)",
  tag: 'assistants',
  auth: true,
  requestSchema: AssistantRequest,
  billing: assistantBilling,
  responses: {
    200: { description: 'The agent reply', schema: AssistantReply, eventStream: STREAMED_REPLY },
  },
  errors: ['not_found', 'unsupported', 'rate_limited', 'quota_exceeded', 'upstream_error'],
  validate({ params, body }) {
    if (params.agent === STEPPED_AGENT) validateBody(OnboardingRequest, body);
  },
  handle: (input, deps) => reply(input.params.agent, input, deps),
};

/** chat comes first: it is more specific than /:agent and must win. */
export const assistantRoutes: AnyRoute[] = [chat, agentReply];
