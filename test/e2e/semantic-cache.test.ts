import { expect } from 'chai';
import OpenAI from 'openai';
import { DEFAULT_EMBEDDING_MODEL, missingFiles, modelsDirectory } from '@switchyard/content';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { FakeLlmServer, silentLogger } from '@switchyard/shared/testing';
import { callApi } from '../support/http';
import { E2E_ENV } from '../support/mesh';

const CACHE = 'x-switchyard-cache';
const SIMILARITY = 'x-switchyard-cache-similarity';

/**
 * The semantic form of the response cache with the local embedding model (all-MiniLM-L6-v2 on
 * ONNX Runtime): a key's cache.semanticThreshold answers a request whose last user message means
 * the same as a stored one's, all else equal; other questions and other parameters are misses.
 * Hit rate and false hits on a question set: npm run eval:semantic-cache.
 */
describe('e2e: semantic response cache', function () {
  this.timeout(120_000);
  let mesh: EmbeddedMesh;
  let fake: FakeLlmServer;
  let key: string;

  const ask = async (content: string, extra: Record<string, unknown> = {}) => {
    const { data, response } = await new OpenAI({
      apiKey: key,
      baseURL: `${mesh.gatewayUrl}/v1`,
      maxRetries: 0,
    }).chat.completions
      .create({
        model: 'fake-gpt',
        messages: [{ role: 'user', content }],
        max_tokens: 50,
        ...extra,
      })
      .withResponse();
    return {
      content: data.choices[0]!.message.content,
      cache: response.headers.get(CACHE),
      similarity: response.headers.get(SIMILARITY),
    };
  };

  before(async function () {
    const missing = await missingFiles([DEFAULT_EMBEDDING_MODEL], modelsDirectory(process.env));
    if (missing.length > 0) {
      if (process.env.CI)
        throw new Error('the embedding model is missing: run npm run model:fetch');
      this.skip();
    }
    fake = new FakeLlmServer('unused', ['up-gpt']);
    const [modelPath, tokenizerPath] = DEFAULT_EMBEDDING_MODEL.files.map((f) => f.file);
    const registry = {
      defaultModel: 'fake-gpt',
      models: [
        {
          id: 'fake-gpt',
          provider: 'openai-compatible',
          baseUrl: await fake.start(),
          upstreamModel: 'up-gpt',
          contextWindow: 16000,
          maxOutputTokens: 1000,
          capabilities: ['generate', 'chat'],
          local: true,
        },
        { id: DEFAULT_EMBEDDING_MODEL.id, provider: 'onnx', modelPath, tokenizerPath },
      ],
    };
    mesh = await startEmbeddedMesh(
      {
        ...E2E_ENV,
        DEV_API_KEY: 'sk_semantic_0123456789abcdefghijk',
        MODEL_REGISTRY_JSON: JSON.stringify(registry),
        DEFAULT_MODEL: '',
      },
      silentLogger(),
    );
    const issued = await callApi(mesh.gatewayUrl, mesh.apiKey, '/api/v2/keys', {
      body: { name: 'semantic', cache: { maxAgeSeconds: 600, semanticThreshold: 0.9 } },
    });
    expect(issued.status, issued.text).to.equal(201);
    expect(issued.body.cache).to.deep.equal({ maxAgeSeconds: 600, semanticThreshold: 0.9 });
    key = issued.body.key;
  });

  after(async () => {
    await mesh?.stop();
    await fake?.close();
  });

  it('answers the same question in other words from the cache, with its similarity', async () => {
    const first = await ask('How do I reset my password?');
    expect(first.cache).to.equal('miss');
    await new Promise((resolve) => setTimeout(resolve, 100)); // stored after it was sent
    const calls = fake.requests.length;
    const again = await ask('How can I reset my password?');
    expect(again.cache).to.equal('hit');
    expect(Number(again.similarity)).to.be.within(0.9, 1);
    expect(again.content).to.equal(first.content);
    expect(fake.requests.length).to.equal(calls);
  });

  it('a different question, or the same one with other parameters, is a miss', async () => {
    await ask('Do you ship to Canada?');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const other = await ask('How do I delete my account?');
    expect(other.cache).to.equal('miss');
    expect(other.similarity).to.equal(null);
    const warmer = await ask('Can you ship to Canada?', { temperature: 1.2 });
    expect(warmer.cache).to.equal('miss');
    const exact = await ask('Do you ship to Canada?');
    expect(exact).to.include({ cache: 'hit', similarity: null });
  });

  it('refuses a threshold outside 0.5..1', async () => {
    const refused = await callApi(mesh.gatewayUrl, mesh.apiKey, '/api/v2/keys', {
      body: { cache: { maxAgeSeconds: 60, semanticThreshold: 1.5 } },
    });
    expect(refused.status).to.equal(400);
  });
});
