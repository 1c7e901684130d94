import type { InteractionColumns } from '../../model/training-set';
import type { UserInteraction } from '../../model/types';

export interface InteractionToStore extends UserInteraction {
  /**
   * Set when the caller supplied the timestamp: an interaction with the same key is a retry of
   * one already stored and is skipped, so a retried batch is not counted twice. The key is made
   * of the interaction's fields (userId, itemId, type, value, timestamp), so a store may compare
   * those instead of keeping the key.
   */
  dedupeKey?: string;
}

/** The interaction log per organization (source of truth the model is derived from). */
export interface InteractionStore {
  /** Stores the interactions not stored before; returns those newly stored, in input order. */
  append(
    organization: string,
    interactions: readonly InteractionToStore[],
  ): Promise<UserInteraction[]>;
  count(organization: string): Promise<number>;
  /** One user's interactions, oldest first (a user's profile at serving time). */
  forUser(organization: string, userId: string): Promise<UserInteraction[]>;
  /**
   * Every stored interaction of an organization (for rebuilding the model), user by user, each
   * user's oldest first; the order of the users is unspecified.
   */
  scan(organization: string): AsyncIterable<UserInteraction>;
  /**
   * The same log as columns, for a store that keeps it so (the in-memory one): training then
   * reads it without an object per interaction. Absent: training collects scan() into columns.
   */
  columns?(organization: string): Promise<InteractionColumns>;
  organizations(): Promise<string[]>;
}
