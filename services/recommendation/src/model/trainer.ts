import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { decodeModel, type ItemModelData } from './item-model';
import type { TrainingOptions } from './train-model';
import type { InteractionColumns } from './training-set';

/** Folds the log and trains in a worker thread, so serving never waits on either. */
export function trainInWorker(columns: InteractionColumns, options: TrainingOptions, halfLifeDays: number, version: number): Promise<ItemModelData> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(join(__dirname, 'train-worker.js'), { workerData: { columns, options, halfLifeDays, version } });
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
