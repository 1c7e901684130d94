import { AppError, countTokens } from '@switchyard/shared';
import { detectFormat } from '../builtin/detect-format';
import { Semaphore } from '../semaphore';
import type {
  CallOptions,
  ModelInfo,
  ReformatResult,
  TextModel,
  TextResult,
  TranslateInput,
  TranslateResult,
} from '../text-model';
import { EngineError, type EngineFormat, type TranslationEngine } from './engine';
import { pairName, pairsFromModes, type LanguagePair } from './languages';
import { findRoute } from './route';

export interface ApertiumModelOptions {
  id: string;
  aliases: string[];
  fallback: string[];
  engine: TranslationEngine;
  timeoutMs: number;
  maxConcurrency: number;
}

/** Apertium has no context window; the service's MAX_INPUT_TOKENS bounds the input instead. */
const UNBOUNDED_TOKENS = 1_000_000;

/** Markup the engine must leave alone goes through its HTML format; Markdown and plain text are text to it. */
function engineFormat(text: string): EngineFormat {
  return detectFormat(text) === 'html' ? 'html' : 'txt';
}

/**
 * Rule-based machine translation with Apertium (local command or APY): the translate capability
 * for exactly the installed pairs, through pivot languages when no direct pair exists. Local and
 * free: usage is counted with the shared tokenizer at cost 0.
 */
export class ApertiumModel implements TextModel {
  private readonly semaphore: Semaphore;

  private constructor(
    readonly info: ModelInfo,
    private readonly pairs: LanguagePair[],
    private readonly options: ApertiumModelOptions,
  ) {
    this.semaphore = new Semaphore(options.maxConcurrency, options.id);
  }

  /** Asks the engine which pairs it has; fails when it cannot answer or has none. */
  static async discover(options: ApertiumModelOptions): Promise<ApertiumModel> {
    const pairs = pairsFromModes(await options.engine.listModes());
    if (pairs.length === 0)
      throw new EngineError(`${options.engine.location} has no language pairs installed`);
    const info: ModelInfo = {
      id: options.id,
      provider: 'apertium',
      capabilities: ['translate'],
      aliases: options.aliases,
      inputPricePerMillion: 0,
      outputPricePerMillion: 0,
      contextWindow: UNBOUNDED_TOKENS,
      maxOutputTokens: UNBOUNDED_TOKENS,
      fallback: options.fallback,
      local: true,
      translationPairs: pairs.map(pairName),
    };
    return new ApertiumModel(info, pairs, options);
  }

  async translate(input: TranslateInput, call: CallOptions = {}): Promise<TranslateResult> {
    const route = this.routeFor(input);
    const format = engineFormat(input.text);
    const release = await this.semaphore.acquire(call.deadline, call.signal);
    try {
      let text = input.text;
      for (const hop of route) text = await this.hop(text, hop, format, call);
      return {
        text,
        tokensInput: countTokens(input.text),
        tokensOutput: countTokens(text),
        route: { languages: [route[0]!.source, ...route.map((hop) => hop.target)] },
      };
    } finally {
      release();
    }
  }

  private routeFor(input: TranslateInput): LanguagePair[] {
    const available = `available pairs: ${this.info.translationPairs!.join(', ')}`;
    if (input.sourceLanguage === '') {
      throw AppError.unsupported(
        `model ${this.info.id} needs source_language (it does not detect languages); ${available}`,
        [{ field: '/source_language', reason: 'required by this model' }],
      );
    }
    const route = findRoute(this.pairs, input.sourceLanguage, input.targetLanguage);
    if (!route) {
      throw AppError.unsupported(
        `model ${this.info.id} cannot translate ${input.sourceLanguage} -> ${input.targetLanguage}, directly or through another language; ${available}`,
        [
          {
            field: '/target_language',
            reason: `no ${input.sourceLanguage} -> ${input.targetLanguage} route`,
            available: this.info.translationPairs,
          },
        ],
      );
    }
    return route;
  }

  /** One engine run, bounded by the model's timeout and the call's deadline; cancelling kills it. */
  private async hop(
    text: string,
    pair: LanguagePair,
    format: EngineFormat,
    call: CallOptions,
  ): Promise<string> {
    const budget = Math.min(
      this.options.timeoutMs,
      call.deadline === undefined ? Infinity : call.deadline - Date.now(),
    );
    const timeout = AbortSignal.timeout(Math.max(1, budget));
    const signal = call.signal ? AbortSignal.any([timeout, call.signal]) : timeout;
    const details = { provider: 'apertium', model: this.info.id, pair: pairName(pair) };
    try {
      return await this.options.engine.translate(text, pair.mode, { format, signal });
    } catch (error) {
      if (timeout.aborted)
        throw new AppError(
          'timeout',
          `model ${this.info.id}: no translation within ${Math.round(budget)} ms`,
          [{ reason: 'timeout', ...details }],
        );
      if (call.signal?.aborted) throw new AppError('unavailable', 'the call was cancelled');
      const reason = error instanceof Error ? error.message : String(error);
      throw new AppError(
        'upstream_error',
        `model ${this.info.id}: the translation engine failed: ${reason}`,
        [{ reason, ...details }],
      );
    }
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

  private cannot(operation: string): AppError {
    return AppError.unsupported(`model ${this.info.id} only translates; it cannot ${operation}`, [
      { field: '/model', reason: `lacks the ${operation} capability` },
    ]);
  }
}
