import { AppError, countTokensOffThread, newId, type CallContext } from '@switchyard/shared';
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

/**
 * Rejects inputs over the configured token limit before any model work; answers the count (a long
 * text is counted in a worker thread, so other calls are not held up meanwhile).
 */
export async function checkInputSize(
  text: string,
  field: string,
  maxInputTokens: number,
): Promise<number> {
  const tokens = await countTokensOffThread(text);
  if (tokens > maxInputTokens) {
    throw new AppError(
      'payload_too_large',
      `${field} is ${tokens} tokens; the limit is ${maxInputTokens}`,
      [{ field: `/${field}`, reason: `over ${maxInputTokens} tokens` }],
    );
  }
  return tokens;
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

/** The input plus the output it may produce must fit the model's context window (413 otherwise). */
export function checkContextWindow(
  inputTokens: number,
  outputTokens: number,
  field: string,
  model: TextModel,
): void {
  const window = model.info.contextWindow;
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
