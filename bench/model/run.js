#!/usr/bin/env node
/**
 * The local model through the gateway: the embedded mesh in this process with a llama-cpp entry
 * for the GGUF of `npm run model:fetch` (or --model FILE), driven over HTTP by streaming
 * generate requests. Reports the model's load time, the mesh's start with it, RSS before and
 * with the model, then per round, at 1 and at 4 concurrent requests (interleaved, --rounds
 * times): time to first token (p50/max), tokens/s per request and in all, and the event-loop
 * delay (p99/max, perf_hooks) while tokens are generated. Figures only, no assertions.
 *
 *   npm run bench:model -- [--rounds 3] [--tokens 128] [--parallel 4] [--model FILE] [--quick]
 *
 * --quick (CI's short form, well under a minute): one round of 64-token requests unless
 * --rounds/--tokens say otherwise. The mesh runs in memory (no Kafka, MongoDB or Redis from the
 * environment), so the figures are the model's and the gateway's.
 */
'use strict';
const path = require('node:path');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const ROOT = path.resolve(__dirname, '../..');
const { startEmbeddedMesh } = require(path.join(ROOT, 'deploy/embedded/dist/src/mesh.js'));
const { fetchedLocalModel, loadGguf } = require(
  path.join(ROOT, 'services/content/dist/src/server.js'),
);
const { silentLogger, readEvents } = require(path.join(ROOT, 'shared/dist/src/testing/index.js'));

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : process.argv[index + 1];
}

const QUICK = process.argv.includes('--quick');
const ROUNDS = Number(option('rounds', QUICK ? 1 : 3));
const TOKENS = Number(option('tokens', QUICK ? 64 : 128));
const PARALLEL = Number(option('parallel', 4));
const FILE = option('model', fetchedLocalModel(process.env)?.path);
const PROMPTS = [
  'Write a detailed essay about the history of the bicycle.',
  'Write a long story about a dragon who learns to bake bread.',
  'Describe, step by step, how a lighthouse keeper spends a winter night.',
  'Explain in detail how a city builds and runs a public library.',
];

const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const ms = (value) => `${value.toFixed(0)} ms`;
const percentile = (values, p) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

/** One streamed generation: when its first token came, when it ended, and its tokens. */
async function generate(mesh, prompt) {
  const started = performance.now();
  const response = await fetch(`${mesh.gatewayUrl}/api/v2/ai/content/generate`, {
    method: 'POST',
    headers: { authorization: `X-API-Key ${mesh.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, max_length: TOKENS, stream: true }),
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  let firstToken;
  const events = await readEvents(response, (event) => {
    if (event.event === 'delta' && firstToken === undefined) firstToken = performance.now();
  });
  const done = events.at(-1);
  if (done?.event !== 'done') throw new Error(`the stream ended with ${JSON.stringify(done)}`);
  return {
    ttft: firstToken - started,
    seconds: (performance.now() - firstToken) / 1000,
    tokens: done.data.usage.tokens_output,
  };
}

async function round(mesh, concurrency) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: concurrency }, (_, i) => generate(mesh, PROMPTS[i % PROMPTS.length])),
  );
  const wall = (performance.now() - started) / 1000;
  delay.disable();
  const tokens = results.reduce((sum, r) => sum + r.tokens, 0);
  const perRequest = results.map((r) => (r.tokens - 1) / r.seconds);
  return [
    `  ${concurrency} at once`.padEnd(12),
    `ttft p50 ${ms(
      percentile(
        results.map((r) => r.ttft),
        0.5,
      ),
    )}`,
    `max ${ms(Math.max(...results.map((r) => r.ttft)))}`.padEnd(9),
    `| tokens/s per request ${percentile(perRequest, 0.5).toFixed(1)}`,
    `in all ${(tokens / wall).toFixed(1)} (${tokens} tokens in ${wall.toFixed(1)} s)`,
    `| loop delay p99 ${ms(delay.percentile(99) / 1e6)} max ${ms(delay.max / 1e6)}`,
  ].join(' ');
}

async function main() {
  if (!FILE) throw new Error('no GGUF: run npm run model:fetch, or pass --model FILE');
  const rssBefore = process.memoryUsage().rss;
  let started = performance.now();
  await loadGguf(FILE, false, silentLogger());
  const loadMs = performance.now() - started;
  started = performance.now();
  const mesh = await startEmbeddedMesh(
    {
      ...process.env,
      KAFKA_BROKERS: '',
      MONGODB_URI: '',
      REDIS_URL: '',
      DEMO_DATA: 'false',
      GATEWAY_PORT: '0',
      LOG_LEVEL: 'silent',
      DEFAULT_RPM: '1000000',
      DEFAULT_TPM: '1000000000',
      MODEL_REGISTRY_JSON: JSON.stringify({
        defaultModel: 'local-bench',
        models: [
          { id: 'builtin', provider: 'builtin' },
          { id: 'local-bench', provider: 'llama-cpp', modelPath: FILE, parallel: PARALLEL },
        ],
      }),
    },
    silentLogger(),
  );
  const meshMs = performance.now() - started;
  try {
    await generate(mesh, 'Hello'); // warm-up
    const rss = process.memoryUsage().rss;
    console.log(`model ${path.basename(FILE)}, parallel ${PARALLEL}, ${TOKENS} tokens a request`);
    console.log(
      `load (GGUF, memory-mapped) ${ms(loadMs)}; mesh start with its contexts ${ms(meshMs)}`,
    );
    console.log(`RSS ${mb(rssBefore)} before the model, ${mb(rss)} with it loaded and warm`);
    for (let r = 1; r <= ROUNDS; r++) {
      console.log(`round ${r}`);
      for (const concurrency of [1, 4]) console.log(await round(mesh, concurrency));
    }
    console.log(`RSS after the rounds ${mb(process.memoryUsage().rss)}`);
  } finally {
    await mesh.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
