import { parentPort, workerData } from 'node:worker_threads';
import { encodeModel } from './item-model';
import { trainModel, type TrainingOptions } from './train-model';
import type { TrainingSet } from './training-set';

/** Worker-thread entry: trains one model off the serving thread and posts it back encoded. */
const { set, options, version } = workerData as { set: TrainingSet; options: TrainingOptions; version: number };
const blob = encodeModel(trainModel(set, options, version));
const bytes = new Uint8Array(blob.buffer, blob.byteOffset, blob.byteLength).slice();
parentPort!.postMessage(bytes, [bytes.buffer]);
