import { parentPort, workerData } from 'node:worker_threads';
import { epochMs, recordStalls, type Pause, type ProbeTiming } from './timing';

/**
 * Runs in its own thread: GET /healthz every intervalMs, each timed on this thread alone, so
 * the fuzz client's own work does not count against the server. Each probe carries its id
 * (X-Fuzz-Probe) so the mesh's record (server-timing.ts) can be set against it, and this thread
 * records its own stalls: a slow probe is then split into server time and client scheduling.
 * Posts the timings on "stop".
 */
const { url, intervalMs } = workerData as { url: string; intervalMs: number };
const probes: ProbeTiming[] = [];
const failures: string[] = [];
/** The server's own event-loop delay (prom-client, max since the previous scrape), sampled each second. */
const loopLagMaxMs: number[] = [];
/** This thread's stalls: stretches in which it could not have read an answer. */
const stalls: Pause[] = [];
const STALL_TICK_MS = 5;
let running = true;
let lastScrape = 0;

const ticker = recordStalls(stalls, STALL_TICK_MS, STALL_TICK_MS);

async function scrapeLoopLag(): Promise<void> {
  lastScrape = performance.now();
  try {
    const text = await (
      await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })
    ).text();
    const match = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? ([0-9.e+-]+)/m.exec(text);
    if (match) loopLagMaxMs.push(Number(match[1]) * 1000);
  } catch {
    // a missed sample
  }
}

async function probe(): Promise<void> {
  for (let id = 1; running; id++) {
    const sentAt = epochMs();
    try {
      const res = await fetch(`${url}/healthz`, {
        headers: { 'x-fuzz-probe': String(id) },
        signal: AbortSignal.timeout(5000),
      });
      await res.arrayBuffer();
      if (res.status !== 200) failures.push(`status ${res.status}`);
    } catch (error) {
      failures.push((error as Error).message);
    }
    probes.push({ id, sentAt, answeredAt: epochMs() });
    if (performance.now() - lastScrape > 1000) await scrapeLoopLag();
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  clearInterval(ticker);
  parentPort!.postMessage({ probes, failures, loopLagMaxMs, stalls });
}

parentPort!.once('message', () => (running = false));
void probe();
