import { AppError, countTokens } from '@switchyard/shared';
import type { ChatMessage, ModelInfo, TextResult } from './text-model';

/** Token counts a provider reported (OpenAI `usage`). */
export interface ReportedUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

/** Prompt size by the shared tokenizer, for limits and when a provider reports no usage. */
export function countPromptTokens(messages: ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + countTokens(message.content), 0);
}

function reported(value: number | undefined): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/**
 * The provider's usage when it reported it, else the shared tokenizer's count; output that
 * exists is never counted as 0 tokens.
 */
export function usageOf(
  messages: ChatMessage[],
  text: string,
  usage: ReportedUsage | undefined | null,
): TextResult {
  const tokensInput = reported(usage?.prompt_tokens)
    ? usage.prompt_tokens
    : countPromptTokens(messages);
  let tokensOutput = reported(usage?.completion_tokens)
    ? usage.completion_tokens
    : countTokens(text);
  if (tokensOutput === 0 && text.length > 0) tokensOutput = countTokens(text);
  return { text, tokensInput, tokensOutput };
}

/** Tokens a failed call spent, carried on the error so its usage can still be recorded. */
export interface SpentTokens {
  model: ModelInfo;
  tokensInput: number;
  tokensOutput: number;
}

const spentByError = new WeakMap<Error, SpentTokens>();

export function withSpent<E extends Error>(error: E, spent: SpentTokens): E {
  spentByError.set(error, spent);
  return error;
}

export function spentOf(error: unknown): SpentTokens | undefined {
  return error instanceof Error ? spentByError.get(error) : undefined;
}

/** An upper bound of the prompt's tokens without a tokenizer pass: a token covers at least one UTF-8 byte. */
function promptBytes(messages: ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + Buffer.byteLength(message.content), 0);
}

/** The output budget left by the prompt within the context window, capped by `wanted`. */
export function outputBudget(info: ModelInfo, messages: ChatMessage[], wanted: number): number {
  const cap = Math.min(wanted, info.maxOutputTokens);
  // Most prompts are far from the window: then the bound decides it and no tokenizer pass is needed.
  if (promptBytes(messages) + cap <= info.contextWindow) return Math.max(1, cap);
  const left = info.contextWindow - countPromptTokens(messages);
  if (left < 1) {
    throw new AppError(
      'payload_too_large',
      `the input does not fit the ${info.contextWindow}-token context window of model ${info.id}`,
      [{ field: '/text', reason: `over the context window of ${info.contextWindow} tokens` }],
    );
  }
  return Math.max(1, Math.min(wanted, info.maxOutputTokens, left));
}
