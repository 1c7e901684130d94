#!/usr/bin/env node
/**
 * Webhook delivery benchmark for the notification service (services/notification/dist; build
 * first with `npx tsc -b services/notification`). A local node:http receiver on 127.0.0.1 answers
 * 200 at once and timestamps every call.
 *   (a) fan-out: N webhooks (default 1,000) of one organization receive one event;
 *   (b) stream:  M events (default 10,000) published back to back to one webhook.
 * Reports deliveries/s, time from publish to first attempt received (p50/p95/p99) and memory.
 * Figures only, no assertions.
 *
 *   node bench/webhooks/fanout.js [--mongo] [--webhooks 1000] [--events 10000] [--concurrency 64]
 * --mongo uses MONGODB_URI (a fresh database, dropped afterwards); default in-memory stores.
 * --concurrency is WEBHOOK_MAX_CONCURRENCY_PER_HOST (every webhook here shares one host).
 */
'use strict';
const http = require('node:http');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const ROOT = path.resolve(__dirname, '../..');
const { InMemoryEventBus, createEvent, connectMongo } = require(path.join(ROOT, 'shared/dist/src/index.js'));
const { loadNotificationConfig, startNotificationService } = require(path.join(ROOT, 'services/notification/dist/src/server.js'));
const logger = require(require.resolve('pino', { paths: [path.join(ROOT, 'shared')] }))({ level: 'silent' });

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const MONGO = process.argv.includes('--mongo');
const WEBHOOKS = option('webhooks', 1000);
const EVENTS = option('events', 10000);
const CONCURRENCY = option('concurrency', 64);

/** Receiver: records when the first call for each (event id, webhook path) arrived. */
function startReceiver() {
  const firstArrival = new Map();
  let calls = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      calls++;
      const { id } = JSON.parse(Buffer.concat(chunks).toString());
      const key = `${id} ${req.url}`;
      if (!firstArrival.has(key)) firstArrival.set(key, { id, at });
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 1000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, firstArrival, calls: () => calls, url: (p) => `http://127.0.0.1:${server.address().port}${p}` })),
  );
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function mb(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

/** Samples RSS every 100 ms so the peak is reported. */
function memoryProbe() {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  return { stop: () => (clearInterval(timer), { peakRss: peak, heapUsed: process.memoryUsage().heapUsed }) };
}

async function waitFor(check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function startService(database) {
  const env = {
    SWITCHYARD_MODE: 'embedded',
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: '0',
    METRICS_PORT: '0',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_REQUIRE_HTTPS: 'false',
    WEBHOOK_MAX_CONCURRENCY_PER_HOST: String(CONCURRENCY),
    WEBHOOK_RETRY_SCHEDULE: '0,5s,5m',
  };
  if (database) Object.assign(env, { MONGODB_URI: process.env.MONGODB_URI, MONGODB_DATABASE: database, SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
  const bus = new InMemoryEventBus({ logger });
  const service = await startNotificationService({ config: loadNotificationConfig(env), bus, logger });
  return { bus, service };
}

function webhook(id, organization, url) {
  const now = new Date().toISOString();
  return { id, organization, events: ['data_updated'], url, enabled: true, disabledReason: '', createdAt: now, updatedAt: now, secret: `whsec_${randomBytes(32).toString('base64')}` };
}

function report(name, deliveries, publishedAt, arrivals, started, memory) {
  const latencies = arrivals.map((a) => a.at - publishedAt.get(a.id)).sort((x, y) => x - y);
  const last = Math.max(...arrivals.map((a) => a.at));
  const seconds = (last - started) / 1000;
  console.log(
    `${name}: ${deliveries} deliveries in ${seconds.toFixed(2)} s = ${(deliveries / seconds).toFixed(0)} deliveries/s; ` +
      `publish -> first attempt p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms, ` +
      `p99 ${percentile(latencies, 99).toFixed(1)} ms; peak RSS ${mb(memory.peakRss)}, heap used after ${mb(memory.heapUsed)}`,
  );
}

async function fanOut(service, bus, receiver) {
  const organization = 'org_fanout';
  for (let i = 0; i < WEBHOOKS; i++) await service.stores.webhooks.create(webhook(`wh_fan_${i}`, organization, receiver.url(`/fan/${i}`)));
  const memory = memoryProbe();
  const event = createEvent('data.updated', { source: 'bench', organization, data: { dataset: 'bench', count: 1 } });
  const publishedAt = new Map([[event.id, performance.now()]]);
  const started = publishedAt.get(event.id);
  await bus.publish(event);
  await waitFor(() => receiver.firstArrival.size >= WEBHOOKS, 600_000);
  report(`(a) fan-out, 1 event -> ${WEBHOOKS} webhooks`, WEBHOOKS, publishedAt, [...receiver.firstArrival.values()], started, memory.stop());
}

async function stream(service, bus, receiver) {
  const organization = 'org_stream';
  await service.stores.webhooks.create(webhook('wh_stream', organization, receiver.url('/stream')));
  receiver.firstArrival.clear();
  const memory = memoryProbe();
  const publishedAt = new Map();
  const started = performance.now();
  for (let i = 0; i < EVENTS; i++) {
    const event = createEvent('data.updated', { source: 'bench', organization, data: { dataset: 'bench', count: i } });
    publishedAt.set(event.id, performance.now());
    await bus.publish(event);
  }
  const publishSeconds = (performance.now() - started) / 1000;
  await waitFor(() => receiver.firstArrival.size >= EVENTS, 1_800_000);
  report(`(b) stream, ${EVENTS} events -> 1 webhook`, EVENTS, publishedAt, [...receiver.firstArrival.values()], started, memory.stop());
  console.log(`    (all ${EVENTS} events were published within ${publishSeconds.toFixed(2)} s, so later events queue behind earlier ones)`);
}

async function main() {
  if (MONGO && !process.env.MONGODB_URI) throw new Error('--mongo needs MONGODB_URI');
  const database = MONGO ? `switchyard_notification_bench_${Date.now().toString(36)}` : undefined;
  console.log(`stores: ${MONGO ? `mongo (${process.env.MONGODB_URI}, database ${database})` : 'in-memory'}; bus: in-process; ` +
    `WEBHOOK_MAX_CONCURRENCY_PER_HOST=${CONCURRENCY}; node ${process.version}; RSS at start ${mb(process.memoryUsage().rss)}`);
  const receiver = await startReceiver();
  const { bus, service } = await startService(database);
  try {
    await fanOut(service, bus, receiver);
    await stream(service, bus, receiver);
    console.log(`receiver calls: ${receiver.calls()} (first attempts only expected: ${WEBHOOKS + EVENTS})`);
  } finally {
    await service.stop();
    await bus.close();
    receiver.server.close();
    if (database) {
      const connection = await connectMongo(process.env.MONGODB_URI, database, logger);
      await connection.db.dropDatabase();
      await connection.close();
    }
  }
}

main().catch((error) => {
  console.error(`benchmark failed: ${error.stack}`);
  process.exit(1);
});
