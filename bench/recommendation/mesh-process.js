#!/usr/bin/env node
'use strict';
/**
 * The embedded mesh in its own process for movielens.js (forked with IPC), so its heap holds only
 * the mesh - not the bench's ratings, splits and offline models - and no load client shares its
 * event loop. Sends {ready, gatewayUrl, apiKey, recommendationPort}; answers {memory: true} with its
 * memory use and {stats: true} with the
 * process's CPU time, event-loop delay and GC pauses since the previous {reset: true}. With
 * PROFILE_DIR set, each phase between {reset} and {stats} is profiled into a file there: its CPU,
 * or with PROFILE_KIND=survivors the allocations still alive at its end.
 */
const { monitorEventLoopDelay, PerformanceObserver } = require('node:perf_hooks');
const { startEmbeddedMesh } = require('@switchyard/embedded');
const { createLogger, turnOffAllocationSitePretenuring } = require('@switchyard/shared');
const { phaseProfiler } = require('./phase-profiler');

// As every entry point does (shared main()); MESH_NODE_ARGS="--allocation-site-pretenuring" keeps it.
turnOffAllocationSitePretenuring();

const profiler = phaseProfiler(process.env.PROFILE_DIR, process.env.PROFILE_KIND);

const delay = monitorEventLoopDelay({ resolution: 1 });
let gcPauses = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcPauses.push(entry.duration);
}).observe({ entryTypes: ['gc'] });
let cpuSince = process.cpuUsage();

function stats() {
  const cpu = process.cpuUsage(cpuSince);
  const pauses = gcPauses.slice().sort((a, b) => a - b);
  return {
    cpuMs: (cpu.user + cpu.system) / 1000,
    loopDelay: { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 },
    gc: { count: pauses.length, totalMs: pauses.reduce((s, d) => s + d, 0), maxMs: pauses.at(-1) ?? 0 },
  };
}

async function main() {
  const env = { ...process.env, GATEWAY_PORT: '0', LOG_LEVEL: 'silent', DEFAULT_RPM: '100000000', DEFAULT_TPM: '1000000000' };
  // Trained on demand by the bench, once ingestion is over.
  env.RECOMMENDATION_REBUILD_DELAY_MS = '3600000';
  // In-memory adapters even when the shell exports the real infrastructure's endpoints.
  delete env.KAFKA_BROKERS;
  delete env.MONGODB_URI;
  delete env.REDIS_URL;
  const mesh = await startEmbeddedMesh(env, createLogger('bench', 'silent'));
  const recommendation = mesh.services.find((s) => s.name === 'recommendation');
  delay.enable();
  process.on('message', async (message) => {
    if (message.reset) {
      delay.reset();
      gcPauses = [];
      cpuSince = process.cpuUsage();
      await profiler.start();
      process.send({ reset: true });
    } else if (message.memory) {
      if (global.gc) global.gc();
      const m = process.memoryUsage();
      const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
      process.send({ memory: `rss ${mb(m.rss)}, heap ${mb(m.heapUsed)}, arrayBuffers ${mb(m.arrayBuffers)}` });
    } else if (message.stats) {
      const phaseStats = stats();
      await profiler.stop();
      process.send({ stats: phaseStats });
    } else if (message.stop) {
      await mesh.stop();
      process.exit(0);
    }
  });
  process.send({ ready: true, gatewayUrl: mesh.gatewayUrl, apiKey: mesh.apiKey, recommendationPort: recommendation.port });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
