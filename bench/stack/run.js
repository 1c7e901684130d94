#!/usr/bin/env node
'use strict';
/**
 * npm run bench:stack [-- --duration 300] [--rate 100] [--faults content,assistant,recommendation,notification,gateway,kafka|none]
 *                        [--burst 20000] [--only soak|burst] [--quick] [--root <build to measure in burst>]
 *                        [--notification-replicas 1]
 *
 * Soak and fault bench of the distributed stack (start:stack on real Kafka, MongoDB/FerretDB and
 * Redis from the environment: KAFKA_BROKERS, MONGODB_URI, REDIS_URL). A mixed load at a fixed rate
 * (see load.js) runs for --duration seconds; at evenly spaced times each --faults entry is
 * applied: a service is killed with SIGKILL and started again (as a supervisor would), or Kafka
 * is restarted with deploy/local/infra.sh restart-kafka. Then it prints: lost and duplicated
 * callbacks, usage reconciliation per request id (the usage.recorded events on the bus and GET
 * /api/v2/usage against the 2xx answers), 5xx and failed calls with the recovery time per fault,
 * ledger lag p50/p95/max, events/s into the ledger and callback p50/p95, against the targets.
 * The burst (bench/stack/burst.js) measures usage ingestion alone.
 *
 * The Kafka restart acts on the infrastructure of deploy/local/infra.sh with the current
 * environment: run it only on a private instance (other ports and SWITCHYARD_RUN_DIR), never the
 * shared one; without SWITCHYARD_RUN_DIR set the kafka fault is skipped.
 * --notification-replicas n: n notification processes; a notification fault kills the first (and
 * starts it again), the others take its partitions over: the timeline shows each one's rejoin.
 * --quick (CI): 30 s at 40 calls/s, one notification kill, a 5,000-event burst.
 * Figures only: it never fails on a time.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { AUTH, seed } = require('../gateway/scenarios');
const { startMockUpstream, startStack } = require('../gateway/targets');
const { REPO, sharedModule, percentileOf } = require('./common');
const { Topics } = require(path.join(REPO, 'shared', 'dist', 'src', 'index.js'));
const { startCallbackReceiver } = require('./receiver');
const { runLoad } = require('./load');
const { runBurst } = require('./burst');

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '300' },
    rate: { type: 'string', default: '100' },
    faults: {
      type: 'string',
      default: 'content,assistant,recommendation,notification,gateway,kafka',
    },
    burst: { type: 'string', default: '20000' },
    only: { type: 'string', default: '' },
    drain: { type: 'string', default: '120' },
    root: { type: 'string', default: REPO },
    quick: { type: 'boolean', default: false },
    'notification-replicas': { type: 'string', default: '1' },
  },
});
if (args.quick)
  Object.assign(args, {
    duration: '30',
    rate: '40',
    faults: 'notification',
    burst: '5000',
    drain: '60',
  });
const TARGETS = { ledgerLagP95S: 5, callbackP95Ms: 1000, burstEventsPerS: 2000, recoveryS: 5 };

const fmt = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function requireInfra() {
  for (const name of ['KAFKA_BROKERS', 'MONGODB_URI', 'REDIS_URL']) {
    if (!process.env[name])
      throw new Error(
        `${name} is not set: start a private infrastructure and eval its env (see docs/benchmarks.md, "Soak and faults")`,
      );
  }
}

function restartKafka() {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(REPO, 'deploy', 'local', 'infra.sh'), 'restart-kafka'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`restart-kafka exited ${code}`)),
    );
  });
}

/** Applies a fault; returns when the component was gone (exitedS) and ready again (restartS), in s from the fault. */
async function applyFault(stack, name) {
  const t0 = performance.now();
  let exitedS = NaN;
  if (name === 'kafka') await restartKafka();
  else {
    await stack.stop(name, 'SIGKILL');
    exitedS = (performance.now() - t0) / 1000;
    await stack.start(name);
  }
  return { exitedS, restartS: (performance.now() - t0) / 1000 };
}

/**
 * What the restarted process logged about its consumer groups (notification logs at info in this
 * bench): each group's join (with how long JoinGroup took) and first batch, in performance.now() ms.
 */
function groupMilestones(logFile, component, fromMs) {
  const milestones = [];
  let text;
  try {
    text = fs.readFileSync(logFile, 'utf8');
  } catch {
    return milestones;
  }
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${component}: {`)) continue;
    let entry;
    try {
      entry = JSON.parse(line.slice(component.length + 2));
    } catch {
      continue;
    }
    const at = Date.parse(entry.time) - performance.timeOrigin;
    if (!(at >= fromMs)) continue;
    if (entry.msg === 'joined the consumer group')
      milestones.push({
        at,
        what: `${entry.group} joined (JoinGroup ${fmt(entry.joinMs / 1000, 1)} s, ${entry.partitions} partitions)`,
      });
    else if (entry.msg === 'first batch since joining')
      milestones.push({
        at,
        what: `${entry.group} first batch (${entry.topic}, lag ${entry.offsetLag})`,
      });
  }
  return milestones;
}

/**
 * The recovery of one killed service, step by step from the kill: gone, ready, each consumer
 * group joined and its first batch, the first result callback and data webhook received after
 * the kill, and when the callbacks accepted before it was ready had all arrived.
 */
function printTimeline(fault, { logFile, receiver, answered }) {
  const steps = [
    { at: fault.at + fault.exitedS * 1000, what: 'process gone (SIGKILL)' },
    { at: fault.at + fault.restartS * 1000, what: 'process ready again' },
    ...groupMilestones(logFile, fault.name, fault.at),
    // The other notification replicas, which take the killed one's partitions over.
    ...(fault.name === 'notification' ? survivors() : []).flatMap((name) =>
      groupMilestones(logFile, name, fault.at).map((m) => ({ ...m, what: `${name}: ${m.what}` })),
    ),
  ];
  const after = (times) => times.filter((t) => t > fault.at);
  const firstOf = (map) => Math.min(...[...map.values()].flatMap((t) => after(t)));
  const firstCallback = firstOf(receiver.arrivals.results);
  if (Number.isFinite(firstCallback))
    steps.push({ at: firstCallback, what: 'first result callback received' });
  const firstWebhook = firstOf(receiver.arrivals.events);
  if (Number.isFinite(firstWebhook))
    steps.push({ at: firstWebhook, what: 'first data_updated webhook received' });
  const readyAt = fault.at + fault.restartS * 1000;
  const waiting = [...answered].filter(([, t]) => t <= readyAt).map(([id]) => id);
  const caughtUp = Math.max(
    ...waiting.map((id) => receiver.arrivals.results.get(id)?.[0] ?? Infinity),
  );
  if (waiting.length > 0)
    steps.push({
      at: caughtUp,
      what: `every callback accepted before it was ready has arrived (${waiting.filter((id) => (receiver.arrivals.results.get(id)?.[0] ?? 0) > fault.at).length} were waiting)`,
    });
  console.log(`    timeline after the kill (s):`);
  for (const step of steps.filter((s) => Number.isFinite(s.at)).sort((a, b) => a.at - b.at))
    console.log(`      +${fmt((step.at - fault.at) / 1000, 2).padStart(6)}  ${step.what}`);
}

async function usageCalls(url) {
  const response = await fetch(`${url}/api/v2/usage`, {
    headers: { authorization: AUTH.authorization },
    signal: AbortSignal.timeout(5000),
  });
  if (!response.ok) throw new Error(`usage ${response.status}`);
  return response.json();
}

/** Every usage.recorded event on the bus (the stack's topic prefix), by request id. */
async function usageEventsByRequest(prefix) {
  const { Kafka, logLevel } = sharedModule('kafkajs');
  const kafka = new Kafka({
    brokers: process.env.KAFKA_BROKERS.split(','),
    clientId: `${prefix}reader`,
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  const topic = `${prefix}${Topics.usage}`;
  const end = (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0);
  await admin.disconnect();
  const consumer = kafka.consumer({ groupId: `${prefix}reader` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const byRequest = new Map();
  let read = 0;
  await consumer.run({
    eachMessage: async ({ message }) => {
      read++;
      const event = JSON.parse(message.value.toString());
      if (event.type !== 'usage.recorded') return;
      const ids = byRequest.get(event.data.requestId) ?? new Map();
      ids.set(event.id, event.data.tokensInput + event.data.tokensOutput);
      byRequest.set(event.data.requestId, ids);
    },
  });
  const deadline = Date.now() + 60_000;
  while (read < end && Date.now() < deadline) await sleep(200);
  await consumer.disconnect();
  return byRequest;
}

/**
 * Ledger lag at each sample: how long ago the oldest billable answer the ledger does not count
 * yet was given (0 when it counts them all). Answers are sync 2xx at their answer time and async
 * calls at their callback's arrival (they are billed when the work completes).
 */
function ledgerLags(samples, billedAt) {
  const times = [...billedAt].sort((a, b) => a - b);
  return samples.map(({ at, calls }) => {
    const due = times.filter((t) => t <= at);
    return calls >= due.length ? 0 : (at - due[calls]) / 1000;
  });
}

/** The notification replicas beyond the first. */
function survivors() {
  const count = Number(args['notification-replicas']);
  return Array.from({ length: count - 1 }, (_, i) => `notification-${i + 2}`);
}

async function soak() {
  const rate = Number(args.rate);
  const durationS = Number(args.duration);
  const run = `stackbench_${Date.now().toString(36)}`;
  const faults = args.faults
    .split(',')
    .filter((f) => f && f !== 'none')
    .filter((f) => {
      if (f !== 'kafka' || process.env.SWITCHYARD_RUN_DIR) return true;
      console.log(
        'kafka fault skipped: SWITCHYARD_RUN_DIR is not set (restart Kafka only on a private infrastructure)',
      );
      return false;
    });
  const logFile = path.join(os.tmpdir(), `${run}.log`);
  const upstream = await startMockUpstream();
  const receiver = await startCallbackReceiver();
  const prefix = `${run}.`;
  const target = await startStack(
    upstream.url,
    logFile,
    {
      KAFKA_TOPIC_PREFIX: prefix,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_REQUIRE_HTTPS: 'false',
      // STACK_LOG_LEVEL=info: each consumer's group joins and first batches (recovery per step).
      LOG_LEVEL: process.env.STACK_LOG_LEVEL ?? 'warn',
    },
    {
      // Notification's group joins and first batches give the recovery timeline after its kill.
      notification: { LOG_LEVEL: process.env.STACK_LOG_LEVEL ?? 'info' },
    },
    { notificationReplicas: Number(args['notification-replicas']) },
  );
  const { stack, url } = target;
  try {
    await seed(url);
    const hook = await fetch(`${url}/api/webhooks`, {
      method: 'POST',
      headers: AUTH,
      body: JSON.stringify({ event: 'data_updated', url: `${receiver.url}/data` }),
    });
    if (!hook.ok)
      throw new Error(`registering the data_updated webhook: ${hook.status} ${await hook.text()}`);
    const baseline = Number((await usageCalls(url)).calls);
    console.log(
      `soak: ${durationS} s at ${rate} billable calls/s (+10% data uploads), faults ${faults.join(', ') || 'none'}, ${args['notification-replicas']} notification replica(s); log ${logFile}; load ${load()}`,
    );
    const faultAt = faults.map((name, i) => ({
      name,
      atS: Math.round((durationS * (i + 1)) / (faults.length + 1)),
    }));
    const applied = [];
    const samples = [];
    let faulting = Promise.resolve();
    const { answers, startedAt } = await runLoad({
      url,
      callbackUrl: receiver.url,
      ratePerS: rate,
      durationS,
      onTick: async (second) => {
        for (const fault of faultAt.filter((f) => f.atS === second)) {
          faulting = faulting.then(async () => {
            const at = performance.now();
            const times = await applyFault(stack, fault.name).catch(
              (error) => (
                console.log(`fault ${fault.name}: ${error.message}`),
                { exitedS: NaN, restartS: NaN }
              ),
            );
            applied.push({ ...fault, at, ...times });
          });
        }
        try {
          samples.push({
            at: performance.now(),
            calls: Number((await usageCalls(url)).calls) - baseline,
          });
        } catch {
          // gateway or notification down: no sample this second
        }
      },
    });
    await faulting;
    // Drain: callbacks and the ledger catch up.
    const asyncIds = new Set(
      answers.filter((a) => a.kind === 'async' && a.status === 202).map((a) => a.requestId),
    );
    const billableOk = answers.filter(
      (a) => a.kind !== 'data' && a.kind !== 'async' && a.status >= 200 && a.status < 300,
    );
    const drainUntil = performance.now() + Number(args.drain) * 1000;
    let last = NaN;
    while (performance.now() < drainUntil) {
      try {
        last = Number((await usageCalls(url)).calls) - baseline;
        samples.push({ at: performance.now(), calls: last });
      } catch {
        // retry
      }
      const callbacksIn = [...asyncIds].every((id) => receiver.arrivals.results.has(id));
      if (callbacksIn && last >= billableOk.length + asyncIds.size) break;
      await sleep(1000);
    }
    const byRequest = await usageEventsByRequest(prefix);
    const report = await fetchFinal(url, baseline);
    printSoak({
      answers,
      applied,
      samples,
      receiver,
      asyncIds,
      billableOk,
      byRequest,
      report,
      startedAt,
      durationS,
      rate,
      logFile,
    });
  } finally {
    await target.stop();
    await receiver.close();
    await upstream.stop();
  }
}

async function fetchFinal(url, baseline) {
  const usage = await usageCalls(url);
  return { calls: Number(usage.calls) - baseline, used: Number(usage.used) };
}

function printSoak({
  answers,
  applied,
  samples,
  receiver,
  asyncIds,
  billableOk,
  byRequest,
  report,
  startedAt,
  durationS,
  rate,
  logFile,
}) {
  const byKind = new Map();
  for (const a of answers) {
    const k = byKind.get(a.kind) ?? { sent: 0, ok: 0, s5xx: 0, s4xx: 0, failed: 0 };
    k.sent++;
    if (a.status >= 200 && a.status < 300) k.ok++;
    else if (a.status >= 500) k.s5xx++;
    else if (a.status >= 400) k.s4xx++;
    else k.failed++;
    byKind.set(a.kind, k);
  }
  console.log(`\nanswers (load ${load()}):`);
  for (const [kind, k] of byKind)
    console.log(
      `  ${kind.padEnd(10)} sent ${k.sent}  2xx ${k.ok}  4xx ${k.s4xx}  5xx ${k.s5xx}  no answer ${k.failed}`,
    );

  // Callbacks: every 202 exactly one result callback.
  const results = receiver.arrivals.results;
  const lost = [...asyncIds].filter((id) => !results.has(id)).length;
  const duplicated = [...asyncIds].filter((id) => (results.get(id)?.length ?? 0) > 1).length;
  const answered = new Map(
    answers.filter((a) => a.kind === 'async' && a.status === 202).map((a) => [a.requestId, a.t1]),
  );
  const callbackMs = [...asyncIds]
    .filter((id) => results.has(id))
    .map((id) => results.get(id)[0] - answered.get(id));
  console.log(
    `callbacks: ${asyncIds.size} accepted (202), lost ${lost}, duplicated ${duplicated}; 202 -> callback p50 ${fmt(percentileOf(callbackMs, 50))} ms, p95 ${fmt(percentileOf(callbackMs, 95))} ms (target < ${TARGETS.callbackP95Ms}), max ${fmt(percentileOf(callbackMs, 100))} ms`,
  );
  // Per 5 s of acceptance: a fault's backlog shows as the buckets after it.
  const buckets = new Map();
  for (const id of [...asyncIds].filter((id) => results.has(id))) {
    const bucket = Math.floor((answered.get(id) - startedAt) / 5000) * 5;
    buckets.set(bucket, [...(buckets.get(bucket) ?? []), results.get(id)[0] - answered.get(id)]);
  }
  console.log(
    `  by acceptance time (s: p50/p95 ms): ${[...buckets]
      .sort((a, b) => a[0] - b[0])
      .map(([at, ms]) => `${at}: ${fmt(percentileOf(ms, 50))}/${fmt(percentileOf(ms, 95))}`)
      .join(', ')}`,
  );
  const dataOk = answers.filter(
    (a) => a.kind === 'data' && a.status >= 200 && a.status < 300,
  ).length;
  const dataIds = receiver.arrivals.events;
  const dataDup = [...dataIds.values()].filter((t) => t.length > 1).length;
  console.log(
    `data events: ${dataOk} uploads answered 2xx, ${dataIds.size} data_updated webhooks received (${dataDup} duplicated)`,
  );

  // Usage per request id: each 2xx billable answer has exactly one usage.recorded event.
  const okIds = [...billableOk.map((a) => a.requestId), ...asyncIds];
  const missing = okIds.filter((id) => !byRequest.has(id)).length;
  const doubled = okIds.filter((id) => (byRequest.get(id)?.size ?? 0) > 1).length;
  const okSet = new Set(okIds);
  const withoutOk = [...byRequest.keys()].filter((id) => !okSet.has(id)).length;
  const events = [...byRequest.values()].reduce((sum, ids) => sum + ids.size, 0);
  console.log(
    `usage: ${okIds.length} billable 2xx/202 answers; usage events for them: missing ${missing}, billed twice ${doubled}; ` +
      `billed without a 2xx (work done, answer lost) ${withoutOk}; ledger (GET /api/v2/usage) counts ${report.calls} calls for ${events} distinct usage events ${report.calls === events ? '(exact)' : '(MISMATCH)'}`,
  );

  // Faults: failures from the fault to the last failure before the next one.
  console.log('faults:');
  const ordered = [...applied].sort((a, b) => a.at - b.at);
  ordered.forEach((fault, i) => {
    const until = ordered[i + 1]?.at ?? Infinity;
    const failed = answers.filter(
      (a) => a.t1 >= fault.at && a.t1 < until && (a.status >= 500 || a.status === 0),
    );
    const recoveryS = failed.length ? (Math.max(...failed.map((a) => a.t1)) - fault.at) / 1000 : 0;
    console.log(
      `  ${fault.name.padEnd(15)} at ${fault.atS} s: back (ready) after ${fmt(fault.restartS, 1)} s; ${failed.filter((a) => a.status >= 500).length} 5xx and ${failed.filter((a) => a.status === 0).length} unanswered; last failure ${fmt(recoveryS, 1)} s after the fault (target <= ${TARGETS.recoveryS})`,
    );
    if (fault.name === 'notification') printTimeline(fault, { logFile, receiver, answered });
  });

  // Ledger lag and ingestion.
  const billedAt = [
    ...billableOk.map((a) => a.t1),
    ...[...asyncIds].filter((id) => results.has(id)).map((id) => results.get(id)[0]),
  ];
  const lags = ledgerLags(samples, billedAt);
  console.log(
    `ledger lag: p50 ${fmt(percentileOf(lags, 50), 1)} s, p95 ${fmt(percentileOf(lags, 95), 1)} s (target < ${TARGETS.ledgerLagP95S}), max ${fmt(percentileOf(lags, 100), 1)} s over ${lags.length} samples`,
  );
  const during = samples.filter((s) => s.at - startedAt <= durationS * 1000);
  const span = during.length > 1 ? (during[during.length - 1].at - during[0].at) / 1000 : NaN;
  const into = during.length > 1 ? (during[during.length - 1].calls - during[0].calls) / span : NaN;
  console.log(
    `into the ledger during the load: ${fmt(into, 1)} events/s (offered ${rate} billable calls/s)`,
  );
}

async function main() {
  requireInfra();
  console.log(
    `bench:stack on ${process.env.KAFKA_BROKERS} / ${process.env.MONGODB_URI} / ${process.env.REDIS_URL}; ${os.cpus().length} cores, load ${load()}`,
  );
  if (args.only !== 'burst') await soak();
  if (args.only !== 'soak') {
    const result = await runBurst({ root: args.root, events: Number(args.burst) });
    console.log(
      `burst ingestion: ${fmt(result.eventsPerSecond)} events/s (target >= ${TARGETS.burstEventsPerS}); load ${load()}`,
    );
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
