import { fetchedLocalModel } from '../src/models/llama-cpp/build';

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
