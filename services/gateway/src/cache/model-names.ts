import type { ModelInfo__Output } from '@switchyard/shared/generated/switchyard/content/v1/ModelInfo';

/** How long the registry's names are reused: a model added or renamed is cached under its id within it. */
const NAMES_TTL_MS = 30_000;

interface Names {
  loadedAt: number;
  idOf: Map<string, string>;
  defaultId: string;
}

/**
 * Model names as the registry resolves them (ids and aliases, case-insensitive; the default for
 * none), so that a request naming a model by an alias and one naming its id share answers.
 */
export class ModelNames {
  private names: Promise<Names> | undefined;

  constructor(
    private readonly listModels: () => Promise<ModelInfo__Output[]>,
    private readonly ttlMs = NAMES_TTL_MS,
  ) {}

  /** The model id a name (or an empty one: the default) resolves to; an unknown name as it is. */
  async idOf(name: string): Promise<string> {
    const names = await this.current();
    if (!name) return names.defaultId;
    return names.idOf.get(name.toLowerCase()) ?? name.toLowerCase();
  }

  private async current(): Promise<Names> {
    const cached = this.names;
    if (cached) {
      const names = await cached.catch(() => undefined);
      if (names && Date.now() - names.loadedAt < this.ttlMs) return names;
      if (this.names !== cached) return this.current();
    }
    const loading = this.load();
    this.names = loading;
    loading.catch(() => {
      if (this.names === loading) this.names = undefined;
    });
    return loading;
  }

  private async load(): Promise<Names> {
    const models = await this.listModels();
    const idOf = new Map<string, string>();
    for (const model of models)
      for (const name of [model.id, ...model.aliases]) idOf.set(name.toLowerCase(), model.id);
    const defaultId = models.find((m) => m.is_default)?.id ?? '';
    return { loadedAt: Date.now(), idOf, defaultId };
  }
}
