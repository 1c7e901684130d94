import { AppError, type CallContext, type StreamSink, UsageRoutes } from '@switchyard/shared';
import type {
  CompleteChunk,
  CompleteRequest__Output,
  CompleteResponse,
} from '@switchyard/shared/proto/content/v1';
import { ChatStreamRelay } from '../models/openai/chat-stream-relay';
import {
  closingEvents,
  completeInputOf,
  countPrompt,
  countStreamedCompletion,
  chunkEvent,
  cutAtStop,
  deltaEvent,
  outputCapOf,
  parseChatBody,
  promptBytes,
  renderCompletion,
  settleCompletion,
  wireUsage,
  type ChatCompletionBody,
  type Rendering,
} from '../models/openai/chat-wire';
import { upstreamError } from '../models/openai/errors';
import { checkAllowed } from '../models/allowed';
import { modelNotFound } from '../models/registry';
import { routeWithFallback, wordDeltas } from '../models/routing';
import type { CallOptions, ChatRelay, TextModel, TextResult } from '../models/text-model';
import { withSpent } from '../models/usage';
import type { ModelDeps } from './deps';
import { billableOnce, callWithUsage, usageMessage } from './model-call';
import { maxLengthFor, requestIdOf } from './validation';

/**
 * Complete and CompleteStream with `openai_request`: the gateway's /v1/chat/completions. The
 * client's body goes to an OpenAI-compatible provider as it is (model name and the stream's usage
 * request aside) and its answer comes back unparsed but for the usage; other models answer through
 * the registry's complete() and are rendered as OpenAI's objects. Fallbacks as for every model
 * call (a stream only until its first event); usage is recorded without holding up the answer.
 */

interface PreparedChat {
  body: ChatCompletionBody;
  model: TextModel;
  /** The client's output cap, checked against the model's limit; undefined: the model's default. */
  cap?: number;
  includeUsage: boolean;
}

/** A result with the bytes the client gets (JSON calls). */
interface ChatResult extends TextResult {
  body: string;
}

function prepareChat(
  request: CompleteRequest__Output,
  deps: ModelDeps,
  context: CallContext,
): PreparedChat {
  const body = parseChatBody(request.openai_request);
  const model = deps.models.find(body.model);
  if (!model) throw modelNotFound(body.model, deps.models.able('chat'));
  checkAllowed(deps.models, model, context.models);
  if (!model.info.capabilities.includes('chat')) throw deps.models.cannot(model, 'chat');
  // Most prompts are far below the limits: the byte count bounds the tokens without a tokenizer pass.
  const bytes = promptBytes(body.messages);
  const cap = outputCapOf(body);
  const field = body.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens';
  if (cap !== undefined) maxLengthFor(cap, model, field);
  if (bytes > deps.maxInputTokens || bytes + (cap ?? 0) > model.info.contextWindow) {
    const tokens = countPrompt(body.messages);
    if (tokens > deps.maxInputTokens)
      throw new AppError(
        'payload_too_large',
        `messages are ${tokens} tokens; the limit is ${deps.maxInputTokens}`,
        [{ field: '/messages', reason: `over ${deps.maxInputTokens} tokens` }],
      );
    if (tokens + (cap ?? 0) > model.info.contextWindow)
      throw new AppError(
        'invalid_request',
        `This model's maximum context length is ${model.info.contextWindow} tokens; the messages are ${tokens} and ${cap ?? 0} more were asked for.`,
        [{ field: '/messages', reason: 'context_length_exceeded' }],
      );
  }
  return { body, model, cap, includeUsage: body.stream_options?.include_usage === true };
}

/**
 * A prompt over the model's context window, as the model itself counted it, is OpenAI's 400
 * context_length_exceeded (the native routes answer 413 for the same).
 */
function asOpenAiError(error: unknown): unknown {
  if (
    error instanceof AppError &&
    error.code === 'payload_too_large' &&
    error.details[0]?.reason === 'context_length_exceeded'
  )
    return new AppError('invalid_request', error.message, error.details);
  return error;
}

/** The body the provider gets: the client's, with the provider's model name (and usage asked for on a stream). */
function upstreamBody(body: ChatCompletionBody, relay: ChatRelay): string {
  const out: ChatCompletionBody = { ...body, model: relay.upstreamModel };
  if (body.stream) out.stream_options = { ...body.stream_options, include_usage: true };
  if (
    relay.outputTokenParam === 'max_completion_tokens' &&
    out.max_tokens != null &&
    out.max_completion_tokens == null
  ) {
    out.max_completion_tokens = out.max_tokens;
    delete out.max_tokens;
  }
  return JSON.stringify(out);
}

function renderingOf(model: TextModel, requestId: string): Rendering {
  return {
    id: `chatcmpl-${requestId.replace(/^req_/, '')}`,
    created: Math.floor(Date.now() / 1000),
    model: model.info.id,
  };
}

/** A model without OpenAI's wire format: its cap is the client's, else the model's limit. */
function outputCapFor(prepared: PreparedChat, model: TextModel): number {
  return Math.min(prepared.cap ?? model.info.maxOutputTokens, model.info.maxOutputTokens);
}

async function completeWith(
  model: TextModel,
  prepared: PreparedChat,
  requestId: string,
  options: CallOptions,
): Promise<ChatResult> {
  const relay = model.chatRelay;
  if (relay) {
    const relayed = await relay.relay(upstreamBody(prepared.body, relay), options, async (answer) =>
      settleCompletion(await answer.body.text(), prepared.body.messages),
    );
    return { text: '', ...relayed };
  }
  if (!model.complete) throw AppError.unsupported(`model ${model.info.id} cannot complete chats`);
  const maxTokens = outputCapFor(prepared, model);
  const input = completeInputOf(prepared.body, maxTokens);
  const result = await model.complete(input, options).catch((error: unknown) => {
    throw asOpenAiError(error);
  });
  const text = cutAtStop(result.text, input.stop);
  const answered = { ...result, text };
  return {
    ...answered,
    body: renderCompletion(answered, maxTokens, renderingOf(model, requestId)),
  };
}

/** Complete with openai_request: the chat.completion body and its usage. */
export async function completeChat(
  deps: ModelDeps,
  request: CompleteRequest__Output,
  context: CallContext,
  options: CallOptions,
): Promise<CompleteResponse> {
  // Kept answers (Idempotency-Key) are stored as JSON: the body stays text until it leaves.
  const answer = await billableOnce(deps, context, 'ChatCompletion', async (once) => {
    const requestId = requestIdOf(context);
    const prepared = prepareChat(request, deps, context);
    const result = await callWithUsage(deps.usage, {
      context,
      requestId,
      route: UsageRoutes.openAiChatCompletions,
      model: prepared.model,
      usageEventId: once.usageEventId,
      inBackground: true,
      run: () =>
        routeWithFallback('chat', deps.models.chainFor(prepared.model, 'chat'), (model) =>
          completeWith(model, prepared, requestId, options),
        ),
    });
    return { body: result.body, usage: usageMessage(result) };
  });
  return { text: '', usage: answer.usage, openai_body: Buffer.from(answer.body) };
}

/** The stream broke after events reached the client: 502 (or the failure's own code) with the tokens spent. */
function brokenStream(
  error: unknown,
  model: TextModel,
  prepared: PreparedChat,
  relayed: ChatStreamRelay,
): AppError {
  const cause =
    error instanceof AppError
      ? error
      : upstreamError(error, { provider: model.info.provider, model: model.info.id });
  const broken = new AppError(
    cause.code,
    `${cause.message} (the stream broke after part of the answer was sent)`,
    cause.details,
  );
  return withSpent(broken, {
    model: model.info,
    tokensInput: relayed.usage?.prompt_tokens ?? countPrompt(prepared.body.messages),
    tokensOutput:
      relayed.usage?.completion_tokens ?? countStreamedCompletion(relayed.relayedText()),
  });
}

type EventSink = (events: Buffer) => Promise<void>;

/** Relays the provider's events; the usage is the provider's, or counted (and sent, if asked) when it sent none. */
async function relayStream(
  model: TextModel,
  relay: ChatRelay,
  prepared: PreparedChat,
  requestId: string,
  send: EventSink,
  options: CallOptions,
): Promise<TextResult> {
  return relay.relay(upstreamBody(prepared.body, relay), options, async (answer, attempt) => {
    const events = new ChatStreamRelay(prepared.includeUsage);
    let sent = false;
    try {
      for await (const chunk of answer.body) {
        attempt.touch();
        const out = events.push(chunk);
        if (out) {
          sent = true;
          await send(out);
        }
      }
      const rest = events.end();
      if (rest) await send(rest);
    } catch (error) {
      if (!sent) throw error;
      throw brokenStream(error, model, prepared, events);
    }
    if (events.usage?.prompt_tokens !== undefined && events.usage.completion_tokens !== undefined)
      return {
        text: '',
        tokensInput: events.usage.prompt_tokens,
        tokensOutput: events.usage.completion_tokens,
      };
    const tokensInput = countPrompt(prepared.body.messages);
    const tokensOutput = countStreamedCompletion(events.relayedText());
    if (prepared.includeUsage)
      await send(
        Buffer.from(
          chunkEvent(renderingOf(model, requestId), [], wireUsage(tokensInput, tokensOutput)),
        ),
      );
    return { text: '', tokensInput, tokensOutput };
  });
}

/** A registry model streamed as chat.completion.chunk events (whole answer in word-sized pieces if it cannot stream). */
async function renderStream(
  model: TextModel,
  prepared: PreparedChat,
  requestId: string,
  send: EventSink,
  options: CallOptions,
): Promise<TextResult> {
  const maxTokens = outputCapFor(prepared, model);
  const input = completeInputOf(prepared.body, maxTokens);
  const rendering = renderingOf(model, requestId);
  let first = true;
  const onDelta = (delta: string) => {
    const fields = first ? { role: 'assistant', content: delta } : { content: delta };
    first = false;
    return send(Buffer.from(deltaEvent(rendering, fields)));
  };
  let result: TextResult;
  if (model.completeStream)
    result = await model.completeStream(input, onDelta, options).catch((error: unknown) => {
      throw asOpenAiError(error);
    });
  else if (model.complete) {
    result = await model.complete(input, options);
    for (const delta of wordDeltas(cutAtStop(result.text, input.stop))) await onDelta(delta);
  } else throw AppError.unsupported(`model ${model.info.id} cannot complete chats`);
  if (first) await send(Buffer.from(deltaEvent(rendering, { role: 'assistant', content: '' })));
  await send(Buffer.from(closingEvents(result, maxTokens, rendering, prepared.includeUsage)));
  return result;
}

/** CompleteStream with openai_request: chat.completion.chunk events, then the usage. */
export async function completeChatStream(
  deps: ModelDeps,
  request: CompleteRequest__Output,
  context: CallContext,
  sink: StreamSink<CompleteChunk>,
): Promise<void> {
  const requestId = requestIdOf(context);
  const prepared = prepareChat(request, deps, context);
  let sent = 0;
  const send: EventSink = (events) => {
    sent++;
    return sink.write({ openai_events: events });
  };
  const result = await callWithUsage(deps.usage, {
    context,
    requestId,
    route: UsageRoutes.openAiChatCompletions,
    model: prepared.model,
    inBackground: true,
    run: () =>
      routeWithFallback(
        'chat',
        deps.models.chainFor(prepared.model, 'chat'),
        (model) =>
          model.chatRelay
            ? relayStream(model, model.chatRelay, prepared, requestId, send, sink.control)
            : renderStream(model, prepared, requestId, send, sink.control),
        () => sent === 0,
      ),
  });
  await sink.write({ final: { text: '', usage: usageMessage(result) } });
}
