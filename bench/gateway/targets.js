'use strict';
/**
 * What the gateway benchmark runs against: the mock upstream (a child process), and Switchyard in
 * embedded mode (one process) or as start:stack (five processes), each configured only through
 * its environment with one priced hosted-style model at the mock, and quotas and rate limits on
 * with limits set high (they are part of every real call).
 */
const { fork, spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const REPO = path.resolve(__dirname, '..', '..');
const API_KEY = 'sk_bench_0123456789abcdefghijklmnop';
const ADMIN_TOKEN = 'adm_bench_0123456789abcdefghij';
const MODEL = 'bench-gpt';
/** The same upstream model answering at a real model's pace (see mock-upstream.js). */
const PACED_MODEL = 'bench-paced';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startMockUpstream() {
  const child = fork(path.join(__dirname, 'mock-upstream.js'), [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`mock upstream exited (${code})`)));
  });
  const reply = (message, pick) =>
    new Promise((resolve) => {
      const take = (answer) => {
        if (pick(answer) === undefined) return;
        child.off('message', take);
        resolve(pick(answer));
      };
      child.on('message', take);
      child.send(message);
    });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    /** Starts noting paced requests; resolves when `count` have arrived. */
    expect: (count) => reply({ expect: count }, (answer) => answer.arrived),
    /** When each paced request noted since expect() arrived (hrtime, us). */
    arrivals: () => reply('arrivals', (answer) => answer.arrivals),
    stop: () => stopChild(child),
  };
}

/** The floor: a bare node:http -> undici relay to the mock (floor-relay.js). */
async function startFloorRelay(upstreamUrl) {
  const child = fork(path.join(__dirname, 'floor-relay.js'), [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, UPSTREAM_URL: upstreamUrl },
  });
  const port = await new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`floor relay exited (${code})`)));
  });
  return {
    name: 'floor',
    url: `http://127.0.0.1:${port}`,
    gatewayPid: child.pid,
    pids: { floor: child.pid },
    stop: () => stopChild(child),
  };
}

/** A stand-in OTLP collector (bench:gateway --tracing): answers every export, counts requests and bytes. */
async function startOtlpSink() {
  const child = fork(path.join(__dirname, 'otlp-sink.js'), [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`OTLP sink exited (${code})`)));
  });
  const stats = () =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send('stats');
    });
  return { url: `http://127.0.0.1:${port}`, stats, stop: () => stopChild(child) };
}

/** A hosted-style priced model at the mock (prices make cost and the quota arithmetic real). */
function registry(upstreamUrl) {
  return {
    defaultModel: 'builtin',
    models: [
      { id: 'builtin', provider: 'builtin' },
      {
        id: MODEL,
        provider: 'openai-compatible',
        baseUrl: `${upstreamUrl}/v1`,
        apiKeyEnv: 'BENCH_UPSTREAM_KEY',
        upstreamModel: 'gpt-4o-mini',
        inputPricePerMillion: 0.15,
        outputPricePerMillion: 0.6,
        contextWindow: 128000,
        maxOutputTokens: 4096,
        capabilities: ['generate', 'summarize', 'reformat', 'translate', 'chat'],
        maxConcurrency: 1024,
      },
      {
        id: PACED_MODEL,
        provider: 'openai-compatible',
        baseUrl: `${upstreamUrl}/v1`,
        apiKeyEnv: 'BENCH_UPSTREAM_KEY',
        upstreamModel: 'gpt-4o-mini-paced',
        inputPricePerMillion: 0.15,
        outputPricePerMillion: 0.6,
        contextWindow: 128000,
        maxOutputTokens: 4096,
        capabilities: ['generate', 'chat'],
        maxConcurrency: 4096,
      },
    ],
  };
}

function meshEnv(upstreamUrl) {
  return {
    ...process.env,
    DEV_API_KEY: API_KEY,
    ADMIN_TOKEN,
    BENCH_UPSTREAM_KEY: 'sk-upstream-bench',
    MODEL_REGISTRY_JSON: JSON.stringify(registry(upstreamUrl)),
    // Limits on, set high: every call still reserves quota and counts against the key's limits.
    DEV_MONTHLY_TOKEN_QUOTA: String(1e13),
    DEV_HARD_QUOTA: 'true',
    DEFAULT_RPM: String(1e9),
    DEFAULT_TPM: String(1e12),
    KEY_MAX_CONCURRENT_REQUESTS: '4096',
    METRICS_PORT: '0',
  };
}

async function waitReady(url, child, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null)
      throw new Error(`exited during start (code ${child.exitCode})`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms`);
}

function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Embedded mode is what `npm start` runs on a fresh machine: in-memory adapters, whatever the shell exports. */
function inMemory(env) {
  const { KAFKA_BROKERS: _k, MONGODB_URI: _m, REDIS_URL: _r, ...rest } = env;
  return rest;
}

/**
 * Embedded mode: the whole mesh in one process, as `npm start` runs it; from this checkout's
 * build, or from `repo`'s (another built checkout: bench:gateway --before).
 */
async function startEmbedded(upstreamUrl, logFile, _extraEnv = {}, { repo = REPO } = {}) {
  const port = await freePort();
  const out = fs.openSync(logFile, 'w');
  // BENCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=<dir>", profiles the mesh under load.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [...nodeArgs, path.join(repo, 'deploy', 'embedded', 'dist', 'src', 'index.js')],
    {
      env: { ...inMemory(meshEnv(upstreamUrl)), GATEWAY_PORT: String(port) },
      stdio: ['ignore', out, out],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, child);
  return {
    name: 'embedded',
    url,
    gatewayPid: child.pid,
    pids: { mesh: child.pid },
    stop: () => stopChild(child),
  };
}

/**
 * The servers of deploy/local/infra.sh this run uses, by their pid files (SWITCHYARD_RUN_DIR as
 * infra.sh reads it), so their CPU time per call is counted too. Empty when they are elsewhere.
 */
function localInfraPids() {
  const runDir = process.env.SWITCHYARD_RUN_DIR || path.join(REPO, '.run', 'infra');
  const files = {
    kafka: 'kafka/kafka.pid',
    ferretdb: 'mongo/ferretdb.pid',
    // FerretDB's PostgreSQL: the postmaster's pid is the first line of its pid file
    postgresql: 'mongo/postgresql/data/postmaster.pid',
    redis: 'redis/redis.pid',
  };
  const pids = {};
  for (const [name, file] of Object.entries(files)) {
    const pidFile = path.join(runDir, file);
    const pid = fs.existsSync(pidFile)
      ? Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0].trim())
      : NaN;
    if (Number.isInteger(pid) && pid > 0 && fs.existsSync(`/proc/${pid}`)) pids[name] = pid;
  }
  return pids;
}

const STACK_COMPONENTS = ['gateway', 'content', 'assistant', 'recommendation', 'notification'];

/**
 * start:stack: five processes on loopback; real Kafka/MongoDB/Redis when their variables are set.
 * extraEnv is added to every process, componentEnv[name] to one; the Stack itself is returned too
 * (to kill and restart parts).
 */
async function startStack(
  upstreamUrl,
  logFile,
  extraEnv = {},
  componentEnv = {},
  { notificationReplicas = 1 } = {},
) {
  const { Stack } = require(path.join(REPO, 'deploy', 'stack', 'dist', 'src', 'stack.js'));
  const ports = await Promise.all(
    Array.from({ length: 4 + notificationReplicas }, () => freePort()),
  );
  const log = fs.createWriteStream(logFile);
  // BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=<dir>") goes to the components named in
  // BENCH_NODE_ARGS_FOR (comma-separated; every one when unset) as their NODE_OPTIONS.
  const nodeArgs = process.env.BENCH_NODE_ARGS ?? '';
  const envOf = { ...componentEnv };
  if (nodeArgs)
    for (const name of (process.env.BENCH_NODE_ARGS_FOR || STACK_COMPONENTS.join(',')).split(','))
      envOf[name] = { NODE_OPTIONS: nodeArgs, ...componentEnv[name] };
  const stack = new Stack({
    env: {
      ...meshEnv(upstreamUrl),
      SECRETS_ENCRYPTION_KEY:
        process.env.SECRETS_ENCRYPTION_KEY || Buffer.alloc(32, 7).toString('base64'),
      ...extraEnv,
    },
    componentEnv: envOf,
    gatewayPort: ports[0],
    servicePorts: {
      content: ports[1],
      assistant: ports[2],
      recommendation: ports[3],
      notification: ports[4],
      ...Object.fromEntries(ports.slice(5).map((port, i) => [`notification-${i + 2}`, port])),
    },
    notificationReplicas,
    output: (component, line) => log.write(`${component}: ${line}\n`),
    databasePrefix: process.env.MONGODB_URI ? `bench_${Date.now().toString(36)}` : undefined,
  });
  await stack.startAll();
  await waitReady(stack.gatewayUrl);
  return {
    name: 'stack',
    stack,
    url: stack.gatewayUrl,
    gatewayPid: stack.pidOf('gateway'),
    pids: Object.fromEntries(STACK_COMPONENTS.map((name) => [name, stack.pidOf(name)])),
    infraPids: localInfraPids(),
    stop: async () => {
      await stack.stopAll();
      log.end();
    },
  };
}

module.exports = {
  localInfraPids,
  API_KEY,
  ADMIN_TOKEN,
  MODEL,
  PACED_MODEL,
  freePort,
  meshEnv,
  startMockUpstream,
  startFloorRelay,
  startOtlpSink,
  startEmbedded,
  startStack,
};
