import OpenAI, { AzureOpenAI } from 'openai';
import type { Logger } from '@switchyard/shared';
import { ApertiumModel } from '../apertium/apertium-model';
import { ApyEngine } from '../apertium/apy-engine';
import { CommandEngine } from '../apertium/command-engine';
import { BUILTIN_MODEL_INFO, BuiltinModel } from '../builtin/builtin-model';
import { ChatModel } from '../chat-model';
import { ChatClient, type RelayTarget } from '../openai/chat-client';
import { DeploymentPool, PooledChatModel } from '../openai/deployments';
import { deploymentsOf } from './deployments';
import { upstreamFetch } from '../openai/upstream-fetch';
import { Semaphore } from '../semaphore';
import type { Capability, ModelInfo, TextModel } from '../text-model';
import { llamaCppModel } from '../llama-cpp/build';
import { onnxModel } from '../onnx/build';
import type { ApertiumEntry, BuiltinEntry, ModelEntry, RemoteEntry } from './registry-schema';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_MAX_CONCURRENCY = 8;
export const DEFAULT_COOLDOWN_SECONDS = 30;

function builtinModel(entry: BuiltinEntry): TextModel {
  return new BuiltinModel({
    ...BUILTIN_MODEL_INFO,
    id: entry.id,
    aliases: entry.aliases ?? BUILTIN_MODEL_INFO.aliases,
  });
}

function infoOf(entry: RemoteEntry): ModelInfo {
  return {
    id: entry.id,
    provider: entry.provider,
    capabilities: entry.capabilities as Capability[],
    aliases: entry.aliases ?? [],
    inputPricePerMillion: entry.inputPricePerMillion ?? 0,
    outputPricePerMillion: entry.outputPricePerMillion ?? 0,
    contextWindow: entry.contextWindow,
    maxOutputTokens: entry.maxOutputTokens,
    languages: entry.languages,
    fallback: entry.fallback ?? [],
    local: entry.local === true,
  };
}

/** Local servers (Ollama, vLLM, llama.cpp) ignore the key, but the SDK requires a non-empty one. */
function apiKeyOf(entry: RemoteEntry, env: NodeJS.ProcessEnv): string {
  return entry.apiKeyEnv ? env[entry.apiKeyEnv]! : 'not-needed';
}

/** The chat completions URL and headers, as the SDK builds them for this provider, built once. */
function relayTarget(entry: RemoteEntry, env: NodeJS.ProcessEnv): RelayTarget {
  const apiKey = apiKeyOf(entry, env);
  if (entry.provider === 'azure-openai') {
    const endpoint = entry.baseUrl.replace(/\/+$/, '');
    const deployment = encodeURIComponent(entry.upstreamModel);
    const version = encodeURIComponent(entry.apiVersion ?? '');
    return {
      url: `${endpoint}/openai/deployments/${deployment}/chat/completions?api-version=${version}`,
      headers: { 'api-key': apiKey, 'content-type': 'application/json' },
    };
  }
  return {
    url: `${entry.baseUrl.replace(/\/+$/, '')}/chat/completions`,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
  };
}

/** The SDK client; its own retries are off because ChatClient applies the policy exactly. */
function sdkClient(entry: RemoteEntry, env: NodeJS.ProcessEnv): OpenAI {
  const apiKey = apiKeyOf(entry, env);
  // ChatClient enforces timeoutMs itself; the SDK's timer is only a backstop that must fire later.
  const timeout = (entry.timeoutMs ?? DEFAULT_TIMEOUT_MS) + 1000;
  if (entry.provider === 'azure-openai') {
    return new AzureOpenAI({
      endpoint: entry.baseUrl,
      apiKey,
      apiVersion: entry.apiVersion,
      deployment: entry.upstreamModel,
      timeout,
      maxRetries: 0,
      fetch: upstreamFetch,
    });
  }
  return new OpenAI({
    baseURL: entry.baseUrl,
    apiKey,
    timeout,
    maxRetries: 0,
    fetch: upstreamFetch,
  });
}

function chatClient(
  entry: RemoteEntry,
  info: ModelInfo,
  env: NodeJS.ProcessEnv,
  maxRetries: number,
): ChatClient {
  return new ChatClient({
    client: sdkClient(entry, env),
    info,
    upstreamModel: entry.upstreamModel,
    outputTokenParam: entry.outputTokenParam,
    timeoutMs: entry.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries,
    semaphore: new Semaphore(entry.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY, entry.id),
    relay: relayTarget(entry, env),
  });
}

/** A model of several deployments: one attempt on each (the pool moves on instead of retrying). */
function pooledModel(entry: RemoteEntry, info: ModelInfo, env: NodeJS.ProcessEnv): TextModel {
  const pool = new DeploymentPool({
    model: info,
    strategy: entry.routing ?? 'weighted',
    cooldownMs: (entry.cooldownSeconds ?? DEFAULT_COOLDOWN_SECONDS) * 1000,
    upstreamModel: entry.upstreamModel,
    outputTokenParam: entry.outputTokenParam ?? 'max_tokens',
    deployments: deploymentsOf(entry).map((d) => ({
      id: d.id,
      weight: d.weight,
      upstreamModel: d.entry.upstreamModel,
      client: chatClient(d.entry, info, env, 0),
    })),
  });
  return new PooledChatModel(info, pool);
}

function remoteModel(entry: RemoteEntry, env: NodeJS.ProcessEnv): TextModel {
  const info = infoOf(entry);
  if (entry.deployments) return pooledModel(entry, info, env);
  const chat = chatClient(entry, info, env, entry.maxRetries ?? DEFAULT_MAX_RETRIES);
  return new ChatModel(info, chat, chat);
}

/** Translation is slower than a chat call per token; a long text gets a minute by default. */
export const DEFAULT_APERTIUM_TIMEOUT_MS = 60_000;
/** Each translation is a child process: keep them to about the number of cores. */
export const DEFAULT_APERTIUM_CONCURRENCY = 2;

/** The engine's installed pairs are discovered now, so the registry lists exactly those. */
function apertiumModel(entry: ApertiumEntry): Promise<TextModel> {
  return ApertiumModel.discover({
    id: entry.id,
    aliases: entry.aliases ?? [],
    fallback: entry.fallback ?? [],
    engine: entry.baseUrl ? new ApyEngine(entry.baseUrl) : new CommandEngine(entry.command),
    timeoutMs: entry.timeoutMs ?? DEFAULT_APERTIUM_TIMEOUT_MS,
    maxConcurrency: entry.maxConcurrency ?? DEFAULT_APERTIUM_CONCURRENCY,
  });
}

/** An optional engine that is not installed is left out (and said so); a required one fails startup. */
async function discovered(entry: ApertiumEntry, logger: Logger): Promise<TextModel | undefined> {
  try {
    return await apertiumModel(entry);
  } catch (error) {
    const reason = (error as Error).message;
    if (!entry.optional) {
      throw new Error(`model ${entry.id}: the Apertium engine is not usable: ${reason}`, {
        cause: error,
      });
    }
    logger.info(
      { model: entry.id, reason },
      'optional Apertium model left out: engine not installed',
    );
    return undefined;
  }
}

/** The models of a validated registry, in file order (optional engines that are absent left out). */
export async function buildModels(
  entries: ModelEntry[],
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<TextModel[]> {
  const models = await Promise.all(
    entries.map((entry) => {
      if (entry.provider === 'builtin') return builtinModel(entry);
      if (entry.provider === 'apertium') return discovered(entry, logger);
      if (entry.provider === 'llama-cpp') return llamaCppModel(entry, env, logger);
      if (entry.provider === 'onnx') return onnxModel(entry, env, logger);
      return remoteModel(entry, env);
    }),
  );
  return models.filter((model): model is TextModel => model !== undefined);
}
