import { AppError, UsageRoutes, type CallContext } from '@switchyard/shared';
import type {
  GenerateChunk__Output,
  GenerateRequest,
  GenerateResponse__Output,
  TransformRequest,
  TransformResponse__Output,
  Usage__Output,
} from '@switchyard/shared/proto/content/v1';
import {
  AsyncAcknowledgment,
  GenerateContentRequest,
  GenerateContentResponse,
  TransformContentRequest,
  TransformContentResponse,
  type GenerateContentBody,
  type TransformContentBody,
} from '../schemas/content';
import type { CacheSpec } from '../cache/response-cache';
import { nativeEvents, SSE_HEADERS, sseFrame, sseResponse } from '../streaming/sse';
import { billedRequestId } from './request-ids';
import { spentOf, type RouteInput, type RouteResult } from '../route-io';
import { json, type AnyRoute, type RouteDeps, type RouteSpec } from './types';

function toGenerateRequest(body: GenerateContentBody): GenerateRequest {
  return {
    model: body.model ?? '',
    prompt: body.prompt,
    max_length: body.max_length,
    tone: body.tone ?? '',
    language: body.language ?? '',
  };
}

function usageOf(usage: Usage__Output | null) {
  return {
    model: usage?.model ?? '',
    tokens_input: usage?.tokens_input ?? 0,
    tokens_output: usage?.tokens_output ?? 0,
  };
}

/**
 * The caller's URL is checked against the delivery policy (scheme, DNS, SSRF ranges) before any
 * work is accepted, here rather than by asking notification: an async call is accepted while
 * notification is down, and notification checks again at send, where DNS may have changed.
 */
async function submitWithWebhook(
  body: GenerateContentBody,
  url: string,
  call: CallContext,
  deps: RouteDeps,
): Promise<RouteResult> {
  const verdict = await deps.urlPolicy.check(url);
  if (!verdict.allowed) {
    const reason = verdict.reason || 'not allowed';
    throw new AppError('invalid_request', `webhookUrl is not allowed: ${reason}`, [
      { field: '/webhookUrl', reason },
    ]);
  }
  return accepted(
    await deps.clients.content.submitGenerate(
      { request: toGenerateRequest(body), webhook_url: url },
      call,
    ),
  );
}

/**
 * Interface 6.1: with a request_completed webhook registered (the account's default result URL),
 * a generate call without webhookUrl is answered at once and its result delivered there.
 */
function hasDefaultResultWebhook(call: CallContext, deps: RouteDeps): Promise<boolean> {
  return deps.defaultResultUrls.has(call);
}

async function submitToDefaultWebhook(
  body: GenerateContentBody,
  call: CallContext,
  deps: RouteDeps,
): Promise<RouteResult> {
  return accepted(
    await deps.clients.content.submitGenerate(
      { request: toGenerateRequest(body), webhook_url: '' },
      call,
    ),
  );
}

/** 202 with the id the request runs under: a retried submit (same Idempotency-Key) gets the first one's. */
function accepted(response: { request_id: string }): RouteResult {
  return json(202, { status: 'processing', requestId: response.request_id });
}

/** The generate response body; also the data of a stream's done event. */
function renderGenerate(response: GenerateResponse__Output, requestId: string) {
  return {
    content: response.content,
    usage: { ...usageOf(response.usage), cost: response.usage?.cost ?? 0 },
    request_id: requestId,
  };
}

async function streamGenerate(
  { body, call, signal, route }: RouteInput<GenerateContentBody, unknown>,
  deps: RouteDeps,
): Promise<RouteResult> {
  let usage: Usage__Output | null | undefined;
  const result = await sseResponse(
    nativeEvents(deps.clients.content.generateStream(toGenerateRequest(body), call), {
      deltaOf: (chunk: GenerateChunk__Output) =>
        chunk.kind === 'delta' ? (chunk.delta ?? '') : undefined,
      doneOf: (chunk: GenerateChunk__Output) =>
        renderGenerate(required(chunk.final, 'the final chunk'), call.requestId),
      usageOf: (chunk: GenerateChunk__Output) => {
        usage = chunk.final?.usage;
        return tokensOf(usage);
      },
    }),
    { requestId: call.requestId, route, signal, logger: deps.logger },
  );
  return { ...result, spent: result.finished?.then(() => spentOf(usage)) };
}

/** Tokens a content call used, as the content service reported them. */
function tokensOf(usage: Usage__Output | null | undefined): number | undefined {
  return usage ? usage.tokens_input + usage.tokens_output : undefined;
}

/** The stored generate answer: the response without the request id (a hit gets its own). */
function storedGenerate(body: unknown): string {
  const { request_id: _id, ...answer } = body as ReturnType<typeof renderGenerate>;
  return JSON.stringify(answer);
}

/** The data of a native stream's done event. */
function doneData(events: string): unknown {
  const done = events.lastIndexOf('event: done\ndata: ');
  if (done < 0) return undefined;
  const start = done + 'event: done\ndata: '.length;
  return JSON.parse(events.slice(start, events.indexOf('\n', start)));
}

/** What changes a generate answer: the request's fields (the model resolved); not its delivery. */
const generateCache: CacheSpec<GenerateContentBody, RouteDeps> = {
  kind: 'generate',
  route: UsageRoutes.contentGenerate,
  request: (body) => ({
    model: body.model ?? '',
    fields: {
      prompt: body.prompt,
      max_length: body.max_length,
      tone: body.tone ?? '',
      language: body.language ?? '',
    },
  }),
  // Answered at once only: a call whose result goes to a webhook is not.
  applies: async ({ body, call }, deps) =>
    !body.webhookUrl && (body.stream === true || !(await hasDefaultResultWebhook(call, deps))),
  answerOfBody: storedGenerate,
  // By meaning: the prompt; every other field is equal.
  semantic: (body) => {
    const { prompt: text, ...fields } = generateCache.request(body).fields;
    return { text: text as string, fields };
  },
  answerOfEvents: (events) => {
    const done = doneData(events);
    return done === undefined ? undefined : storedGenerate(done);
  },
  replay(answer, { body, call }) {
    const response = { ...JSON.parse(answer), request_id: call.requestId };
    if (!body.stream) return json(200, response);
    return {
      status: 200,
      body: sseFrame('delta', { text: response.content }) + sseFrame('done', response),
      contentType: 'text/event-stream',
      headers: { ...SSE_HEADERS },
    };
  },
};

const generate: RouteSpec<GenerateContentBody> = {
  method: 'POST',
  path: '/api/v2/ai/content/generate',
  aliases: ['/api/ai/content/generate'],
  operationId: 'generateContent',
  idempotent: true,
  summary:
    'Generate text from a prompt (202 and a signed callback when webhookUrl is given; Server-Sent Events with stream: true)',
  tag: 'content',
  auth: true,
  requestSchema: GenerateContentRequest,
  billing: {
    input: (body) => ({ text: body.prompt, maxOutput: body.max_length }),
    model: (body) => body.model,
  },
  cache: generateCache,
  responses: {
    200: {
      description: 'Generated content',
      schema: GenerateContentResponse,
      eventStream:
        'With stream: true: `delta` events {"text"}, then `done` with the GenerateContentResponse, or `error` with the ErrorResponse',
    },
    202: {
      description:
        'Accepted; the result is POSTed to webhookUrl, or to the request_completed webhook registered as the default result URL. ' +
        'The quota keeps the reserved estimate (prompt tokens + max_length or 256) for an accepted asynchronous call; the usage ledger records the real count.',
      schema: AsyncAcknowledgment,
    },
  },
  errors: ['payload_too_large', 'unsupported', 'rate_limited', 'quota_exceeded', 'upstream_error'],
  validate({ body }) {
    if (body.stream && body.webhookUrl) {
      throw AppError.invalid(
        'stream and webhookUrl cannot be combined',
        '/stream',
        'must not be true together with webhookUrl',
      );
    }
  },
  async handle(input, deps) {
    const { body, call } = input;
    if (body.webhookUrl) return submitWithWebhook(body, body.webhookUrl, call, deps);
    if (body.stream) return streamGenerate(input, deps);
    if (await hasDefaultResultWebhook(call, deps)) return submitToDefaultWebhook(body, call, deps);
    const response = await deps.clients.content.generate(toGenerateRequest(body), call);
    return {
      ...json(200, renderGenerate(response, billedRequestId(response, call))),
      usage: tokensOf(response.usage),
      spent: spentOf(response.usage),
    };
  },
};

/** Only the fields of the chosen action reach the service (interface rule 1). */
function toTransformRequest(body: TransformContentBody): TransformRequest {
  return {
    model: body.model ?? '',
    action: body.action,
    text: body.text,
    target_length: body.action === 'summarize' ? (body.target_length ?? '') : '',
    format: body.action === 'reformat' ? (body.format ?? '') : '',
    source_language: body.action === 'translate' ? (body.source_language ?? '') : '',
    target_language: body.action === 'translate' ? (body.target_language ?? '') : '',
  };
}

function required<T>(value: T | undefined | null, field: string): T {
  if (value === undefined || value === null)
    throw new AppError('internal', `content service answered without ${field}`);
  return value;
}

function renderTransform(
  action: TransformContentBody['action'],
  response: TransformResponse__Output,
  requestId: string,
) {
  const usage = usageOf(response.usage);
  switch (action) {
    case 'summarize':
      return {
        original_length: required(response.original_length, 'original_length'),
        transformed_text: required(response.transformed_text, 'transformed_text'),
        usage,
        request_id: requestId,
      };
    case 'reformat':
      return {
        original_format: required(response.original_format, 'original_format'),
        transformed_text: required(response.transformed_text, 'transformed_text'),
        usage,
        request_id: requestId,
      };
    case 'translate':
      return {
        original_text: required(response.original_text, 'original_text'),
        translated_text: required(response.translated_text, 'translated_text'),
        ...(response.translation ? { translation: response.translation } : {}),
        usage,
        request_id: requestId,
      };
  }
}

const transform: RouteSpec<TransformContentBody> = {
  method: 'POST',
  path: '/api/v2/ai/content/transform',
  operationId: 'transformContent',
  idempotent: true,
  summary: 'Summarize, reformat or translate text (fields of other actions are ignored)',
  tag: 'content',
  auth: true,
  requestSchema: TransformContentRequest,
  billing: { input: (body) => ({ text: body.text }), model: (body) => body.model },
  responses: {
    200: {
      description: 'The transformed text; fields depend on action',
      schema: TransformContentResponse,
    },
  },
  errors: ['payload_too_large', 'unsupported', 'rate_limited', 'quota_exceeded', 'upstream_error'],
  async handle({ body, call }, deps) {
    const response = await deps.clients.content.transform(toTransformRequest(body), call);
    return {
      ...json(200, renderTransform(body.action, response, billedRequestId(response, call))),
      usage: tokensOf(response.usage),
      spent: spentOf(response.usage),
    };
  },
};

export const contentRoutes: AnyRoute[] = [generate, transform];
