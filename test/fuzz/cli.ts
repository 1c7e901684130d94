import * as os from 'node:os';
import { runFuzz } from './run';

function option(name: string): number | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : Number(process.argv[index + 1]);
}

/**
 * npm run fuzz [-- --requests 10000] [--seed N] [--concurrency 8] [--max-seconds S]
 * Prints the figures and every finding; exits 1 when there is one.
 */
async function main(): Promise<void> {
  const requests = option('requests') ?? 10_000;
  const maxSeconds = option('max-seconds');
  const load = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(`fuzz: ${requests} requests, load average ${load()} on ${os.cpus().length} cores`);
  const report = await runFuzz({
    requests,
    seed: option('seed'),
    concurrency: option('concurrency'),
    maxDurationMs: maxSeconds && maxSeconds * 1000,
  });
  console.log(
    `seed ${report.seed}: ${report.sent} requests (${report.raw} raw-socket) in ${(report.durationMs / 1000).toFixed(1)} s; load average ${load()}`,
  );
  console.log(`statuses: ${JSON.stringify(report.byStatus)}`);
  console.log(`mutations: ${JSON.stringify(report.byMutation)}`);
  if (process.argv.includes('--slowest')) {
    for (const [mutation, { ms, what }] of Object.entries(report.slowest))
      console.log(`  slowest ${mutation}: ${ms.toFixed(0)} ms ${what}`);
  }
  const h = report.healthz;
  console.log(
    `/healthz: ${h.probes} probes, p50 ${h.p50.toFixed(1)} ms, p99 ${h.p99.toFixed(1)} ms, max ${h.max.toFixed(1)} ms, ${h.over} over the limit as the client saw them; gateway event-loop delay: max ${h.loopLagMaxMs.toFixed(1)} ms, median of per-second maxima ${h.loopLagMedianMs.toFixed(1)} ms`,
  );
  const s = report.server;
  console.log(
    `mesh process while fuzzed: longest event-loop stall ${s.maxStallMs.toFixed(1)} ms; longest synchronous work (CPU in one stall) ${s.maxStallCpuMs.toFixed(1)} ms; ` +
      `${s.gcPauses} GC pauses, longest ${s.maxGcPauseMs.toFixed(1)} ms (wall time)`,
  );
  for (const stall of [...s.heavy].sort((a, b) => (b.cpuMs ?? 0) - (a.cpuMs ?? 0)).slice(0, 5)) {
    console.log(
      `  synchronous work of ${stall.cpuMs!.toFixed(0)} ms (stall ${stall.ms.toFixed(0)} ms) during: ${stall.requests.join(' | ').slice(0, 600) || 'no request'}`,
    );
  }
  for (const b of report.slowProbes) {
    console.log(
      `  slow probe ${b.ms.toFixed(1)} ms: server's own work ${b.serverMs.toFixed(1)} ms (handler ${b.handlerMs.toFixed(1)}, in which the server thread ran ${b.handlerCpuMs.toFixed(1)}; it waited behind loop stalls of ${b.serverStallMs.toFixed(1)} ms, ` +
        `in which the server thread ran ${b.serverStallCpuMs.toFixed(1)} ms and waited for a core the rest; GC ${b.serverGcMs.toFixed(1)})` +
        `${b.reachedServer ? '' : ' - never reached the server'}; probe thread stalled ${b.clientStallMs.toFixed(1)} ms`,
    );
  }
  const distinct = [...new Set(report.findings)];
  console.log(
    distinct.length === 0
      ? 'no findings'
      : `${report.findings.length} findings (${distinct.length} distinct):`,
  );
  for (const finding of distinct.slice(0, 50)) console.log(`  - ${finding}`);
  process.exitCode = distinct.length === 0 ? 0 : 1;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 2;
});
