import { expect } from 'chai';
import { createServer, connect, type Socket } from 'node:net';
import { MongoClient, MongoServerError } from 'mongodb';
import { AppError } from '../src/errors/app-error';
import { DependencyUnavailableError, outageOf } from '../src/resilience/dependencies';
import { endpointOf, uniqueName, waitFor } from '../src/testing';

describe('MongoDB outage classification', () => {
  it('calls a server shutting down or not primary an outage, and a refused command not', () => {
    const answer = (code: number) => new MongoServerError({ message: 'x', code, ok: 0 });
    expect(outageOf(answer(91)), 'ShutdownInProgress').to.equal('mongodb');
    expect(outageOf(answer(11600)), 'InterruptedAtShutdown').to.equal('mongodb');
    expect(outageOf(answer(10107)), 'NotWritablePrimary').to.equal('mongodb');
    expect(outageOf(answer(11000)), 'duplicate key').to.equal(undefined);
    expect(outageOf(answer(2)), 'BadValue').to.equal(undefined);
  });

  it('calls an AppError raised because of an outage an outage, and nothing else by its cause', () => {
    const raised = (cause: unknown) => {
      const error = new AppError('unavailable', 'usage could not be recorded', [], 1);
      error.cause = cause;
      return error;
    };
    const refusedConnection = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2550'), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
    });
    expect(outageOf(raised(new MongoServerError({ message: 'x', code: 91, ok: 0 })))).to.equal(
      'mongodb',
    );
    expect(outageOf(raised(raised(new DependencyUnavailableError('kafka'))))).to.equal('kafka');
    expect(outageOf(raised(new MongoServerError({ message: 'x', code: 11000, ok: 0 })))).to.equal(
      undefined,
    );
    // An HTTP client's failure (fetch wraps the socket error) is not a database outage.
    expect(outageOf(new TypeError('fetch failed', { cause: refusedConnection }))).to.equal(
      undefined,
    );
  });

  for (const operation of ['insertOne', 'insertMany'] as const)
    it(`calls the driver's socket error an outage: the server drops a connection ${operation} is being written to`, async function () {
      this.timeout(20_000);
      const [host, port] = endpointOf('mongo')!
        .replace(/^mongodb:\/\//, '')
        .split(/[:/]/);
      // A proxy to the server, whose connections can be stalled and then reset.
      const clients: Socket[] = [];
      const proxy = createServer((client) => {
        const server = connect(Number(port), host);
        client.pipe(server).pipe(client);
        client.on('error', () => undefined);
        server.on('error', () => undefined);
        clients.push(client);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const { port: proxyPort } = proxy.address() as { port: number };
      const mongo = new MongoClient(`mongodb://127.0.0.1:${proxyPort}/?directConnection=true`, {
        serverSelectionTimeoutMS: 800,
        retryWrites: false,
        monitorCommands: true,
      });
      // The driver announces a command, then writes it to the socket in the same turn.
      let insertSent = false;
      mongo.on('commandStarted', (event) => {
        if (event.commandName === 'insert') insertSent = true;
      });
      try {
        await mongo.connect();
        const collection = mongo.db(uniqueName('outage')).collection('x');
        await collection.findOne({});
        // The server stops reading: a command larger than the socket buffers waits for 'drain'...
        for (const client of clients) client.unpipe().pause();
        const blob = { blob: 'x'.repeat(15 * 1024 * 1024) };
        // insertMany goes through the bulk path: the driver wraps the socket error in MongoBulkWriteError.
        const write =
          operation === 'insertOne' ? collection.insertOne(blob) : collection.insertMany([blob]);
        const written = write.then(
          () => undefined,
          (error: unknown) => error,
        );
        await waitFor(() => insertSent, 10_000);
        // ...when the connection is dropped.
        for (const client of clients) client.resetAndDestroy();
        const error = await written;
        expect(error, 'the insert failed').to.be.instanceOf(Error);
        expect(outageOf(error), `${(error as Error).constructor.name}: ${String(error)}`).to.equal(
          'mongodb',
        );
      } finally {
        await mongo.close().catch(() => undefined);
        proxy.close();
      }
    });
});
