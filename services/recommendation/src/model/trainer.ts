import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { decodeModel, type ItemModelData } from './item-model';
import type { TrainingOptions } from './train-model';
import type { TrainingSet } from './training-set';

/** Trains in a worker thread, so serving never waits on the matrix inverse. */
export function trainInWorker(set: TrainingSet, options: TrainingOptions, version: number): Promise<ItemModelData> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(join(__dirname, 'train-worker.js'), { workerData: { set, options, version } });
    let settled = false;
    worker.once('message', (bytes: Uint8Array) => {
      settled = true;
      resolve(decodeModel(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
    });
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`training worker exited with code ${code}`));
    });
  });
}
