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
import { epochMs, recordStalls, threadCpuMs, type ServerTiming } from './timing';

const STALL_TICK_MS = 5;
const STALL_MIN_MS = 5;
const GC_MIN_MS = 1;
/** A stall in which the server's thread ran this long is synchronous work worth naming. */
const HEAVY_CPU_MS = 50;
/** Requests remembered after they finished, to name the ones a stall overlapped. */
const RECENT = 64;

const file = process.env.FUZZ_SERVER_TIMING_FILE;
if (file) {
  const timing: ServerTiming = { probes: {}, stalls: [], gcPauses: [], heavy: [] };
  const active = new Set<RequestSpan>();
  const recent: RequestSpan[] = [];

  // The request event is where the gateway's code first sees a request.
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (
    this: http.Server,
    event: string,
    ...args: any[]
  ): boolean {
    if (event === 'request') {
      const [request, response] = args as [http.IncomingMessage, http.ServerResponse];
      const probe = request.headers['x-fuzz-probe'];
      const arrivedAt = epochMs();
      if (typeof probe === 'string') {
        const arrivedCpu = threadCpuMs();
        response.once(
          'finish',
          () =>
            (timing.probes[probe] = {
              arrivedAt,
              finishedAt: epochMs(),
              cpuMs: threadCpuMs() - arrivedCpu,
            }),
        );
      } else {
        const span: RequestSpan = { what: describeRequest(request), arrivedAt };
        active.add(span);
        response.once('close', () => {
          active.delete(span);
          span.finishedAt = epochMs();
          if (recent.push(span) > RECENT) recent.shift();
        });
      }
    }
    return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
  } as typeof emit;

  // A heavy stall is set against the requests in progress during it: one of them did the work.
  recordStalls(timing.stalls, STALL_TICK_MS, STALL_MIN_MS, (stall) => {
    if ((stall.cpuMs ?? 0) < HEAVY_CPU_MS) return;
    const during = (span: RequestSpan) =>
      span.arrivedAt <= stall.at + stall.ms && (span.finishedAt ?? Infinity) >= stall.at;
    timing.heavy.push({
      ...stall,
      requests: [...active, ...recent].filter(during).map((span) => span.what),
    });
  }).unref();

  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.duration >= GC_MIN_MS)
        timing.gcPauses.push({ at: performance.timeOrigin + entry.startTime, ms: entry.duration });
    }
  }).observe({ entryTypes: ['gc'] });

  process.on('exit', () => writeFileSync(file, JSON.stringify(timing)));
}

interface RequestSpan {
  what: string;
  arrivedAt: number;
  finishedAt?: number;
}

/** The fuzz case (X-Fuzz-Case, set by the fuzzer), method, path and body size: enough to find it again. */
function describeRequest(request: http.IncomingMessage): string {
  const mutation = request.headers['x-fuzz-case'] ?? '?';
  return `${mutation}: ${request.method} ${(request.url ?? '').slice(0, 100)} (${request.headers['content-length'] ?? 'no'} bytes)`;
}
