'use strict';
/**
 * node bench/tracing/off-path.js  (after npm run build)
 *
 * What the tracing hooks cost on the request path while tracing is off (no OTEL_EXPORTER_OTLP_ENDPOINT),
 * measured in process so the figure does not depend on a shared machine's load: each hook the
 * request path passes, called directly, against the same work without it. Prints ns per call.
 */
const { Metadata } = require('@grpc/grpc-js');
const shared = require('../../shared/dist/src/index.js');

const N = 1_000_000;
const work = () => Promise.resolve(1);

async function timeIt(label, fn) {
  for (let i = 0; i < 10_000; i++) await fn(); // warm up
  const started = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await fn();
  const ns = Number(process.hrtime.bigint() - started) / N;
  return { label, ns };
}

async function main() {
  if (shared.tracingEnabled()) throw new Error('tracing must be off');
  const metadata = new Metadata();
  const rows = [];
  await timeIt('warm-up', work); // the first loop also warms the timing loop itself
  const baseline = await timeIt('await a resolved handler (baseline)', work);
  rows.push(baseline);
  rows.push(
    await timeIt('traceServerCall(path, metadata, handler)', () =>
      shared.traceServerCall('/switchyard.content.v1.ContentService/Generate', metadata, work),
    ),
  );
  rows.push(await timeIt('withSpan(name, spec, fn)', () => shared.withSpan('job', {}, work)));
  const event = shared.createEvent('usage.recorded', {
    source: 'content',
    organization: 'org',
    data: {
      requestId: 'req_1',
      keyId: 'k',
      route: 'content.generate',
      model: 'builtin',
      tokensInput: 1,
      tokensOutput: 1,
      cost: 0,
      outcome: 'succeeded',
    },
  });
  rows.push(
    await timeIt('tracePublish(system, topic, event, send)', () =>
      shared.tracePublish('in_memory', 'topic', event, work),
    ),
  );
  rows.push(
    await timeIt('traceConsume(system, topic, group, ctx, handle)', () =>
      shared.traceConsume('in_memory', 'topic', 'g', undefined, work),
    ),
  );
  rows.push(await timeIt('currentTraceCarrier()', async () => shared.currentTraceCarrier()));
  rows.push(
    await timeIt('traceLogFields() (the log mixin, per line)', async () => shared.traceLogFields()),
  );
  for (const row of rows)
    console.log(
      `${row.label.padEnd(58)} ${row.ns.toFixed(0).padStart(6)} ns/call (${row === baseline ? 'baseline' : `${row.ns >= baseline.ns ? '+' : ''}${(row.ns - baseline.ns).toFixed(0)}`})`,
    );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
