import * as http from 'node:http';
import { expect } from 'chai';
import { AppError } from '../src/errors/app-error';
import { callUnary, createClient } from '../src/grpc/client';
import { contextToMetadata } from '../src/grpc/context';
import { protos } from '../src/grpc/protos';
import { serverStream, startGrpcServer, unary, type RunningGrpcServer } from '../src/grpc/server';
import { grpcMethodLabels, grpcServerMetrics } from '../src/metrics';
import { grpcClientMetrics } from '../src/grpc/client-metrics';
import { startMetricsServer, type RunningMetricsServer } from '../src/metrics-server';
import { silentLogger } from '../src/testing';
import type {
  ContentServiceClient,
  GenerateRequest,
  GenerateRequest__Output,
  GenerateResponse__Output,
} from '../src/generated/switchyard/content/v1';

const SERVICE = 'switchyard.content.v1.ContentService';
const CONTEXT = { organization: 'org_metrics', keyId: 'key_1', requestId: 'req_metrics' };

/** A sample of a metric in grpcServerMetrics (0 when the series does not exist yet). */
async function sample(
  metric: string,
  labels: Record<string, string>,
  name = metric,
  registry = grpcServerMetrics,
): Promise<number> {
  const values = (await registry.getSingleMetric(metric)!.get()).values;
  const found = values.find(
    (v) =>
      ((v as { metricName?: string }).metricName ?? metric) === name &&
      Object.entries(labels).every(([k, value]) => v.labels[k] === value),
  );
  return found?.value ?? 0;
}

const handled = (method: string, code: string) =>
  sample('grpc_server_handled_total', {
    grpc_service: SERVICE,
    grpc_method: method,
    grpc_code: code,
  });
const timed = (method: string, code: string) =>
  sample(
    'grpc_server_handling_seconds',
    { grpc_service: SERVICE, grpc_method: method, grpc_code: code },
    'grpc_server_handling_seconds_count',
  );

/** Everything the test counts, read before and after so other suites' calls do not matter. */
async function snapshot() {
  return {
    unaryOk: await handled('Generate', 'OK'),
    unaryInvalid: await handled('Generate', 'INVALID_ARGUMENT'),
    unaryOkTimed: await timed('Generate', 'OK'),
    unaryInvalidTimed: await timed('Generate', 'INVALID_ARGUMENT'),
    streamOk: await handled('GenerateStream', 'OK'),
    streamNotFound: await handled('GenerateStream', 'NOT_FOUND'),
  };
}

/** A stand-in handler: an empty prompt is invalid. */
async function generate(request: GenerateRequest__Output) {
  if (request.prompt === '') throw AppError.invalid('prompt is required', '/prompt');
  return { content: `echo ${request.prompt}` };
}

function httpGet(
  port: number,
  path: string,
): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }),
        );
      })
      .on('error', reject);
  });
}

describe('gRPC server metrics', () => {
  let server: RunningGrpcServer;
  let client: ContentServiceClient;

  before(async () => {
    const logger = silentLogger();
    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [
        {
          name: SERVICE,
          definition: protos.content().ContentService.service,
          implementation: {
            Generate: unary(logger, generate),
            GenerateStream: serverStream<GenerateRequest__Output, { delta: string }>(
              logger,
              async (request, _context, sink) => {
                if (request.prompt === 'missing') throw AppError.notFound('no such prompt');
                await sink.write({ delta: request.prompt });
              },
            ),
          },
        },
      ],
    });
    client = createClient(protos.content().ContentService, `127.0.0.1:${server.port}`);
  });

  after(async () => {
    client.close();
    await server.stop(100);
  });

  function stream(prompt: string): Promise<{ chunks: number; error?: Error }> {
    return new Promise((resolve) => {
      let chunks = 0;
      const call = client.GenerateStream({ prompt }, contextToMetadata(CONTEXT));
      call.on('data', () => (chunks += 1));
      call.on('error', (error: Error) => resolve({ chunks, error }));
      call.on('end', () => resolve({ chunks }));
    });
  }

  it('counts and times the client side of every call made through createClient', async () => {
    const labels = (code: string) => ({
      grpc_service: SERVICE,
      grpc_method: 'Generate',
      grpc_code: code,
    });
    const clientHandled = (code: string) =>
      sample(
        'grpc_client_handled_total',
        labels(code),
        'grpc_client_handled_total',
        grpcClientMetrics,
      );
    const timedOk = () =>
      sample(
        'grpc_client_handling_seconds',
        labels('OK'),
        'grpc_client_handling_seconds_count',
        grpcClientMetrics,
      );
    const before = {
      ok: await clientHandled('OK'),
      invalid: await clientHandled('INVALID_ARGUMENT'),
      timed: await timedOk(),
    };
    await callUnary('content', client.Generate, client, { prompt: 'hi' }, CONTEXT, 5000);
    await callUnary('content', client.Generate, client, { prompt: '' }, CONTEXT, 5000).catch(
      () => undefined,
    );
    expect((await clientHandled('OK')) - before.ok).to.equal(1);
    expect((await clientHandled('INVALID_ARGUMENT')) - before.invalid).to.equal(1);
    expect((await timedOk()) - before.timed).to.equal(1);
  });

  it('labels calls by service and method from the path', () => {
    expect(grpcMethodLabels('/switchyard.content.v1.ContentService/Generate')).to.deep.equal({
      grpc_service: SERVICE,
      grpc_method: 'Generate',
    });
  });

  it('counts and times unary calls by their gRPC status name', async () => {
    const before = await snapshot();
    const ok = await callUnary<GenerateRequest, GenerateResponse__Output>(
      'content',
      client.Generate,
      client,
      { prompt: 'hi' },
      CONTEXT,
      5000,
    );
    expect(ok.content).to.equal('echo hi');
    const failure = await callUnary(
      'content',
      client.Generate,
      client,
      { prompt: '' },
      CONTEXT,
      5000,
    ).catch((e: unknown) => e);
    expect(failure).to.be.instanceOf(AppError).and.to.have.property('code', 'invalid_request');

    const after = await snapshot();
    expect(after.unaryOk - before.unaryOk).to.equal(1);
    expect(after.unaryInvalid - before.unaryInvalid).to.equal(1);
    expect(after.unaryOkTimed - before.unaryOkTimed).to.equal(1);
    expect(after.unaryInvalidTimed - before.unaryInvalidTimed).to.equal(1);
    expect(after.streamOk - before.streamOk).to.equal(0);
  });

  it('counts server streams when they end or fail', async () => {
    const before = await snapshot();
    expect(await stream('hello')).to.deep.equal({ chunks: 1 });
    const failed = await stream('missing');
    expect(failed.error).to.have.property('code', 5);

    const after = await snapshot();
    expect(after.streamOk - before.streamOk).to.equal(1);
    expect(after.streamNotFound - before.streamNotFound).to.equal(1);
    expect(after.unaryOk - before.unaryOk).to.equal(0);
  });

  describe('startMetricsServer', () => {
    let metrics: RunningMetricsServer;

    before(async () => {
      metrics = await startMetricsServer({
        host: '127.0.0.1',
        port: 0,
        registries: [grpcServerMetrics],
        logger: silentLogger(),
      });
    });

    after(() => metrics.stop());

    it('serves the registries and the process metrics on GET /metrics, 404 elsewhere', async () => {
      await callUnary('content', client.Generate, client, { prompt: 'scraped' }, CONTEXT, 5000);
      expect(metrics.port).to.be.greaterThan(0);
      const response = await httpGet(metrics.port, '/metrics');
      expect(response.status).to.equal(200);
      expect(response.type).to.match(/^text\/plain/);
      expect(response.body).to.include('# TYPE grpc_server_handling_seconds histogram');
      const okLine = response.body
        .split('\n')
        .find((line) =>
          line.startsWith(
            `grpc_server_handled_total{grpc_service="${SERVICE}",grpc_method="Generate",grpc_code="OK"}`,
          ),
        );
      expect(Number(okLine?.split(' ')[1])).to.equal(await handled('Generate', 'OK'));
      expect(response.body).to.match(/^process_cpu_user_seconds_total /m);
      expect((await httpGet(metrics.port, '/')).status).to.equal(404);
      expect((await httpGet(metrics.port, '/metrics/x')).status).to.equal(404);
    });
  });
});
