/**
 * Test doubles of the four downstream services: real gRPC servers (shared startGrpcServer + unary)
 * implementing the protos, recording every request and context, answering with overridable handlers.
 */
import type {
  ServerWritableStream,
  ServiceDefinition,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import {
  AppError,
  contextFromMetadata,
  protos,
  SERVICE_NAMES,
  startGrpcServer,
  toServiceError,
  unary,
  type CallContext,
  type RunningGrpcServer,
} from '@switchyard/shared';
import { silentLogger } from '@switchyard/shared/testing';

/** What a server-streaming handler writes to; `cancelled` settles when the caller cancels. */
export interface StreamWriter {
  write(chunk: unknown): void;
  readonly cancelled: Promise<void>;
}

/** Unary handlers return the response; streaming handlers write chunks to `stream` and resolve to end it. */

type Handler = (request: any, context: CallContext, stream: StreamWriter) => Promise<unknown>;

export interface RecordedCall {
  method: string;

  request: any;
  context: CallContext;
}

export class ServiceDouble {
  readonly calls: RecordedCall[] = [];
  /** Streaming calls the caller cancelled, by method. */
  readonly cancellations: string[] = [];
  private handlers: Record<string, Handler>;
  private server?: RunningGrpcServer;

  constructor(
    readonly name: string,
    private readonly definition: ServiceDefinition,
    private readonly defaults: Record<string, Handler>,
  ) {
    this.handlers = { ...defaults };
  }

  get port(): number {
    if (!this.server) throw new Error(`${this.name} double is not running`);
    return this.server.port;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const logger = silentLogger();
    const implementation: UntypedServiceImplementation = {};
    for (const [method, definition] of Object.entries(this.definition)) {
      implementation[method] = definition.responseStream
        ? this.streaming(method)
        : unary(logger, async (request: unknown, context: CallContext) =>
            this.handle(method, request, context, NO_STREAM),
          );
    }
    this.server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [{ name: this.name, definition: this.definition, implementation }],
    });
  }

  private handle(
    method: string,
    request: unknown,
    context: CallContext,
    stream: StreamWriter,
  ): Promise<unknown> {
    this.calls.push({ method, request, context });
    const handler = this.handlers[method];
    if (!handler) throw new Error(`${this.name}.${method} has no test handler`);
    return handler(request, context, stream);
  }

  /** A server-streaming method: the handler's chunks, then OK, or its AppError as status and trailers. */
  private streaming(method: string) {
    return (call: ServerWritableStream<unknown, unknown>) => {
      const cancelled = new Promise<void>((resolve) =>
        call.on('cancelled', () => {
          this.cancellations.push(method);
          resolve();
        }),
      );
      const writer: StreamWriter = { write: (chunk) => void call.write(chunk), cancelled };
      this.handle(method, call.request, contextFromMetadata(call.metadata), writer).then(
        () => call.end(),
        (error: unknown) => {
          const appError =
            error instanceof AppError ? error : new AppError('internal', 'internal error');
          call.emit('error', toServiceError(appError));
        },
      );
    };
  }

  /** Replaces one method's behaviour until reset(). */
  on(method: string, handler: Handler): void {
    this.handlers[method] = handler;
  }

  reset(): void {
    this.calls.length = 0;
    this.cancellations.length = 0;
    this.handlers = { ...this.defaults };
  }

  last(method: string): RecordedCall {
    const found = [...this.calls].reverse().find((call) => call.method === method);
    if (!found) throw new Error(`${this.name}.${method} was not called`);
    return found;
  }

  called(method: string): number {
    return this.calls.filter((call) => call.method === method).length;
  }

  async stop(): Promise<void> {
    await this.server?.stop(50);
    this.server = undefined;
  }
}

const NO_STREAM: StreamWriter = {
  write: () => {
    throw new Error('a unary handler cannot stream');
  },
  cancelled: new Promise(() => undefined),
};

const NOW = '2026-11-21T15:04:47.184Z';

/** Word-sized deltas (each word with the space after it), like the content service streams. */
export function wordsOf(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [];
}

/** Writes the text of a final message as word deltas, then the final message. */
function streamFinal(stream: StreamWriter, text: string, final: object): void {
  for (const delta of wordsOf(text)) stream.write({ delta });
  stream.write({ final });
}

function generated(req: { prompt: string; model: string }, ctx: CallContext) {
  return {
    content: `**Generated** for: ${req.prompt}`,
    usage: {
      model: req.model || 'default-model',
      tokens_input: 12,
      tokens_output: 34,
      cost: 0.0021,
    },
    request_id: ctx.requestId,
  };
}

function assistantReply(req: any, ctx: CallContext) {
  const base = {
    reply: `Hello from ${req.agent}`,
    session_id: req.session_id,
    agent: req.agent,
    request_id: ctx.requestId,
    model: 'chat-model',
    usage: { tokens_used: 42, timestamp: NOW, tokens_input: 30, tokens_output: 12 },
  };
  if (req.agent !== 'onboarding') return base;
  return { ...base, step: req.step, next_step: req.step < 5 ? req.step + 1 : undefined };
}

export const sampleItem = {
  item_id: 'sku-1',
  catalog: 'ecommerce',
  title: 'Trail shoe',
  categories: ['shoes', 'outdoor'],
  attributes_json: '{"price":89.5,"color":"blue"}',
  available: true,
  updated_at: NOW,
};

export const sampleWebhook = {
  id: 'wh_1',
  events: ['data_updated', 'usage_threshold'],
  url: 'https://hooks.example.com/in',
  enabled: true,
  created_at: NOW,
  updated_at: NOW,
  disabled_reason: '',
};

export const sampleDelivery = {
  id: 'dlv_1',
  webhook_id: 'wh_1',
  event_id: 'evt_1',
  event: 'request_completed',
  status: 'failed',
  attempts: [
    { attempted_at: NOW, status_code: 500, duration_ms: 120, response_body: 'oops', error: '' },
    { attempted_at: NOW, status_code: 0, duration_ms: 3000, response_body: '', error: 'timeout' },
  ],
  created_at: NOW,
  next_attempt_at: '',
  url: 'https://hooks.example.com/in',
  payload: '{"event":"request_completed"}',
  state: 'failed',
  cancelled_at: '',
};

function contentDouble(): ServiceDouble {
  return new ServiceDouble(SERVICE_NAMES.ContentService, protos.content().ContentService.service, {
    Generate: async (req, ctx) => generated(req, ctx),
    GenerateStream: async (req, ctx, stream) => {
      const final = generated(req, ctx);
      streamFinal(stream, final.content, final);
    },
    SubmitGenerate: async (_req, ctx) => ({ status: 'processing', request_id: ctx.requestId }),
    Transform: async (req, ctx) => {
      const usage = { model: 'default-model', tokens_input: 20, tokens_output: 8, cost: 0.001 };
      if (req.action === 'summarize')
        return {
          usage,
          request_id: ctx.requestId,
          original_length: req.text.length,
          transformed_text: 'short',
        };
      if (req.action === 'reformat')
        return {
          usage,
          request_id: ctx.requestId,
          original_format: 'paragraph',
          transformed_text: '- a\n- b',
        };
      return {
        usage,
        request_id: ctx.requestId,
        original_text: req.text,
        translated_text: 'Bonjour',
      };
    },
    GetRequest: async (req) => ({
      request_id: req.request_id,
      status: 'completed',
      operation: 'content.generate',
      created_at: NOW,
      completed_at: NOW,
      result: 'the text',
      model: 'default-model',
      total_tokens: 46,
      error: null,
      webhook_url: 'https://hooks.example.com/in',
    }),
    ListModels: async () => ({
      models: [
        {
          id: 'gpt-small',
          provider: 'openai',
          capabilities: ['generate', 'transform'],
          aliases: ['small'],
          input_price_per_million: 0.15,
          output_price_per_million: 0.6,
          context_window: 128000,
          max_output_tokens: 16384,
          is_default: true,
        },
      ],
    }),
  });
}

function assistantDouble(): ServiceDouble {
  return new ServiceDouble(
    SERVICE_NAMES.AssistantService,
    protos.assistant().AssistantService.service,
    {
      Reply: async (req, ctx) => assistantReply(req, ctx),
      ReplyStream: async (req, ctx, stream) => {
        const final = assistantReply(req, ctx);
        streamFinal(stream, final.reply, final);
      },
      ListAgents: async () => ({ agents: [] }),
    },
  );
}

function recommendationDouble(): ServiceDouble {
  return new ServiceDouble(
    SERVICE_NAMES.RecommendationService,
    protos.recommendation().RecommendationService.service,
    {
      Recommend: async (req, ctx) => ({
        user_id: req.user_id,
        recommendations: [
          { item_id: 'sku-1', score: 0.93, reason: 'bought together', item: sampleItem },
        ],
        request_id: ctx.requestId,
      }),
      UpsertItems: async (req) => ({ upserted: req.items.length }),
      RecordInteractions: async (req) => ({ recorded: req.interactions.length }),
      GetItem: async (req) => ({ ...sampleItem, item_id: req.item_id }),
      DeleteItem: async () => ({ deleted: true }),
      RebuildModel: async () => ({
        algorithm: 'ease',
        version: 3,
        items: 1682,
        users: 943,
        interactions: 75066,
        trained_at: '2026-11-24T03:00:00.000Z',
        training_ms: 4200,
      }),
    },
  );
}

/** A usage report as the notification ledger answers it, with `used` tokens recorded. */
export function usageReport(organization: string, period: string, used: number) {
  return {
    organization,
    period,
    period_start: `${period}-01T00:00:00.000Z`,
    period_end: '2026-12-01T00:00:00.000Z',
    quota: 1000,
    used,
    remaining: Math.max(0, 1000 - used),
    hard_quota: true,
    cost: 0.0123,
    calls: 3,
    threshold_shares: [0.9, 1],
    by_model: [{ key: 'gpt-small', tokens_input: 100, tokens_output: 200, cost: 0.0123, calls: 3 }],
    by_route: [
      {
        key: 'content.generate',
        tokens_input: 100,
        tokens_output: 200,
        cost: 0.0123,
        calls: 3,
      },
    ],
    daily: [{ key: `${period}-21`, tokens_input: 100, tokens_output: 200, cost: 0.0123, calls: 3 }],
    refused: [
      { day: `${period}-20`, reason: 'quota', calls: 1 },
      { day: `${period}-21`, reason: 'quota', calls: 4 },
      { day: `${period}-21`, reason: 'request_rate', calls: 2 },
    ],
    by_key: [{ key: 'key_a', tokens_input: 100, tokens_output: 200, cost: 0.0123, calls: 3 }],
    by_team: [{ key: 'team_a', tokens_input: 100, tokens_output: 200, cost: 0.0123, calls: 3 }],
    by_end_user: [{ key: 'ann', tokens_input: 40, tokens_output: 60, cost: 0.004, calls: 1 }],
  };
}

function notificationDouble(): ServiceDouble {
  return new ServiceDouble(
    SERVICE_NAMES.NotificationService,
    protos.notification().NotificationService.service,
    {
      RegisterWebhook: async (req) => ({
        webhook: { ...sampleWebhook, events: req.events, url: req.url },
        secret: req.secret || 'whsec_generatedgeneratedgeneratedAA==',
      }),
      ListWebhooks: async () => ({ webhooks: [sampleWebhook] }),
      GetWebhook: async (req) => ({ ...sampleWebhook, id: req.id }),
      UpdateWebhook: async (req) => ({
        ...sampleWebhook,
        id: req.id,
        url: req.url ?? sampleWebhook.url,
        events: req.events_set ? req.events : sampleWebhook.events,
        enabled: req.enabled ?? sampleWebhook.enabled,
      }),
      DeleteWebhook: async () => ({ deleted: true }),
      RotateWebhookSecret: async () => ({
        secret: 'whsec_rotatedrotatedrotatedrotated',
        previous_secret_expires_at: NOW,
      }),
      ListDeliveries: async () => ({ deliveries: [sampleDelivery] }),
      ReplayDelivery: async (req) => ({
        ...sampleDelivery,
        id: req.delivery_id,
        status: 'pending',
        next_attempt_at: NOW,
      }),
      GetSigningSecret: async () => ({
        secret: 'whsec_orgsecretorgsecretorgsecret',
        created_at: NOW,
      }),
      RotateSigningSecret: async () => ({
        secret: 'whsec_neworgsecretneworgsecret',
        previous_secret_expires_at: NOW,
      }),
      PutOrganizationPolicy: async (req) => req,
      GetUsage: async (req, ctx) => usageReport(ctx.organization, req.period || '2026-11', 0),
      GetBudgetSpend: async () => ({ tokens: 0, cost_nanos: 0 }),
    },
  );
}

export interface Doubles {
  content: ServiceDouble;
  assistant: ServiceDouble;
  recommendation: ServiceDouble;
  notification: ServiceDouble;
}

export async function startDoubles(): Promise<Doubles> {
  const doubles = {
    content: contentDouble(),
    assistant: assistantDouble(),
    recommendation: recommendationDouble(),
    notification: notificationDouble(),
  };
  await Promise.all(Object.values(doubles).map((d) => d.start()));
  return doubles;
}

export function allDoubles(doubles: Doubles): ServiceDouble[] {
  return Object.values(doubles);
}
