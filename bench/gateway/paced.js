'use strict';
/**
 * The realistic shape of LLM traffic: `streams` clients at once, each calling again as soon as its
 * stream ended, for `seconds`, against the paced upstream model. Per call: the time to the first
 * body byte (the first event: every target sends its headers with it) and to the end; calls
 * completed within the window; errors (a refused, failed or broken call). With `pid`, that
 * process's RSS is sampled every 100 ms (its peak) and its CPU time counted.
 */
const http = require('node:http');
const { percentile, rssMiB, cpuMs } = require('./measure');

async function pacedRun(url, request, { streams, seconds, pid }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: streams });
  const target = new URL(`${url}${request.path}`);
  const firstBytes = [];
  const totals = [];
  let errors = 0;
  let completed = 0;
  const started = Date.now();
  const until = started + seconds * 1000;
  const rssBefore = pid ? rssMiB(pid) : NaN;
  let rssPeak = rssBefore;
  let inFlight = 0;
  let inFlightAtPeak = 0;
  const sampler = pid
    ? setInterval(() => {
        const rss = rssMiB(pid);
        if (rss > rssPeak) {
          rssPeak = rss;
          inFlightAtPeak = inFlight;
        }
      }, 100)
    : undefined;
  const cpuBefore = pid ? cpuMs({ target: pid }).target : 0;
  const one = () =>
    new Promise((resolve) => {
      const begin = process.hrtime.bigint();
      inFlight += 1;
      const done = (ok, first) => {
        inFlight -= 1;
        if (!ok) errors += 1;
        else {
          const total = Number(process.hrtime.bigint() - begin) / 1e6;
          firstBytes.push(first);
          totals.push(total);
          if (Date.now() <= until) completed += 1;
        }
        resolve();
      };
      const req = http.request(
        target,
        { method: request.method, headers: request.headers, agent, timeout: 30_000 },
        (res) => {
          let first;
          let text = '';
          res.on('data', (part) => {
            first ??= Number(process.hrtime.bigint() - begin) / 1e6;
            // A stream that broke off ends with an error event (native) or error data (OpenAI).
            if (part.length < 4096) text = (text + part.toString()).slice(-4096);
          });
          res.on('end', () => {
            const broken = /"error"\s*:/.test(text);
            done(res.statusCode === 200 && first !== undefined && !broken, first);
          });
          res.on('error', () => done(false));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => done(false));
      req.end(request.body);
    });
  await Promise.all(
    Array.from({ length: streams }, async () => {
      while (Date.now() < until) await one();
    }),
  );
  if (sampler) clearInterval(sampler);
  agent.destroy();
  const cpu = pid ? cpuMs({ target: pid }).target - cpuBefore : NaN;
  const sortedFirst = Float64Array.from(firstBytes).sort();
  const sortedTotal = Float64Array.from(totals).sort();
  return {
    completed,
    calls: totals.length,
    errors,
    first50: percentile(sortedFirst, 50),
    first99: percentile(sortedFirst, 99),
    total50: percentile(sortedTotal, 50),
    total99: percentile(sortedTotal, 99),
    cpuPerCall: cpu / Math.max(1, totals.length + errors),
    rssBefore,
    rssPeak,
    inFlightAtPeak,
  };
}

/**
 * One burst: `streams` paced calls at once, once each. What it measures is the start of a call
 * (every stream's work before its upstream request): when the upstream requests reached the mock
 * after the burst began (first, p50, last), the first event's p50 / p99, and with `pid` the
 * process's CPU time per stream until the last upstream request arrived (the start's work, plus
 * any chunks of streams already answering) and over the whole burst.
 */
async function burstRun(url, request, { streams, pid, upstream }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: streams });
  const target = new URL(`${url}${request.path}`);
  const cpuBefore = pid ? cpuMs({ target: pid }).target : 0;
  let startCpu = NaN;
  const allArrived = upstream.expect(streams).then(() => {
    if (pid) startCpu = cpuMs({ target: pid }).target - cpuBefore;
  });
  const begin = process.hrtime.bigint();
  const firstBytes = [];
  let errors = 0;
  await Promise.all(
    Array.from(
      { length: streams },
      () =>
        new Promise((resolve) => {
          const req = http.request(
            target,
            { method: request.method, headers: request.headers, agent, timeout: 30_000 },
            (res) => {
              res.once('data', () =>
                firstBytes.push(Number(process.hrtime.bigint() - begin) / 1e6),
              );
              res.on('end', resolve);
              res.on('error', resolve);
              if (res.statusCode !== 200) errors += 1;
              res.resume();
            },
          );
          req.on('timeout', () => req.destroy(new Error('timeout')));
          req.on('error', () => {
            errors += 1;
            resolve();
          });
          req.end(request.body);
        }),
    ),
  );
  // Every stream has ended, so every upstream request that will arrive has.
  await Promise.race([allArrived, new Promise((resolve) => setTimeout(resolve, 100))]);
  const wholeCpu = pid ? cpuMs({ target: pid }).target - cpuBefore : NaN;
  agent.destroy();
  const startUs = Number(begin / 1000n);
  const arrivals = Float64Array.from(
    await upstream.arrivals(),
    (at) => (at - startUs) / 1000,
  ).sort();
  const sortedFirst = Float64Array.from(firstBytes).sort();
  return {
    errors,
    arrived: arrivals.length,
    upstreamFirst: arrivals[0],
    upstream50: percentile(arrivals, 50),
    upstreamLast: arrivals[arrivals.length - 1],
    first50: percentile(sortedFirst, 50),
    first99: percentile(sortedFirst, 99),
    startCpuPerStream: startCpu / streams,
    cpuPerStream: wholeCpu / streams,
  };
}

module.exports = { pacedRun, burstRun };
