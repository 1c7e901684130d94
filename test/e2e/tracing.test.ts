import { expect } from 'chai';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { startTracing, stopTracing, Topics } from '@switchyard/shared';
import { waitFor } from '@switchyard/shared/testing';
import { EMBEDDED_SERVICES, startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { callApi, type ApiOptions } from '../support/http';
import { captureLog, type CapturedLog } from '../support/log-capture';
import { E2E_ENV } from '../support/mesh';
import { WebhookReceiver } from '../support/receiver';

const serviceOf = (span: ReadableSpan) => span.resource.attributes['service.name'];
const label = (span: ReadableSpan) => `${serviceOf(span)}: ${span.name}`;

/**
 * Issue 14, tracing: the embedded mesh with tracing on (every span into an in-memory exporter);
 * one asynchronous generate with a webhookUrl is one trace from the gateway's HTTP span through
 * gRPC, the content job and its model call, the bus, notification's consumer, to the webhook POST,
 * whose traceparent header names that trace.
 */
describe('e2e: tracing, one trace from the HTTP request to the webhook POST', function () {
  this.timeout(60_000);
  const exporter = new InMemorySpanExporter();
  let mesh: EmbeddedMesh;
  let log: CapturedLog;
  let receiver: WebhookReceiver;
  const api = (path: string, options?: ApiOptions) =>
    callApi(mesh.gatewayUrl, mesh.apiKey, path, options);
  const spansOf = (traceId: string) =>
    exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);

  before(async () => {
    startTracing(EMBEDDED_SERVICES, { exporter, env: {} });
    log = captureLog();
    receiver = await new WebhookReceiver().start();
    mesh = await startEmbeddedMesh({ ...E2E_ENV, LOG_LEVEL: 'info' }, log.logger);
  });

  after(async () => {
    await mesh?.stop();
    await receiver?.stop();
    await stopTracing();
  });

  it('gateway -> content -> bus -> notification -> webhook POST is one trace, and the receiver gets its traceparent', async () => {
    const accepted = await api('/api/v2/ai/content/generate', {
      body: { prompt: 'A traced note about our spring sale', webhookUrl: receiver.url },
    });
    expect(accepted.status).to.equal(202);
    const call = await waitFor(() => receiver.calls[0], 10_000);
    const [version, traceId, parentId, flags] = String(call.headers.traceparent).split('-');
    expect(version).to.equal('00');
    expect(traceId).to.match(/^[0-9a-f]{32}$/);
    expect(flags).to.equal('01');

    const webhookSpan = await waitFor(
      () => spansOf(traceId!).find((s) => s.name === 'webhook POST'),
      5000,
    );
    expect(webhookSpan.spanContext().spanId, "the header names the delivery's span").to.equal(
      parentId,
    );
    expect(webhookSpan.attributes).to.include({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
    });

    const gatewaySpan = spansOf(traceId!).find(
      (s) => s.kind === SpanKind.SERVER && serviceOf(s) === 'gateway',
    )!;
    expect(gatewaySpan, "the gateway's HTTP server span is in the webhook's trace").to.not.equal(
      undefined,
    );
    expect(gatewaySpan.name).to.equal('POST /api/v2/ai/content/generate');
    expect(gatewaySpan.attributes).to.include({
      'http.response.status_code': 202,
      'switchyard.request_id': accepted.body.requestId,
    });
    expect(gatewaySpan.parentSpanContext, 'a new trace starts at the gateway').to.equal(undefined);

    // Parent by parent from the webhook POST back to the gateway: every hop is in the chain.
    const byId = new Map(spansOf(traceId!).map((s) => [s.spanContext().spanId, s]));
    const chain: string[] = [];
    for (
      let span: ReadableSpan | undefined = webhookSpan;
      span;
      span = byId.get(span.parentSpanContext?.spanId ?? '')
    )
      chain.push(label(span));
    expect(chain).to.deep.equal([
      'notification: webhook POST',
      `notification: process ${Topics.results}`,
      `content: send ${Topics.results}`,
      'content: generate job',
      'content: switchyard.content.v1.ContentService/SubmitGenerate',
      'gateway: switchyard.content.v1.ContentService/SubmitGenerate',
      'gateway: POST /api/v2/ai/content/generate',
    ]);
    expect(new Set(spansOf(traceId!).map(serviceOf))).to.include.members([
      'gateway',
      'content',
      'notification',
    ]);

    const modelSpan = spansOf(traceId!).find(
      (s) => s.attributes['gen_ai.request.model'] !== undefined,
    )!;
    expect(label(modelSpan)).to.equal('content: text_completion builtin');
    expect(modelSpan.attributes).to.include({
      'gen_ai.request.model': 'builtin',
      'gen_ai.provider.name': 'builtin',
      'gen_ai.operation.name': 'text_completion',
    });
    expect(modelSpan.attributes['gen_ai.usage.input_tokens']).to.be.a('number').greaterThan(0);
    expect(modelSpan.attributes['gen_ai.usage.output_tokens']).to.be.a('number').greaterThan(0);
    expect(call.body.usage.totalTokens).to.equal(
      Number(modelSpan.attributes['gen_ai.usage.input_tokens']) +
        Number(modelSpan.attributes['gen_ai.usage.output_tokens']),
    );

    // The gateway's request log line carries the trace.
    const requestLine = log
      .text()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.msg === 'request' && line.requestId === accepted.body.requestId);
    expect(requestLine).to.include({
      trace_id: traceId,
      span_id: gatewaySpan.spanContext().spanId,
    });
  });

  it('a retried delivery stays in the trace: each attempt is a span under the same consuming span', async () => {
    const before = receiver.calls.length;
    receiver.respondWith((_call, index) => (index === before ? { status: 503 } : { status: 200 }));
    const accepted = await api('/api/v2/ai/content/generate', {
      body: { prompt: 'A traced note that is retried', webhookUrl: receiver.url },
    });
    expect(accepted.status).to.equal(202);
    const calls = await waitFor(
      () => (receiver.calls.length >= before + 2 ? receiver.calls.slice(before) : undefined),
      10_000,
    );
    const [first, second] = calls.map((call) => String(call.headers.traceparent).split('-'));
    expect(second![1], 'the retry (from the durable schedule) carries the same trace id').to.equal(
      first![1],
    );
    expect(second![2]).to.not.equal(first![2]);
    const attempts = await waitFor(() => {
      const found = spansOf(first![1]!).filter((s) => s.name === 'webhook POST');
      return found.length === 2 ? found : undefined;
    }, 5000);
    expect(attempts.map((s) => s.attributes['http.response.status_code']).sort()).to.deep.equal([
      200, 503,
    ]);
    expect(attempts[0]!.parentSpanContext!.spanId).to.equal(attempts[1]!.parentSpanContext!.spanId);
  });

  it('traces no probe: /readyz (and its gRPC health checks) and /healthz make no span', async () => {
    const before = exporter.getFinishedSpans().length;
    expect((await api('/readyz', { key: null })).status).to.equal(200);
    expect((await api('/healthz', { key: null })).status).to.equal(200);
    await api('/api/v2/models');
    // The models call's spans are the only new ones (they end before its answer is sent).
    const added = await waitFor(() => {
      const spans = exporter.getFinishedSpans().slice(before);
      return spans.some((s) => s.name === 'GET /api/v2/models') ? spans : undefined;
    }, 5000);
    expect(added.filter((s) => /readyz|healthz|grpc\.health/.test(s.name))).to.deep.equal([]);
  });

  it('continues a trace the client started (traceparent on the request), into the gRPC services', async () => {
    const clientTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const clientSpan = '00f067aa0ba902b7';
    const res = await api('/api/v2/models', {
      headers: { traceparent: `00-${clientTrace}-${clientSpan}-01` },
    });
    expect(res.status).to.equal(200);
    const spans = await waitFor(() => {
      const found = spansOf(clientTrace);
      return found.some((s) => s.kind === SpanKind.SERVER && serviceOf(s) === 'gateway')
        ? found
        : undefined;
    }, 5000);
    const gatewaySpan = spans.find(
      (s) => s.kind === SpanKind.SERVER && serviceOf(s) === 'gateway',
    )!;
    expect(gatewaySpan.parentSpanContext?.spanId).to.equal(clientSpan);
    expect(
      spans.some((s) => s.kind === SpanKind.SERVER && serviceOf(s) === 'content'),
      'the content server span joins it',
    ).to.equal(true);
  });
});
