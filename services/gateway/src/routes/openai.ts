import { AppError, UsageRoutes, type ErrorCode } from '@switchyard/shared';
import type {
  CompleteChunk__Output,
  CompleteRequest,
  ModelInfo__Output,
  Usage__Output,
} from '@switchyard/shared/proto/content/v1';
import { openAiErrorBody } from '../middleware/errors';
import {
  ChatCompletion,
  ChatCompletionRequest,
  EmbeddingList,
  EmbeddingRequest,
  OpenAiModel,
  OpenAiModelList,
  type ChatCompletionBody,
  type EmbeddingBody,
} from '../schemas/openai';
import { completionOfEvents, eventsOfCompletion } from '../cache/openai-chat';
import type { CacheSpec } from '../cache/response-cache';
import { SSE_HEADERS, sseResponse, type SseSource } from '../streaming/sse';
import { modelsInScope } from './models';
import { spentOf, type RouteInput } from '../route-io';
import { json, type AnyRoute, type RouteDeps, type RouteSpec } from './types';

/**
 * The OpenAI-compatible surface: OpenAI's own bodies, stream chunks and errors, so its SDKs work
 * with only the base URL and the key changed. The chat body goes to the content service as it was
 * received and its answer comes back as bytes to send (see content's chat-completions.ts).
 */

const DONE = Buffer.from('data: [DONE]\n\n');
/** OpenAI's clients end a stream at [DONE]; a failure after the start is a data event with the error. */
function openAiEvents(
  chunks: ReturnType<RouteDeps['clients']['content']['completeStream']>,
  finalUsage: (usage: Usage__Output | null | undefined) => void,
): SseSource<CompleteChunk__Output> {
  return {
    chunks,
    isFinal: (chunk) => chunk.kind === 'final',
    eventsOf: (chunk) => (chunk.kind === 'final' ? DONE : (chunk.openai_events ?? Buffer.alloc(0))),
    usageOf: (chunk) => {
      finalUsage(chunk.final?.usage);
      return tokensOf(chunk.final?.usage);
    },
    errorEvent: (problem) => `data: ${JSON.stringify(openAiErrorBody(problem))}\n\n`,
  };
}

/** What a call to a model may answer beyond the generic errors. */
const MODEL_CALL_ERRORS: ErrorCode[] = [
  'not_found',
  'payload_too_large',
  'unsupported',
  'rate_limited',
  'quota_exceeded',
  'upstream_error',
];

function tokensOf(usage: Usage__Output | null | undefined): number | undefined {
  return usage ? usage.tokens_input + usage.tokens_output : undefined;
}

/** The text of one message (its text parts, for content in parts). */
function messageText(message: ChatCompletionBody['messages'][number]): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  let text = '';
  if (Array.isArray(content))
    for (const part of content) if (typeof part.text === 'string') text += part.text;
  return text;
}

/** The text of the messages, for the quota and token-rate estimate. */
function promptText(body: ChatCompletionBody): string {
  return body.messages.map(messageText).join('');
}

function completeRequest(raw: string): CompleteRequest {
  return { openai_request: Buffer.from(raw) };
}

/** What changes a chat answer: the whole body but the end user and how it is delivered. */
const chatCache: CacheSpec<ChatCompletionBody> = {
  kind: 'chat',
  route: UsageRoutes.openAiChatCompletions,
  request: ({ model, user: _user, stream: _stream, stream_options: _options, ...fields }) => ({
    model,
    fields,
  }),
  answerOfBody: (body) => (Buffer.isBuffer(body) ? body.toString('utf8') : undefined),
  answerOfEvents: completionOfEvents,
  // By meaning: the last user message; the conversation before it and every parameter are equal.
  semantic(body) {
    const last = body.messages.at(-1);
    const text = last?.role === 'user' ? messageText(last) : '';
    if (!text) return undefined;
    const { fields } = chatCache.request(body);
    return { text, fields: { ...fields, messages: body.messages.slice(0, -1) } };
  },
  replay(answer, { body }) {
    if (!body.stream)
      return { status: 200, body: Buffer.from(answer), contentType: 'application/json' };
    const includeUsage = body.stream_options?.include_usage === true;
    return {
      status: 200,
      body: eventsOfCompletion(answer, includeUsage),
      contentType: 'text/event-stream',
      headers: { ...SSE_HEADERS },
    };
  },
};

const chatCompletions: RouteSpec<ChatCompletionBody> = {
  method: 'POST',
  path: '/v1/chat/completions',
  operationId: 'createChatCompletion',
  idempotent: true,
  summary:
    "OpenAI's chat completions: JSON, or Server-Sent Events of chat.completion.chunk objects with stream: true",
  description:
    'Accepts `Authorization: Bearer <key>` as well as `X-API-Key <key>`. The body reaches an OpenAI-compatible provider as it is (the model name becomes the provider\'s); other models honour `n`, `stop`, `temperature`, `response_format`, `tools` and `tool_choice` where they can and answer 422 otherwise. Errors are OpenAI\'s `{"error":{"message","type","param","code"}}`.',
  tag: 'openai',
  auth: true,
  requestSchema: ChatCompletionRequest,
  billing: {
    input: (body) => ({
      text: promptText(body),
      maxOutput: body.max_completion_tokens ?? body.max_tokens ?? undefined,
      outputs: body.n ?? 1,
    }),
    model: (body) => body.model,
    endUser: (body) => (typeof body.user === 'string' && body.user ? body.user : undefined),
  },
  cache: chatCache,
  responses: {
    200: {
      description: 'The chat.completion',
      schema: ChatCompletion,
      eventStream:
        'With stream: true: `data: {chat.completion.chunk}` events, the usage chunk when stream_options.include_usage, then `data: [DONE]`; a failure after the start is `data: {"error":{...}}`',
    },
  },
  errors: MODEL_CALL_ERRORS,
  async handle({ body, call, signal, route, rawBody }, deps) {
    const request = completeRequest(rawBody ?? JSON.stringify(body));
    if (body.stream) {
      let usage: Usage__Output | null | undefined;
      const result = await sseResponse(
        openAiEvents(deps.clients.content.completeStream(request, call), (final) => {
          usage = final;
        }),
        { requestId: call.requestId, route, signal, logger: deps.logger },
      );
      return { ...result, spent: result.finished?.then(() => spentOf(usage)) };
    }
    const response = await deps.clients.content.complete(request, call);
    return {
      status: 200,
      body: response.openai_body,
      contentType: 'application/json',
      usage: tokensOf(response.usage),
      spent: spentOf(response.usage),
    };
  },
};

/** Little-endian float32 values in base64, as OpenAI answers encoding_format "base64". */
function base64Of(values: number[]): string {
  return Buffer.from(Float32Array.from(values).buffer).toString('base64');
}

function embeddingInputs(body: EmbeddingBody): string[] {
  const inputs = typeof body.input === 'string' ? [body.input] : body.input;
  if (inputs.some((input) => typeof input !== 'string'))
    throw new AppError('unsupported', 'token arrays are not supported as input; send text', [
      { field: '/input', reason: 'token arrays are not supported' },
    ]);
  return inputs as string[];
}

const embeddings: RouteSpec<EmbeddingBody> = {
  method: 'POST',
  path: '/v1/embeddings',
  operationId: 'createEmbedding',
  idempotent: true,
  summary:
    "OpenAI's embeddings: vectors of texts from a registry model with the embeddings capability",
  tag: 'openai',
  auth: true,
  requestSchema: EmbeddingRequest,
  billing: {
    input: (body) => ({
      text: typeof body.input === 'string' ? body.input : body.input.join('\n'),
      maxOutput: 0,
    }),
    model: (body) => body.model,
    endUser: (body) => body.user || undefined,
  },
  responses: { 200: { description: 'The vectors, in input order', schema: EmbeddingList } },
  errors: MODEL_CALL_ERRORS,
  async handle({ body, call }, deps) {
    const inputs = embeddingInputs(body);
    if (body.dimensions !== undefined)
      throw new AppError('unsupported', 'dimensions is not supported by the registry models', [
        { field: '/dimensions', reason: 'not supported' },
      ]);
    const response = await deps.clients.content.embed(
      { model: body.model, inputs, route: UsageRoutes.openAiEmbeddings },
      call,
    );
    const base64 = body.encoding_format === 'base64';
    const tokens = response.usage?.tokens_input ?? 0;
    return {
      ...json(200, {
        object: 'list',
        data: response.embeddings.map((e, index) => ({
          object: 'embedding',
          index,
          embedding: base64 ? base64Of(e.values) : e.values,
        })),
        model: response.usage?.model ?? body.model,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      }),
      usage: tokens,
      spent: spentOf(response.usage),
    };
  },
};

/** When this gateway started: the `created` of every model (the registry has no dates). */
const STARTED = Math.floor(Date.now() / 1000);

function modelObject(id: string, info: ModelInfo__Output) {
  return { id, object: 'model', created: STARTED, owned_by: info.provider };
}

const listModels: RouteSpec = {
  method: 'GET',
  path: '/v1/models',
  operationId: 'listOpenAiModels',
  summary: "OpenAI's model list: the registry's models",
  tag: 'openai',
  auth: true,
  responses: { 200: { description: 'Models', schema: OpenAiModelList } },
  async handle({ call }, deps) {
    const { models } = await deps.clients.content.listModels({}, call);
    return json(200, {
      object: 'list',
      data: modelsInScope(models, call.models).map((m) => modelObject(m.id, m)),
    });
  },
};

const retrieveModel: RouteSpec = {
  method: 'GET',
  path: '/v1/models/:model',
  operationId: 'retrieveOpenAiModel',
  summary: 'One model of the registry, by id or alias',
  tag: 'openai',
  auth: true,
  responses: { 200: { description: 'The model', schema: OpenAiModel } },
  errors: ['not_found'],
  async handle({ call, params }: RouteInput<unknown, unknown>, deps) {
    const name = params.model ?? '';
    const { models } = await deps.clients.content.listModels({}, call);
    const wanted = name.toLowerCase();
    const model = modelsInScope(models, call.models).find(
      (m) => m.id.toLowerCase() === wanted || m.aliases.some((a) => a.toLowerCase() === wanted),
    );
    if (!model)
      throw new AppError(
        'not_found',
        `The model \`${name}\` does not exist or you do not have access to it.`,
        [{ field: '/model', reason: 'unknown model' }],
      );
    return json(200, modelObject(name, model));
  },
};

export const openAiRoutes: AnyRoute[] = [chatCompletions, embeddings, listModels, retrieveModel];
