import { expect } from 'chai';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@switchyard/shared/testing';
import { freePortRun, realInfrastructure, startStack, type RunningStack } from '../support/stack';
import { WebhookReceiver } from '../support/receiver';
import { verifyWithStandardWebhooks } from '../support/signatures';
import { TopicReader } from '../support/topic-reader';

const PRODUCER = path.resolve(
  __dirname,
  '..',
  '..',
  '..',
  'deploy',
  'events',
  'produce-example.js',
);
/** The organization of the stack's dev API key. */
const ORGANIZATION = 'dev';

/**
 * Domain events written to switchyard.domain.v1 by an outside producer (the documented example,
 * plain kafkajs) on the stack: checked against the type's schema by the notification service,
 * delivered signed when they pass, sent to the dead-letter topic with the reason when not.
 */
describe('distributed: domain events published over Kafka', function () {
  this.timeout(120_000);
  let run: RunningStack;
  let receiver: WebhookReceiver;
  let deadLetters: TopicReader;
  let metricsPort: number;

  /** notification_domain_events_rejected_total by reason, from the notification process. */
  async function rejectedCounts(): Promise<Record<string, number>> {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const counts: Record<string, number> = {};
    for (const [, reason, value] of text.matchAll(
      /^notification_domain_events_rejected_total\{reason="([a-z_]+)"\} (\d+)$/gm,
    ))
      counts[reason!] = Number(value);
    return counts;
  }

  async function produce(type: string, data: object, key?: string, id?: string): Promise<string> {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [PRODUCER, 'domain.event', ORGANIZATION, type, JSON.stringify(data), ...(key ? [key] : [])],
      {
        env: {
          ...process.env,
          KAFKA_TOPIC_PREFIX: run.topicPrefix,
          ...(id && { EVENT_ID: id }),
        },
      },
    );
    const produced = JSON.parse(stdout) as { topic: string; key: string; value: { id: string } };
    expect(produced.topic).to.equal(`${run.topicPrefix}switchyard.domain.v1`);
    expect(produced.key).to.equal(ORGANIZATION);
    return produced.value.id;
  }

  before(async function () {
    if (!realInfrastructure()) this.skip();
    // The notification service's /metrics (the other services' on the next ports).
    metricsPort = await freePortRun(4);
    run = await startStack({ METRICS_PORT: String(metricsPort) });
    receiver = await new WebhookReceiver().start();
    deadLetters = await new TopicReader(`${run.topicPrefix}switchyard.deadletter.v1`).start();
  });

  after(async () => {
    await deadLetters?.stop();
    await receiver?.stop();
    await run?.stack.stopAll();
  });

  it('delivers a conforming event and dead-letters one failing its schema or of an unknown type', async () => {
    const created = await run.api('/api/v2/event-types', {
      body: {
        name: 'order.shipped',
        schema: {
          type: 'object',
          required: ['orderId', 'country'],
          properties: { orderId: { type: 'string' }, country: { type: 'string' } },
        },
      },
    });
    expect(created.status, created.text).to.equal(201);
    const webhook = await run.api('/api/webhooks', {
      body: { events: ['order.*'], url: receiver.url },
    });
    expect(webhook.status, webhook.text).to.equal(201);

    const invalid = await produce('order.shipped', { orderId: 'o-1' }, 'o-1');
    const unknown = await produce('order.lost', { orderId: 'o-2' });
    const valid = await produce('order.shipped', { orderId: 'o-3', country: 'DE' }, 'o-3');

    const call = await waitFor(() => receiver.calls.find((c) => c.body?.id === valid), 30_000);
    verifyWithStandardWebhooks(webhook.body.secret, call);
    expect(call.body).to.deep.include({
      event: 'order.shipped',
      organization: ORGANIZATION,
      key: 'o-3',
      schemaVersion: 1,
      data: { orderId: 'o-3', country: 'DE' },
    });

    await waitFor(() => deadLetters.events.length >= 2, 30_000);
    const letters = deadLetters.events.map((event, i) => ({
      id: event.id,
      headers: deadLetters.headers[i]!,
    }));
    expect(letters.map((l) => l.id)).to.deep.equal([invalid, unknown]);
    expect(letters[0]!.headers['dlq-reason']).to.equal(
      "data does not match order.shipped version 1: /data must have required property 'country'",
    );
    expect(letters[0]!.headers['dlq-source-topic']).to.equal(
      `${run.topicPrefix}switchyard.domain.v1`,
    );
    expect(letters[1]!.headers['dlq-reason']).to.equal(
      `event type order.lost is not defined by organization ${ORGANIZATION}`,
    );
    // Counted, by reason, where operators read it.
    await waitFor(async () => Object.keys(await rejectedCounts()).length === 2, 10_000);
    expect(await rejectedCounts()).to.deep.equal({ schema: 1, unknown_type: 1 });
    // Neither was delivered nor logged as a delivery.
    const deliveries = await run.api(`/api/webhooks/${webhook.body.id}/deliveries`);
    expect(deliveries.body.deliveries.map((d: { eventId: string }) => d.eventId)).to.deep.equal([
      valid,
    ]);
    expect(receiver.calls.map((c) => c.body?.id)).to.deep.equal([valid]);

    // Listed (on MongoDB): the accepted one only, with its delivery; the refused ones are not.
    const listed = await run.api('/api/v2/events?type=order.*');
    expect(listed.status, listed.text).to.equal(200);
    expect(listed.body.events.map((e: { id: string }) => e.id)).to.deep.equal([valid]);
    expect(listed.body.events[0]).to.deep.include({
      type: 'order.shipped',
      key: 'o-3',
      schemaVersion: 1,
      data: { orderId: 'o-3', country: 'DE' },
      deliveries: 1,
    });
  });

  it('lists events from Kafka and HTTP newest first, filtered and paged; one sent twice is listed once', async () => {
    const created = await run.api('/api/v2/event-types', {
      body: { name: 'ticket.opened', schema: { type: 'object' } },
    });
    expect(created.status, created.text).to.equal(201);
    const listed = async (query: string) => {
      const res = await run.api(`/api/v2/events?${query}`);
      expect(res.status, res.text).to.equal(200);
      return res.body as { events: Array<{ id: string; deliveries: number }>; next: string | null };
    };
    const until = async (id: string) =>
      waitFor(async () => (await listed('type=ticket.*')).events.some((e) => e.id === id), 30_000);

    // No webhook takes ticket.*: listed all the same, with no deliveries.
    const retried = await produce('ticket.opened', { n: 1 }, 't-1', 'evt_ticket_retried');
    await until(retried);
    await produce('ticket.opened', { n: 1 }, 't-1', 'evt_ticket_retried');
    const overHttp = await run.api('/api/v2/events', {
      body: { type: 'ticket.opened', data: { n: 2 }, key: 't-2' },
    });
    expect(overHttp.status, overHttp.text).to.equal(202);
    await until(overHttp.body.id);
    const last = await produce('ticket.opened', { n: 3 }, 't-1');
    await until(last);

    const all = await listed('type=ticket.*');
    expect(all.events.map((e) => [e.id, e.deliveries])).to.deep.equal([
      [last, 0],
      [overHttp.body.id, 0],
      [retried, 0],
    ]);
    expect((await listed('type=ticket.opened&key=t-1')).events.map((e) => e.id)).to.deep.equal([
      last,
      retried,
    ]);
    const first = await listed('type=ticket.*&limit=2');
    expect(first.events.map((e) => e.id)).to.deep.equal([last, overHttp.body.id]);
    const second = await listed(`type=ticket.*&limit=2&cursor=${first.next}`);
    expect(second.events.map((e) => e.id)).to.deep.equal([retried]);
    expect(second.next).to.equal(null);
    const one = await run.api(`/api/v2/events/${retried}`);
    expect(one.body).to.deep.include({ id: retried, key: 't-1', data: { n: 1 } });
  });
});
