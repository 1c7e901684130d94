import { expect } from 'chai';
import { AppError, countTokens, type AnyEvent, type EventPublisher } from '@switchyard/shared';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import { RefusalCounts } from '../src/metering/refusals';
import { orgWithKey } from './accounts-helpers';
import { startHarness, type Harness } from './harness';

/** A bus that keeps what it is given, and refuses while `down` (a Kafka outage). */
class RecordingBus implements EventPublisher {
  readonly published: AnyEvent[] = [];
  down = false;
  async publish(event: AnyEvent): Promise<void> {
    if (this.down) throw new AppError('unavailable', 'the bus is down');
    this.published.push(event);
  }
}

/** The counts published, summed per organization, day and reason (as the ledger sums them). */
function counted(events: AnyEvent[]): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const event of new Map(events.map((e) => [e.id, e])).values()) {
    if (event.type !== 'usage.refused') continue;
    const key = `${event.organization} ${event.data.day} ${event.data.reason}`;
    sums[key] = (sums[key] ?? 0) + event.data.count;
  }
  return sums;
}

describe('gateway: refused calls are counted for the usage report', () => {
  const today = () => new Date().toISOString().slice(0, 10);

  it('counts every 429 of a key by reason: requests per minute, tokens per minute, the hard quota', async () => {
    const bus = new RecordingBus();
    const h: Harness = await startHarness({ events: bus });
    try {
      const body = { prompt: 'Write a tagline', max_length: 20 };
      const estimate = countTokens(body.prompt) + 20;
      const { key } = await orgWithKey(h, {
        id: 'limits',
        // The double answers 46 tokens a call: two calls fit, a third's estimate does not.
        monthlyTokenQuota: 2 * 46 + estimate - 1,
        rateLimits: { requestsPerMinute: 8, tokensPerMinute: 100 * estimate },
      });
      const statuses: number[] = [];
      const send = async (path: string, payload?: object) =>
        statuses.push(
          (await h.send(payload ? 'POST' : 'GET', path, { key, body: payload })).status,
        );
      await send('/api/v2/ai/content/generate', body);
      await send('/api/v2/ai/content/generate', body);
      await send('/api/v2/ai/content/generate', body); // quota
      await send('/api/v2/ai/content/generate', { ...body, max_length: 1000 * estimate }); // token rate
      for (let i = 0; i < 6; i++) await send('/api/v2/models'); // 4 over 8 requests: request rate
      expect(statuses).to.deep.equal([200, 200, 429, 429, 200, 200, 200, 200, 429, 429]);
      await waitFor(() => Object.keys(counted(bus.published)).length === 3, 5_000);
      expect(counted(bus.published)).to.deep.equal({
        [`limits ${today()} quota`]: 1,
        [`limits ${today()} token_rate`]: 1,
        [`limits ${today()} request_rate`]: 2,
      });
      expect(bus.published.every((e) => e.source === 'gateway')).to.equal(true);
    } finally {
      await h.stop();
    }
  });

  it('publishes one count per organization, day and reason however many calls, and a failed count again with its id', async () => {
    const bus = new RecordingBus();
    let now = new Date('2026-11-30T23:59:59.500Z');
    const counts = new RefusalCounts(bus, silentLogger(), { flushMs: 60_000, now: () => now });
    for (let i = 0; i < 500; i++) counts.refused('org_a', 'request_rate');
    counts.refused('org_b', 'quota');
    bus.down = true;
    await counts.flush();
    expect(bus.published).to.deep.equal([]);
    // While the bus is down, new refusals wait (a new day's too); nothing is lost.
    now = new Date('2026-12-01T00:00:00.500Z');
    counts.refused('org_a', 'request_rate');
    await counts.flush();
    bus.down = false;
    await counts.flush();
    const first = bus.published.map((e) => e.id);
    expect(first).to.have.length(2);
    await counts.flush();
    expect(counted(bus.published)).to.deep.equal({
      'org_a 2026-11-30 request_rate': 500,
      'org_b 2026-11-30 quota': 1,
      'org_a 2026-12-01 request_rate': 1,
    });
    await counts.close();
  });

  it('a publish that failed after the bus took it is sent again with the same id (the ledger counts it once)', async () => {
    const sent: AnyEvent[] = [];
    let failNext = true;
    const flaky: EventPublisher = {
      async publish(event) {
        sent.push(event);
        if (failNext) {
          failNext = false;
          throw new AppError('timeout', 'no acknowledgement');
        }
      },
    };
    const counts = new RefusalCounts(flaky, silentLogger(), { flushMs: 60_000 });
    counts.refused('org_a', 'token_rate');
    await counts.flush();
    await counts.flush();
    expect(sent).to.have.length(2);
    expect(sent[1]!.id).to.equal(sent[0]!.id);
    expect(counted(sent)).to.deep.equal({
      [`org_a ${today()} token_rate`]: 1,
    });
  });

  it('publishes what is counted at shutdown', async () => {
    const bus = new RecordingBus();
    const counts = new RefusalCounts(bus, silentLogger(), { flushMs: 60_000 });
    counts.refused('org_a', 'quota');
    counts.refused('org_a', 'quota');
    // A count the bus refused, and one made while it waited: both go out at shutdown.
    bus.down = true;
    await counts.flush();
    counts.refused('org_a', 'token_rate');
    bus.down = false;
    await counts.close();
    expect(counted(bus.published)).to.deep.equal({
      [`org_a ${today()} quota`]: 2,
      [`org_a ${today()} token_rate`]: 1,
    });
  });
});
