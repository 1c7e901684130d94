import { readFileSync } from 'node:fs';
import { AppError } from '@switchyard/shared';
import { Tokenizer } from '@huggingface/tokenizers';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { Semaphore } from '../semaphore';
import type {
  CallOptions,
  EmbedResult,
  ModelInfo,
  ReformatResult,
  TextModel,
  TextResult,
} from '../text-model';

export interface SentenceEmbedderOptions {
  id: string;
  aliases: string[];
  fallback: string[];
  /** The .onnx file: a BERT-style encoder with input_ids, attention_mask (and token_type_ids). */
  modelPath: string;
  /** Its tokenizer.json (Hugging Face tokenizers format). */
  tokenizerPath: string;
  /** Tokens of one input the model reads; a longer input is 413 (the encoder's positions end there). */
  maxTokens: number;
  /** CPU threads of one evaluation. */
  threads: number;
  /** Evaluations at once; more wait (up to maxQueue, then 503). */
  maxConcurrency: number;
  maxQueue: number;
}

interface Encoded {
  index: number;
  ids: number[];
}

/**
 * A sentence embedding model (all-MiniLM-L6-v2 and its kind) run in this process by ONNX Runtime:
 * texts are tokenized with the model's own tokenizer.json, encoded one by one, mean-pooled over
 * their tokens and L2-normalised, as sentence-transformers does. Evaluation runs on ONNX
 * Runtime's threads, never on the event loop. It only embeds; usage is its tokenizer's count.
 */
export class SentenceEmbedder implements TextModel {
  private readonly queue: Semaphore;

  private constructor(
    readonly info: ModelInfo,
    private readonly session: InferenceSession,
    private readonly tokenizer: Tokenizer,
    private readonly options: SentenceEmbedderOptions,
  ) {
    this.queue = new Semaphore(options.maxConcurrency, options.id, options.maxQueue);
  }

  static async load(options: SentenceEmbedderOptions): Promise<SentenceEmbedder> {
    const tokenizer = new Tokenizer(
      JSON.parse(readFileSync(options.tokenizerPath, 'utf8')) as object,
      {},
    );
    const session = await InferenceSession.create(options.modelPath, {
      intraOpNumThreads: options.threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    for (const input of ['input_ids', 'attention_mask']) {
      if (!session.inputNames.includes(input))
        throw new Error(`model ${options.id}: ${options.modelPath} has no ${input} input`);
    }
    const info: ModelInfo = {
      id: options.id,
      provider: 'onnx',
      capabilities: ['embeddings'],
      aliases: options.aliases,
      inputPricePerMillion: 0,
      outputPricePerMillion: 0,
      contextWindow: options.maxTokens,
      maxOutputTokens: 1,
      fallback: options.fallback,
      local: true,
    };
    return new SentenceEmbedder(info, session, tokenizer, options);
  }

  async embed(
    inputs: string[],
    call: CallOptions = {},
    mode: { truncate?: boolean } = {},
  ): Promise<EmbedResult> {
    const encoded = inputs.map((text, index) => this.encode(text, index, mode.truncate === true));
    const tokensInput = encoded.reduce((sum, e) => sum + e.ids.length, 0);
    const vectors: number[][] = [];
    const release = await this.queue.acquire(call.deadline, call.signal);
    try {
      // One input per run: the int8 model quantizes each run's activations as a whole, so a text
      // batched with others would get a slightly different vector (and padding buys no speed here).
      for (const input of encoded) {
        this.checkCall(call);
        vectors.push(await this.run(input.ids));
      }
    } finally {
      release();
    }
    return { text: '', vectors, tokensInput, tokensOutput: 0 };
  }

  async generate(): Promise<TextResult> {
    throw this.cannot('generate');
  }

  async summarize(): Promise<TextResult> {
    throw this.cannot('summarize');
  }

  async reformat(): Promise<ReformatResult> {
    throw this.cannot('reformat');
  }

  async translate(): Promise<TextResult> {
    throw this.cannot('translate');
  }

  async close(): Promise<void> {
    await this.session.release();
  }

  /**
   * The model's tokens of a text ([CLS] ... [SEP]); over maxTokens is 413, or, when the caller
   * asked to truncate, the first maxTokens - 1 and the closing [SEP] (sentence-transformers' way).
   */
  private encode(text: string, index: number, truncate: boolean): Encoded {
    const { ids } = this.tokenizer.encode(text);
    const max = this.options.maxTokens;
    if (ids.length > max && truncate)
      return { index, ids: [...ids.slice(0, max - 1), ids[ids.length - 1]!] };
    if (ids.length > max) {
      throw new AppError(
        'payload_too_large',
        `input ${index} is ${ids.length} tokens; model ${this.info.id} embeds at most ${this.options.maxTokens}`,
        [{ field: `/inputs/${index}`, reason: `over ${this.options.maxTokens} tokens` }],
      );
    }
    return { index, ids };
  }

  /** One evaluation: the token states mean-pooled and L2-normalised (sentence-transformers' recipe). */
  private async run(ids: number[]): Promise<number[]> {
    const shape = [1, ids.length];
    const feeds: Record<string, Tensor> = {
      input_ids: new Tensor('int64', BigInt64Array.from(ids, BigInt), shape),
      attention_mask: new Tensor('int64', new BigInt64Array(ids.length).fill(1n), shape),
    };
    if (this.session.inputNames.includes('token_type_ids'))
      feeds.token_type_ids = new Tensor('int64', new BigInt64Array(ids.length), shape);
    const output = (await this.session.run(feeds))[this.session.outputNames[0]!]!;
    const hidden = output.data as Float32Array;
    const dimensions = output.dims[2]!;
    const sum = new Float64Array(dimensions);
    for (let t = 0; t < ids.length; t++)
      for (let d = 0; d < dimensions; d++) sum[d]! += hidden[t * dimensions + d]!;
    let norm = 0;
    for (let d = 0; d < dimensions; d++) norm += sum[d]! * sum[d]!;
    norm = Math.sqrt(norm) || 1;
    return Array.from(sum, (value) => value / norm);
  }

  private checkCall(call: CallOptions): void {
    if (call.signal?.aborted) throw new AppError('unavailable', 'the call was cancelled');
    if (call.deadline !== undefined && Date.now() >= call.deadline)
      throw new AppError('timeout', `model ${this.info.id}: no answer within the call deadline`);
  }

  private cannot(operation: string): AppError {
    return AppError.unsupported(`model ${this.info.id} only embeds; it cannot ${operation}`, [
      { field: '/model', reason: 'an embedding model' },
    ]);
  }
}
