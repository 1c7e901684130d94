'use strict';
/**
 * npm run bench:gateway [-- --mode embedded|stack|both] [--duration 5] [--reps 3] [--connections 1,32]
 *                          [--only generate,models,paced] [--calls 100000] [--quick] [--tracing]
 *                          [--paced 200,1000] [--paced-seconds 10] [--hops] [--before <checkout>]
 *
 * What Switchyard adds to a call: each scenario runs alternately straight to a mock
 * OpenAI-compatible upstream and through the gateway, at each concurrency, and the medians of the
 * repetitions are printed with the added latency; the /v1 scenarios also through the floor, a bare
 * node:http -> undici relay. Then the realistic shape ("paced"): that many concurrent streams
 * against an upstream that paces its chunks like a model, straight, through /v1/chat/completions,
 * through the native generate stream and through the floor, one after the other. Portkey's gateway
 * (--peers portkey, the default; installed on demand into a cache folder, see peers.js) takes the
 * /v1 scenarios and the paced streams beside the floor. --quick (without peers) is the
 * CI form (c=8, 2 s, one run; 100 paced streams for 4 s).
 * --tracing turns OpenTelemetry on (OTEL_EXPORTER_OTLP_ENDPOINT at a stand-in collector that only
 * counts what it receives), to measure what tracing costs. --hops (stack mode) prints, per scenario,
 * each process's round trips and time per call in each hop (HTTP, Redis, MongoDB, gRPC, model,
 * Kafka), from the processes' metrics (hops.js). --before <checkout> (embedded) runs a second
 * mesh from another built checkout (e.g. a git worktree of an earlier commit) on the same mock:
 * each scenario and paced run goes to this build, then to that one, back to back, so a before and
 * after share the machine's state. It prints figures and never fails on a time.
 */
const { parseArgs } = require('node:util');
const os = require('node:os');
const path = require('node:path');
const { SCENARIOS, PACED, seed } = require('./scenarios');
const {
  startMockUpstream,
  startFloorRelay,
  startOtlpSink,
  startEmbedded,
  startStack,
  freePort,
} = require('./targets');
const { loadRun, streamRun, median, rssMiB, cpuMs } = require('./measure');
const { pacedRun, burstRun } = require('./paced');
const { startPortkey } = require('./peers');
const hops = require('./hops');

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string', default: 'both' },
    duration: { type: 'string', default: '5' },
    reps: { type: 'string', default: '3' },
    connections: { type: 'string', default: '1,32' },
    only: { type: 'string', default: '' },
    calls: { type: 'string', default: '100000' },
    quick: { type: 'boolean', default: false },
    tracing: { type: 'boolean', default: false },
    hops: { type: 'boolean', default: false },
    paced: { type: 'string', default: '200,1000' },
    // Other gateways in the same run (installed on demand, see peers.js); '' for none.
    peers: { type: 'string', default: 'portkey' },
    'paced-seconds': { type: 'string', default: '10' },
    // Another built checkout measured beside this one (embedded mode), in the same run.
    before: { type: 'string', default: '' },
  },
});
if (args.quick)
  Object.assign(args, {
    duration: '2',
    reps: '1',
    connections: '8',
    calls: '5000',
    paced: '100',
    'paced-seconds': '4',
    peers: '', // CI's quick check measures Switchyard only
  });
const seconds = Number(args.duration);
const reps = Number(args.reps);
const concurrencies = args.connections.split(',').map(Number);
const only = args.only ? args.only.split(',') : undefined;
const scenarios = only ? SCENARIOS.filter((s) => only.includes(s.name)) : SCENARIOS;
const pacedStreams = !only || only.includes('paced') ? args.paced.split(',').map(Number) : [];

const sum = (values) => values.reduce((total, value) => total + value, 0);
/** This process's CPU time so far, in ms: the load generator (autocannon) runs here. */
const benchCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const fmt = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const pad = (text, width) => String(text).padStart(width);

/** A scenario's request to one gateway (some depend on what seed() set up there). */
const gatewayRequest = (scenario, url) =>
  typeof scenario.gateway === 'function' ? scenario.gateway(url) : scenario.gateway;

async function measureScenario(target, upstream, scenario, connections) {
  const run = scenario.stream ? streamRun : loadRun;
  const runs = [];
  let hopChanges;
  let hopCalls = 0;
  for (let rep = 0; rep < reps; rep += 1) {
    const direct = await run(upstream.url, scenario.direct, { connections, seconds });
    const others = { ...target.infraPids, mock: upstream.pid };
    const cpuBefore = cpuMs(target.pids);
    const othersBefore = { ...cpuMs(others), bench: benchCpuMs() };
    const metricsBefore = target.metricsUrls && (await hops.scrape(target.metricsUrls));
    const gateway = await run(target.url, gatewayRequest(scenario, target.url), {
      connections,
      seconds,
    });
    const cpuAfter = cpuMs(target.pids);
    const othersAfter = { ...cpuMs(others), bench: benchCpuMs() };
    const calls = Math.max(1, gateway.count + gateway.non2xx);
    if (metricsBefore) {
      // Scraped after the CPU reading: the scrapes' own CPU is not counted as the calls'.
      const changes = hops.delta(metricsBefore, await hops.scrape(target.metricsUrls));
      hopChanges = hops.accumulate(hopChanges ?? {}, changes);
      hopCalls += calls;
    }
    const perCall = (after, before) =>
      Object.fromEntries(
        Object.keys(after).map((name) => [name, (after[name] - before[name]) / calls]),
      );
    gateway.cpuByProcess = perCall(cpuAfter, cpuBefore);
    gateway.cpuPerCall = sum(Object.values(gateway.cpuByProcess));
    gateway.otherCpuByProcess = perCall(othersAfter, othersBefore);
    // Cores the whole machine's measured processes kept busy: on 2 cores, near 2 means CPU-bound.
    gateway.coresBusy =
      ((gateway.cpuPerCall + sum(Object.values(gateway.otherCpuByProcess))) * gateway.rps) / 1000;
    runs.push({ direct, gateway });
  }
  const m = (pick) => median(runs.map(pick));
  return {
    directRps: m((r) => r.direct.rps),
    rps: m((r) => r.gateway.rps),
    p50: m((r) => r.gateway.p50),
    p99: m((r) => r.gateway.p99),
    added50: m((r) => r.gateway.p50 - r.direct.p50),
    added99: m((r) => r.gateway.p99 - r.direct.p99),
    ttfbAdded50: scenario.stream ? m((r) => r.gateway.ttfb50 - r.direct.ttfb50) : undefined,
    ttfbAdded99: scenario.stream ? m((r) => r.gateway.ttfb99 - r.direct.ttfb99) : undefined,
    cpuPerCall: m((r) => r.gateway.cpuPerCall),
    cpuByProcess: Object.fromEntries(
      Object.keys(runs[0].gateway.cpuByProcess).map((name) => [
        name,
        m((r) => r.gateway.cpuByProcess[name]),
      ]),
    ),
    otherCpuByProcess: Object.fromEntries(
      Object.keys(runs[0].gateway.otherCpuByProcess).map((name) => [
        name,
        m((r) => r.gateway.otherCpuByProcess[name]),
      ]),
    ),
    coresBusy: m((r) => r.gateway.coresBusy),
    failures: runs.reduce((n, r) => n + r.gateway.errors + r.gateway.non2xx, 0),
    hops: hopChanges && { changes: hopChanges, calls: hopCalls },
  };
}

/** Where the CPU went when the mesh is several processes (start:stack). */
function cpuSplit(byProcess) {
  const names = Object.keys(byProcess);
  if (names.length < 2) return '';
  return ` (${names.map((name) => `${name} ${fmt(byProcess[name])}`).join(', ')})`;
}

/** CPU per call outside the mesh: the local servers (stack), the mock upstream and this process (the load generator). */
function otherCpu(r) {
  const parts = Object.entries(r.otherCpuByProcess).map(([name, ms]) => `${name} ${fmt(ms)}`);
  return `  outside the mesh ${parts.join(', ')} ms/call; cores busy ${fmt(r.coresBusy, 1)} of ${os.cpus().length}`;
}

function printRow(scenario, connections, r) {
  const ttfb =
    r.ttfbAdded50 === undefined
      ? ''
      : `  first byte +${fmt(r.ttfbAdded50)} / +${fmt(r.ttfbAdded99)} ms`;
  console.log(
    `${scenario.padEnd(20)} c=${pad(connections, 2)}  ${pad(fmt(r.rps, 0), 6)} RPS (direct ${pad(fmt(r.directRps, 0), 6)})  ` +
      `p50 ${pad(fmt(r.p50), 6)} p99 ${pad(fmt(r.p99), 6)} ms  added p50 +${fmt(r.added50)} p99 +${fmt(r.added99)} ms` +
      `  CPU ${fmt(r.cpuPerCall)} ms/call${cpuSplit(r.cpuByProcess)}${ttfb}${otherCpu(r)}${r.failures ? `  FAILED ${r.failures}` : ''}`,
  );
}

/**
 * RSS of the gateway process after 1k calls, after 10k and after `calls` calls (a leak shows as
 * growth). The first tens of thousands of calls at c=32 also grow V8's heap to the load, so the
 * growth from 10k on is printed too: what keeps growing after the heap has sized itself.
 */
async function measureMemory(target, scenario, calls) {
  if (!target.gatewayPid || calls === 0) return;
  await loadRun(target.url, gatewayRequest(scenario, target.url), {
    connections: 32,
    amount: 1000,
  });
  const early = rssMiB(target.gatewayPid);
  const warmCalls = Math.min(9000, Math.max(0, calls - 1000));
  if (warmCalls > 0)
    await loadRun(target.url, gatewayRequest(scenario, target.url), {
      connections: 32,
      amount: warmCalls,
    });
  const warm = rssMiB(target.gatewayPid);
  const run = await loadRun(target.url, gatewayRequest(scenario, target.url), {
    connections: 32,
    amount: calls - warmCalls,
  });
  const late = rssMiB(target.gatewayPid);
  const growth = (from) => `${fmt(((late - from) / from) * 100, 1)}%`;
  console.log(
    `memory           gateway RSS after 1k calls ${fmt(early, 1)} MiB, after ${warmCalls + 1000} ${fmt(warm, 1)} MiB, after ${calls + 1000} ${fmt(late, 1)} MiB` +
      ` (${growth(early)} from 1k, ${growth(warm)} from ${warmCalls + 1000})${run.non2xx + run.errors ? `  FAILED ${run.non2xx + run.errors}` : ''}`,
  );
}

const percent = (part, whole) => `${fmt((part / whole) * 100, 0)}%`;

/** One paced run's row: first event and whole call against the direct run's, completions, CPU, memory. */
function printPaced(name, streams, r, direct) {
  const rss = Number.isFinite(r.rssPeak)
    ? `  RSS ${fmt(r.rssBefore, 0)} -> peak ${fmt(r.rssPeak, 0)} MiB (${fmt(((r.rssPeak - r.rssBefore) * 1024) / streams, 0)} KiB per stream)`
    : '';
  const added = direct
    ? `first event +${fmt(r.first50 - direct.first50, 1)} / +${fmt(r.first99 - direct.first99, 1)} ms, whole call +${fmt(r.total50 - direct.total50, 1)} / +${fmt(r.total99 - direct.total99, 1)} ms, completed ${r.completed} (${percent(r.completed, direct.completed)} of direct)`
    : `first event ${fmt(r.first50, 1)} / ${fmt(r.first99, 1)} ms, whole call ${fmt(r.total50, 1)} / ${fmt(r.total99, 1)} ms, completed ${r.completed}`;
  const cpu = Number.isFinite(r.cpuPerCall) ? `  CPU ${fmt(r.cpuPerCall)} ms/call` : '';
  console.log(
    `paced ${name.padEnd(16)} ${pad(streams, 4)} streams  ${added}  errors ${r.errors}${cpu}${rss}`,
  );
}

/**
 * The realistic shape, for each number of streams: direct, then each route through the target,
 * then the floor, back to back (same machine state for all), p50 / p99.
 */
async function benchPaced(target, before, upstream, floor, portkey) {
  if (pacedStreams.length === 0) return;
  const window = Number(args['paced-seconds']);
  console.log(
    `\nrealistic shape: streams at once against a model pacing 40 chunks 25 ms apart after 200 ms, ${window} s each`,
  );
  for (const streams of pacedStreams) {
    const options = { streams, seconds: window };
    const direct = await pacedRun(upstream.url, PACED.direct, options);
    printPaced('direct', streams, direct);
    for (const route of PACED.routes) {
      const r = await pacedRun(target.url, route.request, { ...options, pid: target.gatewayPid });
      printPaced(route.name, streams, r, direct);
      if (!before) continue;
      const b = await pacedRun(before.url, route.request, { ...options, pid: before.gatewayPid });
      printPaced('  before', streams, b, direct);
    }
    const viaFloor = await pacedRun(floor.url, PACED.routes[0].request, {
      ...options,
      pid: floor.gatewayPid,
    });
    printPaced('floor relay', streams, viaFloor, direct);
    if (portkey) {
      const viaPortkey = await pacedRun(portkey.url, portkey.request(PACED.direct), {
        ...options,
        pid: portkey.gatewayPid,
      });
      printPaced(portkey.name, streams, viaPortkey, direct);
    }
    await benchBurst(streams, target, before, upstream, floor);
  }
}

/** One burst's row: when the upstream requests left, the first event, CPU per stream. */
function printBurst(name, streams, r) {
  const cpu = Number.isFinite(r.cpuPerStream)
    ? `  CPU per stream ${fmt(r.startCpuPerStream)} ms until the last upstream request, ${fmt(r.cpuPerStream)} ms in all`
    : '';
  console.log(
    `burst ${name.padEnd(16)} ${pad(streams, 4)} streams  upstream requests arrived after ${fmt(r.upstreamFirst, 1)} / ${fmt(r.upstream50, 1)} / ${fmt(r.upstreamLast, 1)} ms (first / p50 / last; ${r.arrived} of ${streams})` +
      `  first event ${fmt(r.first50, 1)} / ${fmt(r.first99, 1)} ms  errors ${r.errors}${cpu}`,
  );
}

/**
 * The start of a call, measured: `streams` paced calls at once, each once (the paced runs above
 * begin this way, and their calls stay nearly in step): when their upstream requests reach the
 * mock shows how long the starts take together (see paced.js burstRun).
 */
async function benchBurst(streams, target, before, upstream, floor) {
  const burst = (url, request, pid) => burstRun(url, request, { streams, pid, upstream });
  printBurst('direct', streams, await burst(upstream.url, PACED.direct));
  for (const route of PACED.routes) {
    printBurst(route.name, streams, await burst(target.url, route.request, target.gatewayPid));
    if (before)
      printBurst('  before', streams, await burst(before.url, route.request, before.gatewayPid));
  }
  printBurst(
    'floor relay',
    streams,
    await burst(floor.url, PACED.routes[0].request, floor.gatewayPid),
  );
}

/** The --before checkout's embedded mesh, on the same mock (undefined without --before). */
async function startBefore(start, upstream) {
  if (!args.before || start !== startEmbedded) return undefined;
  const repo = path.resolve(args.before);
  const before = await startEmbedded(
    upstream.url,
    path.join(os.tmpdir(), 'switchyard-bench-before.log'),
    {},
    { repo },
  );
  // An older build may lack what seed() sets up (teams, scoped keys): its rows that need it fail.
  const seeded = await seed(before.url).then(
    () => '',
    (error) => `; seeding failed (${error.message})`,
  );
  console.log(`before           ${repo} at ${before.url}${seeded}`);
  return before;
}

async function benchTarget(start, upstream, floor, portkey) {
  const hopsOn = args.hops && start === startStack;
  const extraEnv = hopsOn ? await hops.hopsEnv() : {};
  const target = await start(
    upstream.url,
    path.join(os.tmpdir(), `switchyard-bench-${start.name}.log`),
    extraEnv,
  );
  if (hopsOn) target.metricsUrls = hops.metricsUrls(target, Number(extraEnv.METRICS_PORT));
  let before;
  try {
    await seed(target.url);
    before = await startBefore(start, upstream);
    console.log(
      `\n${target.name}: ${target.url} (${seconds} s runs, median of ${reps}, direct and gateway alternating)`,
    );
    for (const scenario of scenarios) {
      for (const connections of concurrencies) {
        const measured = await measureScenario(target, upstream, scenario, connections);
        printRow(scenario.name, connections, measured);
        if (measured.hops)
          hops.printHops(scenario.name, measured.hops.changes, measured.hops.calls);
        if (before)
          printRow(
            '  before',
            connections,
            await measureScenario(before, upstream, scenario, connections),
          );
        if (scenario.floor)
          printRow(
            '  floor relay',
            connections,
            await measureScenario(floor, upstream, scenario, connections),
          );
        if (scenario.floor && portkey)
          printRow(
            `  ${portkey.name}`,
            connections,
            await measureScenario(
              portkey,
              upstream,
              { ...scenario, gateway: portkey.request(scenario.direct) },
              connections,
            ),
          );
      }
    }
    await benchPaced(target, before, upstream, floor, portkey);
    await measureMemory(
      target,
      SCENARIOS.find((s) => s.name === 'generate'),
      Number(args.calls),
    );
  } finally {
    await before?.stop();
    await target.stop();
  }
}

async function main() {
  console.log(
    `bench:gateway on node ${process.version}, ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const upstream = await startMockUpstream();
  const floor = await startFloorRelay(upstream.url);
  const peer = args.peers.split(',').includes('portkey')
    ? await startPortkey(upstream.url, freePort)
    : { skipped: 'not asked for (--peers)' };
  const portkey = peer.skipped ? undefined : peer;
  console.log(
    portkey
      ? `peer             ${portkey.name} at ${portkey.url}`
      : `peer             Portkey skipped: ${peer.skipped}`,
  );
  // The targets take their environment from this process's.
  const sink = args.tracing ? await startOtlpSink() : undefined;
  if (sink) process.env.OTEL_EXPORTER_OTLP_ENDPOINT = sink.url;
  else delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  console.log(`tracing ${sink ? `on (OTLP to ${sink.url})` : 'off'}`);
  try {
    if (args.mode !== 'stack') await benchTarget(startEmbedded, upstream, floor, portkey);
    if (args.mode !== 'embedded') await benchTarget(startStack, upstream, floor, portkey);
  } finally {
    await portkey?.stop();
    await floor.stop();
    await upstream.stop();
    if (sink) {
      const { requests, bytes } = await sink.stats();
      console.log(
        `tracing          ${requests} OTLP exports received, ${fmt(bytes / 1024 / 1024, 1)} MiB`,
      );
      await sink.stop();
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
