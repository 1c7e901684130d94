/**
 * Preloaded into the fuzzed mesh process (node --require): records, on the server's own clock,
 * when each /healthz probe reached the gateway's JavaScript and when its answer was finished, and
 * every stall of the server's event loop and every GC pause, and writes them to
 * FUZZ_SERVER_TIMING_FILE when the process exits. The fuzzer sets a slow probe against them, so
 * time spent in the server is told apart from the client's own scheduling.
 */
import { writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { epochMs, recordStalls, type ServerTiming } from './timing';

const STALL_TICK_MS = 5;
const STALL_MIN_MS = 5;
const GC_MIN_MS = 1;

const file = process.env.FUZZ_SERVER_TIMING_FILE;
if (file) {
  const timing: ServerTiming = { probes: {}, stalls: [], gcPauses: [] };

  // The request event is where the gateway's code first sees a request.
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (this: http.Server, event: string, ...args: any[]): boolean {
    if (event === 'request') {
      const [request, response] = args as [http.IncomingMessage, http.ServerResponse];
      const probe = request.headers['x-fuzz-probe'];
      if (typeof probe === 'string') {
        const arrivedAt = epochMs();
        response.once('finish', () => (timing.probes[probe] = { arrivedAt, finishedAt: epochMs() }));
      }
    }
    return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
  } as typeof emit;

  recordStalls(timing.stalls, STALL_TICK_MS, STALL_MIN_MS).unref();

  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.duration >= GC_MIN_MS) timing.gcPauses.push({ at: performance.timeOrigin + entry.startTime, ms: entry.duration });
    }
  }).observe({ entryTypes: ['gc'] });

  process.on('exit', () => writeFileSync(file, JSON.stringify(timing)));
}

