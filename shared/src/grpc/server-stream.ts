import type {
  CallOptions,
  Client,
  ClientReadableStream,
  Metadata,
  ServiceError,
} from '@grpc/grpc-js';
import { contextToMetadata, type CallContext } from './context';
import { fromServiceError } from './errors';

type StreamMethod<Req, Chunk> = (
  request: Req,
  metadata: Metadata,
  options?: CallOptions,
) => ClientReadableStream<Chunk>;

/** A server-streaming call being read: its messages in order, and a way to stop it. */
export interface ChunkStream<Chunk> extends AsyncIterable<Chunk> {
  /** Cancels the call (the HTTP client went away); reading then ends without an error. */
  cancel(): void;
  readonly cancelled: boolean;
}

function isServiceError(error: unknown): error is ServiceError {
  return typeof error === 'object' && error !== null && 'code' in error && 'metadata' in error;
}

/**
 * Opens a server-streaming call with the caller's context and a deadline for the whole stream.
 * A failed stream throws the downstream's AppError (fromServiceError) from the iteration.
 */
export function openServerStream<Req, Chunk>(
  serviceName: string,
  method: StreamMethod<Req, Chunk>,
  client: Client,
  request: Req,
  context: CallContext,
  deadlineMs: number,
): ChunkStream<Chunk> {
  const call = method.call(client, request, contextToMetadata(context), {
    deadline: Date.now() + deadlineMs,
  });
  let cancelled = false;
  let ended = false;
  return {
    get cancelled() {
      return cancelled;
    },
    cancel() {
      if (cancelled || ended) return;
      cancelled = true;
      call.cancel();
    },
    async *[Symbol.asyncIterator]() {
      try {
        for await (const chunk of call) yield chunk as Chunk;
        ended = true;
      } catch (error) {
        ended = true;
        // Our own cancel ends the call with CANCELLED: nobody is left to tell.
        if (cancelled) return;
        throw isServiceError(error) ? fromServiceError(error, serviceName) : error;
      }
    },
  };
}
