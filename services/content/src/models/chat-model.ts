import { AppError } from '@switchyard/shared';
import { detectFormat } from './builtin/detect-format';
import { chatPrompt } from '../prompts/chat';
import { generatePrompt } from '../prompts/generate';
import { reformatPrompt } from '../prompts/reformat';
import { SUMMARY_MAX_TOKENS, summarizePrompt } from '../prompts/summarize';
import { translatePrompt } from '../prompts/translate';
import type {
  CallOptions,
  ChatMessage,
  ChatRelay,
  CompleteInput,
  DeltaSink,
  EmbedResult,
  GenerateInput,
  ModelInfo,
  ReformatInput,
  ReformatResult,
  SummarizeInput,
  TextModel,
  TextResult,
  ToolCall,
  ToolSpec,
  TranslateInput,
} from './text-model';
import { outputBudget, usageOf, type ReportedUsage } from './usage';

/** Sampling options of one request, as OpenAI names them (each backend's default when unset). */
export interface Sampling {
  /** The output ends before the first of these (not included in it). */
  stop?: string[];
  temperature?: number;
  topP?: number;
  seed?: number;
}

/** The sampling options of a chat completion, as the backend takes them. */
function samplingOf(input: CompleteInput): Sampling | undefined {
  const sampling: Sampling = {
    ...(input.stop ? { stop: input.stop } : {}),
    ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
    ...(input.topP !== undefined ? { topP: input.topP } : {}),
    ...(input.seed !== undefined ? { seed: input.seed } : {}),
  };
  return Object.keys(sampling).length > 0 ? sampling : undefined;
}

const EMBED_BATCH = 256;

/**
 * Output tokens for a rewrite (reformat, translate) of `text`. A rewrite is about as long as its
 * input, so the budget follows the input's UTF-8 size (a token is at least one byte; a script with
 * wider characters or a format with repeated keys may take a few times the input's bytes). A model
 * that does not stop then ends near the input's length, not at the end of its context window.
 */
export function rewriteBudget(text: string): number {
  return 4 * Buffer.byteLength(text, 'utf8') + 64;
}

/** What a chat backend answers: the text, the usage it counted, the tools the model asked for. */
export interface ChatOutput {
  text: string;
  usage?: ReportedUsage | null;
  toolCalls?: ToolCall[];
}

/**
 * Where a ChatModel's messages go: an OpenAI-compatible API (ChatClient) or a GGUF run in this
 * process (LlamaCppChat). Failures are AppErrors; a failure after tokens were spent carries them
 * (withSpent).
 */
export interface ChatBackend {
  complete(
    messages: ChatMessage[],
    maxTokens: number,
    call?: CallOptions,
    tools?: ToolSpec[],
    sampling?: Sampling,
  ): Promise<ChatOutput>;
  stream(
    messages: ChatMessage[],
    maxTokens: number,
    onDelta: DeltaSink,
    call?: CallOptions,
    sampling?: Sampling,
  ): Promise<ChatOutput>;
  embed(
    inputs: string[],
    call?: CallOptions,
  ): Promise<{ vectors: number[][]; tokensInput: number }>;
  /** Releases what the backend holds in this process. */
  close?(): Promise<void>;
}

/**
 * A chat model: every content operation is a prompt (prompts/) sent to its backend, a hosted
 * OpenAI-compatible API (OpenAI, Azure, Ollama, vLLM, a llama.cpp server) or a local GGUF.
 */
export class ChatModel implements TextModel {
  constructor(
    readonly info: ModelInfo,
    private readonly chat: ChatBackend,
    /** OpenAI-compatible providers take /v1 chat completions bodies as they are. */
    readonly chatRelay?: ChatRelay,
  ) {}

  generate(input: GenerateInput, options?: CallOptions): Promise<TextResult> {
    const messages = generatePrompt(input);
    return this.run(messages, outputBudget(this.info, messages, input.maxTokens), options);
  }

  generateStream(
    input: GenerateInput,
    onDelta: DeltaSink,
    options?: CallOptions,
  ): Promise<TextResult> {
    const messages = generatePrompt(input);
    return this.runStream(
      messages,
      outputBudget(this.info, messages, input.maxTokens),
      onDelta,
      options,
    );
  }

  summarize(input: SummarizeInput, options?: CallOptions): Promise<TextResult> {
    const messages = summarizePrompt(input);
    return this.run(
      messages,
      outputBudget(this.info, messages, SUMMARY_MAX_TOKENS[input.targetLength]),
      options,
    );
  }

  /** The source format is detected locally so the answer reports it the same way for every model. */
  async reformat(input: ReformatInput, options?: CallOptions): Promise<ReformatResult> {
    const originalFormat = detectFormat(input.text);
    const messages = reformatPrompt(input, originalFormat);
    const result = await this.run(
      messages,
      outputBudget(this.info, messages, rewriteBudget(input.text)),
      options,
    );
    return { ...result, originalFormat };
  }

  async translate(input: TranslateInput, options?: CallOptions): Promise<TextResult> {
    this.checkLanguages(input);
    const messages = translatePrompt(input);
    return this.run(
      messages,
      outputBudget(this.info, messages, rewriteBudget(input.text)),
      options,
    );
  }

  async complete(input: CompleteInput, options?: CallOptions): Promise<TextResult> {
    const messages = chatPrompt(input);
    const output = await this.chat.complete(
      messages,
      outputBudget(this.info, messages, input.maxTokens),
      options,
      input.tools,
      samplingOf(input),
    );
    const result = usageOf(messages, output.text.trim(), output.usage);
    return output.toolCalls ? { ...result, toolCalls: output.toolCalls } : result;
  }

  completeStream(
    input: CompleteInput,
    onDelta: DeltaSink,
    options?: CallOptions,
  ): Promise<TextResult> {
    const messages = chatPrompt(input);
    return this.runStream(
      messages,
      outputBudget(this.info, messages, input.maxTokens),
      onDelta,
      options,
      samplingOf(input),
    );
  }

  async close(): Promise<void> {
    await this.chat.close?.();
  }

  /** In batches the providers accept (OpenAI takes up to 2048 inputs per request). */
  async embed(inputs: string[], options?: CallOptions): Promise<EmbedResult> {
    const vectors: number[][] = [];
    let tokensInput = 0;
    for (let i = 0; i < inputs.length; i += EMBED_BATCH) {
      const batch = await this.chat.embed(inputs.slice(i, i + EMBED_BATCH), options);
      vectors.push(...batch.vectors);
      tokensInput += batch.tokensInput;
    }
    return { text: '', vectors, tokensInput, tokensOutput: 0 };
  }

  private async run(
    messages: ChatMessage[],
    maxTokens: number,
    options?: CallOptions,
  ): Promise<TextResult> {
    const output = await this.chat.complete(messages, maxTokens, options);
    return usageOf(messages, output.text.trim(), output.usage);
  }

  private async runStream(
    messages: ChatMessage[],
    maxTokens: number,
    onDelta: DeltaSink,
    options?: CallOptions,
    sampling?: Sampling,
  ): Promise<TextResult> {
    const output = await this.chat.stream(messages, maxTokens, onDelta, options, sampling);
    return usageOf(messages, output.text, output.usage);
  }

  /** A model that names the languages it knows translates only between those (422 otherwise). */
  private checkLanguages(input: TranslateInput): void {
    const known = this.info.languages;
    if (!known) return;
    const unknown = [
      ['/source_language', input.sourceLanguage],
      ['/target_language', input.targetLanguage],
    ].filter(([, language]) => language !== '' && !known.includes(language!));
    if (unknown.length === 0) return;
    throw AppError.unsupported(
      `model ${this.info.id} knows only ${known.join(', ')}: it cannot translate ${input.sourceLanguage || 'the text'} -> ${input.targetLanguage}`,
      unknown.map(([field, language]) => ({
        field,
        reason: `${language} is not a language of the model`,
        available: known,
      })),
    );
  }
}
