import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);

/**
 * A service process started through main(): a site whose objects have all lived so far gets its
 * next objects in the young generation, as every other site; with pretenuring on, V8 would put
 * them straight into the old generation (where, dead, they keep young objects alive: see
 * runtime/pretenuring.ts). Reports the old generation's growth while making 50,000 such objects.
 */
const PROBE = `
const v8 = require('node:v8');
const { main } = require(${JSON.stringify(require.resolve('../src/process'))});
const oldSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size;
const make = (i) => ({ i, a: i + 1, b: i + 2, c: null });
main({ fatal: console.error }, async () => {
  const kept = [];
  for (let round = 0; round < 6; round++) {
    for (let i = 0; i < 50000; i++) kept.push(make(i));
    gc({ type: 'minor' });
  }
  const before = oldSpace();
  const fresh = [];
  for (let i = 0; i < 50000; i++) fresh.push(make(i));
  process.stdout.write(String(oldSpace() - before));
});
`;

async function oldGenerationGrowth(nodeArgs: string[]): Promise<number> {
  const { stdout } = await run(process.execPath, ['--expose-gc', ...nodeArgs, '-e', PROBE]);
  return Number(stdout);
}

describe('serving processes: no allocation-site pretenuring', function () {
  this.timeout(60_000);

  it('allocates a long-lived site’s next objects young', async () => {
    expect(await oldGenerationGrowth([])).to.be.below(300_000);
  });

  it('keeps pretenuring when the command line asks for it (--allocation-site-pretenuring)', async () => {
    // About 50,000 x 56 bytes (2.8 MB) straight into the old generation: what main() prevents above.
    expect(await oldGenerationGrowth(['--allocation-site-pretenuring'])).to.be.above(1_000_000);
  });
});
