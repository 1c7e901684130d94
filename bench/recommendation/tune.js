#!/usr/bin/env node
'use strict';
/**
 * Chooses sparse EASE's hyper-parameters on a validation split inside the training data, never
 * the test split: MovieLens-100k is split as the benchmark splits it (protocol.js, ratio 0.75 by
 * item, SEED), its training part split again the same way (VALIDATION_SEED) into a fitting and
 * a validation part; every combination of the grid is trained on the fitting part and scored
 * (nDCG@10) on the validation part. The best one is then trained on the whole training part and
 * scored once on the test part, beside EASE with its configured lambda. Prints figures only.
 *
 *   npm run build && node bench/recommendation/tune.js
 * Env: ML100K_DIR (default ../shared/datasets/movielens-100k beside the checkout), SEED (42), VALIDATION_SEED (7),
 *      LAMBDAS (100,200,300,500,800,1200), NEIGHBOURS (64,128), STEPS (3,5), ROW_LIMIT (200).
 */
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const {
  stratifiedSplit,
  loadRatings,
  groupItemsByUser,
  rankingMetrics,
  toInteraction,
} = require('./protocol');
const { load } = require('./harness');

const MODEL = path.join(__dirname, '../../services/recommendation/dist/src/model');
const { buildTrainingSet } = require(path.join(MODEL, 'training-set.js'));
const { trainModel } = require(path.join(MODEL, 'train-model.js'));
const { ItemModel } = require(path.join(MODEL, 'item-model.js'));
const { foldUserSignals } = require(path.join(MODEL, 'interaction-weights.js'));
const { loadRecommendationConfig } = require('../../services/recommendation/dist/src/config.js');

const DATA_DIR =
  process.env.ML100K_DIR ||
  process.env.MOVIELENS_DIR ||
  require('node:path').resolve(__dirname, '../../../shared/datasets/movielens-100k');
const SEED = Number(process.env.SEED || 42);
const VALIDATION_SEED = Number(process.env.VALIDATION_SEED || 7);
const list = (name, fallback) => (process.env[name] || fallback).split(',').map(Number);
const LAMBDAS = list('LAMBDAS', '100,200,300,500,800,1200');
// 200 neighbours scored a little higher on validation, but solving grows with the square of the
// neighbours (2.4 times the work of 128 on a large catalog): the default grid stops at 128.
const NEIGHBOURS = list('NEIGHBOURS', '64,128');
const STEPS = list('STEPS', '3,5');
const ROW_LIMIT = Number(process.env.ROW_LIMIT || 200);
const K = 10;

/** nDCG@10 and the rest of a model trained on `fit`, ranking for the users of `held`. */
function score(fit, held, training) {
  const model = new ItemModel(trainModel(buildTrainingSet(fit.map(toInteraction), 0), training, 1));
  const byUser = new Map();
  for (const r of fit) {
    if (!byUser.has(r.user)) byUser.set(r.user, []);
    byUser.get(r.user).push(toInteraction(r));
  }
  const lists = new Map();
  for (const user of groupItemsByUser(held).keys()) {
    const interactions = byUser.get(user) ?? [];
    const profile = new Map(
      [...foldUserSignals(interactions, 0, 0)].map(([id, signal]) => [id, signal.weight]),
    );
    // The user's fitting items are left out, as the service leaves out what a user owns.
    const ranked = model.rankUser(profile, K, profile.keys());
    lists.set(
      user,
      Array.from(ranked.order, (i) => model.itemId(i)),
    );
  }
  return rankingMetrics(lists, held, K);
}

function main() {
  const config = loadRecommendationConfig({ LOG_LEVEL: 'silent' });
  const base = { ...config.training, algorithm: 'sparse_ease' };
  const ratings = loadRatings(DATA_DIR);
  const { train, test } = stratifiedSplit(ratings, 0.75, SEED);
  const { train: fit, test: validation } = stratifiedSplit(train, 0.75, VALIDATION_SEED);
  console.log(
    `MovieLens-100k: train ${train.length} (fitting ${fit.length}, validation ${validation.length}), test ${test.length}; seeds ${SEED} / ${VALIDATION_SEED}; load ${load()}`,
  );
  let best;
  for (const lambda of LAMBDAS)
    for (const neighbours of NEIGHBOURS)
      for (const solverSteps of STEPS) {
        const sparseEase = {
          ...base.sparseEase,
          lambda,
          neighbours,
          solverSteps,
          rowLimit: ROW_LIMIT,
        };
        const started = performance.now();
        const metrics = score(fit, validation, { ...base, sparseEase });
        console.log(
          `  lambda ${String(lambda).padStart(5)}  neighbours ${String(neighbours).padStart(3)}  steps ${solverSteps}: validation nDCG@10 ${metrics.ndcg.toFixed(4)} (${(performance.now() - started).toFixed(0)} ms)`,
        );
        if (!best || metrics.ndcg > best.ndcg) best = { ndcg: metrics.ndcg, sparseEase };
      }
  const { lambda, neighbours, solverSteps } = best.sparseEase;
  console.log(
    `chosen on validation: lambda ${lambda}, neighbours ${neighbours}, steps ${solverSteps} (validation nDCG@10 ${best.ndcg.toFixed(4)})`,
  );
  const chosen = score(train, test, { ...base, sparseEase: best.sparseEase });
  const configured = score(train, test, base);
  const ease = score(train, test, { ...config.training, algorithm: 'ease' });
  const line = (label, m) =>
    console.log(
      `  ${label.padEnd(44)} nDCG@10 ${m.ndcg.toFixed(4)}  P@10 ${m.precision.toFixed(4)}  R@10 ${m.recall.toFixed(4)}  MAP ${m.map.toFixed(4)}`,
    );
  console.log('on the test split, trained on the whole training part:');
  line('sparse EASE, chosen on validation', chosen);
  line(
    `sparse EASE, the configured defaults (${config.training.sparseEase.lambda}/${config.training.sparseEase.neighbours}/${config.training.sparseEase.solverSteps})`,
    configured,
  );
  line(`EASE, lambda ${config.training.easeLambda}`, ease);
}

main();
