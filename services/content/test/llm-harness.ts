import {
  AppError,
  callUnary,
  contextToMetadata,
  createClient,
  fromServiceError,
  InMemoryEventBus,
  protos,
  type AnyEvent,
  type CallContext,
  type RunningService,
} from '@switchyard/shared';
import type { ClientReadableStream, Metadata, ServiceError } from '@grpc/grpc-js';
import { silentLogger } from '@switchyard/shared/testing';
import type { ContentServiceClient } from '@switchyard/shared/proto/content/v1';
import { loadContentConfig, startContentService } from '../src/server';
import type { RegistryFile } from '../src/models/config/registry-schema';
import { FakeLlmServer } from '@switchyard/shared/testing';
import { collectEvents, context } from './helpers';

export const API_KEY = 'sk-test-good-key';

/** Prices per million tokens of the fake's models. */
export const PRICES = {
  main: { input: 2.5, output: 10 },
  backup: { input: 1, output: 4 },
};

/** A registry pointing at the fake: ids, aliases, fallbacks and limits each test relies on. */
export function registryFor(baseUrl: string, extraModels: object[] = []): RegistryFile {
  const remote = {
    provider: 'openai-compatible' as const,
    baseUrl,
    apiKeyEnv: 'FAKE_LLM_KEY',
    contextWindow: 8000,
    maxOutputTokens: 1000,
  };
  const all = ['generate', 'summarize', 'reformat', 'translate', 'chat'];
  return {
    defaultModel: 'builtin',
    models: [
      { id: 'builtin', provider: 'builtin', aliases: ['local'] },
      {
        ...remote,
        id: 'gpt-main',
        aliases: ['main', 'smart'],
        upstreamModel: 'up-main',
        inputPricePerMillion: PRICES.main.input,
        outputPricePerMillion: PRICES.main.output,
        capabilities: all,
        fallback: ['gpt-backup'],
        maxRetries: 2,
        timeoutMs: 2000,
      },
      {
        ...remote,
        id: 'gpt-backup',
        upstreamModel: 'up-backup',
        inputPricePerMillion: PRICES.backup.input,
        outputPricePerMillion: PRICES.backup.output,
        capabilities: all,
      },
      {
        ...remote,
        id: 'gpt-solo',
        upstreamModel: 'up-solo',
        inputPricePerMillion: 3,
        outputPricePerMillion: 15,
        capabilities: all,
        maxRetries: 2,
        timeoutMs: 400,
      },
      {
        ...remote,
        id: 'gpt-badkey',
        apiKeyEnv: 'WRONG_KEY',
        upstreamModel: 'up-badkey',
        inputPricePerMillion: 1,
        outputPricePerMillion: 1,
        capabilities: all,
        maxRetries: 2,
      },
      {
        ...remote,
        id: 'gpt-narrow',
        upstreamModel: 'up-narrow',
        inputPricePerMillion: 1,
        outputPricePerMillion: 1,
        capabilities: ['generate'],
        maxConcurrency: 2,
      },
      {
        ...remote,
        id: 'gpt-small',
        upstreamModel: 'up-small',
        inputPricePerMillion: 1,
        outputPricePerMillion: 1,
        capabilities: ['generate'],
        contextWindow: 64,
        maxOutputTokens: 32,
      },
      {
        ...remote,
        id: 'llama-local',
        apiKeyEnv: undefined,
        local: true,
        upstreamModel: 'up-local',
        capabilities: ['generate', 'chat'],
      },
      ...(extraModels as RegistryFile['models']),
    ],
  };
}

export interface StreamOutcome<Chunk> {
  chunks: Chunk[];
  error?: AppError;
}

export interface LlmHarness {
  fake: FakeLlmServer;
  events: AnyEvent[];
  client: ContentServiceClient;
  call<Res>(method: string, request: object, ctx?: CallContext, deadlineMs?: number): Promise<Res>;
  stream<Chunk>(
    method: 'GenerateStream' | 'CompleteStream',
    request: object,
    ctx?: CallContext,
  ): Promise<StreamOutcome<Chunk>>;
  usageFor(requestId: string): AnyEvent[];
  close(): Promise<void>;
}

/**
 * The content service over gRPC with a registry of models served by a local fake provider;
 * `extraModels(baseUrl)` adds registry entries pointing at the fake.
 */
export async function startLlmHarness(
  extraModels: (baseUrl: string) => object[] = () => [],
): Promise<LlmHarness> {
  // The fake only accepts API_KEY; the wrong key proves 401 handling. Localhost is never proxied.
  const fake = new FakeLlmServer(API_KEY, ['up-local']);
  const baseUrl = await fake.start();
  const bus = new InMemoryEventBus();
  const events = await collectEvents(bus);
  const config = {
    ...loadContentConfig({}),
    grpcHost: '127.0.0.1',
    grpcPort: 0,
    maxInputTokens: 2000,
    modelRegistryJson: JSON.stringify(registryFor(baseUrl, extraModels(baseUrl))),
  };
  const env = { FAKE_LLM_KEY: API_KEY, WRONG_KEY: 'sk-wrong-key' };
  const service: RunningService = await startContentService({
    config,
    bus,
    logger: silentLogger(),
    env,
    stopGraceMs: 1000,
  });
  const client = createClient(protos.content().ContentService, `127.0.0.1:${service.port}`);
  const methods = client as unknown as Record<
    string,
    Parameters<typeof callUnary<object, unknown>>[1]
  >;
  return {
    fake,
    events,
    client,
    call: <Res>(
      method: string,
      request: object,
      ctx: CallContext = context(),
      deadlineMs = 10_000,
    ) =>
      callUnary<object, Res>(
        'content',
        methods[method] as Parameters<typeof callUnary<object, Res>>[1],
        client,
        request,
        ctx,
        deadlineMs,
      ),
    stream: <Chunk>(
      method: 'GenerateStream' | 'CompleteStream',
      request: object,
      ctx: CallContext = context(),
    ) =>
      new Promise<StreamOutcome<Chunk>>((resolve) => {
        const chunks: Chunk[] = [];
        type Open = (
          request: object,
          metadata: Metadata,
          options: { deadline: number },
        ) => ClientReadableStream<Chunk>;
        const call = (client[method] as unknown as Open).call(
          client,
          request,
          contextToMetadata(ctx),
          { deadline: Date.now() + 10_000 },
        );
        call.on('data', (chunk: Chunk) => chunks.push(chunk));
        call.on('error', (error: ServiceError) =>
          resolve({ chunks, error: fromServiceError(error, 'content') }),
        );
        call.on('end', () => resolve({ chunks }));
      }),
    usageFor: (requestId) =>
      events.filter((e) => e.type === 'usage.recorded' && e.data.requestId === requestId),
    close: async () => {
      client.close();
      await service.stop();
      await bus.close();
      await fake.close();
    },
  };
}

/** The AppError a call failed with. */
export async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}
