'use strict';
/**
 * The Microsoft Recommenders MovieLens-100k ranking protocol, in JavaScript:
 * python_stratified_split(ratio=0.75, filter_by="item", seed) and the ranking metrics at k.
 *
 * How the split matches recommenders (python_splitters.python_stratified_split):
 * rows are grouped by item (file order kept inside a group); each group is shuffled by
 * pandas `DataFrame.sample(frac=1, random_state=seed)`, i.e. a fresh numpy
 * `RandomState(seed).permutation(n)` per group (legacy MT19937 seeded by init_genrand(seed),
 * Fisher-Yates from the end with `random_interval`: 32-bit draws masked to the smallest
 * power of two above the bound, rejected until <= bound); the first round(0.75 n) rows of the
 * shuffled group (Python round: half to even) go to train, the rest to test.
 * split-check.py in this folder reproduces it with numpy/pandas and compares.
 */
const fs = require('node:fs');
const path = require('node:path');

/** MT19937 as numpy's legacy RandomState(seed) (init_genrand). */
class MersenneTwister {
  constructor(seed) {
    this.mt = new Uint32Array(624);
    this.index = 624;
    this.mt[0] = seed >>> 0;
    for (let i = 1; i < 624; i++) {
      const prev = this.mt[i - 1] ^ (this.mt[i - 1] >>> 30);
      // 1812433253 * prev + i, modulo 2^32, without losing precision.
      this.mt[i] =
        (((((prev & 0xffff0000) >>> 16) * 1812433253) << 16) +
          (prev & 0x0000ffff) * 1812433253 +
          i) >>>
        0;
    }
  }

  nextUint32() {
    if (this.index >= 624) this.twist();
    let y = this.mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** numpy random_sample (53-bit double), to check the generator against a known value. */
  nextDouble() {
    const a = this.nextUint32() >>> 5;
    const b = this.nextUint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  twist() {
    const mt = this.mt;
    for (let i = 0; i < 624; i++) {
      const y = (mt[i] & 0x80000000) | (mt[(i + 1) % 624] & 0x7fffffff);
      mt[i] = mt[(i + 397) % 624] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
    }
    this.index = 0;
  }

  /** numpy random_interval(max) for max < 2^32. */
  interval(max) {
    if (max === 0) return 0;
    let mask = max;
    mask |= mask >>> 1;
    mask |= mask >>> 2;
    mask |= mask >>> 4;
    mask |= mask >>> 8;
    mask |= mask >>> 16;
    let value;
    while ((value = (this.nextUint32() & mask) >>> 0) > max);
    return value;
  }
}

/** numpy.random.RandomState(seed).permutation(n). */
function permutation(n, seed) {
  const rng = new MersenneTwister(seed);
  const arr = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i >= 1; i--) {
    const j = rng.interval(i);
    const t = arr[i];
    arr[i] = arr[j];
    arr[j] = t;
  }
  return arr;
}

/** Python round(): half to even. */
function roundHalfEven(x) {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** python_stratified_split(ratings, ratio, filter_by="item", seed): { train, test } in file order. */
function stratifiedSplit(ratings, ratio = 0.75, seed = 42) {
  const groups = new Map();
  ratings.forEach((r, index) => {
    if (!groups.has(r.item)) groups.set(r.item, []);
    groups.get(r.item).push(index);
  });
  const inTrain = new Uint8Array(ratings.length);
  for (const rows of groups.values()) {
    const order = permutation(rows.length, seed);
    const cut = roundHalfEven(ratio * rows.length);
    for (let k = 0; k < cut; k++) inTrain[rows[order[k]]] = 1;
  }
  return {
    train: ratings.filter((_, i) => inTrain[i] === 1),
    test: ratings.filter((_, i) => inTrain[i] === 0),
  };
}

function loadRatings(dir) {
  return fs
    .readFileSync(path.join(dir, 'u.data'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [user, item, rating, ts] = line.split('\t');
      return { user, item, rating: Number(rating), ts: Number(ts) };
    });
}

function groupItemsByUser(rows) {
  const byUser = new Map();
  for (const r of rows) {
    if (!byUser.has(r.user)) byUser.set(r.user, new Set());
    byUser.get(r.user).add(r.item);
  }
  return byUser;
}

/**
 * Mean over test users of precision@k, recall@k, nDCG@k (binary gains, IDCG over
 * min(|test_u|, k)) and MAP (sum over hits of (j-th hit / rank) / |test_u|), as the issue states.
 * lists: Map user -> ranked item ids (the user's train items already removed).
 */
function rankingMetrics(lists, test, k = 10) {
  const relevant = groupItemsByUser(test);
  const sum = { precision: 0, recall: 0, ndcg: 0, map: 0 };
  for (const [user, items] of relevant) {
    const list = (lists.get(user) ?? []).slice(0, k);
    let hits = 0;
    let dcg = 0;
    let ap = 0;
    list.forEach((item, rank) => {
      if (!items.has(item)) return;
      hits++;
      dcg += 1 / Math.log2(rank + 2);
      ap += hits / (rank + 1);
    });
    let idcg = 0;
    for (let rank = 0; rank < Math.min(items.size, k); rank++) idcg += 1 / Math.log2(rank + 2);
    sum.precision += hits / k;
    sum.recall += hits / items.size;
    sum.ndcg += dcg / idcg;
    sum.map += ap / items.size;
  }
  const n = relevant.size;
  return {
    users: n,
    precision: sum.precision / n,
    recall: sum.recall / n,
    ndcg: sum.ndcg / n,
    map: sum.map / n,
  };
}

/** A rating row as the service's interaction (type rating, epoch milliseconds). */
const toInteraction = (r) => ({
  userId: r.user,
  itemId: r.item,
  type: 'rating',
  value: r.rating,
  timestamp: r.ts * 1000,
});

module.exports = {
  toInteraction,
  MersenneTwister,
  permutation,
  roundHalfEven,
  stratifiedSplit,
  loadRatings,
  groupItemsByUser,
  rankingMetrics,
};
