import { detectFormat } from '../builtin/detect-format';
import { chatPrompt } from '../../prompts/chat';
import { generatePrompt } from '../../prompts/generate';
import { reformatPrompt } from '../../prompts/reformat';
import { SUMMARY_MAX_TOKENS, summarizePrompt } from '../../prompts/summarize';
import { translatePrompt } from '../../prompts/translate';
import type {
  CallOptions,
  ChatMessage,
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
  TranslateInput,
} from '../text-model';
import { outputBudget, usageOf } from '../usage';
import type { ChatClient, Sampling } from './chat-client';

/** The sampling options of a chat completion, as the provider takes them. */
function samplingOf(input: CompleteInput): Sampling | undefined {
  if (input.stop === undefined && input.temperature === undefined) return undefined;
  return {
    ...(input.stop ? { stop: input.stop } : {}),
    ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
  };
}

const EMBED_BATCH = 256;

/** A model behind an OpenAI-compatible chat completions API (OpenAI, Azure, Ollama, vLLM, llama.cpp). */
export class OpenAiCompatibleModel implements TextModel {
  constructor(
    readonly info: ModelInfo,
    private readonly chat: ChatClient,
  ) {}

  get chatRelay(): ChatClient {
    return this.chat;
  }

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
      outputBudget(this.info, messages, this.info.maxOutputTokens),
      options,
    );
    return { ...result, originalFormat };
  }

  translate(input: TranslateInput, options?: CallOptions): Promise<TextResult> {
    const messages = translatePrompt(input);
    return this.run(
      messages,
      outputBudget(this.info, messages, this.info.maxOutputTokens),
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
}
