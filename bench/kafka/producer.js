#!/usr/bin/env node
/**
 * The event bus's Kafka producer, by setting (build first: `npm run build`; needs KAFKA_BROKERS,
 * e.g. after `eval "$(bash deploy/local/infra.sh env)"`). usage.recorded events, as content
 * publishes one per call, are offered at fixed rates by callers that each wait for their ack
 * (open loop: a caller starts on schedule whether or not earlier ones are answered), through one
 * KafkaEventBus per setting (linger, compression), under a fresh topic prefix.
 *
 * Prints per setting and rate: events acknowledged, ack latency p50/p99 as a caller sees it, this
 * process's CPU per event (less what the same schedule costs without a bus) and Kafka's (its pid from deploy/local/infra.sh's run directory, CPU in
 * 10 ms ticks, so read it over a few thousand events), produce requests per event. Figures only.
 *
 *   node bench/kafka/producer.js [--rates 200,1000,3000] [--duration 10]
 *        [--settings none/0,none/2,gzip/0,gzip/2]   (compression/lingerMs)
 */
'use strict';
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const ROOT = path.resolve(__dirname, '../..');
const shared = require(path.join(ROOT, 'shared/dist/src/index.js'));
const { localInfraPids } = require('../gateway/targets');
const { cpuMs, percentile } = require('../gateway/measure');
const logger = require(require.resolve('pino', { paths: [path.join(ROOT, 'shared')] }))({
  level: 'silent',
});

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : process.argv[index + 1];
}
const list = (text) => String(text).split(',').filter(Boolean);

const RATES = list(option('rates', '200,1000,3000')).map(Number);
const SECONDS = Number(option('duration', '10'));
const SETTINGS = list(option('settings', 'none/0,none/2,gzip/0,gzip/2')).map((text) => {
  const [compression, linger] = text.split('/');
  return { compression, lingerMs: Number(linger) };
});

/**
 * Callers arrive as a Poisson process (exponential gaps, a fixed seed), as independent calls do:
 * evenly spaced ones would fall in step with a linger and flatter it.
 */
function arrivalTimes(rate, total) {
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) + 1) / (2 ** 31 + 1);
  const times = [];
  let at = 0;
  for (let i = 0; i < total; i++) times.push((at += (-Math.log(random()) / rate) * 1000));
  return times;
}

/**
 * The same schedule and events without Kafka: its CPU (timers, making the events, promises) is
 * taken off each setting's, so CPU/event is the producer's.
 */
const NO_BUS = { publish: async () => undefined };

/** A usage.recorded event the size content publishes. */
function usageEvent(i) {
  return shared.createEvent('usage.recorded', {
    source: 'content',
    organization: `org_${i % 50}`,
    data: {
      keyId: `key_${i % 200}`,
      requestId: `req_${randomBytes(8).toString('hex')}`,
      route: 'content.generate',
      model: 'gpt-4o-mini',
      tokensInput: 120 + (i % 40),
      tokensOutput: 256,
      cost: 0.000172,
      outcome: 'succeeded',
    },
  });
}

/** Produce requests and events acknowledged so far (the bus's own counters). */
async function producedCounts() {
  const metrics = await shared.commandMetrics.getMetricsAsJSON();
  const values = (name) => metrics.find((metric) => metric.name === name)?.values ?? [];
  const requests = values('kafka_produce_request_duration_seconds').find((value) =>
    value.metricName?.endsWith('_count'),
  );
  const events = values('kafka_produced_events_total')[0];
  return { requests: requests?.value ?? 0, events: events?.value ?? 0 };
}

async function runCase(bus, rate) {
  const infra = localInfraPids();
  const kafkaCpuMs = () => (infra.kafka ? cpuMs({ kafka: infra.kafka }).kafka : NaN);
  const latencies = [];
  let failed = 0;
  const before = { cpu: process.cpuUsage(), kafka: kafkaCpuMs(), ...(await producedCounts()) };
  const total = Math.round(rate * SECONDS);
  const arrivals = arrivalTimes(rate, total);
  const pending = [];
  const started = performance.now();
  let sent = 0;
  await new Promise((resolve) => {
    // One timer at a time, for the next arrival; each firing starts every caller due by then.
    const fire = () => {
      const now = performance.now() - started;
      for (; sent < total && arrivals[sent] <= now; sent++) {
        const at = performance.now();
        pending.push(
          bus.publish(usageEvent(sent)).then(
            () => latencies.push(performance.now() - at),
            () => failed++,
          ),
        );
      }
      if (sent >= total) resolve();
      else setTimeout(fire, Math.max(0, arrivals[sent] - (performance.now() - started)));
    };
    fire();
  });
  await Promise.all(pending);
  const cpu = process.cpuUsage(before.cpu);
  const after = { kafka: kafkaCpuMs(), ...(await producedCounts()) };
  latencies.sort((a, b) => a - b);
  const events = latencies.length;
  return {
    rate,
    events,
    failed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuUs: (cpu.user + cpu.system) / events,
    kafkaUs: infra.kafka ? (((after.kafka - before.kafka) * 1000) / events).toFixed(1) : 'n/a',
    perRequest: ((after.events - before.events) / (after.requests - before.requests)).toFixed(1),
  };
}

async function main() {
  if (!process.env.KAFKA_BROKERS) throw new Error('needs KAFKA_BROKERS');
  console.log(
    `load average ${require('node:os')
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    'setting      rate/s  acked  failed  ack p50   ack p99   CPU/event  Kafka CPU/event  events/request',
  );
  for (const setting of SETTINGS) {
    const bus = new shared.KafkaEventBus({
      brokers: process.env.KAFKA_BROKERS.split(','),
      clientId: 'bench-producer',
      logger,
      topicPrefix: `bench_${randomBytes(4).toString('hex')}.`,
      producer: setting,
    });
    await bus.start();
    await runCase(bus, 100); // warm-up: connections, metadata, JIT
    for (const rate of RATES) {
      const r = await runCase(bus, rate);
      const schedule = await runCase(NO_BUS, rate);
      console.log(
        [
          `${setting.compression}/${setting.lingerMs}ms`.padEnd(11),
          String(r.rate).padStart(7),
          String(r.events).padStart(6),
          String(r.failed).padStart(7),
          `${r.p50.toFixed(1)} ms`.padStart(8),
          `${r.p99.toFixed(1)} ms`.padStart(9),
          `${(r.cpuUs - schedule.cpuUs).toFixed(1)} µs`.padStart(10),
          `${r.kafkaUs} µs`.padStart(16),
          r.perRequest.padStart(15),
        ].join('  '),
      );
    }
    await bus.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
