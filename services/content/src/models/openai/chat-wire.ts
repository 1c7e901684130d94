import { AppError, countTokens } from '@switchyard/shared';
import type { ChatMessage, CompleteInput, TextResult, ToolCall } from '../text-model';
import type { ReportedUsage } from '../usage';

/**
 * OpenAI's chat completions wire format, as the /v1/chat/completions path needs it: the request
 * fields the service reads (the gateway validated the body against OpenAI's schema), the usage of
 * an answer that reported none, and answers rendered for models that do not speak it.
 */

type ContentPart = { type: string; text?: string };

export interface WireMessage {
  role: string;
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface WireTool {
  type: string;
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** The fields of a chat completions request the service reads; the rest is passed through. */
export interface ChatCompletionBody {
  model: string;
  messages: WireMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  n?: number | null;
  stop?: string | string[] | null;
  temperature?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  response_format?: { type: string } | null;
  tools?: WireTool[];
  tool_choice?: string | { type: string } | null;
  [parameter: string]: unknown;
}

export function parseChatBody(bytes: Uint8Array): ChatCompletionBody {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString());
  } catch {
    throw AppError.invalid('the chat completions body is not JSON');
  }
  const chat = body as Partial<ChatCompletionBody> | null;
  if (typeof chat?.model !== 'string' || chat.model === '')
    throw AppError.invalid('model is required', '/model', 'required');
  if (!Array.isArray(chat.messages) || chat.messages.length === 0)
    throw AppError.invalid('messages must be a non-empty array', '/messages', 'required');
  return chat as ChatCompletionBody;
}

/** The text of a message's content: a string, or the text parts of an array (images carry none). */
export function textOf(content: WireMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) if (typeof part.text === 'string') text += part.text;
  return text;
}

/** An upper bound of the prompt's tokens without a tokenizer pass (a token is at least one UTF-8 byte). */
export function promptBytes(messages: WireMessage[]): number {
  let bytes = 0;
  for (const message of messages) bytes += Buffer.byteLength(textOf(message.content));
  return bytes;
}

/** The prompt's tokens as the shared tokenizer counts them (text parts and tool calls). */
export function countPrompt(messages: WireMessage[]): number {
  let tokens = 0;
  for (const message of messages) {
    tokens += countTokens(textOf(message.content));
    for (const call of message.tool_calls ?? [])
      tokens += countTokens(call.function.name) + countTokens(call.function.arguments);
  }
  return tokens;
}

/** The output cap the client asked for (max_completion_tokens wins, as at OpenAI). */
export function outputCapOf(body: ChatCompletionBody): number | undefined {
  return body.max_completion_tokens ?? body.max_tokens ?? undefined;
}

export function stopOf(body: ChatCompletionBody): string[] | undefined {
  if (body.stop === undefined || body.stop === null) return undefined;
  return typeof body.stop === 'string' ? [body.stop] : body.stop;
}

interface WireCompletion {
  choices?: Array<{
    message?: { content?: string | null; tool_calls?: WireMessage['tool_calls'] };
  }>;
  usage?: ReportedUsage | null;
}

function reported(usage: ReportedUsage | null | undefined): boolean {
  return Number.isInteger(usage?.prompt_tokens) && Number.isInteger(usage?.completion_tokens);
}

/** The tokens of an answer's choices: content and tool calls, as the tokenizer counts them. */
function completionTokens(completion: WireCompletion): number {
  let tokens = 0;
  for (const choice of completion.choices ?? []) {
    tokens += countTokens(choice.message?.content ?? '');
    for (const call of choice.message?.tool_calls ?? [])
      tokens += countTokens(call.function.name) + countTokens(call.function.arguments);
  }
  return tokens;
}

/** What a relayed chat.completion body costs, and the body the client gets. */
export interface RelayedCompletion {
  body: string;
  tokensInput: number;
  tokensOutput: number;
}

/**
 * The provider's own usage when it reported it; otherwise counted, and written into the body so
 * the client sees what is billed (OpenAI always reports usage on a non-streamed answer).
 */
export function settleCompletion(text: string, messages: WireMessage[]): RelayedCompletion {
  let completion: WireCompletion;
  try {
    completion = JSON.parse(text) as WireCompletion;
  } catch {
    throw new AppError('upstream_error', 'the provider answered a body that is not JSON');
  }
  if (reported(completion.usage)) {
    return {
      body: text,
      tokensInput: completion.usage!.prompt_tokens!,
      tokensOutput: completion.usage!.completion_tokens!,
    };
  }
  const tokensInput = countPrompt(messages);
  const tokensOutput = completionTokens(completion);
  const usage = wireUsage(tokensInput, tokensOutput);
  return { body: JSON.stringify({ ...completion, usage }), tokensInput, tokensOutput };
}

export function wireUsage(tokensInput: number, tokensOutput: number) {
  return {
    prompt_tokens: tokensInput,
    completion_tokens: tokensOutput,
    total_tokens: tokensInput + tokensOutput,
  };
}

/** The streamed tokens of relayed chunks when the provider sent no usage chunk. */
export function countStreamedCompletion(events: string): number {
  let tokens = 0;
  for (const line of events.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '' || data === '[DONE]') continue;
    let chunk: { choices?: Array<{ delta?: WireMessage }> };
    try {
      chunk = JSON.parse(data) as typeof chunk;
    } catch {
      continue;
    }
    for (const choice of chunk.choices ?? []) {
      tokens += countTokens(textOf(choice.delta?.content));
      for (const call of choice.delta?.tool_calls ?? [])
        tokens +=
          countTokens(call.function?.name ?? '') + countTokens(call.function?.arguments ?? '');
    }
  }
  return tokens;
}

// Models that do not speak OpenAI's format: the request as the registry's CompleteInput, the
// answer rendered as OpenAI's objects.

function unsupported(parameter: string, reason: string): AppError {
  return new AppError('unsupported', `${parameter} is not supported by this model: ${reason}`, [
    { field: `/${parameter}`, reason },
  ]);
}

function messageOf(message: WireMessage): ChatMessage {
  const role = message.role === 'developer' ? 'system' : message.role;
  return {
    role: role as ChatMessage['role'],
    content: textOf(message.content),
    ...(message.tool_calls?.length
      ? {
          toolCalls: message.tool_calls.map((c): ToolCall => ({
            id: c.id,
            name: c.function.name,
            arguments: c.function.arguments,
          })),
        }
      : {}),
    ...(message.tool_call_id ? { toolCallId: message.tool_call_id } : {}),
  };
}

/** Parameters a model run in the mesh honours, or that ask nothing of the model (metadata). */
const HONOURED = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'n',
  'stop',
  'temperature',
  'top_p',
  'seed',
  'max_tokens',
  'max_completion_tokens',
  'response_format',
  'user',
  'metadata',
  'safety_identifier',
  'prompt_cache_key',
  'store',
  'service_tier',
  'parallel_tool_calls',
  'tool_choice',
]);

/** A value that asks for nothing: absent, null, false, 0, an empty list or object. */
function neutral(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** Why the local runtime cannot honour a parameter, for the 422's message. */
const REASONS: Record<string, string> = {
  tools: 'it cannot call tools',
  functions: 'it cannot call functions',
  function_call: 'it cannot call functions',
  logprobs: 'it reports no log probabilities',
  top_logprobs: 'it reports no log probabilities',
  presence_penalty: 'its sampler has no presence penalty',
  frequency_penalty: 'its sampler has no frequency penalty',
  logit_bias: "its tokens are not OpenAI's token ids",
  audio: 'it writes text only',
  modalities: 'it writes text only',
  prediction: 'it takes no predicted output',
  reasoning_effort: 'it is not a reasoning model',
  verbosity: 'it has no verbosity setting',
  web_search_options: 'it cannot search the web',
};

/**
 * What a model run in the mesh cannot honour, refused (422 naming the parameter) rather than
 * ignored: tools, log probabilities, penalties, logit bias, several choices, structured output, a
 * forced tool, and any parameter it does not know. Values that ask for nothing (false, 0, null,
 * [], {}) are accepted, as are metadata that ask nothing of the model.
 */
function checkHonoured(body: ChatCompletionBody): void {
  for (const [parameter, value] of Object.entries(body)) {
    if (HONOURED.has(parameter) || neutral(value)) continue;
    throw unsupported(parameter, REASONS[parameter] ?? 'the local runtime does not know it');
  }
  if ((body.n ?? 1) !== 1) throw unsupported('n', 'one choice per call');
  if (body.response_format && body.response_format.type !== 'text')
    throw unsupported('response_format', 'only text answers');
  if (body.store === true) throw unsupported('store', 'completions are not stored');
  const choice = body.tool_choice;
  if (choice !== undefined && choice !== null && choice !== 'none' && choice !== 'auto')
    throw unsupported('tool_choice', 'it cannot call tools');
  const tier = body.service_tier;
  if (tier !== undefined && tier !== null && tier !== 'auto' && tier !== 'default')
    throw unsupported('service_tier', 'one service tier');
}

/**
 * The request for a model without OpenAI's wire format (a model run in the mesh). What it cannot
 * honour is refused (422), never ignored.
 */
export function completeInputOf(body: ChatCompletionBody, maxTokens: number): CompleteInput {
  checkHonoured(body);
  const stop = stopOf(body);
  return {
    messages: body.messages.map(messageOf),
    maxTokens,
    ...(stop ? { stop } : {}),
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
    ...(typeof body.top_p === 'number' ? { topP: body.top_p } : {}),
    ...(typeof body.seed === 'number' ? { seed: body.seed } : {}),
  };
}

/** The text up to the first stop sequence (models that do not apply `stop` themselves). */
export function cutAtStop(text: string, stop: string[] | undefined): string {
  if (!stop) return text;
  let end = text.length;
  for (const sequence of stop) {
    const at = sequence === '' ? -1 : text.indexOf(sequence);
    if (at >= 0 && at < end) end = at;
  }
  return text.slice(0, end);
}

export interface Rendering {
  id: string;
  created: number;
  model: string;
}

function finishReason(result: TextResult, maxTokens: number): string {
  if (result.toolCalls?.length) return 'tool_calls';
  return result.tokensOutput >= maxTokens ? 'length' : 'stop';
}

function wireToolCalls(calls: ToolCall[]) {
  return calls.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.arguments },
  }));
}

/** A chat.completion object for a registry model's result. */
export function renderCompletion(
  result: TextResult,
  maxTokens: number,
  rendering: Rendering,
): string {
  return JSON.stringify({
    id: rendering.id,
    object: 'chat.completion',
    created: rendering.created,
    model: rendering.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: result.toolCalls?.length && result.text === '' ? null : result.text,
          refusal: null,
          ...(result.toolCalls?.length ? { tool_calls: wireToolCalls(result.toolCalls) } : {}),
        },
        logprobs: null,
        finish_reason: finishReason(result, maxTokens),
      },
    ],
    usage: wireUsage(result.tokensInput, result.tokensOutput),
    system_fingerprint: null,
  });
}

/** One chat.completion.chunk as a Server-Sent Event. */
export function chunkEvent(rendering: Rendering, choices: unknown[], usage?: unknown): string {
  return `data: ${JSON.stringify({
    id: rendering.id,
    object: 'chat.completion.chunk',
    created: rendering.created,
    model: rendering.model,
    system_fingerprint: null,
    choices,
    ...(usage === undefined ? {} : { usage }),
  })}\n\n`;
}

export function deltaEvent(rendering: Rendering, delta: Record<string, unknown>): string {
  return chunkEvent(rendering, [{ index: 0, delta, logprobs: null, finish_reason: null }]);
}

/** The chunks after a registry model's last delta: tool calls, the finish reason, the usage if asked. */
export function closingEvents(
  result: TextResult,
  maxTokens: number,
  rendering: Rendering,
  includeUsage: boolean,
): string {
  let events = '';
  if (result.toolCalls?.length) {
    events += deltaEvent(rendering, {
      tool_calls: wireToolCalls(result.toolCalls).map((call, index) => ({ index, ...call })),
    });
  }
  events += chunkEvent(rendering, [
    { index: 0, delta: {}, logprobs: null, finish_reason: finishReason(result, maxTokens) },
  ]);
  if (includeUsage)
    events += chunkEvent(rendering, [], wireUsage(result.tokensInput, result.tokensOutput));
  return events;
}
