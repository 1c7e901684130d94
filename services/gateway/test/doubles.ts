/**
 * Test doubles of the four downstream services: real gRPC servers (shared startGrpcServer + unary)
 * implementing the protos, recording every request and context, answering with overridable handlers.
 */
import type { ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { protos, startGrpcServer, unary, type CallContext, type RunningGrpcServer } from '@switchyard/shared';
import { silentLogger } from '@switchyard/shared/testing';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Handler = (request: any, context: CallContext) => Promise<unknown>;

export interface RecordedCall {
  method: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  request: any;
  context: CallContext;
}

export class ServiceDouble {
  readonly calls: RecordedCall[] = [];
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
    for (const method of Object.keys(this.definition)) {
      implementation[method] = unary(logger, async (request: unknown, context: CallContext) => {
        this.calls.push({ method, request, context });
        const handler = this.handlers[method];
        if (!handler) throw new Error(`${this.name}.${method} has no test handler`);
        return handler(request, context);
      });
    }
    this.server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [{ name: this.name, definition: this.definition, implementation }],
    });
  }

  /** Replaces one method's behaviour until reset(). */
  on(method: string, handler: Handler): void {
    this.handlers[method] = handler;
  }

  reset(): void {
    this.calls.length = 0;
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

const NOW = '2026-11-21T15:04:47.184Z';

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
  events: ['request_completed', 'usage_threshold'],
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
};

function contentDouble(): ServiceDouble {
  return new ServiceDouble('switchyard.content.v1.ContentService', protos.content().ContentService.service, {
    Generate: async (req, ctx) => ({
      content: `**Generated** for: ${req.prompt}`,
      usage: { model: req.model || 'default-model', tokens_input: 12, tokens_output: 34, cost: 0.0021 },
      request_id: ctx.requestId,
    }),
    SubmitGenerate: async (_req, ctx) => ({ status: 'processing', request_id: ctx.requestId }),
    Transform: async (req, ctx) => {
      const usage = { model: 'default-model', tokens_input: 20, tokens_output: 8, cost: 0.001 };
      if (req.action === 'summarize') return { usage, request_id: ctx.requestId, original_length: req.text.length, transformed_text: 'short' };
      if (req.action === 'reformat') return { usage, request_id: ctx.requestId, original_format: 'paragraph', transformed_text: '- a\n- b' };
      return { usage, request_id: ctx.requestId, original_text: req.text, translated_text: 'Bonjour' };
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
  return new ServiceDouble('switchyard.assistant.v1.AssistantService', protos.assistant().AssistantService.service, {
    Reply: async (req, ctx) => {
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
    },
    ListAgents: async () => ({ agents: [] }),
  });
}

function recommendationDouble(): ServiceDouble {
  return new ServiceDouble(
    'switchyard.recommendation.v1.RecommendationService',
    protos.recommendation().RecommendationService.service,
    {
      Recommend: async (req, ctx) => ({
        user_id: req.user_id,
        recommendations: [{ item_id: 'sku-1', score: 0.93, reason: 'bought together', item: sampleItem }],
        request_id: ctx.requestId,
      }),
      UpsertItems: async (req) => ({ upserted: req.items.length }),
      RecordInteractions: async (req) => ({ recorded: req.interactions.length }),
      GetItem: async (req) => ({ ...sampleItem, item_id: req.item_id }),
      DeleteItem: async () => ({ deleted: true }),
    },
  );
}

function notificationDouble(): ServiceDouble {
  return new ServiceDouble('switchyard.notification.v1.NotificationService', protos.notification().NotificationService.service, {
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
    RotateWebhookSecret: async () => ({ secret: 'whsec_rotatedrotatedrotatedrotated', previous_secret_expires_at: NOW }),
    ListDeliveries: async () => ({ deliveries: [sampleDelivery] }),
    ReplayDelivery: async (req) => ({ ...sampleDelivery, id: req.delivery_id, status: 'pending', next_attempt_at: NOW }),
    GetSigningSecret: async () => ({ secret: 'whsec_orgsecretorgsecretorgsecret', created_at: NOW }),
    RotateSigningSecret: async () => ({ secret: 'whsec_neworgsecretneworgsecret', previous_secret_expires_at: NOW }),
    ValidateUrl: async (req) =>
      req.url.includes('169.254.') ? { allowed: false, reason: 'address is in a blocked range' } : { allowed: true, reason: '' },
  });
}

export interface Doubles {
  content: ServiceDouble;
  assistant: ServiceDouble;
  recommendation: ServiceDouble;
  notification: ServiceDouble;
}

export async function startDoubles(): Promise<Doubles> {
  const doubles = { content: contentDouble(), assistant: assistantDouble(), recommendation: recommendationDouble(), notification: notificationDouble() };
  await Promise.all(Object.values(doubles).map((d) => d.start()));
  return doubles;
}

export function allDoubles(doubles: Doubles): ServiceDouble[] {
  return Object.values(doubles);
}
