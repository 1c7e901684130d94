import { PassThrough } from 'node:stream';
import { AppError, type Logger } from '@switchyard/shared';
import type { ChunkStream } from '@switchyard/shared';
import { errorBody, problemOf, type Rendered } from '../middleware/errors';
import type { RouteResult } from '../route-io';

/** Headers of every event stream: no caching, and no proxy buffering (nginx honours X-Accel-Buffering). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
};

/** One Server-Sent Event; data is JSON on a single line, so it needs no line splitting. */
export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A downstream stream of chunks ending with one final chunk, and how each becomes events. */
export interface SseSource<Chunk> {
  chunks: ChunkStream<Chunk>;
  isFinal(chunk: Chunk): boolean;
  /** The events of a chunk, the final one included (the stream ends after it). */
  eventsOf(chunk: Chunk): string | Uint8Array;
  /** Tokens the call used, from the final chunk (billable streams). */
  usageOf?(chunk: Chunk): number | undefined;
  /** The event reporting a failure after the stream started. */
  errorEvent(problem: Rendered, requestId: string): string;
}

/** The native event stream: `delta` events with the text, then `done` with the whole answer, or `error`. */
export function nativeEvents<Chunk>(
  chunks: ChunkStream<Chunk>,
  shape: {
    /** The text of a delta chunk; undefined for the final chunk. */
    deltaOf(chunk: Chunk): string | undefined;
    /** The data of the done event (exactly the non-streamed response body), from the final chunk. */
    doneOf(chunk: Chunk): unknown;
    usageOf?(chunk: Chunk): number | undefined;
  },
): SseSource<Chunk> {
  return {
    chunks,
    isFinal: (chunk) => shape.deltaOf(chunk) === undefined,
    eventsOf: (chunk) => {
      const delta = shape.deltaOf(chunk);
      return delta === undefined
        ? sseFrame('done', shape.doneOf(chunk))
        : sseFrame('delta', { text: delta });
    },
    usageOf: shape.usageOf,
    errorEvent: (problem, requestId) => sseFrame('error', errorBody(problem, requestId)),
  };
}

export interface SseCall {
  requestId: string;
  route?: string;
  /** Aborts when the HTTP client goes away. */
  signal?: AbortSignal;
  logger: Logger;
}

type Step<Chunk> = IteratorResult<Chunk, unknown>;

function noResult(): AppError {
  return new AppError('internal', 'the stream ended without a result');
}

/** Waits until the body can take more, or is gone (the client left and Koa destroyed it). */
function drained(body: PassThrough): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      body.off('drain', done);
      body.off('close', done);
      resolve();
    };
    body.once('drain', done);
    body.once('close', done);
  });
}

async function write(body: PassThrough, frame: string | Uint8Array): Promise<void> {
  if (!body.destroyed && !body.write(frame)) await drained(body);
}

/**
 * Reads what follows the final chunk: only the call's OK status. Cancelling instead (as leaving
 * early does) would end every finished stream as CANCELLED on both sides, with an error built
 * for it on each end and the server's metrics counting it.
 */
async function readToEnd<Chunk>(rest: AsyncIterator<Chunk>): Promise<void> {
  try {
    while (!(await rest.next()).done);
  } catch {
    // The client has its answer; a failure after the final chunk changes nothing for it.
  }
}

/**
 * Writes events until the final chunk; a failure after the start becomes an error event.
 * Resolves with the tokens the final chunk reports, or undefined when the stream broke off.
 */
async function pump<Chunk>(
  source: SseSource<Chunk>,
  first: Step<Chunk>,
  rest: AsyncIterator<Chunk>,
  body: PassThrough,
  call: SseCall,
): Promise<number | undefined> {
  try {
    for (let step = first; !step.done; step = await rest.next()) {
      if (body.destroyed) return undefined;
      await write(body, source.eventsOf(step.value));
      if (!source.isFinal(step.value)) continue;
      await readToEnd(rest);
      return source.usageOf?.(step.value);
    }
    if (!source.chunks.cancelled) throw noResult();
    return undefined;
  } catch (error) {
    await write(body, source.errorEvent(problemOf(error, call.logger, call), call.requestId));
    return undefined;
  } finally {
    source.chunks.cancel(); // a no-op once the call ended; stops it when we stop reading early
    body.end();
  }
}

/**
 * Answers with text/event-stream once the first chunk arrived: the source's events, ending with
 * its final chunk's, or its error event when the stream fails after it started. A failure before the first chunk is thrown,
 * so the error middleware answers a normal JSON error with its status. The client going away
 * cancels the gRPC stream.
 */
export async function sseResponse<Chunk>(
  source: SseSource<Chunk>,
  call: SseCall,
): Promise<RouteResult> {
  const cancel = () => source.chunks.cancel();
  call.signal?.addEventListener('abort', cancel, { once: true });
  if (call.signal?.aborted) cancel();
  const iterator = source.chunks[Symbol.asyncIterator]();
  let first: Step<Chunk>;
  try {
    first = await iterator.next();
    if (first.done && !source.chunks.cancelled) throw noResult();
  } catch (error) {
    call.signal?.removeEventListener('abort', cancel);
    throw error;
  }
  const body = new PassThrough();
  body.once('close', cancel);
  const finished = pump(source, first, iterator, body, call).finally(() =>
    call.signal?.removeEventListener('abort', cancel),
  );
  return {
    status: 200,
    body,
    contentType: 'text/event-stream',
    headers: { ...SSE_HEADERS },
    finished,
  };
}
