import { expect } from 'chai';
import {
  InMemoryAnswerStore,
  InMemoryEventBus,
  withDeps,
  type AnswerStore,
  UsagePublisher,
} from '@switchyard/shared';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import type { GenerateRequest__Output } from '@switchyard/shared/proto/content/v1';
import { generate as generateHandler } from '../src/handlers/generate';
import { BuiltinModel } from '../src/models/builtin/builtin-model';
import { ModelRegistry } from '../src/models/registry';
import { collectEvents, context } from './helpers';

function generateRequest(prompt: string): GenerateRequest__Output {
  return { model: '', prompt, max_length: 40, tone: '', language: '' };
}

/** A store that lost its answer (e.g. the process died between the work and keeping the answer). */
class ForgetfulAnswerStore implements AnswerStore {
  async get(): Promise<string | undefined> {
    return undefined;
  }
  async put(_organization: string, _key: string, answer: string): Promise<string> {
    return answer;
  }
}

describe('billable calls answered once per Idempotency-Key', () => {
  const models = new ModelRegistry([new BuiltinModel()], 'builtin');
  const setUp = async (store: AnswerStore) => {
    const bus = new InMemoryEventBus();
    const events = await collectEvents(bus);
    const { generate } = withDeps(
      {
        models,
        usage: new UsagePublisher(bus, 'content', silentLogger()),
        maxInputTokens: 1000,
        answers: { store, ttlSeconds: 60, logger: silentLogger() },
      },
      { generate: generateHandler },
    );
    return { events, generate };
  };

  it('a retry with the same key (a new request id) gets the first answer and is not billed again', async () => {
    const { events, generate } = await setUp(new InMemoryAnswerStore());
    const first = await generate(generateRequest('Write about retries'), {
      ...context('org_a', 'req_first'),
      idempotencyKey: 'k-1',
    });
    const retry = await generate(generateRequest('Write about retries'), {
      ...context('org_a', 'req_retry'),
      idempotencyKey: 'k-1',
    });
    expect(retry).to.deep.equal(first);
    expect(retry.request_id).to.equal('req_first');
    await waitFor(() => events.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(events.filter((e) => e.type === 'usage.recorded')).to.have.length(1);
  });

  it('another key, or another organization with the same key, runs and bills on its own', async () => {
    const { events, generate } = await setUp(new InMemoryAnswerStore());
    await generate(generateRequest('One'), { ...context('org_a'), idempotencyKey: 'k-1' });
    await generate(generateRequest('One'), { ...context('org_a'), idempotencyKey: 'k-2' });
    await generate(generateRequest('One'), { ...context('org_b'), idempotencyKey: 'k-1' });
    await waitFor(() => events.length === 3);
    expect(new Set(events.map((e) => e.id)).size).to.equal(3);
  });

  it('a call run twice because its answer was lost publishes the same usage event id (the ledger counts it once)', async () => {
    const { events, generate } = await setUp(new ForgetfulAnswerStore());
    await generate(generateRequest('Lost answer'), {
      ...context('org_a', 'req_a'),
      idempotencyKey: 'lost',
    });
    await generate(generateRequest('Lost answer'), {
      ...context('org_a', 'req_b'),
      idempotencyKey: 'lost',
    });
    await waitFor(() => events.length === 2);
    expect(events[0]!.id).to.equal(events[1]!.id);
  });

  it('without a key, the request id identifies the call: two requests are two calls, nothing is kept', async () => {
    const store = new InMemoryAnswerStore();
    const kept = await setUp(store);
    await kept.generate(generateRequest('No key'), context('org_a', 'req_1'));
    await kept.generate(generateRequest('No key'), context('org_a', 'req_2'));
    await kept.generate(generateRequest('No key'), context('org_a', 'req_2')); // a direct caller reusing an id runs again
    await waitFor(() => kept.events.length === 3);
    expect(kept.events[0]!.id).to.not.equal(kept.events[1]!.id);
    expect(kept.events[1]!.id).to.equal(kept.events[2]!.id); // ... and is counted once by the ledger
    expect(await store.get('org_a', 'Generate:req:req_1')).to.equal(undefined);
  });
});
