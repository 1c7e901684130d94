import type { UserInteraction } from '../../model/types';
import type { InteractionStore, InteractionToStore } from './port';

interface OrganizationLog {
  count: number;
  byUser: Map<string, UserInteraction[]>;
  keys: Set<string>;
}

export class InMemoryInteractionStore implements InteractionStore {
  private readonly logs = new Map<string, OrganizationLog>();

  async append(
    organization: string,
    interactions: readonly InteractionToStore[],
  ): Promise<UserInteraction[]> {
    const log = this.logOf(organization);
    const stored: UserInteraction[] = [];
    for (const { dedupeKey, ...interaction } of interactions) {
      if (dedupeKey !== undefined) {
        if (log.keys.has(dedupeKey)) continue;
        log.keys.add(dedupeKey);
      }
      log.count++;
      let mine = log.byUser.get(interaction.userId);
      if (!mine) log.byUser.set(interaction.userId, (mine = []));
      mine.push(interaction);
      stored.push({ ...interaction });
    }
    return stored;
  }

  async count(organization: string): Promise<number> {
    return this.logs.get(organization)?.count ?? 0;
  }

  async forUser(organization: string, userId: string): Promise<UserInteraction[]> {
    return (this.logs.get(organization)?.byUser.get(userId) ?? []).map((interaction) => ({
      ...interaction,
    }));
  }

  async *scan(organization: string): AsyncIterable<UserInteraction> {
    for (const mine of this.logs.get(organization)?.byUser.values() ?? []) {
      for (const interaction of mine) yield { ...interaction };
    }
  }

  async organizations(): Promise<string[]> {
    return [...this.logs.keys()];
  }

  private logOf(organization: string): OrganizationLog {
    let log = this.logs.get(organization);
    if (!log) {
      log = { count: 0, byUser: new Map(), keys: new Set() };
      this.logs.set(organization, log);
    }
    return log;
  }
}
