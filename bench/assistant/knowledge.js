#!/usr/bin/env node
'use strict';
/**
 * Knowledge-base benchmark of the assistant's retrieval (in memory, no gRPC hop): imports N
 * generated events in batches of 1,000, then times the first query (index build) and repeated
 * filtered queries, and checks every "<tag> in <city> this weekend" answer against a hand filter
 * (exactness, independent of the machine's speed); then "anything for kids?", which reads every
 * description (once per collection version), first and again, against the descriptions written
 * for kids. Prints figures only.
 *
 *   npm run build
 *   node bench/assistant/knowledge.js            # BENCH_EVENTS (default 10000), BENCH_QUERIES (default 200)
 */
const { performance } = require('node:perf_hooks');
const { DataUpdatedPublisher } = require('@switchyard/shared');
const { silentLogger } = require('@switchyard/shared/testing');
const {
  KnowledgeService,
} = require('../../services/assistant/dist/src/knowledge/knowledge-service.js');
const {
  InMemoryKnowledgeStore,
} = require('../../services/assistant/dist/src/store/knowledge/memory.js');
const {
  KnowledgeRetriever,
} = require('../../services/assistant/dist/src/retrieval/knowledge-retriever.js');

const EVENTS = Number(process.env.BENCH_EVENTS || 10_000);
const QUERIES = Number(process.env.BENCH_QUERIES || 200);
const NOW = new Date('2026-11-18T09:00:00Z'); // a Wednesday; "this weekend" = Sat 21 - Sun 22 Nov (UTC)
const CITIES = ['Berlin', 'Hamburg', 'Munich', 'Vienna', 'Zurich', 'Prague', 'Paris', 'Lyon'];
const TAGS = ['concert', 'theatre', 'comedy', 'exhibition', 'festival'];
const DAY = 86_400_000;
/** What a description may add about its audience; only the first is for kids. */
const AUDIENCE_LINES = [
  ' For children and their parents.',
  ' Adults only.',
  ' Not suitable for children.',
  '',
  '',
];

let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (list) => list[Math.floor(random() * list.length)];

function events() {
  const start = NOW.getTime() - 30 * DAY;
  return Array.from({ length: EVENTS }, (_, i) => ({
    id: `ev${i}`,
    fields: {
      title: `Event ${i}`,
      description: `A night of ${pick(['jazz', 'rock', 'poetry', 'dance', 'film'])} with ${pick(['friends', 'guests', 'locals'])}.${pick(AUDIENCE_LINES)}`,
      city: pick(CITIES),
      startsAt: new Date(start + Math.floor(random() * 120) * DAY + 19 * 3600_000).toISOString(),
      price: Math.floor(random() * 80),
      url: `https://tickets.example/ev${i}`,
      tags: [pick(TAGS)],
    },
  }));
}

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main() {
  const store = new InMemoryKnowledgeStore();
  const bus = { publish: async () => undefined };
  const knowledge = new KnowledgeService(
    store,
    new DataUpdatedPublisher(bus, silentLogger(), 'assistant'),
    () => NOW,
  );
  await knowledge.createCollection('org_bench', {
    name: 'events',
    kind: 'events',
    timeZone: 'UTC',
  });
  const all = events();
  let t = performance.now();
  for (let i = 0; i < all.length; i += 1000)
    await knowledge.upsert('org_bench', 'events', all.slice(i, i + 1000));
  const importMs = performance.now() - t;

  const retriever = new KnowledgeRetriever(store, () => NOW);
  t = performance.now();
  await retriever.retrieve({ organization: 'org_bench', text: 'concerts in Berlin this weekend' });
  const firstMs = performance.now() - t;

  const saturday = Date.parse('2026-11-21T00:00:00Z');
  const times = [];
  let exact = 0;
  for (let q = 0; q < QUERIES; q++) {
    const city = pick(CITIES);
    const tag = pick(TAGS);
    t = performance.now();
    const found = await retriever.retrieve({
      organization: 'org_bench',
      text: `${tag} in ${city} this weekend`,
      limit: 1000,
    });
    times.push(performance.now() - t);
    const expected = all
      .filter((e) => e.fields.city === city && e.fields.tags[0] === tag)
      .filter(
        (e) =>
          Date.parse(e.fields.startsAt) >= saturday &&
          Date.parse(e.fields.startsAt) < saturday + 2 * DAY,
      )
      .map((e) => e.id)
      .sort();
    const got = found.results.map((r) => r.doc.id).sort();
    if (JSON.stringify(got) === JSON.stringify(expected)) exact++;
  }
  times.sort((a, b) => a - b);

  const kidsQuery = () =>
    retriever.retrieve({ organization: 'org_bench', text: 'anything for kids?', limit: EVENTS });
  t = performance.now();
  const kids = await kidsQuery();
  const kidsFirstMs = performance.now() - t;
  t = performance.now();
  await kidsQuery();
  const kidsAgainMs = performance.now() - t;
  const kidsExpected = all
    .filter((e) => e.fields.description.endsWith(AUDIENCE_LINES[0]))
    .filter((e) => Date.parse(e.fields.startsAt) >= NOW.getTime())
    .map((e) => e.id)
    .sort();
  const kidsGot = kids.results.map((r) => r.doc.id).sort();

  const mb = (bytes) => (bytes / 1048576).toFixed(0);
  console.log(`events: ${EVENTS}, queries: ${QUERIES}`);
  console.log(
    `import: ${importMs.toFixed(0)} ms (${((EVENTS / importMs) * 1000).toFixed(0)} documents/s, validation + chunking + store)`,
  );
  console.log(`first query (index build): ${firstMs.toFixed(0)} ms`);
  console.log(
    `filtered query: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms`,
  );
  console.log(`exact answers ("<tag> in <city> this weekend" vs hand filter): ${exact}/${QUERIES}`);
  console.log(
    `"anything for kids?": first ${kidsFirstMs.toFixed(0)} ms (every description read), again ${kidsAgainMs.toFixed(1)} ms; ${kidsGot.length} found, ${JSON.stringify(kidsGot) === JSON.stringify(kidsExpected) ? 'exactly' : 'NOT exactly'} the ${kidsExpected.length} described for kids`,
  );
  console.log(`heap used: ${mb(process.memoryUsage().heapUsed)} MB`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
