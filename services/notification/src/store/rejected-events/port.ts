/** A consumed event refused by its handler and sent to the dead-letter topic. */
export interface RejectedEvent {
  organization: string;
  eventId: string;
  reason: string;
  rejectedAt: string;
}

/**
 * The events sent to the dead-letter topic, by (organization, event id): a batch handled again
 * (it failed after dead-lettering, or another replica took its partition over) sends each of them
 * once. Kept as long as a consumed event can be handled again (the topics' retention).
 */
export interface RejectedEventStore {
  /** The keys (rejectedEventKey) of those of these events that were dead-lettered already. */
  recorded(events: Array<Pick<RejectedEvent, 'organization' | 'eventId'>>): Promise<Set<string>>;
  /** Records events as dead-lettered; one recorded before keeps its first record. */
  record(events: RejectedEvent[]): Promise<void>;
}

export function rejectedEventKey(organization: string, eventId: string): string {
  return JSON.stringify([organization, eventId]);
}
