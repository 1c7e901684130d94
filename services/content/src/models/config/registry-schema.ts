import { CAPABILITIES } from '../text-model';
import { OUTPUT_TOKEN_PARAMS, type OutputTokenParam } from './catalog';

/** How a call picks among a model's deployments that are not cooling down. */
export const ROUTING_STRATEGIES = ['weighted', 'least-busy', 'latency'] as const;
export type RoutingStrategy = (typeof ROUTING_STRATEGIES)[number];

export type ProviderKind =
  'builtin' | 'openai-compatible' | 'azure-openai' | 'apertium' | 'llama-cpp' | 'onnx';

/** The builtin engine: only its names and fallbacks are configurable. */
export interface BuiltinEntry {
  id: string;
  provider: 'builtin';
  aliases?: string[];
}

/** A model reached over an OpenAI-compatible API, after the catalog filled what the file left out. */
export interface RemoteEntry {
  id: string;
  provider: 'openai-compatible' | 'azure-openai';
  /** OpenAI-compatible: the API root (…/v1). Azure: the resource endpoint. */
  baseUrl: string;
  /** NAME of the environment variable holding the key (never the key itself). */
  apiKeyEnv?: string;
  /** Model name sent upstream; for Azure, the deployment name. Defaults to id. */
  upstreamModel: string;
  /** The catalog entry to take prices and limits from (default: upstreamModel, else id). */
  catalogModel?: string;
  /** Azure only: the api-version query parameter. */
  apiVersion?: string;
  /** Runs on own hardware (Ollama, vLLM, llama.cpp): prices may be 0. */
  local?: boolean;
  inputPricePerMillion?: number;
  outputPricePerMillion?: number;
  contextWindow: number;
  maxOutputTokens: number;
  /** How the output cap is sent: max_tokens (default) or max_completion_tokens (o-series, gpt-5). */
  outputTokenParam?: OutputTokenParam;
  capabilities: string[];
  aliases?: string[];
  fallback?: string[];
  languages?: string[];
  timeoutMs?: number;
  maxRetries?: number;
  maxConcurrency?: number;
  /** Several upstreams serving this model; each field given overrides the entry's. */
  deployments?: DeploymentEntry[];
  /** How a call picks among the deployments (default weighted). */
  routing?: RoutingStrategy;
  /** How long a deployment that failed takes no calls (default 30). */
  cooldownSeconds?: number;
}

/** One upstream of a model: the entry's settings with these overriding them. */
export interface DeploymentEntry {
  /** Unique in the model; default the host of its baseUrl. */
  id?: string;
  provider?: 'openai-compatible' | 'azure-openai';
  baseUrl?: string;
  apiKeyEnv?: string;
  upstreamModel?: string;
  apiVersion?: string;
  /** Share of the calls under `weighted` routing (default 1). */
  weight?: number;
  timeoutMs?: number;
  maxConcurrency?: number;
}

/** A remote entry as written: four fields are enough for a model the catalog knows. */
export type RemoteEntryInput = Omit<
  RemoteEntry,
  'upstreamModel' | 'contextWindow' | 'maxOutputTokens' | 'capabilities'
> &
  Partial<
    Pick<RemoteEntry, 'upstreamModel' | 'contextWindow' | 'maxOutputTokens' | 'capabilities'>
  >;

/** Apertium machine translation: the local `apertium` command, or an APY server at baseUrl. */
export interface ApertiumEntry {
  id: string;
  provider: 'apertium';
  /** APY root (http://localhost:2737); absent means the local command. */
  baseUrl?: string;
  /** The local command (default "apertium"); ignored with baseUrl. */
  command?: string;
  /** When the engine is absent or has no pairs, leave the model out (logged) instead of failing startup. */
  optional?: boolean;
  aliases?: string[];
  fallback?: string[];
  timeoutMs?: number;
  maxConcurrency?: number;
}

/** A GGUF model file run in this process by llama.cpp (node-llama-cpp). */
export interface LlamaCppEntry {
  id: string;
  provider: 'llama-cpp';
  /** The .gguf file: absolute, ~/..., or relative to the model cache (SWITCHYARD_MODELS_DIR). */
  modelPath: string;
  /** When the file is absent, leave the model out (logged) instead of failing startup. */
  optional?: boolean;
  /** Default: generate, summarize, reformat, chat, and translate when the model knows two or more languages. */
  capabilities?: string[];
  aliases?: string[];
  fallback?: string[];
  /** The languages the model knows; default: those the file names (general.languages), else any. */
  languages?: string[];
  /** Tokens per sequence; default the context the model was trained with (from the file), at most 4096. */
  contextSize?: number;
  maxOutputTokens?: number;
  /** Requests generated at once (parallel sequences of one context); default 2. */
  parallel?: number;
  /** Requests that may wait for a sequence; more are refused (503, Retry-After); default 16. */
  maxQueue?: number;
  /** CPU threads of an evaluation; default half the cores (at least 1). */
  threads?: number;
  /** false (default): the CPU; "auto", "cuda", "vulkan" or "metal": a GPU build of llama.cpp. */
  gpu?: false | 'auto' | 'cuda' | 'vulkan' | 'metal';
  temperature?: number;
  topK?: number;
  topP?: number;
  minP?: number;
  seed?: number;
}

/** A sentence embedding model (ONNX, with its tokenizer.json) run in this process by ONNX Runtime. */
export interface OnnxEntry {
  id: string;
  provider: 'onnx';
  /** The .onnx file: absolute, ~/..., or relative to the model cache (SWITCHYARD_MODELS_DIR). */
  modelPath: string;
  /** Its tokenizer.json, found the same way. */
  tokenizerPath: string;
  /** When a file is absent, leave the model out (logged) instead of failing startup. */
  optional?: boolean;
  aliases?: string[];
  fallback?: string[];
  /** Tokens of one input; default 512 (a longer input is 413). */
  maxTokens?: number;
  /** CPU threads of an evaluation; default half the cores (at least 1). */
  threads?: number;
  /** Evaluations at once (default 1) and calls that may wait for one (default 64). */
  maxConcurrency?: number;
  maxQueue?: number;
}

export type ModelEntry = BuiltinEntry | RemoteEntry | ApertiumEntry | LlamaCppEntry | OnnxEntry;

export interface RegistryFile {
  $schema?: string;
  /** Model id or alias used when a request names none; DEFAULT_MODEL overrides it. */
  defaultModel?: string;
  models: ModelEntry[];
}

/** The file as written, before the catalog is applied. */
export interface RegistryFileInput extends Omit<RegistryFile, 'models'> {
  models: Array<BuiltinEntry | RemoteEntryInput | ApertiumEntry | LlamaCppEntry | OnnxEntry>;
}

const name = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]*$', maxLength: 128 } as const;
const names = { type: 'array', items: name, uniqueItems: true } as const;
const price = { type: 'number', minimum: 0 } as const;
const positiveInt = { type: 'integer', minimum: 1 } as const;
const capabilities = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { enum: [...CAPABILITIES] },
} as const;
const languages = { type: 'array', items: { type: 'string', pattern: '^[a-z]{2,3}$' } } as const;

const builtinEntry = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'provider'],
  properties: {
    id: name,
    provider: { const: 'builtin' },
    aliases: names,
  },
} as const;

const apertiumEntry = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'provider'],
  properties: {
    id: name,
    provider: { const: 'apertium' },
    baseUrl: { type: 'string', pattern: '^https?://' },
    command: { type: 'string', minLength: 1 },
    optional: { type: 'boolean' },
    aliases: names,
    fallback: names,
    timeoutMs: positiveInt,
    maxConcurrency: positiveInt,
  },
} as const;

const deploymentEntry = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: name,
    provider: { enum: ['openai-compatible', 'azure-openai'] },
    baseUrl: { type: 'string', pattern: '^https?://' },
    apiKeyEnv: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
    upstreamModel: { type: 'string', minLength: 1 },
    apiVersion: { type: 'string', minLength: 1 },
    weight: { type: 'number', exclusiveMinimum: 0, maximum: 1000 },
    timeoutMs: positiveInt,
    maxConcurrency: positiveInt,
  },
} as const;

const remoteEntry = {
  type: 'object',
  additionalProperties: false,
  // baseUrl: on the entry, or on each deployment (checked after the schema)
  required: ['id', 'provider'],
  properties: {
    id: name,
    provider: { enum: ['openai-compatible', 'azure-openai'] },
    baseUrl: { type: 'string', pattern: '^https?://' },
    apiKeyEnv: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
    upstreamModel: { type: 'string', minLength: 1 },
    catalogModel: { type: 'string', minLength: 1 },
    outputTokenParam: { enum: [...OUTPUT_TOKEN_PARAMS] },
    apiVersion: { type: 'string', minLength: 1 },
    local: { type: 'boolean' },
    inputPricePerMillion: price,
    outputPricePerMillion: price,
    contextWindow: positiveInt,
    maxOutputTokens: positiveInt,
    capabilities,
    aliases: names,
    fallback: names,
    languages,
    timeoutMs: positiveInt,
    maxRetries: { type: 'integer', minimum: 0, maximum: 10 },
    maxConcurrency: positiveInt,
    deployments: { type: 'array', minItems: 1, maxItems: 64, items: deploymentEntry },
    routing: { enum: [...ROUTING_STRATEGIES] },
    cooldownSeconds: { type: 'number', minimum: 0, maximum: 3600 },
  },
} as const;

const llamaCppEntry = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'provider', 'modelPath'],
  properties: {
    id: name,
    provider: { const: 'llama-cpp' },
    modelPath: { type: 'string', minLength: 1 },
    optional: { type: 'boolean' },
    capabilities,
    aliases: names,
    fallback: names,
    languages,
    contextSize: { type: 'integer', minimum: 64 },
    maxOutputTokens: positiveInt,
    parallel: { type: 'integer', minimum: 1, maximum: 64 },
    maxQueue: { type: 'integer', minimum: 0 },
    threads: { type: 'integer', minimum: 1, maximum: 256 },
    gpu: { enum: [false, 'auto', 'cuda', 'vulkan', 'metal'] },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    topK: { type: 'integer', minimum: 0 },
    topP: { type: 'number', minimum: 0, maximum: 1 },
    minP: { type: 'number', minimum: 0, maximum: 1 },
    seed: { type: 'integer', minimum: 0 },
  },
} as const;

const onnxEntry = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'provider', 'modelPath', 'tokenizerPath'],
  properties: {
    id: name,
    provider: { const: 'onnx' },
    modelPath: { type: 'string', minLength: 1 },
    tokenizerPath: { type: 'string', minLength: 1 },
    optional: { type: 'boolean' },
    aliases: names,
    fallback: names,
    maxTokens: { type: 'integer', minimum: 8, maximum: 8192 },
    threads: { type: 'integer', minimum: 1, maximum: 256 },
    maxConcurrency: { type: 'integer', minimum: 1, maximum: 64 },
    maxQueue: { type: 'integer', minimum: 0 },
  },
} as const;

/** JSON Schema of the model registry file (validated with ajv, discriminated by provider). */
export const REGISTRY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['models'],
  properties: {
    $schema: { type: 'string' },
    defaultModel: { type: 'string', minLength: 1 },
    models: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['provider'],
        properties: { provider: { type: 'string' } },
        discriminator: { propertyName: 'provider' },
        oneOf: [builtinEntry, remoteEntry, apertiumEntry, llamaCppEntry, onnxEntry],
      },
    },
  },
} as const;
