import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getClientChannel, type ChannelInterface } from '@grpc/grpc-js';
import { AppError } from '../src/errors/app-error';
import { callUnary, checkHealth, createClient } from '../src/grpc/client';
import { openServerStream } from '../src/grpc/server-stream';
import { protos } from '../src/grpc/protos';
import {
  serverStream,
  startGrpcServer,
  unary,
  type CallControl,
  type RunningGrpcServer,
} from '../src/grpc/server';
import { grpcClientMetrics } from '../src/grpc/client-metrics';
import { InProcessChannel } from '../src/grpc/in-process-channel';
import {
  checkInProcessChannel,
  stopUsingInProcessGrpc,
  useInProcessGrpc,
} from '../src/grpc/in-process';
import { IN_PROCESS_HIGH_WATER_MARK } from '../src/grpc/in-process-server';
import { grpcServerMetrics } from '../src/metrics';
import type { CallContext } from '../src/grpc/context';
import { silentLogger } from '../src/testing';
import type {
  ContentServiceClient,
  GenerateChunk__Output,
  GenerateRequest__Output,
  GenerateResponse__Output,
} from '../src/generated/switchyard/content/v1';

const SERVICE = 'switchyard.content.v1.ContentService';
const CONTEXT: CallContext = {
  organization: 'org_inproc',
  keyId: 'key_1',
  requestId: 'req_inproc',
  idempotencyKey: 'idem_1',
};

/** What the handlers saw, for the assertions on the server's side. */
interface Seen {
  context?: CallContext;
  control?: CallControl;
  aborted: Promise<void>;
  /** Resolves the wait of a "gate:<count>" stream after its first chunk. */
  openGate?: () => void;
}

/**
 * The content service's Generate and GenerateStream as a test server: the prompt says what to do.
 * "fail" fails with an AppError, "slow" waits for the caller to go away, "n:<count>" streams count
 * chunks, "fail-after:<count>" streams count chunks and fails, "gate:<count>" sends one chunk and
 * the rest once the test opens the gate.
 */
function implementation(seen: Seen) {
  const logger = silentLogger();
  const watch = (control: CallControl) => {
    seen.control = control;
    seen.aborted = new Promise((resolve) =>
      control.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
  };
  return {
    Generate: unary(logger, async (request: GenerateRequest__Output, context, control) => {
      seen.context = context;
      watch(control);
      if (request.prompt === 'fail') throw AppError.invalid('prompt is not allowed', '/prompt');
      if (request.prompt === 'fail-unicode')
        throw AppError.invalid('unknown field Straße in métadata', '/content/header/Straße');
      if (request.prompt === 'slow') await seen.aborted;
      return {
        content: `echo ${request.prompt}`,
        request_id: context.requestId,
        usage: { model: 'builtin', tokens_input: 2 },
      };
    }),
    GenerateStream: serverStream<GenerateRequest__Output, { delta: string }>(
      logger,
      async (request, _context, sink) => {
        watch(sink.control);
        const [kind, count] = request.prompt.split(':');
        if (kind === 'slow') {
          await sink.write({ delta: 'first' });
          await seen.aborted;
          return;
        }
        const gate =
          kind === 'gate' ? new Promise<void>((resolve) => (seen.openGate = resolve)) : undefined;
        for (let i = 0; i < Number(count); i++) {
          await sink.write({ delta: String(i) });
          if (i === 0) await gate;
        }
        if (kind === 'fail-after') throw AppError.notFound('no such model');
      },
    ),
  };
}

async function counter(
  registry: typeof grpcServerMetrics,
  metric: string,
  labels: Record<string, string>,
): Promise<number> {
  const values = (await registry.getSingleMetric(metric)!.get()).values;
  return (
    values.find((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))
      ?.value ?? 0
  );
}

for (const transport of ['in-process', 'unix socket'] as const) {
  describe(`gRPC between services of one process, ${transport}`, () => {
    let dir: string;
    let server: RunningGrpcServer;
    let client: ContentServiceClient;
    let address: string;
    const seen: Seen = { aborted: Promise.resolve() };

    before(async () => {
      if (transport === 'in-process') await useInProcessGrpc();
      else stopUsingInProcessGrpc();
      dir = mkdtempSync(join(tmpdir(), 'switchyard-inproc-'));
      const socket = join(dir, 'content.sock');
      address = `unix:${socket}`;
      server = await startGrpcServer({
        host: '127.0.0.1',
        port: 0,
        unixSocket: socket,
        services: [
          {
            name: SERVICE,
            definition: protos.content().ContentService.service,
            implementation: implementation(seen),
          },
        ],
      });
      client = createClient(protos.content().ContentService, address);
    });

    after(async () => {
      client.close();
      await server.stop(100);
      rmSync(dir, { recursive: true, force: true });
      stopUsingInProcessGrpc();
    });

    const generate = (prompt: string, deadlineMs = 5000) =>
      callUnary<{ prompt: string }, GenerateResponse__Output>(
        'content',
        client.Generate,
        client,
        { prompt },
        CONTEXT,
        deadlineMs,
      );
    const stream = (prompt: string, deadlineMs = 5000) =>
      openServerStream<{ prompt: string }, GenerateChunk__Output>(
        'content',
        client.GenerateStream,
        client,
        { prompt },
        CONTEXT,
        deadlineMs,
      );

    it(`uses the ${transport} transport`, () => {
      expect(getClientChannel(client) instanceof InProcessChannel).to.equal(
        transport === 'in-process',
      );
    });

    it('answers with the response as protobuf decodes it, and hands the caller context to the handler', async () => {
      const response = await generate('hello');
      expect(response).to.deep.equal({
        content: 'echo hello',
        request_id: 'req_inproc',
        usage: { model: 'builtin', tokens_input: 2, tokens_output: 0, cost: 0 },
      });
      expect(seen.context).to.deep.equal(CONTEXT);
      expect(seen.control?.deadline).to.be.a('number');
    });

    it("gives the caller the handler's AppError: code, message and details", async () => {
      const error = await generate('fail').catch((e: unknown) => e);
      expect(error).to.be.instanceOf(AppError);
      expect(error).to.include({ code: 'invalid_request', message: 'prompt is not allowed' });
      expect((error as AppError).details).to.deep.equal([
        { field: '/prompt', reason: 'prompt is not allowed' },
      ]);
    });

    it('carries error details in any alphabet (binary trailers), answering the call, never crashing', async () => {
      const error = await generate('fail-unicode').catch((e: unknown) => e);
      expect(error).to.be.instanceOf(AppError);
      expect(error).to.include({
        code: 'invalid_request',
        message: 'unknown field Straße in métadata',
      });
      expect((error as AppError).details).to.deep.equal([
        { field: '/content/header/Straße', reason: 'unknown field Straße in métadata' },
      ]);
    });

    it('fails a call whose context cannot travel in metadata as a 400 of its own, before sending it', async () => {
      for (const context of [
        { ...CONTEXT, idempotencyKey: 'clé-é' },
        { ...CONTEXT, organization: 'Zürich' },
      ]) {
        const call = callUnary<{ prompt: string }, GenerateResponse__Output>(
          'content',
          client.Generate,
          client,
          { prompt: 'hello' },
          context,
          5000,
        );
        const error = await call.catch((e: unknown) => e);
        expect(error).to.be.instanceOf(AppError).and.to.have.property('code', 'invalid_request');
      }
      expect(await generate('still serving')).to.have.property('content', 'echo still serving');
    });

    it('ends a call at its deadline as a timeout, and the handler hears the cancellation', async () => {
      const error = await generate('slow', 100).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(AppError).and.to.have.property('code', 'timeout');
      await seen.aborted;
      expect(seen.control?.signal.aborted).to.equal(true);
    });

    it('streams every chunk in order, past the transport window, to a slow reader', async () => {
      const chunks = 5 * IN_PROCESS_HIGH_WATER_MARK;
      const deltas: string[] = [];
      for await (const chunk of stream(`n:${chunks}`)) {
        deltas.push(chunk.delta ?? '');
        if (deltas.length % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      }
      expect(deltas).to.deep.equal(Array.from({ length: chunks }, (_, i) => String(i)));
    });

    it("ends a stream with the handler's AppError after the chunks sent before it", async () => {
      const deltas: string[] = [];
      const error = await (async () => {
        for await (const chunk of stream('fail-after:3')) deltas.push(chunk.delta ?? '');
      })().catch((e: unknown) => e);
      expect(deltas).to.deep.equal(['0', '1', '2']);
      expect(error).to.be.instanceOf(AppError).and.to.have.property('code', 'not_found');
    });

    it('lets the reader cancel a stream: reading ends quietly and the handler hears it', async () => {
      const call = stream('slow');
      const deltas: string[] = [];
      for await (const chunk of call) {
        deltas.push(chunk.delta ?? '');
        call.cancel();
      }
      expect(deltas).to.deep.equal(['first']);
      await seen.aborted;
      expect(seen.control?.signal.aborted).to.equal(true);
    });

    it('reports health, and counts the calls on both sides as the metrics name them', async () => {
      expect(await checkHealth(address, SERVICE)).to.equal('SERVING');
      const labels = { grpc_service: SERVICE, grpc_method: 'Generate', grpc_code: 'OK' };
      const before = {
        client: await counter(grpcClientMetrics, 'grpc_client_handled_total', labels),
        server: await counter(grpcServerMetrics, 'grpc_server_handled_total', labels),
      };
      await generate('counted');
      expect(
        (await counter(grpcClientMetrics, 'grpc_client_handled_total', labels)) - before.client,
      ).to.equal(1);
      expect(
        (await counter(grpcServerMetrics, 'grpc_server_handled_total', labels)) - before.server,
      ).to.equal(1);
    });

    it('lets a call in flight finish when the server stops, and answers unavailable after', async () => {
      const iterator = stream('gate:3')[Symbol.asyncIterator]();
      expect((await iterator.next()).value).to.have.property('delta', '0');
      const stopped = server.stop(2000);
      seen.openGate!();
      const rest: string[] = [];
      for (let next = await iterator.next(); !next.done; next = await iterator.next())
        rest.push(next.value.delta ?? '');
      expect(rest).to.deep.equal(['1', '2']);
      await stopped;
      const error = await generate('late', 1000).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(AppError).and.to.have.property('code', 'unavailable');
    });
  });
}

describe('in-process gRPC: when it is used', () => {
  afterEach(() => stopUsingInProcessGrpc());

  it('only once the entry point turned it on, and only for an address a server of this process serves', async () => {
    const off = mkdtempSync(join(tmpdir(), 'switchyard-inproc-'));
    const plain = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      unixSocket: join(off, 's.sock'),
      services: [],
    });
    const before = createClient(protos.health().Health, `unix:${join(off, 's.sock')}`);
    expect(getClientChannel(before)).not.to.be.instanceOf(InProcessChannel);
    before.close();
    await plain.stop(100);
    rmSync(off, { recursive: true, force: true });

    await useInProcessGrpc();
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-inproc-'));
    const server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      unixSocket: join(dir, 's.sock'),
      services: [],
    });
    try {
      const local = createClient(protos.health().Health, `unix:${join(dir, 's.sock')}`);
      const tcp = createClient(protos.health().Health, `127.0.0.1:${server.port}`);
      const elsewhere = createClient(protos.health().Health, `unix:${join(dir, 'other.sock')}`);
      expect(getClientChannel(local)).to.be.instanceOf(InProcessChannel);
      expect(getClientChannel(tcp)).not.to.be.instanceOf(InProcessChannel);
      expect(getClientChannel(elsewhere)).not.to.be.instanceOf(InProcessChannel);
      for (const client of [local, tcp, elsewhere]) client.close();
    } finally {
      await server.stop(100);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checks at start that the installed grpc-js drives the channel (a changed Call contract fails loudly)', async () => {
    await checkInProcessChannel();
    // A channel whose calls lack a method grpc-js uses: what a grpc-js upgrade that calls a new
    // one looks like.
    const withoutStartRead = (address: string): ChannelInterface => {
      const channel = new InProcessChannel(address);
      const createCall = channel.createCall.bind(channel);
      channel.createCall = (method, deadline) => {
        const call = createCall(method, deadline);
        const partial: Record<string, unknown> = {};
        for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(call)))
          if (name !== 'constructor' && name !== 'startRead')
            partial[name] = (call as unknown as Record<string, (...a: unknown[]) => unknown>)[
              name
            ]!.bind(call);
        return partial as unknown as ReturnType<typeof createCall>;
      };
      return channel;
    };
    const error = await checkInProcessChannel(withoutStartRead).catch((e: unknown) => e);
    expect(String(error)).to.match(/does not work with the installed @grpc\/grpc-js/);
    expect(String(error)).to.include('Call.startRead');
  });
});
