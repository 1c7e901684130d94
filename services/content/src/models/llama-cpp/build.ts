import { existsSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import * as path from 'node:path';
import type { Logger } from '@switchyard/shared';
import type { LlamaModel } from 'node-llama-cpp' with { 'resolution-mode': 'import' };
import { ChatModel } from '../chat-model';
import { DEFAULT_CHAT_MODEL } from '../fetch/catalog';
import type { LlamaCppEntry } from '../config/registry-schema';
import type { Capability, ModelInfo, TextModel } from '../text-model';
import { LlamaCppChat } from './llama-chat';
import { loadGguf } from './runtime';

export const DEFAULT_PARALLEL = 2;
export const DEFAULT_MAX_QUEUE = 16;
/** A local model writes tens of tokens a second: a longer answer would outlast any deadline. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
/** Memory grows with contextSize x parallel: a longer trained context is used only when asked for. */
export const DEFAULT_MAX_CONTEXT = 4096;

/** Where downloaded models live: SWITCHYARD_MODELS_DIR, else $SWITCHYARD_CACHE/models (~/.cache/switchyard). */
export function modelsDirectory(env: NodeJS.ProcessEnv): string {
  if (env.SWITCHYARD_MODELS_DIR) return path.resolve(env.SWITCHYARD_MODELS_DIR);
  const cache = env.SWITCHYARD_CACHE || path.join(homedir(), '.cache', 'switchyard');
  return path.resolve(cache, 'models');
}

/** What `npm run model:fetch` puts in the model cache, and the id `npm start` gives it. */
export const DEFAULT_LOCAL_MODEL = {
  id: DEFAULT_CHAT_MODEL.id,
  file: DEFAULT_CHAT_MODEL.files[0]!.file,
} as const;

/** The default local model's file when `npm run model:fetch` put it in the cache. */
export function fetchedLocalModel(
  env: NodeJS.ProcessEnv,
): { id: string; path: string } | undefined {
  const file = path.join(modelsDirectory(env), DEFAULT_LOCAL_MODEL.file);
  return existsSync(file) ? { id: DEFAULT_LOCAL_MODEL.id, path: file } : undefined;
}

/** An entry's modelPath on disk: absolute, under the home directory (~/), or in the model cache. */
export function resolveModelPath(modelPath: string, env: NodeJS.ProcessEnv): string {
  if (modelPath === '~' || modelPath.startsWith('~/'))
    return path.join(homedir(), modelPath.slice(1));
  return path.resolve(modelsDirectory(env), modelPath);
}

/** The languages a GGUF names in general.languages, as lower-case codes. */
function fileLanguages(model: LlamaModel): string[] | undefined {
  const general = model.fileInfo.metadata.general as { languages?: unknown };
  if (!Array.isArray(general.languages)) return undefined;
  const codes = general.languages
    .map((language) => String(language).trim().toLowerCase())
    .filter((code) => /^[a-z]{2,3}$/.test(code));
  return codes.length > 0 ? [...new Set(codes)] : undefined;
}

/** Every direction between the languages ("en-fr", "fr-en", ...). */
function pairsOf(languages: string[]): string[] {
  return languages.flatMap((from) =>
    languages.filter((to) => to !== from).map((to) => `${from}-${to}`),
  );
}

/**
 * What the model can do: the entry's list, else every text operation, with translation only for
 * a model that knows two languages or more (or does not say which it knows). Translation asked
 * of a model that names fewer is refused at start-up rather than served badly.
 */
function capabilitiesOf(entry: LlamaCppEntry, languages: string[] | undefined): Capability[] {
  const multilingual = languages === undefined || languages.length >= 2;
  if (entry.capabilities) {
    if (entry.capabilities.includes('translate') && !multilingual) {
      throw new Error(
        `model ${entry.id}: cannot translate: it knows only ${languages!.join(', ')} (set "languages" if the model knows more)`,
      );
    }
    return entry.capabilities as Capability[];
  }
  const text: Capability[] = ['generate', 'summarize', 'reformat', 'translate', 'chat'];
  return multilingual ? text : text.filter((c) => c !== 'translate');
}

/**
 * A registry entry's GGUF as a model of the registry. The file is loaded once per process; its
 * context window (unless the entry sets contextSize) and its languages come from the file.
 * Undefined when an optional file is absent.
 */
export async function llamaCppModel(
  entry: LlamaCppEntry,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<TextModel | undefined> {
  const file = resolveModelPath(entry.modelPath, env);
  if (!existsSync(file)) {
    if (entry.optional) {
      logger.info({ model: entry.id, file }, 'optional GGUF model left out: file not found');
      return undefined;
    }
    throw new Error(`model ${entry.id}: the GGUF file ${file} does not exist`);
  }
  const model = await loadGguf(file, entry.gpu ?? false, logger);
  const languages = entry.languages ?? fileLanguages(model);
  const capabilities = capabilitiesOf(entry, languages);
  const contextSize = entry.contextSize ?? Math.min(model.trainContextSize, DEFAULT_MAX_CONTEXT);
  // The info needs the context's real size; the backend reads it only once it serves.
  const backend = await LlamaCppChat.create(() => info, {
    id: entry.id,
    model,
    chat: capabilities.some((c) => c !== 'embeddings'),
    embeddings: capabilities.includes('embeddings'),
    parallel: entry.parallel ?? DEFAULT_PARALLEL,
    maxQueue: entry.maxQueue ?? DEFAULT_MAX_QUEUE,
    contextSize,
    threads: entry.threads ?? Math.max(1, Math.floor(availableParallelism() / 2)),
    sampling: {
      temperature: entry.temperature ?? 0.8,
      topK: entry.topK ?? 40,
      topP: entry.topP ?? 0.95,
      minP: entry.minP ?? 0.05,
      seed: entry.seed,
    },
  });
  const contextWindow = backend.contextSize;
  const info: ModelInfo = {
    id: entry.id,
    provider: 'llama-cpp',
    capabilities,
    aliases: entry.aliases ?? [],
    inputPricePerMillion: 0,
    outputPricePerMillion: 0,
    contextWindow,
    maxOutputTokens: Math.min(entry.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS, contextWindow),
    languages,
    fallback: entry.fallback ?? [],
    local: true,
    ...(capabilities.includes('translate') && languages
      ? { translationPairs: pairsOf(languages) }
      : {}),
  };
  logger.info(
    {
      model: entry.id,
      file,
      contextWindow,
      parallel: entry.parallel ?? DEFAULT_PARALLEL,
      languages: languages ?? 'any',
    },
    'GGUF model loaded',
  );
  return new ChatModel(info, backend);
}
