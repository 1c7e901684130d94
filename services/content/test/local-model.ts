import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_EMBEDDING_MODEL } from '../src/models/fetch/catalog';
import { fetchedLocalModel, modelsDirectory } from '../src/models/llama-cpp/build';

/**
 * The GGUF of `npm run model:fetch`, for the tests that run a real model. Without it they are
 * pending on a developer's machine, and fail in CI (where .ci/run fetches it first).
 */
export function localModelFile(context: Mocha.Context): string {
  const fetched = fetchedLocalModel(process.env);
  if (fetched) return fetched.path;
  if (process.env.CI) throw new Error('the local model is missing: run npm run model:fetch');
  context.skip();
}

/** The embedding model's files (.onnx, tokenizer.json) of `npm run model:fetch`, likewise. */
export function localEmbeddingFiles(context: Mocha.Context): { model: string; tokenizer: string } {
  const [model, tokenizer] = DEFAULT_EMBEDDING_MODEL.files.map((f) =>
    path.join(modelsDirectory(process.env), f.file),
  );
  if (existsSync(model!) && existsSync(tokenizer!)) return { model: model!, tokenizer: tokenizer! };
  if (process.env.CI) throw new Error('the embedding model is missing: run npm run model:fetch');
  context.skip();
}
