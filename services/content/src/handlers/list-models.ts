import type { DeploymentStatus, ListModelsResponse } from '@switchyard/shared/proto/content/v1';
import type { TextModel } from '../models/text-model';
import type { ModelDeps } from './deps';

/** A model of several deployments: their state in this replica. */
function deploymentsOf(model: TextModel): DeploymentStatus[] {
  return (model.deployments?.() ?? []).map((d) => ({
    id: d.id,
    weight: d.weight,
    state: d.state,
    cooldown_until: d.cooldownUntil ?? '',
    in_flight: d.inFlight,
    ...(d.latencyMs !== undefined ? { latency_ms: d.latencyMs } : {}),
    requests: d.requests,
    failures: d.failures,
  }));
}

/** The registry's models, the default marked. */
export async function listModels({ models }: ModelDeps): Promise<ListModelsResponse> {
  return {
    models: models.list().map((model) => {
      const { info } = model;
      return {
        id: info.id,
        provider: info.provider,
        capabilities: info.capabilities,
        aliases: info.aliases,
        input_price_per_million: info.inputPricePerMillion,
        output_price_per_million: info.outputPricePerMillion,
        context_window: info.contextWindow,
        max_output_tokens: info.maxOutputTokens,
        is_default: info.id === models.defaultModel.info.id,
        translation_pairs: info.translationPairs ?? [],
        routing: model.routing ?? '',
        deployments: deploymentsOf(model),
      };
    }),
  };
}
