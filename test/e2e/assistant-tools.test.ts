import { expect } from 'chai';
import { countTokens } from '@switchyard/shared';
import {
  embeddingTokens,
  FakeLlmServer,
  readEvents,
  REPORTED,
  silentLogger,
  waitFor,
} from '@switchyard/shared/testing';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { callApi, type ApiOptions } from '../support/http';
import { E2E_ENV } from '../support/mesh';

const KEY = 'sk-fake-tools';
const UPSTREAM = 'up-tools';
const ROUND_TOKENS = REPORTED.prompt_tokens + REPORTED.completion_tokens;
const HISTORY_TOKEN_BUDGET = 400;

/**
 * Agents on a tool-calling model, end to end: gateway -> assistant -> content -> a local fake
 * OpenAI-compatible server, with the tools running against the organization's knowledge base.
 */
describe('e2e: assistant tools on a tool-calling model', function () {
  this.timeout(60_000);
  let fake: FakeLlmServer;
  let mesh: EmbeddedMesh;
  const api = (path: string, options?: ApiOptions) =>
    callApi(mesh.gatewayUrl, mesh.apiKey, path, options);
  const soon = new Date(Date.now() + 3 * 86_400_000).toISOString();

  before(async () => {
    fake = new FakeLlmServer(KEY);
    // Embeddings by concept, so "refund" and "money back" meet without sharing a word.
    const concepts = [
      /refund|money back|reimburs/i,
      /ticket|seat/i,
      /password|login/i,
      /jazz|concert|bebop/i,
    ];
    fake.embed = (text) => concepts.map((c) => (c.test(text) ? 1 : 0));
    const baseUrl = await fake.start();
    const registry = {
      defaultModel: 'builtin',
      models: [
        { id: 'builtin', provider: 'builtin' },
        {
          id: 'tool-gpt',
          provider: 'openai-compatible',
          baseUrl,
          apiKeyEnv: 'FAKE_TOOLS_KEY',
          upstreamModel: UPSTREAM,
          contextWindow: 16000,
          maxOutputTokens: 500,
          inputPricePerMillion: 1,
          outputPricePerMillion: 2,
          capabilities: ['chat'],
        },
        // Vector retrieval comes from the registry: a model with the embeddings capability (prices from the catalog).
        {
          id: 'embed-small',
          provider: 'openai-compatible',
          baseUrl,
          apiKeyEnv: 'FAKE_TOOLS_KEY',
          upstreamModel: 'fake-embed',
          catalogModel: 'text-embedding-3-small',
        },
      ],
    };
    mesh = await startEmbeddedMesh(
      {
        ...E2E_ENV,
        MODEL_REGISTRY_JSON: JSON.stringify(registry),
        FAKE_TOOLS_KEY: KEY,
        HISTORY_TOKEN_BUDGET: String(HISTORY_TOKEN_BUDGET),
      },
      silentLogger(),
    );
    expect(
      (await api('/api/v2/knowledge/collections', { body: { name: 'gigs', kind: 'events' } }))
        .status,
    ).to.equal(201);
    const documents = [
      {
        id: 'j1',
        title: 'Jazz Night',
        city: 'Berlin',
        venue: 'A-Trane',
        startsAt: soon,
        tags: ['concert'],
        url: 'https://tickets.example/j1',
        description: 'Quartet playing bebop standards.',
      },
      {
        id: 'c1',
        title: 'Comedy Hour',
        city: 'Hamburg',
        startsAt: soon,
        tags: ['comedy'],
        url: 'https://tickets.example/c1',
      },
    ];
    expect(
      (await api('/api/v2/knowledge/collections/gigs/documents', { body: { documents } })).status,
    ).to.equal(200);
    const agent = await api('/api/v2/agents/concierge', {
      method: 'PUT',
      body: { model: 'tool-gpt', tools: ['search_knowledge', 'get_item'], collections: ['gigs'] },
    });
    expect(agent.status, agent.text).to.equal(200);
  });

  after(async () => {
    await mesh?.stop();
    await fake?.close();
  });

  beforeEach(() => fake.reset());

  const ask = (agent: string, content: string, extra: object = {}) =>
    api(`/api/v2/ai/assistants/${agent}`, {
      body: {
        user_id: 'u1',
        session_id: `s-${Math.random().toString(36).slice(2)}`,
        messages: [{ role: 'user', content }],
        ...extra,
      },
    });

  it('calls search_knowledge, gets the passages back, links what was retrieved, and counts every round', async () => {
    fake.script(
      UPSTREAM,
      {
        kind: 'tool_calls',
        calls: [{ name: 'search_knowledge', arguments: { query: 'concerts in Berlin' } }],
      },
      { kind: 'ok', text: 'Try [Jazz Night](https://tickets.example/j1) at A-Trane.' },
    );
    const res = await ask('concierge', 'Any concerts in Berlin?');
    expect(res.status, res.text).to.equal(200);
    const [first, second] = fake.requestsFor(UPSTREAM);
    expect(fake.requestsFor(UPSTREAM)).to.have.length(2);
    expect(first!.tools).to.deep.equal(['search_knowledge', 'get_item']);
    // Retrieved before the model was called: the passage is in the system message.
    expect(first!.messages[0]!.role).to.equal('system');
    expect(first!.messages[0]!.content).to.include('Quartet playing bebop standards.');
    const toolMessage = second!.messages.find((m) => m.role === 'tool');
    expect(JSON.parse(toolMessage!.content).results).to.deep.equal([
      {
        collection: 'gigs',
        id: 'j1',
        title: 'Jazz Night',
        url: 'https://tickets.example/j1',
        text: 'Jazz Night\nconcert\nA-Trane, Berlin\nQuartet playing bebop standards.',
      },
    ]);
    expect(
      second!.messages.some((m) => m.role === 'assistant' && (m.tool_calls ?? []).length === 1),
    ).to.equal(true);
    // The model's words; the link is the service's, to what the tool retrieved.
    expect(res.body.reply).to.equal(
      'Try Jazz Night at A-Trane.\n\nSources: [Jazz Night](https://tickets.example/j1)',
    );
    expect(res.body.model).to.equal('tool-gpt');
    expect(res.body.usage.tokens_used).to.equal(2 * ROUND_TOKENS);
  });

  it("streams a tool-using answer: the checked reply in deltas (an invented link overrules it), then done with every round's usage", async () => {
    fake.script(
      UPSTREAM,
      {
        kind: 'tool_calls',
        calls: [{ name: 'get_item', arguments: { collection: 'gigs', id: 'j1' } }],
      },
      {
        kind: 'ok',
        text: 'See [Jazz Night](https://tickets.example/j1) and [elsewhere](https://evil.example/).',
      },
    );
    const response = await fetch(`${mesh.gatewayUrl}/api/v2/ai/assistants/concierge`, {
      method: 'POST',
      headers: { authorization: `X-API-Key ${mesh.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        user_id: 'u1',
        session_id: 'stream-1',
        stream: true,
        messages: [{ role: 'user', content: 'Tell me about Jazz Night' }],
      }),
    });
    const events = await readEvents(response);
    const text = events
      .filter((e) => e.event === 'delta')
      .map((e) => e.data.text)
      .join('');
    const done = events.find((e) => e.event === 'done')!.data;
    // A link to anything not retrieved is an invented source: the service's own answer goes out instead.
    expect(text).to.include('[Jazz Night](https://tickets.example/j1)');
    expect(text).to.not.include('evil.example').and.not.include('elsewhere');
    expect(done.reply).to.equal(text);
    expect(done.usage.tokens_used).to.equal(2 * ROUND_TOKENS);
  });

  it('recommend asks the recommendation service for the calling user', async () => {
    await api('/api/v2/catalog/items', {
      body: {
        items: [
          { itemId: 'tent', catalog: 'ecommerce', title: 'Tent' },
          { itemId: 'stove', catalog: 'ecommerce', title: 'Stove' },
        ],
      },
    });
    await api('/api/v2/interactions', {
      body: {
        interactions: [
          { userId: 'shopper', itemId: 'tent', type: 'purchase' },
          { userId: 'other', itemId: 'tent', type: 'purchase' },
          { userId: 'other', itemId: 'stove', type: 'purchase' },
        ],
      },
    });
    // The recommendation model is trained, not updated per interaction: train it now rather than wait for the schedule.
    expect((await api('/api/v2/ai/recommendations/model', { body: {} })).status).to.equal(200);
    expect(
      (
        await api('/api/v2/agents/advisor', {
          method: 'PUT',
          body: { model: 'tool-gpt', tools: ['recommend'] },
        })
      ).status,
    ).to.equal(200);
    fake.script(
      UPSTREAM,
      { kind: 'tool_calls', calls: [{ name: 'recommend', arguments: { limit: 3 } }] },
      { kind: 'ok', text: 'Take the stove.' },
    );
    const res = await api('/api/v2/ai/assistants/advisor', {
      body: {
        user_id: 'shopper',
        session_id: 'rec-1',
        messages: [{ role: 'user', content: 'What should I buy next?' }],
      },
    });
    expect(res.status, res.text).to.equal(200);
    const toolMessage = fake.requestsFor(UPSTREAM)[1]!.messages.find((m) => m.role === 'tool');
    const recommended = JSON.parse(toolMessage!.content).recommendations as Array<{
      itemId: string;
      title: string;
    }>;
    expect(recommended.map((r) => r.itemId))
      .to.include('stove')
      .and.not.include('tent');
    expect(res.body.reply).to.equal('Take the stove.');
  });

  it('stops offering tools after 5 rounds and takes the answer of the 6th', async () => {
    const lookup = {
      kind: 'tool_calls' as const,
      calls: [{ name: 'get_item', arguments: { collection: 'gigs', id: 'c1' } }],
    };
    fake.script(UPSTREAM, lookup, lookup, lookup, lookup, lookup, {
      kind: 'ok',
      text: 'Comedy Hour is in Hamburg.',
    });
    const res = await ask('concierge', 'Tell me about the comedy show');
    expect(res.status, res.text).to.equal(200);
    const requests = fake.requestsFor(UPSTREAM);
    expect(requests.map((r) => r.tools.length)).to.deep.equal([2, 2, 2, 2, 2, 0]);
    expect(res.body.reply).to.equal(
      'Comedy Hour is in Hamburg.\n\nSources: [Comedy Hour](https://tickets.example/c1)',
    );
    expect(res.body.usage.tokens_used).to.equal(6 * ROUND_TOKENS);
  });

  /** Tokens the usage ledger holds for embeddings (the events reach it through the bus, so callers wait for the figure they expect). */
  async function embeddingUsage(): Promise<{ tokens: number; models: string[] }> {
    type Bucket = { tokensInput: number; tokensOutput: number };
    const report = (await api('/api/v2/usage')).body as {
      byEndpoint: Array<Bucket & { endpoint: string }>;
      byModel: Array<Bucket & { model: string }>;
    };
    const bucket = report.byEndpoint.find((b) => b.endpoint === '/api/v2/knowledge (embeddings)');
    return {
      tokens: bucket ? bucket.tokensInput + bucket.tokensOutput : 0,
      models: report.byModel.map((b) => b.model),
    };
  }

  it('embeds documents on write and finds by meaning what BM25 cannot (vectors fused with BM25)', async () => {
    expect(
      (await api('/api/v2/knowledge/collections', { body: { name: 'help', kind: 'articles' } }))
        .status,
    ).to.equal(201);
    const articles = [
      {
        id: 'money',
        title: 'Getting your money back',
        body: 'We reimburse cancelled orders within 5 days.',
        url: 'https://help.example/money',
      },
      {
        id: 'login',
        title: 'Resetting your password',
        body: 'Use the link on the login page.',
        url: 'https://help.example/login',
      },
    ];
    expect(
      (await api('/api/v2/knowledge/collections/help/documents', { body: { documents: articles } }))
        .status,
    ).to.equal(200);
    const chunks = fake.embeddingInputs.flat();
    expect(chunks).to.have.length(2);
    const before = await waitFor(async () =>
      (await embeddingUsage()).tokens >= embeddingTokens(chunks) ? embeddingUsage() : undefined,
    );
    const res = await ask('support', 'I want a refund');
    expect(res.status, res.text).to.equal(200);
    expect(res.body.reply).to.include('[Getting your money back](https://help.example/money)');
    expect(fake.embeddingInputs.at(-1)).to.deep.equal(['I want a refund']);
    // Every embedding call is metered to the organization, under its own endpoint and the registry model.
    const after = await waitFor(async () => {
      const usage = await embeddingUsage();
      return usage.tokens > before.tokens ? usage : undefined;
    });
    expect(after.tokens - before.tokens).to.equal(embeddingTokens(['I want a refund']));
    expect(after.models).to.include('embed-small');
    expect((await api('/api/v2/knowledge/collections/help', { method: 'DELETE' })).status).to.equal(
      204,
    );
  });

  it('summarizes the turns that no longer fit the token budget into a running summary kept with the session', async () => {
    const long = (i: number) => `Message ${i}: ${'lorem ipsum dolor sit amet '.repeat(12)}`;
    const messages = Array.from({ length: 10 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: long(i),
    }));
    messages.push({ role: 'user', content: 'And the latest question?' });
    fake.script(
      UPSTREAM,
      { kind: 'ok', text: 'The user asked about lorem ipsum, order 4711.' },
      { kind: 'ok', text: 'Here is the answer.' },
    );
    const res = await api('/api/v2/ai/assistants/support', {
      body: { user_id: 'u2', session_id: 'trim-1', model: 'tool-gpt', messages },
    });
    expect(res.status, res.text).to.equal(200);
    const [summarizing, answering] = fake.requestsFor(UPSTREAM);
    // First the model folds the oldest turns into a summary...
    expect(summarizing!.messages[0]!.content).to.match(/^Summarize this conversation/);
    expect(summarizing!.messages[1]!.content).to.include('user: Message 0:');
    // ...then answers from the summary plus the newest turns, within the budget.
    const sent = answering!.messages;
    expect(sent[0]!.role).to.equal('system');
    expect(sent[0]!.content)
      .to.include('Summary of the earlier conversation')
      .and.include('The user asked about lorem ipsum, order 4711.');
    expect(sent.at(-1)!.content).to.equal('And the latest question?');
    expect(sent.some((m) => m.content.startsWith('Message 0:'))).to.equal(false);
    const summarized = messages
      .filter((m) => !sent.some((s) => s.content === m.content))
      .map((m) => m.content);
    expect(
      summarized.every((content) => summarizing!.messages[1]!.content.includes(content)),
      'every turn left out was summarized',
    ).to.equal(true);
    const promptTokens = sent.reduce((sum, m) => sum + countTokens(m.content), 0);
    expect(promptTokens).to.be.at.most(HISTORY_TOKEN_BUDGET);
    // Both model rounds are the reply's usage.
    expect(res.body.usage.tokens_used).to.equal(2 * ROUND_TOKENS);
    // The session keeps the whole conversation and the running summary.
    const stored = await api('/api/v2/assistants/sessions/trim-1');
    expect(stored.body.messages).to.have.length(12);
    expect(stored.body.summary).to.equal('The user asked about lorem ipsum, order 4711.');

    // The next turn starts from the stored summary: the summarized turns are not sent again.
    fake.reset();
    fake.script(UPSTREAM, { kind: 'ok', text: 'Still here.' });
    const next = await api('/api/v2/ai/assistants/support', {
      body: {
        user_id: 'u2',
        session_id: 'trim-1',
        model: 'tool-gpt',
        messages: [{ role: 'user', content: 'One more thing?' }],
      },
    });
    expect(next.status, next.text).to.equal(200);
    const again = fake.requestsFor(UPSTREAM).at(-1)!.messages;
    expect(again[0]!.content).to.include('order 4711');
    expect(again.some((m) => m.content.startsWith('Message 0:'))).to.equal(false);
    expect(again.at(-1)!.content).to.equal('One more thing?');
  });
});
