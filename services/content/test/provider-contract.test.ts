import { expect } from 'chai';
import { AppError } from '@switchyard/shared';
import { FakeLlmServer, REPORTED, silentLogger } from '@switchyard/shared/testing';
import type { LlamaModel } from 'node-llama-cpp' with { 'resolution-mode': 'import' };
import { buildModels } from '../src/models/config/build-models';
import type { ModelEntry } from '../src/models/config/registry-schema';
import { rewriteBudget } from '../src/models/chat-model';
import { loadGguf } from '../src/models/llama-cpp/runtime';
import type { ChatMessage, TextModel, TextResult } from '../src/models/text-model';
import { spentOf } from '../src/models/usage';
import { localModelFile } from './local-model';
import { rejection } from './helpers';

const ALL = ['generate', 'summarize', 'reformat', 'translate', 'chat', 'embeddings'];

/** One provider behind the contract: the model, and how its own usage and cap are checked. */
interface Provider {
  model: TextModel;
  /** The answer's usage is the provider's own count, passed through unchanged. */
  checkUsage(result: TextResult): void;
  /** The output cap reached the provider (and, where the test can see it, held). */
  checkCap(cap: number, result: TextResult): void;
  /** The stop sequences reached the provider. */
  checkStop(stop: string[]): void;
  /** The next call takes its provider longer than a few milliseconds (a loaded machine aside). */
  slowNextCall(): void;
  close(): Promise<void>;
}

/** The fake OpenAI-compatible upstream: it reports REPORTED whatever it says. */
async function fakeProvider(): Promise<Provider> {
  const fake = new FakeLlmServer('sk-contract');
  const baseUrl = await fake.start();
  const entry = {
    id: 'fake',
    provider: 'openai-compatible',
    baseUrl,
    apiKeyEnv: 'FAKE_KEY',
    upstreamModel: 'up-contract',
    inputPricePerMillion: 1,
    outputPricePerMillion: 2,
    contextWindow: 8000,
    maxOutputTokens: 1000,
    capabilities: ALL,
  } as ModelEntry;
  const [model] = await buildModels([entry], { FAKE_KEY: 'sk-contract' }, silentLogger());
  const last = () => fake.requestsFor('up-contract').at(-1)!;
  return {
    model: model!,
    checkUsage: (result) => {
      expect(result.tokensInput).to.equal(REPORTED.prompt_tokens);
      expect(result.tokensOutput).to.equal(REPORTED.completion_tokens);
    },
    checkCap: (cap) => expect(last().maxTokens).to.equal(cap),
    checkStop: (stop) => expect(last().stop).to.deep.equal(stop),
    slowNextCall: () => fake.script('up-contract', { kind: 'slow', delayMs: 1000 }),
    close: () => fake.close(),
  };
}

/** SmolLM2 run here by llama.cpp: its usage is its own tokenizer's count. */
async function llamaProvider(file: string): Promise<Provider> {
  const entry: ModelEntry = {
    id: 'gguf',
    provider: 'llama-cpp',
    modelPath: file,
    contextSize: 1024,
    capabilities: ['generate', 'summarize', 'reformat', 'chat', 'embeddings'],
    seed: 7,
  };
  const [model] = await buildModels([entry], process.env, silentLogger());
  // The same file, loaded once per process: its tokenizer is the model's own.
  const gguf: LlamaModel = await loadGguf(file, false, silentLogger());
  const tokens = (text: string) => gguf.tokenize(text).length;
  return {
    model: model!,
    checkUsage: (result) => {
      expect(result.tokensInput).to.be.greaterThan(0);
      expect(result.tokensOutput).to.equal(tokens(result.text));
    },
    checkCap: (cap, result) => {
      expect(result.tokensOutput).to.be.at.most(cap);
      expect(tokens(result.text)).to.be.at.most(cap);
    },
    // llama.cpp applies them itself: what it returned is checked by the test.
    checkStop: () => undefined,
    // 200 tokens of an essay take it far longer than the deadline.
    slowNextCall: () => undefined,
    close: () => model!.close!(),
  };
}

const PROVIDERS: Record<string, (context: Mocha.Context) => Promise<Provider>> = {
  'openai-compatible (fake upstream)': () => fakeProvider(),
  'llama-cpp (SmolLM2-135M)': (context) => llamaProvider(localModelFile(context)),
};

const conversation: ChatMessage[] = [
  { role: 'system', content: 'You are a helpful assistant. Answer briefly.' },
  { role: 'user', content: 'My name is Ada.' },
  { role: 'assistant', content: 'Nice to meet you, Ada.' },
  { role: 'user', content: 'What is my name?' },
];

for (const [name, create] of Object.entries(PROVIDERS)) {
  describe(`model provider contract: ${name}`, function () {
    this.timeout(60_000);
    let provider: Provider;

    before(async function () {
      provider = await create(this);
    });

    after(async () => {
      await provider?.close();
    });

    it('generate: text, and the usage the provider counted', async () => {
      const result = await provider.model.generate({
        prompt: 'Write one sentence about trail shoes.',
        maxTokens: 30,
        tone: 'friendly',
        language: 'en',
      });
      expect(result.text.trim()).to.not.equal('');
      provider.checkUsage(result);
    });

    it('generateStream: the deltas concatenate to the final text', async () => {
      const deltas: string[] = [];
      const result = await provider.model.generateStream!(
        { prompt: 'Describe a rainy morning.', maxTokens: 30, tone: '', language: 'en' },
        (delta) => void deltas.push(delta),
      );
      expect(deltas.length).to.be.greaterThan(1);
      expect(deltas.join('')).to.equal(result.text);
      provider.checkUsage(result);
    });

    it('the output cap is the exact maximum', async () => {
      const result = await provider.model.generate({
        prompt: 'Write a long story about a lighthouse keeper.',
        maxTokens: 5,
        tone: '',
        language: '',
      });
      provider.checkCap(5, result);
    });

    it('reformat: a short text gets an output cap near its length, not the whole window', async () => {
      const text = 'refund launch note';
      const result = await provider.model.reformat({ text, format: 'csv' });
      provider.checkCap(rewriteBudget(text), result);
    });

    it('hostile text (NUL, lone surrogate, bidi override, zero-width, emoji) is answered, not thrown', async () => {
      const text = 'a\u0000b \ud800 \u202eevil\u202c zero\u200bwidth\ufeff 🙂🏳️‍🌈';
      const result = await provider.model.complete!({
        messages: [{ role: 'user', content: text }],
        maxTokens: 5,
      });
      provider.checkCap(5, result);
      const reformatted = await provider.model.reformat({ text, format: 'plain' });
      expect(reformatted.tokensInput).to.be.greaterThan(0);
    });

    it('complete: a conversation in, an answer and usage out', async () => {
      const result = await provider.model.complete!({ messages: conversation, maxTokens: 20 });
      expect(result.text).to.not.equal('');
      provider.checkUsage(result);
    });

    it('completeStream with a stop sequence: the answer ends before it', async () => {
      const deltas: string[] = [];
      const result = await provider.model.completeStream!(
        {
          messages: [{ role: 'user', content: 'Tell me about the sea in three sentences.' }],
          maxTokens: 40,
          stop: [' '],
        },
        (delta) => void deltas.push(delta),
      );
      expect(result.text).to.not.include(' ');
      expect(deltas.join('')).to.equal(result.text);
      provider.checkStop([' ']);
    });

    it('a caller that goes away mid-stream stops the answer: unavailable, with the tokens spent; the model serves on', async () => {
      // As the gRPC sink does: the call's signal aborts, and writes after that throw.
      const caller = new AbortController();
      const write = () => {
        if (caller.signal.aborted) throw new AppError('unavailable', 'the caller cancelled');
        caller.abort();
      };
      const error = await rejection(
        provider.model.completeStream!(
          {
            messages: [{ role: 'user', content: 'Write a long essay about rivers.' }],
            maxTokens: 200,
          },
          write,
          { signal: caller.signal },
        ),
      );
      expect(error.code).to.equal('unavailable');
      expect(spentOf(error)?.tokensInput).to.be.greaterThan(0);
      const after = await provider.model.complete!({ messages: conversation, maxTokens: 5 });
      expect(after.tokensOutput).to.be.greaterThan(0);
    });

    it('a deadline that passes fails the call with timeout', async () => {
      provider.slowNextCall();
      const error = await rejection(
        provider.model.generate(
          { prompt: 'Write a long essay about mountains.', maxTokens: 200, tone: '', language: '' },
          { deadline: Date.now() + 1 },
        ),
      );
      expect(error.code).to.equal('timeout');
    });

    it('embed: one vector per input, of one size; the same text, the same vector', async () => {
      const inputs = ['Refunds take five days.', 'Concerts in Berlin', 'Refunds take five days.'];
      const result = await provider.model.embed!(inputs);
      expect(result.vectors).to.have.length(3);
      const size = result.vectors[0]!.length;
      expect(size).to.be.greaterThan(1);
      for (const vector of result.vectors) expect(vector).to.have.length(size);
      expect(result.vectors[2]).to.deep.equal(result.vectors[0]);
      expect(result.vectors[1]).to.not.deep.equal(result.vectors[0]);
      expect(result.tokensInput).to.be.greaterThan(0);
    });
  });
}
