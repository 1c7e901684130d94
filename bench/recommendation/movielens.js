#!/usr/bin/env node
'use strict';
/**
 * MovieLens-100k benchmark of recommendations, on the Microsoft Recommenders protocol
 * (protocol.js: python_stratified_split(ratio=0.75, filter_by="item", seed), top-10 with the
 * user's train items removed, every test rating relevant). Prints figures only, no assertions.
 *
 *  1. Offline, for each seed: EASE, sparse EASE, item-kNN and popularity, trained with the
 *     service's own code (services/recommendation/dist/src/model). RECOMMENDATION_ALGORITHM
 *     (e.g. sparse_ease) forces the service's algorithm in part 2.
 *  2. Through the HTTP API of the embedded mesh, for the first seed: catalog and train ratings
 *     ingested with /api/v2/catalog/items and /api/v2/interactions, the model rebuilt with
 *     /api/v2/ai/recommendations/model, then /api/v2/ai/recommendations for every test user.
 *     Quality, ingestion and training time, latency p50/p99 with IN_FLIGHT calls in flight through
 *     the gateway and straight to the recommendation service over gRPC, memory. The mesh runs in its
 *     own process (mesh-process.js) and each load client in another, as they would be deployed; the
 *     mesh's CPU time per call, event-loop delay and GC pauses are printed with each latency. Then
 *     the floor: the same two phases against bare servers that send back one of the mesh's answers
 *     (floor-process.js), what is left of a p99 when the service does nothing.
 *
 *   npm run build && node --expose-gc bench/recommendation/movielens.js
 *  3. The Recommend handler alone, in-process, on in-memory stores or, with BENCH_MONGODB_URI, on
 *     MongoDB stores (a throw-away database; the model snapshot goes through the snapshot store).
 * Env: ML100K_DIR (default ../shared/datasets/movielens-100k beside the checkout), SEEDS (default 42,7,123),
 *      IN_FLIGHT (default 8), OFFLINE, HTTP, HANDLER (default 1; 0 skips part 1, 2 or 3),
 *      BENCH_MONGODB_URI (part 3 on MongoDB), HTTP_MESH=stack (part 2 through start:stack's processes
 *      on MONGODB_URI, KAFKA_BROKERS and REDIS_URL, fresh databases), HTTP_USERS (part 2 asks only
 *      the first n test users), LATENCY_ROUNDS (calls per test user in a latency phase, default 8: 7,544 calls, steadier tails),
 *      FLOOR=0 (no floor phases), MESH_NODE_ARGS (node options of the mesh and floor processes,
 *      e.g. "--trace-gc"), PROFILE_DIR (CPU profile of each latency phase of the server process;
 *      PROFILE_KIND=survivors: what its
 *      allocations left alive instead; PROFILE_KIND=allocations: all it allocated),
 *      GRPC_IN_PROCESS=false (the embedded gateway calls the services over gRPC on their Unix
 *      sockets instead of in-process).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const {
  stratifiedSplit,
  loadRatings,
  groupItemsByUser,
  rankingMetrics,
  toInteraction,
} = require('./protocol');
const { timed } = require('./timing');
const {
  load,
  memory,
  printLatency,
  forkServer,
  latencyPhase,
  gatewayPhase,
  loadFromChildProcess,
  post,
} = require('./harness');

const MODEL = path.join(__dirname, '../../services/recommendation/dist/src/model');
const { buildTrainingSet } = require(path.join(MODEL, 'training-set.js'));
const { trainModel } = require(path.join(MODEL, 'train-model.js'));
const { ItemModel } = require(path.join(MODEL, 'item-model.js'));
const { foldUserSignals } = require(path.join(MODEL, 'interaction-weights.js'));
const { loadRecommendationConfig } = require('../../services/recommendation/dist/src/config.js');

const DATA_DIR =
  process.env.ML100K_DIR ||
  process.env.MOVIELENS_DIR ||
  require('node:path').resolve(__dirname, '../../../shared/datasets/movielens-100k');
const SEEDS = (process.env.SEEDS || '42,7,123').split(',').map(Number);
const IN_FLIGHT = Number(process.env.IN_FLIGHT || 8);
/** Calls each load client makes before the measured ones (its connection and JIT). */
const WARM_UP = 200;
/** Calls per test user in each latency phase: more rounds, steadier tails and CPU figures. */
const LATENCY_ROUNDS = Number(process.env.LATENCY_ROUNDS || 8);
const K = 10;
const BATCH = 1000;
const PUBLISHED = [
  ['SAR (Recommenders benchmark)', 0.394],
  ['BiVAE (best published row)', 0.475],
];

function loadMovies() {
  const genres = fs
    .readFileSync(path.join(DATA_DIR, 'u.genre'), 'latin1')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('|')[0]);
  // u.item is ISO-8859-1: id|title|release date|video release|IMDb URL|19 genre flags
  return fs
    .readFileSync(path.join(DATA_DIR, 'u.item'), 'latin1')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const fields = line.split('|');
      return {
        itemId: fields[0],
        catalog: 'ecommerce',
        title: fields[1],
        categories: genres.filter((_, i) => fields[5 + i] === '1'),
        attributes: { releaseDate: fields[2] },
        available: true,
      };
    });
}

function topK(scores, model, exclude) {
  const ranked = [];
  scores.forEach((score, i) => {
    if (!exclude.has(model.itemId(i))) ranked.push(i);
  });
  ranked.sort((a, b) => scores[b] - scores[a]);
  return ranked.slice(0, K).map((i) => model.itemId(i));
}

/** Trains one algorithm with the service's code and ranks every test user's top-10. */
function offlineModel(algorithm, train, test, config) {
  const started = performance.now();
  const set = buildTrainingSet(train.map(toInteraction), config.decayHalfLifeDays);
  const model = new ItemModel(
    trainModel(
      set,
      { ...config.training, algorithm: algorithm === 'popularity' ? 'item_knn' : algorithm },
      1,
    ),
  );
  const trainingMs = performance.now() - started;
  const trainItems = groupItemsByUser(train);
  const byUser = new Map();
  for (const r of train) {
    if (!byUser.has(r.user)) byUser.set(r.user, []);
    byUser.get(r.user).push(toInteraction(r));
  }
  const lists = new Map();
  const popularity = Float64Array.from({ length: model.size }, (_, i) => model.popularity(i));
  for (const user of groupItemsByUser(test).keys()) {
    const exclude = trainItems.get(user) ?? new Set();
    if (algorithm === 'popularity') {
      lists.set(user, topK(popularity, model, exclude));
      continue;
    }
    const interactions = byUser.get(user) ?? [];
    const newest = Math.max(...interactions.map((i) => i.timestamp));
    const profile = new Map(
      [...foldUserSignals(interactions, newest, config.decayHalfLifeDays)].map(([id, s]) => [
        id,
        s.weight,
      ]),
    );
    lists.set(user, topK(model.scoreUser(profile), model, exclude));
  }
  return { metrics: rankingMetrics(lists, test, K), trainingMs };
}

function printMetrics(label, m, extra = '') {
  console.log(
    `  ${label.padEnd(34)} nDCG@10 ${m.ndcg.toFixed(4)}  P@10 ${m.precision.toFixed(4)}  R@10 ${m.recall.toFixed(4)}  MAP ${m.map.toFixed(4)}  users ${m.users}${extra}`,
  );
}

/** The embedded mesh in its own process (mesh-process.js). */
async function forkMesh() {
  const mesh = forkServer('mesh-process.js', 'mesh process');
  return { ...(await mesh.next()), ...mesh };
}

/**
 * start:stack's five processes on MONGODB_URI, KAFKA_BROKERS and REDIS_URL (fresh databases), as
 * the mesh of part 2 (HTTP_MESH=stack): what ingestion and serving cost on the real stores.
 */
async function stackMesh() {
  const { API_KEY, startMockUpstream, startStack } = require('../gateway/targets');
  const upstream = await startMockUpstream();
  const target = await startStack(
    upstream.url,
    path.join(os.tmpdir(), `movielens-stack-${process.pid}.log`),
  );
  return {
    stack: true,
    gatewayUrl: target.url,
    apiKey: API_KEY,
    stop: async () => {
      await target.stop();
      await upstream.stop();
    },
  };
}

async function throughHttp(train, test, movies) {
  const mesh = process.env.HTTP_MESH === 'stack' ? await stackMesh() : await forkMesh();
  try {
    // The embedded gateway calls the services in-process unless GRPC_IN_PROCESS=false (gRPC over their Unix sockets).
    const hop =
      process.env.GRPC_IN_PROCESS === 'false'
        ? 'gateway to services over gRPC on Unix sockets'
        : 'gateway to services in-process';
    const where = mesh.stack
      ? 'start:stack, MongoDB, Kafka and Redis of the environment'
      : `embedded mesh, in-memory stores, ${hop}`;
    console.log(`\nthrough the HTTP API (${where}; load ${load()})`);
    let started = performance.now();
    for (let i = 0; i < movies.length; i += BATCH)
      await post(mesh, '/api/v2/catalog/items', { items: movies.slice(i, i + BATCH) });
    const itemsMs = performance.now() - started;
    started = performance.now();
    let recorded = 0;
    for (let i = 0; i < train.length; i += BATCH) {
      const interactions = train.slice(i, i + BATCH).map((r) => ({
        userId: r.user,
        itemId: r.item,
        type: 'rating',
        value: r.rating,
        timestamp: new Date(r.ts * 1000).toISOString(),
      }));
      recorded += (await post(mesh, '/api/v2/interactions', { interactions })).recorded;
    }
    const interactionsMs = performance.now() - started;
    console.log(
      `  ingestion: ${movies.length} items in ${itemsMs.toFixed(0)} ms; ${recorded} interactions in ${interactionsMs.toFixed(0)} ms (${Math.round(recorded / (interactionsMs / 1000))}/s, batches of ${BATCH})`,
    );
    started = performance.now();
    const model = await post(mesh, '/api/v2/ai/recommendations/model', {});
    console.log(
      `  training: ${model.algorithm} v${model.version}, ${model.items} items x ${model.users} users, ${model.interactions} interactions: ${model.trainingMs} ms in the worker, ${(performance.now() - started).toFixed(0)} ms for the call (load ${load()})`,
    );
    if (!mesh.stack)
      console.log(
        `  memory after training (the mesh process): ${(await mesh.request({ memory: true })).memory}`,
      );

    // HTTP_USERS limits the test users asked (slow stores); quality is then over those users only.
    const users = [...groupItemsByUser(test).keys()].slice(
      0,
      Number(process.env.HTTP_USERS) || undefined,
    );
    const lists = new Map();
    const firstCalls = await timed(users.length, IN_FLIGHT, async (i) => {
      const response = await post(mesh, '/api/v2/ai/recommendations', {
        userId: users[i],
        numRecommendations: K,
      });
      lists.set(
        users[i],
        response.recommendations.map((r) => r.itemId),
      );
    });
    const quality = rankingMetrics(
      lists,
      test.filter((r) => lists.has(r.user)),
      K,
    );
    printMetrics(`service through the HTTP API (${users.length} users)`, quality);
    printLatency(`first call per user (profile read), ${IN_FLIGHT} in flight`, firstCalls);
    if (mesh.stack) {
      printLatency(
        `gateway HTTP, ${IN_FLIGHT} in flight`,
        await loadFromChildProcess('http-load.js', {
          url: mesh.gatewayUrl,
          apiKey: mesh.apiKey,
          users,
          calls: users.length * 2,
          inFlight: IN_FLIGHT,
          warmUp: WARM_UP,
        }),
      );
      return quality;
    }

    // Latency: every test user LATENCY_ROUNDS times more (the pass above warmed the profile cache
    // and the JIT); each client process warms its own connection first (WARM_UP calls, not measured).
    const calls = users.length * LATENCY_ROUNDS;
    await gatewayPhase(
      mesh,
      `gateway HTTP, ${IN_FLIGHT} in flight`,
      { users, calls, warmUp: WARM_UP },
      IN_FLIGHT,
    );
    await latencyPhase(
      mesh,
      `recommendation service gRPC, ${IN_FLIGHT} in flight`,
      'grpc-load.js',
      {
        address: `127.0.0.1:${mesh.recommendationPort}`,
        users,
        calls,
        inFlight: IN_FLIGHT,
        warmUp: WARM_UP,
      },
      IN_FLIGHT,
    );
    if (process.env.FLOOR !== '0') await floorPhases(mesh, users, calls);
    return quality;
  } finally {
    await mesh.stop();
  }
}

/**
 * The same two phases against floor-process.js: servers that only send back an answer the mesh
 * gave, so what is left of a p99 is the machine, Node, the transport and the load client.
 */
async function floorPhases(mesh, users, calls) {
  const { callUnary, createClient, protos } = require('@switchyard/shared');
  const client = createClient(
    protos.recommendation().RecommendationService,
    `127.0.0.1:${mesh.recommendationPort}`,
  );
  const request = { user_id: users[0], num_recommendations: K };
  const grpc = await callUnary(
    'recommendation',
    client.Recommend,
    client,
    request,
    { organization: 'dev', keyId: 'bench', requestId: 'floor' },
    5000,
  );
  client.close();
  const http = JSON.stringify(
    await post(mesh, '/api/v2/ai/recommendations', { userId: users[0], numRecommendations: K }),
  );
  const floor = forkServer('floor-process.js', 'floor process');
  try {
    const { grpcPort, httpUrl, relayUrl } = await floor.request({ answers: { grpc, http } });
    // A fresh process: its JIT and young generation settle over more calls than a warm mesh needs.
    const load = { users, calls, inFlight: IN_FLIGHT, warmUp: 10 * WARM_UP };
    await latencyPhase(
      floor,
      `floor: bare node:http, canned answer`,
      'http-load.js',
      {
        url: httpUrl,
        apiKey: 'floor',
        ...load,
      },
      IN_FLIGHT,
    );
    await latencyPhase(
      floor,
      `floor: bare grpc-js, canned answer`,
      'grpc-load.js',
      {
        address: `127.0.0.1:${grpcPort}`,
        ...load,
      },
      IN_FLIGHT,
    );
    await latencyPhase(
      floor,
      `floor: node:http -> grpc-js, canned answers`,
      'http-load.js',
      {
        url: relayUrl,
        apiKey: 'floor',
        ...load,
      },
      IN_FLIGHT,
    );
  } finally {
    await floor.stop();
  }
}

/** The Recommend handler alone (no transport), 8 in flight, on the EASE model of the first seed. */
async function handlerLatency(train, test, movies) {
  const { InMemoryEventBus, createLogger } = require('@switchyard/shared');
  const {
    createReplica,
    createStores,
  } = require('../../services/recommendation/dist/src/server.js');
  const bus = new InMemoryEventBus();
  const mongodbUri = process.env.BENCH_MONGODB_URI || '';
  const config = loadRecommendationConfig({
    LOG_LEVEL: 'silent',
    RECOMMENDATION_REBUILD_DELAY_MS: '3600000',
    MONGODB_URI: mongodbUri,
    MONGODB_DATABASE: `bench_recommendation_${process.pid}`,
  });
  const logger = createLogger('bench', 'silent');
  const stores = await createStores(config, logger);
  const replica = await createReplica({ config, bus, logger, stores });
  const ctx = { organization: 'bench', keyId: 'bench', requestId: 'bench' };
  // The handlers as the gRPC server calls them: (request, context, control).
  const control = { signal: new AbortController().signal };
  const h = Object.fromEntries(
    Object.entries(replica.handlers).map(([name, handler]) => [
      name,
      (request, context) => handler(request, context, control),
    ]),
  );
  const item = (m) => ({
    item_id: m.itemId,
    catalog: m.catalog,
    title: m.title,
    categories: m.categories,
    attributes_json: JSON.stringify(m.attributes),
    available: true,
    updated_at: '',
  });
  let started = performance.now();
  for (let i = 0; i < movies.length; i += BATCH)
    await h.upsertItems({ items: movies.slice(i, i + BATCH).map(item) }, ctx);
  const itemsMs = performance.now() - started;
  for (let i = 0; i < train.length; i += BATCH) {
    const interactions = train.slice(i, i + BATCH).map((r) => ({
      user_id: r.user,
      item_id: r.item,
      type: 'rating',
      value: r.rating,
      timestamp: new Date(r.ts * 1000).toISOString(),
    }));
    await h.recordInteractions({ interactions }, ctx);
  }
  const ingestMs = performance.now() - started;
  started = performance.now();
  const model = await h.rebuildModel({}, ctx);
  const rebuildMs = performance.now() - started;
  const users = [...groupItemsByUser(test).keys()];
  const request = (i, extra = {}) => ({
    user_id: users[i % users.length],
    num_recommendations: K,
    current_item_id: '',
    catalog: '',
    categories: [],
    max_per_category: 0,
    ...extra,
  });
  const n = users.length * 2;
  console.log(
    `\nthe Recommend handler alone (in-process, no transport; ${mongodbUri ? 'MongoDB stores' : 'in-memory stores'})`,
  );
  console.log(
    `  ingestion ${ingestMs.toFixed(0)} ms (${movies.length} items ${itemsMs.toFixed(0)} ms, ${train.length} interactions ${(ingestMs - itemsMs).toFixed(0)} ms); RebuildModel ${rebuildMs.toFixed(0)} ms (training ${model.training_ms} ms, the rest reading the log and publishing the snapshot)`,
  );
  if (mongodbUri) {
    // Another replica starting: it loads the published snapshot from the store.
    const otherStores = await createStores(config, logger);
    started = performance.now();
    const other = await createReplica({
      config: { ...config, replicaId: 'bench-other' },
      bus,
      logger,
      stores: otherStores,
    });
    console.log(
      `  a second replica starts serving model v${other.deps.models.current('bench')?.data.version} after ${(performance.now() - started).toFixed(0)} ms (snapshot read from the store)`,
    );
    await other.close();
    await otherStores.close();
  }
  printLatency(
    `first call per user (profile and items read from the stores)`,
    await timed(users.length, IN_FLIGHT, (i) => h.recommend(request(i), ctx)),
  );
  printLatency(
    `known user, ${IN_FLIGHT} in flight`,
    await timed(n, IN_FLIGHT, (i) => h.recommend(request(i), ctx)),
  );
  printLatency(
    `known user + currentItemId, ${IN_FLIGHT} in flight`,
    await timed(n, IN_FLIGHT, (i) =>
      h.recommend(request(i, { current_item_id: train[i % train.length].item }), ctx),
    ),
  );
  printLatency(
    `unknown user (popular), ${IN_FLIGHT} in flight`,
    await timed(n, IN_FLIGHT, (i) => h.recommend(request(i, { user_id: `new_${i}` }), ctx)),
  );
  console.log(`  memory with the replica's model loaded: ${memory()}`);
  await replica.close();
  await bus.close();
  if (mongodbUri) {
    const { MongoClient } = require('mongodb');
    const client = await MongoClient.connect(mongodbUri);
    await client.db(config.mongodbDatabase).dropDatabase();
    await client.close();
  }
  await stores.close();
}

async function main() {
  console.log(
    `MovieLens-100k (${DATA_DIR}), node ${process.version}, ${os.cpus().length} cores, load ${load()}${global.gc ? '' : ' (run with --expose-gc for steadier memory figures)'}`,
  );
  const ratings = loadRatings(DATA_DIR);
  const movies = loadMovies();
  const config = loadRecommendationConfig({ LOG_LEVEL: 'silent' });
  console.log(
    `config: EASE lambda ${config.training.easeLambda}; sparse EASE lambda ${config.training.sparseEase.lambda}, ${config.training.sparseEase.neighbours} neighbours, ${config.training.sparseEase.solverSteps} steps, ${config.training.sparseEase.rowLimit} per row; kNN neighbours ${config.training.knnNeighbours}, decay half-life ${config.decayHalfLifeDays || 'off'} (days)`,
  );
  let first;
  for (const seed of SEEDS) {
    const { train, test } = stratifiedSplit(ratings, 0.75, seed);
    first ??= { train, test };
    if (process.env.OFFLINE === '0') break;
    console.log(
      `\nseed ${seed}: train ${train.length}, test ${test.length} (python_stratified_split, ratio 0.75, filter_by item)`,
    );
    for (const algorithm of ['ease', 'sparse_ease', 'item_knn', 'popularity']) {
      const { metrics, trainingMs } = offlineModel(algorithm, train, test, config);
      printMetrics(
        `${algorithm} (offline)`,
        metrics,
        `  trained in ${trainingMs.toFixed(0)} ms (load ${load()})`,
      );
    }
  }
  console.log('\npublished on this protocol (seed 42):');
  for (const [label, ndcg] of PUBLISHED)
    console.log(`  ${label.padEnd(34)} nDCG@10 ${ndcg.toFixed(3)}`);
  if (process.env.HTTP !== '0') await throughHttp(first.train, first.test, movies);
  if (process.env.HANDLER !== '0') await handlerLatency(first.train, first.test, movies);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
