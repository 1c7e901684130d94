import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);

/**
 * A service process started through main(): a site whose objects have all lived so far gets its
 * next objects in the young generation, as every other site; with pretenuring on, V8 would put
 * them straight into the old generation (where, dead, they keep young objects alive: see
 * runtime/pretenuring.ts). Reports the old generation's largest growth while making 10,000 such
 * objects (five tries).
 */
const PROBE = `
const v8 = require('node:v8');
const { main } = require(${JSON.stringify(require.resolve('../src/process'))});
const used = (name) => v8.getHeapSpaceStatistics().find((s) => s.space_name === name).space_used_size;
const make = (i) => ({ i, a: i + 1, b: i + 2, c: null });
main({ fatal: console.error }, async () => {
  const kept = [];
  for (let round = 0; round < 6; round++) {
    for (let i = 0; i < 50000; i++) kept.push(make(i));
    gc({ type: 'minor' });
  }
  // V8 decides at each GC, and a full GC can undo a decision: the most of several tries counts.
  let most = 0;
  for (let attempt = 0; attempt < 5; attempt++) {
    gc({ type: 'minor' });
    const [oldBefore, newBefore] = [used('old_space'), used('new_space')];
    for (let i = 0; i < 10000; i++) kept.push(make(i));
    // A scavenge meanwhile (the new space shrank) would promote what was kept: not a measurement.
    if (used('new_space') >= newBefore) most = Math.max(most, used('old_space') - oldBefore);
  }
  process.stdout.write(String(most));
});
`;

async function oldGenerationGrowth(nodeArgs: string[]): Promise<number> {
  const { stdout } = await run(process.execPath, ['--expose-gc', ...nodeArgs, '-e', PROBE]);
  return Number(stdout);
}

describe('serving processes: no allocation-site pretenuring', function () {
  this.timeout(60_000);

  it('allocates a long-lived site’s next objects young', async () => {
    expect(await oldGenerationGrowth([])).to.be.below(100_000);
  });

  it('keeps pretenuring when the command line asks for it (--allocation-site-pretenuring)', async () => {
    // About 10,000 x 56 bytes (560 KB) straight into the old generation: what main() prevents
    // above. V8's decision is a heuristic that, on a busy machine, sometimes comes too late for a
    // process this short: a few processes are tried.
    let most = 0;
    for (let process = 0; process < 5 && most < 300_000; process++)
      most = Math.max(most, await oldGenerationGrowth(['--allocation-site-pretenuring']));
    expect(most).to.be.above(300_000);
  });
});
