import { AppError } from '@switchyard/shared';
import type { EmbedRequest } from '@switchyard/shared/proto/content/v1';
import { RegistryEmbedder, type EmbeddingService } from '../src/knowledge/embedder';
import { expect } from './chai';

/** Content's Embed as the assistant sees it: vectors of a registry model, or unsupported without one. */
class FakeEmbedService implements EmbeddingService {
  readonly calls: Array<{ inputs: string[]; organization: string }> = [];
  model: string | undefined = 'embed-small';

  async embed(request: EmbedRequest, context: { organization: string }) {
    const inputs = request.inputs ?? [];
    this.calls.push({ inputs, organization: context.organization });
    if (!this.model)
      throw AppError.unsupported(
        'no model with the embeddings capability is configured in the model registry',
      );
    return {
      embeddings: inputs.map((text) => ({ values: [text.length, 1] })),
      usage: { model: this.model, tokens_input: inputs.length, tokens_output: 0, cost: 0 },
    };
  }
}

describe('registry embedder (content Embed)', () => {
  it('embeds in batches that fit one gRPC message, in order, for the calling organization', async () => {
    const content = new FakeEmbedService();
    const texts = Array.from({ length: 600 }, (_, i) => `text ${i}`);
    const embedding = await new RegistryEmbedder(content).embed(texts, 'org_a');
    expect(content.calls.map((c) => c.inputs.length)).to.deep.equal([256, 256, 88]);
    expect(content.calls.every((c) => c.organization === 'org_a')).to.equal(true);
    expect(embedding?.model).to.equal('embed-small');
    expect(embedding?.vectors.map((v) => v[0])).to.deep.equal(texts.map((t) => t.length));
  });

  it('answers undefined (BM25 only) while the registry has no embeddings model, asking again after a minute', async () => {
    const content = new FakeEmbedService();
    content.model = undefined;
    let now = 0;
    const embedder = new RegistryEmbedder(content, () => now);
    expect(await embedder.embed(['a'], 'org_a')).to.equal(undefined);
    expect(await embedder.embed(['b'], 'org_a')).to.equal(undefined);
    expect(content.calls).to.have.length(1);
    content.model = 'embed-small';
    now = 61_000;
    expect((await embedder.embed(['c'], 'org_a'))?.model).to.equal('embed-small');
  });
});
