import { AppError } from '@switchyard/shared';

/** Turns texts into vectors (one per text, same order). */
export interface Embedder {
  readonly model: string;
  embed(texts: string[]): Promise<number[][]>;
}

export interface EmbeddingsEndpoint {
  /** An OpenAI-compatible API root, e.g. https://api.openai.com/v1 or http://localhost:11434/v1 (Ollama). */
  baseUrl: string;
  model: string;
  /** Empty for keyless local servers. */
  apiKey: string;
  timeoutMs: number;
}

/** Inputs per request (OpenAI accepts up to 2048). */
const BATCH = 256;

/** POST {baseUrl}/embeddings of an OpenAI-compatible server (OpenAI, Ollama, vLLM). */
export class OpenAiCompatibleEmbedder implements Embedder {
  readonly model: string;

  constructor(private readonly endpoint: EmbeddingsEndpoint) {
    this.model = endpoint.model;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const vectors: number[][] = [];
    for (let i = 0; i < texts.length; i += BATCH) vectors.push(...(await this.request(texts.slice(i, i + BATCH))));
    return vectors;
  }

  private async request(input: string[]): Promise<number[][]> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.endpoint.apiKey) headers.authorization = `Bearer ${this.endpoint.apiKey}`;
    let response: Response;
    try {
      response = await fetch(`${this.endpoint.baseUrl.replace(/\/$/, '')}/embeddings`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.model, input }),
        signal: AbortSignal.timeout(this.endpoint.timeoutMs),
      });
    } catch (error) {
      throw new AppError('upstream_error', `the embeddings model ${this.model} could not be reached: ${(error as Error).message}`);
    }
    if (!response.ok) throw new AppError('upstream_error', `the embeddings model ${this.model} answered ${response.status}`);
    const body = (await response.json()) as { data?: Array<{ index: number; embedding: number[] }> };
    const data = [...(body.data ?? [])].sort((a, b) => a.index - b.index);
    if (data.length !== input.length) throw new AppError('upstream_error', `the embeddings model ${this.model} returned ${data.length} vectors for ${input.length} texts`);
    return data.map((d) => d.embedding);
  }
}
