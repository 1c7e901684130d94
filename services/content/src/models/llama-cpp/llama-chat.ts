import { randomInt } from 'node:crypto';
import { AppError } from '@switchyard/shared';
import type {
  ChatHistoryItem,
  ChatWrapper,
  LlamaChat,
  LlamaContext,
  LlamaEmbeddingContext,
  LlamaModel,
} from 'node-llama-cpp' with { 'resolution-mode': 'import' };
import type { ChatBackend, ChatOutput, Sampling } from '../chat-model';
import { Semaphore } from '../semaphore';
import type { CallOptions, ChatMessage, DeltaSink, ModelInfo } from '../text-model';
import { withSpent } from '../usage';
import { llamaBinding } from './runtime';

/** How a GGUF chat model samples its answers (llama.cpp's defaults unless the entry says). */
export interface SamplingDefaults {
  temperature: number;
  topK: number;
  topP: number;
  minP: number;
  /** Fixed seed: the same prompt gives the same answer (with temperature > 0 too). */
  seed?: number;
}

export interface LlamaCppChatOptions {
  /** The registry id (for messages, before the model's info is complete). */
  id: string;
  model: LlamaModel;
  /** Parallel sequences of the context: requests generated at once (in one batch). */
  parallel: number;
  /** Requests that may wait for a sequence; one more is refused with 503 and Retry-After. */
  maxQueue: number;
  /** Tokens per sequence: the model's context window. */
  contextSize: number;
  threads: number;
  sampling: SamplingDefaults;
  /** Serve chat completions (an embedding-only model has no chat context). */
  chat: boolean;
  /** Serve embeddings, from an embedding context of the same model. */
  embeddings: boolean;
}

const chatWrappers = new WeakMap<LlamaModel, ChatWrapper>();

/** One sequence of the context and the chat driving it, lent to one request at a time. */
interface Slot {
  chat: LlamaChat;
}

/**
 * Messages in node-llama-cpp's chat history. Tool calls and results have no place in a plain
 * chat template: they are kept as text so the model still sees them.
 */
function historyOf(messages: ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = messages.map((message): ChatHistoryItem => {
    if (message.role === 'system') return { type: 'system', text: message.content };
    if (message.role === 'user') return { type: 'user', text: message.content };
    if (message.role === 'tool')
      return {
        type: 'user',
        text: `Tool result (${message.toolCallId ?? 'call'}):\n${message.content}`,
      };
    const calls = (message.toolCalls ?? []).map((c) => `Called ${c.name}(${c.arguments})`);
    return { type: 'model', response: [[...calls, message.content].filter(Boolean).join('\n')] };
  });
  // The model's turn to answer: an empty response it continues (as LlamaChatSession does).
  history.push({ type: 'model', response: [] });
  return history;
}

/**
 * Hands streamed text to the caller in order without holding up generation: llama.cpp's token
 * callback cannot wait, so chunks queue here and one writer awaits each delivery (the gRPC
 * sink's backpressure). A failed delivery (the caller went away) stops the generation.
 */
class DeltaPump {
  private queue: string[] = [];
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly onDelta: DeltaSink,
    private readonly stop: (reason: unknown) => void,
  ) {}

  push(text: string): void {
    if (text === '' || this.failure !== undefined) return;
    this.queue.push(text);
    if (this.queue.length === 1) this.writing = this.writing.then(() => this.drain());
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 && this.failure === undefined) {
      const text = this.queue[0]!;
      try {
        await this.onDelta(text);
      } catch (error) {
        this.failure = error;
        this.stop(error);
      }
      this.queue.shift();
    }
  }

  /** Resolves once every chunk was delivered; rejects with the delivery's failure. */
  async flush(): Promise<void> {
    await this.writing;
    if (this.failure !== undefined) throw this.failure;
  }
}

/**
 * A GGUF chat model run in this process by llama.cpp: one context with `parallel` sequences,
 * each a LlamaChat lent to one request at a time; further requests wait (up to maxQueue) for a
 * sequence. Prompts go through the chat template in the file; usage is counted by the model's
 * own tokenizer (the rendered prompt, and each token generated). Evaluation runs on llama.cpp's
 * threads, never on the event loop.
 */
export class LlamaCppChat implements ChatBackend {
  private readonly slots: Slot[] = [];
  private readonly queue: Semaphore;
  private readonly embedQueue: Semaphore;
  private embedding?: Promise<LlamaEmbeddingContext>;
  /** The chat template in the file; it renders prompts for counting while every slot is lent. */
  private chatWrapper?: ChatWrapper;

  private constructor(
    private readonly info: () => ModelInfo,
    private readonly options: LlamaCppChatOptions,
    private readonly context: LlamaContext | undefined,
  ) {
    this.queue = new Semaphore(options.parallel, options.id, options.maxQueue);
    this.embedQueue = new Semaphore(1, options.id, options.maxQueue);
  }

  /** Creates the context (and, with embeddings, the embedding context) now, so start-up fails early. */
  static async create(info: () => ModelInfo, options: LlamaCppChatOptions): Promise<LlamaCppChat> {
    const { LlamaChat, resolveChatWrapper } = await llamaBinding();
    const context = options.chat
      ? await options.model.createContext({
          contextSize: options.contextSize,
          sequences: options.parallel,
          threads: options.threads,
        })
      : undefined;
    const backend = new LlamaCppChat(info, options, context);
    if (context) {
      // The template in the file, matched to a wrapper once per model (it takes a while).
      let chatWrapper = chatWrappers.get(options.model);
      if (!chatWrapper) {
        chatWrapper = resolveChatWrapper(options.model);
        chatWrappers.set(options.model, chatWrapper);
      }
      backend.chatWrapper = chatWrapper;
      for (let i = 0; i < options.parallel; i++)
        backend.slots.push({
          chat: new LlamaChat({ contextSequence: context.getSequence(), chatWrapper }),
        });
    }
    if (options.embeddings) await backend.embeddingContext();
    return backend;
  }

  /** Tokens per sequence (llama.cpp may round the requested size up). */
  get contextSize(): number {
    return this.context?.contextSize ?? this.options.contextSize;
  }

  /** Requests generating now and waiting for a sequence. */
  get load(): { active: number; waiting: number } {
    return this.queue.load;
  }

  /** The prompt exactly as the model reads it (chat template applied), in tokens. */
  promptTokens(messages: ChatMessage[]): number {
    return this.tokensOf(historyOf(messages));
  }

  /** Tokens of a text by the model's own tokenizer. */
  countTokens(text: string): number {
    return this.options.model.tokenize(text).length;
  }

  complete(
    messages: ChatMessage[],
    maxTokens: number,
    call: CallOptions = {},
    _tools?: unknown,
    sampling?: Sampling,
  ): Promise<ChatOutput> {
    return this.generate(messages, maxTokens, call, undefined, sampling);
  }

  stream(
    messages: ChatMessage[],
    maxTokens: number,
    onDelta: DeltaSink,
    call: CallOptions = {},
    sampling?: Sampling,
  ): Promise<ChatOutput> {
    return this.generate(messages, maxTokens, call, onDelta, sampling);
  }

  /** One vector per input (the model's pooled embedding), the tokens counted by its tokenizer. */
  async embed(
    inputs: string[],
    call: CallOptions = {},
  ): Promise<{ vectors: number[][]; tokensInput: number }> {
    if (!this.options.embeddings) {
      throw AppError.unsupported(`model ${this.options.id} cannot embed`, [
        { field: '/model', reason: 'lacks the embeddings capability' },
      ]);
    }
    const release = await this.embedQueue.acquire(call.deadline, call.signal);
    try {
      const context = await this.embeddingContext();
      const vectors: number[][] = [];
      let tokensInput = 0;
      for (const [index, input] of inputs.entries()) {
        this.checkCall(call);
        const tokens = this.options.model.tokenize(input);
        if (tokens.length > this.contextSize) {
          throw new AppError(
            'payload_too_large',
            `input ${index} is ${tokens.length} tokens; model ${this.options.id} embeds at most ${this.contextSize}`,
            [{ field: `/inputs/${index}`, reason: `over ${this.contextSize} tokens` }],
          );
        }
        tokensInput += tokens.length;
        vectors.push([...(await context.getEmbeddingFor(tokens)).vector]);
      }
      return { vectors, tokensInput };
    } finally {
      release();
    }
  }

  /** Frees the contexts' memory (the model file stays loaded for the process). */
  async close(): Promise<void> {
    for (const slot of this.slots.splice(0)) slot.chat.dispose();
    await this.context?.dispose();
    if (this.embedding) await (await this.embedding).dispose();
  }

  private embeddingContext(): Promise<LlamaEmbeddingContext> {
    this.embedding ??= this.options.model.createEmbeddingContext({
      contextSize: this.options.contextSize,
      threads: this.options.threads,
    });
    return this.embedding;
  }

  private checkCall(call: CallOptions): void {
    if (call.signal?.aborted) throw new AppError('unavailable', 'the call was cancelled');
    if (call.deadline !== undefined && Date.now() >= call.deadline) throw this.timedOut();
  }

  private timedOut(): AppError {
    return new AppError('timeout', `model ${this.options.id}: no answer within the call deadline`, [
      { reason: 'the call deadline passed', provider: 'llama-cpp', model: this.options.id },
    ]);
  }

  private tokensOf(history: ChatHistoryItem[]): number {
    const { contextText } = this.chatWrapper!.generateContextState({
      chatHistory: history,
    });
    return contextText.tokenize(this.options.model.tokenizer).length;
  }

  /**
   * The output cap within the context window: the prompt must leave room for one token (413
   * otherwise), and the answer never runs past the window.
   */
  private outputCap(promptTokens: number, maxTokens: number): number {
    const room = this.contextSize - promptTokens;
    if (room < 1) {
      throw new AppError(
        'payload_too_large',
        `the input is ${promptTokens} tokens with the chat template and does not fit the ${this.contextSize}-token context window of model ${this.options.id}`,
        [{ field: '/messages', reason: 'context_length_exceeded' }],
      );
    }
    return Math.min(maxTokens, room);
  }

  private async generate(
    messages: ChatMessage[],
    maxTokens: number,
    call: CallOptions,
    onDelta?: DeltaSink,
    request: Sampling = {},
  ): Promise<ChatOutput> {
    if (!this.context) {
      throw AppError.unsupported(`model ${this.options.id} only embeds`, [
        { field: '/model', reason: 'an embedding model' },
      ]);
    }
    const history = historyOf(messages);
    const tokensInput = this.tokensOf(history);
    const cap = this.outputCap(tokensInput, maxTokens);
    const release = await this.queue.acquire(call.deadline, call.signal);
    const slot = this.slots.pop()!;
    const controller = new AbortController();
    const cancel = () => controller.abort(new AppError('unavailable', 'the call was cancelled'));
    call.signal?.addEventListener('abort', cancel, { once: true });
    if (call.signal?.aborted) cancel();
    const timer =
      call.deadline === undefined
        ? undefined
        : setTimeout(
            () => controller.abort(this.timedOut()),
            Math.max(0, call.deadline - Date.now()),
          );
    const pump = onDelta ? new DeltaPump(onDelta, (reason) => controller.abort(reason)) : undefined;
    let tokensOutput = 0;
    try {
      const { sampling } = this.options;
      const answer = await slot.chat.generateResponse(history, {
        maxTokens: cap,
        signal: controller.signal,
        onToken: (tokens) => {
          tokensOutput += tokens.length;
        },
        onTextChunk: pump ? (text) => pump.push(text) : undefined,
        customStopTriggers: request.stop?.filter((s) => s !== ''),
        temperature: request.temperature ?? sampling.temperature,
        topK: sampling.topK,
        topP: request.topP ?? sampling.topP,
        minP: sampling.minP,
        // The request's own (llama.cpp would take the clock's second: two calls in one second alike).
        seed: request.seed ?? sampling.seed ?? randomInt(2 ** 31),
      });
      await pump?.flush();
      return {
        text: answer.response,
        usage: { prompt_tokens: tokensInput, completion_tokens: tokensOutput },
      };
    } catch (error) {
      const reason = controller.signal.aborted ? controller.signal.reason : error;
      const failure =
        reason instanceof AppError
          ? reason
          : new AppError(
              'upstream_error',
              `model ${this.options.id}: llama.cpp failed: ${String(reason)}`,
              [{ reason: String(reason), provider: 'llama-cpp', model: this.options.id }],
            );
      throw withSpent(failure, { model: this.info(), tokensInput, tokensOutput });
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', cancel);
      this.slots.push(slot);
      release();
    }
  }
}
