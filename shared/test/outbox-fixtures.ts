import { createEvent, type AnyEvent } from '../src/events/envelope';

/** A valid usage.recorded event; n makes its tokens and request id distinct. */
export function usageEvent(n: number, organization = 'org_a'): AnyEvent {
  return createEvent('usage.recorded', {
    source: 'test',
    organization,
    data: {
      requestId: `req_${n}`,
      keyId: 'key_1',
      route: 'content.generate',
      model: 'builtin',
      tokensInput: n,
      tokensOutput: 1,
      cost: 0.5,
      outcome: 'succeeded',
    },
  });
}
