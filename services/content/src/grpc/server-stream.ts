import { AppError, contextFromMetadata, toServiceError, type CallContext, type Logger } from '@switchyard/shared';
import type { CallOptions } from '../models/text-model';
import { callOptionsOf, type ServerCallLike } from './call-options';

/** Where a streaming handler writes its messages; write waits while the transport is full. */
export interface StreamSink<Chunk> {
  write(chunk: Chunk): Promise<void>;
  options: CallOptions;
}

interface WritableCallLike<Req, Chunk> extends ServerCallLike<Req> {
  write(chunk: Chunk): boolean;
  end(): void;
  once(event: 'drain', listener: () => void): unknown;
  emit(event: 'error', error: unknown): boolean;
  readonly cancelled: boolean;
}

export type StreamHandler<Req, Chunk> = (request: Req, context: CallContext, sink: StreamSink<Chunk>) => Promise<void>;

function sinkOf<Req, Chunk>(call: WritableCallLike<Req, Chunk>): StreamSink<Chunk> {
  return {
    options: callOptionsOf(call),
    write: async (chunk) => {
      if (call.cancelled) throw new AppError('unavailable', 'the caller cancelled the stream');
      if (!call.write(chunk)) await new Promise<void>((resolve) => call.once('drain', resolve));
    },
  };
}

/**
 * Adapts a transport-free server-streaming handler: the stream ends OK when it resolves, or with
 * the AppError's status and trailers (toServiceError) when it throws; anything else is internal.
 */
export function serverStream<Req, Chunk>(logger: Logger, handler: StreamHandler<Req, Chunk>) {
  return (call: WritableCallLike<Req, Chunk>): void => {
    const context = contextFromMetadata(call.metadata);
    handler(call.request, context, sinkOf(call)).then(
      () => call.end(),
      (error: unknown) => {
        if (!(error instanceof AppError)) {
          logger.error({ err: error, requestId: context.requestId, method: call.getPath() }, 'stream handler failed');
        }
        const appError = error instanceof AppError ? error : new AppError('internal', 'internal error');
        call.emit('error', toServiceError(appError));
      },
    );
  };
}
