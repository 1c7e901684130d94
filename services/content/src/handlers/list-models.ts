import type { ListModelsResponse } from '@switchyard/shared/generated/switchyard/content/v1/ListModelsResponse';
import type { ModelDeps } from './deps';

/** The registry's models, the default marked. */
export async function listModels({ models }: ModelDeps): Promise<ListModelsResponse> {
  return {
    models: models.list().map(({ info }) => ({
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
    })),
  };
}
