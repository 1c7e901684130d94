import { expect } from 'chai';
import { createClient } from '../src/grpc/client';
import { protos } from '../src/grpc/protos';
import { serverStream, startGrpcServer, type RunningGrpcServer } from '../src/grpc/server';
import { openServerStream } from '../src/grpc/server-stream';
import { silentLogger } from '../src/testing';
import type {
  ContentServiceClient,
  GenerateChunk__Output,
} from '../src/generated/switchyard/content/v1';

const CONTEXT = { organization: 'org_stream', keyId: 'key_1', requestId: 'req_stream' };

describe('gRPC: a server stream read slower than it was sent', () => {
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
