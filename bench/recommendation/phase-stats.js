'use strict';
/**
 * What a server process measured under a latency phase, for movielens.js over IPC: {reset: true}
 * starts a phase (and its profile, PROFILE_DIR / PROFILE_KIND: phase-profiler.js), {stats: true}
 * ends it and answers with the process's CPU time (and the kernel's part of it), event-loop delay, GC pauses
 * and what young-generation GC promoted to the old generation since the reset (what, piling up,
 * brings on full collections under sustained load).
 */
const { monitorEventLoopDelay, PerformanceObserver } = require('node:perf_hooks');
const { GCProfiler } = require('node:v8');
const { phaseProfiler } = require('./phase-profiler');

const oldSpaceUsed = (heap) =>
  heap.heapSpaceStatistics.find((space) => space.spaceName === 'old_space').spaceUsedSize;

function phaseStats() {
  const profiler = phaseProfiler(process.env.PROFILE_DIR, process.env.PROFILE_KIND);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let gcPauses = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcPauses.push(entry.duration);
  }).observe({ entryTypes: ['gc'] });
  let cpuSince = process.cpuUsage();
  let gcProfiler = new GCProfiler();

  function stats() {
    const cpu = process.cpuUsage(cpuSince);
    const scavenges = gcProfiler.stop().statistics.filter((gc) => gc.gcType === 'Scavenge');
    const promotedBytes = scavenges.reduce(
      (sum, gc) => sum + Math.max(0, oldSpaceUsed(gc.afterGC) - oldSpaceUsed(gc.beforeGC)),
      0,
    );
    const pauses = gcPauses.slice().sort((a, b) => a - b);
    return {
      cpuMs: (cpu.user + cpu.system) / 1000,
      systemMs: cpu.system / 1000,
      loopDelay: {
        p50: delay.percentile(50) / 1e6,
        p99: delay.percentile(99) / 1e6,
        max: delay.max / 1e6,
      },
      gc: {
        count: pauses.length,
        totalMs: pauses.reduce((s, d) => s + d, 0),
        maxMs: pauses.at(-1) ?? 0,
        scavenges: scavenges.length,
        promotedBytes,
      },
    };
  }

  /** Answers {reset} and {stats}; false for any other message. */
  return async function onPhaseMessage(message) {
    if (message.reset) {
      delay.reset();
      gcPauses = [];
      cpuSince = process.cpuUsage();
      gcProfiler = new GCProfiler();
      gcProfiler.start();
      await profiler.start();
      process.send({ reset: true });
      return true;
    }
    if (message.stats) {
      const phase = stats();
      await profiler.stop();
      process.send({ stats: phase });
      return true;
    }
    return false;
  };
}

module.exports = { phaseStats };
