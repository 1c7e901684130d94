'use strict';
/**
 * Preload of the soak bench's mesh process (node --expose-gc --require heap-probe.js): on
 * SIGUSR2 it runs a full GC and writes process.memoryUsage() to SOAK_HEAP_FILE, so the bench reads
 * what stays alive, not what the next GC would free.
 */
const { writeFileSync } = require('node:fs');

const file = process.env.SOAK_HEAP_FILE;
if (file && typeof global.gc === 'function') {
  process.on('SIGUSR2', () => {
    global.gc();
    writeFileSync(file, JSON.stringify({ at: Date.now(), ...process.memoryUsage() }));
  });
}
