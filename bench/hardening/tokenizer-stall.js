#!/usr/bin/env node
/**
 * Issue 10, reproduction 1: does one huge prompt stall the gateway? Starts the embedded mesh
 * (build first: `npm run build`), sends each prompt below to POST /api/v2/ai/content/generate and,
 * meanwhile, GET /api/v2/models back to back. Prints, per prompt: its status and time, and the
 * concurrent calls' worst and median latency against an idle baseline. Figures only, no assertions.
 *
 *   node bench/hardening/tokenizer-stall.js [--rounds 5]
 */
'use strict';
const path = require('node:path');
const os = require('node:os');
const ROOT = path.resolve(__dirname, '../..');
const { startEmbeddedMesh } = require(path.join(ROOT, 'deploy/embedded/dist/src/mesh.js'));
const logger = require(require.resolve('pino', { paths: [path.join(ROOT, 'shared')] }))({
  level: 'silent',
});

const ROUNDS = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 5;
const PROMPTS = {
  'cjk 40,000 chars (120 KB)': '\u4e00'.repeat(40_000),
  'letters 40,000 in one run': 'a'.repeat(40_000),
  'english 120 KB': 'The quick brown fox jumps over the lazy dog. '.repeat(2700),
  'random cjk 40,000 chars': Array.from({ length: 40_000 }, () =>
    String.fromCharCode(0x4e00 + Math.floor(Math.random() * 20000)),
  ).join(''),
};

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timed(call) {
  const start = performance.now();
  const res = await call();
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - start };
}

async function main() {
  const mesh = await startEmbeddedMesh(
    {
      ...process.env,
      GATEWAY_PORT: '0',
      LOG_LEVEL: 'silent',
      DEFAULT_RPM: '1000000',
      DEFAULT_TPM: '1000000000',
      DEFAULT_MONTHLY_TOKEN_QUOTA: '1000000000',
    },
    logger,
  );
  const headers = { authorization: `X-API-Key ${mesh.apiKey}`, 'content-type': 'application/json' };
  const models = () => fetch(`${mesh.gatewayUrl}/api/v2/models`, { headers });
  const baseline = [];
  for (let i = 0; i < 50; i++) baseline.push((await timed(models)).ms);
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${os.cpus().length} cores`,
  );
  console.log(
    `GET /api/v2/models idle: median ${median(baseline).toFixed(1)} ms, max ${Math.max(...baseline).toFixed(1)} ms`,
  );
  for (const [name, prompt] of Object.entries(PROMPTS)) {
    const body = JSON.stringify({ prompt, max_length: 16 });
    const big = [];
    const concurrent = [];
    for (let round = 0; round < ROUNDS; round++) {
      let done = false;
      const call = timed(() =>
        fetch(`${mesh.gatewayUrl}/api/v2/ai/content/generate`, { method: 'POST', headers, body }),
      ).finally(() => (done = true));
      while (!done) concurrent.push((await timed(models)).ms);
      big.push(await call);
    }
    const statuses = [...new Set(big.map((b) => b.status))].join('/');
    console.log(
      `${name}: ${statuses} in median ${median(big.map((b) => b.ms)).toFixed(1)} ms (max ${Math.max(...big.map((b) => b.ms)).toFixed(1)}); ` +
        `concurrent GET /models (${concurrent.length}): median ${median(concurrent).toFixed(1)} ms, max ${Math.max(...concurrent).toFixed(1)} ms`,
    );
  }
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  await mesh.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
