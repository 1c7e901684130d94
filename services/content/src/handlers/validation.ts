import { Buffer } from 'node:buffer';
import {
  AppError,
  countTokens,
  countTokensOffThread,
  newId,
  type CallContext,
} from '@switchyard/shared';
import type { TextModel } from '../models/text-model';
import { normalizeLanguage } from '../models/language';

export const DEFAULT_MAX_LENGTH = 256;

/** The gateway always sets the request id; direct callers without one still get a usable id. */
export function requestIdOf(context: CallContext): string {
  return context.requestId || newId('req');
}

export function requireText(value: string | undefined, field: string): string {
  if (value === undefined || value.trim() === '')
    throw AppError.invalid(`${field} is required and must not be empty`, `/${field}`, 'required');
  return value;
}

/** An upper bound of a text's tokens without a tokenizer pass: a token covers at least one UTF-8 byte. */
function tokenBound(texts: readonly string[]): number {
  return texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
}

/**
 * Rejects inputs over the configured token limit before any model work. Input whose byte length
 * is within the limit cannot be over it and is not tokenized (the usual case); a longer text is
 * counted in a worker thread, so other calls are not held up meanwhile.
 */
export async function checkInputSize(
  text: string,
  field: string,
  maxInputTokens: number,
): Promise<void> {
  if (tokenBound([text]) <= maxInputTokens) return;
  const tokens = await countTokensOffThread(text);
  if (tokens > maxInputTokens) throw inputTooLarge(tokens, field, maxInputTokens);
}

/** checkInputSize for a conversation's messages, counted together (short: on the event loop). */
export function checkMessagesSize(
  texts: readonly string[],
  field: string,
  maxInputTokens: number,
): void {
  if (tokenBound(texts) <= maxInputTokens) return;
  const tokens = texts.reduce((sum, text) => sum + countTokens(text), 0);
  if (tokens > maxInputTokens) throw inputTooLarge(tokens, field, maxInputTokens);
}

function inputTooLarge(tokens: number, field: string, maxInputTokens: number): AppError {
  return new AppError(
    'payload_too_large',
    `${field} has ${tokens} tokens; the limit is ${maxInputTokens}`,
    [{ field: `/${field}`, reason: `over ${maxInputTokens} tokens` }],
  );
}

/** max_length (or max_tokens) in tokens: default when unset, an integer from 1 to the model's output limit. */
export function maxLengthFor(
  value: number | undefined,
  model: TextModel,
  field = 'max_length',
): number {
  const limit = model.info.maxOutputTokens;
  if (value === undefined) return Math.min(DEFAULT_MAX_LENGTH, limit);
  if (!Number.isInteger(value) || value < 1)
    throw AppError.invalid(`${field} must be an integer >= 1`, `/${field}`, 'must be integer >= 1');
  if (value > limit) {
    throw AppError.invalid(
      `${field} must be at most ${limit} for model ${model.info.id}`,
      `/${field}`,
      `must be <= ${limit}`,
    );
  }
  return value;
}

/**
 * The input plus the output it may produce must fit the model's context window (413 otherwise);
 * tokenized only when the byte length does not settle it (a text counted for checkInputSize is
 * remembered, see countTokens).
 */
export function checkContextWindow(
  texts: readonly string[],
  outputTokens: number,
  field: string,
  model: TextModel,
): void {
  const window = model.info.contextWindow;
  if (tokenBound(texts) + outputTokens <= window) return;
  const inputTokens = texts.reduce((sum, text) => sum + countTokens(text), 0);
  if (inputTokens + outputTokens > window) {
    throw new AppError(
      'payload_too_large',
      `${field} (${inputTokens} tokens) plus up to ${outputTokens} output tokens exceeds the ${window}-token context window of model ${model.info.id}`,
      [{ field: `/${field}`, reason: `over the context window of ${window} tokens` }],
    );
  }
}

/** The output language, checked against the languages the model declares (if it declares any). */
export function languageFor(value: string, model: TextModel): string {
  const language = normalizeLanguage(value);
  const supported = model.info.languages;
  if (language !== '' && supported && !supported.includes(language)) {
    throw AppError.unsupported(
      `model ${model.info.id} writes ${supported.join(', ')}; language "${value}" is not supported`,
      [{ field: '/language', reason: 'unsupported language' }],
    );
  }
  return language;
}

/** A webhook URL, when given, must be an absolute http(s) URL. */
export function webhookUrlFrom(value: string): string {
  const trimmed = value.trim();
  if (trimmed === '') return '';
  let url: URL | undefined;
  try {
    url = new URL(trimmed);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw AppError.invalid(
      'webhookUrl must be an absolute http or https URL',
      '/webhookUrl',
      'must be a URL',
    );
  }
  return trimmed;
}
