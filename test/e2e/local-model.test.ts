import { expect } from 'chai';
import OpenAI from 'openai';
import { Topics, type AnyEvent } from '@switchyard/shared';
import { readEvents, silentLogger, waitFor, type ReceivedEvent } from '@switchyard/shared/testing';
import { fetchedLocalModel, loadGguf } from '@switchyard/content';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { callApi } from '../support/http';
import { E2E_ENV } from '../support/mesh';

/**
 * A real language model through the gateway: SmolLM2-135M-Instruct (the GGUF of `npm run
 * model:fetch`) run by llama.cpp inside the content service. The assertions are on mechanics and
 * contract (usage by the model's own tokenizer, caps, streams, cancellation, the queue), never on
 * the wording a 135M model chooses. Pending without the file on a developer's machine; failing
 * in CI, where .ci/run fetches it first.
 */

const MODEL = 'smollm2';
/** The same file as an embeddings model (loaded once, shared): knowledge bases and /v1/embeddings. */
const EMBED_MODEL = 'smollm2-embed';
/** One sequence and one waiting request: a third request at once finds the queue full. */
const PARALLEL = 1;
const MAX_QUEUE = 1;

/** A prompt a small instruct model answers at length, so a generation is still running when probed. */
const LONG_PROMPT = 'Write a detailed essay about the history of the bicycle.';

function modelFile(context: Mocha.Context): string {
  const fetched = fetchedLocalModel(process.env);
  if (fetched) return fetched.path;
  if (process.env.CI) throw new Error('the local model is missing: run npm run model:fetch');
  context.skip();
}

describe('e2e: a real local model (llama.cpp, SmolLM2-135M) through the gateway', function () {
  this.timeout(120_000);
  let mesh: EmbeddedMesh;
  let tokens: (text: string) => number;
  let embeddingWidth: number;
  const usage: AnyEvent[] = [];

  before(async function () {
    const file = modelFile(this);
    mesh = await startEmbeddedMesh(
      {
        ...E2E_ENV,
        DEV_API_KEY: 'sk_local_model_0123456789abcdef',
        MODEL_REGISTRY_JSON: JSON.stringify({
          defaultModel: MODEL,
          models: [
            { id: 'builtin', provider: 'builtin' },
            {
              id: MODEL,
              provider: 'llama-cpp',
              modelPath: file,
              contextSize: 2048,
              parallel: PARALLEL,
              maxQueue: MAX_QUEUE,
              seed: 7,
            },
            {
              id: EMBED_MODEL,
              provider: 'llama-cpp',
              modelPath: file,
              capabilities: ['embeddings'],
              contextSize: 512,
            },
          ],
        }),
        DEFAULT_MODEL: MODEL,
      },
      silentLogger(),
    );
    // The file the content service loaded (once per process): the model's own tokenizer.
    const gguf = await loadGguf(file, false, silentLogger());
    tokens = (text) => gguf.tokenize(text).length;
    embeddingWidth = gguf.embeddingVectorSize;
    await mesh.bus.subscribe({
      group: 'e2e-local-model',
      topics: [Topics.usage],
      handler: async (event) => void usage.push(event),
    });
  });

  after(async () => {
    await mesh?.stop();
  });

  function post(route: string, body: unknown, signal?: AbortSignal): Promise<Response> {
    return fetch(`${mesh.gatewayUrl}${route}`, {
      method: 'POST',
      headers: { authorization: `X-API-Key ${mesh.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
  }

  const postJson = (route: string, body: unknown) =>
    callApi(mesh.gatewayUrl, mesh.apiKey, route, { body, timeoutMs: 120_000 });

  /** A help collection of the organization holding these articles while `use` runs. */
  async function withArticles(
    articles: Array<{ id: string; title: string; body: string }>,
    use: () => Promise<void>,
  ): Promise<void> {
    const collection = `local-help-${Date.now()}`;
    const created = await postJson('/api/v2/knowledge/collections', {
      name: collection,
      kind: 'articles',
    });
    expect(created.status).to.equal(201);
    try {
      const stored = await postJson(`/api/v2/knowledge/collections/${collection}/documents`, {
        documents: articles.map((a) => ({ ...a, url: `https://help.example/${a.id}` })),
      });
      expect(stored.status).to.be.within(200, 201);
      await use();
    } finally {
      await callApi(mesh.gatewayUrl, mesh.apiKey, `/api/v2/knowledge/collections/${collection}`, {
        method: 'DELETE',
      });
    }
  }

  const usageOf = (requestId: string | null) =>
    waitFor(
      async () =>
        usage.find((e) => e.type === 'usage.recorded' && e.data.requestId === requestId)?.data as
          { tokensInput: number; tokensOutput: number; outcome: string; cost: number } | undefined,
      10_000,
    );

  it('generates with the exact usage of the model tokenizer, cost 0 and max_length as the cap', async () => {
    const res = await postJson('/api/v2/ai/content/generate', {
      prompt: 'Write a product description for waterproof trail running shoes',
      tone: 'persuasive',
      max_length: 24,
    });
    expect(res.status).to.equal(200);
    expect(res.body.content).to.be.a('string').and.not.empty;
    expect(res.body.usage.model).to.equal(MODEL);
    expect(res.body.usage.cost).to.equal(0);
    expect(res.body.usage.tokens_output).to.equal(tokens(res.body.content));
    expect(res.body.usage.tokens_output).to.be.within(1, 24);
    // The prompt as the chat template renders it: more than the user's words alone.
    expect(res.body.usage.tokens_input).to.be.greaterThan(
      tokens('Write a product description for waterproof trail running shoes'),
    );
    const recorded = await usageOf(res.body.request_id);
    expect(recorded).to.include({
      tokensInput: res.body.usage.tokens_input,
      tokensOutput: res.body.usage.tokens_output,
      cost: 0,
      outcome: 'succeeded',
    });
  });

  it('never writes more than max_length tokens, however long the answer would be', async () => {
    for (const cap of [1, 5, 40]) {
      const res = await postJson('/api/v2/ai/content/generate', {
        prompt: LONG_PROMPT,
        max_length: cap,
      });
      expect(res.status).to.equal(200);
      expect(res.body.usage.tokens_output, `max_length ${cap}`).to.be.within(1, cap);
      expect(tokens(res.body.content)).to.be.at.most(cap);
    }
  });

  it('streams token by token: the deltas concatenate to the final text, with its exact usage', async () => {
    const response = await post('/api/v2/ai/content/generate', {
      prompt: 'Describe a lighthouse at night.',
      max_length: 40,
      stream: true,
    });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/event-stream/);
    const events = await readEvents(response);
    const done = events.at(-1) as ReceivedEvent;
    expect(done.event).to.equal('done');
    const deltas = events.filter((e) => e.event === 'delta').map((e) => e.data.text as string);
    expect(deltas.length).to.be.greaterThan(3);
    expect(deltas.join('')).to.equal(done.data.content);
    expect(done.data.usage.model).to.equal(MODEL);
    expect(done.data.usage.tokens_output).to.equal(tokens(done.data.content));
    expect(done.data.usage.tokens_output).to.be.within(1, 40);
  });

  it('summarizes the text it is given, metered by the model tokenizer', async () => {
    const text = [
      'Switchyard routes every AI request through one gateway.',
      'The gateway checks the API key, validates the body and forwards the call over gRPC.',
      'Content generation, assistants and recommendations each run as an independent service.',
      'Usage events flow through the event bus into the notification service.',
    ].join(' ');
    const res = await postJson('/api/v2/ai/content/transform', {
      action: 'summarize',
      text,
      target_length: 'short',
    });
    expect(res.status).to.equal(200);
    expect(res.body.transformed_text).to.be.a('string').and.not.empty;
    expect(res.body.original_length).to.equal(text.length);
    expect(res.body.usage.model).to.equal(MODEL);
    expect(res.body.usage.tokens_output).to.equal(tokens(res.body.transformed_text));
    // The whole text is in the prompt.
    expect(res.body.usage.tokens_input).to.be.greaterThan(tokens(text));
  });

  it("answers a support chat from the organization's help articles, the article in the prompt", async () => {
    const article =
      'To get a refund for an order:\n1. Open Orders.\n2. Choose Request refund.\n3. Send the items back within 14 days.';
    await withArticles([{ id: 'refunds', title: 'Refunds', body: article }], async () => {
      const question = 'How do I get a refund for my order?';
      const res = await postJson('/api/v2/ai/assistants/support', {
        user_id: 'local-u1',
        session_id: `local-support-${Date.now()}`,
        model: MODEL,
        messages: [{ role: 'user', content: question }],
      });
      expect(res.status).to.equal(200);
      expect(res.body.model).to.equal(MODEL);
      expect(res.body.reply).to.be.a('string').and.not.empty;
      // The model read the article besides the question, and wrote the reply.
      expect(res.body.usage.tokens_used).to.be.greaterThan(
        tokens(question) + tokens(article) + tokens(res.body.reply) - 1,
      );
    });
  });

  it('hands a support conversation over with the hand-over text and contacts, whatever the model writes; the turn records the check', async () => {
    const escalation = {
      message: 'A colleague from our workshop takes over and writes back today.',
      contact: 'werkstatt@local-model.example, +49 341 5550142',
      channel: 'email',
    };
    const profile = await callApi(mesh.gatewayUrl, mesh.apiKey, '/api/v2/agents/support', {
      method: 'PUT',
      body: { escalation },
    });
    expect(profile.status, profile.text).to.equal(200);
    try {
      const sessionId = `local-escalation-${Date.now()}`;
      const res = await postJson('/api/v2/ai/assistants/support', {
        user_id: 'local-u2',
        session_id: sessionId,
        model: MODEL,
        messages: [{ role: 'user', content: 'I want to talk to a real person please' }],
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.model).to.equal(MODEL);
      expect(res.body.reply).to.include(escalation.message);
      expect(res.body.reply).to.include(escalation.contact);
      const session = await callApi(
        mesh.gatewayUrl,
        mesh.apiKey,
        `/api/v2/assistants/sessions/${sessionId}`,
      );
      const turn = session.body.messages.at(-1);
      expect(turn.content).to.equal(res.body.reply);
      expect(turn.grounding).to.include({ model: MODEL });
      expect(turn.grounding.overruled).to.be.a('boolean');
    } finally {
      await callApi(mesh.gatewayUrl, mesh.apiKey, '/api/v2/agents/support', { method: 'DELETE' });
    }
  });

  it('stops generating when the caller goes away: the call fails with the tokens it spent, and the model serves on', async () => {
    const controller = new AbortController();
    const response = await post(
      '/api/v2/ai/content/generate',
      { prompt: LONG_PROMPT, max_length: 400, stream: true },
      controller.signal,
    );
    const requestId = response.headers.get('x-request-id');
    // Hang up on the first token.
    await readEvents(response, (event) => event.event !== 'delta').catch(() => []);
    controller.abort();
    const recorded = await usageOf(requestId);
    expect(recorded!.outcome).to.equal('failed');
    expect(recorded!.tokensOutput).to.be.within(1, 399);
    const next = await postJson('/api/v2/ai/content/generate', { prompt: 'Hello', max_length: 8 });
    expect(next.status).to.equal(200);
  });

  it('refuses a request beyond the queue with 503 unavailable, Retry-After and the error body; the others answer', async () => {
    const body = { prompt: LONG_PROMPT, max_length: 60 };
    const running = await post('/api/v2/ai/content/generate', { ...body, stream: true });
    // Two more once the first is generating (its first token is here): one waits, one finds no room.
    let generating!: () => void;
    const firstToken = new Promise<void>((resolve) => (generating = resolve));
    const firstDone = readEvents(running, (event) => {
      if (event.event === 'delta') generating();
    });
    await firstToken;
    const others = await Promise.all([
      postJson('/api/v2/ai/content/generate', body),
      postJson('/api/v2/ai/content/generate', body),
    ]);
    expect(others.map((r) => r.status).sort()).to.deep.equal([200, 503]);
    const refused = others.find((r) => r.status === 503)!;
    expect(refused.body.error.code).to.equal('unavailable');
    expect(refused.body.error.message).to.be.a('string').and.not.empty;
    expect(refused.body.request_id).to.equal(refused.headers.get('x-request-id'));
    expect(Number(refused.headers.get('retry-after'))).to.be.at.least(1);
    expect((await firstDone).at(-1)!.event).to.equal('done');
  });

  it('keeps the event loop free while generating: /healthz and GET /api/v2/models answer mid-stream', async () => {
    const response = await post('/api/v2/ai/content/generate', {
      prompt: LONG_PROMPT,
      max_length: 150,
      stream: true,
    });
    const order: string[] = [];
    let probes: Promise<void> | undefined;
    const probe = async (name: string, route: string) => {
      const res = await fetch(`${mesh.gatewayUrl}${route}`, {
        headers: { authorization: `X-API-Key ${mesh.apiKey}` },
      });
      expect(res.status, name).to.equal(200);
      order.push(name);
    };
    const events = await readEvents(response, (event) => {
      if (event.event === 'delta' && !probes)
        probes = Promise.all([
          probe('healthz', '/healthz'),
          probe('models', '/api/v2/models'),
        ]).then(() => undefined);
      if (event.event === 'done') order.push('done');
    });
    await probes;
    expect(events.at(-1)!.event).to.equal('done');
    // Both answered while tokens were still being written, not after the generation.
    expect(order.indexOf('healthz')).to.be.lessThan(order.indexOf('done'));
    expect(order.indexOf('models')).to.be.lessThan(order.indexOf('done'));
    expect(events.filter((e) => e.event === 'delta').length).to.be.greaterThan(20);
  });

  describe('/v1/chat/completions with the official openai SDK', () => {
    let client: OpenAI;
    before(() => {
      client = new OpenAI({ baseURL: `${mesh.gatewayUrl}/v1`, apiKey: mesh.apiKey, maxRetries: 0 });
    });

    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are a helpful assistant. Answer briefly.' },
      { role: 'user', content: 'Name three colours.' },
    ];

    it('answers a chat completion with the usage of the model tokenizer and max_tokens as the cap', async () => {
      const completion = await client.chat.completions.create({
        model: MODEL,
        messages,
        max_tokens: 12,
      });
      expect(completion.object).to.equal('chat.completion');
      expect(completion.model).to.equal(MODEL);
      const text = completion.choices[0]!.message.content!;
      expect(text).to.be.a('string').and.not.empty;
      expect(completion.usage!.completion_tokens).to.equal(tokens(text));
      expect(completion.usage!.completion_tokens).to.be.within(1, 12);
      expect(completion.usage!.prompt_tokens).to.be.greaterThan(0);
      expect(completion.usage!.total_tokens).to.equal(
        completion.usage!.prompt_tokens + completion.usage!.completion_tokens,
      );
      expect(['stop', 'length']).to.include(completion.choices[0]!.finish_reason);
    });

    it('streams chunks that concatenate to the answer, then the usage chunk', async () => {
      const stream = await client.chat.completions.create({
        model: MODEL,
        messages,
        max_tokens: 30,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let contentChunks = 0;
      let reported: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta.content ?? '';
        if (delta) contentChunks++;
        text += delta;
        reported = chunk.usage ?? reported;
      }
      expect(contentChunks).to.be.greaterThan(1);
      expect(reported!.completion_tokens).to.equal(tokens(text));
      expect(reported!.completion_tokens).to.be.within(1, 30);
    });

    it('ends the answer before a stop sequence', async () => {
      const list: OpenAI.Chat.ChatCompletionMessageParam[] = [
        { role: 'user', content: 'List 50 animals, one per line.' },
      ];
      const free = await client.chat.completions.create({
        model: MODEL,
        messages: list,
        max_tokens: 40,
      });
      const full = free.choices[0]!.message.content!;
      expect(full, 'an answer of several lines').to.include('\n');
      const stop = '\n';
      const stopped = await client.chat.completions.create({
        model: MODEL,
        messages: list,
        max_tokens: 40,
        stop: [stop],
      });
      const text = stopped.choices[0]!.message.content!;
      expect(text).to.not.include(stop);
      expect(stopped.choices[0]!.finish_reason).to.equal('stop');
      expect(stopped.usage!.completion_tokens).to.be.lessThan(free.usage!.completion_tokens);
    });
  });
  describe('local embeddings: /v1/embeddings and knowledge retrieval', () => {
    it('answers /v1/embeddings to the openai SDK: a vector per input of the model width, usage by its tokenizer', async () => {
      const client = new OpenAI({
        baseURL: `${mesh.gatewayUrl}/v1`,
        apiKey: mesh.apiKey,
        maxRetries: 0,
      });
      const inputs = [
        'The parcel arrived two days late.',
        'Reset your password from the sign-in page.',
      ];
      // base64, the SDK's default encoding, decoded by the SDK.
      const result = await client.embeddings.create({ model: EMBED_MODEL, input: inputs });
      expect(result.model).to.equal(EMBED_MODEL);
      expect(result.data.map((d) => d.index)).to.deep.equal([0, 1]);
      for (const d of result.data) {
        expect(d.embedding).to.have.length(embeddingWidth);
        expect(d.embedding.every(Number.isFinite)).to.equal(true);
      }
      expect(result.usage.prompt_tokens).to.equal(tokens(inputs[0]!) + tokens(inputs[1]!));
      expect(result.usage.total_tokens).to.equal(result.usage.prompt_tokens);
      // The same text, alone and as floats: the same vector.
      const again = await client.embeddings.create({
        model: EMBED_MODEL,
        input: inputs[1]!,
        encoding_format: 'float',
      });
      const [first, second] = [result.data[1]!.embedding, again.data[0]!.embedding];
      expect(second.map((v, i) => Math.abs(v - first[i]!)).every((d) => d < 1e-4)).to.equal(true);
    });

    /**
     * SmolLM2 is a chat model: its pooled vectors exercise the path (write, metering, fusion with
     * BM25) but are no measure of meaning, so which article a wordless match picks is not asserted.
     */
    it("embeds an organization's documents on write (metered) and fuses their vectors with BM25 in the assistants' retrieval", async () => {
      const articles = [
        {
          id: 'shipping',
          title: 'Shipping times',
          body: 'Parcels leave our warehouse within one day and reach most addresses in three to five days.',
        },
        {
          id: 'password',
          title: 'Account access',
          body: 'Forgot your password? Choose Reset on the sign-in page and follow the link we email you.',
        },
        {
          id: 'returns',
          title: 'Returns',
          body: 'Unused items can be returned within thirty days for a full refund to your card.',
        },
      ];
      const embeddingUsage = () =>
        usage
          .map((e) => e.data as { route?: string; model?: string; tokensInput?: number })
          .filter((d) => d.route === 'knowledge.embeddings' && d.model === EMBED_MODEL);
      const before = embeddingUsage().length;
      await withArticles(articles, async () => {
        // The documents' chunks, by the model's own tokenizer, metered as the organization's.
        const written = await waitFor(async () => embeddingUsage()[before], 10_000);
        expect(written!.tokensInput).to.be.at.least(
          articles.reduce((sum, a) => sum + tokens(a.body), 0),
        );
        const ask = async (question: string) => {
          const res = await postJson('/api/v2/ai/assistants/support', {
            user_id: 'local-u2',
            session_id: `local-vectors-${Date.now()}-${question.length}`,
            model: 'builtin',
            messages: [{ role: 'user', content: question }],
          });
          expect(res.status, res.text).to.equal(200);
          return String(res.body.reply);
        };
        // Words the article's title names: BM25 ranks it first, the vectors cannot outvote it.
        expect(await ask('How long does shipping take?')).to.match(
          /^From \[Shipping times\]\(https:\/\/help\.example\/shipping\)/,
        );
        // No word in common with any article: only the question's vector can find one (BM25 alone
        // answers "I can't help with that here"); the question was embedded and metered too.
        const wordless = await ask('When will my package get here?');
        expect(wordless).to.match(
          /^From \[(Shipping times|Account access|Returns)\]\(https:\/\/help\.example\//,
        );
        expect(embeddingUsage().length).to.be.greaterThan(before + 1);
      });
    });
  });
});
