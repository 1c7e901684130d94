import { parentPort, workerData } from 'node:worker_threads';

/**
 * Runs in its own thread: GET /healthz every intervalMs, each timed on this thread alone, so
 * the fuzz client's own work does not count against the server. Posts the latencies on "stop".
 */
const { url, intervalMs } = workerData as { url: string; intervalMs: number };
const latencies: number[] = [];
const failures: string[] = [];
/** The server's own event-loop delay (prom-client, max since the previous scrape), sampled each second. */
const loopLagMaxMs: number[] = [];
let running = true;
let lastScrape = 0;

async function scrapeLoopLag(): Promise<void> {
  lastScrape = performance.now();
  try {
    const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    const match = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? ([0-9.e+-]+)/m.exec(text);
    if (match) loopLagMaxMs.push(Number(match[1]) * 1000);
  } catch {
    // a missed sample
  }
}

async function probe(): Promise<void> {
  while (running) {
    const start = performance.now();
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5000) });
      await res.arrayBuffer();
      if (res.status !== 200) failures.push(`status ${res.status}`);
    } catch (error) {
      failures.push((error as Error).message);
    }
    latencies.push(performance.now() - start);
    if (performance.now() - lastScrape > 1000) await scrapeLoopLag();
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  parentPort!.postMessage({ latencies, failures, loopLagMaxMs });
}

parentPort!.once('message', () => (running = false));
void probe();
