import { AppError, type CallContext, type ErrorDetail } from '@switchyard/shared';

export const MAX_ID_LENGTH = 256;
/** Enough details to fix a batch without making the error body huge. */
const MAX_DETAILS = 50;

/** Collects every problem of a request so the caller can fix them all at once. */
export class FieldErrors {
  private readonly details: ErrorDetail[] = [];
  private total = 0;

  add(field: string, reason: string): void {
    this.total++;
    if (this.details.length < MAX_DETAILS) this.details.push({ field, reason });
  }

  get count(): number {
    return this.total;
  }

  throwIfAny(): void {
    if (this.total === 0) return;
    const first = this.details[0];
    const message =
      this.total === 1
        ? `${first.field} ${first.reason}`
        : `${this.total} invalid fields, first: ${first.field} ${first.reason}`;
    throw new AppError('invalid_request', message, this.details);
  }
}

/** Checks an identifier: required unless optional, at most MAX_ID_LENGTH characters. */
export function checkId(errors: FieldErrors, field: string, value: string, optional = false): void {
  if (value === '') {
    if (!optional) errors.add(field, 'is required');
  } else if (value.length > MAX_ID_LENGTH) {
    errors.add(field, `must be at most ${MAX_ID_LENGTH} characters`);
  }
}

/** A single item id of a request (GetItem, DeleteItem), checked like any other id. */
export function validItemId(itemId: string): string {
  const errors = new FieldErrors();
  checkId(errors, '/itemId', itemId);
  errors.throwIfAny();
  return itemId;
}

/** Parses an ISO 8601 date-time to epoch ms; undefined when it is not one. */
export function parseTimestamp(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value))
    return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Every read and write is scoped by organization; a call without one cannot be served. */
export function requireOrganization(context: CallContext): string {
  if (!context.organization) throw new AppError('unauthorized', 'the call carries no organization');
  return context.organization;
}

/** Checks a batch's size before looking at its entries. */
export function checkBatchSize(field: string, size: number, max: number): void {
  if (size === 0)
    throw AppError.invalid(
      `${field.slice(1)} must not be empty`,
      field,
      'must contain at least one entry',
    );
  if (size > max) {
    throw AppError.invalid(
      `${field.slice(1)} holds ${size} entries, at most ${max} per call`,
      field,
      `must contain at most ${max} entries`,
    );
  }
}
