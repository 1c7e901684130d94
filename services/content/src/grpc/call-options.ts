import type { contextFromMetadata } from '@switchyard/shared';
import type { CallOptions } from '../models/text-model';

/** What the adapters use of a grpc-js server call (structural, so grpc-js stays shared's dependency). */
export interface ServerCallLike<Req> {
  request: Req;
  metadata: Parameters<typeof contextFromMetadata>[0];
  getDeadline(): Date | number;
  getPath(): string;
  on(event: 'cancelled', listener: () => void): unknown;
}

/** The caller's deadline (epoch ms, undefined when none) and a signal aborted if the caller cancels. */
export function callOptionsOf(call: ServerCallLike<unknown>): CallOptions {
  const raw = call.getDeadline();
  const deadline = raw instanceof Date ? raw.getTime() : raw;
  const controller = new AbortController();
  call.on('cancelled', () => controller.abort());
  return { deadline: Number.isFinite(deadline) ? deadline : undefined, signal: controller.signal };
}
