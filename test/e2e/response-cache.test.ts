import { expect } from 'chai';
import OpenAI from 'openai';
import { endpointOf, FakeLlmServer, REPORTED, silentLogger } from '@switchyard/shared/testing';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { callApi, type ApiOptions } from '../support/http';
import { E2E_ENV } from '../support/mesh';

const GENERATE = '/api/v2/ai/content/generate';
const ADMIN_TOKEN = 'adm_e2e_cache_0123456789abcdef';
const CACHE = 'x-switchyard-cache';

/** A run's own prompts: answers a Redis kept from an earlier run never match. */
const RUN = Math.random().toString(36).slice(2, 10);

/**
 * The response cache through the gateway, with the official openai SDK: an equal request within
 * max-age is answered from the cache (no upstream call, not billed, counted in usage), as JSON or
 * as a stream whatever the first call was; no-store skips it; answers never cross organizations.
 * In memory (embedded) and, when REDIS_URL is set, in Redis.
 */
for (const backend of ['memory', 'redis'] as const) {
  describe(`e2e: response cache [${backend}]`, function () {
    this.timeout(120_000);
    let mesh: EmbeddedMesh;
    let fake: FakeLlmServer;
    let now = new Date('2026-11-20T10:00:00Z');
    let otherKey: string;

    const api = (path: string, options?: ApiOptions) =>
      callApi(mesh.gatewayUrl, mesh.apiKey, path, options);
    const openAi = (key = mesh.apiKey) =>
      new OpenAI({ apiKey: key, baseURL: `${mesh.gatewayUrl}/v1`, maxRetries: 0 });
    const upstreamCalls = () => fake.requestsFor('up-gpt').length;
    const question = (text: string) => ({
      model: 'fake-gpt',
      messages: [{ role: 'user' as const, content: `${text} (${RUN})` }],
      max_tokens: 50,
    });
    const maxAge = (seconds: number) => ({ headers: { 'Cache-Control': `max-age=${seconds}` } });

    async function chat(
      body: ReturnType<typeof question> & Record<string, unknown>,
      options: { headers?: Record<string, string> } = {},
      key?: string,
    ) {
      const { data, response } = await openAi(key)
        .chat.completions.create({ ...body, stream: false }, options)
        .withResponse();
      return { completion: data, cache: response.headers.get(CACHE) };
    }

    async function streamed(
      body: ReturnType<typeof question> & Record<string, unknown>,
      options: { headers?: Record<string, string> } = {},
    ) {
      const { data: stream, response } = await openAi()
        .chat.completions.create(
          { ...body, stream: true, stream_options: { include_usage: true } },
          options,
        )
        .withResponse();
      let text = '';
      let usage: unknown;
      let finish: string | null = null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      return { text, usage, finish, cache: response.headers.get(CACHE) };
    }

    before(async function () {
      if (backend === 'redis' && !endpointOf('redis')) this.skip();
      fake = new FakeLlmServer('unused', ['up-gpt']);
      const registry = {
        defaultModel: 'fake-gpt',
        models: [
          { id: 'builtin', provider: 'builtin' },
          {
            id: 'fake-gpt',
            aliases: ['gpt-fast'],
            provider: 'openai-compatible',
            baseUrl: await fake.start(),
            upstreamModel: 'up-gpt',
            contextWindow: 16000,
            maxOutputTokens: 1000,
            capabilities: ['generate', 'chat'],
            local: true,
            maxRetries: 0,
          },
        ],
      };
      mesh = await startEmbeddedMesh(
        {
          ...E2E_ENV,
          ...(backend === 'redis' ? { REDIS_URL: endpointOf('redis') } : {}),
          DEV_API_KEY: 'sk_cache_0123456789abcdefghijklmn',
          ADMIN_TOKEN,
          MODEL_REGISTRY_JSON: JSON.stringify(registry),
          DEFAULT_MODEL: '',
        },
        silentLogger(),
        { now: () => now },
      );
      const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
      const org = `cache-other-${RUN}`;
      const created = await api('/api/v2/admin/organizations', {
        authorization: admin.authorization,
        body: { id: org, name: 'Other', monthlyTokenQuota: 1_000_000 },
      });
      expect(created.status, created.text).to.equal(201);
      const issued = await api(`/api/v2/admin/organizations/${org}/keys`, {
        authorization: admin.authorization,
        body: { name: 'other' },
      });
      expect(issued.status, issued.text).to.equal(201);
      otherKey = issued.body.key;
    });

    after(async () => {
      await mesh?.stop();
      await fake?.close();
    });

    afterEach(() => {
      now = new Date('2026-11-20T10:00:00Z');
    });

    it('is not in play unless asked: no header, every call goes upstream', async () => {
      const before = upstreamCalls();
      const first = await chat(question('Plain call'));
      const second = await chat(question('Plain call'));
      expect(first.cache).to.equal(null);
      expect(second.cache).to.equal(null);
      expect(upstreamCalls()).to.equal(before + 2);
    });

    it('max-age on the request: a miss stored, then a hit with no upstream call, the same answer', async () => {
      const before = upstreamCalls();
      const miss = await chat(question('Name a tent'), maxAge(60));
      expect(miss.cache).to.equal('miss');
      const hit = await chat(question('Name a tent'), maxAge(60));
      expect(hit.cache).to.equal('hit');
      expect(upstreamCalls()).to.equal(before + 1);
      expect(hit.completion).to.deep.equal(miss.completion);
      // The alias resolves to the same model; user and stream do not change the answer.
      const alias = await chat(
        { ...question('Name a tent'), model: 'gpt-fast', user: 'someone' },
        maxAge(60),
      );
      expect(alias.cache).to.equal('hit');
      // A parameter that changes the answer is another request.
      const warmer = await chat({ ...question('Name a tent'), temperature: 1.5 }, maxAge(60));
      expect(warmer.cache).to.equal('miss');
      expect(upstreamCalls()).to.equal(before + 2);
    });

    it('a stream stored once it completed is replayed as JSON and as a stream the SDK reads', async () => {
      const before = upstreamCalls();
      const first = await streamed(question('Stream a haiku'), maxAge(60));
      expect(first.cache).to.equal('miss');
      expect(first.text).to.not.equal('');
      // Stored once the stream completed: the next calls find it.
      let json = await chat(question('Stream a haiku'), maxAge(60));
      for (let i = 0; i < 20 && json.cache !== 'hit'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        json = await chat(question('Stream a haiku'), maxAge(60));
      }
      expect(json.cache).to.equal('hit');
      expect(json.completion.choices[0]!.message.content).to.equal(first.text);
      const again = await streamed(question('Stream a haiku'), maxAge(60));
      expect(again).to.deep.equal({ ...first, cache: 'hit' });
      expect(upstreamCalls()).to.equal(before + 1);
    });

    it('an answer stored from a stream without include_usage is replayed with its usage', async () => {
      const stream = await openAi().chat.completions.create(
        { ...question('No usage chunk'), stream: true },
        maxAge(60),
      );
      for await (const chunk of stream) expect(chunk.usage ?? null).to.equal(null);
      let json = await chat(question('No usage chunk'), maxAge(60));
      for (let i = 0; i < 20 && json.cache !== 'hit'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        json = await chat(question('No usage chunk'), maxAge(60));
      }
      expect(json.cache).to.equal('hit');
      expect(json.completion.usage).to.deep.include(REPORTED);
    });

    it('a JSON answer is replayed as a stream', async () => {
      const miss = await chat(question('Pack list'), maxAge(60));
      const hit = await streamed(question('Pack list'), maxAge(60));
      expect(hit.cache).to.equal('hit');
      expect(hit.text).to.equal(miss.completion.choices[0]!.message.content);
      expect(hit.finish).to.equal(miss.completion.choices[0]!.finish_reason);
      expect(hit.usage).to.deep.equal(miss.completion.usage);
    });

    it('a stream that broke off is not stored', async () => {
      fake.script('up-gpt', { kind: 'break', afterChunks: 2 });
      const broken = await streamed(question('Broken stream'), maxAge(60)).catch((e: Error) => e);
      expect(broken).to.not.have.property('cache', 'hit');
      const after = await chat(question('Broken stream'), maxAge(60));
      expect(after.cache).to.equal('miss');
    });

    it('errors are not cached', async () => {
      fake.script('up-gpt', { kind: 'status', status: 400, message: 'bad' });
      const failed = await chat(question('Failing call'), maxAge(60)).catch((e: unknown) => e);
      expect(failed).to.be.instanceOf(OpenAI.APIError);
      const next = await chat(question('Failing call'), maxAge(60));
      expect(next.cache).to.equal('miss');
    });

    it('no-store neither reads nor writes; no-cache reads nothing but stores the fresh answer', async () => {
      const noStore = { headers: { 'Cache-Control': 'no-store' } };
      await chat(question('Skip me'), maxAge(60));
      const skipped = await chat(question('Skip me'), noStore);
      expect(skipped.cache).to.equal(null);
      const notStored = await chat(question('Never kept'), noStore);
      expect(notStored.cache).to.equal(null);
      expect((await chat(question('Never kept'), maxAge(60))).cache).to.equal('miss');
      const refreshed = await chat(question('Skip me'), {
        headers: { 'Cache-Control': 'no-cache, max-age=60' },
      });
      expect(refreshed.cache).to.equal('miss');
    });

    it('an answer older than max-age is not replayed (the gateway clock)', async () => {
      await chat(question('Ages'), maxAge(60));
      now = new Date(now.getTime() + 30_000);
      const young = await chat(question('Ages'), maxAge(60));
      expect(young.cache).to.equal('hit');
      expect((await chat(question('Ages'), maxAge(10))).cache).to.equal('miss');
      // The answer stored at +30 s is 50 s old at +80 s, 120 s old at +150 s.
      now = new Date(now.getTime() + 50_000);
      expect((await chat(question('Ages'), maxAge(60))).cache).to.equal('hit');
      now = new Date(now.getTime() + 70_000);
      expect((await chat(question('Ages'), maxAge(60))).cache).to.equal('miss');
    });

    it('a key with cache.maxAgeSeconds caches every call; PATCH turns it off', async () => {
      const issued = await api('/api/v2/keys', {
        body: { name: 'cached', cache: { maxAgeSeconds: 300 } },
      });
      expect(issued.status, issued.text).to.equal(201);
      expect(issued.body.cache).to.deep.equal({ maxAgeSeconds: 300 });
      const key = issued.body.key as string;
      expect((await chat(question('Key cache'), {}, key)).cache).to.equal('miss');
      expect((await chat(question('Key cache'), {}, key)).cache).to.equal('hit');
      const noStore = { headers: { 'Cache-Control': 'no-store' } };
      expect((await chat(question('Key cache'), noStore, key)).cache).to.equal(null);
      const patched = await api(`/api/v2/keys/${issued.body.keyId}`, {
        method: 'PATCH',
        body: { cache: null },
      });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.body).to.not.have.property('cache');
      expect((await chat(question('Key cache'), {}, key)).cache).to.equal(null);
      const refused = await api('/api/v2/keys', { body: { cache: { maxAgeSeconds: 0 } } });
      expect(refused.status).to.equal(400);
    });

    it("one organization never gets another's answers", async () => {
      const before = upstreamCalls();
      await chat(question('Shared question'), maxAge(60));
      const other = await chat(question('Shared question'), maxAge(60), otherKey);
      expect(other.cache).to.equal('miss');
      expect(upstreamCalls()).to.equal(before + 2);
      expect((await chat(question('Shared question'), maxAge(60), otherKey)).cache).to.equal('hit');
    });

    it("a key limited to other models is not answered from another key's call", async () => {
      await chat(question('Scoped'), maxAge(60));
      const issued = await api('/api/v2/keys', { body: { name: 'scoped', models: ['builtin'] } });
      expect(issued.status, issued.text).to.equal(201);
      const refused = await chat(question('Scoped'), maxAge(60), issued.body.key).catch(
        (e: unknown) => e,
      );
      expect(refused).to.be.instanceOf(OpenAI.PermissionDeniedError);
      expect((refused as InstanceType<typeof OpenAI.APIError>).code).to.equal('model_not_allowed');
    });

    it('native generate: JSON and stream hits with their own request id', async () => {
      const body = { prompt: `A tent for two (${RUN})`, max_length: 40 };
      const headers = { 'Cache-Control': 'max-age=60' };
      const before = upstreamCalls();
      const miss = await api(GENERATE, { body, headers });
      expect(miss.status, miss.text).to.equal(200);
      expect(miss.headers.get(CACHE)).to.equal('miss');
      const hit = await api(GENERATE, { body: { ...body, model: 'gpt-fast' }, headers });
      expect(hit.headers.get(CACHE)).to.equal('hit');
      expect(hit.body.content).to.equal(miss.body.content);
      expect(hit.body.usage).to.deep.equal(miss.body.usage);
      expect(hit.body.request_id).to.not.equal(miss.body.request_id);
      const stream = await api(GENERATE, { body: { ...body, stream: true }, headers });
      expect(stream.headers.get(CACHE)).to.equal('hit');
      expect(stream.headers.get('content-type')).to.match(/^text\/event-stream/);
      expect(stream.text).to.include(
        `event: delta\ndata: ${JSON.stringify({ text: miss.body.content })}`,
      );
      expect(stream.text).to.include('event: done');
      expect(upstreamCalls()).to.equal(before + 1);

      const streamFirst = { prompt: `Two tents (${RUN})`, max_length: 40, stream: true };
      const streamMiss = await api(GENERATE, { body: streamFirst, headers });
      expect(streamMiss.headers.get(CACHE)).to.equal('miss');
      let json = await api(GENERATE, { body: { ...streamFirst, stream: false }, headers });
      for (let i = 0; i < 20 && json.headers.get(CACHE) !== 'hit'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        json = await api(GENERATE, { body: { ...streamFirst, stream: false }, headers });
      }
      expect(json.headers.get(CACHE)).to.equal('hit');
      expect(streamMiss.text).to.include(JSON.stringify({ text: json.body.content }).slice(0, 10));
    });

    it('an organization that bills hits records each hit as the call that made its answer', async () => {
      const authorization = `Bearer ${ADMIN_TOKEN}`;
      const org = `cache-billed-${RUN}`;
      const created = await api('/api/v2/admin/organizations', {
        authorization,
        body: { id: org, name: 'Billed', monthlyTokenQuota: 1_000_000, cacheHitsBilled: true },
      });
      expect(created.status, created.text).to.equal(201);
      expect(created.body.cacheHitsBilled).to.equal(true);
      const issued = await api(`/api/v2/admin/organizations/${org}/keys`, {
        authorization,
        body: { name: 'billed' },
      });
      const key = issued.body.key as string;
      const usage = () => callApi(mesh.gatewayUrl, key, '/api/v2/usage');
      const miss = await chat(question('Billed'), maxAge(60), key);
      const hit = await chat(question('Billed'), maxAge(60), key);
      expect([miss.cache, hit.cache]).to.deep.equal(['miss', 'hit']);
      let report = (await usage()).body;
      for (let i = 0; i < 40 && report.calls < 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        report = (await usage()).body;
      }
      expect(report.calls).to.equal(2);
      expect(report.used).to.equal(2 * (REPORTED.prompt_tokens + REPORTED.completion_tokens));
      expect(report.byEndpoint[0]).to.include({ endpoint: '/v1/chat/completions', calls: 2 });
      expect(report.cache).to.deep.equal({
        hits: 1,
        tokensSaved: REPORTED.prompt_tokens + REPORTED.completion_tokens,
      });
      // Turned off: the next hits are free again.
      const patched = await api(`/api/v2/admin/organizations/${org}`, {
        method: 'PATCH',
        authorization,
        body: { cacheHitsBilled: false },
      });
      expect(patched.status, patched.text).to.equal(200);
    });

    it('hits are not billed and are counted apart in the usage report', async () => {
      const usageBefore = (await api('/api/v2/usage')).body;
      await chat(question('Counted'), maxAge(60));
      const miss = await api('/api/v2/usage');
      for (let i = 0; i < 3; i++)
        expect((await chat(question('Counted'), maxAge(60))).cache).to.equal('hit');
      // The ledger has the miss (its usage event) and nothing of the hits.
      let report = (await api('/api/v2/usage')).body;
      for (let i = 0; i < 40 && report.calls < usageBefore.calls + 1; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        report = (await api('/api/v2/usage')).body;
      }
      expect(miss.status).to.equal(200);
      expect(report.calls).to.equal(usageBefore.calls + 1);
      expect(report.cache.hits).to.equal(usageBefore.cache.hits + 3);
      const tokens = (REPORTED.prompt_tokens + REPORTED.completion_tokens) * 3;
      expect(report.cache.tokensSaved).to.equal(usageBefore.cache.tokensSaved + tokens);
    });
  });
}
