import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkHealth } from '../src/grpc/client';
import { startGrpcServer, type RunningGrpcServer } from '../src/grpc/server';

describe('gRPC server on a Unix socket as well (callers on the same host)', () => {
  let dir: string;
  let server: RunningGrpcServer | undefined;

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'switchyard-test-'))));
  afterEach(async () => {
    await server?.stop(100);
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers on its TCP port and on the socket: the same server, the same services', async () => {
    const socket = join(dir, 'service.sock');
    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      unixSocket: socket,
      services: [],
    });
    expect(await checkHealth(`127.0.0.1:${server.port}`)).to.equal('SERVING');
    expect(await checkHealth(`unix:${socket}`)).to.equal('SERVING');
  });

  it('listens on TCP only without one', async () => {
    server = await startGrpcServer({ host: '127.0.0.1', port: 0, services: [] });
    expect(await checkHealth(`127.0.0.1:${server.port}`)).to.equal('SERVING');
    expect(await checkHealth(`unix:${join(dir, 'service.sock')}`, '', 300)).to.equal('UNREACHABLE');
  });

  it('fails to start, rather than serve TCP only, when the socket cannot be bound', async () => {
    const socket = join(dir, 'missing-directory', 'service.sock');
    let failed: unknown;
    await startGrpcServer({ host: '127.0.0.1', port: 0, unixSocket: socket, services: [] }).catch(
      (error: unknown) => (failed = error),
    );
    expect(failed).to.be.instanceOf(Error);
    expect(existsSync(socket)).to.equal(false);
  });
});
