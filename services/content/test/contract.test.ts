import { expect } from 'chai';
import {
  AppError,
  callUnary,
  createClient,
  DependencyUnavailableError,
  InMemoryEventBus,
  InMemoryOutboxStore,
  protos,
  type AnyEvent,
  type CallContext,
  type EventBus,
  type OutboxStore,
  type RunningService,
} from '@switchyard/shared';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import type { ContentServiceClient } from '@switchyard/shared/proto/content/v1';
import { countTokens } from '@switchyard/shared';
import {
  inMemoryStores,
  loadContentConfig,
  startContentService,
  type TextModel,
} from '../src/server';
import { BuiltinModel } from '../src/models/builtin/builtin-model';
import { FlakyBus, collectEvents, context, rejection } from './helpers';

interface Harness {
  service: RunningService;
  client: ContentServiceClient;
  events: AnyEvent[];
  call<Res>(method: string, request: object, ctx?: CallContext): Promise<Res>;
  close(): Promise<void>;
}

async function startHarness(
  options: {
    bus?: EventBus;
    models?: TextModel[];
    defaultModel?: string;
    outboxStore?: OutboxStore;
  } = {},
): Promise<Harness> {
  const bus = options.bus ?? new InMemoryEventBus();
  const events = await collectEvents(bus);
  const config = {
    ...loadContentConfig({}),
    grpcHost: '127.0.0.1',
    grpcPort: 0,
    maxInputTokens: 2000,
    defaultModel: options.defaultModel ?? 'builtin',
    outboxRelayIntervalMs: 20,
    outboxPublishTimeoutMs: 500,
  };
  const service = await startContentService({
    config,
    bus,
    logger: silentLogger(),
    models: options.models,
    stores: options.outboxStore && {
      ...inMemoryStores({ owner: config.instanceId, leaseMs: config.requestLeaseMs }),
      outbox: options.outboxStore,
    },
    stopGraceMs: 1000,
  });
  const client = createClient(protos.content().ContentService, `127.0.0.1:${service.port}`);
  return {
    service,
    client,
    events,
    call: <Res>(method: string, request: object, ctx: CallContext = context()) => {
      const fn = (
        client as unknown as Record<string, Parameters<typeof callUnary<object, Res>>[1]>
      )[method]!;
      return callUnary<object, Res>('content', fn, client, request, ctx, 5000);
    },
    close: async () => {
      client.close();
      await service.stop();
      await bus.close();
    },
  };
}

const usageFor = (events: AnyEvent[], requestId: string) =>
  events.filter((e) => e.type === 'usage.recorded' && e.data.requestId === requestId);

/** A provider stand-in that fails upstream, or answers slowly, to exercise the async paths. */
function fakeModel(id: string, behaviour: 'fail' | 'slow'): TextModel {
  const builtin = new BuiltinModel();
  return {
    info: { ...builtin.info, id, provider: 'fake', aliases: [], languages: undefined },
    generate: async (input) => {
      if (behaviour === 'fail') throw new AppError('upstream_error', 'provider answered 500');
      await new Promise((resolve) => setTimeout(resolve, 150));
      return { text: `slow answer to ${input.prompt}`, tokensInput: 3, tokensOutput: 4 };
    },
    summarize: (input) => builtin.summarize(input),
    reformat: (input) => builtin.reformat(input),
    translate: (input) => builtin.translate(input),
  };
}

describe('content service gRPC contract', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  it('ListModels reports the builtin model as default', async () => {
    const response = await h.call<{ models: Array<Record<string, unknown>> }>('ListModels', {});
    // The bundled registry adds Apertium only where it is installed (translation.test.ts covers
    // it) and the embedding model once fetched (onnx-embedder.test.ts).
    const ids = response.models.map((m) => m.id).filter((id) => id !== 'all-minilm-l6-v2');
    expect(ids.join(',')).to.be.oneOf(['builtin', 'builtin,apertium']);
    expect(response.models[0]).to.deep.include({
      id: 'builtin',
      provider: 'builtin',
      capabilities: ['generate', 'summarize', 'reformat'],
      input_price_per_million: 0,
      output_price_per_million: 0,
      is_default: true,
    });
  });

  it('Generate answers content, usage and the request id, and publishes one usage event', async () => {
    const ctx = context();
    const response = await h.call<{
      content: string;
      usage: Record<string, number | string>;
      request_id: string;
    }>(
      'Generate',
      {
        prompt: 'Write a product description for a smart kettle with app control',
        tone: 'casual',
        language: 'en',
        max_length: 60,
      },
      ctx,
    );
    expect(response.request_id).to.equal(ctx.requestId);
    expect(response.content).to.include('Smart Kettle');
    expect(countTokens(response.content)).to.be.at.most(60);
    expect(response.usage).to.deep.equal({
      model: 'builtin',
      tokens_input: countTokens('Write a product description for a smart kettle with app control'),
      tokens_output: countTokens(response.content),
      cost: 0,
    });
    await waitFor(() => usageFor(h.events, ctx.requestId).length === 1);
    const usage = usageFor(h.events, ctx.requestId)[0]!;
    expect(usage.organization).to.equal('org_a');
    expect(usage.data).to.deep.include({
      route: 'content.generate',
      keyId: 'key_1',
      model: 'builtin',
      outcome: 'succeeded',
    });
  });

  it('Generate rejects bad input with the exact codes and fields', async () => {
    const cases: Array<[object, string, string | undefined]> = [
      [{ prompt: '' }, 'invalid_request', '/prompt'],
      [{ prompt: 'hi', model: 'gpt-unknown' }, 'invalid_request', '/model'],
      [{ prompt: 'hi', max_length: 0 }, 'invalid_request', '/max_length'],
      [{ prompt: 'hi', language: 'it' }, 'unsupported', '/language'],
      [{ prompt: 'word '.repeat(3000) }, 'payload_too_large', '/prompt'],
    ];
    for (const [request, code, field] of cases) {
      const error = await rejection(h.call('Generate', request));
      expect(error.code, JSON.stringify(request).slice(0, 60)).to.equal(code);
      expect(error.details[0]?.field).to.equal(field);
    }
    const unknownModel = await rejection(
      h.call('Generate', { prompt: 'hi', model: 'gpt-unknown' }),
    );
    expect(unknownModel.message).to.include('known models: builtin');
  });

  it('Transform summarize, reformat and translate', async () => {
    const text =
      'Rust is a systems language. It gives memory safety without a garbage collector. Rust programs are fast. Many companies adopt Rust for safety. My lunch was a sandwich.';
    const ctx = context();
    const summary = await h.call<Record<string, unknown>>(
      'Transform',
      { action: 'summarize', text, target_length: 'short' },
      ctx,
    );
    expect(summary).to.deep.include({ request_id: ctx.requestId, original_length: text.length });
    expect((summary.transformed_text as string).length).to.be.lessThan(text.length);
    expect(summary.usage).to.deep.include({ model: 'builtin', tokens_input: countTokens(text) });
    await waitFor(() => usageFor(h.events, ctx.requestId).length === 1);
    expect(usageFor(h.events, ctx.requestId)[0]!.data).to.deep.include({
      route: 'content.transform',
      outcome: 'succeeded',
    });

    const reformatted = await h.call<Record<string, unknown>>('Transform', {
      action: 'reformat',
      text: 'a,b\n1,2',
      format: 'json',
    });
    expect(reformatted.original_format).to.equal('csv');
    expect(JSON.parse(reformatted.transformed_text as string)).to.deep.equal([{ a: 1, b: 2 }]);

    const unsupported = await rejection(
      h.call('Transform', {
        action: 'reformat',
        text: 'Just prose here. Nothing tabular.',
        format: 'csv',
      }),
    );
    expect(unsupported.code).to.equal('unsupported');

    const translate = await rejection(
      h.call('Transform', {
        action: 'translate',
        text: 'Hello',
        source_language: 'en',
        target_language: 'de',
      }),
    );
    expect(translate.code).to.equal('unsupported');
    expect(translate.message).to.include('en -> de');

    const badAction = await rejection(h.call('Transform', { action: 'explode', text: 'x' }));
    expect(badAction.details[0]?.field).to.equal('/action');
  });

  it('SubmitGenerate acknowledges, completes in the background and emits usage + request.completed', async () => {
    const ctx = context('org_a');
    const ack = await h.call<{ status: string; request_id: string }>(
      'SubmitGenerate',
      {
        request: { prompt: 'Write about a reusable water bottle', tone: 'playful', language: 'es' },
        webhook_url: 'https://hooks.example.com/r',
      },
      ctx,
    );
    expect(ack).to.deep.equal({ status: 'processing', request_id: ctx.requestId });

    const done = (await waitFor(async () => {
      const r = await h.call<Record<string, unknown>>(
        'GetRequest',
        { request_id: ctx.requestId },
        ctx,
      );
      return r.status === 'completed' ? r : undefined;
    }))!;
    expect(done).to.deep.include({
      request_id: ctx.requestId,
      operation: 'generate',
      model: 'builtin',
      webhook_url: 'https://hooks.example.com/r',
      error: null,
    });
    expect(done.result as string).to.include('Reusable Water Bottle');
    expect(done.completed_at as string).to.match(/^\d{4}-\d{2}-\d{2}T/);
    expect(done.total_tokens).to.be.greaterThan(0);

    await waitFor(() =>
      h.events.some((e) => e.type === 'request.completed' && e.data.requestId === ctx.requestId),
    );
    const completed = h.events.filter(
      (e) => e.type === 'request.completed' && e.data.requestId === ctx.requestId,
    );
    expect(completed).to.have.length(1);
    expect(completed[0]!.data).to.deep.equal({
      requestId: ctx.requestId,
      webhookUrl: 'https://hooks.example.com/r',
      result: done.result,
      model: 'builtin',
      usage: { totalTokens: done.total_tokens },
    });
    expect(usageFor(h.events, ctx.requestId)).to.have.length(1);

    const otherOrg = await rejection(
      h.call('GetRequest', { request_id: ctx.requestId }, context('org_b')),
    );
    expect(otherOrg.code).to.equal('not_found');
    const unknown = await rejection(h.call('GetRequest', { request_id: 'req_nope' }, ctx));
    expect(unknown.code).to.equal('not_found');
  });

  it('SubmitGenerate validates like Generate and checks webhook_url', async () => {
    expect(
      (await rejection(h.call('SubmitGenerate', { request: { prompt: '' } }))).details[0]?.field,
    ).to.equal('/prompt');
    expect(
      (
        await rejection(
          h.call('SubmitGenerate', { request: { prompt: 'x' }, webhook_url: 'ftp://x' }),
        )
      ).details[0]?.field,
    ).to.equal('/webhookUrl');
  });
});

describe('content service async failures and shutdown', () => {
  it('a failed generation is recorded as failed and emits request.failed with the error and empty result', async () => {
    const h = await startHarness({ models: [new BuiltinModel(), fakeModel('flaky', 'fail')] });
    try {
      const ctx = context();
      await h.call(
        'SubmitGenerate',
        { request: { prompt: 'anything', model: 'flaky' }, webhook_url: '' },
        ctx,
      );
      const failed = (await waitFor(async () => {
        const r = await h.call<Record<string, unknown>>(
          'GetRequest',
          { request_id: ctx.requestId },
          ctx,
        );
        return r.status === 'failed' ? r : undefined;
      }))!;
      expect(failed.error).to.deep.equal({
        code: 'upstream_error',
        message: 'provider answered 500',
      });
      await waitFor(() =>
        h.events.some((e) => e.type === 'request.failed' && e.data.requestId === ctx.requestId),
      );
      const event = h.events.find(
        (e) => e.type === 'request.failed' && e.data.requestId === ctx.requestId,
      )!;
      expect(event.data).to.deep.include({
        result: '',
        webhookUrl: '',
        model: 'flaky',
        error: { code: 'upstream_error', message: 'provider answered 500' },
      });
      expect(usageFor(h.events, ctx.requestId).map((e) => e.data))
        .to.have.length(1)
        .and.to.have.nested.property('[0].outcome', 'failed');
    } finally {
      await h.close();
    }
  });

  it('stop() waits for background jobs in flight', async () => {
    const bus = new InMemoryEventBus();
    const published: string[] = [];
    const original = bus.publish.bind(bus);
    bus.publish = async (event) => {
      await original(event);
      published.push(event.type);
    };
    const h = await startHarness({
      bus,
      models: [fakeModel('slow', 'slow')],
      defaultModel: 'slow',
    });
    await h.call('SubmitGenerate', { request: { prompt: 'take your time' } });
    h.client.close();
    await h.service.stop();
    expect(published).to.include('request.completed');
    await bus.close();
  });

  it('Generate succeeds while the bus is down; its usage event is published once the bus recovers', async () => {
    const bus = new FlakyBus();
    const h = await startHarness({ bus });
    try {
      const ctx = context();
      const response = await h.call<{ request_id: string }>(
        'Generate',
        { prompt: 'Write about tea' },
        ctx,
      );
      expect(response.request_id).to.equal(ctx.requestId);
      expect(bus.refused).to.be.greaterThan(0);
      expect(usageFor(h.events, ctx.requestId)).to.have.length(0);
      bus.down = false;
      await waitFor(() => usageFor(h.events, ctx.requestId).length === 1, 5000);
    } finally {
      await h.close();
    }
  });

  it('SubmitGenerate: the result event waits in the outbox while the bus is down', async () => {
    const bus = new FlakyBus();
    const h = await startHarness({ bus });
    try {
      const ctx = context();
      await h.call('SubmitGenerate', { request: { prompt: 'Write about tea' } }, ctx);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(h.events.filter((e) => e.type === 'request.completed')).to.have.length(0);
      bus.down = false;
      await waitFor(
        () =>
          h.events.some(
            (e) => e.type === 'request.completed' && e.data.requestId === ctx.requestId,
          ) && usageFor(h.events, ctx.requestId).length === 1,
        5000,
      );
    } finally {
      await h.close();
    }
  });

  it('SubmitGenerate: a result that reaches neither the bus nor the outbox (MongoDB down too) is published once they are back, not given up', async () => {
    const bus = new FlakyBus();
    const outbox = new (class extends InMemoryOutboxStore {
      down = true;
      override async add(...args: Parameters<InMemoryOutboxStore['add']>): Promise<void> {
        if (this.down) throw new DependencyUnavailableError('mongodb');
        return super.add(...args);
      }
    })();
    const h = await startHarness({ bus, outboxStore: outbox });
    try {
      const ctx = context();
      await h.call('SubmitGenerate', { request: { prompt: 'Write about tea' } }, ctx);
      // Longer than the publish attempts a failure other than an outage gets (200 + 400 ms).
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(h.events.filter((e) => e.type === 'request.completed')).to.have.length(0);
      bus.down = false;
      outbox.down = false;
      await waitFor(
        () =>
          h.events.some(
            (e) => e.type === 'request.completed' && e.data.requestId === ctx.requestId,
          ) && usageFor(h.events, ctx.requestId).length === 1,
        5000,
      );
      const status = async () =>
        (await h.call<{ status: string }>('GetRequest', { request_id: ctx.requestId }, ctx)).status;
      await waitFor(async () => (await status()) === 'completed', 5000);
    } finally {
      await h.close();
    }
  });
});
