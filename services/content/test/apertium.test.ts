import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { AppError } from '@switchyard/shared';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import { ApertiumModel } from '../src/models/apertium/apertium-model';
import { ApyEngine } from '../src/models/apertium/apy-engine';
import { CommandEngine } from '../src/models/apertium/command-engine';
import type { EngineCall, TranslationEngine } from '../src/models/apertium/engine';
import { pairsFromModes } from '../src/models/apertium/languages';
import { findRoute } from '../src/models/apertium/route';
import { buildModels } from '../src/models/config/build-models';

/**
 * An engine with given modes that records its calls and tags the text with the mode, so routing,
 * formats and limits are checked without the real engine (translation.test.ts runs the real one).
 */
class RecordingEngine implements TranslationEngine {
  readonly location = 'recording engine';
  readonly calls: Array<{ text: string; mode: string; format: string }> = [];

  constructor(
    private readonly modes: string[],
    private readonly delayMs = 0,
  ) {}

  async listModes(): Promise<string[]> {
    return this.modes;
  }

  async translate(text: string, mode: string, call: EngineCall): Promise<string> {
    this.calls.push({ text, mode, format: call.format });
    if (this.delayMs > 0) {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, this.delayMs);
        call.signal.addEventListener(
          'abort',
          () => (clearTimeout(timer), reject(call.signal.reason)),
          { once: true },
        );
      });
    }
    return `[${mode}] ${text}`;
  }
}

const MODES = ['eco-es-fr', 'eng-spa', 'es-fr', 'fr-es', 'spa-eng', 'spa-eng_US'];

function modelWith(engine: TranslationEngine, timeoutMs = 5000) {
  return ApertiumModel.discover({
    id: 'apertium',
    aliases: [],
    fallback: [],
    engine,
    timeoutMs,
    maxConcurrency: 2,
  });
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(AppError);
  return error as AppError;
}

describe('apertium provider', () => {
  it('turns installed modes into request-code pairs, skipping variants and chained modes', () => {
    expect(pairsFromModes(MODES)).to.deep.equal([
      { source: 'en', target: 'es', mode: 'eng-spa' },
      { source: 'es', target: 'en', mode: 'spa-eng' },
      { source: 'es', target: 'fr', mode: 'es-fr' },
      { source: 'fr', target: 'es', mode: 'fr-es' },
    ]);
  });

  it('finds the direct pair, else the shortest pivot route, else none', () => {
    const pairs = pairsFromModes(MODES);
    expect(findRoute(pairs, 'en', 'es')!.map((p) => p.mode)).to.deep.equal(['eng-spa']);
    expect(findRoute(pairs, 'en', 'fr')!.map((p) => p.mode)).to.deep.equal(['eng-spa', 'es-fr']);
    expect(findRoute(pairs, 'fr', 'en')!.map((p) => p.mode)).to.deep.equal(['fr-es', 'spa-eng']);
    expect(findRoute(pairs, 'en', 'ja')).to.equal(undefined);
  });

  it('lists exactly the discovered pairs, translate only, free and local', async () => {
    const model = await modelWith(new RecordingEngine(MODES));
    expect(model.info).to.deep.include({
      provider: 'apertium',
      capabilities: ['translate'],
      inputPricePerMillion: 0,
      outputPricePerMillion: 0,
      local: true,
    });
    expect(model.info.translationPairs).to.deep.equal(['en-es', 'es-en', 'es-fr', 'fr-es']);
  });

  it('pivots through the shared language, feeding each hop the previous output, and reports the route', async () => {
    const engine = new RecordingEngine(MODES);
    const model = await modelWith(engine);
    const result = await model.translate({
      text: 'The cat.',
      sourceLanguage: 'en',
      targetLanguage: 'fr',
    });
    expect(engine.calls.map((c) => c.mode)).to.deep.equal(['eng-spa', 'es-fr']);
    expect(engine.calls[1]!.text).to.equal('[eng-spa] The cat.');
    expect(result.text).to.equal('[es-fr] [eng-spa] The cat.');
    expect(result.route).to.deep.equal({ languages: ['en', 'es', 'fr'] });
    expect(result.tokensInput).to.be.greaterThan(0);
  });

  it('hands HTML to the engine as HTML and Markdown or text as text', async () => {
    const engine = new RecordingEngine(MODES);
    const model = await modelWith(engine);
    await model.translate({
      text: '<p>The <b>cat</b>.</p>',
      sourceLanguage: 'en',
      targetLanguage: 'es',
    });
    await model.translate({
      text: '# Title\n\n- a *cat*',
      sourceLanguage: 'en',
      targetLanguage: 'es',
    });
    expect(engine.calls.map((c) => c.format)).to.deep.equal(['html', 'txt']);
  });

  it('refuses a pair without a route with unsupported naming the available pairs', async () => {
    const model = await modelWith(new RecordingEngine(MODES));
    const error = await rejection(
      model.translate({ text: 'x', sourceLanguage: 'de', targetLanguage: 'es' }),
    );
    expect(error.code).to.equal('unsupported');
    expect(error.message).to.include('de -> es').and.include('en-es, es-en, es-fr, fr-es');
    const missingSource = await rejection(
      model.translate({ text: 'x', sourceLanguage: '', targetLanguage: 'es' }),
    );
    expect(missingSource.details[0]).to.deep.include({ field: '/source_language' });
  });

  it('times out a slow engine run as timeout (the run is aborted)', async () => {
    const model = await modelWith(new RecordingEngine(MODES, 5000), 50);
    const error = await rejection(
      model.translate({ text: 'x', sourceLanguage: 'en', targetLanguage: 'es' }),
    );
    expect(error.code).to.equal('timeout');
  });

  it('reports an engine that cannot run as upstream_error', async () => {
    const engine = new RecordingEngine(MODES);
    engine.translate = async () => {
      throw new Error('mode eng-spa exited with 1');
    };
    const error = await rejection(
      (await modelWith(engine)).translate({
        text: 'x',
        sourceLanguage: 'en',
        targetLanguage: 'es',
      }),
    );
    expect(error.code).to.equal('upstream_error');
    expect(error.message).to.include('exited with 1');
  });

  it('fails startup for a required engine that is absent, and leaves an optional one out', async () => {
    const entry = { id: 'mt', provider: 'apertium' as const, command: '/nonexistent/apertium' };
    const failure = await buildModels([entry], {}, silentLogger()).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(failure?.message).to.include('model mt: the Apertium engine is not usable');
    const models = await buildModels(
      [
        { id: 'builtin', provider: 'builtin' },
        { ...entry, optional: true },
      ],
      {},
      silentLogger(),
    );
    expect(models.map((m) => m.info.id)).to.deep.equal(['builtin']);
  });

  it('runs the local command with an argument array: text with shell metacharacters is only text', async function () {
    const engine = new CommandEngine();
    const modes = await engine.listModes().catch((): string[] => []);
    if (!modes.includes('eng-spa')) {
      this.test!.title += ' (skipped: apertium with eng-spa is not installed)';
      this.skip();
    }
    const marker = path.join(os.tmpdir(), `switchyard-apertium-${process.pid}`);
    const out = await engine.translate(
      `The cat $(touch ${marker}) is \`touch ${marker}\` black; touch ${marker}`,
      'eng-spa',
      { format: 'txt', signal: AbortSignal.timeout(20_000) },
    );
    expect(out).to.include('gato').and.include(`$(`).and.include(marker);
    expect(fs.existsSync(marker)).to.equal(false);
  });
});

/** A free loopback port (listen on 0, read it, close). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

describe('apertium provider over APY (apertium-apy)', function () {
  this.timeout(30_000);
  let apy: ChildProcess | undefined;
  let baseUrl = '';

  before(async function () {
    const modesDir = '/usr/share/apertium/modes';
    if (spawnSync('apertium-apy', ['--help']).status !== 0 || !fs.existsSync(modesDir)) {
      for (const test of this.test!.parent!.tests)
        test.title += ' (pending: apertium-apy is not installed)';
      this.skip();
    }
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    apy = spawn('apertium-apy', ['-p', String(port), '-t', '60', modesDir], { stdio: 'ignore' });
    await waitFor(
      async () => (await fetch(`${baseUrl}/listPairs`).catch(() => undefined))?.ok === true,
      20_000,
    );
  });

  after(() => {
    apy?.kill();
  });

  it("discovers the server's pairs and translates through it, HTML kept and pivoting as locally", async () => {
    const model = await modelWith(new ApyEngine(baseUrl));
    expect(model.info.translationPairs).to.include.members(['en-es', 'es-en']);
    const html = await model.translate({
      text: 'The <b>red</b> car is big.',
      sourceLanguage: 'en',
      targetLanguage: 'es',
    });
    expect(html.text).to.equal('El <b>coche</b> rojo es grande.');
    if (model.info.translationPairs!.includes('es-fr')) {
      const pivot = await model.translate({
        text: 'The cat is black.',
        sourceLanguage: 'en',
        targetLanguage: 'fr',
      });
      expect(pivot).to.deep.include({
        text: 'Le chat est noir.',
        route: { languages: ['en', 'es', 'fr'] },
      });
    }
  });

  it('reports an unreachable server as upstream_error naming it', async () => {
    const model = await modelWith(new ApyEngine(baseUrl));
    apy?.kill();
    await new Promise((resolve) => apy!.once('exit', resolve));
    const error = await rejection(
      model.translate({ text: 'x', sourceLanguage: 'en', targetLanguage: 'es' }),
    );
    expect(error.code).to.equal('upstream_error');
    expect(error.message).to.include(baseUrl);
  });
});
