'use strict';
/**
 * Profile of one bench phase (not the whole process, whose ingestion and training would drown
 * the serving path): start() begins sampling, stop() writes <process>-phase-N.cpuprofile into `dir`
 * (<process>: the script's name, mesh-process or floor-process), or with kind 'survivors'
 * <process>-phase-N.heapprofile: the phase's allocations still alive at its end, the ones
 * that survive young-generation GC, get promoted and lengthen every scavenge; with kind
 * 'allocations' every allocation of the phase, dead or alive (what makes scavenges frequent).
 * No-ops without a dir.
 */
const fs = require('node:fs');
const path = require('node:path');
const { Session } = require('node:inspector/promises');

function phaseProfiler(dir, kind = 'cpu') {
  const prefix = path.basename(process.argv[1] ?? 'process', '.js');
  if (!dir) return { start: async () => {}, stop: async () => {} };
  fs.mkdirSync(dir, { recursive: true });
  const session = new Session();
  session.connect();
  let phase = 0;
  return {
    async start() {
      if (kind === 'survivors')
        return session.post('HeapProfiler.startSampling', {
          samplingInterval: 4096,
          includeObjectsCollectedByMajorGC: true,
        });
      if (kind === 'allocations') {
        const all = {
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        };
        return session.post('HeapProfiler.startSampling', { samplingInterval: 4096, ...all });
      }
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
      await session.post('Profiler.start');
    },
    async stop() {
      if (kind === 'survivors' || kind === 'allocations') {
        // Else the phase's last young-generation worth of garbage (up to the new space, 50+ MB)
        // is still uncollected at the end and counts as surviving. The servers run with --expose-gc.
        if (kind === 'survivors' && global.gc) global.gc({ type: 'minor' });
        const { profile } = await session.post('HeapProfiler.stopSampling');
        return fs.writeFileSync(
          path.join(dir, `${prefix}-phase-${++phase}.heapprofile`),
          JSON.stringify(profile),
        );
      }
      const { profile } = await session.post('Profiler.stop');
      fs.writeFileSync(
        path.join(dir, `${prefix}-phase-${++phase}.cpuprofile`),
        JSON.stringify(profile),
      );
    },
  };
}

module.exports = { phaseProfiler };
