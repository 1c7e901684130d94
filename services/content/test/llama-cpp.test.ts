import { expect } from 'chai';
import * as os from 'node:os';
import * as path from 'node:path';
import { InMemoryEventBus } from '@switchyard/shared';
import { silentLogger } from '@switchyard/shared/testing';
import { buildModels } from '../src/models/config/build-models';
import type { LlamaCppEntry } from '../src/models/config/registry-schema';
import type { TextModel } from '../src/models/text-model';
import { loadContentConfig, startContentService } from '../src/server';
import { registryProblems, rejection } from './helpers';
import { localModelFile } from './local-model';

describe('llama-cpp models in the registry', function () {
  this.timeout(60_000);
  const opened: TextModel[] = [];

  async function build(entry: Partial<LlamaCppEntry> & { modelPath: string }): Promise<TextModel> {
    const [model] = await buildModels(
      [{ id: 'gguf', provider: 'llama-cpp', contextSize: 512, ...entry }],
      process.env,
      silentLogger(),
    );
    opened.push(model!);
    return model!;
  }

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((model) => model.close?.()));
  });

  it('validates entries: modelPath is required, unknown settings are named', () => {
    expect(registryProblems({ models: [{ id: 'x', provider: 'llama-cpp' }] }, {})).to.deep.equal([
      "/models/0: must have required property 'modelPath'",
    ]);
    expect(
      registryProblems(
        {
          models: [{ id: 'x', provider: 'llama-cpp', modelPath: 'a.gguf', nGpuLayers: 3 }],
        },
        {},
      ),
    ).to.deep.equal(['/models/0: unknown property "nGpuLayers"']);
  });

  it('leaves out an optional GGUF that is absent, and fails start-up on a required one, naming the file', async () => {
    const absent = path.join(os.tmpdir(), 'switchyard-absent-model.gguf');
    const entry = { id: 'gone', provider: 'llama-cpp' as const, modelPath: absent };
    expect(await buildModels([{ ...entry, optional: true }], {}, silentLogger())).to.deep.equal([]);
    const error = await buildModels([entry], {}, silentLogger()).catch((e: Error) => e);
    expect((error as Error).message).to.equal(`model gone: the GGUF file ${absent} does not exist`);
  });

  it('finds a relative modelPath in the model cache (SWITCHYARD_MODELS_DIR)', async function () {
    const file = localModelFile(this);
    const [model] = await buildModels(
      [{ id: 'cached', provider: 'llama-cpp', modelPath: path.basename(file), contextSize: 256 }],
      { SWITCHYARD_MODELS_DIR: path.dirname(file) },
      silentLogger(),
    );
    opened.push(model!);
    expect(model!.info).to.include({ id: 'cached', provider: 'llama-cpp', local: true });
  });

  it('takes its languages from the file: SmolLM2 names only English, so it does not offer translation and refuses to be configured for it', async function () {
    const file = localModelFile(this);
    const model = await build({ modelPath: file });
    expect(model.info.languages).to.deep.equal(['en']);
    expect(model.info.capabilities).to.deep.equal(['generate', 'summarize', 'reformat', 'chat']);
    expect(model.info).to.include({
      contextWindow: 512,
      inputPricePerMillion: 0,
      outputPricePerMillion: 0,
    });
    const error = await build({ modelPath: file, capabilities: ['translate'] }).catch(
      (e: Error) => e,
    );
    expect((error as Error).message).to.equal(
      'model gguf: cannot translate: it knows only en (set "languages" if the model knows more)',
    );
  });

  it('translates between the languages it is said to know, and answers 422 naming them for others', async function () {
    const model = await build({ modelPath: localModelFile(this), languages: ['en', 'fr'] });
    expect(model.info.capabilities).to.include('translate');
    expect(model.info.translationPairs).to.deep.equal(['en-fr', 'fr-en']);
    const error = await rejection(
      model.translate({ text: 'Guten Morgen', sourceLanguage: 'de', targetLanguage: 'en' }),
    );
    expect(error.code).to.equal('unsupported');
    expect(error.message).to.equal('model gguf knows only en, fr: it cannot translate de -> en');
    expect(error.details).to.deep.equal([
      {
        field: '/source_language',
        reason: 'de is not a language of the model',
        available: ['en', 'fr'],
      },
    ]);
  });

  it('refuses a prompt over its context window (413) before generating', async function () {
    const model = await build({ modelPath: localModelFile(this), contextSize: 256 });
    const error = await rejection(
      model.complete!({
        messages: [{ role: 'user', content: 'word '.repeat(400) }],
        maxTokens: 10,
      }),
    );
    expect(error.code).to.equal('payload_too_large');
    expect(error.message).to.include('256-token context window');
  });

  it('runs `parallel` requests at once, queues maxQueue more and refuses the next with 503 and Retry-After', async function () {
    const model = await build({ modelPath: localModelFile(this), parallel: 1, maxQueue: 1 });
    const ask = () =>
      model.complete!({ messages: [{ role: 'user', content: 'Tell me a story.' }], maxTokens: 40 });
    const running = ask();
    const queued = ask();
    const refused = await rejection(ask());
    expect(refused.code).to.equal('unavailable');
    expect(refused.retryAfter).to.equal(1);
    expect(refused.message).to.equal(
      'model gguf is busy: 1 requests running and 1 waiting; retry later',
    );
    const answers = await Promise.all([running, queued]);
    for (const answer of answers) expect(answer.tokensOutput).to.be.greaterThan(0);
  });

  it('LOCAL_MODEL_PATH adds the file as the default model; DEFAULT_MODEL still decides', async function () {
    const file = localModelFile(this);
    const start = async (env: NodeJS.ProcessEnv) => {
      const service = await startContentService({
        config: loadContentConfig({ GRPC_PORT: '0', LOCAL_MODEL_PATH: file, ...env }),
        bus: new InMemoryEventBus(),
        logger: silentLogger(),
        env: {},
      });
      const chosen = service.defaultModel;
      await service.stop();
      return chosen;
    };
    expect(await start({ LOCAL_MODEL_ID: 'writer' })).to.include({
      id: 'writer',
      provider: 'llama-cpp',
    });
    expect((await start({ DEFAULT_MODEL: 'builtin' })).id).to.equal('builtin');
  });
});
