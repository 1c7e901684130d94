import { AppError, newId, type ContentServiceRpc } from '@switchyard/shared';
import type { EmbedResponse__Output } from '@switchyard/shared/proto/content/v1';

/** Vectors of texts (one per text, same order) and the model that made them (vectors of different models do not compare). */
export interface Embedding {
  model: string;
  vectors: number[][];
}

/** Turns texts into vectors for an organization (whose usage the tokens are). */
export interface Embedder {
  /** undefined when no embeddings model is configured: retrieval stays lexical (BM25). */
  embed(texts: string[], organization: string): Promise<Embedding | undefined>;
}

/** The content service's Embed RPC. */
export type EmbeddingService = Pick<ContentServiceRpc, 'embed'>;

/** How long "the registry has no embeddings model" is believed before asking again (the registry is read at content's start). */
const ABSENT_RECHECK_MS = 60_000;
/** Texts per Embed call (content takes up to 512: its answer must fit one gRPC message). */
const BATCH = 256;

/**
 * Embeddings from the model registry: content's first model with the embeddings capability (an
 * OpenAI-compatible /embeddings endpoint: OpenAI, Ollama, vLLM). Without one, embed() answers
 * undefined and retrieval is BM25 only.
 */
export class RegistryEmbedder implements Embedder {
  private absentUntil = 0;

  constructor(
    private readonly content: EmbeddingService,
    private readonly clock: () => number = Date.now,
  ) {}

  async embed(texts: string[], organization: string): Promise<Embedding | undefined> {
    if (texts.length === 0 || this.clock() < this.absentUntil) return undefined;
    const vectors: number[][] = [];
    let model = '';
    for (let i = 0; i < texts.length; i += BATCH) {
      const batch = await this.batch(texts.slice(i, i + BATCH), organization);
      if (!batch) return undefined;
      // A registry that changed model mid-way would mix spaces: the whole call fails instead.
      if (model && batch.model !== model)
        throw new AppError(
          'upstream_error',
          `the embeddings model changed from ${model} to ${batch.model} during one call`,
        );
      model = batch.model;
      vectors.push(...batch.vectors);
    }
    return { model, vectors };
  }

  private async batch(texts: string[], organization: string): Promise<Embedding | undefined> {
    let response: EmbedResponse__Output;
    try {
      response = await this.content.embed(
        { model: '', inputs: texts },
        { organization, keyId: '', requestId: newId('req') },
      );
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'unsupported')) throw error;
      this.absentUntil = this.clock() + ABSENT_RECHECK_MS;
      return undefined;
    }
    const vectors = response.embeddings.map((e) => e.values);
    if (vectors.length !== texts.length)
      throw new AppError(
        'upstream_error',
        `the embeddings model returned ${vectors.length} vectors for ${texts.length} texts`,
      );
    return { model: response.usage?.model ?? '', vectors };
  }
}
