import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Http2Stream } from 'node:http2';
import { expect } from 'chai';
import { callUnary, createClient } from '../src/grpc/client';
import { protos } from '../src/grpc/protos';
import { serverStream, startGrpcServer, type RunningGrpcServer } from '../src/grpc/server';
import { openServerStream } from '../src/grpc/server-stream';
import { silentLogger } from '../src/testing';
import type { ContentServiceClient } from '../src/generated/switchyard/content/v1/ContentService';
import type { GenerateChunk__Output } from '../src/generated/switchyard/content/v1/GenerateChunk';
import type { HealthClient } from '../src/generated/grpc/health/v1/Health';
import type { HealthCheckResponse__Output } from '../src/generated/grpc/health/v1/HealthCheckResponse';

const CONTEXT = { organization: 'org_release', keyId: 'key_1', requestId: 'req_release' };
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Every listener of a stream but the one that swallows a late 'error'. */
function listenersLeft(stream: Http2Stream): number {
  return (
    stream.eventNames().reduce((sum, name) => sum + stream.listenerCount(name), 0) -
    stream.listenerCount('error')
  );
}

describe('gRPC: closed HTTP/2 streams let go of their calls', () => {
  let server: RunningGrpcServer;
  let client: HealthClient;
  const closed: { side: string; stream: Http2Stream }[] = [];
  const onClient = (message: unknown) =>
    closed.push({ side: 'client', stream: (message as { stream: Http2Stream }).stream });
  const onServer = (message: unknown) =>
    closed.push({ side: 'server', stream: (message as { stream: Http2Stream }).stream });

  before(async () => {
    server = await startGrpcServer({ host: '127.0.0.1', port: 0, services: [] });
    client = createClient(
      protos.health().Health,
      `127.0.0.1:${server.port}`,
    ) as unknown as HealthClient;
    subscribe('http2.client.stream.close', onClient);
    subscribe('http2.server.stream.close', onServer);
  });

  after(async () => {
    unsubscribe('http2.client.stream.close', onClient);
    unsubscribe('http2.server.stream.close', onServer);
    client.close();
    await server.stop(0);
  });

  it('drops the listeners (and with them the call) of both ends once a call is over, and the next calls still work', async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await callUnary<object, HealthCheckResponse__Output>(
        'health',
        client.Check,
        client,
        { service: '' },
        CONTEXT,
        2000,
      );
      expect(answer.status).to.equal('SERVING');
    }
    await turn();
    await turn();
    expect(closed.filter((c) => c.side === 'client')).to.have.length(3);
    expect(closed.filter((c) => c.side === 'server')).to.have.length(3);
    // grpc-js leaves its data, end, trailers and close handlers (closures over the call) on each
    // stream; the session's churning stream map keeps such a stream alive through young-generation
    // GC until a full collection (release-closed-streams.ts).
    for (const { side, stream } of closed)
      expect({ side, listeners: listenersLeft(stream) }).to.deep.equal({ side, listeners: 0 });
  });
});

describe('gRPC: a closed stream its reader has not finished', () => {
  let server: RunningGrpcServer;
  let client: ContentServiceClient;
  const CHUNKS = 80;

  before(async () => {
    const send = serverStream<object, { delta: string }>(
      silentLogger(),
      async (_request, _context, sink) => {
        for (let i = 0; i < CHUNKS; i++) await sink.write({ delta: String(i) });
      },
    );
    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [
        {
          name: 'switchyard.content.v1.ContentService',
          definition: protos.content().ContentService.service,
          implementation: { GenerateStream: send },
        },
      ],
    });
    client = createClient(protos.content().ContentService, `127.0.0.1:${server.port}`);
  });

  after(async () => {
    client.close();
    await server.stop(0);
  });

  it('keeps its listeners until the reader has every message (the server finished long before)', async () => {
    // The server sends everything and closes the stream while the reader, pausing as an SSE
    // client on a slow link does, has read a fraction: releasing the stream at close lost the
    // rest, and the call ended at its deadline.
    const deltas: string[] = [];
    for await (const chunk of openServerStream<object, GenerateChunk__Output>(
      'content',
      client.GenerateStream,
      client,
      {},
      CONTEXT,
      3000,
    )) {
      deltas.push(chunk.delta ?? '');
      if (deltas.length % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(deltas).to.deep.equal(Array.from({ length: CHUNKS }, (_, i) => String(i)));
  });
});
