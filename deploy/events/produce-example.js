#!/usr/bin/env node
/**
 * Publishes one example event the way another team's service would: a JSON envelope on the
 * event's topic, keyed by organization, validated first against the exported JSON Schema.
 *
 *   KAFKA_BROKERS=127.0.0.1:9092 node deploy/events/produce-example.js [type] [organization]
 *
 * type: invoice.paid (default), invoice.failed, data.updated, usage.threshold_reached, or
 * domain.event: one of the organization's own event types (defined with POST
 * /api/v2/event-types), named after the organization with its data as JSON and an optional key:
 *
 *   produce-example.js domain.event org_example order.shipped '{"orderId":"o-1042"}' order-1042
 *
 * The notification service checks a domain event's data against its type's current schema; one
 * that fails goes to switchyard.deadletter.v1 with the reason in the dlq-reason header.
 * KAFKA_TOPIC_PREFIX, when set, goes before the topic's name (as the services put it). EVENT_ID,
 * when set, is the event's id (else a new one): a producer retrying a send keeps its id, so the
 * event is delivered and listed once.
 */
'use strict';
const { randomBytes } = require('node:crypto');
const path = require('node:path');
const Ajv = require('ajv');
const addFormats = require('ajv-formats');
const { Kafka, logLevel, Partitioners } = require('kafkajs');

const TOPICS = {
  'invoice.paid': 'switchyard.billing.v1',
  'invoice.failed': 'switchyard.billing.v1',
  'data.updated': 'switchyard.data.v1',
  'usage.threshold_reached': 'switchyard.usage.v1',
  'domain.event': 'switchyard.domain.v1',
};

const EXAMPLE_DATA = {
  'invoice.paid': { invoiceId: 'inv_2026_0042', amount: 129.9, currency: 'EUR' },
  'invoice.failed': {
    invoiceId: 'inv_2026_0043',
    amount: 49,
    currency: 'USD',
    failureReason: 'card_declined',
  },
  'data.updated': { dataset: 'product_catalog', count: 250 },
  'usage.threshold_reached': {
    period: new Date().toISOString().slice(0, 7),
    usage: 900000,
    threshold: 900000,
    share: 0.9,
    quota: 1000000,
  },
};

const SOURCES = {
  'invoice.paid': 'billing',
  'invoice.failed': 'billing',
  'data.updated': 'data-platform',
  'usage.threshold_reached': 'usage',
  'domain.event': 'example-producer',
};

/** A domain event's data: its type's name, the data given as JSON and the optional key. */
function domainEventData([name, dataJson, key]) {
  if (!name || !dataJson)
    throw new Error("domain.event takes <organization> <event type> '<data JSON>' [key]");
  return { type: name, ...(key && { key }), data: JSON.parse(dataJson) };
}

function envelope(type, organization, rest) {
  return {
    id: process.env.EVENT_ID || `evt_${randomBytes(12).toString('hex')}`,
    type,
    source: SOURCES[type],
    time: new Date().toISOString(),
    organization,
    data: type === 'domain.event' ? domainEventData(rest) : EXAMPLE_DATA[type],
  };
}

function validate(event) {
  const ajv = new Ajv({ allErrors: true });
  addFormats(ajv);
  const check = ajv.compile(require(path.join(__dirname, 'schemas', `${event.type}.schema.json`)));
  if (!check(event))
    throw new Error(`example does not match its schema: ${ajv.errorsText(check.errors)}`);
}

async function main() {
  const [type = 'invoice.paid', organization = 'org_example', ...rest] = process.argv.slice(2);
  if (!TOPICS[type])
    throw new Error(`unknown type ${type}; use one of ${Object.keys(TOPICS).join(', ')}`);
  const brokers = (process.env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (brokers.length === 0) throw new Error('set KAFKA_BROKERS, e.g. KAFKA_BROKERS=127.0.0.1:9092');
  const event = envelope(type, organization, rest);
  validate(event);
  const topic = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}${TOPICS[type]}`;
  const kafka = new Kafka({
    clientId: 'switchyard-example-producer',
    brokers,
    logLevel: logLevel.WARN,
  });
  const admin = kafka.admin();
  await admin.connect();
  // The services create their topics at start; create it here too so the example works first.
  if (!(await admin.listTopics()).includes(topic))
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 3 }] });
  await admin.disconnect();
  const producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
  });
  await producer.connect();
  const message = {
    key: organization,
    value: JSON.stringify(event),
    headers: { 'event-id': event.id, 'event-type': event.type },
  };
  const [meta] = await producer.send({ topic, acks: -1, messages: [message] });
  await producer.disconnect();
  console.log(
    JSON.stringify(
      {
        topic,
        partition: meta.partition,
        offset: meta.baseOffset,
        key: message.key,
        headers: message.headers,
        value: event,
      },
      null,
      2,
    ),
  );
}

main().catch((error) => {
  console.error(`produce-example: ${error.message}`);
  process.exit(1);
});
