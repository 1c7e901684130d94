'use strict';
/**
 * What the recommendation benchmarks share (movielens.js, scale.js): server processes forked
 * with IPC, load clients in their own processes, latency phases with the server's own figures.
 */
const os = require('node:os');
const path = require('node:path');

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

function memory() {
  if (global.gc) global.gc();
  const m = process.memoryUsage();
  return `rss ${mb(m.rss)}, heap ${mb(m.heapUsed)}, arrayBuffers ${mb(m.arrayBuffers)}`;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function printLatency(label, latencies) {
  console.log(
    `  ${label.padEnd(44)} n ${latencies.length}  p50 ${percentile(latencies, 50).toFixed(3)} ms  p99 ${percentile(latencies, 99).toFixed(3)} ms  max ${latencies[latencies.length - 1].toFixed(3)} ms  (load ${load()})`,
  );
}

/** Runs a load client script (http-load.js, grpc-load.js) in its own process; resolves its sorted latencies. */
function loadFromChildProcess(script, input) {
  const { execFile } = require('node:child_process');
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [path.join(__dirname, script)],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout))),
    );
    child.stdin.end(JSON.stringify(input));
  });
}

/**
 * A server script in its own process (mesh-process.js, floor-process.js), named in the phase
 * figures; next() is its next IPC message, request(message) sends one and waits for the answer.
 */
function forkServer(script, name, env = process.env) {
  const { fork } = require('node:child_process');
  const child = fork(path.join(__dirname, script), {
    env,
    execArgv: ['--expose-gc', ...(process.env.MESH_NODE_ARGS || '').split(' ').filter(Boolean)],
  });
  const replies = [];
  const waiting = [];
  let exited;
  child.on('message', (message) =>
    waiting.length > 0 ? waiting.shift().resolve(message) : replies.push(message),
  );
  child.once('exit', (code) => {
    exited = new Error(`${script} exited with ${code}`);
    for (const waiter of waiting.splice(0)) waiter.reject(exited);
  });
  const next = () =>
    new Promise((resolve, reject) => {
      if (replies.length > 0) resolve(replies.shift());
      else if (exited) reject(exited);
      else waiting.push({ resolve, reject });
    });
  return {
    name,
    pid: child.pid,
    next,
    request: (message) => (child.send(message), next()),
    stop: () => new Promise((resolve) => (child.once('exit', resolve), child.send({ stop: true }))),
  };
}

/** One latency phase: the client in its own process, the server's CPU time, loop delay and GC pauses during it. */
async function latencyPhase(server, label, script, input, inFlight) {
  await server.request({ reset: true });
  const latencies = await loadFromChildProcess(script, input);
  const { stats } = await server.request({ stats: true });
  printLatency(label, latencies);
  const { cpuMs, systemMs, loopDelay, gc } = stats;
  const cpuPerCallMs = cpuMs / (latencies.length + input.warmUp);
  // With inFlight calls always waiting on one event loop, each waits for the others' CPU time.
  console.log(
    `  ${''.padEnd(44)} ${server.name}: CPU ${(cpuPerCallMs * 1000).toFixed(0)} us/call (${Math.round((100 * systemMs) / cpuMs)}% in the kernel; so ${inFlight} in flight on one event loop wait about ${(inFlight * cpuPerCallMs).toFixed(1)} ms each), ` +
      `event-loop delay p99 ${loopDelay.p99.toFixed(1)} ms max ${loopDelay.max.toFixed(1)} ms, GC ${gc.count} pauses, ${gc.totalMs.toFixed(0)} ms in all, max ${gc.maxMs.toFixed(1)} ms, ` +
      `promoted ${(gc.promotedBytes / Math.max(1, gc.scavenges) / 1e6).toFixed(2)} MB per scavenge (${(gc.promotedBytes / (latencies.length + input.warmUp) / 1000).toFixed(1)} KB per call)`,
  );
}

/** A latency phase of POST /api/v2/ai/recommendations through the mesh's gateway (http-load.js). */
function gatewayPhase(mesh, label, { users, calls, warmUp }, inFlight) {
  const input = { url: mesh.gatewayUrl, apiKey: mesh.apiKey, users, calls, inFlight, warmUp };
  return latencyPhase(mesh, label, 'http-load.js', input, inFlight);
}

async function post(mesh, route, body) {
  const response = await fetch(`${mesh.gatewayUrl}${route}`, {
    method: 'POST',
    headers: { authorization: `X-API-Key ${mesh.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (response.status !== 200)
    throw new Error(`${route}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

module.exports = {
  load,
  mb,
  memory,
  percentile,
  printLatency,
  loadFromChildProcess,
  forkServer,
  latencyPhase,
  gatewayPhase,
  post,
};
