#!/usr/bin/env node
'use strict';
/**
 * MovieLens-100k benchmark of the recommendation service's handlers (no gRPC hop).
 * Leave-last-out split: each user's latest rating is held out, the rest is ingested as `rating`
 * interactions; then every user gets 10 recommendations and we check whether the held-out movie
 * is among them, against a most-popular baseline. Prints figures only (no assertions).
 *
 *   npm run gen:proto && npx tsc -b services/recommendation
 *   node --expose-gc bench/recommendation/movielens.js
 * Env: MOVIELENS_DIR (default /work/shared/datasets/movielens-100k), BENCH_USERS (default 1000).
 */
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { InMemoryEventBus, createLogger } = require('@switchyard/shared');
const recommendation = require('../../services/recommendation/dist/src/server.js');

const DATA_DIR = process.env.MOVIELENS_DIR || '/work/shared/datasets/movielens-100k';
const MAX_USERS = Number(process.env.BENCH_USERS || 1000);
const K = 10;
const BATCH = 1000;
const CONTEXT = { organization: 'org_bench', keyId: 'key_bench', requestId: 'req_bench' };

function readLines(file, encoding) {
  return fs.readFileSync(path.join(DATA_DIR, file), encoding).split('\n').filter((line) => line.trim() !== '');
}

function loadMovies() {
  const genres = readLines('u.genre', 'latin1').map((line) => line.split('|')[0]);
  // u.item is ISO-8859-1: id|title|release date|video release|IMDb URL|19 genre flags
  return readLines('u.item', 'latin1').map((line) => {
    const fields = line.split('|');
    const flags = fields.slice(5);
    return {
      item_id: fields[0],
      catalog: 'ecommerce',
      title: fields[1],
      categories: genres.filter((_, i) => flags[i] === '1'),
      attributes_json: JSON.stringify({ releaseDate: fields[2], imdbUrl: fields[4] }),
      available: true,
      updated_at: '',
    };
  });
}

function loadRatings() {
  return readLines('u.data', 'utf8').map((line) => {
    const [user, item, rating, ts] = line.split('\t');
    return { user, item, rating: Number(rating), ts: Number(ts) };
  });
}

/** Per user: latest rating (ties: larger item id) held out, the rest for training. */
function leaveLastOut(ratings) {
  const byUser = new Map();
  for (const r of ratings) {
    if (!byUser.has(r.user)) byUser.set(r.user, []);
    byUser.get(r.user).push(r);
  }
  const train = [];
  const test = new Map();
  for (const [user, list] of byUser) {
    list.sort((a, b) => a.ts - b.ts || Number(a.item) - Number(b.item));
    test.set(user, list[list.length - 1]);
    train.push(...list.slice(0, -1));
  }
  train.sort((a, b) => a.ts - b.ts);
  return { train, test };
}

function toInteraction(r) {
  return { user_id: r.user, item_id: r.item, type: 'rating', value: r.rating, timestamp: new Date(r.ts * 1000).toISOString() };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function mb(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function memory(label) {
  if (global.gc) global.gc();
  const m = process.memoryUsage();
  console.log(`  ${label.padEnd(22)} rss ${mb(m.rss)}, heapUsed ${mb(m.heapUsed)}`);
  return m;
}

async function ingest(handlers, movies, train) {
  let start = performance.now();
  for (let i = 0; i < movies.length; i += BATCH) await handlers.UpsertItems({ items: movies.slice(i, i + BATCH) }, CONTEXT);
  const itemsMs = performance.now() - start;
  start = performance.now();
  let recorded = 0;
  for (let i = 0; i < train.length; i += BATCH) {
    const response = await handlers.RecordInteractions({ interactions: train.slice(i, i + BATCH).map(toInteraction) }, CONTEXT);
    recorded += response.recorded;
  }
  const interactionsMs = performance.now() - start;
  console.log(`  items          ${movies.length} in ${itemsMs.toFixed(0)} ms = ${Math.round(movies.length / (itemsMs / 1000))} items/s`);
  console.log(`  interactions   ${recorded} in ${interactionsMs.toFixed(0)} ms = ${Math.round(recorded / (interactionsMs / 1000))} interactions/s (batches of ${BATCH}, model updated incrementally)`);
}

/** Calls Recommend for every user; returns latencies and top-K lists. */
async function recommendAll(handlers, users, currentItemOf) {
  const latencies = [];
  const lists = new Map();
  for (const user of users) {
    const request = { user_id: user, current_item_id: currentItemOf ? currentItemOf(user) : '', num_recommendations: K, catalog: '' };
    const start = performance.now();
    const response = await handlers.Recommend(request, CONTEXT);
    latencies.push(performance.now() - start);
    lists.set(user, response.recommendations.map((r) => r.item_id));
  }
  return { latencies: latencies.sort((a, b) => a - b), lists };
}

function mostPopularLists(train, users) {
  const counts = new Map();
  const seen = new Map();
  for (const r of train) {
    counts.set(r.item, (counts.get(r.item) ?? 0) + 1);
    if (!seen.has(r.user)) seen.set(r.user, new Set());
    seen.get(r.user).add(r.item);
  }
  const ranking = [...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a) || Number(a) - Number(b));
  const lists = new Map();
  for (const user of users) {
    const mine = seen.get(user) ?? new Set();
    const top = [];
    for (const item of ranking) {
      if (!mine.has(item)) top.push(item);
      if (top.length === K) break;
    }
    lists.set(user, top);
  }
  return lists;
}

function quality(lists, test, users, filter = () => true) {
  let hits = 0;
  let reciprocalRanks = 0;
  let n = 0;
  for (const user of users) {
    const held = test.get(user);
    if (!filter(held)) continue;
    n++;
    const rank = (lists.get(user) ?? []).indexOf(held.item);
    if (rank >= 0) {
      hits++;
      reciprocalRanks += 1 / (rank + 1);
    }
  }
  return { n, hitRate: hits / n, precision: hits / (n * K), mrr: reciprocalRanks / n };
}

function printQuality(label, q) {
  console.log(
    `  ${label.padEnd(34)} users ${String(q.n).padStart(4)}  HR@${K} ${q.hitRate.toFixed(4)}  P@${K} ${q.precision.toFixed(4)}  MRR@${K} ${q.mrr.toFixed(4)}`,
  );
}

function printLatency(label, latencies) {
  const mean = latencies.reduce((a, b) => a + b, 0) / latencies.length;
  console.log(
    `  ${label.padEnd(34)} n ${latencies.length}  p50 ${percentile(latencies, 50).toFixed(2)} ms  p95 ${percentile(latencies, 95).toFixed(2)} ms  p99 ${percentile(latencies, 99).toFixed(2)} ms  mean ${mean.toFixed(2)} ms  max ${latencies[latencies.length - 1].toFixed(2)} ms`,
  );
}

async function main() {
  console.log(`MovieLens-100k benchmark (${DATA_DIR}), node ${process.version}${global.gc ? '' : ' (run with --expose-gc for steadier memory figures)'}`);
  const movies = loadMovies();
  const ratings = loadRatings();
  const { train, test } = leaveLastOut(ratings);
  const users = [...test.keys()].sort((a, b) => Number(a) - Number(b)).slice(0, MAX_USERS);
  console.log(`  data: ${movies.length} movies, ${ratings.length} ratings, ${test.size} users; train ${train.length}, held out ${test.size}`);

  console.log('memory');
  const before = memory('before ingestion');
  const logger = createLogger('bench', 'silent');
  const bus = new InMemoryEventBus();
  const models = new recommendation.ModelRegistry();
  const handlers = recommendation.createRecommendationHandlers({
    items: new recommendation.InMemoryItemStore(),
    interactions: new recommendation.InMemoryInteractionStore(),
    models,
    publisher: new recommendation.DataUpdatedPublisher(bus, logger),
    maxBatchSize: BATCH,
    logger,
  });

  console.log('ingestion (through the UpsertItems / RecordInteractions handlers)');
  await ingest(handlers, movies, train);
  console.log(`  model          ${JSON.stringify(models.forOrganization(CONTEXT.organization).stats())}`);
  console.log('memory');
  const after = memory('after ingestion');
  console.log(`  ${'delta'.padEnd(22)} rss ${mb(after.rss - before.rss)}, heapUsed ${mb(after.heapUsed - before.heapUsed)}`);

  await recommendAll(handlers, users.slice(0, 50)); // warm-up (JIT), not measured
  const personal = await recommendAll(handlers, users);
  const lastTrainItem = new Map();
  for (const r of train) lastTrainItem.set(r.user, r.item); // train is time-ordered: the last wins
  const withCurrent = await recommendAll(handlers, users, (user) => lastTrainItem.get(user) ?? '');
  const unknownUsers = await recommendAll(handlers, users.map((u) => `cold_${u}`));

  console.log('Recommend latency (handler, in-process, K=10)');
  printLatency('known user', personal.latencies);
  printLatency('known user + currentItemId', withCurrent.latencies);
  printLatency('unknown user (popularity)', unknownUsers.latencies);

  console.log(`offline quality, leave-last-out (held-out = each user's latest rating)`);
  const baseline = mostPopularLists(train, users);
  printQuality('co-occurrence (service)', quality(personal.lists, test, users));
  printQuality('co-occurrence + currentItemId', quality(withCurrent.lists, test, users));
  printQuality('most-popular baseline', quality(baseline, test, users));
  const liked = (held) => held.rating >= 4;
  printQuality('co-occurrence, held-out rated >= 4', quality(personal.lists, test, users, liked));
  printQuality('most-popular, held-out rated >= 4', quality(baseline, test, users, liked));
  await bus.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
