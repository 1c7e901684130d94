import { expect } from 'chai';
import OpenAI from 'openai';
import { AppError } from '@switchyard/shared';
import { FakeLlmServer } from '@switchyard/shared/testing';
import { BUILTIN_MODEL_INFO } from '../src/models/builtin/builtin-model';
import { ChatClient } from '../src/models/openai/chat-client';
import { upstreamFetch } from '../src/models/openai/upstream-fetch';
import { Semaphore } from '../src/models/semaphore';

describe('ChatClient against an OpenAI-compatible server', () => {
  let fake: FakeLlmServer;
  let chat: ChatClient;

  before(async () => {
    fake = new FakeLlmServer('sk-fake');
    const baseURL = await fake.start();
    const client = new OpenAI({ baseURL, apiKey: 'sk-fake', maxRetries: 0, fetch: upstreamFetch });
    chat = new ChatClient({
      client,
      info: { ...BUILTIN_MODEL_INFO, id: 'fake', provider: 'openai-compatible' },
      upstreamModel: 'up-fake',
      timeoutMs: 10_000,
      maxRetries: 0,
      semaphore: new Semaphore(4, 'fake'),
      relay: {
        url: `${baseURL}/chat/completions`,
        headers: { authorization: 'Bearer sk-fake', 'content-type': 'application/json' },
      },
    });
  });
  after(() => fake.close());

  it('answers through the undici fetch with the text and the provider-reported usage', async () => {
    const messages = [{ role: 'user' as const, content: 'Describe a trail shoe' }];
    const output = await chat.complete(messages, 100);
    expect(output.text).to.equal(FakeLlmServer.answerFor('up-fake', messages));
    expect(output.usage).to.include({ prompt_tokens: 1200, completion_tokens: 345 });
  });

  it("stops waiting for the provider as soon as the caller cancels (unavailable), not at the provider's pace", async () => {
    fake.script('up-fake', { kind: 'slow', delayMs: 3000 });
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 50);
    const startedAt = Date.now();
    const error = await chat
      .complete([{ role: 'user', content: 'hello' }], 100, { signal: caller.signal })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).to.be.instanceOf(AppError).and.to.have.property('code', 'unavailable');
    expect(Date.now() - startedAt).to.be.below(1500);
  });

  it('streams on the relay transport: the deltas make the answer, with the provider-reported usage', async () => {
    const messages = [{ role: 'user' as const, content: 'Describe a trail shoe' }];
    const deltas: string[] = [];
    const output = await chat.stream(messages, 100, async (delta) => {
      deltas.push(delta);
    });
    expect(deltas.join('')).to.equal(FakeLlmServer.answerFor('up-fake', messages));
    expect(output.text).to.equal(deltas.join(''));
    expect(output.usage).to.include({ prompt_tokens: 1200, completion_tokens: 345 });
    expect(fake.requests.at(-1)).to.include({ model: 'up-fake', stream: true, includeUsage: true });
  });
});
