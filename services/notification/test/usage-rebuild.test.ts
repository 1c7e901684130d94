import {
  callUnary,
  createClient,
  InMemoryEventBus,
  KafkaEventBus,
  protos,
  Topics,
  type AnyEvent,
  type EventBus,
} from '@switchyard/shared';
import {
  contractSuite,
  endpointOf,
  silentLogger,
  uniqueName,
  waitFor,
  type BackendFixture,
} from '@switchyard/shared/testing';
import type { UsageReport__Output } from '@switchyard/shared/proto/notification/v1';
import {
  loadNotificationConfig,
  startNotificationService,
  type RunningNotificationService,
} from '../src/server';
import type { NotificationStores } from '../src/store';
import { expect } from './chai';
import { TEST_ENV } from './helpers';
import { memoryWorld, mongoWorld, type StoreWorld } from './store-fixtures';
import { usageRecorded, type UsageFields } from './usage-fixtures';

/** A bus plus fresh, empty store worlds for projections on it. */
interface LedgerWorld {
  bus: EventBus;
  newStores(): Promise<StoreWorld>;
  close(): Promise<void>;
}

function worldOn(bus: EventBus, storeFixture: BackendFixture<StoreWorld>): LedgerWorld {
  const worlds: StoreWorld[] = [];
  return {
    bus,
    newStores: async () => {
      const world = await storeFixture.create();
      worlds.push(world);
      return world;
    },
    close: async () => {
      await bus.close();
      await Promise.all(worlds.map((w) => w.dispose()));
    },
  };
}

const backends: Record<'memory' | 'kafka', BackendFixture<LedgerWorld>> = {
  memory: {
    create: async () => worldOn(new InMemoryEventBus({ retryBaseMs: 5 }), memoryWorld),
    destroy: (w) => w.close(),
  },
  // Kafka with the Mongo stores when MONGODB_URI is set too (the production pairing).
  kafka: {
    create: async () => {
      const bus = new KafkaEventBus({
        brokers: endpointOf('kafka')!.split(','),
        clientId: uniqueName('ledger'),
        logger: silentLogger(),
        topicPrefix: `${uniqueName('ledger')}.`,
        retryBaseMs: 20,
      });
      await bus.start();
      return worldOn(bus, endpointOf('mongo') ? mongoWorld : memoryWorld);
    },
    destroy: (w) => w.close(),
  },
};

const QUOTA = 5000;
const SHARES = [0.25, 0.5, 1];

interface Projection {
  service: RunningNotificationService;
  report(organization: string, period: string): Promise<UsageReport__Output>;
  stop(): Promise<void>;
}

async function startProjection(
  bus: EventBus,
  stores: NotificationStores,
  group: string,
): Promise<Projection> {
  const config = loadNotificationConfig({
    ...TEST_ENV,
    DEFAULT_MONTHLY_TOKEN_QUOTA: String(QUOTA),
    USAGE_THRESHOLD_SHARES: SHARES.join(','),
  });
  const service = await startNotificationService({
    config,
    bus,
    logger: silentLogger(),
    stores,
    consumerGroup: group,
  });
  const client = createClient(
    protos.notification().NotificationService,
    `127.0.0.1:${service.port}`,
  );
  return {
    service,
    report: (organization, period) =>
      callUnary(
        'notification',
        client.GetUsage,
        client,
        { period, days: 40 },
        { organization, keyId: '', requestId: 'req_test' },
        5000,
      ) as Promise<UsageReport__Output>,
    stop: async () => {
      client.close();
      await service.stop();
    },
  };
}

const ORGANIZATIONS = ['org_a', 'org_b', 'org_c'];
const MODELS = ['builtin', 'gpt-4.1-mini', 'gpt-4.1'];
/** Routes, and a path as usage recorded before routes names it: a history spans the upgrade. */
const ROUTES: Array<Pick<UsageFields, 'route' | 'agent' | 'endpoint'>> = [
  { route: 'content.generate' },
  { endpoint: '/api/v2/ai/content/transform' },
  { route: 'assistant.chat', agent: 'support' },
];
const DAY_MS = 86_400_000;

/** Usage spread over the last 35 days (so across a month end), deterministic per index. */
function history(count: number): AnyEvent[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, n) =>
    usageRecorded({
      organization: ORGANIZATIONS[n % 3],
      time: new Date(now - ((n * 7) % 35) * DAY_MS - (n % 5) * 1000).toISOString(),
      model: MODELS[(n * 5) % 3],
      ...ROUTES[(n * 2) % 3],
      tokensInput: 10 + ((n * 37) % 400),
      tokensOutput: (n * 13) % 90,
      cost: ((n * 17) % 100) / 10_000,
    }),
  );
}

/** The unique events, then duplicates and earlier events replayed in a shuffled order. */
function withDuplicatesAndReplays(events: AnyEvent[]): AnyEvent[] {
  const out: AnyEvent[] = [];
  events.forEach((event, n) => {
    out.push(event);
    if (n % 4 === 0) out.push(event); // immediate duplicate
  });
  const replay = events.filter((_, n) => n % 3 === 1).sort((a, b) => b.id.localeCompare(a.id));
  return [...out, ...replay];
}

function periodsOf(events: AnyEvent[]): string[] {
  return [...new Set(events.map((e) => e.time.slice(0, 7)))].sort();
}

/** Totals computed independently of the service: what every projection must report. */
function expectedTotals(events: AnyEvent[], organization: string, period: string) {
  const mine = events.filter(
    (e) =>
      e.organization === organization && e.time.startsWith(period) && e.type === 'usage.recorded',
  );
  let used = 0;
  let costNanos = 0;
  for (const e of mine) {
    if (e.type !== 'usage.recorded') continue;
    used += e.data.tokensInput + e.data.tokensOutput;
    costNanos += Math.round(e.data.cost * 1e9);
  }
  return { used, calls: mine.length, cost: costNanos / 1e9 };
}

async function projectedAll(
  projection: Projection,
  events: AnyEvent[],
  timeoutMs: number,
): Promise<void> {
  await waitFor(
    async () => {
      for (const organization of ORGANIZATIONS) {
        for (const period of periodsOf(events)) {
          const report = await projection.report(organization, period);
          const expected = expectedTotals(events, organization, period);
          if (Number(report.calls) !== expected.calls) return false;
          // Thresholds are notified right after a batch is counted: wait for those its usage crossed.
          const notified = (
            await projection.service.stores.thresholds.list(organization, period)
          ).filter((r) => r.notified);
          if (
            notified.length !==
            SHARES.filter((share) => expected.used >= Math.floor(share * QUOTA)).length
          )
            return false;
        }
      }
      return true;
    },
    timeoutMs,
    100,
  );
}

contractSuite<LedgerWorld>('usage ledger rebuild', backends, (world) => {
  it('a new consumer group with an empty store rebuilds the same reports from the log', async function () {
    this.timeout(120_000);
    const { bus } = world();
    const live = await startProjection(
      bus,
      (await world().newStores()).stores,
      uniqueName('notification'),
    );
    const events = history(150);
    try {
      for (const event of withDuplicatesAndReplays(events)) await bus.publish(event);
      await projectedAll(live, events, 60_000);
      const rebuilt = await startProjection(
        bus,
        (await world().newStores()).stores,
        uniqueName('rebuild'),
      );
      try {
        await projectedAll(rebuilt, events, 60_000);
        for (const organization of ORGANIZATIONS) {
          for (const period of periodsOf(events)) {
            const [a, b] = [
              await live.report(organization, period),
              await rebuilt.report(organization, period),
            ];
            expect(b, `${organization} ${period}`).to.deep.equal(a);
            const expected = expectedTotals(events, organization, period);
            expect(Number(a.used)).to.equal(expected.used);
            expect(a.cost).to.equal(expected.cost);
            expect(Number(a.remaining)).to.equal(Math.max(0, 5000 - expected.used));
          }
        }
        // The threshold crossings are the same too (same ids, one record per share).
        for (const organization of ORGANIZATIONS) {
          for (const period of periodsOf(events)) {
            const shares = async (p: Projection) =>
              (await p.service.stores.thresholds.list(organization, period))
                .map((r) => [r.share, r.usage])
                .sort();
            expect(await shares(rebuilt)).to.deep.equal(await shares(live));
          }
        }
      } finally {
        await rebuilt.stop();
      }
    } finally {
      await live.stop();
    }
  });

  it('totals are exact after many concurrent usage events, with two consumer replicas', async function () {
    this.timeout(120_000);
    const { bus } = world();
    const storeWorld = await world().newStores();
    const group = uniqueName('notification');
    const first = await startProjection(bus, storeWorld.stores, group);
    const second = await startProjection(bus, await storeWorld.reopen(), group);
    const thresholds: AnyEvent[] = [];
    const watcher = await bus.subscribe({
      group: uniqueName('watch'),
      topics: [Topics.usage],
      handler: async (event) =>
        void (event.type === 'usage.threshold_reached' && thresholds.push(event)),
    });
    try {
      const time = new Date().toISOString();
      const events = ORGANIZATIONS.flatMap((organization) =>
        Array.from({ length: 80 }, (_, n) =>
          usageRecorded({ organization, time, tokensInput: 20 + n, tokensOutput: 7, cost: 0.0003 }),
        ),
      );
      await Promise.all([...events, ...events.slice(0, 40)].map((event) => bus.publish(event)));
      await projectedAll(first, events, 60_000);
      const period = time.slice(0, 7);
      for (const organization of ORGANIZATIONS) {
        const expected = expectedTotals(events, organization, period);
        expect(await first.report(organization, period)).to.deep.include({
          used: expected.used,
          calls: 80,
          cost: expected.cost,
        });
        expect(await second.report(organization, period)).to.deep.equal(
          await first.report(organization, period),
        );
        // 80 x (20..99 + 7) = 4280 + 3160 = 6120 tokens: past 0.25, 0.5 and 1.0 of 5000, each once.
        const records = await first.service.stores.thresholds.list(organization, period);
        expect(records.map((r) => r.share).sort()).to.deep.equal([0.25, 0.5, 1]);
      }
      await waitFor(() => new Set(thresholds.map((e) => e.id)).size === 9, 30_000);
      for (const event of thresholds) {
        const same = thresholds.filter((t) => t.id === event.id);
        expect(same.every((t) => JSON.stringify(t.data) === JSON.stringify(event.data))).to.equal(
          true,
        );
      }
    } finally {
      await watcher.close();
      await second.stop();
      await first.stop();
    }
  });
});
