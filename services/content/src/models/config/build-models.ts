import OpenAI, { AzureOpenAI } from 'openai';
import { BUILTIN_MODEL_INFO, BuiltinModel } from '../builtin/builtin-model';
import { ChatClient } from '../openai/chat-client';
import { OpenAiCompatibleModel } from '../openai/openai-model';
import { Semaphore } from '../semaphore';
import type { Capability, ModelInfo, TextModel } from '../text-model';
import type { BuiltinEntry, ModelEntry, RemoteEntry } from './registry-schema';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_MAX_CONCURRENCY = 8;

function builtinModel(entry: BuiltinEntry): TextModel {
  return new BuiltinModel({ ...BUILTIN_MODEL_INFO, id: entry.id, aliases: entry.aliases ?? BUILTIN_MODEL_INFO.aliases });
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

/** The SDK client; its own retries are off because ChatClient applies the policy exactly. */
function sdkClient(entry: RemoteEntry, env: NodeJS.ProcessEnv): OpenAI {
  // Local servers (Ollama, vLLM, llama.cpp) ignore the key, but the SDK requires a non-empty one.
  const apiKey = entry.apiKeyEnv ? env[entry.apiKeyEnv]! : 'not-needed';
  // ChatClient enforces timeoutMs itself; the SDK's timer is only a backstop that must fire later.
  const timeout = (entry.timeoutMs ?? DEFAULT_TIMEOUT_MS) + 1000;
  if (entry.provider === 'azure-openai') {
    return new AzureOpenAI({ endpoint: entry.baseUrl, apiKey, apiVersion: entry.apiVersion, deployment: entry.upstreamModel, timeout, maxRetries: 0 });
  }
  return new OpenAI({ baseURL: entry.baseUrl, apiKey, timeout, maxRetries: 0 });
}

function remoteModel(entry: RemoteEntry, env: NodeJS.ProcessEnv): TextModel {
  const info = infoOf(entry);
  const chat = new ChatClient({
    client: sdkClient(entry, env),
    info,
    upstreamModel: entry.upstreamModel,
    timeoutMs: entry.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: entry.maxRetries ?? DEFAULT_MAX_RETRIES,
    semaphore: new Semaphore(entry.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY, entry.id),
  });
  return new OpenAiCompatibleModel(info, chat);
}

/** The models of a validated registry, in file order. */
export function buildModels(entries: ModelEntry[], env: NodeJS.ProcessEnv): TextModel[] {
  return entries.map((entry) => (entry.provider === 'builtin' ? builtinModel(entry) : remoteModel(entry, env)));
}
