import { parentPort, workerData } from 'node:worker_threads';
import { encodeModel } from './item-model';
import { trainModel, type TrainingOptions } from './train-model';
import { trainingSetFromColumns, type InteractionColumns } from './training-set';

/** Worker-thread entry: folds the log and trains one model off the serving thread, posts it back encoded. */
const { columns, options, halfLifeDays, version } = workerData as {
  columns: InteractionColumns;
  options: TrainingOptions;
  halfLifeDays: number;
  version: number;
};
const blob = encodeModel(
  trainModel(trainingSetFromColumns(columns, halfLifeDays), options, version),
);
// A large blob owns its buffer whole: it moves as is; a small one may sit in Node's shared pool.
const owned = blob.byteOffset === 0 && blob.byteLength === blob.buffer.byteLength;
const bytes = owned
  ? new Uint8Array(blob.buffer as ArrayBuffer)
  : new Uint8Array(blob.buffer, blob.byteOffset, blob.byteLength).slice();
parentPort!.postMessage(bytes, [bytes.buffer]);
