import { AppError, type CallContext } from '@switchyard/shared';
import type {
  ListUsageCallsRequest__Output,
  ListUsageCallsResponse,
} from '@switchyard/shared/proto/notification/v1';
import type { CallCursor } from '../store/usage-ledger/port';
import { COST_UNITS_PER_CURRENCY_UNIT, type UsageEntry } from '../usage/usage-entry';
import { organizationOf } from './common';
import type { HandlerDeps } from './deps';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 100;

/** A page's cursor: the last entry's time and event id, as one opaque string. */
function cursorOf(entry: UsageEntry): string {
  return Buffer.from(JSON.stringify([entry.occurredAt, entry.eventId])).toString('base64url');
}

function parseCursor(value: string): CallCursor | undefined {
  if (!value) return undefined;
  try {
    const [occurredAt, eventId] = JSON.parse(
      Buffer.from(value, 'base64url').toString(),
    ) as unknown[];
    if (typeof occurredAt === 'string' && typeof eventId === 'string')
      return { occurredAt, eventId };
  } catch {
    // Reported below.
  }
  throw AppError.invalid('before is not a cursor this API returned', '/before', 'invalid cursor');
}

/** The organization's billed calls from the usage ledger, newest first, a page at a time. */
export async function listUsageCalls(
  deps: HandlerDeps,
  request: ListUsageCallsRequest__Output,
  context: CallContext,
): Promise<ListUsageCallsResponse> {
  const organization = organizationOf(context);
  if (request.limit < 0 || request.limit > MAX_LIMIT)
    throw AppError.invalid(`limit must be between 1 and ${MAX_LIMIT}`, '/limit', 'out of range');
  const limit = request.limit || DEFAULT_LIMIT;
  // One more than the page: whether there is a next one.
  const found = await deps.stores.usageLedger.calls(organization, {
    keyId: request.key_id || undefined,
    before: parseCursor(request.before),
    limit: limit + 1,
  });
  const page = found.slice(0, limit);
  return {
    calls: page.map((e) => ({
      id: e.eventId,
      request_id: e.requestId ?? '',
      key_id: e.keyId ?? '',
      route: e.endpoint,
      model: e.model,
      tokens_input: e.tokensInput,
      tokens_output: e.tokensOutput,
      cost: e.costNanos / COST_UNITS_PER_CURRENCY_UNIT,
      outcome: e.outcome ?? '',
      occurred_at: e.occurredAt,
    })),
    next: found.length > limit ? cursorOf(page[page.length - 1]!) : '',
  };
}
