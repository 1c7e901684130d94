import { expect } from 'chai';
import { AssignerProtocol, Kafka, logLevel } from 'kafkajs';
import { waitFor } from '@switchyard/shared/testing';
import type { ComponentName } from '@switchyard/stack';
import { realInfrastructure, startStack, type RunningStack } from '../support/stack';
import { WebhookReceiver, type ReceivedCall } from '../support/receiver';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const REPLICAS: ComponentName[] = ['notification', 'notification-2'];
const KEYS = ['k0', 'k1', 'k2'];
const RATE_LIMIT = 10;
/** An attempt's timeout: a claim whose process died falls due again this plus 10 s later. */
const ATTEMPT_TIMEOUT_MS = 2000;
/** How late this process may read a call a process sent before it was killed. */
const RECEIVER_LAG_MS = 500;

/**
 * Two notification processes on one consumer group, delivery log and due queue: keyed events
 * reach a webhook in publish order and a rate-limited webhook gets its rate across both, while
 * the replica that consumes the events is killed (kill -9) and the other takes its partitions
 * over. Nothing is lost. At-least-once allows one thing (docs/webhooks.md): a delivery whose
 * attempt was out when its process died, its outcome not recorded yet, is sent again with the
 * same webhook-id; nothing else is received twice.
 */
describe('distributed: two notification replicas', function () {
  this.timeout(300_000);
  let run: RunningStack;
  const ordered = new WebhookReceiver().respondWith(async () => {
    await pause(20); // attempts are out when a replica dies
    return { status: 200 };
  });
  const limited = new WebhookReceiver();

  before(async function () {
    if (!realInfrastructure()) this.skip();
    await ordered.start();
    await limited.start();
    run = await startStack(
      { LOG_LEVEL: 'info', WEBHOOK_TIMEOUT_MS: String(ATTEMPT_TIMEOUT_MS) },
      { notificationReplicas: 2 },
    );
  });

  after(async () => {
    await ordered.stop();
    await limited.stop();
    await run?.stack.stopAll();
  });

  /** The replica whose member holds the partition the organization's domain events go to. */
  async function consumingReplica(): Promise<ComponentName> {
    const kafka = new Kafka({
      brokers: process.env.KAFKA_BROKERS!.split(','),
      logLevel: logLevel.NOTHING,
    });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const topic = `${run.topicPrefix}switchyard.domain.v1`;
      const offsets = await admin.fetchTopicOffsets(topic);
      const partition = offsets.find((o) => Number(o.high) > Number(o.low))!.partition;
      return await waitFor(async () => {
        const { groups } = await admin.describeGroups([`${run.topicPrefix}notification`]);
        const owner = groups[0]?.members.find((m) => {
          const decoded = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
          return decoded?.assignment[topic]?.includes(partition);
        });
        return owner && REPLICAS.find((name) => memberIdOf(name) === owner.memberId);
      }, 30_000);
    } finally {
      await admin.disconnect();
    }
  }

  /** The member id a replica logged when it last joined the delivery group. */
  function memberIdOf(name: ComponentName): string | undefined {
    const joins = run.log
      .filter((line) => line.startsWith(`[${name}] `) && line.includes('joined the consumer group'))
      .map((line) => JSON.parse(line.slice(name.length + 3)) as { group: string; memberId: string })
      .filter((join) => join.group === 'notification');
    return joins[joins.length - 1]?.memberId;
  }

  it('keeps per-key order and the rate limit across replicas, and loses nothing when the consuming one is killed', async () => {
    const type = 'shipment.updated';
    const created = await run.api('/api/v2/event-types', {
      body: { name: type, schema: { type: 'object', required: ['n'] } },
    });
    expect(created.status, created.text).to.equal(201);
    for (const [receiver, extra] of [
      [ordered, {}],
      [limited, { rateLimit: RATE_LIMIT }],
    ] as const) {
      const webhook = await run.api('/api/webhooks', {
        body: { events: [type], url: receiver.url, ...extra },
      });
      expect(webhook.status, webhook.text).to.equal(201);
    }

    const published: Array<{ id: string; key: string; n: number; at: number }> = [];
    const next = new Map(KEYS.map((key) => [key, 0]));
    const publishRound = async () => {
      const events = KEYS.flatMap((key) =>
        [0, 1].map(() => {
          const n = next.get(key)! + 1;
          next.set(key, n);
          return { type, key, data: { n } };
        }),
      );
      const answer = await run.api('/api/v2/events', { body: { events } });
      expect(answer.status, answer.text).to.equal(200);
      answer.body.results.forEach((result: { id: string }, i: number) =>
        published.push({ ...events[i]!, n: events[i]!.data.n, id: result.id, at: Date.now() }),
      );
    };
    for (let round = 0; round < 8; round++) {
      await publishRound();
      await pause(150);
    }
    const victim = await consumingReplica();
    const killedAt = Date.now();
    await run.stack.stop(victim, 'SIGKILL');
    // Calls the dead replica sent may be read by this (busy) process a little after its exit.
    const deadSentBefore = Date.now() + RECEIVER_LAG_MS;
    for (let round = 0; round < 8; round++) {
      await publishRound();
      await pause(150);
    }
    const all = published.map((p) => p.id);
    await waitFor(() => received(ordered).size === all.length, 120_000);
    await waitFor(() => received(limited).size === all.length, 120_000);

    for (const receiver of [ordered, limited]) {
      expect([...received(receiver).keys()].sort()).to.deep.equal([...all].sort());
      // Per key, in publish order (a delivery sent again comes before the next one goes).
      for (const key of KEYS) {
        const ns = receiver.calls.filter((c) => c.body.key === key).map((c) => c.body.data.n);
        expect(ns, `${key}: ${ns.join(',')}`).to.deep.equal([...ns].sort((a, b) => a - b));
      }
      // Twice only what was out when the replica died, with the same webhook-id.
      for (const [id, calls] of received(receiver)) {
        if (calls.length === 1) continue;
        expect(calls[0]!.receivedAt, id).to.be.at.most(deadSentBefore);
        expect(new Set(calls.map((c) => c.headers['webhook-id'])).size).to.equal(1);
      }
    }
    // Slots are evenly spaced (100 ms) and shared by the replicas; a resend of what was out when
    // the replica died reuses its slot, and a busy machine delays a send and then the receipt of
    // it: 10 sends take at least 800 ms.
    const times = [...received(limited).values()].map((calls) => calls[0]!.receivedAt);
    times.sort((a, b) => a - b);
    for (let i = RATE_LIMIT; i < times.length; i++)
      expect(times[i]! - times[i - RATE_LIMIT]!, `sends ${i - RATE_LIMIT}..${i}`).to.be.at.least(
        800,
      );
    const afterKill = published.filter((p) => p.at > killedAt).map((p) => p.id);
    const firstServed = Math.min(
      ...ordered.calls.filter((c) => afterKill.includes(c.body.id)).map((c) => c.receivedAt),
    );
    const resent = [ordered, limited].map(
      (r) => [...received(r).values()].filter((calls) => calls.length > 1).length,
    );
    console.log(
      `      killed ${victim}: an event published after the kill first delivered ${firstServed - killedAt} ms after it; ` +
        `sent twice (out when it died): ${resent[0]} ordered, ${resent[1]} rate-limited of ${all.length} each`,
    );
  });
});

/** The calls a receiver got, by event id, in arrival order. */
function received(receiver: WebhookReceiver): Map<string, ReceivedCall[]> {
  const byEvent = new Map<string, ReceivedCall[]>();
  for (const call of receiver.calls) {
    const id = call.body?.id as string;
    byEvent.set(id, [...(byEvent.get(id) ?? []), call]);
  }
  return byEvent;
}
