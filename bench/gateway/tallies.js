#!/usr/bin/env node
/**
 * The gateway's hard-quota tallies (DurableQuota on the MongoDB store) at a steady call rate, as
 * the stack's gateway writes them: each call adds its reservation and then its settlement (build
 * first: `npm run build`; needs MONGODB_URI, e.g. after `eval "$(bash deploy/local/infra.sh env)"`).
 * --before <checkout> runs another built checkout's DurableQuota right after this one's, on the
 * same server, for a before and after in one run.
 *
 * Prints per build: tally writes per second and per call, and CPU per call in this process (less
 * what the same schedule costs without tallies), FerretDB and PostgreSQL (their pids from
 * deploy/local/infra.sh's run directory; CPU in 10 ms ticks, so read it over a few thousand calls).
 * Write counts do not depend on the machine's load; CPU does, a little. Figures only.
 *
 *   node bench/gateway/tallies.js [--rate 216] [--duration 5] [--before <checkout>]
 */
'use strict';
const path = require('node:path');
const { parseArgs } = require('node:util');
const { localInfraPids } = require('./targets');
const { cpuMs } = require('./measure');

const ROOT = path.resolve(__dirname, '../..');
const { values: args } = parseArgs({
  options: {
    rate: { type: 'string', default: '216' },
    duration: { type: 'string', default: '5' },
    before: { type: 'string', default: '' },
  },
});
const RATE = Number(args.rate);
const SECONDS = Number(args.duration);
const ORGANIZATION = 'org_tallies_bench';
const PERIOD = '2026-11';

const processCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** Calls on schedule (open loop), each adding a reservation and its settlement; resolves when all are written. */
async function offer(add) {
  const pending = [];
  const startedAt = Date.now();
  let calls = 0;
  while (Date.now() - startedAt < SECONDS * 1000) {
    const due = Math.floor(((Date.now() - startedAt) / 1000) * RATE);
    for (; calls < due; calls++) pending.push(add(100), add(-40));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  return { calls, seconds: (Date.now() - startedAt) / 1000 };
}

async function measure(repo, db, baselineMs) {
  const { DurableQuota } = require(
    path.join(repo, 'services/gateway/dist/src/metering/durable-quota.js'),
  );
  const { MongoQuotaTallyStore } = require(
    path.join(repo, 'services/gateway/dist/src/store/quota-tallies/mongo.js'),
  );
  const store = new MongoQuotaTallyStore(db);
  let writes = 0;
  const durable = new DurableQuota({
    add: (...batch) => (writes++, store.add(...batch)),
    total: (organization, period) => store.total(organization, period),
  });
  const infra = localInfraPids();
  const servers = { ferretdb: infra.ferretdb, postgresql: infra.postgresql };
  const before = { ...cpuMs(servers), bench: processCpuMs() };
  const { calls, seconds } = await offer((tokens) => durable.add(ORGANIZATION, PERIOD, tokens));
  await durable.close();
  const after = { ...cpuMs(servers), bench: processCpuMs() };
  const perCall = (name) => ((after[name] - before[name]) / calls).toFixed(3);
  const tokens = await store.total(ORGANIZATION, PERIOD);
  console.log(
    `${repo}: ${calls} calls at ${RATE}/s, ${writes} tally writes (${(writes / seconds).toFixed(1)}/s, ` +
      `${(writes / calls).toFixed(3)} per call); CPU per call: this process ` +
      `${((after.bench - before.bench) / calls - baselineMs).toFixed(3)} ms, FerretDB ` +
      `${perCall('ferretdb')} ms, PostgreSQL ${perCall('postgresql')} ms; ` +
      `${tokens === calls * 60 ? 'tallies exact' : `tallies WRONG: ${tokens} of ${calls * 60} tokens`}`,
  );
  await db.collection('quota_tallies').deleteMany({});
}

async function main() {
  if (!process.env.MONGODB_URI)
    throw new Error('MONGODB_URI is not set (see deploy/local/infra.sh env)');
  const shared = require(path.join(ROOT, 'shared/dist/src/index.js'));
  const logger = require(require.resolve('pino', { paths: [path.join(ROOT, 'shared')] }))({
    level: 'silent',
  });
  const connection = await shared.connectMongo(
    process.env.MONGODB_URI,
    `bench_tallies_${Date.now().toString(36)}`,
    logger,
  );
  console.log(
    `tallies on node ${process.version}, load ${require('node:os')
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  try {
    // The schedule's own CPU (timers, promises), taken off each build's figure.
    const startedAt = processCpuMs();
    const idle = await offer(() => Promise.resolve());
    const baselineMs = (processCpuMs() - startedAt) / idle.calls;
    await measure(ROOT, connection.db, baselineMs);
    if (args.before) await measure(path.resolve(args.before), connection.db, baselineMs);
  } finally {
    await connection.db.dropDatabase();
    await connection.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
