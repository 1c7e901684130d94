import { expect } from 'chai';
import { createServer, type Server } from 'node:net';
import { createClient } from '../src/grpc/client';
import { protos } from '../src/grpc/protos';

describe('gRPC client reconnection while a service is down', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it('tries to reach the service at least about once a second, however long it has been down', async function () {
    this.timeout(15_000);
    // A port that takes every connection and drops it at once, as a service that is not up yet:
    // each connection is one reconnection attempt of the channel.
    const attempts: number[] = [];
    server = createServer((socket) => {
      attempts.push(Date.now());
      socket.destroy();
    });
    const port = await new Promise<number>((resolve) =>
      server!.listen(0, '127.0.0.1', () => resolve((server!.address() as { port: number }).port)),
    );
    const client = createClient(protos.health().Health, `127.0.0.1:${port}`);
    const started = Date.now();
    // Calls keep coming, as under load (each fails at once or at its deadline).
    const calls = setInterval(
      () => client.Check({ service: '' }, { deadline: Date.now() + 150 }, () => undefined),
      100,
    );
    // grpc-js's own backoff (1 s growing by 1.6x) leaves a gap of 2 s or more within 5 s.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    clearInterval(calls);
    client.close();
    const ended = Date.now();
    const times = [started, ...attempts.filter((t) => t <= ended), ended];
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(
      Math.max(...gaps),
      `attempts at ${attempts.map((t) => t - started).join(', ')} ms`,
    ).to.be.below(1600);
  });
});
