import { expect } from 'chai';
import { grpcClientMetrics, Topics, type AnyEvent } from '@switchyard/shared';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { FakeLlmServer, REPORTED } from '@switchyard/shared/testing';
import { E2E_ENV } from '../support/mesh';
import { deltaText, readEvents, type ReceivedEvent } from '@switchyard/shared/testing';

const ALL = ['generate', 'summarize', 'reformat', 'translate', 'chat'];
const PRICES = { gpt: { input: 1.0, output: 2.0 }, fallback: { input: 0.5, output: 1.5 } };

/** Cost as the registry prices the fake's reported usage (per million tokens). */
/** GenerateStream calls the gateway's client finished, by gRPC code. */
async function streamCallsByCode(): Promise<Record<string, number>> {
  const metric = await grpcClientMetrics.getSingleMetric('grpc_client_handled_total')!.get();
  const counts: Record<string, number> = {};
  for (const { labels, value } of metric.values) {
    if (labels.grpc_method === 'GenerateStream') counts[String(labels.grpc_code)] = value;
  }
  return counts;
}

function costOf(prices: { input: number; output: number }): number {
  return Number(
    (
      (REPORTED.prompt_tokens * prices.input + REPORTED.completion_tokens * prices.output) /
      1_000_000
    ).toFixed(8),
  );
}

/** Two priced models at the local fake provider; fake-gpt falls back to fake-fallback. */
function registryFor(baseUrl: string) {
  const remote = {
    provider: 'openai-compatible',
    baseUrl,
    contextWindow: 16000,
    maxOutputTokens: 1000,
    capabilities: ALL,
  };
  return {
    defaultModel: 'builtin',
    models: [
      { id: 'builtin', provider: 'builtin' },
      {
        ...remote,
        id: 'fake-gpt',
        upstreamModel: 'up-gpt',
        inputPricePerMillion: PRICES.gpt.input,
        outputPricePerMillion: PRICES.gpt.output,
        fallback: ['fake-fallback'],
        maxRetries: 1,
        timeoutMs: 3000,
      },
      {
        ...remote,
        id: 'fake-fallback',
        upstreamModel: 'up-fallback',
        inputPricePerMillion: PRICES.fallback.input,
        outputPricePerMillion: PRICES.fallback.output,
        maxRetries: 0,
        timeoutMs: 400,
      },
    ],
  };
}

describe('e2e: model routing through the gateway (fake OpenAI-compatible provider)', () => {
  let fake: FakeLlmServer;
  let mesh: EmbeddedMesh;
  const usage: AnyEvent[] = [];

  before(async function () {
    this.timeout(30_000);
    // Local models need no key (the fake checks none for them), as a self-hosted server would.
    fake = new FakeLlmServer('unused-key', ['up-gpt', 'up-fallback']);
    const baseUrl = await fake.start();
    mesh = await startEmbeddedMesh(
      {
        ...E2E_ENV,
        DEV_API_KEY: 'sk_models_0123456789abcdefghij',
        MODEL_REGISTRY_JSON: JSON.stringify(registryFor(baseUrl)),
        DEFAULT_MODEL: '',
      },
      silentLogger(),
    );
    await mesh.bus.subscribe({
      group: 'e2e-models',
      topics: [Topics.usage],
      handler: async (event) => void usage.push(event),
    });
  });

  after(async function () {
    this.timeout(30_000);
    await mesh?.stop();
    await fake?.close();
  });

  afterEach(() => fake.reset());

  function post(path: string, body: unknown): Promise<Response> {
    return fetch(`${mesh.gatewayUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `X-API-Key ${mesh.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  async function postJson(path: string, body: unknown) {
    const response = await post(path, body);

    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as any,
    };
  }

  const usageFor = (requestId: string | null) =>
    usage.filter((e) => e.type === 'usage.recorded' && e.data.requestId === requestId);

  describe('content', () => {
    it('generates through the provider with its usage and the cost priced from it', async () => {
      const res = await postJson('/api/v2/ai/content/generate', {
        model: 'fake-gpt',
        prompt: 'Describe a trail shoe',
      });
      expect(res.status).to.equal(200);
      const [request] = fake.requestsFor('up-gpt');
      expect(request?.stream).to.equal(false);
      expect(res.body).to.deep.equal({
        content: FakeLlmServer.answerFor('up-gpt', request!.messages),
        usage: {
          model: 'fake-gpt',
          tokens_input: REPORTED.prompt_tokens,
          tokens_output: REPORTED.completion_tokens,
          cost: costOf(PRICES.gpt),
        },
        request_id: res.headers.get('x-request-id'),
      });
      expect(res.body.usage.cost).to.equal(0.00189);
      const [event] = await waitFor(() =>
        usageFor(res.body.request_id).length > 0 ? usageFor(res.body.request_id) : undefined,
      );
      expect(event?.data).to.deep.include({
        model: 'fake-gpt',
        tokensInput: 1200,
        tokensOutput: 345,
        cost: 0.00189,
        outcome: 'succeeded',
      });
    });

    it('streams a generation: delta events, then done with the exact usage and cost', async () => {
      const response = await post('/api/v2/ai/content/generate', {
        model: 'fake-gpt',
        prompt: 'Describe a trail shoe',
        stream: true,
      });
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/event-stream/);
      const events = await readEvents(response);
      const done = events[events.length - 1] as ReceivedEvent;
      expect(done.event).to.equal('done');
      expect(events.filter((e) => e.event === 'delta').length).to.be.greaterThan(1);
      const [request] = fake.requestsFor('up-gpt');
      expect(request).to.deep.include({ stream: true, includeUsage: true });
      expect(done.data).to.deep.equal({
        content: FakeLlmServer.answerFor('up-gpt', request!.messages),
        usage: { model: 'fake-gpt', tokens_input: 1200, tokens_output: 345, cost: 0.00189 },
        request_id: response.headers.get('x-request-id'),
      });
      expect(deltaText(events)).to.equal(done.data.content);
    });

    it('a client leaving a generation stream stops the provider stream; the tokens produced are billed', async () => {
      fake.script('up-gpt', { kind: 'ok', text: 'stride '.repeat(400) });
      const leaving = new AbortController();
      const response = await fetch(`${mesh.gatewayUrl}/api/v2/ai/content/generate`, {
        method: 'POST',
        headers: { authorization: `X-API-Key ${mesh.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fake-gpt', prompt: 'Describe a trail shoe', stream: true }),
        signal: leaving.signal,
      });
      const requestId = response.headers.get('x-request-id');
      const reader = response.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(first).to.match(/^event: delta/);
      leaving.abort();
      await reader.cancel().catch(() => undefined);
      await waitFor(() => (fake.active.get('up-gpt') ?? 0) === 0);
      const [event] = await waitFor(() =>
        usageFor(requestId).length > 0 ? usageFor(requestId) : undefined,
      );
      expect(event?.data).to.deep.include({ model: 'fake-gpt', outcome: 'failed' });
      const produced = (event?.data as { tokensOutput: number }).tokensOutput;
      expect(produced, 'tokens of what was produced before the client left').to.be.within(1, 399);
      expect(usageFor(requestId)).to.have.length(1);
    });

    it('ends a finished stream with OK on the gRPC hop, not CANCELLED (the gateway reads the status, it does not hang up)', async () => {
      const before = await streamCallsByCode();
      const response = await post('/api/v2/ai/content/generate', {
        model: 'fake-gpt',
        prompt: 'Describe a trail shoe',
        stream: true,
      });
      const events = await readEvents(response);
      expect(events[events.length - 1]?.event).to.equal('done');
      await waitFor(async () => ((await streamCallsByCode()).OK ?? 0) > (before.OK ?? 0), 2000);
      const after = await streamCallsByCode();
      expect(after.CANCELLED ?? 0, 'cancelled GenerateStream calls').to.equal(
        before.CANCELLED ?? 0,
      );
    });

    it('summarizes through the fake model', async () => {
      const text = 'Switchyard routes every AI request through one gateway. '.repeat(20);
      const res = await postJson('/api/v2/ai/content/transform', {
        model: 'fake-gpt',
        action: 'summarize',
        text,
        target_length: 'short',
      });
      expect(res.status).to.equal(200);
      const [request] = fake.requestsFor('up-gpt');
      expect(request?.messages.map((m) => m.content).join('\n')).to.include(
        'Switchyard routes every AI request',
      );
      expect(res.body.transformed_text).to.equal(
        FakeLlmServer.answerFor('up-gpt', request!.messages),
      );
      expect(res.body.usage).to.deep.equal({
        model: 'fake-gpt',
        tokens_input: 1200,
        tokens_output: 345,
      });
      expect(res.body.original_length).to.be.a('number');
    });

    it('waits out a 429 for its Retry-After, then answers', async () => {
      fake.script('up-gpt', { kind: 'status', status: 429, retryAfter: '1' });
      const res = await postJson('/api/v2/ai/content/generate', {
        model: 'fake-gpt',
        prompt: 'hello',
      });
      expect(res.status).to.equal(200);
      expect(res.body.usage.model).to.equal('fake-gpt');
      const [limited, answered] = fake.requestsFor('up-gpt');
      expect(answered!.at - limited!.at).to.be.at.least(950);
      expect(fake.requestsFor('up-fallback')).to.have.length(0);
    });

    it('falls back to the second model after persistent 500s', async () => {
      fake.script('up-gpt', { kind: 'status', status: 500 }, { kind: 'status', status: 500 });
      const res = await postJson('/api/v2/ai/content/generate', {
        model: 'fake-gpt',
        prompt: 'hello',
      });
      expect(res.status).to.equal(200);
      expect(fake.requestsFor('up-gpt')).to.have.length(2); // the first try and its one retry
      const [request] = fake.requestsFor('up-fallback');
      expect(res.body.content).to.equal(FakeLlmServer.answerFor('up-fallback', request!.messages));
      expect(res.body.usage).to.deep.equal({
        model: 'fake-fallback',
        tokens_input: 1200,
        tokens_output: 345,
        cost: costOf(PRICES.fallback),
      });
    });

    it('answers 504 with code timeout when the provider is too slow', async () => {
      fake.script('up-fallback', { kind: 'slow', delayMs: 1500 });
      const res = await postJson('/api/v2/ai/content/generate', {
        model: 'fake-fallback',
        prompt: 'hello',
      });
      expect(res.status).to.equal(504);
      expect(res.body.error.code).to.equal('timeout');
      expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
    });

    it('lists both models with their prices on /api/v2/models', async () => {
      const response = await fetch(`${mesh.gatewayUrl}/api/v2/models`, {
        headers: { authorization: `X-API-Key ${mesh.apiKey}` },
      });
      expect(response.status).to.equal(200);

      const { models } = (await response.json()) as { models: any[] };
      const byId = new Map(models.map((m) => [m.id, m]));
      expect(byId.get('fake-gpt')).to.deep.include({
        inputPricePerMillion: 1,
        outputPricePerMillion: 2,
        isDefault: false,
      });
      expect(byId.get('fake-gpt').capabilities).to.include('chat');
      expect(byId.get('fake-fallback')).to.deep.include({
        inputPricePerMillion: 0.5,
        outputPricePerMillion: 1.5,
      });
    });
  });

  describe('assistants', () => {
    const question = 'Which concerts are on in Berlin?';

    it('chat with model fake-gpt answers through the provider with its tokens and one priced usage event', async () => {
      const res = await postJson('/api/v2/ai/assistants/chat', {
        user_id: 'u-models',
        session_id: 's-models-1',
        model: 'fake-gpt',
        messages: [{ role: 'user', content: question }],
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.include({
        reply: `Answer from up-gpt about ${question}.`,
        model: 'fake-gpt',
        agent: 'chat',
      });
      expect(res.body.usage.tokens_used).to.equal(
        REPORTED.prompt_tokens + REPORTED.completion_tokens,
      );
      const [request] = fake.requestsFor('up-gpt');
      expect(request?.messages[0]?.role).to.equal('system');
      expect(request?.messages[0]?.content).to.include("You are the organization's assistant");
      expect(request?.messages[request.messages.length - 1]).to.deep.equal({
        role: 'user',
        content: question,
      });
      const events = await waitFor(() =>
        usageFor(res.body.request_id).length > 0 ? usageFor(res.body.request_id) : undefined,
      );
      expect(events).to.have.length(1);
      expect(events[0]?.data).to.deep.include({
        route: 'assistant.chat',
        agent: 'chat',
        model: 'fake-gpt',
        tokensInput: 1200,
        tokensOutput: 345,
        cost: 0.00189,
        outcome: 'succeeded',
      });
    });

    it('streams a chat reply from fake-gpt: deltas, then done with the reply body', async () => {
      const response = await post('/api/v2/ai/assistants/chat', {
        user_id: 'u-models',
        session_id: 's-models-2',
        model: 'fake-gpt',
        stream: true,
        messages: [{ role: 'user', content: question }],
      });
      expect(response.status).to.equal(200);
      const events = await readEvents(response);
      const done = events[events.length - 1] as ReceivedEvent;
      expect(done.event).to.equal('done');
      expect(done.data).to.deep.include({
        reply: `Answer from up-gpt about ${question}.`,
        model: 'fake-gpt',
        request_id: response.headers.get('x-request-id'),
      });
      expect(done.data.usage.tokens_used).to.equal(1545);
      expect(deltaText(events)).to.equal(done.data.reply);
      expect(fake.requestsFor('up-gpt')[0]).to.deep.include({ stream: true });
    });

    it('passes an unknown model through as 400 invalid_request', async () => {
      const res = await postJson('/api/v2/ai/assistants/chat', {
        user_id: 'u-models',
        session_id: 's-models-3',
        model: 'no-such-model',
        messages: [{ role: 'user', content: question }],
      });
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_request');
      expect(res.body.error.details[0]?.field).to.equal('/model');
    });
  });
});
