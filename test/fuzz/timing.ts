import { performance } from 'node:perf_hooks';

/** Epoch milliseconds with sub-millisecond precision: comparable across the processes of one machine. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/** A stretch of time (epoch ms) in which an event loop ran nothing else, or a GC pause. */
export interface Pause {
  at: number;
  ms: number;
  /**
   * CPU time the thread got in it (stalls): near ms when it was busy (synchronous work, GC), far
   * below when it was waiting for a core (the machine's load, not the code).
   */
  cpuMs?: number;
}

/** The current thread's CPU time in ms. */
export function threadCpuMs(): number {
  // Node 23.9+ (the project's @types/node is older).
  const { user, system } = (
    process as NodeJS.Process & { threadCpuUsage(): NodeJS.CpuUsage }
  ).threadCpuUsage();
  return (user + system) / 1000;
}

/** Records the thread's stalls: a timer every tickMs, and a tick late by more than minMs. */
export function recordStalls(
  into: Pause[],
  tickMs: number,
  minMs: number,
  onStall?: (stall: Pause) => void,
): NodeJS.Timeout {
  let lastTick = performance.now();
  let lastCpu = threadCpuMs();
  return setInterval(() => {
    const now = performance.now();
    const cpu = threadCpuMs();
    const late = now - lastTick - tickMs;
    if (late > minMs) {
      const stall = { at: epochMs() - late, ms: late, cpuMs: Math.min(late, cpu - lastCpu) };
      into.push(stall);
      onStall?.(stall);
    }
    lastTick = now;
    lastCpu = cpu;
  }, tickMs);
}

/** What the mesh process recorded (server-timing.ts). */
export interface ServerTiming {
  /** Per probe id: when the gateway's code got the request, and when its answer was written. */
  /** cpuMs: the CPU time the server's thread ran from the one to the other (any request's work). */
  probes: Record<string, { arrivedAt: number; finishedAt: number; cpuMs?: number }>;
  stalls: Pause[];
  gcPauses: Pause[];
  /** Stalls with much CPU in them (synchronous work), and the requests in progress meanwhile. */
  heavy: Array<Pause & { requests: string[] }>;
}

/** One /healthz probe as the client timed it (epoch ms). */
export interface ProbeTiming {
  id: number;
  sentAt: number;
  answeredAt: number;
}

/** Milliseconds of the pauses that fall within [from, to] (cpu: the thread's CPU time in them, pro rata). */
export function overlap(pauses: readonly Pause[], from: number, to: number, cpu = false): number {
  let total = 0;
  for (const p of pauses) {
    const shared = Math.max(0, Math.min(to, p.at + p.ms) - Math.max(from, p.at));
    total += cpu ? (shared * (p.cpuMs ?? p.ms)) / (p.ms || 1) : shared;
  }
  return total;
}

/** Where a slow probe's time went: in the server (its loop busy or the handler), or outside it. */
export interface ProbeBreakdown {
  ms: number;
  /** The gateway's JavaScript from the request event to the answer written. */
  handlerMs: number;
  /** ...of which the server's thread ran (the probe's handler or other work); the rest it waited for a core. */
  handlerCpuMs: number;
  /** Server event-loop stalls while the request was on its way in (it waited behind them). */
  serverStallMs: number;
  /** ...of which the server's thread ran (busy: its code or GC); the rest it waited for a core. */
  serverStallCpuMs: number;
  /** GC pauses of the server in the probe's time. */
  serverGcMs: number;
  /** Stalls of the probe's own thread in the probe's time. */
  clientStallMs: number;
  /** handlerCpuMs + serverStallCpuMs: the part the server's own work is accountable for. */
  serverMs: number;
  reachedServer: boolean;
}

export function breakDown(
  probe: ProbeTiming,
  server: ServerTiming,
  clientStalls: readonly Pause[],
): ProbeBreakdown {
  const ms = probe.answeredAt - probe.sentAt;
  const seen = server.probes[String(probe.id)];
  const handlerMs = seen ? seen.finishedAt - seen.arrivedAt : 0;
  const handlerCpuMs = Math.min(handlerMs, seen?.cpuMs ?? handlerMs);
  const inbound: [number, number] = [probe.sentAt, seen ? seen.arrivedAt : probe.answeredAt];
  const serverStallCpuMs = overlap(server.stalls, ...inbound, true);
  return {
    ms,
    handlerMs,
    handlerCpuMs,
    serverStallMs: overlap(server.stalls, ...inbound),
    serverStallCpuMs,
    serverGcMs: overlap(server.gcPauses, probe.sentAt, probe.answeredAt),
    clientStallMs: overlap(clientStalls, probe.sentAt, probe.answeredAt),
    serverMs: handlerCpuMs + serverStallCpuMs,
    reachedServer: Boolean(seen),
  };
}
