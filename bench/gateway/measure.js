'use strict';
/**
 * Load runs for the gateway benchmark. autocannon drives the load; latencies are taken from its
 * per-response event in float milliseconds (its own histogram keeps whole milliseconds, too coarse
 * for sub-millisecond added latency). Streams are driven by a small keep-alive loop that records
 * the time to the first body byte as well.
 */
const http = require('node:http');
const autocannon = require('autocannon');

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

function summarize(latencies, seconds, errors, non2xx, firstBytes) {
  const sorted = Float64Array.from(latencies).sort();
  const summary = {
    rps: latencies.length / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    errors,
    non2xx,
    count: latencies.length,
  };
  if (firstBytes) {
    const ttfb = Float64Array.from(firstBytes).sort();
    summary.ttfb50 = percentile(ttfb, 50);
    summary.ttfb99 = percentile(ttfb, 99);
  }
  return summary;
}

/** One autocannon run of `request` against `url` at `connections` for `seconds`. */
function loadRun(url, request, { connections, seconds, amount }) {
  const latencies = [];
  let non2xx = 0;
  return new Promise((resolve, reject) => {
    const options = {
      url,
      connections,
      pipelining: 1,
      method: request.method,
      headers: request.headers,
      body: request.body,
      ...(amount ? { amount } : { duration: seconds }),
      ...(request.setupBody
        ? {
            requests: [
              {
                method: request.method,
                path: request.path,
                headers: request.headers,
                setupRequest: (r) => ({ ...r, body: request.setupBody() }),
              },
            ],
          }
        : { path: request.path }),
    };
    if (!request.setupBody) options.url = `${url}${request.path}`;
    const started = process.hrtime.bigint();
    const instance = autocannon(options, (error, result) => {
      if (error) return reject(error);
      const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
      resolve(
        summarize(latencies, amount ? elapsed : seconds, result.errors + result.timeouts, non2xx),
      );
    });
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      else non2xx += 1;
    });
  });
}

/** Streams: `connections` loops of sequential requests; total time and time to first body byte. */
async function streamRun(url, request, { connections, seconds }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL(`${url}${request.path}`);
  const latencies = [];
  const firstBytes = [];
  let errors = 0;
  let non2xx = 0;
  const until = Date.now() + seconds * 1000;
  const one = () =>
    new Promise((resolve) => {
      const started = process.hrtime.bigint();
      const req = http.request(
        target,
        { method: request.method, headers: request.headers, agent },
        (res) => {
          let first;
          res.on('data', () => {
            first ??= Number(process.hrtime.bigint() - started) / 1e6;
          });
          res.on('end', () => {
            if (res.statusCode >= 200 && res.statusCode < 300 && first !== undefined) {
              latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
              firstBytes.push(first);
            } else non2xx += 1;
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors += 1;
        resolve();
      });
      req.end(request.body);
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) await one();
    }),
  );
  agent.destroy();
  return summarize(latencies, seconds, errors, non2xx, firstBytes);
}

function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Resident set size of a process, in MiB (Linux). */
function rssMiB(pid) {
  const status = require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kib / 1024;
}

/**
 * CPU time (user + system) so far of each named process and its live descendants, in ms (Linux;
 * clock ticks of 10 ms). Descendants count because some servers work in child processes
 * (PostgreSQL serves each connection in one).
 */
function cpuMs(pids) {
  const fs = require('node:fs');
  const ticksOf = (pid) => {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      return 0; // ended since it was listed
    }
  };
  const childrenOf = (pid) => {
    try {
      return fs
        .readdirSync(`/proc/${pid}/task`)
        .flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' '))
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  };
  const treeTicks = (pid) =>
    ticksOf(pid) + childrenOf(pid).reduce((sum, child) => sum + treeTicks(child), 0);
  const byName = {};
  for (const [name, pid] of Object.entries(pids)) byName[name] = treeTicks(pid) * 10;
  return byName;
}

module.exports = { loadRun, streamRun, median, percentile, rssMiB, cpuMs };
