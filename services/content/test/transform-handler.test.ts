import { expect } from 'chai';
import {
  InMemoryEventBus,
  InMemoryOutboxStore,
  OutboxPublisher,
  type CallContext,
  UsagePublisher,
} from '@switchyard/shared';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import type { TransformRequest__Output } from '@switchyard/shared/proto/content/v1';
import type { ModelDeps } from '../src/handlers';
import { transform as transformHandler } from '../src/handlers/transform';
import { BuiltinModel } from '../src/models/builtin/builtin-model';
import { ModelRegistry } from '../src/models/registry';
import { BrokenBus, collectEvents, context, FlakyBus, rejection } from './helpers';

function request(fields: Partial<TransformRequest__Output>): TransformRequest__Output {
  return {
    model: '',
    action: '',
    text: '',
    target_length: '',
    format: '',
    source_language: '',
    target_language: '',
    ...fields,
  };
}

/** The handler with its deps bound, as the service binds it. */
const transformWith = (deps: ModelDeps) => (request: TransformRequest__Output, ctx: CallContext) =>
  transformHandler(deps, request, ctx);

describe('transform handler', () => {
  const models = new ModelRegistry([new BuiltinModel()], 'builtin');

  it('translate with the builtin model: 422 naming the pair and the missing capability; no usage', async () => {
    const bus = new InMemoryEventBus();
    const events = await collectEvents(bus);
    const transform = transformWith({
      models,
      usage: new UsagePublisher(bus, 'content', silentLogger()),
      maxInputTokens: 1000,
    });
    const error = await rejection(
      transform(
        request({
          action: 'translate',
          text: 'Hello there.',
          source_language: 'en',
          target_language: 'fr',
        }),
        context(),
      ),
    );
    expect(error.code).to.equal('unsupported');
    expect(error.httpStatus).to.equal(422);
    expect(error.message).to.include('en -> fr');
    expect(error.message).to.include('translate capability must be configured');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).to.have.length(0);
  });

  it('translate to the same language echoes the text and records usage', async () => {
    const bus = new InMemoryEventBus();
    const events = await collectEvents(bus);
    const transform = transformWith({
      models,
      usage: new UsagePublisher(bus, 'content', silentLogger()),
      maxInputTokens: 1000,
    });
    const response = await transform(
      request({
        action: 'translate',
        text: 'Bonjour.',
        source_language: 'fr',
        target_language: 'FR',
      }),
      context(),
    );
    expect(response.original_text).to.equal('Bonjour.');
    expect(response.translated_text).to.equal('Bonjour.');
    await waitFor(() => events.length === 1);
  });

  it('validates action, target_language, format and target_length with field pointers', async () => {
    const transform = transformWith({
      models,
      usage: new UsagePublisher(new InMemoryEventBus(), 'content', silentLogger()),
      maxInputTokens: 1000,
    });
    const cases: Array<[Partial<TransformRequest__Output>, string]> = [
      [{ action: 'shorten', text: 'x' }, '/action'],
      [{ action: 'translate', text: 'x' }, '/target_language'],
      [{ action: 'reformat', text: 'x' }, '/format'],
      [{ action: 'reformat', text: 'x', format: 'yaml' }, '/format'],
      [{ action: 'summarize', text: 'x', target_length: 'tiny' }, '/target_length'],
      [{ action: 'summarize', text: '  ' }, '/text'],
      [{ action: 'summarize', text: 'x', model: 'gpt-9' }, '/model'],
    ];
    for (const [fields, field] of cases) {
      const error = await rejection(transform(request(fields), context()));
      expect(error.code, JSON.stringify(fields)).to.equal('invalid_request');
      expect(error.details[0]?.field, JSON.stringify(fields)).to.equal(field);
    }
  });

  it('answers payload_too_large over MAX_INPUT_TOKENS, naming the field', async () => {
    const transform = transformWith({
      models,
      usage: new UsagePublisher(new InMemoryEventBus(), 'content', silentLogger()),
      maxInputTokens: 5,
    });
    const error = await rejection(
      transform(
        request({
          action: 'summarize',
          text: 'This text is clearly longer than five tokens in total.',
        }),
        context(),
      ),
    );
    expect(error.code).to.equal('payload_too_large');
    expect(error.details[0]?.field).to.equal('/text');
  });

  it('succeeds while the bus is down and publishes the usage event once it recovers', async () => {
    const bus = new FlakyBus();
    const events = await collectEvents(bus);
    const outbox = new OutboxPublisher({
      bus,
      store: new InMemoryOutboxStore(),
      logger: silentLogger(),
      relayIntervalMs: 10,
      publishTimeoutMs: 200,
    });
    await outbox.start();
    const transform = transformWith({
      models,
      usage: new UsagePublisher(outbox, 'content', silentLogger()),
      maxInputTokens: 1000,
    });
    const ctx = context();
    const response = await transform(
      request({ action: 'summarize', text: 'One sentence. Two sentences.' }),
      ctx,
    );
    expect(response.request_id).to.equal(ctx.requestId);
    expect(bus.refused).to.be.greaterThan(0);
    bus.down = false;
    await waitFor(
      () => events.some((e) => e.type === 'usage.recorded' && e.data.requestId === ctx.requestId),
      5000,
    );
    await outbox.stop();
    expect(events.filter((e) => e.type === 'usage.recorded')).to.have.length(1);
  });

  it('fails with unavailable when the usage event can be neither published nor stored', async () => {
    const store = new InMemoryOutboxStore();
    store.add = async () => {
      throw new Error('database down');
    };
    const outbox = new OutboxPublisher({
      bus: new BrokenBus(),
      store,
      logger: silentLogger(),
      relayIntervalMs: 10,
      publishTimeoutMs: 200,
    });
    const transform = transformWith({
      models,
      usage: new UsagePublisher(outbox, 'content', silentLogger()),
      maxInputTokens: 1000,
    });
    const error = await rejection(
      transform(request({ action: 'summarize', text: 'One sentence. Two sentences.' }), context()),
    );
    expect(error.code).to.equal('unavailable');
  });
});
