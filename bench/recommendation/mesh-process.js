#!/usr/bin/env node
'use strict';
/**
 * The embedded mesh in its own process for movielens.js (forked with IPC), so its heap holds only
 * the mesh - not the bench's ratings, splits and offline models - and no load client shares its
 * event loop. Sends {ready, gatewayUrl, apiKey, recommendationPort}; answers {memory: true} with its
 * memory use, and {reset} / {stats} as phase-stats.js says.
 */
const { startEmbeddedMesh } = require('@switchyard/embedded');
const { createLogger } = require('@switchyard/shared');
const { phaseStats } = require('./phase-stats');

async function main() {
  const env = {
    ...process.env,
    GATEWAY_PORT: '0',
    LOG_LEVEL: 'silent',
    DEFAULT_RPM: '100000000',
    DEFAULT_TPM: '1000000000',
  };
  // Trained on demand by the bench, once ingestion is over.
  env.RECOMMENDATION_REBUILD_DELAY_MS = '3600000';
  // In-memory adapters even when the shell exports the real infrastructure's endpoints.
  delete env.KAFKA_BROKERS;
  delete env.MONGODB_URI;
  delete env.REDIS_URL;
  const mesh = await startEmbeddedMesh(env, createLogger('bench', 'silent'));
  const recommendation = mesh.services.find((s) => s.name === 'recommendation');
  const onPhaseMessage = phaseStats();
  process.on('message', async (message) => {
    if (await onPhaseMessage(message)) return;
    if (message.memory) {
      if (global.gc) global.gc();
      const m = process.memoryUsage();
      const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
      process.send({
        memory: `rss ${mb(m.rss)}, heap ${mb(m.heapUsed)}, arrayBuffers ${mb(m.arrayBuffers)}`,
        // The process's peak resident memory so far (worker threads included), in bytes.
        maxRss: process.resourceUsage().maxRSS * 1024,
      });
    } else if (message.stop) {
      await mesh.stop();
      process.exit(0);
    }
  });
  process.send({
    ready: true,
    gatewayUrl: mesh.gatewayUrl,
    apiKey: mesh.apiKey,
    recommendationPort: recommendation.port,
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
