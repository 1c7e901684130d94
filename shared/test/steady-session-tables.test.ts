import { connect, createServer, type ClientHttp2Session, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import {
  PendingStreamTable,
  StreamTable,
  sessionTables,
  steadyHttp2SessionTables,
} from '../src/grpc/steady-session-tables';

describe('HTTP/2 session stream tables over arrays', () => {
  describe('StreamTable and PendingStreamTable', () => {
    it('get, set, has, delete and size as a Map', () => {
      const table = new StreamTable<string>([
        [1, 'a'],
        [3, 'b'],
      ]);
      table.set(5, 'c').set(3, 'B');
      expect([table.size, table.get(3), table.has(5), table.get(7)]).to.deep.equal([
        3,
        'B',
        true,
        undefined,
      ]);
      expect([table.delete(1), table.delete(1), table.size, table.get(5)]).to.deep.equal([
        true,
        false,
        2,
        'c',
      ]);
    });

    it('visits every entry in insertion order even when the callback deletes them', () => {
      const table = new StreamTable<string>([
        [1, 'a'],
        [3, 'b'],
        [5, 'c'],
      ]);
      const seen: number[] = [];
      table.forEach((_stream, id) => {
        seen.push(id);
        table.delete(id);
        table.delete(5);
      });
      expect(seen).to.deep.equal([1, 3, 5]);
      expect(table.size).to.equal(0);
    });

    it('add, delete, has and forEach as a Set', () => {
      const pending = new PendingStreamTable<string>(['a']);
      pending.add('b').add('a');
      expect(pending.size).to.equal(2);
      const seen: string[] = [];
      pending.forEach((stream) => (seen.push(stream), pending.delete(stream)));
      expect([seen, pending.size, pending.has('a')]).to.deep.equal([['a', 'b'], 0, false]);
    });
  });

  describe("in Node's HTTP/2 sessions", () => {
    let server: Http2Server;
    let client: ClientHttp2Session;
    const serverSessions: Parameters<typeof sessionTables>[0][] = [];

    before(async () => {
      steadyHttp2SessionTables();
      server = createServer();
      server.on('session', (session) => serverSessions.push(session));
      server.on('stream', (stream) => {
        stream.on('error', () => {}); // the last test's client goes away mid-stream
        stream.respond({ ':status': 200 });
        setTimeout(() => stream.end('ok'), 5);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      client = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });

    after(async () => {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
    });

    const get = () =>
      new Promise<string>((resolve, reject) => {
        const request = client.request({ ':path': '/' });
        let body = '';
        request.setEncoding('utf8');
        request.on('data', (chunk: string) => (body += chunk));
        request.on('end', () => resolve(body));
        request.on('error', reject);
      });

    it('replaces both ends’ tables (Node 24’s session state still has the shape relied on)', async () => {
      expect(await get()).to.equal('ok');
      for (const session of [client, serverSessions[0]!]) {
        const tables = sessionTables(session);
        expect(tables?.streams).to.be.instanceOf(StreamTable);
        expect(tables?.pendingStreams).to.be.instanceOf(PendingStreamTable);
      }
    });

    it('serves concurrent streams and leaves the tables empty', async () => {
      expect(await Promise.all(Array.from({ length: 50 }, get)))
        .to.have.length(50)
        .and.to.satisfy((bodies: string[]) => bodies.every((b) => b === 'ok'));
      await new Promise((resolve) => setImmediate(resolve));
      expect([
        sessionTables(client)!.streams.size,
        sessionTables(client)!.pendingStreams.size,
      ]).to.deep.equal([0, 0]);
    });

    it('destroys the streams in flight when the session is destroyed', async () => {
      const inFlight = Array.from({ length: 5 }, () =>
        get().then(
          () => 'ended',
          () => 'failed',
        ),
      );
      await new Promise((resolve) => setImmediate(resolve));
      client.on('error', () => {});
      client.destroy(new Error('going away'));
      expect(await Promise.all(inFlight)).to.deep.equal(Array(5).fill('failed'));
      expect(sessionTables(client)!.streams.size).to.equal(0);
    });
  });
});
