'use strict';
/**
 * Usage ingestion in a burst: the notification service alone (a child process built from --root,
 * so an older build can be measured the same way) on Kafka and MongoDB/FerretDB, a fresh topic
 * prefix and database. Its consumers are up and idle; then N usage.recorded events over several
 * organizations are produced as fast as Kafka takes them, and the ledger's total buckets are
 * polled until they count every event. Prints events/s into the ledger.
 */
const { spawn } = require('node:child_process');
const path = require('node:path');
const { freePort, sharedModule, REPO } = require('./common');

const shared = require(path.join(REPO, 'shared', 'dist', 'src', 'index.js'));
const { Kafka, logLevel } = sharedModule('kafkajs');
const { MongoClient } = sharedModule('mongodb');

/** The ledger's total bucket id of an organization's month (same encoding as usage-entry.ts). */
const totalBucketId = (organization, period) => JSON.stringify([organization, 'total', period, '']);

async function startNotification(root, env) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [path.join(root, 'services', 'notification', 'dist', 'src', 'index.js')],
    {
      env: { ...env, GRPC_PORT: String(port) },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const stop = () =>
    new Promise((resolve) =>
      child.exitCode !== null ? resolve() : (child.once('exit', resolve), child.kill('SIGTERM')),
    );
  const deadline = Date.now() + 60_000;
  while (
    (await shared.checkHealth(`127.0.0.1:${port}`, shared.SERVICE_NAMES.NotificationService)) !==
    'SERVING'
  ) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error('notification did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, stop };
}

function usageEvents(count, organizations, time) {
  return Array.from({ length: count }, (_, n) =>
    shared.createEvent('usage.recorded', {
      source: 'bench',
      organization: organizations[n % organizations.length],
      time,
      data: {
        requestId: `req_burst_${n}`,
        keyId: 'key_bench',
        route: 'content.generate',
        model: 'bench-gpt',
        tokensInput: 24,
        tokensOutput: 12,
        cost: 0.0000108,
        outcome: 'succeeded',
      },
    }),
  );
}

/** Produces the events in batches (keyed by organization, as the event bus does), acks=all. */
async function produce(kafka, topic, events) {
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
  });
  await producer.connect();
  // The service created the topic at start; its metadata may take a moment to reach every broker.
  const admin = kafka.admin();
  await admin.connect();
  for (
    let attempt = 0;
    !(await admin.fetchTopicMetadata({ topics: [topic] }).then(
      () => true,
      () => false,
    ));
    attempt++
  ) {
    if (attempt > 50) throw new Error(`topic ${topic} does not exist`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await admin.disconnect();
  for (let i = 0; i < events.length; i += 1000) {
    const messages = events.slice(i, i + 1000).map((e) => ({
      key: e.organization,
      value: JSON.stringify(e),
      headers: { 'event-id': e.id, 'event-type': e.type },
    }));
    await producer.send({ topic, acks: -1, messages });
  }
  await producer.disconnect();
}

/**
 * One burst. root: the build whose notification service is measured. Returns figures; the
 * database is dropped afterwards.
 */
async function runBurst({
  root = REPO,
  events: count = 20000,
  organizations: orgCount = 12,
  timeoutS = 600,
  log = console.log,
} = {}) {
  const brokers = process.env.KAFKA_BROKERS.split(',');
  const run = `burst_${Date.now().toString(36)}`;
  const prefix = `${run}.`;
  const database = `${run}_notification`;
  const env = {
    ...process.env,
    SWITCHYARD_MODE: 'distributed',
    KAFKA_TOPIC_PREFIX: prefix,
    MONGODB_DATABASE: database,
    METRICS_PORT: '0',
    LOG_LEVEL: 'warn',
    SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  };
  const notification = await startNotification(root, env);
  const kafka = new Kafka({ brokers, clientId: run, logLevel: logLevel.NOTHING });
  const mongo = await MongoClient.connect(process.env.MONGODB_URI);
  const time = new Date().toISOString();
  const period = time.slice(0, 7);
  const organizations = Array.from({ length: orgCount }, (_, n) => `org_${run}_${n}`);
  const ids = organizations.map((o) => totalBucketId(o, period));
  const projection = mongo.db(database).collection('usage_projection');
  const counted = async () =>
    (await projection.find({ _id: { $in: ids } }, { projection: { calls: 1 } }).toArray()).reduce(
      (sum, d) => sum + d.calls,
      0,
    );
  try {
    // Let the consumer groups join before the clock starts.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const events = usageEvents(count, organizations, time);
    const started = performance.now();
    await produce(kafka, `${prefix}${shared.Topics.usage}`, events);
    const producedS = (performance.now() - started) / 1000;
    let seen = 0;
    let firstAt;
    const deadline = started + timeoutS * 1000;
    while (seen < count && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      seen = await counted();
      if (seen > 0 && firstAt === undefined) firstAt = performance.now();
    }
    const totalS = (performance.now() - started) / 1000;
    const result = {
      events: count,
      counted: seen,
      producedS,
      totalS,
      eventsPerSecond: seen / totalS,
      complete: seen === count,
    };
    log(
      `burst: ${seen}/${count} usage events in the ledger after ${totalS.toFixed(1)} s (produced in ${producedS.toFixed(1)} s): ${result.eventsPerSecond.toFixed(0)} events/s`,
    );
    return result;
  } finally {
    await notification.stop();
    await mongo
      .db(database)
      .dropDatabase()
      .catch(() => undefined);
    await mongo.close();
  }
}

module.exports = { runBurst };
