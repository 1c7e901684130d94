import {
  SUMMARY_LENGTHS,
  TEXT_FORMATS,
  type SummaryLength,
  type TextFormat,
} from '@switchyard/shared/contracts';

export { SUMMARY_LENGTHS, TEXT_FORMATS, type SummaryLength, type TextFormat };

/** The operations a model can serve; ListModels reports them as `capabilities`. */
export const CAPABILITIES = [
  'generate',
  'summarize',
  'reformat',
  'translate',
  'chat',
  'embeddings',
] as const;
export type Capability = (typeof CAPABILITIES)[number];
/** What a text model can do when its entry and the catalog do not say: everything but embeddings (a model of its own kind). */
export const TEXT_CAPABILITIES: Capability[] = CAPABILITIES.filter((c) => c !== 'embeddings');

export interface ModelInfo {
  id: string;
  provider: string;
  capabilities: Capability[];
  aliases: string[];
  inputPricePerMillion: number;
  outputPricePerMillion: number;
  contextWindow: number;
  maxOutputTokens: number;
  /** Output languages the model can write; undefined means any. */
  languages?: string[];
  /** Model ids tried in order when this model fails upstream. */
  fallback?: string[];
  /** Runs on own hardware: zero prices are legitimate. */
  local?: boolean;
  /** Translation directions the model has ("en-es"); undefined means any (a general model). */
  translationPairs?: string[];
}

/** How long a call may take and how it is cancelled (the gRPC deadline and cancellation). */
export interface CallOptions {
  /** Epoch milliseconds; undefined means no deadline beyond the model's own timeout. */
  deadline?: number;
  signal?: AbortSignal;
}

/** Receives streamed text as it is produced. */
export type DeltaSink = (delta: string) => void | Promise<void>;

/** A function call a model asked for; arguments as the model wrote them (JSON text). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A function offered to the model: name, what it does, JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** assistant: the tools it called. */
  toolCalls?: ToolCall[];
  /** tool: the call answered. */
  toolCallId?: string;
}

export interface CompleteInput {
  messages: ChatMessage[];
  maxTokens: number;
  /** Offered to models that support tool calls. */
  tools?: ToolSpec[];
  /** Stop sequences: the output ends before the first one (OpenAI `stop`). */
  stop?: string[];
  /** Sampling temperature (OpenAI `temperature`, 0..2); the model's default when unset. */
  temperature?: number;
  /** Nucleus sampling (OpenAI `top_p`); the model's default when unset. */
  topP?: number;
  /** The same request with the same seed gives the same answer (OpenAI `seed`). */
  seed?: number;
}

/** The provider's answer to a relayed request, unread. */
export interface RelayedAnswer {
  body: AsyncIterable<Uint8Array> & { text(): Promise<string> };
}

/** The attempt a relayed answer is read in: `touch` restarts its timeout (a stream that is still sending). */
export interface RelayAttempt {
  touch(): void;
}

/**
 * OpenAI-compatible providers: an OpenAI chat completions body is forwarded as it is, with the
 * provider's model name, and the answer handed back unparsed (the /v1/chat/completions path).
 */
export interface ChatRelay {
  readonly upstreamModel: string;
  /** The request parameter the provider takes for the output cap. */
  readonly outputTokenParam: 'max_tokens' | 'max_completion_tokens';
  relay<T>(
    body: string,
    options: CallOptions,
    read: (answer: RelayedAnswer, attempt: RelayAttempt) => Promise<T>,
  ): Promise<T>;
}

/** Text produced by a model with the tokens it consumed and produced. */
export interface TextResult {
  text: string;
  tokensInput: number;
  tokensOutput: number;
  /** Tools the model asked for (complete() with tools only). */
  toolCalls?: ToolCall[];
}

export interface GenerateInput {
  prompt: string;
  /** Hard cap on output tokens. */
  maxTokens: number;
  /** Empty means the model's default style. */
  tone: string;
  /** Normalized language code (e.g. "en"). */
  language: string;
}

export interface SummarizeInput {
  text: string;
  targetLength: SummaryLength;
}

export interface ReformatInput {
  text: string;
  format: TextFormat;
}

export interface ReformatResult extends TextResult {
  originalFormat: TextFormat;
}

/** How a translation was made when the engine says: the languages it went through, in order. */
export interface TranslationRoute {
  /** ["en", "es", "fr"]: en -> fr through es (a pivot); two entries for a direct pair. */
  languages: string[];
}

export interface TranslateResult extends TextResult {
  route?: TranslationRoute;
}

export interface TranslateInput {
  text: string;
  /** Empty when the caller did not say; a model may detect it. */
  sourceLanguage: string;
  targetLanguage: string;
}

/** Vectors of texts (one per input, same order) and the tokens they took. */
export interface EmbedResult extends TextResult {
  vectors: number[][];
}

/**
 * A text model behind the content operations (builtin engine, later OpenAI-compatible providers).
 * Methods throw AppError: invalid_request/unsupported for inputs the model cannot serve,
 * upstream_error/timeout when a provider fails.
 */
export interface TextModel {
  readonly info: ModelInfo;
  generate(input: GenerateInput, options?: CallOptions): Promise<TextResult>;
  summarize(input: SummarizeInput, options?: CallOptions): Promise<TextResult>;
  reformat(input: ReformatInput, options?: CallOptions): Promise<ReformatResult>;
  translate(input: TranslateInput, options?: CallOptions): Promise<TranslateResult>;
  /** Native streaming; models without it are streamed from generate() in word-sized pieces. */
  generateStream?(
    input: GenerateInput,
    onDelta: DeltaSink,
    options?: CallOptions,
  ): Promise<TextResult>;
  /** Chat completion (capability "chat"). */
  complete?(input: CompleteInput, options?: CallOptions): Promise<TextResult>;
  completeStream?(
    input: CompleteInput,
    onDelta: DeltaSink,
    options?: CallOptions,
  ): Promise<TextResult>;
  /**
   * Embeddings (capability "embeddings"), e.g. an OpenAI-compatible /embeddings endpoint. With
   * `truncate`, a model with a short window embeds the start of a longer input (retrieval's
   * chunks) instead of refusing it (the public API's callers are told).
   */
  embed?(
    inputs: string[],
    options?: CallOptions,
    mode?: { truncate?: boolean },
  ): Promise<EmbedResult>;
  /** OpenAI-compatible providers: chat completions bodies relayed as they are. */
  readonly chatRelay?: ChatRelay;
  /** Releases what the model holds in this process (a local model's context memory). */
  close?(): Promise<void>;
  /** A model spread over several deployments: how calls pick one. */
  readonly routing?: string;
  /** ...and each deployment's state in this process. */
  deployments?(): DeploymentState[];
}

/** One deployment of a model as this process sees it (ListModels). */
export interface DeploymentState {
  id: string;
  weight: number;
  state: 'healthy' | 'cooling_down';
  cooldownUntil?: string;
  inFlight: number;
  latencyMs?: number;
  requests: number;
  failures: number;
}

const COST_RESOLUTION = 1e-8;

/**
 * Cost in the price list's currency, rounded to 1e-8. Tokens spent on a priced model never
 * round down to 0: the smallest recordable amount is charged instead.
 */
export function costOf(info: ModelInfo, tokensInput: number, tokensOutput: number): number {
  const exact =
    (tokensInput * info.inputPricePerMillion + tokensOutput * info.outputPricePerMillion) /
    1_000_000;
  const rounded = Math.round(exact / COST_RESOLUTION) * COST_RESOLUTION;
  return exact > 0 ? Math.max(COST_RESOLUTION, Number(rounded.toFixed(8))) : 0;
}
