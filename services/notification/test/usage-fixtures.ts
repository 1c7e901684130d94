import { createEvent, type EventEnvelope } from '@switchyard/shared';

let counter = 0;

export interface UsageFields {
  organization?: string;
  time?: string;
  model?: string;
  endpoint?: string;
  tokensInput?: number;
  tokensOutput?: number;
  cost?: number;
  id?: string;
}

/** A usage.recorded event; defaults: org_a, now, builtin, the generate endpoint, 10 + 5 tokens. */
export function usageRecorded(fields: UsageFields = {}): EventEnvelope<'usage.recorded'> {
  return createEvent('usage.recorded', {
    source: 'content',
    organization: fields.organization ?? 'org_a',
    id: fields.id,
    time: fields.time,
    data: {
      requestId: `req_${++counter}`,
      keyId: 'key_1',
      endpoint: fields.endpoint ?? '/api/v2/ai/content/generate',
      model: fields.model ?? 'builtin',
      tokensInput: fields.tokensInput ?? 10,
      tokensOutput: fields.tokensOutput ?? 5,
      cost: fields.cost ?? 0,
      outcome: 'succeeded',
    },
  }) as EventEnvelope<'usage.recorded'>;
}
