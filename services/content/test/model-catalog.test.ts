import { expect } from 'chai';
import { bundledCatalog } from '../src/models/config/catalog';
import { validateRegistry } from '../src/models/config/load-registry';
import type { RemoteEntry } from '../src/models/config/registry-schema';
import { failure, startLlmHarness, type LlmHarness } from './llm-harness';
import { context, registryProblems } from './helpers';

const OPENAI = {
  provider: 'openai-compatible',
  baseUrl: 'https://api.openai.com/v1',
  apiKeyEnv: 'OPENAI_API_KEY',
};
const env = { OPENAI_API_KEY: 'sk-test' };

function only(models: unknown[]): RemoteEntry {
  return validateRegistry({ models }, 'test', env).models[0] as RemoteEntry;
}

const problemsOf = (models: unknown[]) => registryProblems({ models }, env);

describe('model catalog', () => {
  it('is a dated, sourced table of priced hosted models from several providers', () => {
    const catalog = bundledCatalog();
    expect(catalog.source).to.be.a('string').and.not.empty;
    expect(catalog.pricesAsOf).to.match(/^\d{4}-\d{2}/);
    const providers = new Set(Object.values(catalog.models).map((m) => m.provider));
    expect([...providers]).to.include.members(['openai', 'anthropic', 'mistral', 'groq']);
    for (const [id, model] of Object.entries(catalog.models)) {
      expect(model.inputPricePerMillion, id).to.be.greaterThan(0);
      // Embedding models produce no output tokens.
      if (!model.capabilities?.includes('embeddings'))
        expect(model.outputPricePerMillion, id).to.be.greaterThan(0);
      expect(model.maxOutputTokens, id).to.be.at.most(model.contextWindow);
    }
  });

  it('loads a four-field gpt-4o-mini entry with the catalog prices, limits and every capability', () => {
    const entry = only([{ id: 'gpt-4o-mini', ...OPENAI }]);
    expect(entry).to.deep.include({
      upstreamModel: 'gpt-4o-mini',
      inputPricePerMillion: 0.15,
      outputPricePerMillion: 0.6,
      contextWindow: 128000,
      maxOutputTokens: 16384,
      capabilities: ['generate', 'summarize', 'reformat', 'translate', 'chat'],
    });
  });

  it('knows embedding models as such: a four-field text-embedding-3-small entry can only embed, priced by input', () => {
    const entry = only([{ id: 'text-embedding-3-small', ...OPENAI }]);
    expect(entry).to.deep.include({
      capabilities: ['embeddings'],
      inputPricePerMillion: 0.02,
      outputPricePerMillion: 0,
    });
  });

  it('lets explicit fields override the catalog, and finds the entry by upstreamModel or catalogModel', () => {
    const entry = only([
      {
        id: 'mini',
        upstreamModel: 'gpt-4o-mini',
        inputPricePerMillion: 0.2,
        maxOutputTokens: 1000,
        capabilities: ['chat'],
        ...OPENAI,
      },
    ]);
    expect(entry).to.deep.include({
      inputPricePerMillion: 0.2,
      outputPricePerMillion: 0.6,
      contextWindow: 128000,
      maxOutputTokens: 1000,
      capabilities: ['chat'],
    });
    const azure = only([
      {
        id: 'prod',
        provider: 'azure-openai',
        baseUrl: 'https://x.openai.azure.com',
        apiVersion: '2024-10-21',
        upstreamModel: 'my-deployment',
        catalogModel: 'gpt-4o',
      },
    ]);
    expect(azure).to.deep.include({
      upstreamModel: 'my-deployment',
      inputPricePerMillion: 2.5,
      outputPricePerMillion: 10,
    });
  });

  it('takes limits but never prices for a local model of a catalog name', () => {
    const entry = only([
      {
        id: 'gpt-4o-mini',
        provider: 'openai-compatible',
        baseUrl: 'http://localhost:8000/v1',
        local: true,
      },
    ]);
    expect(entry.inputPricePerMillion).to.equal(undefined);
    expect(entry.contextWindow).to.equal(128000);
  });

  it('keeps an unknown hosted model without prices or limits a startup error that says what to set', () => {
    const problems = problemsOf([{ id: 'mystery-model', ...OPENAI }]).join('\n');
    expect(problems).to.include(
      '"mystery-model" is not in the model catalog; set contextWindow and maxOutputTokens',
    );
    expect(problems).to.include('inputPricePerMillion and outputPricePerMillion must be > 0');
    expect(problemsOf([{ id: 'x', catalogModel: 'no-such', ...OPENAI }]).join('\n')).to.include(
      'catalogModel "no-such" is not in the model catalog',
    );
  });
});

describe('max_length and tone reach the provider (fake OpenAI-compatible upstream)', function () {
  let h: LlmHarness;
  before(async () => {
    h = await startLlmHarness((baseUrl) => [
      // Four fields each: the catalog supplies the rest (gpt-5-mini takes max_completion_tokens).
      { id: 'gpt-4o-mini', provider: 'openai-compatible', baseUrl, apiKeyEnv: 'FAKE_LLM_KEY' },
      { id: 'gpt-5-mini', provider: 'openai-compatible', baseUrl, apiKeyEnv: 'FAKE_LLM_KEY' },
    ]);
  });
  after(() => h.close());
  afterEach(() => h.fake.reset());

  it('lists a four-field catalog model with the catalog prices and limits', async () => {
    const { models } = await h.call<{ models: Array<Record<string, unknown>> }>('ListModels', {});
    expect(models.find((m) => m.id === 'gpt-4o-mini')).to.deep.include({
      input_price_per_million: 0.15,
      output_price_per_million: 0.6,
      context_window: 128000,
      max_output_tokens: 16384,
      capabilities: ['generate', 'summarize', 'reformat', 'translate', 'chat'],
    });
  });

  it('sends max_length as max_tokens and tone and language in the system prompt', async () => {
    const response = await h.call<{ usage: { cost: number } }>('Generate', {
      model: 'gpt-4o-mini',
      prompt: 'Describe a kettle',
      tone: 'playful',
      language: 'fr',
      max_length: 77,
    });
    const [request] = h.fake.requestsFor('gpt-4o-mini');
    expect(request).to.deep.include({ maxTokens: 77, maxCompletionTokens: undefined });
    expect(request!.messages[0]!.role).to.equal('system');
    expect(request!.messages[0]!.content).to.include('Tone: playful').and.include('French');
    expect(response.usage.cost).to.be.greaterThan(0);
  });

  it('sends max_length as max_completion_tokens to a model that takes it, streamed too', async () => {
    await h.call('Generate', {
      model: 'gpt-5-mini',
      prompt: 'Describe a kettle',
      tone: 'formal, warm',
      language: 'de',
      max_length: 55,
    });
    await h.stream(
      'GenerateStream',
      { model: 'gpt-5-mini', prompt: 'Describe a kettle', tone: 'casual', max_length: 33 },
      context(),
    );
    const [plain, streamed] = h.fake.requestsFor('gpt-5-mini');
    expect(plain).to.deep.include({ maxCompletionTokens: 55, maxTokens: undefined });
    expect(plain!.messages[0]!.content).to.include('Tone: formal, warm').and.include('German');
    expect(streamed).to.deep.include({
      maxCompletionTokens: 33,
      maxTokens: undefined,
      stream: true,
    });
    expect(streamed!.messages[0]!.content).to.include('Tone: casual');
  });

  it('caps the output at the model limit when max_length is absent, and rejects one above it', async () => {
    await h.call('Generate', { model: 'gpt-4o-mini', prompt: 'Describe a kettle' });
    expect(h.fake.requestsFor('gpt-4o-mini')[0]!.maxTokens).to.be.at.most(16384).and.greaterThan(0);
    const error = await failure(
      h.call('Generate', { model: 'gpt-4o-mini', prompt: 'x', max_length: 16385 }),
    );
    expect(error.code).to.equal('invalid_request');
  });
});

describe('embeddings from the model registry (fake OpenAI-compatible /embeddings)', function () {
  this.timeout(20_000);
  let harness: LlmHarness;
  const embedder = (baseUrl: string) => [
    {
      id: 'embed-small',
      provider: 'openai-compatible',
      baseUrl,
      apiKeyEnv: 'FAKE_LLM_KEY',
      upstreamModel: 'up-embed',
      catalogModel: 'text-embedding-3-small',
    },
  ];

  afterEach(async () => harness?.close());

  it("Embed answers one vector per input from the registry's embeddings model and records the tokens as usage", async () => {
    harness = await startLlmHarness(embedder);
    harness.fake.embed = (text) => [text.length, 1];
    const ctx = context('org_a', 'req_embed_1');
    const response = await harness.call<{
      embeddings: Array<{ values: number[] }>;
      usage: { model: string; tokens_input: number; cost: number };
    }>('Embed', { model: '', inputs: ['jazz in Berlin', 'a refund'] }, ctx);
    expect(response.embeddings.map((e) => e.values)).to.deep.equal([
      [14, 1],
      [8, 1],
    ]);
    expect(harness.fake.embeddingInputs).to.deep.equal([['jazz in Berlin', 'a refund']]);
    expect(response.usage).to.deep.include({ model: 'embed-small', tokens_input: 5 });
    expect(response.usage.cost).to.be.closeTo((5 * 0.02) / 1_000_000, 1e-12);
    const [usage] = harness.usageFor('req_embed_1');
    expect(usage?.data).to.deep.include({
      model: 'embed-small',
      route: 'knowledge.embeddings',
      tokensInput: 5,
      tokensOutput: 0,
      outcome: 'succeeded',
    });
    // Chat models do not embed, and are not offered as embedders.
    expect(
      (await failure(harness.call('Embed', { model: 'gpt-main', inputs: ['x'] }))).code,
    ).to.equal('unsupported');
  });

  it('without an embeddings model in the registry, Embed is unsupported (retrieval stays BM25)', async () => {
    harness = await startLlmHarness();
    const error = await failure(harness.call('Embed', { model: '', inputs: ['x'] }));
    expect(error.code).to.equal('unsupported');
    expect(error.message).to.include('no model with the embeddings capability');
  });
});
