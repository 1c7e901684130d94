import { expect } from 'chai';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InMemoryEventBus } from '@switchyard/shared';
import { silentLogger } from '@switchyard/shared/testing';
import { BUNDLED_REGISTRY_PATH } from '../src/config';
import { loadRegistry, validateRegistry } from '../src/models/config/load-registry';
import { stripJsonComments } from '../src/models/config/jsonc';
import { loadContentConfig, startContentService } from '../src/server';
import { registryProblems } from './helpers';

const remote = {
  id: 'gpt-x',
  provider: 'openai-compatible',
  baseUrl: 'https://api.example.com/v1',
  apiKeyEnv: 'X_KEY',
  upstreamModel: 'x',
  inputPricePerMillion: 1,
  outputPricePerMillion: 2,
  contextWindow: 1000,
  maxOutputTokens: 100,
  capabilities: ['generate'],
};
const env = { X_KEY: 'secret' };

const problemsOf = (raw: unknown, environment: NodeJS.ProcessEnv = env) =>
  registryProblems(raw, environment);

describe('model registry file', () => {
  it('the bundled default holds the builtin model (and the optional engines) and the example validates', () => {
    const bundled = loadRegistry({ path: BUNDLED_REGISTRY_PATH, inlineJson: '' }, {});
    expect(bundled.defaultModel).to.equal('builtin');
    expect(bundled.models).to.deep.equal([
      { id: 'builtin', provider: 'builtin', aliases: ['local'] },
      { id: 'apertium', provider: 'apertium', optional: true },
      {
        id: 'all-minilm-l6-v2',
        provider: 'onnx',
        modelPath: 'all-minilm-l6-v2-q.onnx',
        tokenizerPath: 'all-minilm-l6-v2-q-tokenizer.json',
        optional: true,
      },
    ]);
    const example = loadRegistry(
      {
        path: path.join(path.dirname(BUNDLED_REGISTRY_PATH), 'models.example.json'),
        inlineJson: '',
      },
      {
        OPENAI_API_KEY: 'k',
        AZURE_OPENAI_API_KEY: 'k',
        VLLM_API_KEY: 'k',
        ANTHROPIC_API_KEY: 'k',
        MISTRAL_API_KEY: 'k',
      },
    );
    expect(example.models.map((m) => m.provider)).to.include.members([
      'builtin',
      'openai-compatible',
      'azure-openai',
    ]);
  });

  it('lists schema problems with their location', () => {
    const problems = problemsOf({
      models: [
        { ...remote, provider: 'magic' },
        { ...remote, id: 'y', contextWindow: 0, capabilities: ['dance'], apiKey: 'sk-1' },
      ],
    });
    expect(problems.join('\n')).to.include(
      '/models/0: provider must be one of builtin, openai-compatible, azure-openai, apertium, llama-cpp',
    );
    expect(problems.join('\n')).to.include('/models/1/contextWindow');
    expect(problems.join('\n')).to.include(
      '/models/1/capabilities/0: must be one of generate, summarize, reformat, translate, chat, embeddings',
    );
    expect(problems.join('\n')).to.include(
      'unknown property "apiKey" (put the NAME of an environment variable in apiKeyEnv',
    );
  });

  it('requires prices for non-local models, unless marked local', () => {
    const { inputPricePerMillion: _in, outputPricePerMillion: _out, ...unpriced } = remote;
    expect(problemsOf({ models: [unpriced] })[0]).to.match(
      /model gpt-x: inputPricePerMillion and outputPricePerMillion must be > 0 for a non-local model/,
    );
    expect(problemsOf({ models: [{ ...remote, outputPricePerMillion: 0 }] })[0]).to.include(
      'outputPricePerMillion must be > 0',
    );
    expect(
      validateRegistry({ models: [{ ...unpriced, local: true }] }, 'test', env).models,
    ).to.have.length(1);
  });

  it('checks names, fallbacks, the default model and key variables', () => {
    const problems = problemsOf(
      {
        defaultModel: 'nope',
        models: [
          { ...remote, aliases: ['x'], fallback: ['ghost', 'x'] },
          { ...remote, id: 'GPT-X' },
        ],
      },
      {},
    );
    expect(problems).to.include.members([
      'model GPT-X: name "GPT-X" is already used by model gpt-x',
      'model gpt-x: fallback "ghost" is not a known model id or alias',
      'model gpt-x: fallback "x" is the model itself',
      'model gpt-x: environment variable X_KEY (apiKeyEnv) is not set',
      '/defaultModel: "nope" is not a known model id or alias',
    ]);
  });

  it('startup fails naming the file and the problem; inline JSON wins over the file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'registry-'));
    const file = path.join(dir, 'models.json');
    fs.writeFileSync(file, '{ "models": [ { "id": "b", "provider": "builtin" }, ] }');
    const config = {
      ...loadContentConfig({}),
      grpcHost: '127.0.0.1',
      grpcPort: 0,
      modelRegistryPath: file,
    };
    const start = (overrides: object) =>
      startContentService({
        config: { ...config, ...overrides },
        bus: new InMemoryEventBus(),
        logger: silentLogger(),
        env: {},
      });
    try {
      const error = await start({}).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).to.include(file).and.to.include('not valid JSON');
      const missing = await start({ modelRegistryPath: path.join(dir, 'absent.json') }).catch(
        (e: Error) => e,
      );
      expect((missing as Error).message).to.include('cannot read the file (MODEL_REGISTRY_PATH)');
      const unpriced = await start({
        modelRegistryJson: JSON.stringify({
          models: [{ ...remote, inputPricePerMillion: undefined }],
        }),
      }).catch((e: Error) => e);
      expect((unpriced as Error).message)
        .to.include('MODEL_REGISTRY_JSON')
        .and.to.include('inputPricePerMillion');
      const service = await start({
        modelRegistryJson: JSON.stringify({ models: [{ id: 'engine', provider: 'builtin' }] }),
      });
      await service.stop();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('strips comments outside strings only', () => {
    const text = '// head\n{ "a": "http://x//y", /* note */ "b": "/* keep */" }';
    expect(JSON.parse(stripJsonComments(text))).to.deep.equal({
      a: 'http://x//y',
      b: '/* keep */',
    });
  });
});
