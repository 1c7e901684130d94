import { expect } from 'chai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { SpanKind, type SpanContext } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { InMemoryOutboxStore } from '../src/adapters/outbox-store';
import { OutboxPublisher } from '../src/adapters/outbox';
import { InMemoryEventBus } from '../src/adapters/in-memory-event-bus';
import { createLogger } from '../src/logging/logger';
import { Topics } from '../src/events/topics';
import type { AnyEvent } from '../src/events/envelope';
import {
  currentTraceCarrier,
  readTracingSettings,
  startTracing,
  stopTracing,
  tracingEnabled,
  withSpan,
} from '../src/tracing/index';
import { silentLogger, waitFor } from '../src/testing';
import { usageEvent } from './outbox-fixtures';

/** Runs fn in a span of service "test" and returns that span's context. */
function inRequestSpan(fn: () => Promise<void>): Promise<SpanContext> {
  return withSpan('request', { service: 'test' }, async (span) => {
    await fn();
    return span.spanContext();
  });
}

function named(exporter: InMemorySpanExporter, name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

describe('tracing', () => {
  describe('settings', () => {
    it('is off without OTEL_EXPORTER_OTLP_ENDPOINT and starts nothing', () => {
      expect(readTracingSettings({})).to.deep.equal({});
      expect(startTracing('test', { env: {} })).to.equal(false);
      expect(tracingEnabled()).to.equal(false);
      expect(currentTraceCarrier()).to.equal(undefined);
    });

    it('takes an http(s) base URL and refuses anything else at boot', () => {
      expect(
        readTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318/' }),
      ).to.deep.equal({ otlpEndpoint: 'http://otel-collector:4318' });
      expect(() =>
        readTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'otel-collector:4318' }),
      ).to.throw(/OTEL_EXPORTER_OTLP_ENDPOINT/);
      expect(() => readTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).to.throw(
        /OTEL_EXPORTER_OTLP_ENDPOINT/,
      );
    });
  });

  it('exports over OTLP/HTTP (protobuf) to <OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces, flushed on stop', async () => {
    const received: Array<{ path?: string; type?: string; body: Buffer }> = [];
    const collector = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        received.push({
          path: req.url,
          type: req.headers['content-type'],
          body: Buffer.concat(parts),
        });
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/`;
      expect(
        startTracing('exporting-service', { env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } }),
      ).to.equal(true);
      await withSpan('exported-span', {}, async () => undefined);
      await stopTracing();
      expect(received).to.have.length(1);
      expect(received[0]).to.include({ path: '/v1/traces', type: 'application/x-protobuf' });
      // Protobuf keeps strings as they are: the span's name and its service's name are in the body.
      expect(received[0]!.body.includes('exported-span')).to.equal(true);
      expect(received[0]!.body.includes('exporting-service')).to.equal(true);
    } finally {
      await stopTracing();
      collector.close();
    }
  });

  describe('while on', () => {
    // A fresh exporter per test: stopping tracing shuts the exporter down.
    let exporter: InMemorySpanExporter;
    beforeEach(() => {
      exporter = new InMemorySpanExporter();
      startTracing(['test', 'other'], { exporter, env: {} });
    });
    afterEach(() => stopTracing());

    it('log lines inside a span carry its trace_id and span_id; lines outside carry none', async () => {
      const lines: Array<Record<string, unknown>> = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          lines.push(JSON.parse(String(chunk)));
          done();
        },
      });
      const logger = createLogger('test', 'info', sink);
      logger.info('outside');
      const inside = await inRequestSpan(async () => logger.info({ extra: 1 }, 'inside'));
      expect(lines[0]).to.not.have.any.keys('trace_id', 'span_id');
      expect(lines[1]).to.include({
        trace_id: inside.traceId,
        span_id: inside.spanId,
        extra: 1,
        msg: 'inside',
      });
    });

    it('names each span after the service whose work it is (one process, several services)', async () => {
      await withSpan('a', { service: 'other' }, () => withSpan('b', {}, async () => undefined));
      const [b] = named(exporter, 'b');
      expect(b!.resource.attributes['service.name']).to.equal('other');
    });

    it('an event stored in the outbox while the bus is down is relayed later in the trace it was published in', async () => {
      const bus = new InMemoryEventBus({ retryBaseMs: 5 });
      let down = true;
      const flaky = {
        publish: (event: AnyEvent) =>
          down ? Promise.reject(new Error('broker down')) : bus.publish(event),
      };
      const store = new InMemoryOutboxStore();
      const outbox = new OutboxPublisher({
        bus: flaky,
        store,
        logger: silentLogger(),
        publishTimeoutMs: 50,
        relayIntervalMs: 10,
        maxBackoffMs: 20,
      });
      await outbox.start();
      const consumed: string[] = [];
      await bus.subscribe({
        group: 'other-consumer',
        topics: [Topics.usage],
        handler: async () => void consumed.push(currentTraceCarrier()!.traceparent!),
      });

      const request = await inRequestSpan(() => outbox.publish(usageEvent(1)));
      const [stored] = await store.oldest(1);
      expect(stored!.trace!.traceparent).to.equal(`00-${request.traceId}-${request.spanId}-01`);

      // The relay runs from a timer, outside any request: the event still joins the request's trace.
      down = false;
      await waitFor(() => named(exporter, `process ${Topics.usage}`).length === 1, 5000);
      await outbox.stop();
      const [producer] = named(exporter, `send ${Topics.usage}`);
      const [consumer] = named(exporter, `process ${Topics.usage}`);
      expect(producer!.spanContext().traceId).to.equal(request.traceId);
      expect(producer!.parentSpanContext!.spanId).to.equal(request.spanId);
      expect(producer!.kind).to.equal(SpanKind.PRODUCER);
      expect(consumer!.parentSpanContext!.spanId).to.equal(producer!.spanContext().spanId);
      expect(consumer!.kind).to.equal(SpanKind.CONSUMER);
      expect(consumer!.resource.attributes['service.name']).to.equal('other');
      expect(consumer!.attributes).to.include({
        'messaging.consumer.group.name': 'other-consumer',
        'messaging.message.id': stored!.event.id,
      });
      expect(consumed).to.deep.equal([
        `00-${request.traceId}-${consumer!.spanContext().spanId}-01`,
      ]);
      await bus.close();
    });
  });
});
