#!/usr/bin/env node
'use strict';
/**
 * What a session turn costs the database, by the session's length: the assistant's MongoDB
 * session store (get, then save of the next version) against MONGODB_URI, with the CPU time per
 * operation of FerretDB and its PostgreSQL with its backends (deploy/local/infra.sh's servers,
 * found and counted as bench:gateway does) and of this process (the driver). Prints figures only.
 *
 *   npm run build && eval "$(bash deploy/local/infra.sh env)"
 *   node bench/assistant/session-store.js [--sessions 200] [--turns 1,10,25]
 */
const { parseArgs } = require('node:util');
const { connectMongo } = require('@switchyard/shared');
const { silentLogger } = require('@switchyard/shared/testing');
const { localInfraPids } = require('../gateway/targets');
const { cpuMs } = require('../gateway/measure');
const { MongoSessionStore } = require('../../services/assistant/dist/src/store/sessions/mongo.js');

const { values: args } = parseArgs({
  options: {
    sessions: { type: 'string', default: '200' },
    turns: { type: 'string', default: '1,10,25' },
  },
});
const SESSIONS = Number(args.sessions);

const TEXT = 'Trail shoes built for mud, rock and the long way home. ';
function session(id, turns, version) {
  const now = new Date().toISOString();
  return {
    organization: 'org_bench',
    sessionId: id,
    userId: 'u-bench',
    agent: 'chat',
    messages: Array.from({ length: turns * 2 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `${i}: ${TEXT.repeat(3)}`,
    })),
    memory: { facts: {}, onboarding: { confirmedSteps: [] } },
    createdAt: now,
    updatedAt: now,
    version,
  };
}

async function measure(name, pids, operation) {
  const { ferretdb, postgresql } = pids;
  const before = cpuMs({ ferretdb, postgresql });
  const own = process.cpuUsage();
  for (let i = 0; i < SESSIONS; i++) await operation(i);
  const after = cpuMs({ ferretdb, postgresql });
  const used = process.cpuUsage(own);
  const per = (ms) => (ms / SESSIONS).toFixed(2);
  console.log(
    `${name.padEnd(34)} ferretdb ${per(after.ferretdb - before.ferretdb)} ms  postgresql ${per(after.postgresql - before.postgresql)} ms  driver ${per((used.user + used.system) / 1000)} ms per operation`,
  );
}

async function main() {
  if (!process.env.MONGODB_URI) throw new Error('set MONGODB_URI (deploy/local/infra.sh env)');
  const pids = localInfraPids();
  const connection = await connectMongo(
    process.env.MONGODB_URI,
    `bench_sessions_${Date.now().toString(36)}`,
    silentLogger(),
  );
  const store = new MongoSessionStore(connection.db);
  try {
    for (const turns of args.turns.split(',').map(Number)) {
      // Each session holds `turns` turns at version 1; a turn reads it and saves version 2.
      const id = (i) => `s-${turns}-${i}`;
      await measure(`${turns} turn(s): new session, save`, pids, (i) =>
        store.save(session(id(i), turns, 0)),
      );
      await measure(`${turns} turn(s): get`, pids, (i) => store.get('org_bench', id(i)));
      await measure(`${turns} turn(s): save the next version`, pids, (i) =>
        store.save(session(id(i), turns, 1)),
      );
    }
  } finally {
    await connection.db.dropDatabase();
    await connection.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
