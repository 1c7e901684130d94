import {
  createEvent,
  type EventEnvelope,
  type RefusalReason,
  type UsageRoute,
} from '@switchyard/shared';

let counter = 0;

export interface UsageFields {
  organization?: string;
  time?: string;
  model?: string;
  route?: UsageRoute;
  agent?: string;
  /** An event as versions before usage routes recorded it: this path instead of a route. */
  endpoint?: string;
  tokensInput?: number;
  tokensOutput?: number;
  cost?: number;
  id?: string;
  keyId?: string;
}

/** A usage.refused event: calls the gateway refused on a day for a reason. */
export function usageRefused(
  day: string,
  reason: RefusalReason,
  count: number,
  organization = 'org_a',
): EventEnvelope<'usage.refused'> {
  return createEvent('usage.refused', {
    source: 'gateway',
    organization,
    data: { day, reason, count },
  }) as EventEnvelope<'usage.refused'>;
}

/** A usage.recorded event; defaults: org_a, now, builtin, content.generate, 10 + 5 tokens. */
export function usageRecorded(fields: UsageFields = {}): EventEnvelope<'usage.recorded'> {
  return createEvent('usage.recorded', {
    source: 'content',
    organization: fields.organization ?? 'org_a',
    id: fields.id,
    time: fields.time,
    data: {
      requestId: `req_${++counter}`,
      keyId: fields.keyId ?? 'key_1',
      ...(fields.endpoint
        ? { endpoint: fields.endpoint }
        : { route: fields.route ?? 'content.generate', agent: fields.agent }),
      model: fields.model ?? 'builtin',
      tokensInput: fields.tokensInput ?? 10,
      tokensOutput: fields.tokensOutput ?? 5,
      cost: fields.cost ?? 0,
      outcome: 'succeeded',
    },
  }) as EventEnvelope<'usage.recorded'>;
}
