#!/usr/bin/env node
'use strict';
/**
 * node bench/stack/takeover.js [--scenarios restart-1,survivor-2,restart-2] [--observe 15]
 *
 * How long a consumer group's partitions go unserved after a member is killed with SIGKILL, with
 * the group timing of the KAFKA_* variables (KAFKA_SESSION_TIMEOUT_MS, KAFKA_REBALANCE_TIMEOUT_MS,
 * KAFKA_HEARTBEAT_INTERVAL_MS; the defaults when unset), on the Kafka of KAFKA_BROKERS. Members
 * are small processes (group-member.js) consuming the usage topic's 3 partitions through
 * KafkaEventBus, as notification does; an event is published to each partition every 50 ms.
 * Scenarios: restart-1, one member killed and started again at once (a supervisor); survivor-2,
 * two members, one killed and not replaced; restart-2, two members, one killed and started again.
 * Per scenario it prints when the members joined after the kill (and how long JoinGroup took)
 * and, per partition, the longest an event published after the kill waited to be handled: how
 * long the partition went unserved. The process start of a restarted member depends on the
 * machine's load; the rebalance's wait does not (the broker times it).
 * Figures only: it never fails on a time.
 */
const { spawn } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { parseArgs } = require('node:util');
const { REPO, sharedModule } = require('./common');
const shared = require(path.join(REPO, 'shared', 'dist', 'src', 'index.js'));

const { values: args } = parseArgs({
  options: {
    scenarios: { type: 'string', default: 'restart-1,survivor-2,restart-2' },
    observe: { type: 'string', default: '15' },
  },
});
const PARTITIONS = 3;
const PUBLISH_EVERY_MS = 50;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const fmt = (ms) => (ms / 1000).toFixed(2);

/** One organization per partition: the key the default partitioner sends to it. */
function organizationsPerPartition() {
  const { Partitioners } = sharedModule('kafkajs');
  const partitioner = Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: PARTITIONS }, (_, i) => ({
    partitionId: i,
    leader: 0,
  }));
  const found = new Map();
  for (let n = 0; found.size < PARTITIONS; n++) {
    const key = `org_takeover_${n}`;
    const partition = partitioner({ topic: 't', partitionMetadata, message: { key } });
    if (!found.has(partition)) found.set(partition, key);
  }
  return [...found].sort(([a], [b]) => a - b).map(([, key]) => key);
}

/** A member process; records its joins and the events it handled (first time each). */
function startMember(prefix, group, handled) {
  const child = spawn(process.execPath, [path.join(__dirname, 'group-member.js'), prefix, group], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const member = { child, startedAt: Date.now(), joins: [] };
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const entry = JSON.parse(line);
    if (entry.joined) member.joins.push(entry);
    else if (!handled.has(entry.handled)) handled.set(entry.handled, entry.at);
  });
  return member;
}

async function scenario(name, bus, prefix, organizations) {
  const [kind, count] = name.split('-');
  const group = `takeover-${name}-${Date.now()}`;
  const handled = new Map();
  const members = Array.from({ length: Number(count) }, () => startMember(prefix, group, handled));
  const published = [];
  let publishing = true;
  const publisher = (async () => {
    while (publishing) {
      const at = Date.now();
      await Promise.all(
        organizations.map((organization, partition) => {
          const requestId = `${partition}:${at}`;
          published.push({ requestId, partition, at });
          return bus.publish(
            shared.createEvent('usage.recorded', {
              source: 'bench',
              organization,
              data: {
                requestId,
                keyId: 'key_bench',
                route: 'content.generate',
                model: 'builtin',
                tokensInput: 1,
                tokensOutput: 1,
                cost: 0,
                outcome: 'succeeded',
              },
            }),
          );
        }),
      );
      await sleep(Math.max(0, PUBLISH_EVERY_MS - (Date.now() - at)));
    }
  })();
  // Settled: every member joined and every partition served within the last second.
  const settled = () =>
    members.every((m) => m.joins.length > 0) &&
    organizations.every((_, p) =>
      published.some(
        (e) => e.partition === p && e.at > Date.now() - 1500 && handled.has(e.requestId),
      ),
    );
  const deadline = Date.now() + 120_000;
  while (!settled() && Date.now() < deadline) await sleep(100);
  await sleep(2000);

  const killedAt = Date.now();
  members[0].child.kill('SIGKILL');
  if (kind === 'restart') members.push(startMember(prefix, group, handled));
  await sleep(Number(args.observe) * 1000);
  publishing = false;
  await publisher;
  await sleep(1000);
  for (const m of members) m.child.kill('SIGKILL');

  console.log(`\n${name} (load ${load()}):`);
  const replacement = kind === 'restart' ? members.at(-1) : undefined;
  members.forEach((m, i) => {
    if (i === 0) return;
    const who = m === replacement ? 'replacement' : `survivor ${i}`;
    const joins = m.joins.filter((j) => j.joined > killedAt);
    const text = joins
      .map(
        (j) =>
          `+${fmt(j.joined - killedAt)} s (JoinGroup ${fmt(j.joinMs)} s, ${j.partitions} partitions)`,
      )
      .join(', ');
    console.log(`  ${who}: ${text || 'no join'}`);
  });
  const waits = organizations.map((_, p) => {
    const after = published.filter((e) => e.partition === p && e.at >= killedAt);
    const latencies = after.map((e) => (handled.get(e.requestId) ?? Infinity) - e.at);
    return Math.max(...latencies);
  });
  console.log(
    `  longest wait of an event published after the kill, per partition: ${waits.map((w) => `${fmt(w)} s`).join(', ')}; all served again within ${fmt(Math.max(...waits))} s`,
  );
}

async function main() {
  const membership = shared.readKafkaSettings().membership;
  console.log(
    `takeover on ${process.env.KAFKA_BROKERS}: session ${membership.sessionTimeoutMs} ms, rebalance ${membership.rebalanceTimeoutMs} ms, heartbeat ${membership.heartbeatIntervalMs} ms; load ${load()}`,
  );
  const prefix = `takeover${Date.now()}.`;
  const bus = new shared.KafkaEventBus({
    brokers: process.env.KAFKA_BROKERS.split(','),
    clientId: 'takeover-publisher',
    logger: shared.createLogger('takeover', 'warn'),
    topicPrefix: prefix,
  });
  try {
    const organizations = organizationsPerPartition();
    for (const name of args.scenarios.split(',')) await scenario(name, bus, prefix, organizations);
  } finally {
    await bus.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
