import type { CallContext } from '@switchyard/shared';
import type {
  ListUsageCallsRequest__Output,
  ListUsageCallsResponse,
} from '@switchyard/shared/proto/notification/v1';
import type { CallCursor } from '../store/usage-ledger/port';
import { COST_UNITS_PER_CURRENCY_UNIT } from '../usage/usage-entry';
import { decodeCursor, organizationOf, pageLimit, pageOf } from './common';
import type { HandlerDeps } from './deps';

const PAGE_LIMITS = { default: 50, max: 100 };

function parseCursor(value: string): CallCursor | undefined {
  const fields = decodeCursor(value, '/before');
  return fields && { occurredAt: fields[0], eventId: fields[1] };
}

/** The organization's billed calls from the usage ledger, newest first, a page at a time. */
export async function listUsageCalls(
  deps: HandlerDeps,
  request: ListUsageCallsRequest__Output,
  context: CallContext,
): Promise<ListUsageCallsResponse> {
  const organization = organizationOf(context);
  const limit = pageLimit(request.limit, PAGE_LIMITS);
  // One more than the page: whether there is a next one.
  const found = await deps.stores.usageLedger.calls(organization, {
    keyId: request.key_id || undefined,
    before: parseCursor(request.before),
    limit: limit + 1,
  });
  const { page, next } = pageOf(found, limit, (last) => [last.occurredAt, last.eventId]);
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
    next,
  };
}
