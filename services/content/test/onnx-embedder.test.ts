import { expect } from 'chai';
import { silentLogger } from '@switchyard/shared/testing';
import { buildModels } from '../src/models/config/build-models';
import type { TextModel } from '../src/models/text-model';
import { registryProblems, rejection } from './helpers';
import { localEmbeddingFiles } from './local-model';

const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe('onnx sentence embedding models in the registry (all-MiniLM-L6-v2)', function () {
  this.timeout(60_000);
  let model: TextModel;

  before(async function () {
    const files = localEmbeddingFiles(this);
    [model] = (await buildModels(
      [
        {
          id: 'minilm',
          provider: 'onnx',
          modelPath: files.model,
          tokenizerPath: files.tokenizer,
          maxTokens: 64,
        },
      ],
      process.env,
      silentLogger(),
    )) as [TextModel];
  });

  after(async () => {
    await model?.close?.();
  });

  it('validates entries: both files are required; an optional entry without them is left out', async () => {
    expect(
      registryProblems({ models: [{ id: 'x', provider: 'onnx', modelPath: 'm.onnx' }] }, {}),
    ).to.deep.equal(["/models/0: must have required property 'tokenizerPath'"]);
    const built = await buildModels(
      [
        {
          id: 'absent',
          provider: 'onnx',
          modelPath: 'no-such.onnx',
          tokenizerPath: 'no-such.json',
          optional: true,
        },
      ],
      process.env,
      silentLogger(),
    );
    expect(built).to.deep.equal([]);
  });

  it('is an embeddings model, local and free', () => {
    expect(model.info).to.deep.include({
      provider: 'onnx',
      capabilities: ['embeddings'],
      local: true,
      inputPricePerMillion: 0,
      contextWindow: 64,
    });
  });

  it('answers one unit vector of 384 numbers per input, in input order, by meaning', async () => {
    const texts = [
      'Full service: 89 EUR, brakes and gears adjusted, wheels trued',
      'Opening hours: Monday to Friday 9:00 to 18:00',
      'what does a full service cost',
      'when are you open',
    ];
    const result = await model.embed!(texts);
    expect(result.vectors).to.have.length(4);
    for (const vector of result.vectors) {
      expect(vector).to.have.length(384);
      expect(Math.abs(dot(vector, vector) - 1)).to.be.below(1e-6);
    }
    const [price, hours, priceQuestion, hoursQuestion] = result.vectors as number[][];
    expect(dot(priceQuestion!, price!)).to.be.above(dot(priceQuestion!, hours!));
    expect(dot(hoursQuestion!, hours!)).to.be.above(dot(hoursQuestion!, price!));
    // The model's own WordPiece tokens, [CLS] and [SEP] included.
    expect(result.tokensInput).to.be.above(30);
  });

  it('gives a text the same vector alone and among others', async () => {
    const alone = (await model.embed!(['a short text'])).vectors[0]!;
    const batched = (
      await model.embed!([
        'a much longer text with many more words in it than the other',
        'a short text',
      ])
    ).vectors[1]!;
    expect(batched).to.deep.equal(alone);
  });

  it('refuses an input over its window with 413 naming the input, and every other operation with 422', async () => {
    const error = await rejection(model.embed!(['ok', 'word '.repeat(100)]));
    expect(error).to.deep.include({ code: 'payload_too_large' });
    expect(error.details[0]).to.deep.include({ field: '/inputs/1' });
    expect(
      await rejection(model.generate({ prompt: 'x', maxTokens: 5, tone: '', language: 'en' })),
    ).to.have.property('code', 'unsupported');
  });
});
