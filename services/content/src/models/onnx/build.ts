import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Logger } from '@switchyard/shared';
import type { OnnxEntry } from '../config/registry-schema';
import { resolveModelPath } from '../llama-cpp/build';
import type { TextModel } from '../text-model';
import { SentenceEmbedder } from './sentence-embedder';

/** The encoders served here (MiniLM, BGE, E5 small) have 512 positions. */
export const DEFAULT_MAX_TOKENS = 512;

/** A registry entry's ONNX sentence embedding model; undefined when an optional file is absent. */
export async function onnxModel(
  entry: OnnxEntry,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<TextModel | undefined> {
  const modelPath = resolveModelPath(entry.modelPath, env);
  const tokenizerPath = resolveModelPath(entry.tokenizerPath, env);
  const missing = [modelPath, tokenizerPath].filter((file) => !existsSync(file));
  if (missing.length > 0) {
    if (entry.optional) {
      logger.info({ model: entry.id, missing }, 'optional ONNX model left out: file not found');
      return undefined;
    }
    throw new Error(`model ${entry.id}: ${missing.join(' and ')} not found`);
  }
  const model = await SentenceEmbedder.load({
    id: entry.id,
    aliases: entry.aliases ?? [],
    fallback: entry.fallback ?? [],
    modelPath,
    tokenizerPath,
    maxTokens: entry.maxTokens ?? DEFAULT_MAX_TOKENS,
    threads: entry.threads ?? Math.max(1, Math.floor(availableParallelism() / 2)),
    maxConcurrency: entry.maxConcurrency ?? 1,
    maxQueue: entry.maxQueue ?? 64,
  });
  logger.info({ model: entry.id, file: modelPath }, 'ONNX embedding model loaded');
  return model;
}
