'use strict';
/**
 * bench:gateway --hops (stack mode): where a call's time goes, hop by hop, from the processes'
 * own Prometheus metrics. Each process of the stack serves /metrics (the gateway on its HTTP
 * port, the services on METRICS_PORT + offset) with DEPENDENCY_COMMAND_METRICS=true, so every
 * Redis command, MongoDB command and Kafka produce request is timed; the bench scrapes all of
 * them before and after a scenario's gateway run and divides each histogram's change (count and
 * sum) by the calls made: round trips per call and milliseconds per call, per process and hop.
 * Work that follows the answer (the ledger in notification, outbox relays) shows up too.
 */
const net = require('node:net');

/** Offsets from METRICS_PORT that deploy/stack gives each service (the gateway serves its own). */
const METRICS_OFFSETS = { notification: 0, content: 1, assistant: 2, recommendation: 3 };

function portFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A METRICS_PORT whose four ports (one per service) are free now. */
async function freeMetricsBase() {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = 20000 + Math.floor(Math.random() * 30000);
    const free = await Promise.all([0, 1, 2, 3].map((offset) => portFree(base + offset)));
    if (free.every(Boolean)) return base;
  }
  throw new Error('no four free ports for the services metrics');
}

/** Environment for the stack's processes in --hops mode. */
async function hopsEnv() {
  return { METRICS_PORT: String(await freeMetricsBase()), DEPENDENCY_COMMAND_METRICS: 'true' };
}

function metricsUrls(target, base) {
  return {
    gateway: `${target.url}/metrics`,
    ...Object.fromEntries(
      Object.entries(METRICS_OFFSETS).map(([name, offset]) => [
        name,
        `http://127.0.0.1:${base + offset}/metrics`,
      ]),
    ),
  };
}

/** Prometheus text -> Map("name{labels}" -> value), histograms' _sum and _count and counters only. */
function parseExposition(text) {
  const values = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    const series = line.slice(0, space);
    if (series.includes('_bucket')) continue;
    values.set(series, Number(line.slice(space + 1)));
  }
  return values;
}

/** Every process's series now ({process: Map}); a process that does not answer is left out. */
async function scrape(urls) {
  const entries = await Promise.all(
    Object.entries(urls).map(async ([name, url]) => {
      try {
        const response = await fetch(url);
        return [name, parseExposition(await response.text())];
      } catch {
        return [name, new Map()];
      }
    }),
  );
  return Object.fromEntries(entries);
}

/** after - before, per process and series. */
function delta(before, after) {
  const changes = {};
  for (const [name, series] of Object.entries(after)) {
    const earlier = before[name] ?? new Map();
    const changed = new Map();
    for (const [key, value] of series) {
      const d = value - (earlier.get(key) ?? 0);
      if (d !== 0) changed.set(key, d);
    }
    changes[name] = changed;
  }
  return changes;
}

/** Adds one run's changes into a running total (several reps of one scenario). */
function accumulate(total, changes) {
  for (const [name, series] of Object.entries(changes)) {
    const into = (total[name] ??= new Map());
    for (const [key, value] of series) into.set(key, (into.get(key) ?? 0) + value);
  }
  return total;
}

function labelsOf(series) {
  const open = series.indexOf('{');
  if (open < 0) return {};
  const labels = {};
  for (const match of series.slice(open + 1, -1).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
    labels[match[1]] = match[2];
  return labels;
}

/**
 * The hops of a histogram, grouped by what names them: [{hop, count, seconds}] from the
 * series `<metric>_count` / `<metric>_sum` whose labels pass `keep`.
 */
function histogramHops(series, metric, hopName, keep = () => true) {
  const hops = new Map();
  for (const [key, value] of series) {
    const isCount = key.startsWith(`${metric}_count`);
    const isSum = key.startsWith(`${metric}_sum`);
    if (!isCount && !isSum) continue;
    const labels = labelsOf(key);
    if (!keep(labels)) continue;
    const hop = hopName(labels);
    const entry = hops.get(hop) ?? { hop, count: 0, seconds: 0 };
    if (isCount) entry.count += value;
    else entry.seconds += value;
    hops.set(hop, entry);
  }
  return [...hops.values()];
}

function counterHops(series, metric, hopName) {
  const hops = new Map();
  for (const [key, value] of series) {
    if (!key.startsWith(`${metric}{`) && key !== metric) continue;
    const hop = hopName(labelsOf(key));
    const entry = hops.get(hop) ?? { hop, count: 0 };
    entry.count += value;
    hops.set(hop, entry);
  }
  return [...hops.values()];
}

/** The hops of one process, in the order a call meets them. */
function processHops(name, series) {
  const notMetrics = (labels) => !String(labels.route ?? '').includes('metrics');
  const groups = [
    [
      'HTTP in -> answer',
      histogramHops(
        series,
        'http_request_duration_seconds',
        (l) => `${l.method} ${l.route}`,
        notMetrics,
      ),
    ],
    ['gRPC served', histogramHops(series, 'grpc_server_handling_seconds', (l) => l.grpc_method)],
    ['Redis', histogramHops(series, 'redis_command_duration_seconds', (l) => l.command)],
    [
      'MongoDB',
      histogramHops(series, 'mongodb_command_duration_seconds', (l) =>
        `${l.command} ${l.collection}`.trim(),
      ),
    ],
    [
      'gRPC call',
      histogramHops(
        series,
        'grpc_client_handling_seconds',
        (l) => `${l.grpc_service.split('.').pop()}/${l.grpc_method}`,
      ),
    ],
    ['model', histogramHops(series, 'model_call_duration_seconds', (l) => `${l.route} ${l.model}`)],
    [
      'publish (wait for ack)',
      histogramHops(series, 'event_publish_duration_seconds', (l) => l.topic),
    ],
    [
      'Kafka produce requests',
      histogramHops(series, 'kafka_produce_request_duration_seconds', () => 'ProduceRequest'),
    ],
    [
      'consumed',
      counterHops(series, 'kafka_consumer_messages_total', (l) => `${l.group} ${l.topic}`),
    ],
  ];
  return groups
    .map(([kind, hops]) => ({ kind, hops: hops.filter((hop) => hop.count > 0) }))
    .filter((group) => group.hops.length > 0)
    .map((group) => ({ process: name, ...group }));
}

const fmt = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

/** Prints per call: round trips and ms of each hop of each process, slowest processes first. */
function printHops(scenario, changes, calls) {
  console.log(
    `  hops of ${scenario} per call (${calls} calls; n = round trips per call, ms = time per call in that hop)`,
  );
  for (const [name, series] of Object.entries(changes)) {
    const groups = processHops(name, series);
    for (const group of groups) {
      for (const hop of group.hops) {
        const ms =
          hop.seconds === undefined ? '' : `${fmt((hop.seconds * 1000) / calls, 3).padStart(8)} ms`;
        console.log(
          `    ${name.padEnd(14)} ${group.kind.padEnd(24)} ${hop.hop.slice(0, 48).padEnd(48)} n ${fmt(hop.count / calls, 2).padStart(6)} ${ms}`,
        );
      }
    }
  }
}

module.exports = { hopsEnv, metricsUrls, scrape, delta, accumulate, printHops };
