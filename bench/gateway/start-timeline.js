'use strict';
/**
 * Where a burst's starts wait, from inside the mesh: preloaded into it
 * (BENCH_NODE_ARGS="-r ./bench/gateway/start-timeline.js"), it notes for each model request
 * (/v1/chat/completions, content/generate) when the gateway began it, when content created its
 * upstream request (undici) and when undici wrote that request's headers, and whether any other
 * request's step ran in between. Once requests stop starting for 300 ms it writes one summary to
 * stderr (the mesh's log): per step first / p50 / last ms after the first request began. Only
 * Node's and undici's public diagnostics channels are used; nothing of the mesh changes.
 */
const channels = require('node:diagnostics_channel');
const { AsyncLocalStorage } = require('node:async_hooks');
const { performance } = require('node:perf_hooks');

const MODEL_PATHS = ['/v1/chat/completions', '/api/v2/ai/content/generate'];
const QUIET_MS = 300;
const request = new AsyncLocalStorage();
/** [request number, step, ms] in the order they happened. */
let steps = [];
let started = 0;
let connects = 0;

function note(step) {
  const current = request.getStore();
  if (current !== undefined) steps.push([current, step, performance.now()]);
}

channels.subscribe('http.server.request.start', ({ request: incoming }) => {
  if (!MODEL_PATHS.some((path) => incoming.url.startsWith(path))) return;
  // Entered here, the request's number follows its handler through every await and callback.
  request.enterWith(started++);
  note('began');
});
channels.subscribe('undici:request:create', () => note('upstream created'));
channels.subscribe('undici:client:beforeConnect', () => {
  if (request.getStore() !== undefined) connects++;
});
channels.subscribe('undici:client:sendHeaders', () => note('upstream sent'));

const at = (sorted, share) =>
  sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];

function summary() {
  const began = steps.filter(([, step]) => step === 'began');
  if (began.length === 0) return undefined;
  const zero = began[0][2];
  const lines = [`start timeline: ${began.length} requests, ${connects} new upstream connections`];
  for (const name of ['began', 'upstream created', 'upstream sent']) {
    const times = steps
      .filter(([, step]) => step === name)
      .map(([, , ms]) => ms - zero)
      .sort((a, b) => a - b);
    if (times.length === 0) continue;
    const ms = (share) => at(times, share).toFixed(1);
    lines.push(`  ${name.padEnd(17)} ${ms(0)} / ${ms(0.5)} / ${ms(1)} ms (first / p50 / last)`);
  }
  // Steps of other requests between a request's start and its upstream request: 0 means each
  // start ran to its upstream request in one go.
  const open = new Map();
  let interleaved = 0;
  for (const [number, step] of steps) {
    if (step === 'began') open.set(number, 0);
    else if (step === 'upstream created') {
      interleaved = Math.max(interleaved, open.get(number) ?? 0);
      open.delete(number);
    }
    for (const [other, count] of open) if (other !== number) open.set(other, count + 1);
  }
  lines.push(`  most steps of other requests inside one start: ${interleaved}`);
  return lines.join('\n');
}

let seen = 0;
setInterval(() => {
  if (steps.length > 0 && steps.length === seen) {
    const text = summary();
    if (text) process.stderr.write(`${text}\n`);
    steps = [];
    started = 0;
    connects = 0;
  }
  seen = steps.length;
}, QUIET_MS).unref();
