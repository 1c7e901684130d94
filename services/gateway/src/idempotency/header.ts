import { AppError } from '@switchyard/shared';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** 1..255 printable ASCII characters (space included), as Stripe and the IETF draft allow. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

function invalidKey(reason: string): AppError {
  return AppError.invalid(
    `${IDEMPOTENCY_KEY_HEADER} is invalid: ${reason}`,
    IDEMPOTENCY_KEY_HEADER,
    reason,
  );
}

/**
 * The key a request carries: undefined without the header, 400 when it is malformed. The value is
 * never echoed in the error (it could be anything the client sent).
 */
export function idempotencyKeyOf(
  headers: Record<string, string | string[] | undefined>,
): string | undefined {
  const value = headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw invalidKey('must be sent once');
  if (value.length === 0) throw invalidKey('must not be empty');
  if (value.length > 255) throw invalidKey('must be at most 255 characters');
  if (!IDEMPOTENCY_KEY_PATTERN.test(value))
    throw invalidKey('must be printable ASCII characters only');
  return value;
}
