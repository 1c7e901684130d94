import { CooccurrenceModel } from './cooccurrence-model';
import type { InteractionStore } from '../store/interaction-store';

/**
 * One model per organization, so organizations never share statistics. The models are derived
 * state: rebuildFrom() replays the interaction store, e.g. after a restart on a persistent store.
 */
export class ModelRegistry {
  private readonly models = new Map<string, CooccurrenceModel>();

  forOrganization(organization: string): CooccurrenceModel {
    let model = this.models.get(organization);
    if (!model) {
      model = new CooccurrenceModel();
      this.models.set(organization, model);
    }
    return model;
  }

  async rebuildFrom(store: InteractionStore): Promise<number> {
    this.models.clear();
    let replayed = 0;
    for (const organization of await store.organizations()) {
      const model = this.forOrganization(organization);
      for await (const interaction of store.scan(organization)) {
        model.apply(interaction);
        replayed++;
      }
    }
    return replayed;
  }
}
