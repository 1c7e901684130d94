import { AppError } from '@switchyard/shared';
import { APIConnectionTimeoutError, APIError } from 'openai';

/** Which model a provider failure belongs to, for the error details. */
export interface ProviderTarget {
  provider: string;
  model: string;
}

/** HTTP status of a provider failure; undefined for connection failures. */
export function statusOf(error: unknown): number | undefined {
  return error instanceof APIError && typeof error.status === 'number' ? error.status : undefined;
}

/** The provider's own explanation: the error body's message, else the SDK's or the transport's. */
export function providerMessage(error: unknown): string {
  if (error instanceof APIError) {
    const body = error.error as { message?: unknown } | undefined;
    if (body && typeof body.message === 'string' && body.message !== '') return body.message;
  }
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    const causeText =
      cause instanceof Error && cause.message !== error.message ? ` (${cause.message})` : '';
    return `${error.message}${causeText}`;
  }
  return String(error);
}

/** A provider failure as the 502 the caller sees, keeping the provider's message in details. */
export function upstreamError(error: unknown, target: ProviderTarget): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof APIConnectionTimeoutError) return timeoutError(target, 0);
  const status = statusOf(error);
  const reason = providerMessage(error);
  const what = status === undefined ? 'could not be reached' : `answered ${status}`;
  return new AppError('upstream_error', `model ${target.model}: the provider ${what}: ${reason}`, [
    {
      reason,
      provider: target.provider,
      model: target.model,
      ...(status === undefined ? {} : { status }),
    },
  ]);
}

/** The per-call timeout or the call deadline ran out (504). */
export function timeoutError(target: ProviderTarget, afterMs: number): AppError {
  const reason =
    afterMs > 0 ? `no answer within ${afterMs} ms` : 'no answer within the time allowed';
  return new AppError('timeout', `model ${target.model}: the provider gave ${reason}`, [
    { reason, provider: target.provider, model: target.model },
  ]);
}
