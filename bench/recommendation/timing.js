'use strict';
const { performance } = require('node:perf_hooks');

/** Runs call(i) for i in 0..n-1 with `inFlight` at a time; returns the sorted latencies in ms. */
async function timed(n, inFlight, call) {
  const latencies = [];
  let next = 0;
  async function worker() {
    while (next < n) {
      const i = next++;
      const started = performance.now();
      await call(i);
      latencies.push(performance.now() - started);
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker));
  return latencies.sort((a, b) => a - b);
}

module.exports = { timed };
