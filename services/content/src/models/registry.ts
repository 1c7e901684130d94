import { AppError } from '@switchyard/shared';
import { canRoute } from './apertium/route';
import type { Capability, TextModel } from './text-model';

/** What each capability lets a model do, as a refusal says it. */
const DOES: Record<Capability, string> = {
  generate: 'generate',
  summarize: 'summarize',
  reformat: 'reformat',
  translate: 'translate',
  chat: 'complete chats',
  embeddings: 'embed',
};

/** The local models `npm run model:fetch` brings, by capability. */
const FETCHED_FOR: Partial<Record<Capability, string>> = {
  chat: 'a local chat model',
  embeddings: 'a local embedding model',
};

/**
 * An unknown model on the OpenAI-compatible surface: 404, as OpenAI answers it, naming the models
 * here that could do the call (an OpenAI name such as text-embedding-3-small is not an alias of a
 * local model: its vectors and sizes differ, and a client comparing them would be misled).
 */
export function modelNotFound(name: string, able: TextModel[] = []): AppError {
  const here =
    able.length > 0 ? ` Models here that can: ${able.map((m) => m.info.id).join(', ')}.` : '';
  return new AppError(
    'not_found',
    `The model \`${name}\` does not exist or you do not have access to it.${here}`,
    [
      {
        field: '/model',
        reason: 'unknown model',
        ...(able.length > 0 ? { available: able.map((m) => m.info.id) } : {}),
      },
    ],
  );
}

/** The models the service knows, resolved by id or alias (case-insensitive). */
export class ModelRegistry {
  private readonly byName = new Map<string, TextModel>();
  readonly defaultModel: TextModel;

  constructor(models: TextModel[], defaultName: string) {
    for (const model of models) {
      for (const name of [model.info.id, ...model.info.aliases]) {
        const key = name.toLowerCase();
        if (this.byName.has(key)) throw new Error(`model name "${name}" is registered twice`);
        this.byName.set(key, model);
      }
    }
    for (const model of models) {
      for (const target of model.info.fallback ?? []) {
        if (!this.byName.has(target.toLowerCase()))
          throw new Error(`model ${model.info.id}: fallback "${target}" is not a known model`);
      }
    }
    const fallback = this.byName.get(defaultName.toLowerCase());
    // A misconfigured DEFAULT_MODEL must stop the service at startup, not fail every request.
    if (!fallback)
      throw new Error(`DEFAULT_MODEL "${defaultName}" is not a known model (${this.knownIds()})`);
    this.defaultModel = fallback;
  }

  list(): TextModel[] {
    return [...new Set(this.byName.values())];
  }

  /** The model of that id or alias, if there is one. */
  find(name: string): TextModel | undefined {
    return this.byName.get(name.trim().toLowerCase());
  }

  /** Releases what the models hold (local models' memory); the registry is not used after. */
  async close(): Promise<void> {
    await Promise.all(this.list().map((model) => model.close?.()));
  }

  /** The model for a request's `model` field; empty selects the default. */
  resolve(name: string): TextModel {
    if (name === '') return this.defaultModel; // unset (proto3)
    if (name.trim() === '')
      throw AppError.invalid('model must not be blank', '/model', 'must not be blank');
    const model = this.byName.get(name.trim().toLowerCase());
    if (!model) {
      throw AppError.invalid(
        `unknown model "${name}"; known models: ${this.knownIds()}`,
        '/model',
        'unknown model',
      );
    }
    return model;
  }

  /** Like resolve, and checks the model can do the operation (422 otherwise). */
  resolveFor(name: string, capability: Capability): TextModel {
    const model = this.resolve(name);
    if (!model.info.capabilities.includes(capability)) throw this.cannot(model, capability);
    return model;
  }

  /** The models that can do the operation. */
  able(capability: Capability): TextModel[] {
    return this.list().filter((m) => m.info.capabilities.includes(capability));
  }

  /** 422: the model cannot do the operation; says which models can, or what to run for one. */
  cannot(model: TextModel, capability: Capability): AppError {
    const able = this.able(capability).map((m) => m.info.id);
    const fetched = FETCHED_FOR[capability];
    const remedy =
      able.length > 0
        ? `models that can: ${able.join(', ')}`
        : fetched
          ? `run \`npm run model:fetch\` for ${fetched}, or configure a model with the ${capability} capability (docs/models.md)`
          : `configure a model with the ${capability} capability (docs/models.md)`;
    return AppError.unsupported(`model ${model.info.id} cannot ${DOES[capability]}; ${remedy}`, [
      { field: '/model', reason: `lacks the ${capability} capability` },
    ]);
  }

  /**
   * The model for embeddings: the one named, else the registry's first model with the embeddings
   * capability (422 when there is none: retrieval then stays lexical).
   */
  resolveEmbedder(name: string): TextModel {
    if (name.trim() !== '') return this.resolveFor(name, 'embeddings');
    const model = this.able('embeddings')[0];
    if (!model) {
      throw AppError.unsupported(
        'no model with the embeddings capability is configured in the model registry; run `npm run model:fetch` for a local embedding model',
        [{ field: '/model', reason: 'no embeddings model' }],
      );
    }
    return model;
  }

  /**
   * The model for a translation. An empty `model` whose default cannot translate (the builtin
   * engine) goes to the first model that can translate this pair, else the first translator
   * (whose refusal names its pairs); with none, the default answers and refuses.
   */
  resolveTranslator(name: string, source: string, target: string): TextModel {
    if (name.trim() !== '' || this.defaultModel.info.capabilities.includes('translate'))
      return this.resolve(name);
    const translators = this.list().filter((m) => m.info.capabilities.includes('translate'));
    const able = translators.find(
      (m) =>
        m.info.translationPairs === undefined ||
        (source !== '' && canRoute(m.info.translationPairs, source, target)),
    );
    return able ?? translators[0] ?? this.defaultModel;
  }

  /**
   * The model followed by its fallbacks (in configured order) that can do the operation; each
   * model appears once.
   */
  chainFor(model: TextModel, capability: Capability): TextModel[] {
    const chain = [model];
    for (const target of model.info.fallback ?? []) {
      const next = this.byName.get(target.toLowerCase());
      if (next && !chain.includes(next) && next.info.capabilities.includes(capability))
        chain.push(next);
    }
    return chain;
  }

  /** Ids with their aliases, e.g. "builtin (local), gpt-4o-mini (mini)". */
  private knownIds(): string {
    return this.list()
      .map((m) =>
        m.info.aliases.length > 0 ? `${m.info.id} (${m.info.aliases.join(', ')})` : m.info.id,
      )
      .join(', ');
  }
}
