import type { ServerWritableStream } from '@grpc/grpc-js';
import { AppError, contextFromMetadata, toServiceError, type CallContext, type Logger } from '@switchyard/shared';

/** Where a streaming handler writes its messages; write waits while the transport is full. */
export interface StreamSink<Chunk> {
  write(chunk: Chunk): Promise<void>;
  /** Aborts when the caller cancels the call. */
  signal: AbortSignal;
}

export type StreamHandler<Req, Chunk> = (request: Req, context: CallContext, sink: StreamSink<Chunk>) => Promise<void>;

function sinkOf<Req, Chunk>(call: ServerWritableStream<Req, Chunk>): StreamSink<Chunk> {
  const cancelled = new AbortController();
  call.once('cancelled', () => cancelled.abort());
  return {
    signal: cancelled.signal,
    write: async (chunk) => {
      if (call.cancelled) throw new AppError('unavailable', 'the caller cancelled the stream');
      if (call.write(chunk)) return;
      await new Promise<void>((resolve) => {
        call.once('drain', resolve);
        call.once('cancelled', resolve);
      });
    },
  };
}

/**
 * Adapts a transport-free server-streaming handler: the stream ends OK when it resolves, or with
 * the AppError's status and trailers when it throws; anything else is logged and is internal.
 */
export function serverStream<Req, Chunk>(logger: Logger, handler: StreamHandler<Req, Chunk>) {
  return (call: ServerWritableStream<Req, Chunk>): void => {
    const context = contextFromMetadata(call.metadata);
    handler(call.request, context, sinkOf(call)).then(
      () => call.end(),
      (error: unknown) => {
        if (!(error instanceof AppError)) logger.error({ err: error, requestId: context.requestId, method: call.getPath() }, 'stream handler failed');
        const appError = error instanceof AppError ? error : new AppError('internal', 'internal error');
        call.emit('error', toServiceError(appError));
      },
    );
  };
}
