import { expect } from 'chai';
import { countTokens } from '@switchyard/shared';
import { waitFor } from '@switchyard/shared/testing';
import { FakeLlmServer, REPORTED } from '@switchyard/shared/testing';
import { API_KEY, failure, PRICES, startLlmHarness, type LlmHarness } from './llm-harness';
import { context } from './helpers';

interface Usage {
  model: string;
  tokens_input: number;
  tokens_output: number;
  cost: number;
}
interface GenerateResponse {
  content: string;
  usage: Usage;
  request_id: string;
}
interface GenerateChunk {
  delta?: string;
  final?: GenerateResponse;
  kind: string;
}

const round8 = (value: number) => Number(value.toFixed(8));
const costFor = (prices: { input: number; output: number }, input: number, output: number) =>
  round8((input * prices.input + output * prices.output) / 1e6);

describe('model routing through an OpenAI-compatible provider (gRPC)', function () {
  let h: LlmHarness;
  before(async () => {
    h = await startLlmHarness();
  });
  beforeEach(() => h.fake.reset());
  after(async () => {
    await h.close();
  });

  it('ListModels returns every registry model with prices and the default', async () => {
    const { models } = await h.call<{ models: Array<Record<string, unknown>> }>('ListModels', {});
    expect(models.map((m) => m.id)).to.deep.equal([
      'builtin',
      'gpt-main',
      'gpt-backup',
      'gpt-solo',
      'gpt-badkey',
      'gpt-narrow',
      'gpt-small',
      'llama-local',
    ]);
    expect(models.find((m) => m.id === 'gpt-main')).to.deep.include({
      provider: 'openai-compatible',
      aliases: ['main', 'smart'],
      input_price_per_million: 2.5,
      output_price_per_million: 10,
      context_window: 8000,
      max_output_tokens: 1000,
      is_default: false,
    });
    expect(models.find((m) => m.id === 'builtin')).to.deep.include({ is_default: true });
  });

  it('routes by id and by alias, sends the key from the env var and records the provider usage exactly', async () => {
    for (const name of ['gpt-main', 'SMART']) {
      const ctx = context();
      const response = await h.call<GenerateResponse>(
        'Generate',
        { model: name, prompt: 'Write about tea', tone: 'formal', language: 'de', max_length: 200 },
        ctx,
      );
      const request = h.fake.requests.at(-1)!;
      expect(request).to.deep.include({
        model: 'up-main',
        authorization: `Bearer ${API_KEY}`,
        maxTokens: 200,
        stream: false,
      });
      expect(request.messages[0]!.content).to.include('German').and.to.include('formal');
      expect(request.messages[1]).to.deep.equal({ role: 'user', content: 'Write about tea' });
      expect(response.content).to.equal(FakeLlmServer.answerFor('up-main', request.messages));
      const cost = costFor(PRICES.main, REPORTED.prompt_tokens, REPORTED.completion_tokens);
      expect(response.usage).to.deep.equal({
        model: 'gpt-main',
        tokens_input: 1200,
        tokens_output: 345,
        cost,
      });
      await waitFor(() => h.usageFor(ctx.requestId).length === 1);
      expect(h.usageFor(ctx.requestId)[0]!.data).to.deep.include({
        model: 'gpt-main',
        tokensInput: 1200,
        tokensOutput: 345,
        cost,
        outcome: 'succeeded',
      });
    }
  });

  it('retries 500s and succeeds within maxRetries', async () => {
    h.fake.script('up-solo', { kind: 'status', status: 500 }, { kind: 'status', status: 503 });
    const response = await h.call<GenerateResponse>('Generate', {
      model: 'gpt-solo',
      prompt: 'Write about coffee',
    });
    expect(h.fake.requestsFor('up-solo')).to.have.length(3);
    expect(response.usage.model).to.equal('gpt-solo');
  });

  it('honours Retry-After on 429', async () => {
    h.fake.script('up-solo', { kind: 'status', status: 429, retryAfter: '1' });
    const started = Date.now();
    await h.call<GenerateResponse>('Generate', { model: 'gpt-solo', prompt: 'Write about cocoa' });
    const [first, second] = h.fake.requestsFor('up-solo');
    expect(second!.at - first!.at).to.be.at.least(1000);
    expect(Date.now() - started).to.be.at.least(1000);
  });

  it('falls back to the next model once retries are exhausted; usage names the model that answered', async () => {
    h.fake.script('up-main', ...Array(3).fill({ kind: 'status', status: 500 }));
    const ctx = context();
    const response = await h.call<GenerateResponse>(
      'Generate',
      { model: 'gpt-main', prompt: 'Write about bread' },
      ctx,
    );
    expect(h.fake.requestsFor('up-main')).to.have.length(3);
    expect(h.fake.requestsFor('up-backup')).to.have.length(1);
    expect(response.usage).to.deep.equal({
      model: 'gpt-backup',
      tokens_input: 1200,
      tokens_output: 345,
      cost: costFor(PRICES.backup, 1200, 345),
    });
    await waitFor(() => h.usageFor(ctx.requestId).length === 1);
    expect(h.usageFor(ctx.requestId)[0]!.data).to.deep.include({
      model: 'gpt-backup',
      outcome: 'succeeded',
    });
  });

  it('a provider slower than the timeout answers 504 timeout', async () => {
    h.fake.script('up-solo', { kind: 'slow', delayMs: 1500 });
    const started = Date.now();
    const error = await failure(
      h.call('Generate', { model: 'gpt-solo', prompt: 'Write about jam' }),
    );
    expect(error.code).to.equal('timeout');
    expect(error.httpStatus).to.equal(504);
    expect(error.details[0]).to.deep.include({ provider: 'openai-compatible', model: 'gpt-solo' });
    expect(Date.now() - started).to.be.below(1400);
  });

  it('a wrong API key answers 502 upstream_error with the provider message, without retrying', async () => {
    const ctx = context();
    const error = await failure(
      h.call('Generate', { model: 'gpt-badkey', prompt: 'Write about salt' }, ctx),
    );
    expect(error.code).to.equal('upstream_error');
    expect(error.httpStatus).to.equal(502);
    expect(error.details[0]).to.deep.equal({
      reason: 'Incorrect API key provided: wr***ey.',
      provider: 'openai-compatible',
      model: 'gpt-badkey',
      status: 401,
    });
    expect(h.fake.requestsFor('up-badkey')).to.have.length(1);
    expect(h.fake.requestsFor('up-badkey')[0]!.authorization).to.equal('Bearer sk-wrong-key');
    await waitFor(() => h.usageFor(ctx.requestId).length === 1);
    expect(h.usageFor(ctx.requestId)[0]!.data).to.deep.include({
      outcome: 'failed',
      tokensOutput: 0,
    });
  });

  it('counts tokens with the shared tokenizer when the provider reports none; cost is never 0', async () => {
    h.fake.script('up-solo', { kind: 'ok', text: 'Short answer.', reportUsage: false });
    const response = await h.call<GenerateResponse>('Generate', {
      model: 'gpt-solo',
      prompt: 'Write one line',
    });
    const [request] = h.fake.requestsFor('up-solo');
    const promptTokens = request!.messages.reduce((sum, m) => sum + countTokens(m.content), 0);
    expect(response.usage).to.deep.include({
      tokens_input: promptTokens,
      tokens_output: countTokens('Short answer.'),
    });
    expect(response.usage.cost).to.be.greaterThan(0);
    expect(response.usage.cost).to.equal(
      round8((promptTokens * 3 + countTokens('Short answer.') * 15) / 1e6),
    );
  });

  it('rejects max_length over the model output limit and prompts over its context window', async () => {
    const tooLong = await failure(
      h.call('Generate', { model: 'gpt-small', prompt: 'x', max_length: 33 }),
    );
    expect(tooLong.code).to.equal('invalid_request');
    expect(tooLong.details[0]).to.deep.include({ field: '/max_length', reason: 'must be <= 32' });
    const tooBig = await failure(
      h.call('Generate', { model: 'gpt-small', prompt: 'word '.repeat(60), max_length: 10 }),
    );
    expect(tooBig.code).to.equal('payload_too_large');
    expect(tooBig.message).to.include('64-token context window');
    expect(h.fake.requests).to.have.length(0);
  });

  it('queues callers beyond maxConcurrency (never more simultaneous upstream requests than the limit)', async () => {
    h.fake.script('up-narrow', ...Array(6).fill({ kind: 'ok', delayMs: 150 }));
    const calls = Array.from({ length: 6 }, (_, i) =>
      h.call<GenerateResponse>('Generate', { model: 'gpt-narrow', prompt: `Write item ${i}` }),
    );
    const responses = await Promise.all(calls);
    expect(responses).to.have.length(6);
    expect(h.fake.requestsFor('up-narrow')).to.have.length(6);
    expect(h.fake.maxActive.get('up-narrow')).to.equal(2);
  });

  it('a queued caller whose deadline passes gets a timeout', async () => {
    h.fake.script('up-narrow', { kind: 'ok', delayMs: 800 }, { kind: 'ok', delayMs: 800 });
    const holders = [
      h.call('Generate', { model: 'gpt-narrow', prompt: 'a' }),
      h.call('Generate', { model: 'gpt-narrow', prompt: 'b' }),
    ];
    await waitFor(() => h.fake.requestsFor('up-narrow').length === 2);
    const waiting = await failure(
      h.call('Generate', { model: 'gpt-narrow', prompt: 'c' }, context(), 300),
    );
    expect(waiting.code).to.equal('timeout');
    await Promise.all(holders);
    expect(h.fake.requestsFor('up-narrow')).to.have.length(2);
  });

  it('Transform on a provider: summarize, reformat (original_format from the detector) and translate', async () => {
    const summary = await h.call<Record<string, unknown>>('Transform', {
      model: 'main',
      action: 'summarize',
      text: 'One. Two. Three.',
      target_length: 'short',
    });
    expect(h.fake.requests.at(-1)!.messages[0]!.content).to.include('one or two sentences');
    expect(summary.usage).to.deep.include({
      model: 'gpt-main',
      tokens_input: 1200,
      tokens_output: 345,
    });

    const reformatted = await h.call<Record<string, unknown>>('Transform', {
      model: 'main',
      action: 'reformat',
      text: 'a,b\n1,2',
      format: 'json',
    });
    expect(reformatted.original_format).to.equal('csv');
    expect(h.fake.requests.at(-1)!.messages[0]!.content)
      .to.include('from csv')
      .and.to.include('ONLY the converted text');

    const translated = await h.call<Record<string, unknown>>('Transform', {
      model: 'main',
      action: 'translate',
      text: 'Hallo',
      source_language: 'de',
      target_language: 'en',
    });
    expect(translated.translated_text).to.equal(
      FakeLlmServer.answerFor('up-main', h.fake.requests.at(-1)!.messages),
    );
    expect(h.fake.requests.at(-1)!.messages[0]!.content).to.include('from German into English');
  });
});

describe('streaming and completions through the provider (gRPC)', function () {
  let h: LlmHarness;
  before(async () => {
    h = await startLlmHarness();
  });
  beforeEach(() => h.fake.reset());
  after(async () => {
    await h.close();
  });

  const text = (chunks: GenerateChunk[]) =>
    chunks
      .filter((c) => c.delta !== undefined)
      .map((c) => c.delta)
      .join('');

  it('GenerateStream sends deltas then one final chunk with the provider usage, and one usage event', async () => {
    const ctx = context();
    const { chunks, error } = await h.stream<GenerateChunk>(
      'GenerateStream',
      { model: 'gpt-main', prompt: 'Write about tea' },
      ctx,
    );
    expect(error).to.equal(undefined);
    const request = h.fake.requests.at(-1)!;
    expect(request).to.deep.include({ stream: true, includeUsage: true });
    const deltas = chunks.filter((c) => c.delta !== undefined);
    expect(deltas.length).to.be.greaterThan(3);
    const final = chunks.at(-1)!.final!;
    expect(final.content)
      .to.equal(text(chunks))
      .and.to.equal(FakeLlmServer.answerFor('up-main', request.messages));
    expect(final.request_id).to.equal(ctx.requestId);
    expect(final.usage).to.deep.equal({
      model: 'gpt-main',
      tokens_input: 1200,
      tokens_output: 345,
      cost: costFor(PRICES.main, 1200, 345),
    });
    await waitFor(() => h.usageFor(ctx.requestId).length === 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(h.usageFor(ctx.requestId)).to.have.length(1);
  });

  it('GenerateStream on the builtin model streams word-sized deltas', async () => {
    const { chunks } = await h.stream<GenerateChunk>('GenerateStream', {
      prompt: 'Write a product description for a smart kettle',
      max_length: 80,
    });
    const deltas = chunks.filter((c) => c.delta !== undefined).map((c) => c.delta!);
    expect(deltas.length).to.be.greaterThan(10);
    for (const delta of deltas) expect(delta.trim().split(/\s+/)).to.have.length(1);
    expect(chunks.at(-1)!.final!.content).to.equal(deltas.join(''));
    expect(chunks.at(-1)!.final!.usage.model).to.equal('builtin');
  });

  it('a stream that breaks before any delta falls back to the next model', async () => {
    h.fake.script('up-main', ...Array(3).fill({ kind: 'break', afterChunks: 0 }));
    const ctx = context();
    const { chunks, error } = await h.stream<GenerateChunk>(
      'GenerateStream',
      { model: 'gpt-main', prompt: 'Write about rice' },
      ctx,
    );
    expect(error).to.equal(undefined);
    expect(h.fake.requestsFor('up-main')).to.have.length(3);
    expect(text(chunks)).to.equal(
      FakeLlmServer.answerFor('up-backup', h.fake.requests.at(-1)!.messages),
    );
    expect(chunks.at(-1)!.final!.usage).to.deep.include({
      model: 'gpt-backup',
      tokens_output: 345,
    });
    await waitFor(() => h.usageFor(ctx.requestId).length === 1);
    expect(h.usageFor(ctx.requestId)[0]!.data).to.deep.include({
      model: 'gpt-backup',
      outcome: 'succeeded',
    });
  });

  it('a stream that breaks after deltas ends with upstream_error after recording the tokens produced', async () => {
    h.fake.script('up-main', { kind: 'break', afterChunks: 3 });
    const ctx = context();
    const { chunks, error } = await h.stream<GenerateChunk>(
      'GenerateStream',
      { model: 'gpt-main', prompt: 'Write about oats' },
      ctx,
    );
    expect(error?.code).to.equal('upstream_error');
    expect(chunks.every((c) => c.final === undefined)).to.equal(true);
    const produced = text(chunks);
    expect(produced.split(/\s+/).filter(Boolean)).to.have.length(3);
    expect(h.fake.requestsFor('up-backup')).to.have.length(0);
    await waitFor(() => h.usageFor(ctx.requestId).length === 1);
    const promptTokens = h.fake.requests
      .at(-1)!
      .messages.reduce((sum, m) => sum + countTokens(m.content), 0);
    const outputTokens = countTokens(produced);
    expect(h.usageFor(ctx.requestId)[0]!.data).to.deep.equal({
      requestId: ctx.requestId,
      keyId: 'key_1',
      route: 'content.generate',
      model: 'gpt-main',
      tokensInput: promptTokens,
      tokensOutput: outputTokens,
      cost: costFor(PRICES.main, promptTokens, outputTokens),
      outcome: 'failed',
    });
    expect(outputTokens).to.be.greaterThan(0);
  });

  it('Complete passes the messages through and returns text and usage without a usage event', async () => {
    const ctx = context();
    const messages = [
      { role: 'system', content: 'You are Ada, the support agent.' },
      { role: 'user', content: 'Where is my order?' },
    ];
    const response = await h.call<{ text: string; usage: Usage }>(
      'Complete',
      { model: 'main', messages, max_tokens: 100, operation: 'chat' },
      ctx,
    );
    expect(h.fake.requests.at(-1)!.messages).to.deep.equal(messages);
    expect(h.fake.requests.at(-1)!.maxTokens).to.equal(100);
    expect(response.text).to.equal(FakeLlmServer.answerFor('up-main', messages));
    expect(response.usage).to.deep.equal({
      model: 'gpt-main',
      tokens_input: 1200,
      tokens_output: 345,
      cost: costFor(PRICES.main, 1200, 345),
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(h.usageFor(ctx.requestId)).to.have.length(0);
  });

  it('CompleteStream streams deltas and a final chunk; no usage event', async () => {
    const ctx = context();
    const messages = [{ role: 'user', content: 'Hi' }];
    const { chunks, error } = await h.stream<{
      delta?: string;
      final?: { text: string; usage: Usage };
    }>('CompleteStream', { model: 'gpt-main', messages }, ctx);
    expect(error).to.equal(undefined);
    const deltas = chunks
      .filter((c) => c.delta !== undefined)
      .map((c) => c.delta)
      .join('');
    expect(chunks.at(-1)!.final).to.deep.equal({
      text: deltas,
      usage: {
        model: 'gpt-main',
        tokens_input: 1200,
        tokens_output: 345,
        cost: costFor(PRICES.main, 1200, 345),
      },
      tool_calls: [],
      openai_body: Buffer.alloc(0),
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(h.usageFor(ctx.requestId)).to.have.length(0);
  });

  it('Complete needs the chat capability: the builtin model answers 422; bad messages 400', async () => {
    const builtin = await failure(
      h.call('Complete', { model: 'builtin', messages: [{ role: 'user', content: 'Hi' }] }),
    );
    expect(builtin.code).to.equal('unsupported');
    const streamed = await h.stream('CompleteStream', {
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(streamed.error?.code).to.equal('unsupported');
    const empty = await failure(h.call('Complete', { model: 'gpt-main', messages: [] }));
    expect(empty.details[0]?.field).to.equal('/messages');
    const role = await failure(
      h.call('Complete', { model: 'gpt-main', messages: [{ role: 'robot', content: 'x' }] }),
    );
    expect(role.details[0]?.field).to.equal('/messages/0/role');
    const tooMany = await failure(
      h.call('Complete', {
        model: 'gpt-main',
        messages: [{ role: 'user', content: 'x' }],
        max_tokens: 5000,
      }),
    );
    expect(tooMany.details[0]).to.deep.include({ field: '/max_tokens', reason: 'must be <= 1000' });
  });

  it('a local model without prices is served and recorded at cost 0', async () => {
    const response = await h.call<{ text: string; usage: Usage }>('Complete', {
      model: 'llama-local',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(h.fake.requests.at(-1)!.authorization).to.equal(`Bearer not-needed`);
    expect(response.usage).to.deep.include({ model: 'llama-local', cost: 0 });
  });
});
