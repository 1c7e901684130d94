import type { ModelInfo__Output } from '@switchyard/shared/proto/content/v1';
import { ModelList } from '../schemas/content';
import { json, type AnyRoute, type RouteSpec } from './types';

/** The models a key's `models` scope names (by id or alias); every model without one. */
export function modelsInScope<M extends Pick<ModelInfo__Output, 'id' | 'aliases'>>(
  models: M[],
  allowed: readonly string[] | undefined,
): M[] {
  if (!allowed) return models;
  const names = new Set(allowed.map((name) => name.toLowerCase()));
  return models.filter((m) => [m.id, ...m.aliases].some((name) => names.has(name.toLowerCase())));
}

const listModels: RouteSpec = {
  method: 'GET',
  path: '/api/v2/models',
  operationId: 'listModels',
  summary:
    'Models that the model field may name, with prices and limits (a key limited to some models sees those)',
  tag: 'models',
  auth: true,
  responses: { 200: { description: 'Models', schema: ModelList } },
  async handle({ call }, deps) {
    const { models } = await deps.clients.content.listModels({}, call);
    return json(200, {
      models: modelsInScope(models, call.models).map((m) => ({
        id: m.id,
        provider: m.provider,
        capabilities: m.capabilities,
        aliases: m.aliases,
        inputPricePerMillion: m.input_price_per_million,
        outputPricePerMillion: m.output_price_per_million,
        contextWindow: m.context_window,
        maxOutputTokens: m.max_output_tokens,
        isDefault: m.is_default,
        ...(m.translation_pairs.length > 0 ? { translationPairs: m.translation_pairs } : {}),
      })),
    });
  },
};

export const modelRoutes: AnyRoute[] = [listModels];
