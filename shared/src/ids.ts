import { randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn from a pool refilled 4 KiB at a time: an id costs a slice of the pool, not
 * a call into the CSPRNG (ids are minted several times per request).
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomHex(bytes: number): string {
  if (poolOffset + bytes > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return hex;
}

/** Sortable-enough, unique ids with a type prefix: req_..., wh_..., evt_... */
export function newId(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${randomHex(8)}`;
}
