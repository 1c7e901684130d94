'use strict';
/** Helpers of the stack bench: where the repository is, modules of the shared workspace, ports. */
const path = require('node:path');
const { freePort } = require('../gateway/targets');
const { percentile } = require('../gateway/measure');

const REPO = path.resolve(__dirname, '..', '..');

/** A dependency of the shared workspace (kafkajs, mongodb), resolved from there. */
function sharedModule(name) {
  return require(require.resolve(name, { paths: [path.join(REPO, 'shared')] }));
}

/** Percentile p (0..100) of unsorted values, nearest rank; NaN when empty. */
function percentileOf(values, p) {
  return percentile(
    [...values].sort((a, b) => a - b),
    p,
  );
}

module.exports = { REPO, sharedModule, freePort, percentileOf };
