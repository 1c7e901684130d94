#!/usr/bin/env node
'use strict';
/**
 * Recommendations at catalog scale, through the gateway of the embedded mesh (its own process,
 * in-memory stores): a generated catalog (generated-catalog.js; default 200,000 items and
 * 5,000,000 interactions with a long tail) ingested with /api/v2/catalog/items and
 * /api/v2/interactions, a model trained with /api/v2/ai/recommendations/model, then:
 *   - ingestion time and rate, and whether an answer right after the first batch is non-empty;
 *   - training time (in the worker, and the call), the mesh process's peak memory (worker
 *     included), and top-10 latency while the model trains (serving must not wait on training);
 *   - top-10 latency p50/p99 with IN_FLIGHT calls in flight: each user's first call (profile
 *     read and scored), then warm calls;
 *   - the time from POSTing an interaction to that user's recommendations changing;
 *   - hit rate@10 of one held-out purchase per sampled user, against popularity.
 * Prints figures only, no assertions.
 *
 *   npm run build && node bench/recommendation/scale.js
 * Env: SCALE_ITEMS (200000), SCALE_INTERACTIONS (5000000), SEED (42), IN_FLIGHT (8),
 *      INGEST_IN_FLIGHT (4), LATENCY_USERS (2000), LATENCY_ROUNDS (4), EFFECT_USERS (50),
 *      HELD_OUT_USERS (2000); the mesh's own variables pass through (RECOMMENDATION_ALGORITHM,
 *      RECOMMENDATION_SPARSE_EASE_NEIGHBOURS, ...).
 */
const os = require('node:os');
const { performance } = require('node:perf_hooks');
const { generateCatalog, random } = require('./generated-catalog');
const {
  forkServer,
  gatewayPhase,
  load,
  loadFromChildProcess,
  post,
  printLatency,
} = require('./harness');
const { timed } = require('./timing');

const ITEMS = Number(process.env.SCALE_ITEMS || 200_000);
const INTERACTIONS = Number(process.env.SCALE_INTERACTIONS || 5_000_000);
const SEED = Number(process.env.SEED || 42);
const IN_FLIGHT = Number(process.env.IN_FLIGHT || 8);
const INGEST_IN_FLIGHT = Number(process.env.INGEST_IN_FLIGHT || 4);
const LATENCY_USERS = Number(process.env.LATENCY_USERS || 2000);
const LATENCY_ROUNDS = Number(process.env.LATENCY_ROUNDS || 4);
const EFFECT_USERS = Number(process.env.EFFECT_USERS || 50);
const HELD_OUT_USERS = Number(process.env.HELD_OUT_USERS || 2000);
const BATCH = 1000;
const K = 10;

const gb = (bytes) => `${(bytes / 1024 ** 3).toFixed(2)} GB`;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const userId = (u) => `user-${u}`;

async function meshMemory(mesh) {
  const { memory, maxRss } = await mesh.request({ memory: true });
  return `${memory}; peak RSS so far ${gb(maxRss)}`;
}

/**
 * One purchase per sampled user (users with 5 interactions or more) left out of the ingested
 * log, to see whether the model finds it.
 */
function holdOut(data) {
  const next = random(SEED + 1);
  const heldOut = new Map();
  const skip = new Uint8Array(data.length);
  const purchase = data.types.indexOf('purchase');
  for (let tries = 0; heldOut.size < HELD_OUT_USERS && tries < HELD_OUT_USERS * 50; tries++) {
    const u = Math.floor(next() * data.users);
    const start = data.userStart[u];
    const end = data.userStart[u + 1];
    if (end - start < 5 || heldOut.has(u)) continue;
    for (let k = end - 1; k >= start; k--) {
      if (data.log.types[k] !== purchase) continue;
      const item = data.log.items[k];
      // Held out only if the user has no other interaction with the item.
      let again = false;
      for (let j = start; j < end; j++) if (j !== k && data.log.items[j] === item) again = true;
      if (again) break;
      heldOut.set(u, item);
      skip[k] = 1;
      break;
    }
  }
  return { heldOut, skip };
}

async function ingest(mesh, data, skip) {
  const item = (i) => ({
    itemId: data.items[i].itemId,
    catalog: 'ecommerce',
    title: `Item ${i}`,
    categories: data.items[i].categories,
  });
  let started = performance.now();
  const itemBatches = Math.ceil(data.items.length / BATCH);
  await timed(itemBatches, INGEST_IN_FLIGHT, (b) =>
    post(mesh, '/api/v2/catalog/items', {
      items: Array.from({ length: Math.min(BATCH, data.items.length - b * BATCH) }, (_, k) =>
        item(b * BATCH + k),
      ),
    }),
  );
  const itemsMs = performance.now() - started;

  const kept = [];
  for (let k = 0; k < data.length; k++) if (!skip[k]) kept.push(k);
  const batches = Math.ceil(kept.length / BATCH);
  let firstAnswer;
  let recorded = 0;
  started = performance.now();
  await timed(batches, INGEST_IN_FLIGHT, async (b) => {
    const interactions = kept.slice(b * BATCH, (b + 1) * BATCH).map((k) => ({
      userId: userId(data.log.users[k]),
      itemId: data.items[data.log.items[k]].itemId,
      type: data.types[data.log.types[k]],
      timestamp: new Date(data.log.timestamps[k]).toISOString(),
    }));
    const answer = await post(mesh, '/api/v2/interactions', { interactions });
    recorded += answer.recorded;
    if (firstAnswer === undefined) {
      firstAnswer = 'asking';
      const at = performance.now() - started;
      const answer = await post(mesh, '/api/v2/ai/recommendations', {
        userId: 'someone-new',
        numRecommendations: K,
      });
      const reasons = [...new Set(answer.recommendations.map((r) => r.reason))].join(', ');
      firstAnswer = `${answer.recommendations.length} items (${reasons || 'none'}) ${at.toFixed(0)} ms after ingestion began, no model yet`;
    }
  });
  const interactionsMs = performance.now() - started;
  console.log(
    `  ingestion (${INGEST_IN_FLIGHT} batches of ${BATCH} in flight): ${data.items.length} items in ${seconds(itemsMs)} (${Math.round(data.items.length / (itemsMs / 1000))}/s); ` +
      `${recorded} interactions in ${seconds(interactionsMs)} (${Math.round(recorded / (interactionsMs / 1000))}/s)`,
  );
  console.log(`  an unknown user's top-10 right after the first batch: ${firstAnswer}`);
}

/** Trains through the API while a load client keeps asking: how serving fares meanwhile. */
async function train(mesh, users) {
  let done = false;
  await mesh.request({ reset: true });
  const started = performance.now();
  const training = post(mesh, '/api/v2/ai/recommendations/model', {}).finally(() => {
    done = true;
  });
  const during = [];
  while (!done) {
    const latencies = await loadFromChildProcess('http-load.js', {
      url: mesh.gatewayUrl,
      apiKey: mesh.apiKey,
      users,
      calls: 400,
      inFlight: IN_FLIGHT,
      warmUp: 0,
    });
    during.push(...latencies);
  }
  const model = await training;
  const callMs = performance.now() - started;
  const { stats } = await mesh.request({ stats: true });
  console.log(
    `  training: ${model.algorithm} v${model.version}, ${model.items} items x ${model.users} users, ${model.interactions} interactions: ` +
      `${seconds(model.training_ms ?? model.trainingMs)} in the worker, ${seconds(callMs)} for the call (load ${load()})`,
  );
  printLatency(
    `top-10 while it trained, ${IN_FLIGHT} in flight`,
    during.sort((a, b) => a - b),
  );
  console.log(
    `  ${''.padEnd(44)} mesh process meanwhile: event-loop delay p99 ${stats.loopDelay.p99.toFixed(1)} ms max ${stats.loopDelay.max.toFixed(1)} ms, GC ${stats.gc.count} pauses, max ${stats.gc.maxMs.toFixed(1)} ms`,
  );
  return model;
}

/**
 * Time from POSTing one purchase to the user's top-10 changing (items or their scores), per
 * sampled user with at most 10 interactions (on a long history one purchase may move nothing).
 */
async function interactionEffect(mesh, data, popular) {
  const next = random(SEED + 2);
  const times = [];
  let unchanged = 0;
  for (let n = 0; n < EFFECT_USERS; n++) {
    let u;
    do u = Math.floor(next() * data.users);
    while (data.userStart[u + 1] - data.userStart[u] > 10);
    const ask = async () =>
      JSON.stringify(
        (
          await post(mesh, '/api/v2/ai/recommendations', {
            userId: userId(u),
            numRecommendations: K,
          })
        ).recommendations.map((r) => [r.itemId, r.score]),
      );
    const before = await ask();
    // One of the 1,000 most popular items, of another category than the user's first one.
    const category = data.items[data.log.items[data.userStart[u]]].categories[0];
    let item;
    do item = popular[Math.floor(next() * 1000)];
    while (data.items[item].categories[0] === category);
    const started = performance.now();
    await post(mesh, '/api/v2/interactions', {
      interactions: [{ userId: userId(u), itemId: data.items[item].itemId, type: 'purchase' }],
    });
    let changed = false;
    while (performance.now() - started < 10_000) {
      if ((await ask()) !== before) {
        changed = true;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    if (changed) times.push(performance.now() - started);
    else unchanged++;
  }
  times.sort((a, b) => a - b);
  const pick = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  console.log(
    `  interaction to effect (${EFFECT_USERS} users of at most 10 interactions: POST of a purchase until their top-10 changes): ` +
      (times.length > 0
        ? `p50 ${pick(0.5).toFixed(1)} ms, max ${times[times.length - 1].toFixed(1)} ms`
        : 'never') +
      (unchanged > 0 ? `; ${unchanged} unchanged after 10 s` : ''),
  );
}

/** The 2,000 items with the most interactions in the ingested log, most first. */
function mostPopular(data, skip) {
  const counts = new Float64Array(data.items.length);
  for (let k = 0; k < data.length; k++) if (!skip[k]) counts[data.log.items[k]]++;
  return Array.from(counts.keys())
    .sort((a, b) => counts[b] - counts[a] || a - b)
    .slice(0, 2000);
}

/** Hit rate@10 of the held-out purchases: the service, and popularity computed here. */
async function heldOutHits(mesh, data, heldOut, popular) {
  let service = 0;
  let popularity = 0;
  const users = [...heldOut.keys()];
  await timed(users.length, IN_FLIGHT, async (n) => {
    const u = users[n];
    const answer = await post(mesh, '/api/v2/ai/recommendations', {
      userId: userId(u),
      numRecommendations: K,
    });
    const wanted = data.items[heldOut.get(u)].itemId;
    if (answer.recommendations.some((r) => r.itemId === wanted)) service++;
    const own = new Set(data.log.items.subarray(data.userStart[u], data.userStart[u + 1]));
    own.delete(heldOut.get(u));
    if (
      popular
        .filter((i) => !own.has(i))
        .slice(0, K)
        .includes(heldOut.get(u))
    )
      popularity++;
  });
  console.log(
    `  hit rate@10 of one held-out purchase (${users.length} users): service ${(service / users.length).toFixed(4)}, popularity ${(popularity / users.length).toFixed(4)}`,
  );
}

async function main() {
  console.log(
    `recommendations at scale, node ${process.version}, ${os.cpus().length} cores, ${gb(os.totalmem())}, load ${load()}`,
  );
  let started = performance.now();
  const data = generateCatalog({ items: ITEMS, interactions: INTERACTIONS, seed: SEED });
  const { heldOut, skip } = holdOut(data);
  console.log(
    `  generated (seed ${SEED}): ${data.items.length} items, ${data.length} interactions of ${data.users} users in ${seconds(performance.now() - started)}; ${heldOut.size} purchases held out`,
  );
  const mesh = forkServer('mesh-process.js', 'mesh process', {
    ...process.env,
    // Training this much data through one call outlasts the default 30 s deadline.
    GRPC_DEADLINE_MS: '900000',
    // No scheduled training during ingestion: the figures are those of the one asked for.
    RECOMMENDATION_REBUILD_INTERVAL_MS: '3600000',
  });
  Object.assign(mesh, await mesh.next());
  try {
    await ingest(mesh, data, skip);
    console.log(`  memory after ingestion (mesh process): ${await meshMemory(mesh)}`);
    const next = random(SEED + 3);
    const users = Array.from({ length: LATENCY_USERS }, () =>
      userId(Math.floor(next() * data.users)),
    );
    await train(mesh, users);
    console.log(`  memory after training (mesh process): ${await meshMemory(mesh)}`);
    await gatewayPhase(
      mesh,
      `first call per user (profile read and scored), ${IN_FLIGHT} in flight`,
      { users, calls: users.length, warmUp: 0 },
      IN_FLIGHT,
    );
    await gatewayPhase(
      mesh,
      `gateway HTTP, ${IN_FLIGHT} in flight`,
      { users, calls: users.length * LATENCY_ROUNDS, warmUp: 200 },
      IN_FLIGHT,
    );
    const popular = mostPopular(data, skip);
    await interactionEffect(mesh, data, popular);
    await heldOutHits(mesh, data, heldOut, popular);
    console.log(`  memory at the end (mesh process): ${await meshMemory(mesh)}`);
  } finally {
    await mesh.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
