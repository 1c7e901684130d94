#!/usr/bin/env node
/**
 * Memory soak of the embedded mesh (npm start) under keyed calls (build first: `npm run build`).
 * Every call carries a fresh Idempotency-Key, so every store that keeps something per key or per
 * call grows unless it is bounded. The mesh runs in its own process; its RSS and its V8 heap after
 * a full GC (heap-probe.js, on SIGUSR2: what stays alive) are sampled while the load runs.
 * Figures only, no assertions.
 *
 *   node bench/soak/memory.js [--duration 600] [--rate 200] [--sample 10] [--concurrency 32] [--root DIR]
 *
 * Calls: content generate (builtin model) and transform/summarize, 3 to 1, each with its own key;
 * one call in 50 is retried with the same key (a replay). Prints one line per sample and, at the
 * end, RSS over the first and the last fifth of the run and its slope over the second half
 * (MB per minute). Flat means bounded: the slope stays near 0 while calls keep coming.
 */
'use strict';
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');

/** --root: the checkout whose build runs (default this one; e.g. another branch, to compare). */
const ROOT = path.resolve(
  process.argv.includes('--root')
    ? process.argv[process.argv.indexOf('--root') + 1]
    : path.join(__dirname, '../..'),
);
const ENTRY = path.join(ROOT, 'deploy/embedded/dist/src/index.js');
const HEAP_FILE = path.join(os.tmpdir(), `soak-heap-${process.pid}.json`);

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}
const DURATION_S = option('duration', 600);
const RATE = option('rate', 200);
const SAMPLE_S = option('sample', 10);
const CONCURRENCY = option('concurrency', 32);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function startMesh() {
  const apiKey = `sk_soak_${randomBytes(12).toString('hex')}`;
  const preload = path.join(__dirname, 'heap-probe.js');
  const child = spawn(process.execPath, ['--expose-gc', '--require', preload, ENTRY], {
    env: {
      ...process.env,
      SOAK_HEAP_FILE: HEAP_FILE,
      KAFKA_BROKERS: '',
      MONGODB_URI: '',
      REDIS_URL: '',
      GATEWAY_PORT: '0',
      LOG_LEVEL: 'warn',
      DEV_API_KEY: apiKey,
      DEV_MONTHLY_TOKEN_QUOTA: '1000000000000',
      DEFAULT_RPM: '100000000',
      DEFAULT_TPM: '100000000000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const match = /running \(embedded mode\) at (http:\/\/\S+)/.exec(output);
      if (!match) return;
      clearInterval(poll);
      resolve({ child, apiKey, url: match[1].replace('localhost', '127.0.0.1') });
    }, 50);
    child.once('exit', (code) => {
      clearInterval(poll);
      reject(new Error(`the mesh exited (${code}): ${output.slice(-2000)}`));
    });
  });
}

/** Resident set of a process in MB (Linux /proc; ps elsewhere). */
function rssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
  } catch {
    const { execFileSync } = require('node:child_process');
    return (
      Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' })) / 1024
    );
  }
}

/** The mesh's V8 heap in use right after a full GC (heap-probe.js), in MB. */
async function heapAfterGcMb(pid) {
  const asked = Date.now();
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 200; i++) {
    await sleep(25);
    try {
      const probe = JSON.parse(readFileSync(HEAP_FILE, 'utf8'));
      if (probe.at >= asked) return probe.heapUsed / 1024 / 1024;
    } catch {
      // not written yet
    }
  }
  return NaN;
}

function slopePerMinute(points) {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, p) => s + p.t, 0) / n;
  const my = points.reduce((s, p) => s + p.v, 0) / n;
  const num = points.reduce((s, p) => s + (p.t - mx) * (p.v - my), 0);
  const den = points.reduce((s, p) => s + (p.t - mx) ** 2, 0);
  return den === 0 ? NaN : (num / den) * 60;
}

const mean = (values) => values.reduce((s, v) => s + v, 0) / values.length;

async function main() {
  const mesh = await startMesh();
  const headers = (key) => ({
    authorization: `X-API-Key ${mesh.apiKey}`,
    'content-type': 'application/json',
    'idempotency-key': key,
  });
  const counts = { calls: 0, replays: 0, failed: 0, statuses: {} };
  let sequence = 0;
  const call = async () => {
    const n = ++sequence;
    // One call in 50 repeats the call 25 before it (same key and body): a replay.
    const replay = n % 50 === 0;
    const id = replay ? n - 25 : n;
    const key = `soak-${id}`;
    const generate = id % 4 !== 0;
    const body = generate
      ? { prompt: `A product line about trail shoes, number ${id}`, max_length: 40 }
      : {
          action: 'summarize',
          text: `Order ${id} shipped. It arrives on Monday. The box holds two pairs of socks and a map.`,
          target_length: 'short',
        };
    const route = generate ? '/api/v2/ai/content/generate' : '/api/v2/ai/content/transform';
    try {
      const res = await fetch(mesh.url + route, {
        method: 'POST',
        headers: headers(key),
        body: JSON.stringify(body),
      });
      await res.arrayBuffer();
      counts.statuses[res.status] = (counts.statuses[res.status] ?? 0) + 1;
      if (res.headers.get('idempotent-replayed') === 'true') counts.replays++;
    } catch {
      counts.failed++;
    }
    counts.calls++;
  };

  console.log(
    `soak: embedded mesh, ${RATE} keyed calls/s for ${DURATION_S} s, sample every ${SAMPLE_S} s; ` +
      `node ${process.version}; ${os.cpus().length} cores; load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  const started = performance.now();
  const samples = [];
  const inFlight = new Set();
  let nextSample = 0;
  while (performance.now() - started < DURATION_S * 1000) {
    const elapsed = (performance.now() - started) / 1000;
    const due = Math.floor(elapsed * RATE);
    while (sequence < due && inFlight.size < CONCURRENCY) {
      const p = call().finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    if (elapsed >= nextSample) {
      nextSample += SAMPLE_S;
      const sample = {
        t: elapsed,
        calls: counts.calls,
        rss: rssMb(mesh.child.pid),
        heap: await heapAfterGcMb(mesh.child.pid),
      };
      samples.push(sample);
      console.log(
        `${sample.t.toFixed(0).padStart(5)} s  calls ${String(sample.calls).padStart(7)}  ` +
          `rss ${sample.rss.toFixed(1)} MB  heap after GC ${sample.heap.toFixed(1)} MB  ` +
          `behind ${Math.max(0, due - sequence)}  load1 ${os.loadavg()[0].toFixed(2)}`,
      );
    }
    await sleep(5);
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  mesh.child.kill('SIGTERM');
  require('node:fs').rmSync(HEAP_FILE, { force: true });
  const fifth = Math.max(1, Math.floor(samples.length / 5));
  const first = samples.slice(1, 1 + fifth); // the first sample is the idle mesh
  const last = samples.slice(-fifth);
  const secondHalf = samples.slice(Math.floor(samples.length / 2));
  console.log(
    `\n${counts.calls} calls in ${elapsed.toFixed(0)} s (${(counts.calls / elapsed).toFixed(0)}/s), ` +
      `${counts.replays} replays, ${counts.failed} without an answer; statuses ${JSON.stringify(counts.statuses)}`,
  );
  console.log(
    `RSS: first fifth ${mean(first.map((s) => s.rss)).toFixed(1)} MB, last fifth ${mean(last.map((s) => s.rss)).toFixed(1)} MB, ` +
      `max ${Math.max(...samples.map((s) => s.rss)).toFixed(1)} MB; slope over the second half ` +
      `${slopePerMinute(secondHalf.map((s) => ({ t: s.t, v: s.rss }))).toFixed(2)} MB/min ` +
      `(heap after GC: first fifth ${mean(first.map((s) => s.heap)).toFixed(1)} MB, last fifth ${mean(last.map((s) => s.heap)).toFixed(1)} MB, ` +
      `slope ${slopePerMinute(secondHalf.map((s) => ({ t: s.t, v: s.heap }))).toFixed(2)} MB/min); ` +
      `load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
