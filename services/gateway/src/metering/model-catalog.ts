import { newId, outageOf, type CallContext } from '@switchyard/shared';
import type { ModelInfo__Output } from '@switchyard/shared/proto/content/v1';

/** Prices per million tokens, in the registry's currency. */
export interface Price {
  inputPerMillion: number;
  outputPerMillion: number;
}

export type ListModels = () => Promise<ModelInfo__Output[]>;

/** How long a replica keeps the registry's models before asking content again. */
export const CATALOG_TTL_MS = 30_000;

/** One read of the registry: its models, each name (id or alias, lower case) to its id, the default. */
interface Loaded {
  models: ModelInfo__Output[];
  idOf: Map<string, string>;
  defaultId: string;
  expiresAt: number;
}

/**
 * The registry's models as the gateway reads them, one ListModels per replica and TTL for every
 * reader: the prices cost budgets reserve by, and the names the response cache keys answers by
 * (ids and aliases, case-insensitive; the default model for none). While content is unreachable
 * the last models read serve.
 */
export class ModelCatalog {
  private loaded: Loaded | undefined;
  private loading: Promise<Loaded> | undefined;

  constructor(
    private readonly listModels: ListModels,
    private readonly ttlMs = CATALOG_TTL_MS,
  ) {}

  /**
   * The named model's prices (the default model's for none). A name the registry does not know is
   * priced as its dearest model (the call is refused by content anyway, and the reservation given
   * back).
   */
  async priceOf(model: string | undefined): Promise<Price> {
    const { models, idOf, defaultId } = await this.current();
    const id = model ? idOf.get(model.toLowerCase()) : defaultId;
    const found = id === undefined ? undefined : models.find((m) => m.id === id);
    if (found)
      return {
        inputPerMillion: found.input_price_per_million,
        outputPerMillion: found.output_price_per_million,
      };
    return {
      inputPerMillion: Math.max(0, ...models.map((m) => m.input_price_per_million)),
      outputPerMillion: Math.max(0, ...models.map((m) => m.output_price_per_million)),
    };
  }

  /** The model id a name (or an empty one: the default) resolves to; an unknown name as it is, lower case. */
  async idOf(name: string): Promise<string> {
    const { idOf, defaultId } = await this.current();
    if (!name) return defaultId;
    return idOf.get(name.toLowerCase()) ?? name.toLowerCase();
  }

  private async current(): Promise<Loaded> {
    const loaded = this.loaded;
    if (loaded && loaded.expiresAt > Date.now()) return loaded;
    this.loading ??= this.load()
      .catch((error: unknown) => {
        // Content unreachable: the last models read serve until it is back.
        if (loaded && outageOf(error)) return loaded;
        throw error;
      })
      .finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(): Promise<Loaded> {
    const models = await this.listModels();
    const idOf = new Map<string, string>();
    for (const model of models)
      for (const name of [model.id, ...model.aliases]) idOf.set(name.toLowerCase(), model.id);
    const defaultId = models.find((m) => m.is_default)?.id ?? '';
    this.loaded = { models, idOf, defaultId, expiresAt: Date.now() + this.ttlMs };
    return this.loaded;
  }
}

/** A ListModels call of the gateway's own (no caller). */
export function systemCall(): CallContext {
  return { organization: '', keyId: '', requestId: newId('req') };
}
