#!/usr/bin/env node
/**
 * Issue 10: how long does one large JSON body hold the gateway's event loop? Starts the embedded
 * mesh (build first: `npm run build`) on this thread and sends, from a worker thread, the fuzz
 * suite's worst bodies one at a time (each --rounds times) while the worker also polls /healthz
 * every 10 ms. Prints per body: its status, the longest stall of this thread's event loop while it
 * was in flight and the CPU time the thread ran in that stall (the synchronous work; far below the
 * stall when the machine's load kept the thread waiting for a core), and the slowest /healthz.
 * The embedded mesh runs every service on this thread: a valid batch's figures include the service
 * that stores it. Figures only, no assertions.
 *
 *   node bench/hardening/big-bodies.js [--rounds 5] [--only <text in a body's name>] [--root <a built checkout>]
 */
'use strict';
const path = require('node:path');
const os = require('node:os');
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');

const option = (name, fallback) =>
  process.argv.includes(`--${name}`)
    ? process.argv[process.argv.indexOf(`--${name}`) + 1]
    : fallback;
const ROOT = path.resolve(option('root', path.resolve(__dirname, '../..')));
const ROUNDS = Number(option('rounds', 5));
const STALL_TICK_MS = 2;

const arrayOf = (length, make) => Array.from({ length }, (_, i) => make(i));
const mixed = (length) => arrayOf(length, (i) => (i % 2 ? i : { i }));
const manyFields = (count, prefix = 'f') =>
  Object.fromEntries(arrayOf(count, (i) => [`${prefix}${i}`, i]));
/** About 90 values an item, 1000 items (~1 MB): a legal catalog batch near the route's value limit. */
const catalogItem = (i) => ({
  itemId: `sku-${i}`,
  catalog: 'ecommerce',
  title: `Item ${i} of the big batch`,
  categories: ['shoes', 'trail', 'sale'],
  attributes: {
    price: i,
    sizes: arrayOf(40, (s) => 36 + s / 2),
    colors: arrayOf(40, (c) => `c${c}`),
    brand: 'acme',
  },
});
const document = (i) => ({
  id: `doc-${i}`,
  text: `Document ${i} `.repeat(20),
  title: `Doc ${i}`,
  tags: arrayOf(40, (t) => `tag${t}`),
  metadata: manyFields(40),
});

const CASES = [
  [
    'generate: 20,000 extra fields (271 KB)',
    '/api/v2/ai/content/generate',
    () => ({ prompt: 'hi', ...manyFields(20_000) }),
  ],
  [
    'generate: a 100,000-value array (868 KB)',
    '/api/v2/ai/content/generate',
    () => ({ prompt: mixed(100_000) }),
  ],
  [
    'catalog: items a 100,000-value array (868 KB)',
    '/api/v2/catalog/items',
    () => ({ items: mixed(100_000) }),
  ],
  [
    'catalog: 20,000 invalid items (225 KB)',
    '/api/v2/catalog/items',
    () => ({ items: arrayOf(20_000, (i) => ({ i })) }),
  ],
  [
    'catalog: 1000 valid items, 90 values each',
    '/api/v2/catalog/items',
    () => ({ items: arrayOf(1000, catalogItem) }),
  ],
  [
    'catalog: 1000 items, 50 new attribute names each',
    '/api/v2/catalog/items',
    () => ({
      items: arrayOf(1000, (i) => ({ ...catalogItem(i), attributes: manyFields(50, `a${i}_`) })),
    }),
  ],
  [
    'catalog: 1000 items, the last one invalid',
    '/api/v2/catalog/items',
    () => ({
      items: arrayOf(1000, (i) => (i === 999 ? { ...catalogItem(i), title: ' ' } : catalogItem(i))),
    }),
  ],
  [
    'documents: 1000 valid documents, 85 values each',
    '/api/v2/knowledge/collections/bench-big/documents',
    () => ({ documents: arrayOf(1000, document) }),
  ],
  [
    'interactions: 1000 valid',
    '/api/v2/interactions',
    () => ({
      interactions: arrayOf(1000, (i) => ({
        userId: `u${i % 50}`,
        itemId: `sku-${i}`,
        type: 'view',
      })),
    }),
  ],
  [
    'assistant chat: 20,000 invalid messages',
    '/api/v2/ai/assistants/chat',
    () => ({
      user_id: 'u',
      session_id: 's',
      messages: arrayOf(20_000, (i) => ({ role: 'robot', content: `m${i}` })),
    }),
  ],
];

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function client({ gatewayUrl, apiKey, rounds, only }) {
  const headers = { authorization: `X-API-Key ${apiKey}`, 'content-type': 'application/json' };
  const epoch = () => performance.timeOrigin + performance.now();
  await fetch(`${gatewayUrl}/api/v2/knowledge/collections`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'bench-big', kind: 'documents' }),
  });
  const results = [];
  for (const [name, route, make] of CASES.filter(([name]) => name.includes(only))) {
    const body = JSON.stringify(make());
    const statuses = new Set();
    const times = [];
    const probes = [];
    const startedAt = epoch();
    for (let round = 0; round < rounds; round++) {
      let done = false;
      const start = performance.now();
      const call = fetch(gatewayUrl + route, { method: 'POST', headers, body })
        .then(async (res) => {
          const text = await res.text();
          if (process.env.BENCH_SHOW_ERRORS && res.status >= 400)
            console.error(name, text.slice(0, 300));
          return res.status;
        })
        .finally(() => (done = true));
      while (!done) {
        const probeStart = performance.now();
        await (await fetch(`${gatewayUrl}/healthz`)).arrayBuffer();
        probes.push(performance.now() - probeStart);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      statuses.add(await call);
      times.push(performance.now() - start);
    }
    results.push({
      name,
      bytes: body.length,
      statuses: [...statuses].join('/'),
      medianMs: median(times),
      probeMaxMs: Math.max(0, ...probes),
      startedAt,
      endedAt: epoch(),
    });
  }
  return results;
}

async function main() {
  const { startEmbeddedMesh } = require(path.join(ROOT, 'deploy/embedded/dist/src/mesh.js'));
  const logger = require(require.resolve('pino', { paths: [path.join(ROOT, 'shared')] }))({
    level: 'silent',
  });
  const env = {
    ...process.env,
    GATEWAY_PORT: '0',
    LOG_LEVEL: 'silent',
    KAFKA_BROKERS: '',
    MONGODB_URI: '',
    REDIS_URL: '',
    DEFAULT_RPM: '1000000',
    DEFAULT_TPM: '1000000000',
    DEFAULT_MONTHLY_TOKEN_QUOTA: '1000000000',
  };
  const mesh = await startEmbeddedMesh(env, logger);
  const stalls = [];
  const cpuMs = () => {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  };
  let lastTick = performance.now();
  let lastCpu = cpuMs();
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = cpuMs();
    const late = now - lastTick - STALL_TICK_MS;
    if (late > 1)
      stalls.push({
        at: performance.timeOrigin + now - late,
        ms: late,
        cpuMs: Math.min(late, cpu - lastCpu),
      });
    lastTick = now;
    lastCpu = cpu;
  }, STALL_TICK_MS);
  const load = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(
    `${ROOT}: load average ${load()} on ${os.cpus().length} cores; ${ROUNDS} rounds per body`,
  );
  const worker = new Worker(__filename, {
    workerData: {
      gatewayUrl: mesh.gatewayUrl,
      apiKey: mesh.apiKey,
      rounds: ROUNDS,
      only: option('only', ''),
    },
  });
  const results = await new Promise((resolve, reject) =>
    worker.once('message', resolve).once('error', reject),
  );
  clearInterval(timer);
  for (const r of results) {
    const during = stalls.filter((s) => s.at >= r.startedAt && s.at <= r.endedAt);
    const longest = during.reduce((max, s) => (s.ms > max.ms ? s : max), { ms: 0, cpuMs: 0 });
    const mostCpu = during.reduce((max, s) => Math.max(max, s.cpuMs), 0);
    console.log(
      `${r.name}: ${r.statuses} in median ${r.medianMs.toFixed(1)} ms; event loop: longest stall ${longest.ms.toFixed(1)} ms ` +
        `(CPU ${longest.cpuMs.toFixed(1)} ms), most CPU in one stall ${mostCpu.toFixed(1)} ms; slowest /healthz ${r.probeMaxMs.toFixed(1)} ms`,
    );
  }
  console.log(`load average ${load()}`);
  await worker.terminate();
  await mesh.stop();
}

if (isMainThread) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  client(workerData).then((results) => parentPort.postMessage(results));
}
