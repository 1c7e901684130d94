import { newId, outageOf, type CallContext } from '@switchyard/shared';
import type { ModelInfo__Output } from '@switchyard/shared/generated/switchyard/content/v1/ModelInfo';

/** Prices per million tokens, in the registry's currency. */
export interface Price {
  inputPerMillion: number;
  outputPerMillion: number;
}

export type ListModels = () => Promise<ModelInfo__Output[]>;

/** How long a replica keeps the registry's prices before asking content again. */
export const PRICES_TTL_MS = 30_000;

/**
 * The registry's model prices as the gateway needs them to reserve on cost budgets before a
 * call: a model named by id or alias, the default model when none is named. A name the registry
 * does not know is priced as its dearest model (the call is refused by content anyway, and the
 * reservation given back). Asked for only when a cost budget applies.
 */
export class ModelPrices {
  private cached: { models: ModelInfo__Output[]; expiresAt: number } | undefined;
  private loading: Promise<ModelInfo__Output[]> | undefined;

  constructor(
    private readonly listModels: ListModels,
    private readonly ttlMs = PRICES_TTL_MS,
  ) {}

  async priceOf(model: string | undefined): Promise<Price> {
    const models = await this.models();
    const name = model?.toLowerCase();
    const found = name
      ? models.find((m) => [m.id, ...m.aliases].some((n) => n.toLowerCase() === name))
      : models.find((m) => m.is_default);
    if (found) return priceOf(found);
    return {
      inputPerMillion: Math.max(0, ...models.map((m) => m.input_price_per_million)),
      outputPerMillion: Math.max(0, ...models.map((m) => m.output_price_per_million)),
    };
  }

  private async models(): Promise<ModelInfo__Output[]> {
    const cached = this.cached;
    if (cached && cached.expiresAt > Date.now()) return cached.models;
    this.loading ??= this.listModels()
      .then((models) => {
        this.cached = { models, expiresAt: Date.now() + this.ttlMs };
        return models;
      })
      .catch((error: unknown) => {
        // Content unreachable: the last known prices serve until it is back.
        if (cached && outageOf(error)) return cached.models;
        throw error;
      })
      .finally(() => (this.loading = undefined));
    return this.loading;
  }
}

function priceOf(model: ModelInfo__Output): Price {
  return {
    inputPerMillion: model.input_price_per_million,
    outputPerMillion: model.output_price_per_million,
  };
}

/** A ListModels call of the gateway's own (no caller). */
export function systemCall(): CallContext {
  return { organization: '', keyId: '', requestId: newId('req') };
}
