import { CAPABILITIES } from '../text-model';
import { OUTPUT_TOKEN_PARAMS, type OutputTokenParam } from './catalog';

export type ProviderKind = 'builtin' | 'openai-compatible' | 'azure-openai' | 'apertium';

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

export type ModelEntry = BuiltinEntry | RemoteEntry | ApertiumEntry;

export interface RegistryFile {
  $schema?: string;
  /** Model id or alias used when a request names none; DEFAULT_MODEL overrides it. */
  defaultModel?: string;
  models: ModelEntry[];
}

/** The file as written, before the catalog is applied. */
export interface RegistryFileInput extends Omit<RegistryFile, 'models'> {
  models: Array<BuiltinEntry | RemoteEntryInput | ApertiumEntry>;
}

const name = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]*$', maxLength: 128 } as const;
const names = { type: 'array', items: name, uniqueItems: true } as const;
const price = { type: 'number', minimum: 0 } as const;
const positiveInt = { type: 'integer', minimum: 1 } as const;

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

const remoteEntry = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'provider', 'baseUrl'],
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
    capabilities: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { enum: [...CAPABILITIES] },
    },
    aliases: names,
    fallback: names,
    languages: { type: 'array', items: { type: 'string', pattern: '^[a-z]{2,3}$' } },
    timeoutMs: positiveInt,
    maxRetries: { type: 'integer', minimum: 0, maximum: 10 },
    maxConcurrency: positiveInt,
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
        oneOf: [builtinEntry, remoteEntry, apertiumEntry],
      },
    },
  },
} as const;
