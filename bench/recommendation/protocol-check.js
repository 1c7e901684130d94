'use strict';
/** Prints what split-check.py prints, from protocol.js: both lines must be equal. */
const crypto = require('node:crypto');
const { loadRatings, stratifiedSplit } = require('./protocol');

const dir =
  process.argv[2] ||
  process.env.ML100K_DIR ||
  require('node:path').resolve(__dirname, '../../../shared/datasets/movielens-100k');
const seed = Number(process.argv[3] || 42);
const ratings = loadRatings(dir).map((r, row) => ({ ...r, row }));
const rows = stratifiedSplit(ratings, 0.75, seed)
  .train.map((r) => r.row)
  .sort((a, b) => a - b);
console.log(rows.length, crypto.createHash('sha256').update(rows.join(',')).digest('hex'));
