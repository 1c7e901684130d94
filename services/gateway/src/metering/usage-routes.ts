import { UsageRoutes, type UsageRoute } from '@switchyard/shared';
import type { UsageBucket__Output } from '@switchyard/shared/proto/notification/v1';

/**
 * The one place usage routes become what users see: the path each was called on. Services record
 * usage under route names only; reports (GET /api/v2/usage, the console) show these paths, the
 * same ones usage recorded before routes carries, so a month's history keeps its face.
 */
const PUBLIC_PATHS: Record<UsageRoute, (agent: string) => string> = {
  [UsageRoutes.contentGenerate]: () => '/api/v2/ai/content/generate',
  [UsageRoutes.contentTransform]: () => '/api/v2/ai/content/transform',
  [UsageRoutes.knowledgeEmbeddings]: () => '/api/v2/knowledge (embeddings)',
  [UsageRoutes.assistantChat]: (agent) => `/api/v2/ai/assistants/${agent}`,
  [UsageRoutes.openAiChatCompletions]: () => '/v1/chat/completions',
  [UsageRoutes.openAiEmbeddings]: () => '/v1/embeddings',
  [UsageRoutes.recommend]: () => '/api/v2/ai/recommendations',
  [UsageRoutes.cacheEmbeddings]: () => 'response cache (embeddings)',
};

/**
 * The path of a ledger route key: "<route>" or "<route>:<agent>". A key recorded before routes is
 * already a path; a route this gateway does not know yet is shown by its name, never hidden.
 */
export function publicPathOf(routeKey: string): string {
  const separator = routeKey.indexOf(':');
  const route = separator < 0 ? routeKey : routeKey.slice(0, separator);
  const agent = separator < 0 ? '' : routeKey.slice(separator + 1);
  return Object.hasOwn(PUBLIC_PATHS, route) ? PUBLIC_PATHS[route as UsageRoute](agent) : routeKey;
}

const NANOS = 1e9;

/**
 * The ledger's route buckets by public path: a path's usage from before and after routes is one
 * line. Most tokens first, ties by path, as the ledger orders them.
 */
export function bucketsByPublicPath(buckets: UsageBucket__Output[]): UsageBucket__Output[] {
  const byPath = new Map<string, UsageBucket__Output>();
  for (const bucket of buckets) {
    const key = publicPathOf(bucket.key);
    const found = byPath.get(key);
    if (!found) {
      byPath.set(key, { ...bucket, key });
      continue;
    }
    found.tokens_input += bucket.tokens_input;
    found.tokens_output += bucket.tokens_output;
    // The ledger counts cost in nano-units: the sum of two of its figures is exact at that unit.
    found.cost = Math.round((found.cost + bucket.cost) * NANOS) / NANOS;
    found.calls += bucket.calls;
  }
  const tokens = (b: UsageBucket__Output) => b.tokens_input + b.tokens_output;
  return [...byPath.values()].sort((a, b) => tokens(b) - tokens(a) || a.key.localeCompare(b.key));
}
