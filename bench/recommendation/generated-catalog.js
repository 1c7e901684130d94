'use strict';
/**
 * A generated catalog and interaction log with a long tail, for scale.js: item popularity
 * Zipf-like (weight 1 / (rank + 5)), items in categories, users with a lognormal number of
 * interactions (a few heavy users, many light ones) who mostly pick from two favourite
 * categories, by popularity within them. Deterministic for a seed; held in typed arrays.
 */

/** mulberry32: a small deterministic PRNG, uniform in [0, 1). */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws an index with probability proportional to weights, by binary search on the cumulative sums. */
function sampler(weights, next) {
  const cumulative = new Float64Array(weights.length);
  let sum = 0;
  for (let i = 0; i < weights.length; i++) cumulative[i] = sum += weights[i];
  return () => {
    const target = next() * sum;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle] < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

const TYPES = ['view', 'click', 'cart', 'purchase'];
const TYPE_SHARE = [0.55, 0.2, 0.1, 0.15];
const DAY = 86_400_000;

/**
 * { items: [{itemId, categories}], users, userStart, log: {users, items, types, timestamps},
 * length }: user u's interactions are log entries userStart[u] .. userStart[u + 1] - 1.
 * options: items, interactions, categories (default items / 500), meanPerUser (default 20),
 * favouriteShare (default 0.8), seed.
 */
function generateCatalog(options) {
  const next = random(options.seed ?? 42);
  const itemCount = options.items;
  const categories = options.categories ?? Math.max(1, Math.round(itemCount / 500));
  const meanPerUser = options.meanPerUser ?? 20;
  const favouriteShare = options.favouriteShare ?? 0.8;

  // Popularity ranks in random order over the catalog, so categories mix head and tail items.
  const rank = Int32Array.from({ length: itemCount }, (_, i) => i);
  for (let i = itemCount - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [rank[i], rank[j]] = [rank[j], rank[i]];
  }
  const weight = Float64Array.from(rank, (r) => 1 / (r + 5));
  const categoryOf = Int32Array.from({ length: itemCount }, (_, i) => i % categories);
  const members = Array.from({ length: categories }, () => []);
  for (let i = 0; i < itemCount; i++) members[categoryOf[i]].push(i);
  const inCategory = members.map((list) =>
    sampler(
      list.map((i) => weight[i]),
      next,
    ),
  );
  const categoryWeight = members.map((list) => list.reduce((sum, i) => sum + weight[i], 0));
  const pickCategory = sampler(categoryWeight, next);
  const pickItem = sampler(weight, next);
  const pickType = sampler(TYPE_SHARE, next);

  const total = options.interactions;
  const log = {
    users: new Int32Array(total),
    items: new Int32Array(total),
    types: new Uint8Array(total),
    timestamps: new Float64Array(total),
  };
  const end = Date.UTC(2026, 10, 1);
  // Lognormal activity with sigma 1.1, scaled to the mean asked for; at least one interaction.
  const sigma = 1.1;
  const mu = Math.log(meanPerUser) - (sigma * sigma) / 2;
  let length = 0;
  let users = 0;
  const userStart = [0];
  while (length < total) {
    const gaussian = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
    const count = Math.min(
      total - length,
      Math.max(1, Math.round(Math.exp(mu + sigma * gaussian))),
    );
    const favourites = [pickCategory(), pickCategory()];
    for (let k = 0; k < count; k++) {
      const item =
        next() < favouriteShare
          ? members[favourites[k % 2]][inCategory[favourites[k % 2]]()]
          : pickItem();
      log.users[length] = users;
      log.items[length] = item;
      log.types[length] = pickType();
      log.timestamps[length] = end - Math.floor(next() * 60 * DAY);
      length++;
    }
    users++;
    userStart.push(length);
  }
  const items = Array.from({ length: itemCount }, (_, i) => ({
    itemId: `sku-${i}`,
    categories: [`category-${categoryOf[i]}`],
  }));
  return { items, users, userStart: Int32Array.from(userStart), log, length, types: TYPES };
}

module.exports = { generateCatalog, random };
