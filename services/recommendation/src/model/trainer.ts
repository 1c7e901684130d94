import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { decodeModel, type ItemModelData } from './item-model';
import type { TrainingOptions } from './train-model';
import type { InteractionColumns } from './training-set';

export interface TrainedModel {
  /** The snapshot as published (encodeModel, done in the worker). */
  blob: Buffer;
  /** Views on the blob: nothing copied on the serving thread. */
  data: ItemModelData;
}

/** Folds the log, trains and encodes in a worker thread, so serving never waits on any of it. */
export function trainInWorker(
  columns: InteractionColumns,
  options: TrainingOptions,
  halfLifeDays: number,
  version: number,
): Promise<TrainedModel> {
  return new Promise((resolve, reject) => {
    // The log's arrays move to the worker (transferred, not copied): the caller gives them up.
    const worker = new Worker(join(__dirname, 'train-worker.js'), {
      workerData: { columns, options, halfLifeDays, version },
      transferList: [
        columns.users.buffer,
        columns.items.buffer,
        columns.types.buffer,
        columns.values.buffer,
        columns.timestamps.buffer,
      ],
    });
    let settled = false;
    worker.once('message', (bytes: Uint8Array) => {
      settled = true;
      const blob = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      resolve({ blob, data: decodeModel(blob) });
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
